// SPDX-License-Identifier: MIT
/*
 * docs/abi.md's text formats, in one place.  The parser is hand-rolled because a
 * 4096-CPU `stats` file is parsed several times a second by the live view and must
 * cost little more than reading it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_text.h"
#include "source.h"
#include "intparse.h"
#include "grow.h"

/* ---- formatting ---------------------------------------------------------- */

struct outbuf {
	char *buf;
	size_t len, cap;
	int failed;
};

static void out_reserve(struct outbuf *o, size_t more)
{
	if (o->failed)
		return;
	char *b = array_grow(o->buf, &o->cap, o->len + more + 1, 1, 4096);

	if (!b) {
		o->failed = 1;
		return;
	}
	o->buf = b;
}

static void out_str(struct outbuf *o, const char *s)
{
	size_t n = strlen(s);

	out_reserve(o, n);
	if (o->failed)
		return;
	memcpy(o->buf + o->len, s, n + 1);
	o->len += n;
}

static void out_i64(struct outbuf *o, int64_t v, char sep)
{
	char tmp[24];
	int n = 0;

	out_reserve(o, 24);
	if (o->failed)
		return;
	if (v < 0) {
		o->buf[o->len++] = '-';	/* TP_NONE: the ABI's "missing" */
	} else {
		do {
			tmp[n++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		while (n)
			o->buf[o->len++] = tmp[--n];
	}
	o->buf[o->len++] = sep;
	o->buf[o->len] = '\0';
}

static const char stats_header[] =
	"cpu online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure capacity\n";

int tp_abi_format_stats(const struct tp_snapshot *snap, char **text, size_t *len)
{
	struct outbuf o = { 0 };
	char line[128];

	out_reserve(&o, 256 + snap->nr_cpus * 64);
	snprintf(line, sizeof(line), "version %d\ntime_ns %llu\nbackend %s\n", TP_ABI_VERSION,
		 (unsigned long long)snap->time_ns, snap->backend[0] ? snap->backend : "-");
	out_str(&o, line);
	out_str(&o, "decay_ms ");
	out_i64(&o, snap->decay_ms, '\n');
	out_str(&o, "hz ");
	out_i64(&o, snap->hz, '\n');
	out_str(&o, "nr_cpus ");
	out_i64(&o, (int64_t)snap->nr_cpus, '\n');
	for (size_t d = 0; d < snap->nr_domains; d++) {
		snprintf(line, sizeof(line), "domain %d %s\n", snap->domains[d].id, snap->domains[d].name);
		out_str(&o, line);
	}
	out_str(&o, stats_header);
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		const struct tp_cpu *c = &snap->cpus[i];
		const struct tp_domain *d = tp_snapshot_domain(snap, c);
		int64_t dom = d ? d->id : TP_NONE;

		out_i64(&o, c->cpu, ' ');
		out_i64(&o, c->online, ' ');
		out_i64(&o, dom, ' ');
		out_i64(&o, c->max_capacity, ' ');
		out_i64(&o, c->max_freq_khz, ' ');
		out_i64(&o, c->capped_freq_khz, ' ');
		out_i64(&o, c->pressure, ' ');
		out_i64(&o, c->avg_pressure, ' ');
		out_i64(&o, c->capacity, '\n');
	}
	if (o.failed) {
		free(o.buf);
		return -ENOMEM;
	}
	*text = o.buf;
	*len = o.len;
	return 0;
}

size_t tp_abi_format_backends(char names[][TP_NAME_MAX], size_t count, int active, char *buf,
			      size_t len)
{
	size_t need = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < count; i++) {
		int n = snprintf(need < len ? buf + need : NULL, need < len ? len - need : 0,
				 (int)i == active ? "%s[%s]" : "%s%s", i ? " " : "", names[i]);
		need += (size_t)n;
	}
	if (need < len)
		snprintf(buf + need, len - need, "\n");
	return need + 1;
}

/* ---- parsing --------------------------------------------------------------- */

int tp_abi_parse_u64(const char *text, uint64_t *value)
{
	/* the files refuse what kstrtoull refuses, overflow included, with -EINVAL */
	return parse_u64(text, value) < 0 ? -EINVAL : 0;
}

int tp_abi_write_value(const char *buf, size_t len, char *out, size_t out_len)
{
	if (len && buf[len - 1] == '\n')
		len--;
	if (len == 0 || len >= out_len || memchr(buf, '\n', len) || memchr(buf, '\0', len))
		return -EINVAL;
	memcpy(out, buf, len);
	out[len] = '\0';
	return 0;
}

/* Kernel cpulist_parse() format, restricted to numbers and ranges. */
static int parse_kernel_cpulist(const char *text, int nr_cpus, struct tp_cpuset *cpus)
{
	const char *p = text;

	tp_cpuset_zero(cpus);
	for (;;) {
		uint64_t first, last;

		if (parse_cpu_range(p, &p, &first, &last) < 0)
			return -EINVAL;
		if (first > last || last >= (uint64_t)nr_cpus)
			return -EINVAL;
		for (uint64_t c = first; c <= last; c++)
			tp_cpuset_add(cpus, (int)c);
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

int tp_abi_parse_inject(const char *text, int nr_cpus, struct tp_cpuset *cpus, uint64_t *khz)
{
	const char *space = strchr(text, ' ');
	char list[4096];

	if (!space || (size_t)(space - text) >= sizeof(list) || strchr(space + 1, ' '))
		return -EINVAL;
	memcpy(list, text, space - text);
	list[space - text] = '\0';
	if (parse_kernel_cpulist(list, nr_cpus, cpus) < 0)
		return -EINVAL;
	if (strcmp(space + 1, "clear") == 0) {
		*khz = 0;
		return 0;
	}
	if (tp_abi_parse_u64(space + 1, khz) < 0 || *khz == 0)
		return -EINVAL;
	return 0;
}

int tp_abi_parse_backends(const char *text, size_t len, char names[][TP_NAME_MAX], size_t max,
			  size_t *count, int *active, struct tp_error *err)
{
	size_t i = 0, n = 0;

	*active = -1;
	while (len && (text[len - 1] == '\n'))
		len--;
	while (i < len) {
		size_t start = i, end;
		bool bracket = text[i] == '[';

		while (i < len && text[i] != ' ')
			i++;
		end = i;
		if (bracket) {
			if (end - start < 3 || text[end - 1] != ']')
				goto bad;
			start++;
			end--;
		}
		if (end == start || end - start >= TP_NAME_MAX || n == max)
			goto bad;
		for (size_t k = start; k < end; k++)
			if (!((text[k] >= 'a' && text[k] <= 'z') || (text[k] >= '0' && text[k] <= '9') ||
			      text[k] == '_'))
				goto bad;
		if (bracket) {
			if (*active >= 0)
				goto bad;
			*active = (int)n;
		}
		memcpy(names[n], text + start, end - start);
		names[n][end - start] = '\0';
		n++;
		if (i < len)
			i++;	/* the single space */
	}
	if (n == 0 || *active < 0)
		goto bad;
	*count = n;
	return 0;
bad:
	return tp_error_set(err, -EPROTO, "malformed backend list '%.*s'", (int)(len > 80 ? 80 : len),
			    text);
}

/* A cursor over the stats text: one field at a time, no copies. */
struct cursor {
	const char *p, *end;
	unsigned line;
};

static bool at_eol(const struct cursor *c)
{
	return c->p >= c->end || *c->p == '\n';
}

static void next_line(struct cursor *c)
{
	while (c->p < c->end && *c->p != '\n')
		c->p++;
	if (c->p < c->end)
		c->p++;
	c->line++;
}

/* One space-separated field as a number or "-" (TP_NONE); -1 when malformed. */
static int field_i64(struct cursor *c, int64_t *v)
{
	const char *p = c->p;
	int64_t n = 0;

	if (p < c->end && *p == '-') {
		p++;
		*v = TP_NONE;
	} else {
		const char *start = p;

		while (p < c->end && *p >= '0' && *p <= '9') {
			if (n > (INT64_MAX - (*p - '0')) / 10)
				return -1;
			n = n * 10 + (*p - '0');
			p++;
		}
		if (p == start)
			return -1;
		*v = n;
	}
	if (p < c->end && *p == ' ')
		p++;
	else if (p < c->end && *p != '\n')
		return -1;
	c->p = p;
	return 0;
}

/* A whole-line unsigned decimal (time_ns is a u64); -1 when malformed. */
static int field_u64(struct cursor *c, uint64_t *v)
{
	const char *p = c->p;
	uint64_t n = 0;

	if (p >= c->end || *p < '0' || *p > '9')
		return -1;
	for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	c->p = p;
	*v = n;
	return at_eol(c) ? 0 : -1;
}

/* docs/abi.md's ranges; TP_NONE ("-") is always allowed. */
static bool in_range(int64_t v, int64_t lo, int64_t hi)
{
	return v == TP_NONE || (v >= lo && v <= hi);
}

/* A name printed in tables and typed in cpu lists: no controls, no spaces. */
static bool name_ok(const char *s, size_t n, bool backend)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch <= ' ' || ch == 0x7f ||
		    (backend && !((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')))
			return false;
	}
	return n > 0;
}

bool tp_abi_backend_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n < TP_NAME_MAX && name_ok(s, n, true);
}

static bool key_is(const struct cursor *c, const char *key, const char **value)
{
	size_t n = strlen(key);

	if ((size_t)(c->end - c->p) > n && memcmp(c->p, key, n) == 0 && c->p[n] == ' ') {
		*value = c->p + n + 1;
		return true;
	}
	return false;
}

enum { COL_CPU, COL_ONLINE, COL_DOMAIN, COL_MAXCAP, COL_MAXF, COL_CAPF, COL_P, COL_AVG, COL_CAP,
       NR_COLS };
static const char *const col_names[NR_COLS] = {
	"cpu", "online", "domain", "max_capacity", "max_freq_khz", "capped_freq_khz",
	"pressure", "avg_pressure", "capacity",
};

#define MAX_STATS_COLS 64

static int find_or_add_domain(struct tp_snapshot *snap, int id, const char *name, size_t name_len)
{
	for (size_t d = 0; d < snap->nr_domains; d++) {
		if (snap->domains[d].id == id) {
			if (name) {
				snprintf(snap->domains[d].name, TP_NAME_MAX, "%.*s", (int)name_len, name);
			}
			return (int)d;
		}
	}
	if (tp_snapshot_reserve(snap, 0, snap->nr_domains + 1) < 0)
		return -1;
	struct tp_domain *dom = &snap->domains[snap->nr_domains];

	dom->id = id;
	if (name)
		snprintf(dom->name, TP_NAME_MAX, "%.*s", (int)name_len, name);
	else
		snprintf(dom->name, TP_NAME_MAX, "cluster%zu", snap->nr_domains);
	return (int)snap->nr_domains++;
}

/* A stats text being parsed: where, what the header said, and why it was refused. */
struct stats_parse {
	struct cursor c;
	int64_t version, nr_cpus;
	int colmap[MAX_STATS_COLS];
	size_t ncols;
	char what[128];
};

static int stats_bad(struct stats_parse *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int stats_bad(struct stats_parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->what, sizeof(p->what), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

static int stats_bad_line(struct stats_parse *p)
{
	return stats_bad(p, "malformed line %u", p->c.line);
}

/* The rest of a line as a name: backend (or "-") and domain lines. */
static int stats_name(struct stats_parse *p, const char *value, bool dash, size_t *n)
{
	const char *e = memchr(value, '\n', (size_t)(p->c.end - value));

	*n = (size_t)((e ? e : p->c.end) - value);
	if (*n == 0 || *n >= TP_NAME_MAX)
		return stats_bad_line(p);
	if (dash && *n == 1 && value[0] == '-')
		return 0;
	if (!e && !dash)
		return stats_bad_line(p);	/* a domain line ends with a newline */
	return name_ok(value, *n, dash) ? 0 : stats_bad_line(p);
}

/* One "key value" line before the column header; unknown keys are allowed within version 1. */
static int stats_key(struct stats_parse *p, struct tp_snapshot *snap)
{
	struct cursor *c = &p->c;
	const char *value;
	int64_t v, id;
	size_t n;

	if (key_is(c, "version", &value)) {
		c->p = value;
		if (field_i64(c, &p->version) < 0 || !at_eol(c))
			return stats_bad_line(p);
	} else if (key_is(c, "time_ns", &value)) {
		c->p = value;
		if (field_u64(c, &snap->time_ns) < 0)
			return stats_bad_line(p);
	} else if (key_is(c, "backend", &value)) {
		if (stats_name(p, value, true, &n) < 0)
			return -EPROTO;
		if (!(n == 1 && value[0] == '-')) {
			memcpy(snap->backend, value, n);
			snap->backend[n] = '\0';
		}
	} else if (key_is(c, "decay_ms", &value)) {
		c->p = value;
		if (field_i64(c, &snap->decay_ms) < 0 || !at_eol(c) ||
		    !in_range(snap->decay_ms, 0, 32768))
			return stats_bad_line(p);
	} else if (key_is(c, "hz", &value)) {
		c->p = value;
		if (field_i64(c, &v) < 0 || !at_eol(c) || !in_range(v, 1, 100000))
			return stats_bad_line(p);
		snap->hz = (int)v;
	} else if (key_is(c, "nr_cpus", &value)) {
		c->p = value;
		if (field_i64(c, &p->nr_cpus) < 0 || p->nr_cpus < 0 || p->nr_cpus > TP_MAX_CPUS ||
		    !at_eol(c))
			return stats_bad_line(p);
	} else if (key_is(c, "domain", &value)) {
		c->p = value;
		if (field_i64(c, &id) < 0 || id < 0 || id >= TP_MAX_CPUS || at_eol(c))
			return stats_bad_line(p);
		value = c->p;
		if (stats_name(p, value, false, &n) < 0)
			return -EPROTO;
		if (find_or_add_domain(snap, (int)id, value, n) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The key lines up to the column header, which must name the version read here and
 * nr_cpus. */
static int stats_keys(struct stats_parse *p, struct tp_snapshot *snap)
{
	const char *value;
	int rc;

	for (;; next_line(&p->c)) {
		if (p->c.p >= p->c.end)
			return stats_bad(p, "no column header");
		if (key_is(&p->c, "cpu", &value))
			break;
		rc = stats_key(p, snap);
		if (rc < 0)
			return rc;
	}
	if (p->version != TP_ABI_VERSION)
		return stats_bad(p, "interface version %lld is not supported (this thermpress reads version %d)",
				 (long long)p->version, TP_ABI_VERSION);
	if (p->nr_cpus == TP_NONE)
		return stats_bad(p, "no nr_cpus line");
	return 0;
}

/* The column header: each known column exactly once, in any order, among unknown ones. */
static int stats_columns(struct stats_parse *p)
{
	struct cursor *c = &p->c;
	int seen[NR_COLS] = { 0 };

	while (!at_eol(c)) {
		const char *start = c->p;

		while (c->p < c->end && *c->p != ' ' && *c->p != '\n')
			c->p++;
		if (p->ncols == MAX_STATS_COLS)
			return stats_bad(p, "too many columns");
		p->colmap[p->ncols] = -1;
		for (int k = 0; k < NR_COLS; k++) {
			if ((size_t)(c->p - start) == strlen(col_names[k]) &&
			    memcmp(start, col_names[k], (size_t)(c->p - start)) == 0) {
				p->colmap[p->ncols] = k;
				seen[k]++;
			}
		}
		p->ncols++;
		if (c->p < c->end && *c->p == ' ')
			c->p++;
	}
	for (int k = 0; k < NR_COLS; k++)
		if (seen[k] != 1)
			return stats_bad(p, "column %s %s", col_names[k], seen[k] ? "repeated" : "missing");
	next_line(c);
	return 0;
}

/* One CPU line's values by column, each in its range. */
static int stats_values(struct stats_parse *p, const struct tp_snapshot *snap, int64_t i,
			int64_t vals[NR_COLS])
{
	/* capacities 1..1024, pressures 0..1024, frequencies >= 1 kHz */
	static const int64_t lo[NR_COLS] = { [COL_MAXCAP] = 1, [COL_MAXF] = 1, [COL_CAPF] = 1,
					     [COL_CAP] = 1 };
	int64_t v;

	for (size_t k = 0; k < p->ncols; k++) {
		if (at_eol(&p->c) || field_i64(&p->c, &v) < 0)
			return stats_bad_line(p);
		if (p->colmap[k] >= 0)
			vals[p->colmap[k]] = v;
	}
	if (!at_eol(&p->c))
		return stats_bad_line(p);
	if (vals[COL_CPU] < 0 || vals[COL_CPU] >= TP_MAX_CPUS ||
	    (i > 0 && vals[COL_CPU] <= snap->cpus[i - 1].cpu) ||
	    (vals[COL_ONLINE] != 0 && vals[COL_ONLINE] != 1 && vals[COL_ONLINE] != TP_NONE))
		return stats_bad_line(p);
	for (int k = COL_MAXCAP; k <= COL_CAP; k++) {
		int64_t hi = k == COL_MAXF || k == COL_CAPF ? INT64_MAX : TP_CAPACITY_SCALE;

		if (!in_range(vals[k], lo[k], hi))
			return stats_bad(p, "line %u: %s %lld is out of %lld..%lld", p->c.line,
					 col_names[k], (long long)vals[k], (long long)lo[k], (long long)hi);
	}
	if (vals[COL_DOMAIN] >= TP_MAX_CPUS)
		return stats_bad_line(p);
	return 0;
}

/* CPU line i into snap->cpus[i]. */
static int stats_cpu(struct stats_parse *p, struct tp_snapshot *snap, int64_t i)
{
	struct tp_cpu *cpu = &snap->cpus[i];
	int64_t vals[NR_COLS];
	int rc;

	if (p->c.p >= p->c.end)
		return stats_bad(p, "%lld cpu lines, expected %lld", (long long)i,
				 (long long)p->nr_cpus);
	rc = stats_values(p, snap, i, vals);
	if (rc < 0)
		return rc;
	cpu->cpu = (int)vals[COL_CPU];
	cpu->online = (int)vals[COL_ONLINE];
	cpu->domain = TP_NONE;
	if (vals[COL_DOMAIN] >= 0) {
		/* neighbours usually share a domain: skip the search then */
		if (i > 0 && snap->cpus[i - 1].domain >= 0 &&
		    snap->domains[snap->cpus[i - 1].domain].id == vals[COL_DOMAIN])
			cpu->domain = snap->cpus[i - 1].domain;
		else
			cpu->domain = find_or_add_domain(snap, (int)vals[COL_DOMAIN], NULL, 0);
		if (cpu->domain < 0)
			return -ENOMEM;
	}
	cpu->max_capacity = vals[COL_MAXCAP];
	cpu->max_freq_khz = vals[COL_MAXF];
	cpu->min_freq_khz = TP_NONE;	/* the interface does not give it */
	cpu->capped_freq_khz = vals[COL_CAPF];
	cpu->capped_capacity = TP_NONE;
	cpu->pressure = vals[COL_P];
	cpu->avg_pressure = vals[COL_AVG];
	cpu->capacity = vals[COL_CAP];
	cpu->avg_estimated = false;
	snap->nr_cpus = (size_t)i + 1;
	return 0;
}

int tp_abi_parse_stats(const char *text, size_t len, struct tp_snapshot *snap,
		       struct tp_error *err)
{
	struct stats_parse p = { .c = { text, text + len, 1 }, .version = TP_NONE,
				 .nr_cpus = TP_NONE };
	int rc;

	snap->nr_cpus = 0;
	snap->nr_domains = 0;
	snap->backend[0] = '\0';
	snap->decay_ms = TP_NONE;
	snap->hz = TP_NONE;
	snap->time_ns = 0;
	rc = stats_keys(&p, snap);
	if (rc == 0)
		rc = stats_columns(&p);
	if (rc == 0 && tp_snapshot_reserve(snap, (size_t)p.nr_cpus, 0) < 0)
		rc = -ENOMEM;
	for (int64_t i = 0; rc == 0 && i < p.nr_cpus; i++, next_line(&p.c))
		rc = stats_cpu(&p, snap, i);
	if (rc == 0 && p.c.p < p.c.end)
		rc = stats_bad(&p, "more cpu lines than nr_cpus %lld", (long long)p.nr_cpus);
	if (rc == 0)
		return 0;
	snap->nr_cpus = 0;
	if (rc == -ENOMEM)
		return tp_error_set(err, -ENOMEM, "stats: out of memory");
	return tp_error_set(err, -EPROTO, "stats: %s", p.what);
}
