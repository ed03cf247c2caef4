// SPDX-License-Identifier: MIT
/*
 * The parsers of what users type (core/parse.c, core/cpuset.c): durations, decay
 * periods, frequencies, cap values, CPU lists, and the cap arithmetic behind them.
 *
 * Input: byte 0 picks the parser, byte 1 a parameter (the default unit, the
 * topology, a buffer length), the rest up to a NUL is the text.  Properties, besides
 * the sanitizers:
 * - every number parser agrees with a plain reference written here from the grammar
 *   (DIGITS[.DIGITS][UNIT], at most 9 fraction digits, units case-insensitive, the
 *   value exact in the base unit): same accept/refuse, same value;
 * - accepted values are in their documented ranges (kHz 1..2^32-1, decay ms
 *   1..2^32-1, cap=1..1024, 1..100%), and every refusal carries a message;
 * - CPU lists agree with a reference parser, name only CPUs of the topology, and
 *   tp_cpuset_format -> tp_parse_cpulist gives the same set back; a format into a
 *   short buffer is a prefix of the whole text and returns its full length;
 * - tp_cap_resolve_khz and tp_pressure agree with 128-bit arithmetic, and a resolved
 *   capacity or percentage is the smallest frequency that gives at least that much.
 */
#include <errno.h>
#include <stdbool.h>
#include <strings.h>

#include <thermpress/thermpress.h>

#include "fuzz_common.h"

typedef unsigned __int128 u128;

/* ---- the reference number grammar -------------------------------------------- */

struct ref_unit {
	const char *name;
	uint64_t scale;
};

static const struct ref_unit ref_time[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	{ "min", UINT64_C(60000000000) }, { NULL, 0 },
};
static const struct ref_unit ref_freq[] = {
	{ "hz", 1 }, { "khz", 1000 }, { "mhz", 1000000 }, { "ghz", 1000000000 }, { NULL, 0 },
};

/*
 * text in the base unit: false when malformed, unknown unit, not exact, or above
 * UINT64_MAX.  value = whole * scale + frac * scale / 10^digits, which never needs
 * more than 128 bits.
 */
static bool ref_value(const char *text, const struct ref_unit *units, uint64_t default_scale,
		      uint64_t *out)
{
	u128 whole = 0, frac = 0, pow = 1, v;
	const char *p = text;
	uint64_t scale = 0;
	bool big = false;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (u128)(*p - '0');
		if (whole > UINT64_MAX) {
			big = true;	/* keep scanning: the rest must still be well formed */
			whole = UINT64_MAX;
		}
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (pow == 1000000000)
				return false;	/* at most 9 fraction digits */
			frac = frac * 10 + (u128)(*p - '0');
			pow *= 10;
		}
	}
	if (!*p) {
		scale = default_scale;
	} else {
		for (const struct ref_unit *u = units; u->name; u++)
			if (strcasecmp(p, u->name) == 0)
				scale = u->scale;
		if (!scale)
			return false;
	}
	if (big || (frac * scale) % pow)
		return false;
	v = whole * scale + frac * scale / pow;
	if (v > UINT64_MAX)
		return false;
	*out = (uint64_t)v;
	return true;
}

static bool ref_uint(const char *text, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*text)
		return false;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		if (v > max)
			continue;	/* already out of range; stay there without overflowing */
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

/* 0: no default unit, a bare number is refused (every duration option but top -d) */
static const uint64_t default_units[] = { 0, 1, 1000, 1000000, 1000000000 };

static void check_duration(const char *text, uint8_t param)
{
	uint64_t unit = default_units[param % 5], got = 0, want = 0;
	struct tp_error err = { 0 };
	int rc = tp_parse_duration_ns(text, unit, &got, &err);
	bool ok = ref_value(text, ref_time, unit, &want) && want > 0;

	FUZZ_CHECK((rc == 0) == ok, "duration '%s' (default unit %llu ns): parser %d, reference %s",
		   text, (unsigned long long)unit, rc, ok ? "accepts" : "refuses");
	if (ok)
		FUZZ_CHECK(got == want, "duration '%s': %llu ns, reference %llu ns", text,
			   (unsigned long long)got, (unsigned long long)want);
	else
		FUZZ_CHECK(rc == -EINVAL && err.msg[0], "duration '%s': refusal without a message", text);
}

static void check_decay(const char *text)
{
	uint64_t ns = 0;
	uint32_t got = 0;
	struct tp_error err = { 0 };
	int rc = tp_parse_decay_ms(text, &got, &err);
	bool ok = ref_value(text, ref_time, 1000000, &ns) && ns % 1000000 == 0 && ns > 0 &&
		  ns / 1000000 <= UINT32_MAX;

	FUZZ_CHECK((rc == 0) == ok, "decay '%s': parser %d, reference %s", text, rc,
		   ok ? "accepts" : "refuses");
	if (ok)
		FUZZ_CHECK(got == ns / 1000000 && got >= 1, "decay '%s': %u ms, reference %llu ms", text,
			   got, (unsigned long long)(ns / 1000000));
	else
		FUZZ_CHECK(rc == -EINVAL && err.msg[0], "decay '%s': refusal without a message", text);
}

static bool ref_freq_khz(const char *text, uint64_t *khz)
{
	uint64_t hz;

	if (!ref_value(text, ref_freq, 1000, &hz) || hz % 1000 || hz == 0 || hz / 1000 > UINT32_MAX)
		return false;
	*khz = hz / 1000;
	return true;
}

static void check_freq(const char *text)
{
	uint64_t got = 0, want = 0;
	struct tp_error err = { 0 };
	int rc = tp_parse_freq_khz(text, &got, &err);
	bool ok = ref_freq_khz(text, &want);

	FUZZ_CHECK((rc == 0) == ok, "frequency '%s': parser %d, reference %s", text, rc,
		   ok ? "accepts" : "refuses");
	if (ok)
		FUZZ_CHECK(got == want && got >= 1 && got <= UINT32_MAX,
			   "frequency '%s': %llu kHz, reference %llu kHz", text,
			   (unsigned long long)got, (unsigned long long)want);
	else
		FUZZ_CHECK(rc == -EINVAL && err.msg[0], "frequency '%s': refusal without a message", text);
}

static bool ref_cap_value(const char *text, struct tp_cap_value *out)
{
	size_t len = strlen(text);

	if (strncasecmp(text, "cap=", 4) == 0) {
		out->kind = TP_CAP_CAPACITY;
		return ref_uint(text + 4, 1024, &out->value) && out->value >= 1;
	}
	if (len > 1 && text[len - 1] == '%') {
		char *num = strndup(text, len - 1);
		bool ok;

		if (!num)
			abort();
		out->kind = TP_CAP_PERCENT;
		ok = ref_uint(num, 100, &out->value) && out->value >= 1;
		free(num);
		return ok;
	}
	out->kind = TP_CAP_KHZ;
	return ref_freq_khz(text, &out->value);
}

/* ---- cap arithmetic ------------------------------------------------------------- */

static uint64_t ref_pressure(uint64_t max_cap, uint64_t capped, uint64_t max_khz)
{
	if (max_khz == 0 || capped >= max_khz)
		return 0;
	return max_cap - (uint64_t)((u128)max_cap * capped / max_khz);
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Resolve value on a CPU of max_khz (1..INT64_MAX) and max_cap (1..1024). */
static void check_resolve(const struct tp_cap_value *value, int64_t max_khz, int64_t max_cap)
{
	struct tp_cpu cpu = { .cpu = 3, .max_freq_khz = max_khz, .max_capacity = max_cap };
	struct tp_error err = { 0 };
	uint64_t khz = 0, want = 0, limit = 0;
	int rc = tp_cap_resolve_khz(value, &cpu, &khz, &err);
	bool ok = true;
	u128 num;

	switch (value->kind) {
	case TP_CAP_KHZ:
		ok = value->value <= (uint64_t)max_khz;
		want = value->value;
		break;
	case TP_CAP_CAPACITY:
		ok = value->value <= (uint64_t)max_cap;
		num = (u128)(uint64_t)max_khz * value->value;
		want = (uint64_t)(num / (uint64_t)max_cap + (num % (uint64_t)max_cap != 0));
		limit = value->value;
		break;
	case TP_CAP_PERCENT:
		num = (u128)(uint64_t)max_khz * value->value;
		want = (uint64_t)(num / 100 + (num % 100 != 0));
		break;
	}
	FUZZ_CHECK((rc == 0) == ok, "resolve kind %d value %llu on %lld kHz cap %lld: rc %d",
		   value->kind, (unsigned long long)value->value, (long long)max_khz,
		   (long long)max_cap, rc);
	if (!ok)
		return;
	FUZZ_CHECK(khz == want && khz >= 1 && khz <= (uint64_t)max_khz,
		   "resolve kind %d value %llu on %lld kHz cap %lld: %llu kHz, reference %llu",
		   value->kind, (unsigned long long)value->value, (long long)max_khz,
		   (long long)max_cap, (unsigned long long)khz, (unsigned long long)want);
	if (value->kind == TP_CAP_CAPACITY) {
		/* at least the capacity asked for, and one kHz less would not be */
		uint64_t p = tp_pressure((uint64_t)max_cap, khz, (uint64_t)max_khz);

		FUZZ_CHECK((uint64_t)max_cap - p >= limit,
			   "cap=%llu on %lld kHz cap %lld: %llu kHz leaves capacity %llu",
			   (unsigned long long)limit, (long long)max_khz, (long long)max_cap,
			   (unsigned long long)khz, (unsigned long long)(max_cap - p));
		FUZZ_CHECK(khz == 1 || (u128)max_cap * (khz - 1) / (uint64_t)max_khz < limit,
			   "cap=%llu on %lld kHz cap %lld: %llu kHz is not the smallest",
			   (unsigned long long)limit, (long long)max_khz, (long long)max_cap,
			   (unsigned long long)khz);
	}
}

/* The frequency value stands for on a CPU of max_khz and capacity 1024 (rounded up). */
static u128 ref_khz(const struct tp_cap_value *value, int64_t max_khz)
{
	u128 num = (u128)(uint64_t)max_khz * value->value;

	switch (value->kind) {
	case TP_CAP_CAPACITY:
		return num / 1024 + (num % 1024 != 0);
	case TP_CAP_PERCENT:
		return num / 100 + (num % 100 != 0);
	default:
		return value->value;
	}
}

/* One range check, whatever the unit: outside lowest..max refused where the lowest is
 * known; where it is not, 1..max, and a frequency below a tenth of the maximum is
 * allowed with a warning.  Anything else passes silently. */
static void check_bare(const char *text, const struct tp_cap_value *value, int64_t max_khz)
{
	struct tp_cpu cpu = { .cpu = 3, .max_freq_khz = max_khz, .max_capacity = 1024,
			      .min_freq_khz = max_khz / 4 + 1 };
	struct tp_error err = { 0 };
	char warn[256];
	u128 khz = ref_khz(value, max_khz);
	bool above = khz > (u128)max_khz, below = khz < (u128)cpu.min_freq_khz;
	int rc = tp_cap_check_bare(text, &cpu, warn, sizeof(warn), &err);

	FUZZ_CHECK((rc < 0) == (above || below), "'%s' on %lld..%lld kHz: rc %d", text,
		   (long long)cpu.min_freq_khz, (long long)max_khz, rc);
	FUZZ_CHECK(rc < 0 ? rc == -EINVAL && strstr(err.msg, above ? "maximum" : "lowest frequency")
			  : !warn[0],
		   "'%s' with a known lowest frequency: rc %d '%s' warning '%s'", text, rc,
		   err.msg, warn);
	cpu.min_freq_khz = TP_NONE;
	rc = tp_cap_check_bare(text, &cpu, warn, sizeof(warn), &err);
	FUZZ_CHECK((rc < 0) == above && (warn[0] != '\0') ==
		   (!above && value->kind == TP_CAP_KHZ && value->value < (uint64_t)max_khz / 10),
		   "'%s' on ..%lld kHz, lowest unknown: rc %d warning '%s'", text,
		   (long long)max_khz, rc, warn);
}

static void check_cap_value(const char *text, const uint8_t *cpu_bytes)
{
	struct tp_cap_value got = { 0 }, want = { 0 };
	struct tp_error err = { 0 };
	int rc = tp_parse_cap_value(text, &got, &err);
	bool ok = ref_cap_value(text, &want);

	FUZZ_CHECK((rc == 0) == ok, "cap value '%s': parser %d, reference %s", text, rc,
		   ok ? "accepts" : "refuses");
	if (!ok) {
		FUZZ_CHECK(rc == -EINVAL && err.msg[0], "cap value '%s': refusal without a message", text);
		return;
	}
	FUZZ_CHECK(got.kind == want.kind && got.value == want.value,
		   "cap value '%s': kind %d value %llu, reference kind %d value %llu", text, got.kind,
		   (unsigned long long)got.value, want.kind, (unsigned long long)want.value);
	if (cpu_bytes) {
		int64_t max_khz = (int64_t)(get_u64(cpu_bytes) >> 1);
		int64_t max_cap = (int64_t)(get_u64(cpu_bytes + 8) % 1024) + 1;

		check_resolve(&got, max_khz ? max_khz : 1, max_cap);
		check_bare(text, &got, max_khz ? max_khz : 1);
	}
}

static void check_pressure(const uint8_t *b)
{
	uint64_t max_cap = get_u64(b) % 1025, capped = get_u64(b + 8), max_khz = get_u64(b + 16);
	uint64_t got = tp_pressure(max_cap, capped, max_khz);

	FUZZ_CHECK(got == ref_pressure(max_cap, capped, max_khz) && got <= max_cap,
		   "tp_pressure(%llu, %llu, %llu) = %llu, reference %llu", (unsigned long long)max_cap,
		   (unsigned long long)capped, (unsigned long long)max_khz, (unsigned long long)got,
		   (unsigned long long)ref_pressure(max_cap, capped, max_khz));
}

/* ---- CPU lists ------------------------------------------------------------------ */

#define NR_TOPOS 4
static struct tp_snapshot topos[NR_TOPOS];

static void add_topo(struct tp_snapshot *t, const int *cpus, size_t n, const int *dom_of,
		     const char *const *names, size_t ndom)
{
	t->cpus = calloc(n, sizeof(*t->cpus));
	t->domains = calloc(ndom, sizeof(*t->domains));
	if (!t->cpus || !t->domains)
		abort();
	for (size_t d = 0; d < ndom; d++)
		snprintf(t->domains[d].name, TP_NAME_MAX, "%s", names[d]);
	for (size_t i = 0; i < n; i++) {
		t->cpus[i] = (struct tp_cpu){ .cpu = cpus[i], .online = 1, .domain = dom_of[i],
					      .max_capacity = 1024, .max_freq_khz = 2000000 };
		if (t->domains[dom_of[i]].id == 0 && cpus[i])
			t->domains[dom_of[i]].id = cpus[i];
	}
	t->nr_cpus = n;
	t->nr_domains = ndom;
}

static void make_topos(void)
{
	static int c8[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, d8[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	static int sparse[9] = { 0, 1, 2, 3, 64, 65, 127, 4095, TP_MAX_CPUS - 1 }, dsparse[9] = { 0 };
	static int c5[5] = { 1, 2, 3, 4, 5 }, d5[5] = { 0, 0, 1, 1, 1 };
	static int all[TP_MAX_CPUS], dall[TP_MAX_CPUS];
	static const char *const n8[] = { "little", "big" }, *const n1[] = { "cluster0" },
		*const n5[] = { "a_b", "c" }, *const nall[] = { "cluster0", "cluster1" };

	for (int i = 0; i < TP_MAX_CPUS; i++) {
		all[i] = i;
		dall[i] = i >= TP_MAX_CPUS / 2;
	}
	add_topo(&topos[0], c8, 8, d8, n8, 2);
	add_topo(&topos[1], sparse, 9, dsparse, n1, 1);
	add_topo(&topos[2], c5, 5, d5, n5, 2);
	add_topo(&topos[3], all, TP_MAX_CPUS, dall, nall, 2);
}

static bool ref_cpu_number(const char *s, size_t n, uint64_t *v)
{
	char *num = strndup(s, n);
	bool ok;

	if (!num)
		abort();
	ok = ref_uint(num, UINT64_MAX / 10, v);
	free(num);
	return ok;
}

static bool ref_add(const struct tp_snapshot *t, uint64_t first, uint64_t last, struct tp_cpuset *set)
{
	if (first > last)
		return false;
	for (uint64_t c = first; c <= last; c++) {
		if (c >= TP_MAX_CPUS || tp_snapshot_find_cpu(t, (int)c) < 0)
			return false;
		tp_cpuset_add(set, (int)c);
	}
	return true;
}

/*
 * The grammar of tp_parse_cpulist: comma-separated tokens, each "all", a domain name,
 * N or N-M (N <= M), every CPU in the topology.  A token is at most 63 bytes and the
 * left number of a range at most 31: no CPU number needs more digits.
 */
static bool ref_cpulist(const char *text, const struct tp_snapshot *t, struct tp_cpuset *set)
{
	const char *p = text;

	tp_cpuset_zero(set);
	if (!*p)
		return false;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		const char *dash = memchr(p, '-', n);
		bool named = false;
		uint64_t a, b;

		if (n == 0 || n >= 64)
			return false;
		if (n == 3 && !memcmp(p, "all", 3)) {
			for (size_t i = 0; i < t->nr_cpus; i++)
				tp_cpuset_add(set, t->cpus[i].cpu);
			named = true;
		}
		for (size_t d = 0; !named && d < t->nr_domains; d++) {
			if (strlen(t->domains[d].name) != n || memcmp(p, t->domains[d].name, n))
				continue;
			for (size_t i = 0; i < t->nr_cpus; i++)
				if (t->cpus[i].domain == (int)d)
					tp_cpuset_add(set, t->cpus[i].cpu);
			named = true;
		}
		if (!named) {
			if (!dash) {
				if (!ref_cpu_number(p, n, &a) || !ref_add(t, a, a, set))
					return false;
			} else {
				if ((size_t)(dash - p) >= 32 || !ref_cpu_number(p, (size_t)(dash - p), &a) ||
				    !ref_cpu_number(dash + 1, n - (size_t)(dash - p) - 1, &b) ||
				    !ref_add(t, a, b, set))
					return false;
			}
		}
		if (!comma)
			return true;
		p = comma + 1;
	}
}

static bool same_set(const struct tp_cpuset *a, const struct tp_cpuset *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static char fmt_buf[65536];

static void check_roundtrip(const struct tp_cpuset *set, const struct tp_snapshot *t, size_t short_len)
{
	struct tp_cpuset back;
	struct tp_error err = { 0 };
	size_t need = tp_cpuset_format(set, fmt_buf, sizeof(fmt_buf));
	char *part;

	FUZZ_CHECK(need < sizeof(fmt_buf) && need == strlen(fmt_buf), "format length %zu", need);
	if (tp_cpuset_count(set) == 0) {
		FUZZ_CHECK(need == 0, "empty set formats as '%s'", fmt_buf);
		return;
	}
	FUZZ_CHECK(tp_parse_cpulist(fmt_buf, t, &back, &err) == 0, "'%s' does not parse back: %s",
		   fmt_buf, err.msg);
	FUZZ_CHECK(same_set(set, &back), "'%s' parses back to another set", fmt_buf);
	/* into a short buffer: a prefix, NUL-terminated, and the full length returned */
	part = malloc(short_len ? short_len : 1);
	if (!part)
		abort();
	FUZZ_CHECK(tp_cpuset_format(set, part, short_len) == need, "short format length");
	if (short_len)
		FUZZ_CHECK(strlen(part) < short_len && !strncmp(part, fmt_buf, strlen(part)),
			   "short format '%s' is not a prefix of '%s'", part, fmt_buf);
	free(part);
}

static void check_cpulist(const char *text, uint8_t param)
{
	const struct tp_snapshot *t = &topos[param % NR_TOPOS];
	struct tp_cpuset got, want;
	struct tp_error err = { 0 };
	int rc = tp_parse_cpulist(text, t, &got, &err);
	bool ok = ref_cpulist(text, t, &want);

	FUZZ_CHECK((rc == 0) == ok, "cpu list '%s' (topology %d): parser %d (%s), reference %s", text,
		   param % NR_TOPOS, rc, err.msg, ok ? "accepts" : "refuses");
	if (!ok) {
		FUZZ_CHECK(rc == -EINVAL && err.msg[0] && tp_cpuset_count(&got) == 0,
			   "cpu list '%s': refusal without a message or with cpus", text);
		return;
	}
	FUZZ_CHECK(same_set(&got, &want), "cpu list '%s': another set than the reference", text);
	for (int c = tp_cpuset_next(&got, 0); c >= 0; c = tp_cpuset_next(&got, c + 1))
		FUZZ_CHECK(tp_snapshot_find_cpu(t, c) >= 0, "cpu list '%s' gives cpu %d", text, c);
	check_roundtrip(&got, t, (size_t)(param / NR_TOPOS));
}

/* Bytes as a bitmap over the topology's CPUs: format -> parse gives it back. */
static void check_cpuset_bits(const uint8_t *b, size_t n, uint8_t param)
{
	const struct tp_snapshot *t = &topos[param % NR_TOPOS];
	struct tp_cpuset set;

	tp_cpuset_zero(&set);
	for (size_t i = 0; i < t->nr_cpus && i / 8 < n; i++)
		if (b[i / 8] >> (i % 8) & 1)
			tp_cpuset_add(&set, t->cpus[i].cpu);
	check_roundtrip(&set, t, (size_t)(param / NR_TOPOS));
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	make_topos();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 2)
		return 0;
	switch (data[0] % 8) {
	case 0:
		text = fuzz_cstring(data + 2, size - 2);
		check_duration(text, data[1]);
		break;
	case 1:
		text = fuzz_cstring(data + 2, size - 2);
		check_decay(text);
		break;
	case 2:
		text = fuzz_cstring(data + 2, size - 2);
		check_freq(text);
		break;
	case 3:
		text = fuzz_cstring(data + 1, size - 1);
		check_cap_value(text, NULL);
		break;
	case 4:		/* 16 bytes of CPU (max kHz, max capacity), then the value */
		if (size < 17)
			return 0;
		text = fuzz_cstring(data + 17, size - 17);
		check_cap_value(text, data + 1);
		break;
	case 5:
		text = fuzz_cstring(data + 2, size - 2);
		check_cpulist(text, data[1]);
		break;
	case 6:
		check_cpuset_bits(data + 2, size - 2, data[1]);
		return 0;
	default:
		if (size >= 25)
			check_pressure(data + 1);
		return 0;
	}
	free(text);
	return 0;
}
