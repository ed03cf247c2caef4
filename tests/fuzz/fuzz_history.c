// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the shell's history file (core/history.c, thermpress/history.h).
 * Byte 0 picks the part:
 *   0: the rest is a file for tp_history_parse();
 *   1: the rest is lines (split at '\n') added one by one with tp_history_add().
 * Properties beyond the sanitizers:
 * - parse: 0, -EPROTO or -ENOMEM; refused, the history is empty and the message names a
 *   line within the file (or the size); accepted, at most TP_HISTORY_MAX_ENTRIES lines,
 *   each valid (checked here against a reference of the grammar, not through the
 *   library's own check), and the file is canonical: formatting what was parsed gives
 *   back the same bytes (read -> write -> read: the same lines);
 * - add: the history is the last TP_HISTORY_MAX_ENTRIES valid lines of the input, in
 *   order (a model kept here); formatted, it parses back to the same lines.
 * Sources: tests/fuzz/fuzz_history.c core/history.c core/error.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/history.h>

#include "fuzz_common.h"

/* The grammar's command line, written from thermpress/history.h. */
static bool ref_line(const char *p, size_t n)
{
	if (n == 0 || n > 4095)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] == 0x7f)
			return false;
	return true;
}

static void check_same(const struct tp_history *a, const struct tp_history *b)
{
	FUZZ_CHECK(a->n == b->n, "%zu lines, then %zu", a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		FUZZ_CHECK(!strcmp(a->v[i], b->v[i]), "line %zu differs", i);
}

/* format -> parse gives the same lines; the text is returned (malloc'ed). */
static char *round_trip(const struct tp_history *h, size_t *len)
{
	struct tp_error err = { 0 };
	struct tp_history again;
	char *text = tp_history_format(h, len);

	FUZZ_CHECK(text != NULL, "format failed");
	FUZZ_CHECK(strlen(text) == *len, "a NUL inside the text");
	FUZZ_CHECK(tp_history_parse(text, *len, "fuzz", &again, &err) == 0,
		   "what was written is refused: %s", err.msg);
	check_same(h, &again);
	tp_history_free(&again);
	return text;
}

static void fuzz_parse(const char *data, size_t size)
{
	struct tp_error err = { 0 };
	struct tp_history h;
	size_t lines = 1, len;
	int rc = tp_history_parse(data, size, "fuzz", &h, &err);
	char *text;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (rc < 0) {
		FUZZ_CHECK(rc == -EPROTO || rc == -ENOMEM, "rc %d", rc);
		FUZZ_CHECK(h.n == 0 && h.v == NULL, "a refused file left %zu lines", h.n);
		if (rc == -EPROTO && !strncmp(err.msg, "line ", 5))
			FUZZ_CHECK(strtoul(err.msg + 5, NULL, 10) >= 1 &&
				   strtoul(err.msg + 5, NULL, 10) <= lines, "%s", err.msg);
		return;
	}
	FUZZ_CHECK(h.n <= TP_HISTORY_MAX_ENTRIES, "%zu lines", h.n);
	for (size_t i = 0; i < h.n; i++)
		FUZZ_CHECK(ref_line(h.v[i], strlen(h.v[i])), "line %zu is not a command line", i);
	text = round_trip(&h, &len);
	FUZZ_CHECK(len == size && !memcmp(text, data, size), "an accepted file is not canonical");
	free(text);
	tp_history_free(&h);
}

static void fuzz_add(const char *data, size_t size)
{
	struct tp_history h = { 0 };
	const char *model[TP_HISTORY_MAX_ENTRIES];	/* into data: the last valid lines */
	size_t mlen[TP_HISTORY_MAX_ENTRIES], m = 0, len;
	char *text;

	for (size_t pos = 0; pos <= size;) {
		const char *p = data + pos, *nl = memchr(p, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - p) : size - pos;
		char *line = strndup(p, n);

		FUZZ_CHECK(line != NULL, "out of memory");
		FUZZ_CHECK(tp_history_add(&h, line) == 0, "add failed");
		n = strlen(line);	/* a NUL ends what is added */
		if (ref_line(p, n)) {
			if (m == TP_HISTORY_MAX_ENTRIES) {
				memmove(model, model + 1, (m - 1) * sizeof(*model));
				memmove(mlen, mlen + 1, (m - 1) * sizeof(*mlen));
				m--;
			}
			model[m] = p;
			mlen[m++] = n;
		}
		free(line);
		pos += (nl ? (size_t)(nl - p) : size - pos) + 1;
	}
	FUZZ_CHECK(h.n == m, "%zu lines kept, the model %zu", h.n, m);
	for (size_t i = 0; i < m; i++)
		FUZZ_CHECK(strlen(h.v[i]) == mlen[i] && !memcmp(h.v[i], model[i], mlen[i]),
			   "line %zu differs from the model", i);
	text = round_trip(&h, &len);
	free(text);
	tp_history_free(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy;

	if (size < 1)
		return 0;
	/* a buffer of the input's exact size: ASan sees a read past its end */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		abort();
	memcpy(copy, data + 1, size - 1);
	if (data[0] & 1)
		fuzz_add(copy, size - 1);
	else
		fuzz_parse(copy, size - 1);
	free(copy);
	return 0;
}
