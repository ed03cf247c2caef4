// SPDX-License-Identifier: MIT
/*
 * tp_text_terminal and tp_text_json (thermpress/text.h): valid UTF-8 passes unchanged,
 * every ill-formed form is one U+FFFD per maximal subpart, control characters are
 * replaced (terminal) or escaped (JSON), and the output is always valid UTF-8 (checked
 * by the validator of tests/support/utf8_check.h, written from the Unicode table, not
 * by the decoder under test).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <thermpress/text.h>

#include "utf8_check.h"

#define R TP_UTF8_REPLACEMENT

static char *term(const char *s, size_t n, unsigned flags)
{
	size_t need = tp_text_terminal(NULL, 0, s, n, flags);
	char *out = malloc(need + 1);

	assert_non_null(out);
	assert_int_equal(tp_text_terminal(out, need + 1, s, n, flags), need);
	assert_int_equal(strlen(out), need);
	assert_true(valid_utf8(out, need));
	assert_true(no_controls(out, need, flags & TP_TEXT_KEEP_NEWLINE));
	return out;
}

static char *json(const char *s, size_t n)
{
	size_t len;
	char *out = tp_text_json_dup(s, n, &len);

	assert_non_null(out);
	assert_int_equal(strlen(out), len);
	assert_true(valid_utf8(out, len));
	assert_true(no_controls(out, len, 0));
	assert_true(len >= 2 && out[0] == '"' && out[len - 1] == '"');
	return out;
}

#define TERM_IS(in, want) do {					\
		char *t_ = term(in, sizeof(in) - 1, 0);		\
		assert_string_equal(t_, want);			\
		free(t_);					\
	} while (0)
#define JSON_IS(in, want) do {					\
		char *j_ = json(in, sizeof(in) - 1);		\
		assert_string_equal(j_, want);			\
		free(j_);					\
	} while (0)

static void valid_unchanged(void **state)
{
	static const char text[] = "cpu-thermal \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xe4\xb8\xad "
		"\xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xef\xbf\xbd \xc2\xa0 \xed\x9f\xbf \xee\x80\x80";

	assert_true(valid_utf8(text, sizeof(text) - 1));
	TERM_IS(text, text);
	char *j = json(text, sizeof(text) - 1);
	assert_int_equal(strlen(j), strlen(text) + 2);
	assert_memory_equal(j + 1, text, strlen(text));
	free(j);
	/* the edges of each length */
	TERM_IS("\x20\x7e\xc2\xa0\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
		"\x20\x7e\xc2\xa0\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
}

static void invalid_replaced(void **state)
{
	TERM_IS("a\xff" "b", "a" R "b");			/* never a lead byte */
	TERM_IS("a\xfe\xf5\xf8" "b", "a" R R R "b");
	TERM_IS("a\x80" "b", "a" R "b");			/* lone continuation */
	TERM_IS("\xbf\xbf", R R);
	TERM_IS("\xc0\xaf", R R);				/* overlong '/' */
	TERM_IS("\xc1\xbf", R R);
	TERM_IS("\xe0\x80\xaf", R R R);				/* overlong, 3 bytes */
	TERM_IS("\xf0\x80\x80\xaf", R R R R);			/* overlong, 4 bytes */
	TERM_IS("\xed\xa0\x80", R R R);				/* surrogate U+D800 */
	TERM_IS("\xed\xbf\xbf", R R R);				/* surrogate U+DFFF */
	TERM_IS("\xf4\x90\x80\x80", R R R R);			/* above U+10FFFF */
	TERM_IS("\xe2\x82", R);					/* truncated at the end */
	TERM_IS("\xe2\x82x", R "x");				/* truncated, then ASCII */
	TERM_IS("\xf0\x9f\x98", R);				/* 3 of 4 bytes */
	TERM_IS("\xf0\x9f\x98\xe2\x82\xac", R "\xe2\x82\xac");	/* truncated, then valid */
	TERM_IS("\xc3", R);
	TERM_IS("\xc3\xc3\xa9", R "\xc3\xa9");
	JSON_IS("a\xff\xc0\xaf\xe2\x82", "\"a" R R R R "\"");
	JSON_IS("\xed\xa0\x80\xf0\x9f\x98\x80", "\"" R R R "\xf0\x9f\x98\x80\"");
}

static void controls_terminal(void **state)
{
	TERM_IS("x\x1b[2Jy", "x" R "[2Jy");
	TERM_IS("\x07\r\t\b", R R R R);
	TERM_IS("a\nb", "a" R "b");
	TERM_IS("del\x7f", "del" R);
	TERM_IS("csi\xc2\x9b" "31m", "csi" R "31m");		/* C1 CSI as UTF-8 */
	TERM_IS("\xc2\x80\xc2\x9f\xc2\xa0", R R "\xc2\xa0");	/* C1 range ends, NBSP kept */
	TERM_IS("\x9b" "31m", R "31m");				/* a raw C1 byte is ill-formed */
	char *t = term("a\nb\x1b", 4, TP_TEXT_KEEP_NEWLINE);
	assert_string_equal(t, "a\nb" R);
	free(t);
	/* NUL inside the given length is a control character too */
	t = term("a\0b", 3, 0);
	assert_string_equal(t, "a" R "b");
	free(t);
}

static void controls_json(void **state)
{
	JSON_IS("q\"b\\s/", "\"q\\\"b\\\\s/\"");
	JSON_IS("\b\t\n\f\r", "\"\\b\\t\\n\\f\\r\"");
	JSON_IS("\x01\x0b\x1b\x1f", "\"\\u0001\\u000b\\u001b\\u001f\"");
	JSON_IS("\x7f\xc2\x80\xc2\x9b\xc2\x9f\xc2\xa0", "\"\\u007f\\u0080\\u009b\\u009f\xc2\xa0\"");
	char *j = json("a\0b", 3);
	assert_string_equal(j, "\"a\\u0000b\"");
	free(j);
	JSON_IS("", "\"\"");
}

/* Truncated output stops at a whole piece: still valid UTF-8, never half an escape. */
static void truncation(void **state)
{
	static const char in[] = "ab\xe2\x82\xac\xff\x1b" "cd";
	char buf[32];
	size_t full = tp_text_terminal(NULL, 0, in, sizeof(in) - 1, 0);

	assert_int_equal(full, strlen("ab\xe2\x82\xac" R R "cd"));
	for (size_t size = 1; size <= full + 1; size++) {
		memset(buf, 'Z', sizeof(buf));
		assert_int_equal(tp_text_terminal(buf, size, in, sizeof(in) - 1, 0), full);
		assert_true(strlen(buf) < size);
		assert_true(valid_utf8(buf, strlen(buf)));
		assert_memory_equal(buf, "ab\xe2\x82\xac" R R "cd", strlen(buf));
	}
	full = tp_text_json(NULL, 0, in, sizeof(in) - 1);
	for (size_t size = 1; size <= full + 1; size++) {
		const char *want = "\"ab\xe2\x82\xac" R "\\u001bcd\"";
		assert_int_equal(tp_text_json(buf, size, in, sizeof(in) - 1), full);
		assert_true(strlen(buf) < size);
		assert_true(valid_utf8(buf, strlen(buf)));
		assert_memory_equal(buf, want, strlen(buf));
		/* an escape is all there or not at all */
		assert_true(strlen(buf) != 10 && strlen(buf) != 11 && strlen(buf) != 12 &&
			    strlen(buf) != 13 && strlen(buf) != 14);
	}
	assert_int_equal(tp_text_terminal(NULL, 0, in, sizeof(in) - 1, 0),
			 tp_text_terminal(buf, 0, in, sizeof(in) - 1, 0));
}

/* Every 1..3-byte string: the output is valid and free of controls; valid input stays. */
static void exhaustive_short(void **state)
{
	unsigned char in[3];
	char out[64];

	for (unsigned a = 0; a < 256; a++)
		for (unsigned b = 0; b < 256; b++)
			for (unsigned c = 0; c < 256; c += (a < 0xc0 && b < 0xc0) ? 1 : 7) {
				size_t n, len;

				in[0] = (unsigned char)a;
				in[1] = (unsigned char)b;
				in[2] = (unsigned char)c;
				len = tp_text_terminal(out, sizeof(out), (char *)in, 3, 0);
				assert_true(len < sizeof(out));
				assert_true(valid_utf8(out, len) && no_controls(out, len, 0));
				if (valid_utf8((char *)in, 3) && no_controls((char *)in, 3, 0))
					assert_memory_equal(out, in, 3);
				n = tp_text_json(out, sizeof(out), (char *)in, 3);
				assert_true(n < sizeof(out));
				assert_true(valid_utf8(out, n) && no_controls(out, n, 0));
			}
}

static void decoder(void **state)
{
	uint32_t cp;

	assert_int_equal(tp_utf8_next("\xf0\x9f\x98\x80", 4, &cp), 4);
	assert_int_equal(cp, 0x1f600);
	assert_int_equal(tp_utf8_next("\xf0\x9f\x98\x80", 3, &cp), 3);	/* cut by len */
	assert_int_equal(cp, TP_UTF8_BAD);
	assert_int_equal(tp_utf8_next("\xe0\x9f\x80", 3, &cp), 1);	/* overlong: E0 alone */
	assert_int_equal(cp, TP_UTF8_BAD);
	assert_int_equal(tp_utf8_next("\xc2\x9b", 2, &cp), 2);
	assert_int_equal(cp, 0x9b);
	assert_true(tp_is_control(0x9b) && tp_is_control(0x7f) && tp_is_control(0));
	assert_false(tp_is_control(0xa0) || tp_is_control(' ') || tp_is_control(0xfffd));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_unchanged),
		cmocka_unit_test(invalid_replaced),
		cmocka_unit_test(controls_terminal),
		cmocka_unit_test(controls_json),
		cmocka_unit_test(truncation),
		cmocka_unit_test(exhaustive_short),
		cmocka_unit_test(decoder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
