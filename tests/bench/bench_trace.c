/* SPDX-License-Identifier: MIT */
/*
 * JSON-lines trace throughput: the library's reader and writer against json-c (run by
 * hand; not a timed test).  Issue 27 asks whether the library can read and write its
 * JSON-lines traces with json-c as fast as with its own code; this measures it.
 *
 * A trace of N rows (8 CPUs, every column filled, as record writes them) is written
 * once in JSON lines to a temporary file, then, best of 3, in the same run:
 *   - bare lines:  getline over the file, nothing parsed (the floor: reading the bytes);
 *   - json-c:      getline + json_tokener_parse_ex per line + the nine members taken out
 *                  with json_object_object_get_ex / json_object_get_int64: the least a
 *                  json-c reader does;
 *   - library:     tp_trace_reader_open / _next over the same file (parse, range checks,
 *                  the per-CPU time order);
 *   - library CSV: the same rows written as CSV, read by the same reader;
 * and for writing, into a memory stream: the library's JSON-lines writer, and the same
 * rows built as json_object trees and serialized by json_object_to_json_string_ext.
 * It prints million rows per second and each ratio to the bare loop (reading) or to the
 * library (writing), and checks that every reader saw the same rows (a checksum).
 *
 * Usage: build/tests/bench/bench_trace [ROWS]        (default 2000000)
 */
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <thermpress/experiment.h>

#include "clock.h"

static const char *const row_keys[] = { "time_ns", "cpu", "max_capacity", "max_freq_khz",
	"capped_freq_khz", "pressure", "avg_pressure", "decay_ms" };
#define NKEYS (sizeof(row_keys) / sizeof(row_keys[0]))

static double now_s(void)
{
	return (double)mono_ns() / 1e9;
}

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_trace: %s: %s\n", what, msg);
	exit(1);
}

/* Row i of the trace: 8 CPUs at 10 ms, the pressure stepping every 100 samples. */
static void make_row(size_t i, struct tp_trace_row *r)
{
	memset(r, 0, sizeof(*r));
	r->time_ns = 10000000000ull + (i / 8) * 10000000ull;
	r->cpu = (int)(i % 8);
	r->max_capacity = 1024;
	r->max_freq_khz = 3600000;
	r->pressure = (int64_t)(((i / 800) * 37 + (size_t)r->cpu * 101) % 1025);
	r->capped_freq_khz = 3600000 - r->pressure * 3000;
	r->avg_pressure = r->pressure / 2;
	r->decay_ms = 250;
	strcpy(r->backend, "pelt");
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 1099511628211ull;
}

static uint64_t row_sum(uint64_t h, const struct tp_trace_row *r)
{
	h = mix(h, r->time_ns);
	h = mix(h, (uint64_t)r->cpu);
	h = mix(h, (uint64_t)r->pressure);
	return mix(h, (uint64_t)r->avg_pressure);
}

static void write_file(const char *path, enum tp_trace_format fmt, size_t n)
{
	struct tp_trace_meta meta;
	struct tp_trace_writer *w;
	struct tp_error err = { 0 };
	struct tp_trace_row r;
	FILE *fp = fopen(path, "w");

	if (!fp)
		die(path, "cannot create");
	tp_trace_meta_init(&meta);
	meta.hz = 250;
	strcpy(meta.backend, "pelt");
	if (tp_trace_writer_open(fp, fmt, &meta, &w, &err))
		die(path, err.msg);
	for (size_t i = 0; i < n; i++) {
		make_row(i, &r);
		if (tp_trace_write_row(w, &r, &err))
			die(path, err.msg);
	}
	if (tp_trace_writer_close(w, &err))
		die(path, err.msg);
	fclose(fp);
}

static double read_bare(const char *path, uint64_t *sum)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, bytes = 0;
	ssize_t len;
	double t = now_s();

	if (!fp)
		die(path, "cannot open");
	while ((len = getline(&line, &cap, fp)) > 0)
		bytes += (size_t)len;
	t = now_s() - t;
	*sum = bytes;
	free(line);
	fclose(fp);
	return t;
}

/* One row line through json-c: the object, its members as a reader takes them. */
static int jsonc_row(struct json_tokener *tok, const char *line, size_t len,
		     struct tp_trace_row *r)
{
	struct json_object *o, *v;
	int64_t vals[NKEYS];

	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o || !json_object_is_type(o, json_type_object))
		return -1;
	for (size_t k = 0; k < NKEYS; k++)
		vals[k] = json_object_object_get_ex(o, row_keys[k], &v) ? json_object_get_int64(v)
									: TP_NONE;
	if (json_object_object_get_ex(o, "backend", &v))
		snprintf(r->backend, sizeof(r->backend), "%s", json_object_get_string(v));
	r->time_ns = (uint64_t)vals[0];
	r->cpu = (int)vals[1];
	r->pressure = vals[5];
	r->avg_pressure = vals[6];
	json_object_put(o);
	return 0;
}

static double read_jsonc(const char *path, uint64_t *sum)
{
	FILE *fp = fopen(path, "r");
	struct json_tokener *tok = json_tokener_new();
	struct tp_trace_row r;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t h = 0;
	bool first = true;
	double t = now_s();

	if (!fp || !tok)
		die(path, "cannot open");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	while ((len = getline(&line, &cap, fp)) > 0) {
		if (first) {	/* the metadata object */
			first = false;
			continue;
		}
		if (jsonc_row(tok, line, (size_t)len, &r))
			die(path, "json-c refused a line");
		h = row_sum(h, &r);
	}
	t = now_s() - t;
	*sum = h;
	json_tokener_free(tok);
	free(line);
	fclose(fp);
	return t;
}

static double read_library(const char *path, uint64_t *sum)
{
	FILE *fp = fopen(path, "r");
	struct tp_trace_reader *rd;
	struct tp_error err = { 0 };
	struct tp_trace_row r;
	uint64_t h = 0;
	int rc;
	double t = now_s();

	if (!fp)
		die(path, "cannot open");
	if (tp_trace_reader_open(fp, path, &rd, &err))
		die(path, err.msg);
	while ((rc = tp_trace_reader_next(rd, &r, &err)) == 1)
		h = row_sum(h, &r);
	if (rc < 0)
		die(path, err.msg);
	t = now_s() - t;
	tp_trace_reader_close(rd);
	fclose(fp);
	*sum = h;
	return t;
}

/* Row r as json-c writes it: an object tree, serialized. */
static void write_jsonc_row(FILE *fp, const struct tp_trace_row *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "time_ns", json_object_new_uint64(r->time_ns));
	json_object_object_add(o, "cpu", json_object_new_int(r->cpu));
	json_object_object_add(o, "max_capacity", json_object_new_int64(r->max_capacity));
	json_object_object_add(o, "max_freq_khz", json_object_new_int64(r->max_freq_khz));
	json_object_object_add(o, "capped_freq_khz", json_object_new_int64(r->capped_freq_khz));
	json_object_object_add(o, "pressure", json_object_new_int64(r->pressure));
	json_object_object_add(o, "avg_pressure", json_object_new_int64(r->avg_pressure));
	json_object_object_add(o, "backend", json_object_new_string(r->backend));
	json_object_object_add(o, "decay_ms", json_object_new_int64(r->decay_ms));
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					     JSON_C_TO_STRING_NOSLASHESCAPE), fp);
	fputc('\n', fp);
	json_object_put(o);
}

/* n rows written as JSON lines into a memory stream, by the library or by json-c. */
static double write_rows(size_t n, bool jsonc, size_t *bytes)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, bytes);
	struct tp_trace_meta meta;
	struct tp_trace_writer *w = NULL;
	struct tp_error err = { 0 };
	struct tp_trace_row r;
	double t = now_s();

	tp_trace_meta_init(&meta);
	if (!fp || (!jsonc && tp_trace_writer_open(fp, TP_TRACE_JSONL, &meta, &w, &err)))
		die("memory stream", err.msg);
	for (size_t i = 0; i < n; i++) {
		make_row(i, &r);
		if (jsonc)
			write_jsonc_row(fp, &r);
		else if (tp_trace_write_row(w, &r, &err))
			die("memory stream", err.msg);
	}
	if (w && tp_trace_writer_close(w, &err))
		die("memory stream", err.msg);
	fclose(fp);
	t = now_s() - t;
	free(buf);
	return t;
}

static double best(double a, double b)
{
	return a < b ? a : b;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000, wb = 0, wjb = 0;
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char jsonl[512], csv[512];
	double tb = 1e9, tj = 1e9, tl = 1e9, tc = 1e9, tw = 1e9, twj = 1e9;
	uint64_t hb, hj = 0, hl = 0, hc = 0;
	int status = 0;

	snprintf(jsonl, sizeof(jsonl), "%s/bench_trace.%d.jsonl", tmp, (int)getpid());
	snprintf(csv, sizeof(csv), "%s/bench_trace.%d.csv", tmp, (int)getpid());
	write_file(jsonl, TP_TRACE_JSONL, n);
	write_file(csv, TP_TRACE_CSV, n);
	for (int rep = 0; rep < 3; rep++) {
		tb = best(tb, read_bare(jsonl, &hb));
		tj = best(tj, read_jsonc(jsonl, &hj));
		tl = best(tl, read_library(jsonl, &hl));
		tc = best(tc, read_library(csv, &hc));
		tw = best(tw, write_rows(n, false, &wb));
		twj = best(twj, write_rows(n, true, &wjb));
	}
	remove(jsonl);
	remove(csv);
	if (hj != hl || hl != hc) {
		fprintf(stderr, "bench_trace: the readers disagree on the rows\n");
		status = 1;
	}
	printf("JSON-lines trace, %zu rows (8 cpus, every column), %.1f MB; best of 3, "
	       "million rows per second\n", n, (double)wb / 1e6);
	printf("%-34s %8s %7s\n", "reading", "Mrows/s", "ratio");
	printf("%-34s %8.2f %7.2f\n", "bare lines (getline)", n / tb / 1e6, 1.0);
	printf("%-34s %8.2f %7.2f\n", "json-c tokener + members", n / tj / 1e6, tb / tj);
	printf("%-34s %8.2f %7.2f\n", "library reader, JSON lines", n / tl / 1e6, tb / tl);
	printf("%-34s %8.2f %7.2f\n", "library reader, CSV", n / tc / 1e6, tb / tc);
	printf("%-34s %8s %7s\n", "writing", "Mrows/s", "ratio");
	printf("%-34s %8.2f %7.2f\n", "library writer, JSON lines", n / tw / 1e6, 1.0);
	printf("%-34s %8.2f %7.2f\n", "json_object + to_json_string", n / twj / 1e6, tw / twj);
	printf("ratio: reading to the bare loop, writing to the library's writer; "
	       "json-c / library reader: %.2f\n", tl / tj);
	return status;
}
