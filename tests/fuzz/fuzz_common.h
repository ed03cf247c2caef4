/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the libFuzzer targets: a property check that reports and aborts
 * (libFuzzer then saves the input as a crash), and the input as a C string in a
 * buffer of its exact size, so that ASan sees any read past its end.
 */
#ifndef THERMPRESS_FUZZ_COMMON_H
#define THERMPRESS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__,	\
				__LINE__, #cond);					\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
			abort();						\
		}								\
	} while (0)

/* data[0..size) up to its first NUL, NUL-terminated, in a malloc'ed buffer of that size. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	size_t n = strnlen((const char *)data, size);
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

#endif
