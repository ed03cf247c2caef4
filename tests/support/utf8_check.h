/* SPDX-License-Identifier: MIT */
/*
 * Checks of text made safe (core/text.c), for its unit tests and its fuzz target:
 * strict UTF-8 written from the Unicode table, independently of tp_utf8_next (the
 * decoder under test), and the absence of control characters.  Used only by tests.
 */
#ifndef THERMPRESS_TESTS_UTF8_CHECK_H
#define THERMPRESS_TESTS_UTF8_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Strict UTF-8 (Unicode table 3-7): 1 when s[0..n) is well formed. */
static inline int valid_utf8(const void *s, size_t n)
{
	const unsigned char *u = s;

	for (size_t i = 0; i < n;) {
		unsigned c = u[i];
		size_t len;
		uint32_t v, min;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			len = 2; v = c & 0x1f; min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			len = 3; v = c & 0x0f; min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			len = 4; v = c & 0x07; min = 0x10000;
		} else {
			return 0;
		}
		if (i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++) {
			if ((u[i + k] & 0xc0) != 0x80)
				return 0;
			v = v << 6 | (u[i + k] & 0x3f);
		}
		if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

/* No C0 (but newline when allowed), DEL or C1 (as U+0080..U+009F, c2 80..c2 9f). */
static inline int no_controls(const void *s, size_t n, int newline_ok)
{
	const unsigned char *u = s;

	for (size_t i = 0; i < n; i++) {
		if ((u[i] < 0x20 && !(newline_ok && u[i] == '\n')) || u[i] == 0x7f)
			return 0;
		if (u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)
			return 0;
	}
	return 1;
}

#endif
