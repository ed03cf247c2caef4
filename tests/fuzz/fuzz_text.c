// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for outside text made safe (core/text.c, thermpress/text.h).
 * Sources: tests/fuzz/fuzz_text.c core/text.c; needs json-c.
 *
 * Properties, on any bytes:
 *   tp_text_terminal: valid UTF-8 with no control character (but newline with
 *     TP_TEXT_KEEP_NEWLINE); unchanged when the input is valid UTF-8 without control
 *     characters; idempotent; one glyph out per decoded unit in.
 *   tp_text_json: valid UTF-8, no raw control character, and a JSON string that json-c
 *     (strict, validating UTF-8) parses back to the input with U+FFFD for each ill-formed
 *     subpart, byte for byte; exactly the input when it is valid UTF-8.
 *   both: the returned length is the written length; a smaller buffer gets a prefix that
 *     is still valid UTF-8 and stops at a whole piece.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <thermpress/text.h>

#include "utf8_check.h"

static size_t count_units(const char *s, size_t n)
{
	size_t units = 0;
	uint32_t cp;

	for (size_t i = 0; i < n; units++)
		i += tp_utf8_next(s + i, n - i, &cp);
	return units;
}

static char *terminal(const char *s, size_t n, unsigned flags, size_t *len)
{
	*len = tp_text_terminal(NULL, 0, s, n, flags);
	char *out = malloc(*len + 1);

	if (!out)
		abort();
	if (tp_text_terminal(out, *len + 1, s, n, flags) != *len || strlen(out) != *len)
		abort();
	return out;
}

/* A smaller buffer: a prefix of full, valid UTF-8, NUL-terminated inside the buffer. */
static void check_prefix(const char *got, size_t size, const char *full, size_t full_len)
{
	size_t k = strlen(got);

	if (k >= size || k > full_len || memcmp(got, full, k) ||
	    !valid_utf8((const unsigned char *)got, k))
		abort();
}

static void check_terminal(const char *s, size_t n, unsigned flags, size_t cut)
{
	size_t len, len2;
	char *out = terminal(s, n, flags, &len);

	if (!valid_utf8((unsigned char *)out, len) ||
	    !no_controls((unsigned char *)out, len, flags & TP_TEXT_KEEP_NEWLINE))
		abort();
	if (valid_utf8((const unsigned char *)s, n) &&
	    no_controls((const unsigned char *)s, n, flags & TP_TEXT_KEEP_NEWLINE) &&
	    (len != n || memcmp(out, s, n)))
		abort();
	if (count_units(out, len) != count_units(s, n))
		abort();
	char *again = terminal(out, len, flags, &len2);
	if (len2 != len || memcmp(again, out, len))
		abort();
	free(again);
	if (cut <= len) {
		char *buf = malloc(cut + 1);
		if (!buf)
			abort();
		if (tp_text_terminal(buf, cut + 1, s, n, flags) != len)
			abort();
		check_prefix(buf, cut + 1, out, len);
		free(buf);
	}
	free(out);
}

/* The input with each ill-formed subpart replaced by U+FFFD: what JSON must carry. */
static char *replaced(const char *s, size_t n, size_t *len)
{
	char *out = malloc(3 * n + 1);
	uint32_t cp;

	if (!out)
		abort();
	*len = 0;
	for (size_t i = 0, k; i < n; i += k) {
		k = tp_utf8_next(s + i, n - i, &cp);
		if (cp == TP_UTF8_BAD) {
			memcpy(out + *len, TP_UTF8_REPLACEMENT, 3);
			*len += 3;
		} else {
			memcpy(out + *len, s + i, k);
			*len += k;
		}
	}
	return out;
}

static void check_json(const char *s, size_t n, size_t cut)
{
	size_t len, want_len;
	char *out = tp_text_json_dup(s, n, &len);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj;

	if (!out || !tok || strlen(out) != len || len != tp_text_json(NULL, 0, s, n))
		abort();
	if (!valid_utf8((unsigned char *)out, len) || !no_controls((unsigned char *)out, len, 0))
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, out, (int)len);
	if (!obj || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len || !json_object_is_type(obj, json_type_string))
		abort();
	char *want = replaced(s, n, &want_len);
	if ((size_t)json_object_get_string_len(obj) != want_len ||
	    memcmp(json_object_get_string(obj), want, want_len))
		abort();
	if (valid_utf8((const unsigned char *)s, n) && (want_len != n || memcmp(want, s, n)))
		abort();
	if (cut <= len) {
		char *buf = malloc(cut + 1);
		if (!buf)
			abort();
		if (tp_text_json(buf, cut + 1, s, n) != len)
			abort();
		check_prefix(buf, cut + 1, out, len);
		free(buf);
	}
	free(want);
	json_object_put(obj);
	json_tokener_free(tok);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the first byte picks where a smaller buffer cuts; the rest is the text */
	size_t cut = size ? data[0] : 0;
	const char *s = size ? (const char *)data + 1 : "";
	size_t n = size ? size - 1 : 0;

	/* a C string, as the commands pass them: up to the first NUL */
	check_terminal(s, strnlen(s, n), 0, cut);
	/* lengths given: NUL is a control character like any other */
	check_terminal(s, n, 0, cut);
	check_terminal(s, n, TP_TEXT_KEEP_NEWLINE, cut);
	check_json(s, n, cut);
	return 0;
}
