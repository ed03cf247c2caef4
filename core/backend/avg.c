// SPDX-License-Identifier: MIT
/*
 * One averaging instance: the host allocates the plugin's state (the plugin
 * never allocates) and passes only decay periods the plugin accepted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/thermpress.h>

#include "backend/state_layout.h"

int tp_avg_init(struct tp_avg *avg, const struct tp_backend_ops *ops, uint32_t decay_ms,
		uint64_t now_ns, struct tp_error *err)
{
	uint32_t in_force;
	size_t align, size;
	void *state;
	int ret;

	memset(avg, 0, sizeof(*avg));
	if (!ops)
		return tp_error_set(err, -EINVAL, "no backend given");
	if (decay_ms == 0)
		decay_ms = ops->decay_default_ms;
	if (ops->normalize_decay(decay_ms, &in_force) != 0) {
		if (ops->decay_max_ms == 0)
			return tp_error_set(err, -EINVAL, "backend %s has no decay period",
					    ops->name);
		return tp_error_set(err, -EINVAL,
				    "decay period %u ms is out of range for backend %s (%u..%u ms)",
				    decay_ms, ops->name, ops->decay_min_ms, ops->decay_max_ms);
	}
	align = tp_backend_state_align(ops);
	size = tp_backend_state_stride(ops);
	ret = posix_memalign(&state, align, size);
	if (ret)
		return tp_error_set(err, -ret, "cannot allocate %zu bytes of %s state", size,
				    ops->name);
	memset(state, 0, size);
	ops->reset(state, in_force, now_ns);
	avg->ops = ops;
	avg->decay_ms = in_force;
	avg->state = state;
	return 0;
}

void tp_avg_reset(struct tp_avg *avg, uint64_t now_ns)
{
	avg->ops->reset(avg->state, avg->decay_ms, now_ns);
}

uint64_t tp_avg_update(struct tp_avg *avg, uint64_t now_ns, uint64_t pressure)
{
	return avg->ops->update(avg->state, now_ns, pressure);
}

void tp_avg_fini(struct tp_avg *avg)
{
	free(avg->state);
	memset(avg, 0, sizeof(*avg));
}
