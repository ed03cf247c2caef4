// SPDX-License-Identifier: MIT
/*
 * Deliberately broken backend plugins for the loader tests: one source, one
 * defect per build (-DTESTPLUGIN_<DEFECT>).  TESTPLUGIN_GOOD builds a usable one so
 * that each case directory loads, and its warnings can be inspected.
 */
#include <errno.h>

#include <thermpress/backend.h>

#ifndef TESTPLUGIN_NAME
#define TESTPLUGIN_NAME "good"
#endif

static int t_normalize(uint32_t requested_ms, uint32_t *in_force_ms)
{
	if (requested_ms < 1 || requested_ms > 100)
		return -EINVAL;
	*in_force_ms = requested_ms;
	return 0;
}

static void t_reset(void *state, uint32_t decay_ms, uint64_t now_ns)
{
	*(uint64_t *)state = 0;
}

static uint64_t t_update(void *state, uint64_t now_ns, uint64_t pressure)
{
	return *(uint64_t *)state = pressure;
}

static void t_update_batch(void *state, size_t n, const uint64_t *now_ns,
			   const uint64_t *pressure, uint64_t *avg_out)
{
	for (size_t i = 0; i < n; i++)
		avg_out[i] = t_update(state, now_ns[i], pressure[i]);
}

static const struct tp_backend_ops t_ops __attribute__((unused)) = {
#ifdef TESTPLUGIN_ABI
	.abi_version = 99,
#else
	.abi_version = TP_BACKEND_ABI_VERSION,
#endif
#ifdef TESTPLUGIN_SMALLSTRUCT
	.struct_size = 16,
#else
	.struct_size = sizeof(struct tp_backend_ops),
#endif
#ifdef TESTPLUGIN_BADNAME
	.name = "Bad-Name",
#else
	.name = TESTPLUGIN_NAME,
#endif
	.summary = "a test plugin",
#ifdef TESTPLUGIN_BADRANGE
	.decay_min_ms = 50,
	.decay_max_ms = 10,
#else
	.decay_min_ms = 1,
	.decay_max_ms = 100,
#endif
	.decay_default_ms = 10,
	.state_size = sizeof(uint64_t),
#ifdef TESTPLUGIN_BADALIGN
	.state_align = 24,
#else
	.state_align = sizeof(uint64_t),
#endif
	.normalize_decay = t_normalize,
	.reset = t_reset,
#ifndef TESTPLUGIN_NULLCB
	.update = t_update,
#endif
	.update_batch = t_update_batch,
};

#ifdef TESTPLUGIN_NOSYM
const struct tp_backend_ops *thermpress_backend_entry_v0(uint32_t host_abi_version);
const struct tp_backend_ops *thermpress_backend_entry_v0(uint32_t host_abi_version)
#else
const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version);
const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version)
#endif
{
#ifdef TESTPLUGIN_NULLRET
	return NULL;
#else
	return &t_ops;
#endif
}
