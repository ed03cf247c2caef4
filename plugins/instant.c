// SPDX-License-Identifier: MIT
/*
 * instant: the averaged pressure is the raw pressure (docs/algorithms.md).
 * It has no decay parameter and no real state; it still asks for a few bytes of
 * state so that no host ever has to allocate zero bytes.
 */
#include <errno.h>
#include <stdalign.h>

#include <thermpress/backend.h>

struct instant_state {
	uint64_t last;	/* the last value returned; informational only */
};

static int instant_normalize_decay(uint32_t requested_ms, uint32_t *in_force_ms)
{
	if (requested_ms != 0)
		return -EINVAL;
	*in_force_ms = 0;
	return 0;
}

static void instant_reset(void *state, uint32_t decay_ms, uint64_t now_ns)
{
	struct instant_state *s = state;

	s->last = 0;
}

static uint64_t instant_update(void *state, uint64_t now_ns, uint64_t pressure)
{
	struct instant_state *s = state;

	s->last = pressure;
	return pressure;
}

static void instant_update_batch(void *state, size_t n, const uint64_t *now_ns,
				 const uint64_t *pressure, uint64_t *avg_out)
{
	for (size_t i = 0; i < n; i++)
		avg_out[i] = instant_update(state, now_ns[i], pressure[i]);
}

static const struct tp_backend_ops instant_ops = {
	.abi_version = TP_BACKEND_ABI_VERSION,
	.struct_size = sizeof(struct tp_backend_ops),
	.name = "instant",
	.summary = "raw pressure, no averaging",
	.flags = TP_BACKEND_UPDATE_ON_CHANGE,
	.decay_min_ms = 0,
	.decay_max_ms = 0,
	.decay_default_ms = 0,
	.state_size = sizeof(struct instant_state),
	.state_align = alignof(struct instant_state),
	.normalize_decay = instant_normalize_decay,
	.reset = instant_reset,
	.update = instant_update,
	.update_batch = instant_update_batch,
};

__attribute__((visibility("default")))
const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version);

const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version)
{
	return host_abi_version == TP_BACKEND_ABI_VERSION ? &instant_ops : NULL;
}
