/* SPDX-License-Identifier: MIT */
/*
 * Strict decimal integers, as the kernel writes them and as thermpress accepts them:
 * ASCII digits only, no blanks, no '+', no base prefix (unlike strtol, which skips
 * white space and takes signs; util/README.md).
 *
 * Each returns 0, -EINVAL (not such a number, however many its digits) or -ERANGE
 * (a number too large for the type).
 */
#ifndef THERMPRESS_UTIL_INTPARSE_H
#define THERMPRESS_UTIL_INTPARSE_H

#include <stdint.h>

/* The whole of text as a number 0..UINT64_MAX. */
int parse_u64(const char *text, uint64_t *value);

/* The whole of text as a number INT64_MIN..INT64_MAX: digits with an optional '-'. */
int parse_i64(const char *text, int64_t *value);

/*
 * The number at the start of text (at least one digit); *end points after its last
 * digit.  On error *end and *value are untouched.
 */
int parse_u64_prefix(const char *text, const char **end, uint64_t *value);

/*
 * A CPU range at the start of text, "N" or "N-M" (kernel cpulist element), *end after
 * it.  first > last is not checked here: callers say what is wrong in their words.
 */
int parse_cpu_range(const char *text, const char **end, uint64_t *first, uint64_t *last);

#endif
