/* SPDX-License-Identifier: MIT */
/*
 * Text that comes from outside thermpress (sysfs, fixture trees, trace files, plugins,
 * file names) made safe to show: for a terminal and inside a JSON string.  Such text
 * may hold any bytes; what these functions write is always valid UTF-8 (docs/json.md,
 * "Strings").
 *
 * Both read UTF-8 the way Unicode recommends for replacement: each maximal ill-formed
 * subpart (a byte that cannot start a sequence, a lone continuation byte, a truncated
 * sequence, an overlong form, a surrogate, a value above U+10FFFF) is one U+FFFD.
 */
#ifndef THERMPRESS_TEXT_H
#define THERMPRESS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the public API: exported from libthermpress, built with hidden visibility */
#pragma GCC visibility push(default)

/* What tp_utf8_next gives for an ill-formed subpart (not a code point). */
#define TP_UTF8_BAD 0x110000u
/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
#define TP_UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * Decode the sequence at s (len >= 1 bytes): returns the bytes it takes (1..4) and sets
 * *cp to its code point, or to TP_UTF8_BAD for an ill-formed subpart.
 */
size_t tp_utf8_next(const char *s, size_t len, uint32_t *cp);
/* A control character: C0 (U+0000..U+001F), DEL (U+007F) or C1 (U+0080..U+009F). */
bool tp_is_control(uint32_t cp);

/* Flags of tp_text_terminal. */
#define TP_TEXT_KEEP_NEWLINE 1u	/* keep U+000A (text of several lines) */

/*
 * s[0..len) for a terminal: every ill-formed subpart and every control character
 * (but a newline with TP_TEXT_KEEP_NEWLINE) becomes U+FFFD; all else is copied.
 * Writes at most size bytes with the NUL, never cutting a sequence; returns the
 * length of the whole result (snprintf style).
 */
size_t tp_text_terminal(char *dst, size_t size, const char *s, size_t len, unsigned flags);
/* The same for the C string s into a malloc'ed string; NULL when out of memory. */
char *tp_text_terminal_dup(const char *s, unsigned flags);

/*
 * s[0..len) as a JSON string, quotes included: '"' and '\' escaped, control characters
 * as \b \f \n \r \t or \u00XX (DEL and C1 too, so the document stays safe on a
 * terminal), every ill-formed subpart as U+FFFD, all else copied.  Written and
 * returned like tp_text_terminal.
 */
size_t tp_text_json(char *dst, size_t size, const char *s, size_t len);
/* The same into a malloc'ed string (*out_len: its length); NULL when out of memory. */
char *tp_text_json_dup(const char *s, size_t len, size_t *out_len);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
