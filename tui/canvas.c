/* SPDX-License-Identifier: MIT */
/* Where drawing goes: a curses window, or a text grid printed once (--once). */
#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/text.h>

#include "tui.h"

/* The columns cv_put takes for s: one per glyph, and one per U+FFFD it puts instead. */
int glyph_len(const char *s)
{
	size_t len = strlen(s);
	int n = 0;
	uint32_t cp;

	for (size_t i = 0; i < len; n++)
		i += tp_utf8_next(s + i, len - i, &cp);
	return n;
}

/* Draws s, which may be the kernel's or a file's text: through tp_text_terminal. */
void cv_put(struct canvas *cv, int y, int x, enum role r, const char *s)
{
	int room = cv->w - x;
	char buf[2048], *safe = buf;	/* cv_printf's 512 bytes, 3 times over */
	size_t len, i = 0;
	uint32_t cp;
	int n = 0;

	if (y < 0 || y >= cv->h || x < 0 || room <= 0)
		return;
	len = strlen(s);
	if (tp_text_terminal(buf, sizeof(buf), s, len, 0) >= sizeof(buf))
		safe = tp_text_terminal_dup(s, 0);
	if (!safe)
		return;
	len = strlen(safe);
	if (cv->win) {
		/* every glyph we draw is one column wide: clip by glyphs, not bytes */
		for (; i < len && n < room; n++)
			i += tp_utf8_next(safe + i, len - i, &cp);
		wattrset((WINDOW *)cv->win, term_attr(r));
		mvwaddnstr((WINDOW *)cv->win, y, x, safe, (int)i);
		wattrset((WINDOW *)cv->win, A_NORMAL);
	} else {
		for (; i < len && n < room; n++) {
			i += tp_utf8_next(safe + i, len - i, &cp);
			cv->cells[(size_t)y * cv->w + x + n] = cp;
		}
	}
	if (safe != buf)
		free(safe);
}

void cv_printf(struct canvas *cv, int y, int x, enum role r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cv_put(cv, y, x, r, buf);
}

void cv_fill(struct canvas *cv, int y, int x, int n, enum role r)
{
	static const char spaces[] = "                                                                ";

	while (n > 0) {
		int k = n < (int)sizeof(spaces) - 1 ? n : (int)sizeof(spaces) - 1;
		cv_put(cv, y, x, r, spaces + (sizeof(spaces) - 1 - k));
		x += k;
		n -= k;
	}
}

int cv_text_init(struct canvas *cv, int w, int h, const struct glyphs *g)
{
	memset(cv, 0, sizeof(*cv));
	cv->cells = malloc((size_t)w * h * sizeof(*cv->cells));
	if (!cv->cells)
		return -ENOMEM;
	for (size_t i = 0; i < (size_t)w * h; i++)
		cv->cells[i] = ' ';
	cv->w = w;
	cv->h = h;
	cv->g = g;
	return 0;
}

void cv_text_free(struct canvas *cv)
{
	free(cv->cells);
	cv->cells = NULL;
}

static void put_utf8(uint32_t cp, FILE *out)
{
	if (cp < 0x80) {
		putc((int)cp, out);
	} else if (cp < 0x800) {
		putc(0xc0 | (cp >> 6), out);
		putc(0x80 | (cp & 0x3f), out);
	} else if (cp < 0x10000) {
		putc(0xe0 | (cp >> 12), out);
		putc(0x80 | ((cp >> 6) & 0x3f), out);
		putc(0x80 | (cp & 0x3f), out);
	} else {
		putc(0xf0 | (cp >> 18), out);
		putc(0x80 | ((cp >> 12) & 0x3f), out);
		putc(0x80 | ((cp >> 6) & 0x3f), out);
		putc(0x80 | (cp & 0x3f), out);
	}
}

int cv_text_print(const struct canvas *cv, FILE *out)
{
	int last_row = cv->h - 1;

	/* no trailing blank lines */
	for (; last_row >= 0; last_row--) {
		int x;
		for (x = 0; x < cv->w && cv->cells[(size_t)last_row * cv->w + x] == ' '; x++)
			;
		if (x < cv->w)
			break;
	}
	for (int y = 0; y <= last_row; y++) {
		const uint32_t *row = cv->cells + (size_t)y * cv->w;
		int end = cv->w;

		while (end > 0 && row[end - 1] == ' ')
			end--;
		for (int x = 0; x < end; x++)
			put_utf8(row[x], out);
		putc('\n', out);
	}
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

/* A field's leading spaces are a separator: drawn plain, the rest in its role. */
static int put_field(struct canvas *cv, int y, int x, const struct field *f)
{
	int sp = 0;

	while (f->text[sp] == ' ')
		sp++;
	cv_put(cv, y, x + sp, f->r, f->text + sp);
	return x + f->len;
}

/* Skip n glyphs of s from byte i; the byte after them. */
static size_t skip_glyphs(const char *s, size_t len, size_t i, int n)
{
	uint32_t cp;

	while (n-- > 0 && i < len)
		i += tp_utf8_next(s + i, len - i, &cp);
	return i;
}

/*
 * Shorten an elidable field to at most `want` glyphs: its text up to elide_from, "...",
 * and as many of its last glyphs as fit, at least ELIDE_MIN_TAIL of them (so a field
 * can be left longer than asked; cv_fields then drops it whole if it must).
 */
#define ELIDE_MIN_TAIL 8
static void field_shorten(struct field *f, int want)
{
	size_t len = strlen(f->text), from = (size_t)f->elide_from, cut;
	int head = 0, tail_glyphs;
	char *t = f->text;

	if (f->len <= want || from >= len)
		return;
	for (size_t i = 0; i < from; head++)
		i = skip_glyphs(t, len, i, 1);
	tail_glyphs = want - head - 3;
	if (tail_glyphs < ELIDE_MIN_TAIL)
		tail_glyphs = ELIDE_MIN_TAIL;
	if (head + 3 + tail_glyphs >= f->len)
		return;
	cut = skip_glyphs(t, len, from, f->len - head - tail_glyphs);
	memcpy(t + from, "...", 3);
	memmove(t + from + 3, t + cut, len - cut + 1);
	f->len = head + 3 + tail_glyphs;
}

/*
 * A line of fields in at most maxw columns: while they do not fit, the field of the
 * lowest priority (the last of equals) is dropped, or, when elidable, shortened first.  Fields marked right are
 * drawn flush against x0 + maxw, at least two columns after the others.  Returns the
 * column after the last left field drawn.
 */
int cv_fields(struct canvas *cv, int y, int x0, int maxw, struct field *f, int n)
{
	int total = 0, right = 0, x = x0;
	bool any_right = false;

	for (int i = 0; i < n; i++) {
		f[i].len = f[i].text[0] ? glyph_len(f[i].text) : 0;
		f[i].drop = !f[i].text[0];
		if (!f[i].drop) {
			total += f[i].len;
			any_right |= f[i].right;
		}
	}
	while (total + (any_right ? 2 : 0) > maxw) {
		int lo = -1, was;

		for (int i = 0; i < n; i++)
			if (!f[i].drop && (lo < 0 || f[i].prio <= f[lo].prio))
				lo = i;
		if (lo < 0)
			break;
		was = f[lo].len;
		if (f[lo].elide_from) {	/* shortened instead, once; dropped if still too long */
			field_shorten(&f[lo], was - (total + (any_right ? 2 : 0) - maxw));
			f[lo].elide_from = 0;
			if (f[lo].len < was) {
				total -= was - f[lo].len;
				continue;
			}
		}
		f[lo].drop = true;
		total -= f[lo].len;
		any_right = false;
		for (int i = 0; i < n; i++)
			any_right |= !f[i].drop && f[i].right;
	}
	for (int i = 0; i < n; i++) {
		if (f[i].drop)
			continue;
		if (f[i].right) {
			right += f[i].len;
			continue;
		}
		x = put_field(cv, y, x, &f[i]);
	}
	if (right) {
		int rx = x0 + maxw - right;

		for (int i = 0; i < n; i++) {
			if (f[i].drop || !f[i].right)
				continue;
			rx = put_field(cv, y, rx, &f[i]);
		}
	}
	return x;
}

void field_add(struct field *f, int *n, enum role r, int prio, bool right, const char *fmt, ...)
{
	va_list ap;

	if (*n >= MAX_FIELDS)
		return;
	va_start(ap, fmt);
	vsnprintf(f[*n].text, sizeof(f[*n].text), fmt, ap);
	va_end(ap);
	f[*n].r = r;
	f[*n].prio = prio;
	f[*n].right = right;
	f[*n].elide_from = 0;
	(*n)++;
}

void field_elidable(struct field *f, int n, int from)
{
	if (n > 0 && from > 0 && (size_t)from < strlen(f[n - 1].text))
		f[n - 1].elide_from = from;
}
