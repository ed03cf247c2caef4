// SPDX-License-Identifier: MIT
/* Outside text made safe for a terminal and for JSON (thermpress/text.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/text.h>

size_t tp_utf8_next(const char *s, size_t len, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;	/* range of the second byte (Unicode table 3-7) */
	size_t need;
	uint32_t v;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		need = 1;
		v = u[0] & 0x1f;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		need = 2;
		v = u[0] & 0x0f;
		if (u[0] == 0xe0)
			lo = 0xa0;	/* no overlong forms */
		else if (u[0] == 0xed)
			hi = 0x9f;	/* no surrogates */
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		need = 3;
		v = u[0] & 0x07;
		if (u[0] == 0xf0)
			lo = 0x90;	/* no overlong forms */
		else if (u[0] == 0xf4)
			hi = 0x8f;	/* nothing above U+10FFFF */
	} else {
		*cp = TP_UTF8_BAD;	/* 80..c1 and f5..ff start nothing */
		return 1;
	}
	for (size_t i = 1; i <= need; i++) {
		/* the byte that breaks the sequence is not part of the ill-formed subpart */
		if (i >= len || u[i] < lo || u[i] > hi) {
			*cp = TP_UTF8_BAD;
			return i;
		}
		v = (v << 6) | (u[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = v;
	return need + 1;
}

bool tp_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/*
 * Output into dst[0..size): it stops at the first piece that does not fit whole, so
 * what is written is valid UTF-8 (and whole escapes), and counts everything.
 */
struct sink {
	char *dst;
	size_t size;
	size_t len;		/* of the whole result */
	size_t written;		/* bytes in dst */
	bool full;
};

static void put(struct sink *k, const char *p, size_t n)
{
	if (!k->full && k->written + n < k->size) {
		memcpy(k->dst + k->written, p, n);
		k->written += n;
	} else {
		k->full = true;
	}
	k->len += n;
}

static size_t finish(struct sink *k)
{
	if (k->size)
		k->dst[k->written] = '\0';
	return k->len;
}

size_t tp_text_terminal(char *dst, size_t size, const char *s, size_t len, unsigned flags)
{
	struct sink k = { .dst = dst, .size = size };

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = tp_utf8_next(s + i, len - i, &cp);

		if (cp == TP_UTF8_BAD ||
		    (tp_is_control(cp) && !(cp == '\n' && (flags & TP_TEXT_KEEP_NEWLINE))))
			put(&k, TP_UTF8_REPLACEMENT, 3);
		else
			put(&k, s + i, n);
		i += n;
	}
	return finish(&k);
}

char *tp_text_terminal_dup(const char *s, unsigned flags)
{
	size_t len = strlen(s);
	size_t n = tp_text_terminal(NULL, 0, s, len, flags);
	char *out = malloc(n + 1);

	if (out)
		tp_text_terminal(out, n + 1, s, len, flags);
	return out;
}

size_t tp_text_json(char *dst, size_t size, const char *s, size_t len)
{
	static const char short_escape[] = "btn\0fr";	/* U+0008..U+000D; \0: none */
	struct sink k = { .dst = dst, .size = size };
	char esc[8];

	put(&k, "\"", 1);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = tp_utf8_next(s + i, len - i, &cp);

		if (cp == TP_UTF8_BAD) {
			put(&k, TP_UTF8_REPLACEMENT, 3);
		} else if (cp == '"' || cp == '\\') {
			esc[0] = '\\';
			esc[1] = (char)cp;
			put(&k, esc, 2);
		} else if (cp >= 0x08 && cp <= 0x0d && short_escape[cp - 0x08]) {
			esc[0] = '\\';
			esc[1] = short_escape[cp - 0x08];
			put(&k, esc, 2);
		} else if (tp_is_control(cp)) {
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)cp);
			put(&k, esc, 6);
		} else {
			put(&k, s + i, n);
		}
		i += n;
	}
	put(&k, "\"", 1);
	return finish(&k);
}

char *tp_text_json_dup(const char *s, size_t len, size_t *out_len)
{
	size_t n = tp_text_json(NULL, 0, s, len);
	char *out = malloc(n + 1);

	if (out)
		tp_text_json(out, n + 1, s, len);
	if (out && out_len)
		*out_len = n;
	return out;
}
