// SPDX-License-Identifier: MIT
/*
 * Strict parsers for what users type: CPU lists, frequencies, durations and cap
 * values.  The whole token must parse; every message names the bad token and what
 * would have been valid.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <thermpress/thermpress.h>

#include "intparse.h"

/* ---- numbers -------------------------------------------------------------- */

/*
 * "123" or "1.25": digits with an optional fraction of at most 9 digits.  Gives
 * the value scaled by 10^9 so that unit conversions stay exact integers.
 * Returns the length consumed, or 0 when text does not start with a number.
 */
static size_t parse_decimal_nano(const char *text, unsigned __int128 *nano)
{
	unsigned __int128 whole = 0, frac = 0;
	size_t i = 0, frac_digits = 0;

	while (isdigit((unsigned char)text[i])) {
		whole = whole * 10 + (text[i] - '0');
		if (whole > UINT64_MAX)
			return 0;
		i++;
	}
	if (i == 0)
		return 0;
	if (text[i] == '.') {
		size_t start = ++i;

		while (isdigit((unsigned char)text[i])) {
			if (frac_digits == 9)
				return 0;
			frac = frac * 10 + (text[i] - '0');
			frac_digits++;
			i++;
		}
		if (i == start)
			return 0;
	}
	while (frac_digits < 9) {
		frac *= 10;
		frac_digits++;
	}
	*nano = whole * 1000000000u + frac;
	return i;
}

struct unit {
	const char *name;
	uint64_t scale;		/* in the base unit (Hz or ns) */
};

/*
 * number[unit] -> value in the base unit, exact.  default_scale applies without
 * a unit.  Returns 0, -EINVAL (malformed or unknown unit), -ERANGE, or -EDOM when
 * the value is not a whole multiple of granule.
 */
static int parse_with_unit(const char *text, const struct unit *units, uint64_t default_scale,
			   uint64_t granule, uint64_t *out)
{
	unsigned __int128 nano, base;
	size_t n = parse_decimal_nano(text, &nano);
	uint64_t scale = 0;

	if (n == 0)
		return -EINVAL;
	if (text[n] == '\0') {
		scale = default_scale;
	} else {
		for (const struct unit *u = units; u->name; u++)
			if (strcasecmp(text + n, u->name) == 0)
				scale = u->scale;
		if (!scale)
			return -EINVAL;
	}
	base = nano * scale;
	if (base % 1000000000u)
		return -EDOM;
	base /= 1000000000u;
	if (base % granule)
		return -EDOM;
	if (base > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)base;
	return 0;
}

/* ---- frequencies and durations ------------------------------------------- */

static const struct unit freq_units[] = {
	{ "Hz", 1 }, { "kHz", 1000 }, { "MHz", 1000000 }, { "GHz", 1000000000 }, { NULL, 0 },
};

int tp_parse_freq_khz(const char *text, uint64_t *khz, struct tp_error *err)
{
	uint64_t hz;
	int rc = parse_with_unit(text, freq_units, 1000, 1, &hz);

	if (rc == -EDOM || (rc == 0 && hz % 1000))
		return tp_error_set(err, -EINVAL, "frequency '%s' is not a whole number of kHz", text);
	if (rc < 0 || hz == 0 || hz / 1000 > UINT32_MAX)
		return tp_error_set(err, -EINVAL,
			"invalid frequency '%s' (a positive number of kHz, or with a unit: 1800MHz, 2.36GHz)",
			text);
	*khz = hz / 1000;
	return 0;
}

static const struct unit time_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	{ "min", UINT64_C(60000000000) }, { NULL, 0 },
};

int tp_parse_duration_ns(const char *text, uint64_t default_unit_ns, uint64_t *ns,
			 struct tp_error *err)
{
	unsigned __int128 nano;
	size_t n = parse_decimal_nano(text, &nano);
	int rc;

	/* the one rule for durations: a number needs its unit (docs/values.md) */
	if (!default_unit_ns && n && text[n] == '\0' && nano)
		return tp_error_set(err, -EINVAL,
			"duration '%s' has no unit: did you mean %ss? (a positive number with a "
			"unit: 400ms, 1.5s, 250us)", text, text);
	rc = parse_with_unit(text, time_units, default_unit_ns, 1, ns);
	if (rc == -EDOM)
		return tp_error_set(err, -EINVAL, "duration '%s' is not a whole number of ns", text);
	if (rc < 0 || *ns == 0)
		return tp_error_set(err, -EINVAL,
			"invalid duration '%s' (a positive number with a unit: 400ms, 1.5s, 250us)", text);
	return 0;
}

int tp_parse_decay_ms(const char *text, uint32_t *ms, struct tp_error *err)
{
	uint64_t ns;
	int rc = parse_with_unit(text, time_units, 1000000, 1000000, &ns);

	if (rc == -EDOM)
		return tp_error_set(err, -EINVAL, "decay period '%s' is not a whole number of ms", text);
	if (rc < 0 || ns == 0 || ns / 1000000 > UINT32_MAX)
		return tp_error_set(err, -EINVAL,
			"invalid decay period '%s' (a positive number of ms: 250, 250ms, 1s)", text);
	*ms = (uint32_t)(ns / 1000000);
	return 0;
}

/* ---- cap values ------------------------------------------------------------ */

int tp_parse_cap_value(const char *text, struct tp_cap_value *out, struct tp_error *err)
{
	size_t len = strlen(text);
	uint64_t v;

	if (strncasecmp(text, "cap=", 4) == 0) {
		if (parse_u64(text + 4, &v) < 0 || v == 0 || v > TP_CAPACITY_SCALE)
			return tp_error_set(err, -EINVAL,
				"invalid capacity '%s' (cap=N with N in 1..%d)", text,
				TP_CAPACITY_SCALE);
		out->kind = TP_CAP_CAPACITY;
		out->value = v;
		return 0;
	}
	if (len > 1 && text[len - 1] == '%') {
		/* digits of any length, as after cap= (a 32-byte copy refused 0...01%) */
		v = 0;
		for (size_t i = 0; i + 1 < len; i++)
			if (!isdigit((unsigned char)text[i]) ||
			    (v = v * 10 + (uint64_t)(text[i] - '0')) > 100)
				goto bad_percent;
		if (v == 0)
			goto bad_percent;
		out->kind = TP_CAP_PERCENT;
		out->value = v;
		return 0;
	}
	if (tp_parse_freq_khz(text, &v, NULL) < 0)
		return tp_error_set(err, -EINVAL,
			"invalid cap value '%s' (a frequency: 1800000, 1800MHz, 2.36GHz; a capped capacity: cap=600; or a percentage: 60%%)",
			text);
	out->kind = TP_CAP_KHZ;
	out->value = v;
	return 0;

bad_percent:
	return tp_error_set(err, -EINVAL, "invalid percentage '%s' (1%% to 100%%)", text);
}

/* In 128 bits: a frequency read from a file can be any u64 kHz, times up to 1024. */
static uint64_t mul_div_round_up(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 p = (unsigned __int128)a * b;

	return (uint64_t)(p / c + (p % c != 0));
}

/*
 * "; did you mean 50%?" for a frequency that reads like a percentage (1..100), or
 * "; did you mean 1800MHz?" when the number fits the CPU in MHz; else "".
 */
static void slip_hint(uint64_t value, const struct tp_cpu *cpu, char *buf, size_t len)
{
	uint64_t low = cpu->min_freq_khz > 0 ? (uint64_t)cpu->min_freq_khz : 1;

	if (value >= 1 && value <= 100)
		snprintf(buf, len, "; did you mean %llu%%?", (unsigned long long)value);
	else if (value <= (uint64_t)cpu->max_freq_khz / 1000 && value * 1000 >= low)
		snprintf(buf, len, "; did you mean %lluMHz?", (unsigned long long)value);
	else
		buf[0] = '\0';
}

/* "1800000 kHz" for a frequency, "60% (1417200 kHz)" or "cap=600 (1384000 kHz)" else. */
static void describe_value(const struct tp_cap_value *value, uint64_t khz, char *buf, size_t len)
{
	switch (value->kind) {
	case TP_CAP_PERCENT:
		snprintf(buf, len, "%llu%% (%llu kHz)", (unsigned long long)value->value,
			 (unsigned long long)khz);
		return;
	case TP_CAP_CAPACITY:
		snprintf(buf, len, "cap=%llu (%llu kHz)", (unsigned long long)value->value,
			 (unsigned long long)khz);
		return;
	default:
		snprintf(buf, len, "%llu kHz", (unsigned long long)khz);
	}
}

/*
 * The one range check of a cap, whatever the unit it was written in: the frequency khz
 * must lie in the CPU's range, lowest..max kHz (1..max where the source does not know
 * the lowest).  The message, the same for every unit and every source, ends with hint.
 */
static int check_range(const struct tp_cap_value *value, uint64_t khz, const struct tp_cpu *cpu,
		       const char *hint, struct tp_error *err)
{
	uint64_t max_khz = (uint64_t)cpu->max_freq_khz;
	uint64_t low = cpu->min_freq_khz > 0 ? (uint64_t)cpu->min_freq_khz : 1;
	char what[96];

	describe_value(value, khz, what, sizeof(what));
	if (khz > max_khz)
		return tp_error_set(err, -EINVAL, "%s is above cpu %d's maximum (%llu..%llu kHz)%s",
				    what, cpu->cpu, (unsigned long long)low,
				    (unsigned long long)max_khz, hint);
	if (khz < low)
		return tp_error_set(err, -EINVAL,
				    "%s is below cpu %d's lowest frequency (%llu..%llu kHz)%s",
				    what, cpu->cpu, (unsigned long long)low,
				    (unsigned long long)max_khz, hint);
	return 0;
}

/* tp_cap_resolve_khz, with hint at the end of a range error. */
static int resolve_khz(const struct tp_cap_value *value, const struct tp_cpu *cpu,
		       const char *hint, uint64_t *khz, struct tp_error *err)
{
	if (cpu->max_freq_khz <= 0 || cpu->max_capacity <= 0)
		return tp_error_set(err, -ENODATA, "cpu %d has no known maximum frequency", cpu->cpu);
	uint64_t max_khz = (uint64_t)cpu->max_freq_khz;
	uint64_t max_cap = (uint64_t)cpu->max_capacity;
	uint64_t want;

	switch (value->kind) {
	case TP_CAP_KHZ:
		want = value->value;
		break;
	case TP_CAP_CAPACITY:
		if (value->value > max_cap)
			return tp_error_set(err, -EINVAL,
				"capacity %llu is above cpu %d's maximum (cap=1..cap=%llu)",
				(unsigned long long)value->value, cpu->cpu, (unsigned long long)max_cap);
		want = mul_div_round_up(max_khz, value->value, max_cap);
		break;
	case TP_CAP_PERCENT:
		want = mul_div_round_up(max_khz, value->value, 100);
		break;
	default:
		return tp_error_set(err, -EINVAL, "unknown cap kind");
	}
	if (check_range(value, want, cpu, hint, err) < 0)
		return -EINVAL;
	*khz = want;
	return 0;
}

int tp_cap_resolve_khz(const struct tp_cap_value *value, const struct tp_cpu *cpu,
		       uint64_t *khz, struct tp_error *err)
{
	return resolve_khz(value, cpu, "", khz, err);
}

int tp_cap_check_bare(const char *text, const struct tp_cpu *cpu, char *warn, size_t len,
		      struct tp_error *err)
{
	struct tp_cap_value value;
	char hint[64] = "";
	uint64_t khz;
	int rc;

	if (len)
		warn[0] = '\0';
	if (tp_parse_cap_value(text, &value, NULL) < 0 || cpu->max_freq_khz <= 0)
		return 0;	/* refused anyway, by the parser or tp_cap_resolve_khz */
	/* a bare number is kHz, and often a slip for 50% or 50MHz */
	if (*text && strspn(text, "0123456789") == strlen(text) &&
	    value.value <= (uint64_t)cpu->max_freq_khz)
		slip_hint(value.value, cpu, hint, sizeof(hint));
	rc = resolve_khz(&value, cpu, hint, &khz, err);
	if (rc < 0)
		return rc == -ENODATA ? 0 : rc;
	if (cpu->min_freq_khz <= 0 && value.kind == TP_CAP_KHZ &&
	    khz < (uint64_t)cpu->max_freq_khz / 10 && len)
		snprintf(warn, len, "%llu kHz is below a tenth of cpu %d's maximum (%lld kHz), "
			 "and its lowest frequency is unknown%s", (unsigned long long)khz,
			 cpu->cpu, (long long)cpu->max_freq_khz, hint);
	return 0;
}

uint64_t tp_pressure(uint64_t max_capacity, uint64_t capped_khz, uint64_t max_khz)
{
	if (max_khz == 0 || capped_khz >= max_khz)
		return 0;
	return max_capacity - (uint64_t)((unsigned __int128)max_capacity * capped_khz / max_khz);
}

/* ---- CPU lists ------------------------------------------------------------- */

/* "(online: 0-5, offline: 6-7)" or "(online: 0-7)" for messages. */
static void describe_cpus(const struct tp_snapshot *topo, char *buf, size_t len)
{
	struct tp_cpuset *sets = calloc(2, sizeof(*sets));	/* 2 KiB: not on the stack */
	char on[128], off[128];

	if (!sets) {
		snprintf(buf, len, "(out of memory listing cpus)");
		return;
	}
	for (size_t i = 0; i < topo->nr_cpus; i++)
		tp_cpuset_add(&sets[topo->cpus[i].online == 0], topo->cpus[i].cpu);
	tp_cpuset_format(&sets[0], on, sizeof(on));
	tp_cpuset_format(&sets[1], off, sizeof(off));
	if (tp_cpuset_count(&sets[1]))
		snprintf(buf, len, "(online: %s, offline: %s)", *on ? on : "none", off);
	else
		snprintf(buf, len, "(online: %s)", on);
	free(sets);
}

static int cpulist_error(const struct tp_snapshot *topo, struct tp_error *err, int kind,
			 const char *token)
{
	char valid[300], domains[200] = "";
	size_t used = 0;

	describe_cpus(topo, valid, sizeof(valid));
	for (size_t i = 0; i < topo->nr_domains && used < sizeof(domains); i++)
		used += snprintf(domains + used, sizeof(domains) - used, ", %s", topo->domains[i].name);
	if (kind == 0)
		return tp_error_set(err, -EINVAL, "cpu %s does not exist %s", token, valid);
	if (kind == 1)
		return tp_error_set(err, -EINVAL, "empty cpu list (valid: numbers and ranges like 0-3,6, all%s)",
				    domains);
	return tp_error_set(err, -EINVAL,
		"invalid cpu list token '%s' (valid: numbers and ranges like 0-3,6, all%s)",
		token, domains);
}

static int add_range(const struct tp_snapshot *topo, uint64_t first, uint64_t last,
		     struct tp_cpuset *out, struct tp_error *err)
{
	for (uint64_t cpu = first; cpu <= last; cpu++) {
		char num[24];

		if (cpu >= TP_MAX_CPUS || tp_snapshot_find_cpu(topo, (int)cpu) < 0) {
			snprintf(num, sizeof(num), "%llu", (unsigned long long)cpu);
			return cpulist_error(topo, err, 0, num);
		}
		tp_cpuset_add(out, (int)cpu);
	}
	return 0;
}

static int parse_cpulist_token(const char *tok, const struct tp_snapshot *topo,
			       struct tp_cpuset *out, struct tp_error *err)
{
	const char *end, *dash;
	uint64_t first, last;

	if (strcmp(tok, "all") == 0) {
		for (size_t i = 0; i < topo->nr_cpus; i++)
			tp_cpuset_add(out, topo->cpus[i].cpu);
		return 0;
	}
	for (size_t d = 0; d < topo->nr_domains; d++) {
		if (strcmp(tok, topo->domains[d].name) != 0)
			continue;
		for (size_t i = 0; i < topo->nr_cpus; i++)
			if (topo->cpus[i].domain == (int)d)
				tp_cpuset_add(out, topo->cpus[i].cpu);
		return 0;
	}
	/* the left number of a range: at most 31 bytes, as the grammar says (docs) */
	dash = strchr(tok, '-');
	if (dash && dash - tok >= 32)
		return cpulist_error(topo, err, 2, tok);
	if (parse_cpu_range(tok, &end, &first, &last) < 0 || *end)
		return cpulist_error(topo, err, 2, tok);
	if (first > last)
		return tp_error_set(err, -EINVAL, "invalid cpu range '%s' (the first cpu is above the last)",
				    tok);
	return add_range(topo, first, last, out, err);
}

int tp_parse_cpulist(const char *text, const struct tp_snapshot *topo, struct tp_cpuset *out,
		     struct tp_error *err)
{
	char tok[64];
	const char *p = text;

	tp_cpuset_zero(out);
	if (!*text)
		return cpulist_error(topo, err, 1, "");
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		int rc;

		if (n == 0 || n >= sizeof(tok)) {
			snprintf(tok, sizeof(tok), "%.*s", (int)(n ? n : 0), p);
			tp_cpuset_zero(out);
			if (n == 0)
				return tp_error_set(err, -EINVAL, "invalid cpu list '%s' (empty element)", text);
			return cpulist_error(topo, err, 2, tok);
		}
		memcpy(tok, p, n);
		tok[n] = '\0';
		rc = parse_cpulist_token(tok, topo, out, err);
		if (rc < 0) {
			tp_cpuset_zero(out);
			return rc;
		}
		if (!comma)
			return 0;
		p = comma + 1;
	}
}
