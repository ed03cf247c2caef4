/* SPDX-License-Identifier: MIT */
/* The monotonic clock, for intervals and deadlines (util/README.md). */
#ifndef THERMPRESS_UTIL_CLOCK_H
#define THERMPRESS_UTIL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t mono_ns(void);

#endif
