// SPDX-License-Identifier: MIT
/*
 * Traces (docs/experiments.md): writing CSV, JSON lines and Chrome/Perfetto JSON,
 * reading CSV and JSON lines back.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/experiment.h>
#include <thermpress/text.h>

#include "abi_text.h"
#include "exp/exp.h"
#include "intparse.h"
#include "grow.h"
#include "readin.h"
#include "trim.h"

void tp_trace_meta_init(struct tp_trace_meta *meta)
{
	memset(meta, 0, sizeof(*meta));
	meta->version = TP_TRACE_VERSION;
	meta->decay_ms = TP_NONE;
	meta->hz = TP_NONE;
	meta->state_start_ns = TP_NONE;
	meta->first_tick_ns = TP_NONE;
}

int tp_trace_format_parse(const char *name, enum tp_trace_format *out, struct tp_error *err)
{
	if (!strcmp(name, "csv"))
		*out = TP_TRACE_CSV;
	else if (!strcmp(name, "jsonl"))
		*out = TP_TRACE_JSONL;
	else if (!strcmp(name, "perfetto"))
		*out = TP_TRACE_PERFETTO;
	else
		return tp_error_set(err, -EINVAL,
				    "unknown trace format '%.40s' (csv, jsonl or perfetto)", name);
	return 0;
}

/* ---- writing ------------------------------------------------------------------ */

struct tp_trace_writer {
	FILE *fp;
	enum tp_trace_format fmt;
	size_t rows;
	bool first_event;
};

/*
 * A JSON string: the names we write are plain, but a source description holds a root
 * path, which may be any bytes; JSON carries only UTF-8, so ill-formed bytes become
 * U+FFFD (docs/json.md, "Strings").
 */
#define TRACE_STR_MAX sizeof(((struct tp_trace_meta *)0)->source)	/* the longest string field */

static void json_str(FILE *fp, const char *s)
{
	char text[6 * TRACE_STR_MAX + 3];	/* \u00XX is the longest form of one byte */
	size_t len = tp_text_json(text, sizeof(text), s, strnlen(s, TRACE_STR_MAX));

	fwrite(text, 1, len, fp);
}

/*
 * A CSV string field (RFC 4180): quoted when it would not read back as itself: a
 * separator, quote or line break in it, blanks at either end (the reader trims them),
 * or "-" (a bare - is a missing value).  An empty string is written as - (missing).
 * Metadata values ("# source.description VALUE") follow the same rule, commas aside.
 */
static void csv_str(FILE *fp, const char *s, bool meta)
{
	size_t n = strlen(s);
	bool quote = !strcmp(s, "-") || s[0] == '"' || s[0] == ' ' || s[0] == '\t' ||
		     (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) || strpbrk(s, "\"\r\n") ||
		     (!meta && strchr(s, ','));

	if (!n && !meta) {
		fputc('-', fp);
		return;
	}
	if (!quote) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void csv_i64(FILE *fp, int64_t v, char sep)
{
	if (v == TP_NONE)
		fprintf(fp, "-%c", sep);
	else
		fprintf(fp, "%" PRId64 "%c", v, sep);
}

static void json_i64(FILE *fp, const char *key, int64_t v, bool comma)
{
	fprintf(fp, "%s\"%s\":", comma ? "," : "", key);
	if (v == TP_NONE)
		fputs("null", fp);
	else
		fprintf(fp, "%" PRId64, v);
}

/* A string, or null when s is NULL or empty. */
static void json_str_or_null(FILE *fp, const char *s)
{
	if (s && *s)
		json_str(fp, s);
	else
		fputs("null", fp);
}

/*
 * The metadata after the version: the same in JSON lines and Perfetto.  source is the
 * object every --json document has (docs/json.md), since trace version 2.
 */
static void json_meta_fields(FILE *fp, const struct tp_trace_meta *meta, const char *source)
{
	fputs(",\"source\":{\"kind\":", fp);
	json_str_or_null(fp, tp_source_kind_name(meta->source_kind));
	fputs(",\"description\":", fp);
	json_str_or_null(fp, source);
	fputs("},\"backend\":", fp);
	json_str(fp, meta->backend);
	json_i64(fp, "decay_ms", meta->decay_ms, true);
	json_i64(fp, "hz", meta->hz, true);
	json_i64(fp, "state_start_ns", meta->state_start_ns, true);
	json_i64(fp, "first_tick_ns", meta->first_tick_ns, true);
}

static int write_check(struct tp_trace_writer *w, struct tp_error *err)
{
	/* checked after every write: errno is that of the write that failed */
	if (ferror(w->fp))
		return tp_error_set(err, -EIO, "write error on the trace: %s",
				    strerror(errno ? errno : EIO));
	return 0;
}

/*
 * s as the writers write a metadata string: each ill-formed UTF-8 subpart as U+FFFD, cut
 * at a character boundary to fit size with its NUL.  The reader takes only well-formed
 * UTF-8 that fits, so what is written reads back as written, in every format.
 */
static void utf8_fit(char *dst, size_t size, const char *s)
{
	size_t n = strnlen(s, size), w = 0;

	for (size_t k; n; s += k, n -= k) {
		uint32_t cp;
		const char *from = s;
		size_t len;

		k = tp_utf8_next(s, n, &cp);
		len = k;
		if (cp == TP_UTF8_BAD) {
			from = TP_UTF8_REPLACEMENT;
			len = sizeof(TP_UTF8_REPLACEMENT) - 1;
		}
		if (w + len >= size)
			break;
		memcpy(dst + w, from, len);
		w += len;
	}
	dst[w] = '\0';
}

int tp_trace_writer_open(FILE *fp, enum tp_trace_format fmt, const struct tp_trace_meta *meta,
			 struct tp_trace_writer **out, struct tp_error *err)
{
	struct tp_trace_writer *w = calloc(1, sizeof(*w));
	char source[sizeof(meta->source)];

	if (!w)
		return tp_error_set(err, -ENOMEM, "out of memory for a trace writer");
	w->fp = fp;
	w->fmt = fmt;
	w->first_event = true;
	utf8_fit(source, sizeof(source), meta->source);
	switch (fmt) {
	case TP_TRACE_CSV:
		fprintf(fp, TP_TRACE_CSV_MAGIC " %d\n", TP_TRACE_VERSION);
		/* the source object, one line per field */
		if (tp_source_kind_name(meta->source_kind))
			fprintf(fp, "# source.kind %s\n", tp_source_kind_name(meta->source_kind));
		if (source[0]) {
			fputs("# source.description ", fp);
			csv_str(fp, source, true);
			fputc('\n', fp);
		}
		if (meta->backend[0]) {
			fputs("# backend ", fp);
			csv_str(fp, meta->backend, true);
			fputc('\n', fp);
		}
		if (meta->decay_ms != TP_NONE)
			fprintf(fp, "# decay_ms %" PRId64 "\n", meta->decay_ms);
		if (meta->hz != TP_NONE)
			fprintf(fp, "# hz %d\n", meta->hz);
		if (meta->state_start_ns != TP_NONE)
			fprintf(fp, "# state_start_ns %" PRId64 "\n", meta->state_start_ns);
		if (meta->first_tick_ns != TP_NONE)
			fprintf(fp, "# first_tick_ns %" PRId64 "\n", meta->first_tick_ns);
		fputs(TP_TRACE_CSV_HEADER "\n", fp);
		break;
	case TP_TRACE_JSONL:
		fprintf(fp, "{\"thermpress_trace\":%d", TP_TRACE_VERSION);
		json_meta_fields(fp, meta, source);
		fputs("}\n", fp);
		break;
	case TP_TRACE_PERFETTO:
		fputs("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"thermpress_trace\":", fp);
		fprintf(fp, "%d", TP_TRACE_VERSION);
		json_meta_fields(fp, meta, source);
		fputs("},\n\"traceEvents\":[\n", fp);
		fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
		      "\"args\":{\"name\":\"thermpress\"}}", fp);
		w->first_event = false;
		break;
	default:
		free(w);
		return tp_error_set(err, -EINVAL, "unknown trace format %d", (int)fmt);
	}
	*out = w;
	return write_check(w, err);
}

/* A Chrome trace counter: ts in microseconds with ns precision. */
static void perfetto_counter(struct tp_trace_writer *w, uint64_t t, int cpu, const char *sig,
			     int64_t v)
{
	if (v == TP_NONE)
		return;
	fprintf(w->fp, ",\n{\"name\":\"cpu%d %s\",\"ph\":\"C\",\"pid\":1,\"tid\":0,"
		"\"ts\":%" PRIu64 ".%03" PRIu64 ",\"args\":{\"value\":%" PRId64 "}}",
		cpu, sig, t / 1000, t % 1000, v);
}

int tp_trace_write_row(struct tp_trace_writer *w, const struct tp_trace_row *r,
		       struct tp_error *err)
{
	FILE *fp = w->fp;

	switch (w->fmt) {
	case TP_TRACE_CSV:
		fprintf(fp, "%" PRIu64 ",%d,", r->time_ns, r->cpu);
		csv_i64(fp, r->max_capacity, ',');
		csv_i64(fp, r->max_freq_khz, ',');
		csv_i64(fp, r->capped_freq_khz, ',');
		csv_i64(fp, r->pressure, ',');
		csv_i64(fp, r->avg_pressure, ',');
		csv_str(fp, r->backend, false);
		fputc(',', fp);
		csv_i64(fp, r->decay_ms, '\n');
		break;
	case TP_TRACE_JSONL:
		fprintf(fp, "{\"time_ns\":%" PRIu64 ",\"cpu\":%d", r->time_ns, r->cpu);
		json_i64(fp, "max_capacity", r->max_capacity, true);
		json_i64(fp, "max_freq_khz", r->max_freq_khz, true);
		json_i64(fp, "capped_freq_khz", r->capped_freq_khz, true);
		json_i64(fp, "pressure", r->pressure, true);
		json_i64(fp, "avg_pressure", r->avg_pressure, true);
		fputs(",\"backend\":", fp);
		json_str(fp, r->backend);
		json_i64(fp, "decay_ms", r->decay_ms, true);
		fputs("}\n", fp);
		break;
	case TP_TRACE_PERFETTO:
		perfetto_counter(w, r->time_ns, r->cpu, "pressure", r->pressure);
		perfetto_counter(w, r->time_ns, r->cpu, "avg_pressure", r->avg_pressure);
		perfetto_counter(w, r->time_ns, r->cpu, "capped_freq_khz", r->capped_freq_khz);
		if (r->max_capacity != TP_NONE && r->avg_pressure != TP_NONE)
			perfetto_counter(w, r->time_ns, r->cpu, "capacity",
					 r->max_capacity - r->avg_pressure);
		break;
	}
	w->rows++;
	return write_check(w, err);
}

int tp_trace_write_snapshot(struct tp_trace_writer *w, const struct tp_snapshot *snap,
			    struct tp_error *err)
{
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		const struct tp_cpu *c = &snap->cpus[i];
		struct tp_trace_row r = {
			.time_ns = snap->time_ns,
			.cpu = c->cpu,
			.max_capacity = c->max_capacity,
			.max_freq_khz = c->max_freq_khz,
			.capped_freq_khz = c->capped_freq_khz,
			.pressure = c->pressure,
			.avg_pressure = c->avg_pressure,
			.decay_ms = snap->decay_ms,
		};
		int rc;

		if (c->pressure == TP_NONE)
			continue;	/* nothing to replay for a CPU without a frequency */
		snprintf(r.backend, sizeof(r.backend), "%s", snap->backend);
		rc = tp_trace_write_row(w, &r, err);
		if (rc)
			return rc;
	}
	return 0;
}

size_t tp_trace_writer_rows(const struct tp_trace_writer *w)
{
	return w->rows;
}

int tp_trace_writer_close(struct tp_trace_writer *w, struct tp_error *err)
{
	int rc;

	if (!w)
		return 0;
	if (w->fmt == TP_TRACE_PERFETTO)
		fputs("\n]}\n", w->fp);
	if (fflush(w->fp))
		rc = tp_error_set(err, -(errno ? errno : EIO), "write error on the trace: %s",
				  strerror(errno ? errno : EIO));
	else
		rc = write_check(w, err);
	free(w);
	return rc;
}

/* ---- reading ------------------------------------------------------------------ */

/*
 * The documented range of every column (docs/experiments.md, "Columns"): a value
 * outside is an error naming the line; "missing" only where a value may be missing.
 */
struct column {
	const char *name;
	int64_t min, max;
	bool missing_ok;
};

#define FREQ_MAX 4294967295ll
static const struct column columns[] = {
	{ "time_ns", 0, INT64_MAX, false },
	{ "cpu", 0, TP_MAX_CPUS - 1, false },
	{ "max_capacity", 1, TP_CAPACITY_SCALE, true },
	{ "max_freq_khz", 1, FREQ_MAX, true },
	{ "capped_freq_khz", 0, FREQ_MAX, true },
	{ "pressure", 0, TP_CAPACITY_SCALE, false },
	{ "avg_pressure", 0, TP_CAPACITY_SCALE, true },
	{ "backend", 0, 0, true },
	{ "decay_ms", 0, FREQ_MAX, true },
};
#define NCOLS (sizeof(columns) / sizeof(columns[0]))
enum { COL_TIME, COL_CPU, COL_MAXCAP, COL_MAXF, COL_CAPF, COL_P, COL_AVG, COL_BACKEND,
       COL_DECAY };

/* A decimal integer, optionally negative; -EINVAL not a number, -ERANGE too big. */
int exp_parse_i64(const char *s, int64_t *out, bool dash_ok)
{
	if (dash_ok && (!strcmp(s, "-") || !strcmp(s, "null") || !*s)) {
		*out = TP_NONE;
		return 0;
	}
	return parse_i64(s, out);
}

static int push_row(struct tp_trace *t, const struct tp_trace_row *r)
{
	struct tp_trace_row *p = array_grow(t->rows, &t->rows_alloc, t->nr_rows + 1, sizeof(*p), 1024);

	if (!p)
		return -ENOMEM;
	t->rows = p;
	t->rows[t->nr_rows++] = *r;
	return 0;
}

int exp_trace_push(struct tp_trace *t, const struct tp_trace_row *r)
{
	return push_row(t, r);
}

/* A number for column k; missing is TP_NONE.  msg gets the problem. */
static int number_field(size_t k, const char *val, bool missing, int64_t *out, char *msg,
			size_t len)
{
	const struct column *c = &columns[k];
	int64_t v;
	int rc;

	if (missing) {
		if (!c->missing_ok) {
			snprintf(msg, len, "%s is missing (%" PRId64 "..%" PRId64 ")", c->name,
				 c->min, c->max);
			return -EINVAL;
		}
		*out = TP_NONE;
		return 0;
	}
	rc = exp_parse_i64(val, &v, false);
	if (rc == -EINVAL) {
		snprintf(msg, len, "%s '%.40s' is not a %s", c->name, val,
			 c->missing_ok ? "number or -" : "number");
		return -EINVAL;
	}
	if (rc || v < c->min || v > c->max) {
		snprintf(msg, len, "%s %.40s is out of range (%" PRId64 "..%" PRId64 "%s)", c->name,
			 val, c->min, c->max, c->missing_ok ? ", or -" : "");
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/*
 * A backend name by its grammar (docs/abi.md: 1..31 of [a-z0-9_]), so that what is read
 * is written back the same in every format; else false with the message.
 */
static bool backend_ok(const char *val, char *msg, size_t len)
{
	char shown[48];

	if (!*val || tp_abi_backend_name_ok(val))	/* "": unknown, as the writers write it */
		return true;
	tp_text_terminal(shown, sizeof(shown), val, strnlen(val, 40), 0);
	snprintf(msg, len, "backend '%s' is not a backend name (1 to %d characters of a-z, 0-9, _)",
		 shown, TP_NAME_MAX - 1);
	return false;
}

/* Put field k (a column index) of a row: val, or missing. */
static int set_field(struct tp_trace_row *r, size_t k, const char *val, bool missing, char *msg,
		     size_t len)
{
	int64_t v;
	int rc;

	if (k == COL_BACKEND) {
		if (missing) {
			r->backend[0] = '\0';
			return 0;
		}
		if (!backend_ok(val, msg, len))
			return -EINVAL;
		memcpy(r->backend, val, strlen(val) + 1);
		return 0;
	}
	rc = number_field(k, val, missing, &v, msg, len);
	if (rc)
		return rc;
	switch (k) {
	case COL_TIME: r->time_ns = (uint64_t)v; break;
	case COL_CPU: r->cpu = (int)v; break;
	case COL_MAXCAP: r->max_capacity = v; break;
	case COL_MAXF: r->max_freq_khz = v; break;
	case COL_CAPF: r->capped_freq_khz = v; break;
	case COL_P: r->pressure = v; break;
	case COL_AVG: r->avg_pressure = v; break;
	case COL_DECAY: r->decay_ms = v; break;
	}
	return 0;
}

static void row_init(struct tp_trace_row *r)
{
	r->time_ns = 0;
	r->cpu = 0;
	r->max_capacity = r->max_freq_khz = r->capped_freq_khz = TP_NONE;
	r->avg_pressure = r->decay_ms = TP_NONE;
	r->pressure = TP_NONE;
	r->backend[0] = '\0';
}

/* The versions this reader knows, for messages: "1 and 2". */
static const char *known_versions(char *buf, size_t len)
{
	if (TP_TRACE_VERSION == TP_TRACE_VERSION_MIN + 1)
		snprintf(buf, len, "%d and %d", TP_TRACE_VERSION_MIN, TP_TRACE_VERSION);
	else
		snprintf(buf, len, "%d to %d", TP_TRACE_VERSION_MIN, TP_TRACE_VERSION);
	return buf;
}

/* The trace format version: one this reader knows, else a refusal naming those. */
static int meta_version(struct tp_trace_meta *m, const char *val, bool missing, char *msg,
			size_t len)
{
	char known[32];
	int64_t v;

	if (missing) {
		snprintf(msg, len, "the trace version is missing (this thermpress reads versions %s)",
			 known_versions(known, sizeof(known)));
		return -EINVAL;
	}
	if (exp_parse_i64(val, &v, false) || v < TP_TRACE_VERSION_MIN || v > TP_TRACE_VERSION) {
		snprintf(msg, len, "trace version %.40s is not supported (this thermpress reads "
			 "versions %s)", val, known_versions(known, sizeof(known)));
		return -EINVAL;
	}
	m->version = (int)v;
	return 0;
}

/*
 * A string metadata value into dst (size bytes); missing is "".  name is the key for
 * the message.
 */
static int meta_str(char *dst, size_t size, const char *name, const char *val, bool missing,
		    char *msg, size_t len)
{
	if (missing)
		val = "";
	if (strlen(val) >= size) {
		snprintf(msg, len, "%s '%.40s' is too long (at most %zu bytes)", name, val, size - 1);
		return -EINVAL;
	}
	/* the writers write UTF-8 (JSON carries nothing else, RFC 8259): so do the traces */
	for (size_t n = strlen(val), k, i = 0; i < n; i += k) {
		uint32_t cp;

		k = tp_utf8_next(val + i, n - i, &cp);
		if (cp == TP_UTF8_BAD) {
			snprintf(msg, len, "%s is not valid UTF-8 (byte %zu; a trace's strings are "
				 "UTF-8, RFC 3629)", name, i + 1);
			return -EINVAL;
		}
	}
	memcpy(dst, val, strlen(val) + 1);
	return 0;
}

/* The source's kind: a kind's name (missing: unknown). */
static int meta_source_kind(struct tp_trace_meta *m, const char *val, bool missing, char *msg,
			    size_t len)
{
	char names[64] = "";

	if (missing) {
		m->source_kind = TP_SOURCE_AUTO;
		return 0;
	}
	if (!tp_source_kind_parse(val, &m->source_kind))
		return 0;
	/* the kinds are numbered from 1 without gaps: list them all */
	for (int k = 1; tp_source_kind_name((enum tp_source_kind)k); k++) {
		size_t n = strlen(names);

		snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
			 tp_source_kind_name((enum tp_source_kind)k));
	}
	snprintf(msg, len, "source kind '%.40s' is not known (%s, or null)", val, names);
	return -EINVAL;
}

/* A metadata value: numbers in their ranges (docs/experiments.md, "Metadata"). */
static int meta_kv(struct tp_trace_meta *m, const char *key, const char *val, bool missing,
		   char *msg, size_t len)
{
	int64_t v, lo = 0, hi = INT64_MAX;

	if (!strcmp(key, "source")) {
		/* the version 1 shape: a description alone, the kind unknown */
		m->source_kind = TP_SOURCE_AUTO;
		return meta_str(m->source, sizeof(m->source), key, val, missing, msg, len);
	}
	if (!strcmp(key, "backend"))
		return !missing && !backend_ok(val, msg, len) ? -EINVAL
			: meta_str(m->backend, sizeof(m->backend), key, val, missing, msg, len);
	if (!strcmp(key, "thermpress trace") || !strcmp(key, "thermpress_trace"))
		return meta_version(m, val, missing, msg, len);
	if (!strcmp(key, "hz"))
		lo = 1, hi = 100000;
	else if (!strcmp(key, "decay_ms"))
		hi = FREQ_MAX;
	else if (strcmp(key, "state_start_ns") && strcmp(key, "first_tick_ns"))
		return 0;	/* unknown keys are ignored */
	if (missing) {
		v = TP_NONE;
	} else {
		int rc = exp_parse_i64(val, &v, false);

		if (rc == -EINVAL) {
			snprintf(msg, len, "%s '%.40s' is not a number", key, val);
			return -EINVAL;
		}
		if (rc || v < lo || v > hi) {
			snprintf(msg, len, "%s %.40s is out of range (%" PRId64 "..%" PRId64 ")", key,
				 val, lo, hi);
			return -EINVAL;
		}
	}
	if (!strcmp(key, "decay_ms"))
		m->decay_ms = v;
	else if (!strcmp(key, "hz"))
		m->hz = (int)v;
	else if (!strcmp(key, "state_start_ns"))
		m->state_start_ns = v;
	else if (!strcmp(key, "first_tick_ns"))
		m->first_tick_ns = v;
	return 0;
}

#define MAX_FIELDS 32
#define MAX_RECORD (64 * 1024)	/* a CSV record with quoted line breaks, or a JSON line */
#define MAX_LINES 4000000000ul	/* lines of a trace (line numbers are unsigned) */

struct tp_trace_reader {
	FILE *fp;
	char name[256];
	struct tp_trace_meta meta;
	char *line;		/* the current record */
	size_t cap;
	struct readin_line in;	/* the physical line (limits: MAX_RECORD, MAX_LINES) */
	unsigned lineno;	/* the current record's first line */
	int kind;		/* 0 unknown, 1 csv, 2 jsonl */
	bool header_seen, eof, pending, seen_record;
	bool quoted;		/* the current record has a quote */
	size_t map[MAX_FIELDS], nmap;
	struct tp_trace_row row;	/* pending: read while looking for the metadata */
	unsigned row_line;
	/* per CPU: the line and time of its last row, to check order */
	unsigned *last_line;
	uint64_t *last_time;
};

/* Whether the quotes of s are unbalanced (a quoted field goes on to the next line). */
static bool open_quote(const char *s)
{
	size_t n = 0;

	for (s = strchr(s, '"'); s; s = strchr(s + 1, '"'))
		n++;
	return n & 1;
}

/* A physical line into rd->in: 1, 0 at the end, <0 error (msg); the limits are readin's. */
static int next_line(struct tp_trace_reader *rd, char *msg, size_t len)
{
	int rc = readin_next(&rd->in, rd->fp);

	if (rc < 0) {
		readin_line_error(&rd->in, rc, msg, len);
		/* a read or allocation failure is a runtime error, the rest bad input */
		return readin_bad_input(rc) ? -EINVAL : rc;
	}
	return rc;
}

/* The next non-blank record into rd->line: 1, 0 at the end, <0 error (msg). */
static int next_record(struct tp_trace_reader *rd, char *msg, size_t len)
{
	for (;;) {
		int rc = next_line(rd, msg, len);
		char *p;

		rd->lineno = (unsigned)rd->in.lineno;
		if (rc <= 0)
			return rc;
		p = rd->in.buf;
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			continue;
		if (!rd->kind) {
			enum tp_trace_format f;

			/* a JSON object (a Perfetto trace too) goes to the JSON reader */
			rd->kind = tp_trace_detect(p, strlen(p), &f) == 1 && f != TP_TRACE_CSV ? 2 : 1;
		}
		/* the record: the line and, for a quoted CSV field, the lines it goes on to */
		size_t have = 0;

		for (;;) {
			char *b = array_grow(rd->line, &rd->cap, have + rd->in.len + 2, 1, 256);

			if (!b) {
				snprintf(msg, len, "out of memory");
				return -ENOMEM;
			}
			rd->line = b;
			memcpy(rd->line + have, rd->in.buf, rd->in.len);
			have += rd->in.len;
			rd->line[have++] = '\n';
			rd->line[have] = '\0';
			/* CSV: a quoted field may hold line breaks (RFC 4180) */
			rd->quoted = rd->kind == 1 && memchr(rd->line, '"', have);
			if (!rd->quoted || !open_quote(rd->line))
				return 1;
			rc = next_line(rd, msg, len);
			if (rc == 0 || (rc > 0 && have + rd->in.len >= MAX_RECORD)) {
				snprintf(msg, len, rc == 0 ? "a quoted field is not closed"
							   : "a quoted field is too long");
				return -EINVAL;
			}
			if (rc < 0)
				return rc;
		}
	}
}

/*
 * Split a CSV record in place: fields[] point into line, quoted[] says which were
 * quoted ("" inside a quoted field is one quote).  Blanks around fields are dropped.
 */
static int csv_split(char *line, char **fields, bool *quoted, size_t *nf, char *msg, size_t len)
{
	char *p = line;
	size_t n = 0;

	for (;;) {
		if (n == MAX_FIELDS) {
			snprintf(msg, len, "too many columns");
			return -EINVAL;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			char *w = ++p;

			fields[n] = w;
			quoted[n] = true;
			for (;;) {
				if (!*p) {
					snprintf(msg, len, "a quoted field is not closed");
					return -EINVAL;
				}
				if (*p == '"') {
					if (p[1] != '"')
						break;
					p++;
				}
				*w++ = *p++;
			}
			p++;
			*w = '\0';
			while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
				p++;
			n++;
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p) {
				snprintf(msg, len, "text after a quoted field");
				return -EINVAL;
			}
			break;
		}
		char *c = strchr(p, ',');

		if (c)
			*c = '\0';
		if (strchr(p, '"')) {
			snprintf(msg, len, "a quote inside an unquoted field");
			return -EINVAL;
		}
		fields[n] = trim(p);
		quoted[n++] = false;
		if (!c)
			break;
		p = c + 1;
	}
	*nf = n;
	return 0;
}

/* A CSV metadata line "# KEY VALUE" (VALUE may be quoted). */
static int csv_meta(struct tp_trace_reader *rd, char *line, char *msg, size_t len)
{
	char *kv = trim(line + 1), *sp, *val;
	bool missing = false;

	if (!strncmp(kv, "thermpress trace ", 17))
		return meta_kv(&rd->meta, "thermpress trace", trim(kv + 17), false, msg, len);
	sp = strchr(kv, ' ');
	if (!sp)
		return 0;
	*sp = '\0';
	val = trim(sp + 1);
	if (*val == '"') {
		char *fields[MAX_FIELDS];
		bool quoted[MAX_FIELDS];
		size_t nf;
		int rc;

		/* one quoted value: the same rules as a quoted field */
		rc = csv_split(val, fields, quoted, &nf, msg, len);
		if (!rc && nf != 1) {
			snprintf(msg, len, "text after a quoted value");
			rc = -EINVAL;
		}
		if (rc)
			return rc;
		val = fields[0];
	} else {
		missing = !*val;
	}
	/* the source object as a line per field (version 2) */
	if (!strcmp(kv, "source.kind"))
		return meta_source_kind(&rd->meta, val, missing, msg, len);
	if (!strcmp(kv, "source.description"))
		return meta_str(rd->meta.source, sizeof(rd->meta.source), kv, val, missing, msg, len);
	return meta_kv(&rd->meta, kv, val, missing, msg, len);
}

/*
 * The common row, fast: unquoted fields, numbers of plain digits in range, a backend
 * name without blanks.  1 when *r was filled, 0 when the general path must decide
 * (it also gives the messages).
 */
static int csv_fast(const struct tp_trace_reader *rd, const char *p, struct tp_trace_row *r)
{
	row_init(r);
	for (size_t i = 0; i < rd->nmap; i++) {
		size_t k = rd->map[i];
		const char *s = p;

		if (k == NCOLS || k == COL_BACKEND) {
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				p++;
			if (k == COL_BACKEND) {
				size_t n = (size_t)(p - s);

				if (!n || n >= sizeof(r->backend))
					return 0;
				memcpy(r->backend, s, n);
				r->backend[n] = '\0';
				/* "-", blanks, anything not a name: the full parser says what */
				if (!tp_abi_backend_name_ok(r->backend))
					return 0;
			}
		} else {
			uint64_t v = 0;

			while ((unsigned)(*p - '0') < 10) {
				if (v > (uint64_t)(INT64_MAX - 9) / 10)
					return 0;
				v = v * 10 + (uint64_t)(*p++ - '0');
			}
			if (p == s || (int64_t)v < columns[k].min || (int64_t)v > columns[k].max)
				return 0;
			switch (k) {
			case COL_TIME: r->time_ns = v; break;
			case COL_CPU: r->cpu = (int)v; break;
			case COL_MAXCAP: r->max_capacity = (int64_t)v; break;
			case COL_MAXF: r->max_freq_khz = (int64_t)v; break;
			case COL_CAPF: r->capped_freq_khz = (int64_t)v; break;
			case COL_P: r->pressure = (int64_t)v; break;
			case COL_AVG: r->avg_pressure = (int64_t)v; break;
			case COL_DECAY: r->decay_ms = (int64_t)v; break;
			}
		}
		if (i + 1 < rd->nmap) {
			if (*p != ',')
				return 0;
			p++;
		}
	}
	if (*p == '\r')
		p++;
	if (*p == '\n')
		p++;
	return !*p;
}

/* A CSV record: metadata, the header, or a row (1 when *r was filled). */
static int csv_record(struct tp_trace_reader *rd, char *line, struct tp_trace_row *r, char *msg,
		      size_t len)
{
	char *fields[MAX_FIELDS];
	bool quoted[MAX_FIELDS];
	size_t nf;
	int rc;

	if (rd->header_seen && !rd->quoted && csv_fast(rd, line, r))
		return 1;
	while (*line == ' ' || *line == '\t')
		line++;
	if (line[0] == '#')
		return rd->header_seen ? 0 : csv_meta(rd, line, msg, len);
	rc = csv_split(line, fields, quoted, &nf, msg, len);
	if (rc)
		return rc;
	if (!rd->header_seen) {
		bool have[NCOLS] = { false };

		for (size_t i = 0; i < nf; i++) {
			rd->map[i] = NCOLS;
			for (size_t k = 0; k < NCOLS; k++)
				if (!strcmp(fields[i], columns[k].name)) {
					rd->map[i] = k;
					have[k] = true;
				}
		}
		rd->nmap = nf;
		if (!have[COL_TIME] || !have[COL_CPU] || !have[COL_P]) {
			snprintf(msg, len, "expected a header line with at least time_ns, cpu and "
				 "pressure (%s)", TP_TRACE_CSV_HEADER);
			return -EINVAL;
		}
		rd->header_seen = true;
		return 0;
	}
	if (nf != rd->nmap) {
		snprintf(msg, len, "%zu fields where the header has %zu", nf, rd->nmap);
		return -EINVAL;
	}
	row_init(r);
	for (size_t i = 0; i < nf; i++) {
		if (rd->map[i] == NCOLS)
			continue;
		/* a bare - or an empty field is missing; a quoted "-" is the text - */
		bool missing = !quoted[i] && (!fields[i][0] || !strcmp(fields[i], "-"));

		rc = set_field(r, rd->map[i], fields[i], missing, msg, len);
		if (rc)
			return rc;
	}
	return 1;
}

/* Append the UTF-8 encoding of code point cp. */
static char *put_utf8(char *w, uint32_t cp)
{
	if (cp < 0x80) {
		*w++ = (char)cp;
	} else if (cp < 0x800) {
		*w++ = (char)(0xc0 | (cp >> 6));
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*w++ = (char)(0xe0 | (cp >> 12));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*w++ = (char)(0xf0 | (cp >> 18));
		*w++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	}
	return w;
}

static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/*
 * A JSON string at *pp (after its opening quote), decoded in place (a decoded string
 * is never longer than its escaped form).  *pp moves past the closing quote.
 */
static int json_string(char **pp, char **out, char *msg, size_t len)
{
	char *p = *pp, *w = p;

	*out = w;
	for (;;) {
		unsigned char c = (unsigned char)*p;

		if (!c) {
			snprintf(msg, len, "a string is not closed");
			return -EINVAL;
		}
		if (c < 0x20) {
			snprintf(msg, len, "a control character in a string (escape it)");
			return -EINVAL;
		}
		if (c == '"')
			break;
		if (c >= 0x80) {	/* RFC 8259: JSON text is UTF-8, well formed */
			uint32_t cp;
			size_t n = tp_utf8_next(p, strnlen(p, 4), &cp);

			if (cp == TP_UTF8_BAD) {
				snprintf(msg, len, "a string is not valid UTF-8 (RFC 8259)");
				return -EINVAL;
			}
			memmove(w, p, n);
			w += n;
			p += n;
			continue;
		}
		if (c != '\\') {
			*w++ = *p++;
			continue;
		}
		p++;
		switch (*p) {
		case '"': case '\\': case '/': *w++ = *p++; break;
		case 'b': *w++ = '\b'; p++; break;
		case 'f': *w++ = '\f'; p++; break;
		case 'n': *w++ = '\n'; p++; break;
		case 'r': *w++ = '\r'; p++; break;
		case 't': *w++ = '\t'; p++; break;
		case 'u': {
			uint32_t cp, lo;

			if (hex4(p + 1, &cp))
				goto bad_escape;
			p += 5;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p[0] != '\\' || p[1] != 'u' || hex4(p + 2, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff) {
					snprintf(msg, len, "a lone UTF-16 surrogate in a string");
					return -EINVAL;
				}
				p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				snprintf(msg, len, "a lone UTF-16 surrogate in a string");
				return -EINVAL;
			}
			if (!cp) {
				snprintf(msg, len, "\\u0000 in a string");
				return -EINVAL;
			}
			w = put_utf8(w, cp);
			break;
		}
		default:
		bad_escape:
			snprintf(msg, len, "an invalid escape in a string");
			return -EINVAL;
		}
	}
	*w = '\0';
	*pp = p + 1;
	return 0;
}

static char *skip_ws(char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/*
 * A member's key: `"KEY" :`, *pp moved to the value.  0 with *key NULL (*pp where it
 * went wrong) when the text is not a key: a malformed object, said by the caller;
 * -errno from the string's decoding.
 */
static int json_key(char **pp, char **key, char *msg, size_t len)
{
	char *p = *pp;
	int rc;

	*key = NULL;
	if (*p != '"')
		return 0;
	p++;
	if ((rc = json_string(&p, key, msg, len)))
		return rc;
	p = skip_ws(p);
	if (*p != ':') {
		*key = NULL;
		*pp = p;
		return 0;
	}
	*pp = skip_ws(p + 1);
	return 0;
}

/* After a member's value: 0 another member follows (*pp at its key), 1 the object ends
 * (*pp at its brace), -1 malformed. */
static int json_member_end(char **pp)
{
	char *p = skip_ws(*pp);

	*pp = p;
	if (*p == ',') {
		*pp = skip_ws(p + 1);
		return 0;
	}
	return *p == '}' ? 1 : -1;
}

/*
 * Whether the n bytes at s are a bare JSON value (RFC 8259): null, true, false or a
 * number (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?).  Only then is a line JSON
 * that json-c, the reference of the fuzz target, reads too: "01", "+1" or "1." are not.
 */
static bool json_bare_ok(const char *s, size_t n)
{
	const char *end = s + n;

	if ((n == 4 && !memcmp(s, "null", 4)) || (n == 4 && !memcmp(s, "true", 4)) ||
	    (n == 5 && !memcmp(s, "false", 5)))
		return true;
	if (s < end && *s == '-')
		s++;
	if (s == end || !isdigit((unsigned char)*s))
		return false;
	if (*s++ != '0')
		while (s < end && isdigit((unsigned char)*s))
			s++;
	if (s < end && *s == '.') {
		if (++s == end || !isdigit((unsigned char)*s))
			return false;
		while (s < end && isdigit((unsigned char)*s))
			s++;
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		if (++s < end && (*s == '+' || *s == '-'))
			s++;
		if (s == end || !isdigit((unsigned char)*s))
			return false;
		while (s < end && isdigit((unsigned char)*s))
			s++;
	}
	return s == end;
}

/*
 * A scalar JSON value at *pp: a string (decoded in place, *string set), or a bare token
 * (null, a number, true, false) cut off with a NUL whose byte goes to *save, for the
 * caller to put back once done with *val.  *pp moves past the value.
 */
static int json_scalar(char **pp, char **val, bool *string, char *save, char *msg, size_t len)
{
	char *p = *pp;
	int rc;

	if (*p == '"') {
		p++;
		if ((rc = json_string(&p, val, msg, len)))
			return rc;
		*string = true;
		*save = *p;
		*pp = p;
		return 0;
	}
	*val = p;
	*string = false;
	if (*p == '-')
		p++;
	while (isalnum((unsigned char)*p) || *p == '.' || *p == '+' || *p == '-')
		p++;
	if (p == *val) {
		snprintf(msg, len, *p == '{' || *p == '[' ?
			 "nested values are not part of a trace" : "malformed JSON object");
		return -EINVAL;
	}
	if (!json_bare_ok(*val, (size_t)(p - *val))) {
		snprintf(msg, len, "'%.*s' is not a JSON value (a string, a number, true, false "
			 "or null)", (int)(p - *val > 40 ? 40 : p - *val), *val);
		return -EINVAL;
	}
	*save = *p;
	*p = '\0';
	*pp = p;
	return 0;
}

/*
 * The metadata's source object at *pp (on its '{'): {"kind": KIND|null, "description":
 * STRING|null}, other keys ignored.  It replaces the whole source: a field it lacks is
 * unknown.  *pp moves past the closing brace.
 */
static int json_source_object(char **pp, struct tp_trace_meta *m, char *msg, size_t len)
{
	char *p = skip_ws(*pp + 1);
	int rc;

	m->source_kind = TP_SOURCE_AUTO;
	m->source[0] = '\0';
	if (*p == '}')
		goto end;
	for (;;) {
		char *key, *val, save;
		bool string, missing;

		if ((rc = json_key(&p, &key, msg, len)))
			return rc;
		if (!key)
			goto bad;
		if ((rc = json_scalar(&p, &val, &string, &save, msg, len)))
			return rc;
		missing = !string && !strcmp(val, "null");
		if (!strcmp(key, "kind") || !strcmp(key, "description")) {
			if (!string && !missing) {
				snprintf(msg, len, "source.%s must be a string or null", key);
				return -EINVAL;
			}
			rc = key[0] == 'k' ? meta_source_kind(m, val, missing, msg, len)
					   : meta_str(m->source, sizeof(m->source), "source.description",
						      val, missing, msg, len);
			if (rc)
				return rc;
		}
		*p = save;
		if ((rc = json_member_end(&p)) < 0)
			goto bad;
		if (rc)
			break;
	}
end:
	*pp = p + 1;
	return 0;
bad:
	snprintf(msg, len, *p ? "malformed JSON object" : "expected one JSON object on the line");
	return -EINVAL;
}

/* A member of the metadata object (its first line): source, backend and the rest. */
static int jsonl_meta_member(struct tp_trace_reader *rd, const char *key, char *val, bool string,
			     bool missing, char *msg, size_t len)
{
	/* JSON has one spelling of the version, thermpress_trace ("thermpress trace" is CSV's) */
	if (!strcmp(key, "thermpress trace"))
		return 0;
	if (!string && !missing && (!strcmp(key, "source") || !strcmp(key, "backend"))) {
		snprintf(msg, len, "%s must be %s", key, key[0] == 's' ?
			 "an object {kind, description} or a string" : "a string");
		return -EINVAL;
	}
	return meta_kv(&rd->meta, key, val, missing, msg, len);
}

/* A member of a row: a column by its name (have[] marks it), others ignored. */
static int jsonl_row_member(struct tp_trace_row *r, bool have[NCOLS], const char *key, char *val,
			    bool string, bool missing, char *msg, size_t len)
{
	for (size_t c = 0; c < NCOLS; c++) {
		int rc;

		if (strcmp(key, columns[c].name))
			continue;
		if (string != (c == COL_BACKEND) && !missing) {
			snprintf(msg, len, "%s must be %s", key,
				 c == COL_BACKEND ? "a string or null" : "a number");
			return -EINVAL;
		}
		rc = set_field(r, c, val, missing, msg, len);
		if (rc)
			return rc;
		have[c] = true;
	}
	return 0;
}

/*
 * A JSON line: one flat object (values are strings, integers, null, true or false; the
 * metadata's source alone is an object).  Returns 1 when *r was filled with a row, 0
 * for the metadata object.
 */
static int jsonl_record(struct tp_trace_reader *rd, char *line, bool first, struct tp_trace_row *r,
			char *msg, size_t len)
{
	char *p = skip_ws(line);
	bool is_meta = false, have[NCOLS] = { false };
	int rc;

	if (*p != '{') {
		snprintf(msg, len, "expected one JSON object on the line");
		return -EINVAL;
	}
	p = skip_ws(p + 1);
	row_init(r);
	if (!strncmp(p, "\"thermpress_trace\"", 18)) {
		if (!first) {
			snprintf(msg, len, "the metadata object must be the first line");
			return -EINVAL;
		}
		is_meta = true;
	}
	if (*p == '}')
		goto end;
	for (;;) {
		char *key, *val, save;
		bool missing, string;

		if ((rc = json_key(&p, &key, msg, len)))
			return rc;
		if (!key)
			goto bad;
		if (is_meta && *p == '{' && !strcmp(key, "source")) {
			/* version 2: the source object */
			if ((rc = json_source_object(&p, &rd->meta, msg, len)))
				return rc;
			goto next;
		}
		if ((rc = json_scalar(&p, &val, &string, &save, msg, len)))
			return rc;
		missing = !string && !strcmp(val, "null");
		/* the key is decoded in place before its value: both stay valid until here */
		rc = is_meta ? jsonl_meta_member(rd, key, val, string, missing, msg, len)
			     : jsonl_row_member(r, have, key, val, string, missing, msg, len);
		if (rc)
			return rc;
		*p = save;
next:
		if ((rc = json_member_end(&p)) < 0)
			goto bad;
		if (rc)
			break;
	}
end:
	if (*skip_ws(p + 1)) {
		snprintf(msg, len, "expected one JSON object on the line");
		return -EINVAL;
	}
	if (is_meta)
		return 0;
	if (!have[COL_TIME] || !have[COL_CPU] || !have[COL_P]) {
		snprintf(msg, len, "a row needs time_ns, cpu and pressure");
		return -EINVAL;
	}
	return 1;
bad:
	/* the line ended inside the object: not one whole object */
	snprintf(msg, len, *p ? "malformed JSON object" : "expected one JSON object on the line");
	return -EINVAL;
}

/* The next row (1), the end (0) or an error; metadata and headers are taken in passing. */
static int read_row(struct tp_trace_reader *rd, struct tp_trace_row *r, struct tp_error *err)
{
	char msg[200];

	for (;;) {
		int rc = next_record(rd, msg, sizeof(msg));

		if (rc <= 0) {
			if (!rc && rd->kind == 1 && !rd->header_seen)
				return tp_error_set(err, -EINVAL, "%s: no header line (%s)", rd->name,
						    TP_TRACE_CSV_HEADER);
			return rc ? tp_error_set(err, rc, "%s:%u: %s", rd->name, rd->lineno, msg) : 0;
		}
		msg[0] = '\0';
		rc = rd->kind == 1 ? csv_record(rd, rd->line, r, msg, sizeof(msg))
				   : jsonl_record(rd, rd->line, !rd->seen_record, r, msg,
						  sizeof(msg));
		rd->seen_record = true;
		if (rc < 0)
			return tp_error_set(err, rc, "%s:%u: %s", rd->name, rd->lineno, msg);
		if (rc == 0)
			continue;
		/* the rows of one CPU never go back in time */
		unsigned prev = rd->last_line[r->cpu];

		if (prev && rd->last_time[r->cpu] > r->time_ns)
			return tp_error_set(err, -EINVAL,
				"%s:%u: time %" PRIu64 " of cpu %d is before %" PRIu64
				" on line %u: the rows of a cpu must not go back in time",
				rd->name, rd->lineno, r->time_ns, r->cpu, rd->last_time[r->cpu], prev);
		rd->last_time[r->cpu] = r->time_ns;
		rd->last_line[r->cpu] = rd->lineno;
		return 1;
	}
}

void tp_trace_reader_close(struct tp_trace_reader *rd)
{
	if (!rd)
		return;
	free(rd->line);
	readin_free(&rd->in);
	free(rd->last_line);
	free(rd->last_time);
	free(rd);
}

int tp_trace_reader_open(FILE *fp, const char *name, struct tp_trace_reader **out,
			 struct tp_error *err)
{
	struct tp_trace_reader *rd = calloc(1, sizeof(*rd));
	int rc;

	*out = NULL;
	if (!rd)
		return tp_error_set(err, -ENOMEM, "out of memory reading %s", name);
	rd->fp = fp;
	rd->in.max = MAX_RECORD;
	rd->in.max_lines = MAX_LINES;
	snprintf(rd->name, sizeof(rd->name), "%s", name);
	tp_trace_meta_init(&rd->meta);
	rd->last_line = calloc(TP_MAX_CPUS, sizeof(*rd->last_line));
	rd->last_time = calloc(TP_MAX_CPUS, sizeof(*rd->last_time));
	if (!rd->last_line || !rd->last_time) {
		tp_trace_reader_close(rd);
		return tp_error_set(err, -ENOMEM, "out of memory reading %s", name);
	}
	/* the metadata comes before the first row: read up to it */
	rc = read_row(rd, &rd->row, err);
	if (rc < 0) {
		tp_trace_reader_close(rd);
		return rc;
	}
	rd->pending = rc == 1;
	rd->eof = rc == 0;
	*out = rd;
	return 0;
}

const struct tp_trace_meta *tp_trace_reader_meta(const struct tp_trace_reader *rd)
{
	return &rd->meta;
}

int tp_trace_reader_next(struct tp_trace_reader *rd, struct tp_trace_row *row,
			 struct tp_error *err)
{
	int rc;

	if (rd->pending) {
		*row = rd->row;
		rd->pending = false;
		return 1;
	}
	if (rd->eof)
		return 0;
	rc = read_row(rd, row, err);
	if (rc <= 0)
		rd->eof = true;
	return rc;
}

unsigned tp_trace_reader_line(const struct tp_trace_reader *rd)
{
	return rd->lineno;
}

int tp_trace_read(FILE *fp, const char *name, struct tp_trace *out, struct tp_error *err)
{
	struct tp_trace_reader *rd;
	struct tp_trace_row r;
	int rc;

	memset(out, 0, sizeof(*out));
	tp_trace_meta_init(&out->meta);
	rc = tp_trace_reader_open(fp, name, &rd, err);
	if (rc)
		return rc;
	out->meta = rd->meta;
	while ((rc = tp_trace_reader_next(rd, &r, err)) == 1)
		if (push_row(out, &r)) {
			rc = tp_error_set(err, -ENOMEM, "%s: out of memory", name);
			break;
		}
	tp_trace_reader_close(rd);
	return rc < 0 ? rc : 0;
}

void tp_trace_free(struct tp_trace *trace)
{
	free(trace->rows);
	trace->rows = NULL;
	trace->nr_rows = trace->rows_alloc = 0;
}
