// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the trace reader (CSV and JSON lines, core/exp/trace.c).
 * Beyond the sanitizers: every accepted row and metadata value is in its documented
 * range (docs/experiments.md, "Columns"), the rows of a CPU never go back in time, and
 * writing an accepted trace back (CSV and JSON lines) then reading it gives the same
 * values.  Every string of an accepted trace is well-formed UTF-8, in both formats (JSON
 * carries nothing else, and CSV metadata is held to the same), so read, write, read
 * gives the same rows and metadata for every pair of formats: the input's (CSV or JSON
 * lines) written as CSV and as JSON lines, and each of those read and written again as
 * CSV and as JSON lines.
 * Format detection (tp_trace_detect) reads only the bytes it is given, calls JSON
 * lines only what starts with '{', and recognises every trace written back.
 * The source (trace version 2: {kind, description}; version 1: a description): the
 * version read is one the reader knows, the kind is a known kind or unknown, and it
 * survives every round trip; writing the trace read back gives the same bytes again;
 * the Perfetto metadata json-c reads back holds the same source object.
 * json-c is the reference of the JSON-lines reader and writer (issue 27: the hand-written
 * reader is kept because it reads about 2.7 times as fast as json-c's tokener alone,
 * tests/bench/bench_trace.c): every line of an accepted JSON-lines trace and every line
 * the writer writes is one object json-c (strict, UTF-8 validated) reads whole, and the
 * values json-c reads are the rows and metadata the reader gave, or that were written; a
 * line the reader refuses as not JSON (a string not closed, an invalid escape, a
 * malformed object) json-c refuses too.
 * Limits: after an accepted trace, a line past 65536 bytes or a line with a NUL byte is
 * refused at its line number; an allocation failure (readin_fail_alloc) is an error,
 * never fewer rows.
 */
#include <json-c/json.h>
#include <errno.h>
#include <stdint.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/experiment.h>

#include "readin.h"
#include <thermpress/text.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_trace: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	abort(); } } while (0)

static bool in_range(int64_t v, int64_t lo, int64_t hi, bool missing_ok)
{
	return (missing_ok && v == TP_NONE) || (v >= lo && v <= hi);
}

static void check_ranges(const struct tp_trace *t)
{
	const struct tp_trace_meta *m = &t->meta;
	uint64_t *last = calloc(TP_MAX_CPUS, sizeof(*last));

	CHECK(last);
	CHECK(m->version >= TP_TRACE_VERSION_MIN && m->version <= TP_TRACE_VERSION);
	/* a known kind, named and parsed back to itself, or unknown */
	if (m->source_kind != TP_SOURCE_AUTO) {
		enum tp_source_kind k;

		CHECK(tp_source_kind_name(m->source_kind));
		CHECK(!tp_source_kind_parse(tp_source_kind_name(m->source_kind), &k));
		CHECK(k == m->source_kind);
	}
	CHECK(m->hz == TP_NONE || (m->hz >= 1 && m->hz <= 100000));
	CHECK(in_range(m->decay_ms, 0, 4294967295ll, true));
	CHECK(in_range(m->state_start_ns, 0, INT64_MAX, true));
	CHECK(in_range(m->first_tick_ns, 0, INT64_MAX, true));
	CHECK(strlen(m->source) < sizeof(m->source) && strlen(m->backend) < sizeof(m->backend));
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct tp_trace_row *r = &t->rows[i];

		CHECK(r->time_ns <= (uint64_t)INT64_MAX);
		CHECK(r->cpu >= 0 && r->cpu < TP_MAX_CPUS);
		CHECK(in_range(r->max_capacity, 1, 1024, true));
		CHECK(in_range(r->max_freq_khz, 1, 4294967295ll, true));
		CHECK(in_range(r->capped_freq_khz, 0, 4294967295ll, true));
		CHECK(in_range(r->pressure, 0, 1024, false));
		CHECK(in_range(r->avg_pressure, 0, 1024, true));
		CHECK(in_range(r->decay_ms, 0, 4294967295ll, true));
		CHECK(strlen(r->backend) < sizeof(r->backend));
		CHECK(r->time_ns >= last[r->cpu]);
		last[r->cpu] = r->time_ns;
	}
	free(last);
}

/* The same metadata (the version aside) and rows. */
static void check_same_values(const struct tp_trace *a, const struct tp_trace *b)
{
	CHECK(a->meta.source_kind == b->meta.source_kind);
	CHECK(!strcmp(a->meta.source, b->meta.source));
	CHECK(!strcmp(a->meta.backend, b->meta.backend));
	CHECK(a->meta.decay_ms == b->meta.decay_ms);
	CHECK(a->meta.hz == b->meta.hz);
	CHECK(a->meta.state_start_ns == b->meta.state_start_ns);
	CHECK(a->meta.first_tick_ns == b->meta.first_tick_ns);
	CHECK(a->nr_rows == b->nr_rows);
	for (size_t i = 0; i < a->nr_rows; i++) {
		const struct tp_trace_row *x = &a->rows[i], *y = &b->rows[i];

		CHECK(x->time_ns == y->time_ns && x->cpu == y->cpu);
		CHECK(x->max_capacity == y->max_capacity && x->max_freq_khz == y->max_freq_khz);
		CHECK(x->capped_freq_khz == y->capped_freq_khz && x->pressure == y->pressure);
		CHECK(x->avg_pressure == y->avg_pressure && x->decay_ms == y->decay_ms);
		CHECK(!strcmp(x->backend, y->backend));
	}
}

static void check_same(const struct tp_trace *a, const struct tp_trace *b)
{
	/* the writer always writes the current version */
	CHECK(b->meta.version == TP_TRACE_VERSION);
	check_same_values(a, b);
}

/* ---- json-c, the reference of JSON lines ---------------------------------------------- */

static const char *const row_columns[] = { "time_ns", "cpu", "max_capacity", "max_freq_khz",
	"capped_freq_khz", "pressure", "avg_pressure", "backend", "decay_ms" };

/* A line parsed by json-c as one whole object (blanks after it aside), or NULL. */
static struct json_object *jsonc_line(const char *line, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	size_t end;

	CHECK(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, line, (int)len);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	while (end < len && strchr(" \t\r\n", line[end]) && line[end])
		end++;
	if (o && (!json_object_is_type(o, json_type_object) || end != len)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

/* An integer member's value as the reader keeps it: null is TP_NONE. */
static int64_t jsonc_int(struct json_object *v)
{
	if (!v)
		return TP_NONE;
	CHECK(json_object_is_type(v, json_type_int));
	return json_object_get_int64(v);
}

static void jsonc_copy(char *dst, size_t size, struct json_object *v)
{
	CHECK(!v || json_object_is_type(v, json_type_string));
	CHECK(!v || (size_t)json_object_get_string_len(v) < size);
	snprintf(dst, size, "%s", v ? json_object_get_string(v) : "");
}

static void jsonc_row(struct json_object *o, struct tp_trace_row *r)
{
	int64_t v[9];
	struct json_object *m;

	for (size_t k = 0; k < 9; k++) {
		bool have = json_object_object_get_ex(o, row_columns[k], &m);

		if (k == 7)
			jsonc_copy(r->backend, sizeof(r->backend), have ? m : NULL);
		else
			v[k] = have ? jsonc_int(m) : TP_NONE;
	}
	r->time_ns = (uint64_t)v[0];
	r->cpu = (int)v[1];
	r->max_capacity = v[2];
	r->max_freq_khz = v[3];
	r->capped_freq_khz = v[4];
	r->pressure = v[5];
	r->avg_pressure = v[6];
	r->decay_ms = v[8];
}

/* The source: an object {kind, description} (version 2), a description or null (1). */
static void jsonc_source(struct json_object *v, struct tp_trace_meta *m)
{
	struct json_object *kind = NULL, *desc = NULL;

	m->source_kind = TP_SOURCE_AUTO;
	if (!v || json_object_is_type(v, json_type_string)) {
		jsonc_copy(m->source, sizeof(m->source), v);
		return;
	}
	CHECK(json_object_is_type(v, json_type_object));
	json_object_object_get_ex(v, "kind", &kind);
	json_object_object_get_ex(v, "description", &desc);
	if (kind)
		CHECK(!tp_source_kind_parse(json_object_get_string(kind), &m->source_kind));
	jsonc_copy(m->source, sizeof(m->source), desc);
}

static void jsonc_meta(struct json_object *o, struct tp_trace_meta *m)
{
	struct json_object *v;

	CHECK(json_object_object_get_ex(o, "thermpress_trace", &v));
	m->version = (int)jsonc_int(v);
	if (json_object_object_get_ex(o, "source", &v))
		jsonc_source(v, m);
	if (json_object_object_get_ex(o, "backend", &v))
		jsonc_copy(m->backend, sizeof(m->backend), v);
	if (json_object_object_get_ex(o, "decay_ms", &v))
		m->decay_ms = jsonc_int(v);
	if (json_object_object_get_ex(o, "hz", &v))
		m->hz = (int)jsonc_int(v);
	if (json_object_object_get_ex(o, "state_start_ns", &v))
		m->state_start_ns = jsonc_int(v);
	if (json_object_object_get_ex(o, "first_tick_ns", &v))
		m->first_tick_ns = jsonc_int(v);
}

/* Whether a line is blank to the reader (it skips it). */
static bool blank_line(const char *s, size_t n)
{
	return strspn(s, " \t\r") >= n;
}

/*
 * buf[0..len) as JSON lines, read by json-c into *t (free it): each non-blank line must
 * be one object json-c reads whole.  The first is the metadata when its first member is
 * thermpress_trace, as the reader decides.
 */
static void jsonc_read(const char *buf, size_t len, struct tp_trace *t)
{
	bool first = true;

	memset(t, 0, sizeof(*t));
	tp_trace_meta_init(&t->meta);
	for (const char *p = buf, *end = buf + len, *nl; p < end; p = nl + 1) {
		struct json_object *o;
		struct tp_trace_row r;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (blank_line(p, (size_t)(nl - p)))
			continue;
		o = jsonc_line(p, (size_t)(nl - p));
		if (!o) {
			fprintf(stderr, "fuzz_trace: json-c does not read the line %.*s\n",
				(int)(nl - p), p);
			abort();
		}
		const char *q = p + strspn(p, " \t\r") + 1;

		if (first && !strncmp(q + strspn(q, " \t\r\n"), "\"thermpress_trace\"", 18)) {
			jsonc_meta(o, &t->meta);
		} else {
			memset(&r, 0, sizeof(r));
			jsonc_row(o, &r);
			t->rows = realloc(t->rows, (t->nr_rows + 1) * sizeof(r));
			CHECK(t->rows);
			t->rows[t->nr_rows++] = r;
		}
		first = false;
		json_object_put(o);
	}
}

/*
 * JSON lines written or accepted: json-c reads the same values from the same text, and
 * the version (written: always the current one).
 */
static void check_jsonc_reads(const char *buf, size_t len, const struct tp_trace *t,
			      int version)
{
	struct tp_trace ref;

	jsonc_read(buf, len, &ref);
	CHECK(ref.meta.version == version);
	check_same_values(t, &ref);
	free(ref.rows);
}

/* Line lineno (from 1) of buf, which the reader refused as not JSON: json-c refuses it. */
static void check_jsonc_refuses(const char *buf, size_t len, unsigned lineno)
{
	const char *p = buf, *end = buf + len, *nl;
	struct json_object *o;

	for (unsigned l = 1; l < lineno && p < end; l++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	o = jsonc_line(p, (size_t)((nl ? nl : end) - p));
	if (o) {
		fprintf(stderr, "fuzz_trace: json-c reads line %u, which the reader refused as "
			"not JSON\n", lineno);
		abort();
	}
}

/*
 * The reader's refusals of a line as not JSON (its other rules are the trace's own):
 * the reason right after "fuzz:LINE: ", never a phrase anywhere in the message, which
 * quotes the line's own values (a backend named "d: malformed JSON object..." is refused
 * as no backend, and json-c rightly reads that line).
 */
static bool refused_as_not_json(const char *msg)
{
	static const char *const reasons[] = {
		"a string is not closed", "an invalid escape", "malformed JSON object",
	};
	const char *r = msg + 4;	/* after "fuzz" */

	if (*r++ != ':' || !isdigit((unsigned char)*r))
		return false;
	while (isdigit((unsigned char)*r))
		r++;
	if (strncmp(r, ": ", 2))
		return false;
	r += 2;
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (!strncmp(r, reasons[i], strlen(reasons[i])))
			return true;
	return false;
}

/* t written in fmt, into a buffer (free it); *len its length. */
static char *write_trace(const struct tp_trace *t, enum tp_trace_format fmt, size_t *len)
{
	struct tp_trace_writer *w;
	struct tp_error err = { 0 };
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);

	CHECK(fp);
	CHECK(!tp_trace_writer_open(fp, fmt, &t->meta, &w, &err));
	for (size_t i = 0; i < t->nr_rows; i++)
		CHECK(!tp_trace_write_row(w, &t->rows[i], &err));
	CHECK(!tp_trace_writer_close(w, &err));
	fclose(fp);
	return buf;
}

/* Write t in fmt, read it back, compare; write that again: the same bytes. */
static void round_trip(const struct tp_trace *t, enum tp_trace_format fmt)
{
	struct tp_error err = { 0 };
	struct tp_trace back;
	size_t len = 0, len2 = 0;
	char *buf = write_trace(t, fmt, &len), *again;
	FILE *fp;

	{
		enum tp_trace_format detected;

		CHECK(tp_trace_detect(buf, len, &detected) == 1 && detected == fmt);
	}
	if (fmt == TP_TRACE_JSONL)
		check_jsonc_reads(buf, len, t, TP_TRACE_VERSION);
	fp = fmemopen(buf, len ? len : 1, "r");
	CHECK(fp);
	if (tp_trace_read(fp, "again", &back, &err)) {
		fprintf(stderr, "fuzz_trace: the %s written back does not read: %s\n%.*s\n",
			fmt == TP_TRACE_CSV ? "CSV" : "JSON lines", err.msg, (int)len, buf);
		abort();
	}
	check_same(t, &back);
	again = write_trace(&back, fmt, &len2);
	CHECK(len2 == len && !memcmp(again, buf, len));
	free(again);
	tp_trace_free(&back);
	fclose(fp);
	free(buf);
}

/* A string member of o: the string, or NULL for null; absent is a failure. */
static const char *member_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	CHECK(json_object_object_get_ex(o, key, &v));
	CHECK(!v || json_object_is_type(v, json_type_string));
	return v ? json_object_get_string(v) : NULL;
}

/* The Perfetto file's metadata, read by json-c: the version written and the source object. */
static void perfetto_meta(const struct tp_trace *t)
{
	size_t len = 0;
	char *buf = write_trace(t, TP_TRACE_PERFETTO, &len);
	struct json_object *doc = json_tokener_parse(buf), *meta, *v, *src;
	const char *kind, *desc;

	CHECK(doc);
	CHECK(json_object_object_get_ex(doc, "metadata", &meta));
	CHECK(json_object_object_get_ex(meta, "thermpress_trace", &v));
	CHECK(json_object_get_int(v) == TP_TRACE_VERSION);
	CHECK(json_object_object_get_ex(meta, "source", &src));
	CHECK(json_object_is_type(src, json_type_object));
	kind = member_str(src, "kind");
	desc = member_str(src, "description");
	if (t->meta.source_kind == TP_SOURCE_AUTO)
		CHECK(!kind);
	else
		CHECK(kind && !strcmp(kind, tp_source_kind_name(t->meta.source_kind)));
	CHECK(t->meta.source[0] ? desc && !strcmp(desc, t->meta.source) : !desc);
	json_object_put(doc);
	free(buf);
}

static bool valid_utf8(const char *s)
{
	for (size_t n = strlen(s), k; n; s += k, n -= k) {
		uint32_t cp;

		k = tp_utf8_next(s, n, &cp);
		if (cp == TP_UTF8_BAD)
			return false;
	}
	return true;
}

static bool strings_valid_utf8(const struct tp_trace *t)
{
	if (!valid_utf8(t->meta.source) || !valid_utf8(t->meta.backend))
		return false;
	for (size_t i = 0; i < t->nr_rows; i++)
		if (!valid_utf8(t->rows[i].backend))
			return false;
	return true;
}

/* t written in a, read back, written in b, read back: the same as t. */
static void chain(const struct tp_trace *t, enum tp_trace_format a, enum tp_trace_format b)
{
	struct tp_error err = { 0 };
	struct tp_trace t1, t2;
	size_t len1 = 0, len2 = 0;
	char *buf1 = write_trace(t, a, &len1), *buf2;
	FILE *fp = fmemopen(buf1, len1 ? len1 : 1, "r");

	CHECK(fp);
	CHECK(!tp_trace_read(fp, "first", &t1, &err));
	fclose(fp);
	buf2 = write_trace(&t1, b, &len2);
	fp = fmemopen(buf2, len2 ? len2 : 1, "r");
	CHECK(fp);
	if (tp_trace_read(fp, "second", &t2, &err)) {
		fprintf(stderr, "fuzz_trace: %s then %s does not read: %s\n",
			a == TP_TRACE_CSV ? "CSV" : "JSON lines",
			b == TP_TRACE_CSV ? "CSV" : "JSON lines", err.msg);
		abort();
	}
	fclose(fp);
	check_same(t, &t2);
	tp_trace_free(&t1);
	tp_trace_free(&t2);
	free(buf1);
	free(buf2);
}

/* tp_trace_read() of buf[0..len): its return value, the trace in *t (free it). */
static int read_buf(const char *buf, size_t len, struct tp_trace *t, struct tp_error *err)
{
	FILE *fp = fmemopen((void *)buf, len, "r");
	int rc;

	if (!fp)
		abort();
	rc = tp_trace_read(fp, "fuzz", t, err);
	fclose(fp);
	return rc;
}

/*
 * Limits (util/readin.h): the accepted input followed by a line past the 65536-byte limit,
 * or by a line with a NUL byte, is refused at that line and never read whole; and an
 * allocation failure while reading the accepted input is an error, never a shorter trace.
 */
static void limits(const uint8_t *data, size_t size, size_t rows)
{
	size_t extra = 65537 + 2, len = size + 1 + extra;
	char *buf = malloc(len), want[64];
	struct tp_error err = { 0 };
	struct tp_trace t;
	unsigned lines = 2;	/* the added line's number: the input's newlines + 2 */

	if (!buf)
		abort();
	memcpy(buf, data, size);
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	buf[size] = '\n';
	memset(buf + size + 1, 'x', extra - 1);
	buf[len - 1] = '\n';
	CHECK(read_buf(buf, len, &t, &err) == -EINVAL);
	tp_trace_free(&t);
	snprintf(want, sizeof(want), "fuzz:%u: a line longer than 65536 bytes", lines);
	CHECK(strstr(err.msg, want) || strstr(err.msg, "quoted field"));
	memcpy(buf + size + 1, "x\0x\n", 4);
	CHECK(read_buf(buf, size + 5, &t, &err) == -EINVAL);
	tp_trace_free(&t);
	snprintf(want, sizeof(want), "fuzz:%u: a NUL byte in the line", lines);
	CHECK(strstr(err.msg, want) || strstr(err.msg, "quoted field"));
	free(buf);
	/* the first, second ... growth of the line buffer fails: an error or the same rows */
	for (unsigned long n = 1; n <= 3; n++) {
		int rc;

		readin_fail_alloc = n;
		rc = read_buf((const char *)data, size, &t, &err);
		CHECK(rc == -ENOMEM || (rc == 0 && t.nr_rows == rows));
		readin_fail_alloc = 0;
		tp_trace_free(&t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_error err = { 0 };
	struct tp_trace t;
	FILE *fp;

	enum tp_trace_format detected = TP_TRACE_CSV;
	size_t first = 0;
	char *text;	/* data with a NUL after it, for json-c's checks */

	if (!size || size > 1 << 16)
		return 0;
	/* data is not NUL-terminated: the sanitizer sees any read past size */
	switch (tp_trace_detect((const char *)data, size, &detected)) {
	case 1:
		while (strchr(" \t\r\n", data[first]) && data[first])
			first++;
		CHECK((detected != TP_TRACE_CSV) == (data[first] == '{'));
		/* Perfetto only when a key of its writer is among the bytes given */
		CHECK(detected != TP_TRACE_PERFETTO ||
		      memmem(data, size, "\"traceEvents\"", 13) ||
		      memmem(data, size, "\"displayTimeUnit\"", 17));
		break;
	case 0:
		break;
	default:
		CHECK(!"tp_trace_detect returns 1 or 0");
	}
	fp = fmemopen((void *)data, size, "r");
	if (!fp)
		return 0;
	text = malloc(size + 1);
	CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';
	if (tp_trace_read(fp, "fuzz", &t, &err)) {
		/* a refusal always names the input */
		CHECK(!strncmp(err.msg, "fuzz", 4));
		if (detected == TP_TRACE_JSONL && refused_as_not_json(err.msg))
			check_jsonc_refuses(text, size, (unsigned)strtoul(err.msg + 5, NULL, 10));
		tp_trace_free(&t);
		fclose(fp);
		free(text);
		return 0;
	}
	fclose(fp);
	limits(data, size, t.nr_rows);
	check_ranges(&t);
	if (detected == TP_TRACE_JSONL)
		check_jsonc_reads(text, size, &t, t.meta.version);
	free(text);
	/* what a reader accepts is UTF-8, whatever the format */
	CHECK(strings_valid_utf8(&t));
	round_trip(&t, TP_TRACE_CSV);
	round_trip(&t, TP_TRACE_JSONL);
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			chain(&t, a ? TP_TRACE_JSONL : TP_TRACE_CSV, b ? TP_TRACE_JSONL : TP_TRACE_CSV);
	perfetto_meta(&t);
	tp_trace_free(&t);
	return 0;
}
