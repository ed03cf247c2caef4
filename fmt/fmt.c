/* SPDX-License-Identifier: MIT */
/* One written form per fact (fmt.h, docs/values.md). */
#include <stdarg.h>
#include <stdio.h>

#include <thermpress/thermpress.h>

#include "fmt.h"

/* snprintf, but all or nothing: a text that does not fit leaves "" (fmt.h). */
__attribute__((format(printf, 3, 4)))
static const char *put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!len)
		return buf;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
	return buf;
}

/* |v| without overflow at INT64_MIN. */
static uint64_t magnitude(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

const char *fmt_value(char *buf, size_t len, int64_t v)
{
	if (v == TP_NONE)
		return put(buf, len, "%s", FMT_NONE);
	return put(buf, len, "%lld", (long long)v);
}

const char *fmt_estimated(char *buf, size_t len, int64_t v, bool estimated)
{
	if (v == TP_NONE || !estimated)
		return fmt_value(buf, len, v);
	return put(buf, len, "%s%lld", FMT_ESTIMATE, (long long)v);
}

const char *fmt_mhz(char *buf, size_t len, int64_t khz)
{
	uint64_t m = magnitude(khz);
	const char *sign = khz < 0 ? "-" : "";
	char frac[4];
	int digits = 3;
	unsigned f = (unsigned)(m % 1000);

	if (khz == TP_NONE)
		return put(buf, len, "%s", FMT_NONE);
	if (!f)
		return put(buf, len, "%s%llu", sign, (unsigned long long)(m / 1000));
	/* the kHz as three decimals of the MHz, trailing zeros dropped: nothing is lost */
	for (; f % 10 == 0; f /= 10)
		digits--;
	snprintf(frac, sizeof(frac), "%0*u", digits, f);
	return put(buf, len, "%s%llu.%s", sign, (unsigned long long)(m / 1000), frac);
}

const char *fmt_mhz_pair(char *buf, size_t len, int64_t capped_khz, int64_t max_khz)
{
	char c[32], m[32];

	if (capped_khz == TP_NONE && max_khz == TP_NONE)
		return put(buf, len, "%s", FMT_NONE);
	return put(buf, len, "%s/%s", fmt_mhz(c, sizeof(c), capped_khz),
		   fmt_mhz(m, sizeof(m), max_khz));
}

const char *fmt_decay(char *buf, size_t len, int64_t decay_ms)
{
	if (decay_ms == TP_NONE)
		return put(buf, len, "%s", FMT_NONE);
	if (decay_ms == 0)
		return put(buf, len, "none");
	return put(buf, len, "%lld ms", (long long)decay_ms);
}

const char *fmt_time(char *buf, size_t len, uint64_t ns)
{
	return put(buf, len, "%llu.%03llu s", (unsigned long long)(ns / 1000000000ull),
		   (unsigned long long)(ns % 1000000000ull / 1000000ull));
}

const char *fmt_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct { uint64_t ns; const char *unit; } units[] = {
		{ 1000000000ull, "s" }, { 1000000ull, "ms" }, { 1000ull, "us" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns % units[i].ns == 0)
			return put(buf, len, "%llu %s", (unsigned long long)(ns / units[i].ns),
				   units[i].unit);
	return put(buf, len, "%llu ns", (unsigned long long)ns);
}

/* v / unit rounded to the nearest tenth, as "7" or "7.5" (the tenth dropped when 0). */
static const char *put_tenths(char *buf, size_t len, uint64_t v, uint64_t unit,
			      const char *name)
{
	uint64_t t = v / (unit / 10) + (v % (unit / 10) >= unit / 20);

	if (t % 10 == 0)
		return put(buf, len, "%llu %s", (unsigned long long)(t / 10), name);
	return put(buf, len, "%llu.%llu %s", (unsigned long long)(t / 10),
		   (unsigned long long)(t % 10), name);
}

const char *fmt_span(char *buf, size_t len, uint64_t ns)
{
	const uint64_t ms = 1000000ull, s = 1000 * ms, min = 60 * s;

	if (ns < s - ms / 2)
		return put(buf, len, "%llu ms", (unsigned long long)((ns + ms / 2) / ms));
	if (ns < 10 * s - s / 20)
		return put_tenths(buf, len, ns, s, "s");
	if (ns < 120 * s - s / 2)
		return put(buf, len, "%llu s", (unsigned long long)((ns + s / 2) / s));
	if (ns < 10 * min - min / 20)
		return put_tenths(buf, len, ns, min, "min");
	return put(buf, len, "%llu min", (unsigned long long)(ns / min + (ns % min >= min / 2)));
}

const char *fmt_temp(char *buf, size_t len, int64_t mc)
{
	uint64_t m = magnitude(mc);

	if (mc == TP_NONE)
		return put(buf, len, "%s", FMT_NONE);
	return put(buf, len, "%s%llu.%llu C", mc < 0 ? "-" : "",
		   (unsigned long long)(m / 1000), (unsigned long long)(m % 1000 / 100));
}
