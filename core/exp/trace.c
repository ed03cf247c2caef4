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

#include "exp/exp.h"

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

/* A JSON string (the names we write are plain, but a source description may not be). */
static void json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
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

static int write_check(struct tp_trace_writer *w, struct tp_error *err)
{
	/* checked after every write: errno is that of the write that failed */
	if (ferror(w->fp))
		return tp_error_set(err, -EIO, "write error on the trace: %s",
				    strerror(errno ? errno : EIO));
	return 0;
}

int tp_trace_writer_open(FILE *fp, enum tp_trace_format fmt, const struct tp_trace_meta *meta,
			 struct tp_trace_writer **out, struct tp_error *err)
{
	struct tp_trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return tp_error_set(err, -ENOMEM, "out of memory for a trace writer");
	w->fp = fp;
	w->fmt = fmt;
	w->first_event = true;
	switch (fmt) {
	case TP_TRACE_CSV:
		fprintf(fp, "# thermpress trace %d\n", TP_TRACE_VERSION);
		if (meta->source[0])
			fprintf(fp, "# source %s\n", meta->source);
		if (meta->backend[0])
			fprintf(fp, "# backend %s\n", meta->backend);
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
		fprintf(fp, "{\"thermpress_trace\":%d,\"source\":", TP_TRACE_VERSION);
		json_str(fp, meta->source);
		fputs(",\"backend\":", fp);
		json_str(fp, meta->backend);
		json_i64(fp, "decay_ms", meta->decay_ms, true);
		json_i64(fp, "hz", meta->hz, true);
		json_i64(fp, "state_start_ns", meta->state_start_ns, true);
		json_i64(fp, "first_tick_ns", meta->first_tick_ns, true);
		fputs("}\n", fp);
		break;
	case TP_TRACE_PERFETTO:
		fputs("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"thermpress_trace\":", fp);
		fprintf(fp, "%d,\"source\":", TP_TRACE_VERSION);
		json_str(fp, meta->source);
		fputs(",\"backend\":", fp);
		json_str(fp, meta->backend);
		json_i64(fp, "decay_ms", meta->decay_ms, true);
		json_i64(fp, "hz", meta->hz, true);
		json_i64(fp, "state_start_ns", meta->state_start_ns, true);
		json_i64(fp, "first_tick_ns", meta->first_tick_ns, true);
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
		fprintf(fp, "%s,", r->backend[0] ? r->backend : "-");
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

int exp_parse_i64(const char *s, int64_t *out, bool dash_ok)
{
	uint64_t v = 0;
	bool neg = false;

	if (dash_ok && (!strcmp(s, "-") || !strcmp(s, "null") || !*s)) {
		*out = TP_NONE;
		return 0;
	}
	if (*s == '-') {
		neg = true;
		s++;
	}
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > INT64_MAX)
		return -ERANGE;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int push_row(struct tp_trace *t, const struct tp_trace_row *r)
{
	if (t->nr_rows == t->rows_alloc) {
		size_t n = t->rows_alloc ? t->rows_alloc * 2 : 1024;
		struct tp_trace_row *p = realloc(t->rows, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->rows = p;
		t->rows_alloc = n;
	}
	t->rows[t->nr_rows++] = *r;
	return 0;
}

int exp_trace_push(struct tp_trace *t, const struct tp_trace_row *r)
{
	return push_row(t, r);
}

static const char *const columns[] = {
	"time_ns", "cpu", "max_capacity", "max_freq_khz", "capped_freq_khz", "pressure",
	"avg_pressure", "backend", "decay_ms",
};
#define NCOLS (sizeof(columns) / sizeof(columns[0]))

/* Put field k (a column index) of a row; msg gets the problem. */
static int set_field(struct tp_trace_row *r, size_t k, const char *val, char *msg, size_t len)
{
	int64_t v;
	int rc;

	if (k == 7) {
		if (strlen(val) >= sizeof(r->backend)) {
			snprintf(msg, len, "backend name '%.40s' is too long", val);
			return -EINVAL;
		}
		snprintf(r->backend, sizeof(r->backend), "%s", strcmp(val, "-") ? val : "");
		return 0;
	}
	rc = exp_parse_i64(val, &v, k >= 2 && k != 5);
	if (rc || (v != TP_NONE && v < 0)) {
		snprintf(msg, len, "%s '%.40s' is not a %s", columns[k], val,
			 k >= 2 && k != 5 ? "number or -" : "number");
		return -EINVAL;
	}
	switch (k) {
	case 0: r->time_ns = (uint64_t)v; break;
	case 1:
		if (v >= TP_MAX_CPUS) {
			snprintf(msg, len, "cpu %" PRId64 " is out of range (0..%d)", v,
				 TP_MAX_CPUS - 1);
			return -EINVAL;
		}
		r->cpu = (int)v;
		break;
	case 2: r->max_capacity = v; break;
	case 3: r->max_freq_khz = v; break;
	case 4: r->capped_freq_khz = v; break;
	case 5:
		if (v > 1024) {
			snprintf(msg, len, "pressure %" PRId64 " is out of range (0..1024)", v);
			return -EINVAL;
		}
		r->pressure = v;
		break;
	case 6: r->avg_pressure = v; break;
	case 8: r->decay_ms = v; break;
	}
	return 0;
}

static void row_init(struct tp_trace_row *r)
{
	memset(r, 0, sizeof(*r));
	r->max_capacity = r->max_freq_khz = r->capped_freq_khz = TP_NONE;
	r->avg_pressure = r->decay_ms = TP_NONE;
	r->pressure = TP_NONE;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

static int meta_kv(struct tp_trace_meta *m, const char *key, const char *val, char *msg,
		   size_t len)
{
	int64_t v;

	if (!strcmp(key, "source")) {
		snprintf(m->source, sizeof(m->source), "%s", val);
		return 0;
	}
	if (!strcmp(key, "backend")) {
		if (strlen(val) >= sizeof(m->backend)) {
			snprintf(msg, len, "backend name '%.40s' is too long", val);
			return -EINVAL;
		}
		snprintf(m->backend, sizeof(m->backend), "%s", val);
		return 0;
	}
	if (strcmp(key, "decay_ms") && strcmp(key, "hz") && strcmp(key, "state_start_ns") &&
	    strcmp(key, "first_tick_ns") && strcmp(key, "thermpress trace") &&
	    strcmp(key, "thermpress_trace"))
		return 0;	/* unknown keys are ignored */
	if (exp_parse_i64(val, &v, true) || (v < 0 && v != TP_NONE)) {
		snprintf(msg, len, "%s '%.40s' is not a number", key, val);
		return -EINVAL;
	}
	if (!strcmp(key, "decay_ms"))
		m->decay_ms = v;
	else if (!strcmp(key, "hz")) {
		if (v != TP_NONE && (v < 1 || v > 100000)) {
			snprintf(msg, len, "hz %" PRId64 " is out of range (1..100000)", v);
			return -EINVAL;
		}
		m->hz = (int)v;
	} else if (!strcmp(key, "state_start_ns"))
		m->state_start_ns = v;
	else if (!strcmp(key, "first_tick_ns"))
		m->first_tick_ns = v;
	else if (v != TP_TRACE_VERSION) {
		snprintf(msg, len, "trace version %" PRId64 " is not supported (%d)", v,
			 TP_TRACE_VERSION);
		return -EINVAL;
	}
	return 0;
}

/* CSV: '#' metadata lines ("# key value"), the header, rows. */
static int csv_line(struct tp_trace *t, char *line, bool *header_seen, size_t *map,
		    size_t *nmap, char *msg, size_t len)
{
	char *fields[32];
	size_t nf = 0;
	char *p = line;

	if (line[0] == '#') {
		char *kv = trim(line + 1), *sp;

		if (*header_seen)
			return 0;	/* a comment among rows */
		if (!strncmp(kv, "thermpress trace ", 17))
			return meta_kv(&t->meta, "thermpress trace", kv + 17, msg, len);
		sp = strchr(kv, ' ');
		if (!sp)
			return 0;
		*sp = '\0';
		return meta_kv(&t->meta, kv, trim(sp + 1), msg, len);
	}
	for (;;) {
		char *c = strchr(p, ',');

		if (nf == 32) {
			snprintf(msg, len, "too many columns");
			return -EINVAL;
		}
		fields[nf++] = trim(p);
		if (!c)
			break;
		*c = '\0';
		p = c + 1;
	}
	if (!*header_seen) {
		bool have[NCOLS] = { false };

		for (size_t i = 0; i < nf; i++) {
			map[i] = NCOLS;
			for (size_t k = 0; k < NCOLS; k++)
				if (!strcmp(fields[i], columns[k])) {
					map[i] = k;
					have[k] = true;
				}
		}
		*nmap = nf;
		if (!have[0] || !have[1] || !have[5]) {
			snprintf(msg, len, "expected a header line with at least time_ns, cpu and "
				 "pressure (%s)", TP_TRACE_CSV_HEADER);
			return -EINVAL;
		}
		*header_seen = true;
		return 0;
	}
	if (nf != *nmap) {
		snprintf(msg, len, "%zu fields where the header has %zu", nf, *nmap);
		return -EINVAL;
	}
	struct tp_trace_row r;
	row_init(&r);
	for (size_t i = 0; i < nf; i++) {
		if (map[i] == NCOLS)
			continue;
		int rc = set_field(&r, map[i], fields[i], msg, len);
		if (rc)
			return rc;
	}
	if (push_row(t, &r)) {
		snprintf(msg, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/*
 * JSON lines: flat objects of our own making.  Values are numbers, null or strings
 * without escapes other than \" and \\.
 */
static int jsonl_line(struct tp_trace *t, char *line, bool *first, char *msg, size_t len)
{
	char *p = trim(line);
	struct tp_trace_row r;
	bool is_meta = false, any = false;

	if (*p != '{' || p[strlen(p) - 1] != '}') {
		snprintf(msg, len, "expected one JSON object on the line");
		return -EINVAL;
	}
	p[strlen(p) - 1] = '\0';
	p++;
	row_init(&r);
	if (strstr(p, "\"thermpress_trace\"")) {
		if (!*first) {
			snprintf(msg, len, "the metadata object must be the first line");
			return -EINVAL;
		}
		is_meta = true;
	}
	*first = false;
	while (*(p = trim(p))) {
		char key[64], val[256];
		size_t k = 0, v = 0;

		if (*p != '"')
			goto bad;
		for (p++; *p && *p != '"'; p++)
			if (k < sizeof(key) - 1)
				key[k++] = *p;
		key[k] = '\0';
		if (*p++ != '"')
			goto bad;
		p = trim(p);
		if (*p++ != ':')
			goto bad;
		p = trim(p);
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				if (v < sizeof(val) - 1)
					val[v++] = *p;
			}
			if (*p++ != '"')
				goto bad;
		} else {
			while (*p && *p != ',' && *p != ' ')
				if (v < sizeof(val) - 1)
					val[v++] = *p++;
				else
					p++;
		}
		val[v] = '\0';
		p = trim(p);
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
		if (is_meta) {
			int rc = meta_kv(&t->meta, key, val, msg, len);
			if (rc)
				return rc;
			continue;
		}
		for (size_t c = 0; c < NCOLS; c++) {
			if (strcmp(key, columns[c]))
				continue;
			int rc = set_field(&r, c, c == 7 ? val : val, msg, len);
			if (rc)
				return rc;
			if (c == 0 || c == 1 || c == 5)
				any = true;
		}
	}
	if (is_meta)
		return 0;
	if (!any || r.pressure == TP_NONE) {
		snprintf(msg, len, "a row needs time_ns, cpu and pressure");
		return -EINVAL;
	}
	if (push_row(t, &r)) {
		snprintf(msg, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
bad:
	snprintf(msg, len, "malformed JSON object");
	return -EINVAL;
}

int tp_trace_read(FILE *fp, const char *name, struct tp_trace *out, struct tp_error *err)
{
	char *line = NULL, msg[200];
	size_t cap = 0, map[32], nmap = 0;
	unsigned lineno = 0;
	int kind = 0;	/* 0 unknown, 1 csv, 2 jsonl */
	bool header_seen = false, first = true;
	int rc = 0;
	/* per CPU: the line and time of its last row, to check order */
	unsigned *last_line = NULL;
	uint64_t *last_time = NULL;

	memset(out, 0, sizeof(*out));
	tp_trace_meta_init(&out->meta);
	last_line = calloc(TP_MAX_CPUS, sizeof(*last_line));
	last_time = calloc(TP_MAX_CPUS, sizeof(*last_time));
	if (!last_line || !last_time) {
		free(last_line);
		free(last_time);
		return tp_error_set(err, -ENOMEM, "out of memory reading %s", name);
	}
	for (;;) {
		ssize_t n = getline(&line, &cap, fp);
		char *p;
		size_t before = out->nr_rows;

		if (n < 0)
			break;
		lineno++;
		p = trim(line);
		if (!*p)
			continue;
		if (!kind)
			kind = *p == '{' ? 2 : 1;
		msg[0] = '\0';
		rc = kind == 1 ? csv_line(out, p, &header_seen, map, &nmap, msg, sizeof(msg))
			       : jsonl_line(out, p, &first, msg, sizeof(msg));
		if (rc) {
			rc = tp_error_set(err, rc, "%s:%u: %s", name, lineno, msg);
			goto done;
		}
		if (out->nr_rows > before) {
			struct tp_trace_row *r = &out->rows[out->nr_rows - 1];
			unsigned prev = last_line[r->cpu];

			if (prev && last_time[r->cpu] > r->time_ns) {
				rc = tp_error_set(err, -EINVAL,
					"%s:%u: time %" PRIu64 " of cpu %d is before %" PRIu64
					" on line %u: the rows of a cpu must not go back in time",
					name, lineno, r->time_ns, r->cpu, last_time[r->cpu], prev);
				goto done;
			}
			last_time[r->cpu] = r->time_ns;
			last_line[r->cpu] = lineno;
		}
	}
	if (ferror(fp)) {
		rc = tp_error_set(err, -EIO, "%s: read error", name);
		goto done;
	}
	if (kind == 1 && !header_seen && lineno) {
		rc = tp_error_set(err, -EINVAL, "%s: no header line (%s)", name,
				  TP_TRACE_CSV_HEADER);
		goto done;
	}
done:
	free(line);
	free(last_line);
	free(last_time);
	return rc;
}

void tp_trace_free(struct tp_trace *trace)
{
	free(trace->rows);
	trace->rows = NULL;
	trace->nr_rows = trace->rows_alloc = 0;
}
