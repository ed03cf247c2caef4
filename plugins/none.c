// SPDX-License-Identifier: MIT
/*
 * none: the scheduler sees no thermal pressure; the averaged pressure is always 0
 * (docs/algorithms.md).  The baseline the others are measured against.  Like
 * instant it has no decay parameter and no real state; it still asks for a few
 * bytes of state so that no host ever has to allocate zero bytes.
 */
#include <errno.h>
#include <stdalign.h>

#include <thermpress/backend.h>

struct none_state {
	uint64_t last;	/* the last pressure seen; informational only */
};

static int none_normalize_decay(uint32_t requested_ms, uint32_t *in_force_ms)
{
	if (requested_ms != 0)
		return -EINVAL;
	*in_force_ms = 0;
	return 0;
}

static void none_reset(void *state, uint32_t decay_ms, uint64_t now_ns)
{
	struct none_state *s = state;

	s->last = 0;
}

static uint64_t none_update(void *state, uint64_t now_ns, uint64_t pressure)
{
	struct none_state *s = state;

	s->last = pressure;
	return 0;
}

static void none_update_batch(void *state, size_t n, const uint64_t *now_ns,
			      const uint64_t *pressure, uint64_t *avg_out)
{
	for (size_t i = 0; i < n; i++)
		avg_out[i] = none_update(state, now_ns[i], pressure[i]);
}

static const struct tp_backend_ops none_ops = {
	.abi_version = TP_BACKEND_ABI_VERSION,
	.struct_size = sizeof(struct tp_backend_ops),
	.name = "none",
	.summary = "no thermal pressure: the average is always 0 (baseline)",
	.flags = 0,	/* the kernel feeds it at the tick only, as pelt */
	.decay_min_ms = 0,
	.decay_max_ms = 0,
	.decay_default_ms = 0,
	.state_size = sizeof(struct none_state),
	.state_align = alignof(struct none_state),
	.normalize_decay = none_normalize_decay,
	.reset = none_reset,
	.update = none_update,
	.update_batch = none_update_batch,
};

__attribute__((visibility("default")))
const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version);

const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version)
{
	return host_abi_version == TP_BACKEND_ABI_VERSION ? &none_ops : NULL;
}
