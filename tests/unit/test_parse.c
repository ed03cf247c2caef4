// SPDX-License-Identifier: MIT
/* Parsers: every accepted form, and the exact message for what is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <thermpress/thermpress.h>

/* hikey960-like topology: 0-3 little (462, 1844 MHz), 4-7 big (1024, 2362 MHz). */
static struct tp_cpu cpus[8];
static struct tp_domain domains[2] = { { 0, "little" }, { 4, "big" } };
static struct tp_snapshot topo;

static int setup(void **state)
{
	for (int i = 0; i < 8; i++) {
		cpus[i] = (struct tp_cpu){
			.cpu = i, .online = 1, .domain = i < 4 ? 0 : 1,
			.max_capacity = i < 4 ? 462 : 1024,
			.max_freq_khz = i < 4 ? 1844000 : 2362000,
		};
		cpus[i].capped_freq_khz = cpus[i].max_freq_khz;
	}
	topo = (struct tp_snapshot){ .nr_cpus = 8, .cpus = cpus, .nr_domains = 2, .domains = domains };
	return 0;
}

static void expect_cpus(const char *text, const char *want)
{
	struct tp_cpuset set;
	struct tp_error err = { 0 };
	char got[64];

	assert_int_equal(tp_parse_cpulist(text, &topo, &set, &err), 0);
	tp_cpuset_format(&set, got, sizeof(got));
	assert_string_equal(got, want);
}

static void expect_cpus_error(const char *text, const char *msg)
{
	struct tp_cpuset set;
	struct tp_error err = { 0 };

	assert_int_equal(tp_parse_cpulist(text, &topo, &set, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
	assert_int_equal(tp_cpuset_count(&set), 0);
}

static void test_cpulist(void **state)
{
	expect_cpus("0", "0");
	expect_cpus("0-3,6", "0-3,6");
	expect_cpus("7,0,3-4", "0,3-4,7");
	expect_cpus("all", "0-7");
	expect_cpus("big", "4-7");
	expect_cpus("little,7", "0-3,7");
	expect_cpus("2-2", "2");
	expect_cpus_error("9", "cpu 9 does not exist (online: 0-7)");
	expect_cpus_error("0-3,99", "cpu 99 does not exist (online: 0-7)");
	expect_cpus_error("6-9", "cpu 8 does not exist (online: 0-7)");
	expect_cpus_error("x",
		"invalid cpu list token 'x' (valid: numbers and ranges like 0-3,6, all, little, big)");
	expect_cpus_error("1,,2", "invalid cpu list '1,,2' (empty element)");
	expect_cpus_error("1,", "invalid cpu list '1,' (empty element)");
	expect_cpus_error("5-3", "invalid cpu range '5-3' (the first cpu is above the last)");
	expect_cpus_error("-1",
		"invalid cpu list token '-1' (valid: numbers and ranges like 0-3,6, all, little, big)");
	expect_cpus_error("+1",
		"invalid cpu list token '+1' (valid: numbers and ranges like 0-3,6, all, little, big)");
	expect_cpus_error(" 1",
		"invalid cpu list token ' 1' (valid: numbers and ranges like 0-3,6, all, little, big)");
	expect_cpus_error("", "empty cpu list (valid: numbers and ranges like 0-3,6, all, little, big)");
	expect_cpus_error("99999999999999999999",
		"invalid cpu list token '99999999999999999999' (valid: numbers and ranges like 0-3,6, all, little, big)");
	cpus[6].online = 0;
	cpus[7].online = 0;
	expect_cpus_error("8", "cpu 8 does not exist (online: 0-5, offline: 6-7)");
	cpus[6].online = 1;
	cpus[7].online = 1;
}

static void expect_khz(const char *text, uint64_t want)
{
	uint64_t got = 0;
	struct tp_error err = { 0 };

	assert_int_equal(tp_parse_freq_khz(text, &got, &err), 0);
	assert_int_equal(got, want);
}

static void expect_khz_error(const char *text)
{
	uint64_t got = 12345;
	struct tp_error err = { 0 };

	assert_int_equal(tp_parse_freq_khz(text, &got, &err), -EINVAL);
	assert_int_equal(got, 12345);
	assert_non_null(strstr(err.msg, text));
}

static void test_freq(void **state)
{
	expect_khz("2362000", 2362000);
	expect_khz("2.36GHz", 2360000);
	expect_khz("2.362ghz", 2362000);
	expect_khz("1800MHz", 1800000);
	expect_khz("1800000kHz", 1800000);
	expect_khz("1209.6MHz", 1209600);
	expect_khz("900000000Hz", 900000);
	expect_khz_error("0");
	expect_khz_error("0MHz");
	expect_khz_error("");
	expect_khz_error("MHz");
	expect_khz_error("1.5");
	expect_khz_error("1500Hz");
	expect_khz_error("1800 MHz");
	expect_khz_error("1800THz");
	expect_khz_error("1.2.3GHz");
	expect_khz_error("-5");
	expect_khz_error("5000000000000");
	expect_khz_error("1.0000000001GHz");
}

static void test_duration(void **state)
{
	uint64_t ns;
	uint32_t ms;
	struct tp_error err;

	assert_int_equal(tp_parse_duration_ns("400ms", 1000000, &ns, &err), 0);
	assert_int_equal(ns, 400000000);
	assert_int_equal(tp_parse_duration_ns("1.5s", 1000000, &ns, &err), 0);
	assert_int_equal(ns, 1500000000);
	assert_int_equal(tp_parse_duration_ns("250", 1000000, &ns, &err), 0);
	assert_int_equal(ns, 250000000);
	assert_int_equal(tp_parse_duration_ns("10ns", 1000000, &ns, &err), 0);
	assert_int_equal(ns, 10);
	assert_int_equal(tp_parse_duration_ns("2min", 1000000, &ns, &err), 0);
	assert_int_equal(ns, 120000000000ull);
	assert_int_equal(tp_parse_duration_ns("3us", 1000000, &ns, &err), 0);
	assert_int_equal(ns, 3000);
	assert_int_equal(tp_parse_duration_ns("0ms", 1000000, &ns, &err), -EINVAL);
	assert_int_equal(tp_parse_duration_ns("1.5ns", 1000000, &ns, &err), -EINVAL);
	assert_string_equal(err.msg, "duration '1.5ns' is not a whole number of ns");
	assert_int_equal(tp_parse_duration_ns("5h", 1000000, &ns, &err), -EINVAL);
	assert_string_equal(err.msg,
		"invalid duration '5h' (a positive number with a unit: 400ms, 1.5s, 250us)");
	assert_int_equal(tp_parse_duration_ns("ms", 1000000, &ns, &err), -EINVAL);
	/* the one rule: without a default unit, a bare number is refused with a hint */
	assert_int_equal(tp_parse_duration_ns("0.5", 0, &ns, &err), -EINVAL);
	assert_string_equal(err.msg, "duration '0.5' has no unit: did you mean 0.5s? (a positive "
			    "number with a unit: 400ms, 1.5s, 250us)");
	assert_int_equal(tp_parse_duration_ns("0", 0, &ns, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid duration '0' (a positive number with a unit: 400ms, "
			    "1.5s, 250us)");
	assert_int_equal(tp_parse_duration_ns("0.5s", 0, &ns, &err), 0);
	assert_int_equal(ns, 500000000);

	assert_int_equal(tp_parse_decay_ms("250", &ms, &err), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(tp_parse_decay_ms("250ms", &ms, &err), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(tp_parse_decay_ms("1s", &ms, &err), 0);
	assert_int_equal(ms, 1000);
	assert_int_equal(tp_parse_decay_ms("0.5s", &ms, &err), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(tp_parse_decay_ms("1.5ms", &ms, &err), -EINVAL);
	assert_string_equal(err.msg, "decay period '1.5ms' is not a whole number of ms");
	assert_int_equal(tp_parse_decay_ms("0", &ms, &err), -EINVAL);
	assert_int_equal(tp_parse_decay_ms("abc", &ms, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid decay period 'abc' (a positive number of ms: 250, 250ms, 1s)");
}

static void test_cap_value(void **state)
{
	struct tp_cap_value v;
	struct tp_error err;
	uint64_t khz;

	assert_int_equal(tp_parse_cap_value("cap=600", &v, &err), 0);
	assert_int_equal(v.kind, TP_CAP_CAPACITY);
	assert_int_equal(v.value, 600);
	assert_int_equal(tp_parse_cap_value("60%", &v, &err), 0);
	assert_int_equal(v.kind, TP_CAP_PERCENT);
	assert_int_equal(v.value, 60);
	assert_int_equal(tp_parse_cap_value("1800MHz", &v, &err), 0);
	assert_int_equal(v.kind, TP_CAP_KHZ);
	assert_int_equal(v.value, 1800000);
	assert_int_equal(tp_parse_cap_value("cap=0", &v, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid capacity 'cap=0' (cap=N with N in 1..1024)");
	assert_int_equal(tp_parse_cap_value("cap=1025", &v, &err), -EINVAL);
	assert_int_equal(tp_parse_cap_value("101%", &v, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid percentage '101%' (1% to 100%)");
	assert_int_equal(tp_parse_cap_value("0%", &v, &err), -EINVAL);
	assert_int_equal(tp_parse_cap_value("%", &v, &err), -EINVAL);
	assert_int_equal(tp_parse_cap_value("fast", &v, &err), -EINVAL);
	assert_string_equal(err.msg,
		"invalid cap value 'fast' (a frequency: 1800000, 1800MHz, 2.36GHz; a capped capacity: cap=600; or a percentage: 60%)");

	/* resolution rounds up so the capped capacity is at least what was asked */
	v = (struct tp_cap_value){ TP_CAP_CAPACITY, 600 };
	assert_int_equal(tp_cap_resolve_khz(&v, &cpus[4], &khz, &err), 0);
	assert_int_equal(khz, 1383985);
	assert_int_equal(1024 - tp_pressure(1024, khz, 2362000), 600);
	v = (struct tp_cap_value){ TP_CAP_CAPACITY, 600 };
	assert_int_equal(tp_cap_resolve_khz(&v, &cpus[0], &khz, &err), -EINVAL);
	assert_string_equal(err.msg, "capacity 600 is above cpu 0's maximum (cap=1..cap=462)");
	v = (struct tp_cap_value){ TP_CAP_PERCENT, 50 };
	assert_int_equal(tp_cap_resolve_khz(&v, &cpus[4], &khz, &err), 0);
	assert_int_equal(khz, 1181000);
	assert_int_equal(tp_pressure(1024, khz, 2362000), 512);
	v = (struct tp_cap_value){ TP_CAP_KHZ, 2362001 };
	assert_int_equal(tp_cap_resolve_khz(&v, &cpus[4], &khz, &err), -EINVAL);
	assert_string_equal(err.msg, "2362001 kHz is above cpu 4's maximum (1..2362000 kHz)");
	for (uint64_t c = 1; c <= 462; c++) {
		v = (struct tp_cap_value){ TP_CAP_CAPACITY, c };
		assert_int_equal(tp_cap_resolve_khz(&v, &cpus[0], &khz, &err), 0);
		assert_true(462 - tp_pressure(462, khz, 1844000) >= c);
		assert_true(462 - tp_pressure(462, khz - 1, 1844000) < c);
	}
}

static void test_pressure(void **state)
{
	assert_int_equal(tp_pressure(1024, 2362000, 2362000), 0);
	assert_int_equal(tp_pressure(1024, 1181000, 2362000), 512);
	assert_int_equal(tp_pressure(462, 922000, 1844000), 231);
	assert_int_equal(tp_pressure(1024, 1, 2362000), 1024);
	assert_int_equal(tp_pressure(462, 1000000, 1844000), 462 - 462 * 1000000 / 1844000);
	/* found by fuzz_parse: max_capacity * capped_khz overflowed 64 bits */
	assert_int_equal(tp_pressure(435, UINT64_C(1880844493789993498), UINT64_C(1880844493790011702)), 1);
}

/* Percentages take any number of digits, as cap= does (a 32-byte copy refused these). */
static void test_percent_digits(void **state)
{
	struct tp_cap_value v = { 0 };
	struct tp_error err = { 0 };

	assert_int_equal(tp_parse_cap_value("00000000000000000000000000000000000000001%", &v, &err), 0);
	assert_int_equal(v.kind, TP_CAP_PERCENT);
	assert_int_equal(v.value, 1);
	assert_int_equal(tp_parse_cap_value("cap=00000000000000000000000000000000000000001", &v, &err), 0);
	assert_int_equal(v.value, 1);
	assert_int_equal(tp_parse_cap_value("100%", &v, &err), 0);
	assert_int_equal(tp_parse_cap_value("101%", &v, &err), -EINVAL);
	assert_int_equal(tp_parse_cap_value("0%", &v, &err), -EINVAL);
	assert_int_equal(tp_parse_cap_value("99999999999999999999999%", &v, &err), -EINVAL);
	assert_int_equal(tp_parse_cap_value("+5%", &v, &err), -EINVAL);
}

/* Frequencies from a file can be any u64 kHz: the arithmetic must not wrap (fuzz_parse). */
static void test_cap_resolve_huge(void **state)
{
	struct tp_cpu cpu = { .cpu = 0, .max_capacity = 1024, .max_freq_khz = INT64_C(1000000000000000000) };
	struct tp_cap_value v = { TP_CAP_CAPACITY, 512 };
	struct tp_error err = { 0 };
	uint64_t khz = 0;

	assert_int_equal(tp_cap_resolve_khz(&v, &cpu, &khz, &err), 0);
	assert_true(khz == UINT64_C(500000000000000000));
	v = (struct tp_cap_value){ TP_CAP_PERCENT, 60 };
	assert_int_equal(tp_cap_resolve_khz(&v, &cpu, &khz, &err), 0);
	assert_true(khz == UINT64_C(600000000000000000));
}

/* A frequency outside the CPU's range is refused whatever its unit, with one range
 * text; a bare number, with a hint where it reads as a slip.  Where the lowest frequency
 * is not known, one below a tenth of the maximum is allowed, with a warning. */
static void test_cap_check_bare(void **state)
{
	struct tp_cpu cpu = { .cpu = 4, .max_capacity = 1024, .max_freq_khz = 2362000,
			      .min_freq_khz = 903000 };
	struct tp_error err = { 0 };
	char warn[256];

	assert_int_equal(tp_cap_check_bare("50", &cpu, warn, sizeof(warn), &err), -EINVAL);
	assert_string_equal(err.msg, "50 kHz is below cpu 4's lowest frequency "
			    "(903000..2362000 kHz); did you mean 50%?");
	assert_int_equal(tp_cap_check_bare("1800", &cpu, warn, sizeof(warn), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "; did you mean 1800MHz?"));
	err.msg[0] = '\0';
	assert_int_equal(tp_cap_check_bare("902999", &cpu, warn, sizeof(warn), &err), -EINVAL);
	assert_null(strstr(err.msg, "did you mean"));
	assert_int_equal(tp_cap_check_bare("903000", &cpu, warn, sizeof(warn), &err), 0);
	assert_string_equal(warn, "");
	/* one range check, one range text, whatever the unit */
	static const char *const below[] = { "600000", "600MHz", "0.6GHz", "600000kHz" };
	for (size_t i = 0; i < sizeof(below) / sizeof(below[0]); i++) {
		assert_int_equal(tp_cap_check_bare(below[i], &cpu, warn, sizeof(warn), &err), -EINVAL);
		assert_string_equal(err.msg, "600000 kHz is below cpu 4's lowest frequency "
				    "(903000..2362000 kHz)");
	}
	assert_int_equal(tp_cap_check_bare("1MHz", &cpu, warn, sizeof(warn), &err), -EINVAL);
	assert_int_equal(tp_cap_check_bare("2.4GHz", &cpu, warn, sizeof(warn), &err), -EINVAL);
	assert_string_equal(err.msg, "2400000 kHz is above cpu 4's maximum (903000..2362000 kHz)");
	assert_int_equal(tp_cap_check_bare("903MHz", &cpu, warn, sizeof(warn), &err), 0);
	assert_int_equal(tp_cap_check_bare("50kHz", &cpu, warn, sizeof(warn), &err), -EINVAL);
	assert_int_equal(tp_cap_check_bare("50%", &cpu, warn, sizeof(warn), &err), 0);
	assert_int_equal(tp_cap_check_bare("10%", &cpu, warn, sizeof(warn), &err), -EINVAL);
	assert_string_equal(err.msg, "10% (236200 kHz) is below cpu 4's lowest frequency "
			    "(903000..2362000 kHz)");
	assert_int_equal(tp_cap_check_bare("cap=500", &cpu, warn, sizeof(warn), &err), 0);
	assert_int_equal(tp_cap_check_bare("cap=50", &cpu, warn, sizeof(warn), &err), -EINVAL);
	assert_string_equal(warn, "");

	cpu.min_freq_khz = TP_NONE;
	assert_int_equal(tp_cap_check_bare("50", &cpu, warn, sizeof(warn), &err), 0);
	assert_string_equal(warn, "50 kHz is below a tenth of cpu 4's maximum (2362000 kHz), "
			    "and its lowest frequency is unknown; did you mean 50%?");
	assert_int_equal(tp_cap_check_bare("236200", &cpu, warn, sizeof(warn), &err), 0);
	assert_string_equal(warn, "");	/* a tenth: plausible */
	assert_int_equal(tp_cap_check_bare("50kHz", &cpu, warn, sizeof(warn), &err), 0);
	assert_string_equal(warn, "50 kHz is below a tenth of cpu 4's maximum (2362000 kHz), "
			    "and its lowest frequency is unknown");
	assert_int_equal(tp_cap_check_bare("2.4GHz", &cpu, warn, sizeof(warn), &err), -EINVAL);
	assert_string_equal(err.msg, "2400000 kHz is above cpu 4's maximum (1..2362000 kHz)");
}

static void test_cpuset_format(void **state)
{
	struct tp_cpuset s;
	char buf[16];

	tp_cpuset_zero(&s);
	assert_int_equal(tp_cpuset_format(&s, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	tp_cpuset_add(&s, 0);
	tp_cpuset_add(&s, 63);
	tp_cpuset_add(&s, 64);
	tp_cpuset_add(&s, TP_MAX_CPUS - 1);
	tp_cpuset_add(&s, TP_MAX_CPUS);	/* ignored */
	assert_int_equal(tp_cpuset_count(&s), 4);
	assert_int_equal(tp_cpuset_next(&s, 1), 63);
	assert_int_equal(tp_cpuset_next(&s, 65), TP_MAX_CPUS - 1);
	/* too small a buffer: the length needed, and a terminated prefix */
	assert_int_equal(tp_cpuset_format(&s, buf, sizeof(buf)), strlen("0,63-64,8191"));
	assert_string_equal(buf, "0,63-64,8191");
	assert_int_equal(tp_cpuset_format(&s, buf, 4), strlen("0,63-64,8191"));
	assert_string_equal(buf, "0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_freq),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_cap_value),
		cmocka_unit_test(test_pressure),
		cmocka_unit_test(test_cap_resolve_huge),
		cmocka_unit_test(test_cap_check_bare),
		cmocka_unit_test(test_percent_digits),
		cmocka_unit_test(test_cpuset_format),
	};
	return cmocka_run_group_tests_name("parse", tests, setup, NULL);
}
