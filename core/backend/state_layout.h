/* SPDX-License-Identifier: MIT */
/*
 * How the host lays out a backend's state (thermpress/backend.h: state_size bytes
 * aligned to state_align), for every place that allocates one: a single instance
 * (avg.c), one per CPU in a block (the simulator), one per CPU and backend (replay).
 */
#ifndef TP_BACKEND_STATE_LAYOUT_H
#define TP_BACKEND_STATE_LAYOUT_H

#include <stddef.h>

#include "thermpress/backend.h"

/* The alignment to allocate with: posix_memalign() wants a multiple of sizeof(void *). */
static inline size_t tp_backend_state_align(const struct tp_backend_ops *ops)
{
	return ops->state_align < sizeof(void *) ? sizeof(void *) : ops->state_align;
}

/* The bytes one state takes, rounded up to that alignment so states can sit side by
 * side; never 0 (a stateless backend still gets a distinct address). */
static inline size_t tp_backend_state_stride(const struct tp_backend_ops *ops)
{
	size_t align = tp_backend_state_align(ops);

	return ops->state_size ? (ops->state_size + align - 1) / align * align : align;
}

#endif
