// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the state file parser (core/state.c, tp_state_parse).
 * Properties beyond the sanitizers:
 * - a file is refused as a whole (-EPROTO) or parsed with every entry in its
 *   documented range (checked here against the numbers of core/state.h, not through
 *   the parser's own validity check) and no two entries for the same limit;
 * - formatting what was parsed and parsing that again gives the same root and the
 *   same entries, with nothing skipped (the serialise -> parse round trip);
 * - every skipped line number is within the file.
 * Sources: tests/fuzz/fuzz_state.c core/state.c core/rootfs.c core/error.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

static void check_entry(const struct tp_state_entry *e)
{
	int64_t lo = e->kind == TP_STATE_SCALING || e->kind == TP_STATE_DECAY ? 1 : 0;

	switch (e->kind) {
	case TP_STATE_SCALING:
	case TP_STATE_COOLING:
	case TP_STATE_CAP:
		if (e->id < 0 || e->id > 1000000)
			abort();
		/* fall through */
	case TP_STATE_DECAY:
		if (e->original < lo || e->applied < lo || e->original > INT64_C(1000000000000) ||
		    e->applied > INT64_C(1000000000000))
			abort();
		break;
	case TP_STATE_BACKEND:
		if (!e->applied_name[0] || strlen(e->applied_name) >= TP_NAME_MAX)
			abort();
		break;
	case TP_STATE_HOLD:	/* the ledger: a holder's value and the one from before */
		if (e->id < 0 || e->id > 1000000 || e->pid < 1 || e->pid > 4194304 || e->start < 0 ||
		    (e->held != TP_STATE_CAP && e->held != TP_STATE_SCALING &&
		     e->held != TP_STATE_COOLING) ||
		    e->applied < (e->held == TP_STATE_SCALING) || e->before < (e->held == TP_STATE_SCALING) ||
		    e->applied > INT64_C(1000000000000) || e->before > INT64_C(1000000000000))
			abort();
		break;
	default:
		abort();
	}
	if (e->kind == TP_STATE_BACKEND || e->kind == TP_STATE_DECAY) {
		size_t n = strlen(e->name);

		if (n == 0 || n >= TP_NAME_MAX || strspn(e->name, "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
			abort();
	}
}

static bool same_limit(const struct tp_state_entry *a, const struct tp_state_entry *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == TP_STATE_BACKEND)
		return true;
	if (a->kind == TP_STATE_DECAY)
		return !strcmp(a->name, b->name);
	if (a->kind == TP_STATE_HOLD)	/* one line per limit and holder */
		return a->held == b->held && a->id == b->id && a->pid == b->pid && a->start == b->start;
	return a->id == b->id;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_state_doc doc, again;
	struct tp_error err = { 0 };
	size_t len, lines = 1;
	char *text;
	int rc = tp_state_parse((const char *)data, size, "fuzz", &doc, &err);

	if (rc < 0) {
		if (rc != -EPROTO && rc != -ENOMEM)
			abort();
		return 0;
	}
	if (doc.root[0] != '/' || strchr(doc.root, '\n'))
		abort();
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	for (size_t i = 0; i < doc.nbad; i++)
		if (doc.bad_line[i] < 2 || doc.bad_line[i] > lines)
			abort();
	for (size_t i = 0; i < doc.n; i++) {
		check_entry(&doc.v[i]);
		for (size_t j = 0; j < i; j++)
			if (same_limit(&doc.v[i], &doc.v[j]))
				abort();
	}
	text = tp_state_format(&doc, false, &len);
	if (!text)
		abort();
	if (tp_state_parse(text, len, "fuzz", &again, &err) != 0)
		abort();
	if (strcmp(again.root, doc.root) || again.n != doc.n || again.nbad != 0)
		abort();
	for (size_t i = 0; i < doc.n; i++)
		if (memcmp(&again.v[i], &doc.v[i], sizeof(doc.v[i])))
			abort();
	free(text);
	tp_state_doc_free(&again);
	tp_state_doc_free(&doc);
	return 0;
}
