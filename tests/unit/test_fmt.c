// SPDX-License-Identifier: MIT
/*
 * fmt/fmt.h, the one written form of each fact that show and top share: typical values,
 * the missing value (TP_NONE), boundaries, and every buffer size from 0 up (all or
 * nothing, never a byte past len).  Frequencies are also read back with the parser
 * `cap set` uses, so the MHz written loses no kHz.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <thermpress/thermpress.h>

#include "fmt.h"

/*
 * EXPECT(WANT, CALL): CALL (which writes into b, of size n) gives WANT when it fits,
 * "" when it does not, nothing at all for n == 0, and never touches b[n] or beyond.
 */
#define EXPECT(want, call) do {							\
	const char *want_ = (want);						\
	size_t wl_ = strlen(want_);						\
	for (size_t n = 0; n <= wl_ + 2; n++) {					\
		char b[96];							\
		memset(b, 'X', sizeof(b));					\
		const char *r_ = (call);					\
		assert_ptr_equal(r_, b);					\
		if (n == 0)							\
			assert_int_equal(b[0], 'X');				\
		else if (n > wl_)						\
			assert_string_equal(b, want_);				\
		else								\
			assert_string_equal(b, "");				\
		for (size_t k = n; k < sizeof(b); k++)				\
			assert_int_equal(b[k], 'X');				\
	}									\
} while (0)

static void values(void **state)
{
	EXPECT("0", fmt_value(b, n, 0));
	EXPECT("462", fmt_value(b, n, 462));
	EXPECT("1024", fmt_value(b, n, 1024));
	EXPECT(FMT_NONE, fmt_value(b, n, TP_NONE));
	EXPECT("-", fmt_value(b, n, -1));
	/* only TP_NONE is missing: another negative value is shown, not hidden */
	EXPECT("-2", fmt_value(b, n, -2));
	EXPECT("9223372036854775807", fmt_value(b, n, INT64_MAX));
	EXPECT("-9223372036854775808", fmt_value(b, n, INT64_MIN));
}

static void estimates(void **state)
{
	EXPECT("~161", fmt_estimated(b, n, 161, true));
	EXPECT("161", fmt_estimated(b, n, 161, false));
	EXPECT("~0", fmt_estimated(b, n, 0, true));
	EXPECT("~1024", fmt_estimated(b, n, 1024, true));
	/* a missing value is not an estimate of anything */
	EXPECT("-", fmt_estimated(b, n, TP_NONE, true));
	EXPECT("-", fmt_estimated(b, n, TP_NONE, false));
	assert_string_equal(FMT_ESTIMATE_NOTE,
			    "~ estimated: the source does not report it, thermpress computed it");
}

static void frequencies(void **state)
{
	EXPECT("1844", fmt_mhz(b, n, 1844000));
	EXPECT("1209.6", fmt_mhz(b, n, 1209600));
	EXPECT("1197.4", fmt_mhz(b, n, 1197400));
	EXPECT("1197.403", fmt_mhz(b, n, 1197403));
	EXPECT("1197.04", fmt_mhz(b, n, 1197040));
	EXPECT("1000.001", fmt_mhz(b, n, 1000001));
	EXPECT("0.999", fmt_mhz(b, n, 999));
	EXPECT("0.001", fmt_mhz(b, n, 1));
	EXPECT("0.01", fmt_mhz(b, n, 10));
	EXPECT("0.1", fmt_mhz(b, n, 100));
	EXPECT("0", fmt_mhz(b, n, 0));
	EXPECT("-", fmt_mhz(b, n, TP_NONE));
	EXPECT("-1.5", fmt_mhz(b, n, -1500));
	EXPECT("-0.002", fmt_mhz(b, n, -2));
	EXPECT("4294967.295", fmt_mhz(b, n, UINT32_MAX));
	EXPECT("9223372036854775.807", fmt_mhz(b, n, INT64_MAX));
	EXPECT("-9223372036854775.808", fmt_mhz(b, n, INT64_MIN));

	EXPECT("1197.403/1844", fmt_mhz_pair(b, n, 1197403, 1844000));
	EXPECT("1209.6/1209.6", fmt_mhz_pair(b, n, 1209600, 1209600));
	EXPECT("1197.403/1209.6", fmt_mhz_pair(b, n, 1197403, 1209600));
	EXPECT("-", fmt_mhz_pair(b, n, TP_NONE, TP_NONE));
	EXPECT("-/1844", fmt_mhz_pair(b, n, TP_NONE, 1844000));
	EXPECT("1844/-", fmt_mhz_pair(b, n, 1844000, TP_NONE));
}

/* What is written is what `cap set` (and top's c prompt) reads back, to the kHz. */
static void frequencies_read_back(void **state)
{
	char text[48], mhz[32];
	uint64_t khz;

	for (uint64_t v = 1; v <= UINT32_MAX; v = v < 200000 ? v + 1 : v * 3 + 7) {
		snprintf(text, sizeof(text), "%sMHz", fmt_mhz(mhz, sizeof(mhz), (int64_t)v));
		assert_int_equal(tp_parse_freq_khz(text, &khz, NULL), 0);
		assert_int_equal(khz, v);
	}
}

static void decay_periods(void **state)
{
	EXPECT("32 ms", fmt_decay(b, n, 32));
	EXPECT("1 ms", fmt_decay(b, n, 1));
	EXPECT("32768 ms", fmt_decay(b, n, 32768));
	/* instant: no decay period at all, which is a fact, not a missing value */
	EXPECT("none", fmt_decay(b, n, 0));
	EXPECT("-", fmt_decay(b, n, TP_NONE));
	EXPECT("-5 ms", fmt_decay(b, n, -5));
}

static void times(void **state)
{
	EXPECT("0.000 s", fmt_time(b, n, 0));
	EXPECT("10.400 s", fmt_time(b, n, 10400000000ull));
	EXPECT("10.004 s", fmt_time(b, n, 10004000000ull));
	/* to the millisecond, truncated: a clock does not read later than it is */
	EXPECT("10.400 s", fmt_time(b, n, 10400999999ull));
	EXPECT("0.000 s", fmt_time(b, n, 999999));
	EXPECT("0.001 s", fmt_time(b, n, 1000000));
	EXPECT("18446744073.709 s", fmt_time(b, n, UINT64_MAX));
}

static void durations(void **state)
{
	EXPECT("1 s", fmt_duration(b, n, 1000000000ull));
	EXPECT("60 s", fmt_duration(b, n, 60000000000ull));
	EXPECT("200 ms", fmt_duration(b, n, 200000000ull));
	EXPECT("1500 ms", fmt_duration(b, n, 1500000000ull));
	EXPECT("250 us", fmt_duration(b, n, 250000ull));
	EXPECT("7 ns", fmt_duration(b, n, 7));
	EXPECT("1000000001 ns", fmt_duration(b, n, 1000000001ull));
	EXPECT("0 s", fmt_duration(b, n, 0));
	EXPECT("18446744073709551615 ns", fmt_duration(b, n, UINT64_MAX));
}

static void spans(void **state)
{
	EXPECT("0 ms", fmt_span(b, n, 0));
	EXPECT("200 ms", fmt_span(b, n, 200000000ull));
	EXPECT("1 ms", fmt_span(b, n, 500000ull));
	EXPECT("999 ms", fmt_span(b, n, 999400000ull));
	EXPECT("1 s", fmt_span(b, n, 999600000ull));
	EXPECT("1.4 s", fmt_span(b, n, 1400000000ull));
	EXPECT("10 s", fmt_span(b, n, 9960000000ull));
	EXPECT("70 s", fmt_span(b, n, 70261420000ull));
	EXPECT("119 s", fmt_span(b, n, 119400000000ull));
	EXPECT("2 min", fmt_span(b, n, 119600000000ull));
	EXPECT("8.5 min", fmt_span(b, n, 511000000000ull));
	EXPECT("10 min", fmt_span(b, n, 597000000000ull));
	EXPECT("42 min", fmt_span(b, n, 2520000000000ull));
	EXPECT("307445735 min", fmt_span(b, n, UINT64_MAX));
}

static void temperatures(void **state)
{
	EXPECT("45.0 C", fmt_temp(b, n, 45000));
	EXPECT("71.2 C", fmt_temp(b, n, 71234));
	EXPECT("115.0 C", fmt_temp(b, n, 115000));
	EXPECT("0.0 C", fmt_temp(b, n, 0));
	EXPECT("0.9 C", fmt_temp(b, n, 999));
	EXPECT("-5.5 C", fmt_temp(b, n, -5500));
	EXPECT("-0.5 C", fmt_temp(b, n, -500));
	EXPECT("-", fmt_temp(b, n, TP_NONE));
	EXPECT("-0.0 C", fmt_temp(b, n, -2));
	EXPECT("-9223372036854775.8 C", fmt_temp(b, n, INT64_MIN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values),
		cmocka_unit_test(estimates),
		cmocka_unit_test(frequencies),
		cmocka_unit_test(frequencies_read_back),
		cmocka_unit_test(decay_periods),
		cmocka_unit_test(times),
		cmocka_unit_test(durations),
		cmocka_unit_test(spans),
		cmocka_unit_test(temperatures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
