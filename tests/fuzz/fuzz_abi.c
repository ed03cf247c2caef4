// SPDX-License-Identifier: MIT
/*
 * The patched interface's text (docs/abi.md, core/abi_text.c): `stats`, the backend
 * list, `inject` lines, single written values and plain decimal values (version,
 * decay_ms, hz).
 *
 * Input: byte 0 picks the parser, the rest is its text (or, for the formatter round
 * trip, the bytes a snapshot is built from).  Properties, besides the sanitizers:
 * - a `stats` text that parses has every value in the range docs/abi.md gives (and
 *   names made of the characters the document allows), and formatting it as the
 *   simulator does then parsing that gives the same snapshot;
 * - a snapshot built from the input within those ranges survives format -> parse;
 * - a backend list that parses has one active name of [a-z0-9_], and formats back
 *   to what it parsed (format -> parse -> same names and active one);
 * - an `inject` line that parses names only CPUs below nr_cpus and agrees with a
 *   reference parser of docs/abi.md's grammar; the line the patched source writes
 *   for that set and value parses back to them;
 * - tp_abi_parse_u64 and tp_abi_write_value agree with plain references.
 */
#include <errno.h>
#include <stdbool.h>

#include <thermpress/thermpress.h>

#include "abi_text.h"
#include "source.h"
#include "fuzz_common.h"

/* ---- stats ------------------------------------------------------------------------ */

static bool in_range(int64_t v, int64_t lo, int64_t hi)
{
	return v == TP_NONE || (v >= lo && v <= hi);
}

static bool name_ok(const char *s, bool backend)
{
	if (!*s || strlen(s) >= TP_NAME_MAX)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (backend && !((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
		if (*p <= ' ' || *p == 0x7f)	/* no controls, no spaces: one token */
			return false;
	}
	return true;
}

/* Every value of an accepted snapshot in its documented range. */
static void check_ranges(const struct tp_snapshot *s)
{
	FUZZ_CHECK(s->nr_cpus <= TP_MAX_CPUS, "nr_cpus %zu", s->nr_cpus);
	FUZZ_CHECK(s->backend[0] == '\0' || name_ok(s->backend, true), "backend '%s'", s->backend);
	FUZZ_CHECK(in_range(s->decay_ms, 0, 32768), "decay_ms %lld", (long long)s->decay_ms);
	FUZZ_CHECK(in_range(s->hz, 1, 100000), "hz %d", s->hz);
	for (size_t d = 0; d < s->nr_domains; d++) {
		FUZZ_CHECK(s->domains[d].id >= 0 && s->domains[d].id < TP_MAX_CPUS, "domain id %d",
			   s->domains[d].id);
		FUZZ_CHECK(name_ok(s->domains[d].name, false), "domain name '%s'", s->domains[d].name);
		for (size_t e = 0; e < d; e++)
			FUZZ_CHECK(s->domains[e].id != s->domains[d].id, "domain %d twice", s->domains[d].id);
	}
	for (size_t i = 0; i < s->nr_cpus; i++) {
		const struct tp_cpu *c = &s->cpus[i];

		FUZZ_CHECK(c->cpu >= 0 && c->cpu < TP_MAX_CPUS && (i == 0 || c->cpu > s->cpus[i - 1].cpu),
			   "cpu %d after %d", c->cpu, i ? s->cpus[i - 1].cpu : -1);
		FUZZ_CHECK(c->online == 0 || c->online == 1 || c->online == TP_NONE, "online %d", c->online);
		FUZZ_CHECK(c->domain == TP_NONE || (c->domain >= 0 && (size_t)c->domain < s->nr_domains),
			   "domain index %d of %zu", c->domain, s->nr_domains);
		FUZZ_CHECK(in_range(c->max_capacity, 1, 1024), "max_capacity %lld", (long long)c->max_capacity);
		FUZZ_CHECK(in_range(c->max_freq_khz, 1, INT64_MAX), "max_freq_khz %lld",
			   (long long)c->max_freq_khz);
		FUZZ_CHECK(in_range(c->capped_freq_khz, 1, INT64_MAX), "capped_freq_khz %lld",
			   (long long)c->capped_freq_khz);
		FUZZ_CHECK(in_range(c->pressure, 0, 1024), "pressure %lld", (long long)c->pressure);
		FUZZ_CHECK(in_range(c->avg_pressure, 0, 1024), "avg_pressure %lld", (long long)c->avg_pressure);
		FUZZ_CHECK(in_range(c->capacity, 1, 1024), "capacity %lld", (long long)c->capacity);
	}
}

static void check_same(const struct tp_snapshot *a, const struct tp_snapshot *b)
{
	FUZZ_CHECK(a->nr_cpus == b->nr_cpus && a->nr_domains == b->nr_domains &&
		   a->time_ns == b->time_ns && a->decay_ms == b->decay_ms && a->hz == b->hz &&
		   strcmp(a->backend, b->backend) == 0,
		   "header differs after format -> parse: %zu/%zu cpus, %zu/%zu domains, backend '%s'/'%s'",
		   a->nr_cpus, b->nr_cpus, a->nr_domains, b->nr_domains, a->backend, b->backend);
	for (size_t d = 0; d < a->nr_domains; d++)
		FUZZ_CHECK(a->domains[d].id == b->domains[d].id &&
			   strcmp(a->domains[d].name, b->domains[d].name) == 0,
			   "domain %zu: %d '%s' / %d '%s'", d, a->domains[d].id, a->domains[d].name,
			   b->domains[d].id, b->domains[d].name);
	for (size_t i = 0; i < a->nr_cpus; i++) {
		const struct tp_cpu *x = &a->cpus[i], *y = &b->cpus[i];

		FUZZ_CHECK(x->cpu == y->cpu && x->online == y->online && x->domain == y->domain &&
			   x->max_capacity == y->max_capacity && x->max_freq_khz == y->max_freq_khz &&
			   x->capped_freq_khz == y->capped_freq_khz && x->pressure == y->pressure &&
			   x->avg_pressure == y->avg_pressure && x->capacity == y->capacity,
			   "cpu line %zu differs after format -> parse", i);
	}
}

/* format -> parse gives snap back. */
static void check_format_parse(const struct tp_snapshot *snap)
{
	struct tp_snapshot back;
	struct tp_error err = { 0 };
	char *text = NULL;
	size_t len = 0;
	int rc;

	FUZZ_CHECK(tp_abi_format_stats(snap, &text, &len) == 0, "format failed");
	FUZZ_CHECK(len == strlen(text) && len && text[len - 1] == '\n', "formatted text not one string");
	tp_snapshot_init(&back);
	rc = tp_abi_parse_stats(text, len, &back, &err);
	FUZZ_CHECK(rc == 0, "formatted stats do not parse: %s\n%.400s", err.msg, text);
	check_same(snap, &back);
	tp_snapshot_release(&back);
	free(text);
}

static void check_stats_text(const uint8_t *data, size_t size)
{
	struct tp_snapshot snap;
	struct tp_error err = { 0 };
	char *text = malloc(size ? size : 1);	/* not NUL-terminated: the parser takes a length */
	int rc;

	if (!text)
		abort();
	memcpy(text, data, size);
	tp_snapshot_init(&snap);
	rc = tp_abi_parse_stats(text, size, &snap, &err);
	if (rc == 0) {
		check_ranges(&snap);
		check_format_parse(&snap);
	} else {
		FUZZ_CHECK((rc == -EPROTO || rc == -ENOMEM) && err.msg[0] && snap.nr_cpus == 0,
			   "refusal %d without a message or with cpus", rc);
	}
	tp_snapshot_release(&snap);
	free(text);
}

/* A byte reader for building values from the input. */
struct bytes {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct bytes *b, int nbytes)
{
	uint64_t v = 0;

	for (int i = 0; i < nbytes; i++) {
		v = v << 8 | (b->n ? *b->p : 0);
		if (b->n) {
			b->p++;
			b->n--;
		}
	}
	return v;
}

/* A value in lo..hi, or TP_NONE when the selector says so. */
static int64_t take_range(struct bytes *b, int64_t lo, int64_t hi)
{
	uint64_t v = take(b, 8);

	if ((v & 0xff) == 0xff)
		return TP_NONE;
	return lo + (int64_t)((v >> 8) % (uint64_t)(hi - lo + 1));
}

static void check_snapshot_bytes(const uint8_t *data, size_t size)
{
	static const char *const backends[] = { "", "instant", "pelt", "decay", "none", "x_9" };
	struct bytes b = { data, size };
	struct tp_snapshot snap;
	size_t ncpus = (size_t)take(&b, 1) % 40, ndom = (size_t)take(&b, 1) % 5;
	int cpu = -1;

	tp_snapshot_init(&snap);
	if (tp_snapshot_reserve(&snap, ncpus, ndom ? ndom : 1) < 0)
		abort();
	snap.time_ns = take(&b, 8);
	snprintf(snap.backend, sizeof(snap.backend), "%s",
		 backends[take(&b, 1) % (sizeof(backends) / sizeof(backends[0]))]);
	snap.decay_ms = take_range(&b, 0, 32768);
	snap.hz = (int)take_range(&b, 1, 100000);
	for (size_t d = 0; d < ndom; d++) {
		snap.domains[d].id = (int)(d * 4 + take(&b, 1) % 4);
		snprintf(snap.domains[d].name, TP_NAME_MAX, take(&b, 1) & 1 ? "cluster%zu" : "d%zu.big", d);
	}
	snap.nr_domains = ndom;
	for (size_t i = 0; i < ncpus; i++) {
		struct tp_cpu *c = &snap.cpus[i];

		cpu += 1 + (int)(take(&b, 1) % 200);
		c->cpu = cpu < TP_MAX_CPUS ? cpu : TP_MAX_CPUS - 1;
		if (c->cpu <= (i ? snap.cpus[i - 1].cpu : -1))
			break;
		c->online = (int)take_range(&b, 0, 1);
		c->domain = ndom ? (int)(take(&b, 1) % (ndom + 1)) - 1 : TP_NONE;
		c->max_capacity = take_range(&b, 1, 1024);
		c->max_freq_khz = take_range(&b, 1, INT64_MAX - 1);
		c->capped_freq_khz = take_range(&b, 1, INT64_MAX - 1);
		c->capped_capacity = TP_NONE;
		c->pressure = take_range(&b, 0, 1024);
		c->avg_pressure = take_range(&b, 0, 1024);
		c->capacity = take_range(&b, 1, 1024);
		snap.nr_cpus = i + 1;
	}
	/* the parser names domains in order of first use: only used ones round-trip */
	check_format_parse(&snap);
	tp_snapshot_release(&snap);
}

/* ---- backend lists ---------------------------------------------------------------- */

static void check_backends(const uint8_t *data, size_t size, size_t max)
{
	char names[TP_MAX_BACKENDS][TP_NAME_MAX], again[TP_MAX_BACKENDS][TP_NAME_MAX];
	char *text = malloc(size ? size : 1), buf[TP_MAX_BACKENDS * (TP_NAME_MAX + 3) + 2];
	struct tp_error err = { 0 };
	size_t count = 0, count2 = 0, need;
	int active = -1, active2 = -1, rc;

	if (!text)
		abort();
	memcpy(text, data, size);
	rc = tp_abi_parse_backends(text, size, names, max, &count, &active, &err);
	free(text);
	if (rc < 0) {
		FUZZ_CHECK(rc == -EPROTO && err.msg[0], "backend list refused without a message");
		return;
	}
	FUZZ_CHECK(count >= 1 && count <= max && active >= 0 && (size_t)active < count,
		   "count %zu of max %zu, active %d", count, max, active);
	for (size_t i = 0; i < count; i++)
		FUZZ_CHECK(name_ok(names[i], true), "backend name '%s'", names[i]);
	need = tp_abi_format_backends(names, count, active, buf, sizeof(buf));
	FUZZ_CHECK(need < sizeof(buf) && need == strlen(buf) && buf[need - 1] == '\n',
		   "formatted list length %zu", need);
	rc = tp_abi_parse_backends(buf, strlen(buf), again, max, &count2, &active2, &err);
	FUZZ_CHECK(rc == 0 && count2 == count && active2 == active, "'%s' does not parse back", buf);
	for (size_t i = 0; i < count; i++)
		FUZZ_CHECK(strcmp(names[i], again[i]) == 0, "'%s' parses back to '%s'", names[i], again[i]);
}

/* ---- inject ------------------------------------------------------------------------- */

static bool ref_number(const char **p, uint64_t *v)
{
	if (**p < '0' || **p > '9')
		return false;
	*v = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		if (*v <= UINT32_MAX)	/* past any CPU number already: stop growing */
			*v = *v * 10 + (uint64_t)(**p - '0');
	return true;
}

/* docs/abi.md: "CPULIST KHZ" or "CPULIST clear", one space, KHZ a decimal >= 1. */
static bool ref_inject(const char *text, int nr_cpus, struct tp_cpuset *set, uint64_t *khz)
{
	const char *p = text, *space = strchr(text, ' ');
	uint64_t k = 0;

	tp_cpuset_zero(set);
	if (!space)
		return false;
	for (;;) {
		uint64_t a, b;

		if (!ref_number(&p, &a))
			return false;
		b = a;
		if (*p == '-') {
			p++;
			if (!ref_number(&p, &b))
				return false;
		}
		if (a > b || b >= (uint64_t)nr_cpus)
			return false;
		for (uint64_t c = a; c <= b; c++)
			tp_cpuset_add(set, (int)c);
		if (p == space)
			break;
		if (*p++ != ',')
			return false;
	}
	p = space + 1;
	if (strcmp(p, "clear") == 0) {
		*khz = 0;
		return true;
	}
	if (!*p)
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || k > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		k = k * 10 + (uint64_t)(*p - '0');
	}
	*khz = k;
	return k > 0;
}

static void check_inject(const char *text, int nr_cpus)
{
	struct tp_cpuset got, want, back;
	uint64_t khz = 0, want_khz = 0, khz2 = 0;
	int rc = tp_abi_parse_inject(text, nr_cpus, &got, &khz);
	bool ok = ref_inject(text, nr_cpus, &want, &want_khz);
	char list[65536], *line;

	FUZZ_CHECK((rc == 0) == ok, "inject '%s' (nr_cpus %d): parser %d, reference %s", text,
		   nr_cpus, rc, ok ? "accepts" : "refuses");
	if (!ok)
		return;
	FUZZ_CHECK(khz == want_khz && memcmp(&got, &want, sizeof(got)) == 0,
		   "inject '%s': another set or frequency (%llu) than the reference (%llu)", text,
		   (unsigned long long)khz, (unsigned long long)want_khz);
	FUZZ_CHECK(tp_cpuset_count(&got) > 0, "inject '%s': no cpu", text);
	for (int c = tp_cpuset_next(&got, 0); c >= 0; c = tp_cpuset_next(&got, c + 1))
		FUZZ_CHECK(c < nr_cpus, "inject '%s': cpu %d of %d", text, c, nr_cpus);
	/* the line core/source_patched.c writes for this set and value */
	FUZZ_CHECK(tp_cpuset_format(&got, list, sizeof(list)) < sizeof(list), "list too long");
	if (khz)
		FUZZ_CHECK(asprintf(&line, "%s %llu", list, (unsigned long long)khz) > 0, "oom");
	else
		FUZZ_CHECK(asprintf(&line, "%s clear", list) > 0, "oom");
	if (strlen(list) < 4096) {
		FUZZ_CHECK(tp_abi_parse_inject(line, nr_cpus, &back, &khz2) == 0, "'%s' does not parse back",
			   line);
		FUZZ_CHECK(khz2 == khz && memcmp(&got, &back, sizeof(got)) == 0,
			   "'%s' parses back to another set or frequency", line);
	}
	free(line);
}

/* ---- single values ------------------------------------------------------------------ */

static void check_u64(const char *text)
{
	uint64_t got = 0, want = 0;
	int rc = tp_abi_parse_u64(text, &got);
	bool ok = *text != '\0';
	char back[32];

	for (const char *p = text; ok && *p; p++) {
		if (*p < '0' || *p > '9' || want > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			ok = false;
		else
			want = want * 10 + (uint64_t)(*p - '0');
	}
	FUZZ_CHECK((rc == 0) == ok && (!ok || got == want), "u64 '%s': parser %d (%llu), reference %s",
		   text, rc, (unsigned long long)got, ok ? "accepts" : "refuses");
	if (ok) {
		snprintf(back, sizeof(back), "%llu", (unsigned long long)got);
		FUZZ_CHECK(tp_abi_parse_u64(back, &want) == 0 && want == got, "'%s' does not parse back", back);
	}
}

static void check_write_value(const uint8_t *data, size_t size, size_t out_len)
{
	char *buf = malloc(size ? size : 1), *out = malloc(out_len);
	size_t len = size;
	int rc;
	bool ok;

	if (!buf || !out)
		abort();
	memcpy(buf, data, size);
	rc = tp_abi_write_value(buf, size, out, out_len);
	if (len && buf[len - 1] == '\n')
		len--;
	ok = len > 0 && len < out_len && !memchr(buf, '\n', len) && !memchr(buf, '\0', len);
	FUZZ_CHECK((rc == 0) == ok, "write of %zu bytes into %zu: parser %d, reference %s", size,
		   out_len, rc, ok ? "accepts" : "refuses");
	if (ok)
		FUZZ_CHECK(strlen(out) == len && memcmp(out, buf, len) == 0, "written value differs");
	free(buf);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	switch (data[0] % 6) {
	case 0:
		check_stats_text(data + 1, size - 1);
		break;
	case 1:
		check_snapshot_bytes(data + 1, size - 1);
		break;
	case 2:
		if (size >= 2)
			check_backends(data + 2, size - 2, 1 + data[1] % TP_MAX_BACKENDS);
		break;
	case 3:
		if (size >= 3) {
			text = fuzz_cstring(data + 3, size - 3);
			check_inject(text, 1 + (int)(((unsigned)data[1] << 8 | data[2]) % TP_MAX_CPUS));
			free(text);
		}
		break;
	case 4:
		text = fuzz_cstring(data + 1, size - 1);
		check_u64(text);
		free(text);
		break;
	default:
		if (size >= 2)
			check_write_value(data + 2, size - 2, 1 + data[1] % 64);
		break;
	}
	return 0;
}
