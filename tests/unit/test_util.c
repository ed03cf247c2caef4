// SPDX-License-Identifier: MIT
/*
 * util/: the shared helpers (util/README.md): strict integers and CPU ranges (every
 * boundary, overflow, round trips), the growable array, trim, the monotonic clock.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "clock.h"
#include "grow.h"
#include "intparse.h"
#include "trim.h"

static void test_parse_u64(void **state)
{
	uint64_t v = 7;

	assert_int_equal(parse_u64("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(parse_u64("42", &v), 0);
	assert_true(v == 42);
	assert_int_equal(parse_u64("007", &v), 0);
	assert_true(v == 7);
	assert_int_equal(parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	v = 5;
	assert_int_equal(parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(parse_u64("99999999999999999999999", &v), -ERANGE);
	assert_true(v == 5);	/* untouched on error */
	const char *bad[] = { "", " 1", "1 ", "+1", "-1", "0x10", "1a", "1\n", "１" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_u64(bad[i], &v), -EINVAL);
	assert_true(v == 5);
}

static void test_parse_i64(void **state)
{
	int64_t v = 3;

	assert_int_equal(parse_i64("-42", &v), 0);
	assert_true(v == -42);
	assert_int_equal(parse_i64("-0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(parse_i64("9223372036854775807", &v), 0);
	assert_true(v == INT64_MAX);
	assert_int_equal(parse_i64("-9223372036854775808", &v), 0);
	assert_true(v == INT64_MIN);
	v = 3;
	assert_int_equal(parse_i64("9223372036854775808", &v), -ERANGE);
	assert_int_equal(parse_i64("-9223372036854775809", &v), -ERANGE);
	assert_int_equal(parse_i64("-18446744073709551616", &v), -ERANGE);
	const char *bad[] = { "", "-", "--1", "+1", " -1", "- 1", "1-", "1.0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_i64(bad[i], &v), -EINVAL);
	assert_true(v == 3);
}

/* Every value written with PRIu64/PRId64 parses back to itself. */
static void test_integer_round_trip(void **state)
{
	const uint64_t u[] = { 0, 1, 9, 10, 99, 1000000007, UINT32_MAX, (uint64_t)INT64_MAX,
			       UINT64_MAX - 1, UINT64_MAX };
	const int64_t s[] = { INT64_MIN, INT64_MIN + 1, -1000000007, -1, 0, 1, INT64_MAX };
	char buf[32];

	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		uint64_t back;

		snprintf(buf, sizeof(buf), "%" PRIu64, u[i]);
		assert_int_equal(parse_u64(buf, &back), 0);
		assert_true(back == u[i]);
	}
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		int64_t back;

		snprintf(buf, sizeof(buf), "%" PRId64, s[i]);
		assert_int_equal(parse_i64(buf, &back), 0);
		assert_true(back == s[i]);
	}
}

static void test_parse_u64_prefix(void **state)
{
	const char *text = "123,4", *end = NULL;
	uint64_t v;

	assert_int_equal(parse_u64_prefix(text, &end, &v), 0);
	assert_true(v == 123);
	assert_ptr_equal(end, text + 3);
	end = NULL;
	assert_int_equal(parse_u64_prefix(",4", &end, &v), -EINVAL);
	assert_null(end);
	assert_int_equal(parse_u64_prefix("18446744073709551616-", &end, &v), -ERANGE);
	assert_null(end);
}

static void test_parse_cpu_range(void **state)
{
	const char *text, *end;
	uint64_t a, b;

	text = "5";
	assert_int_equal(parse_cpu_range(text, &end, &a, &b), 0);
	assert_true(a == 5 && b == 5 && *end == '\0');
	text = "2-7,9";
	assert_int_equal(parse_cpu_range(text, &end, &a, &b), 0);
	assert_true(a == 2 && b == 7);
	assert_ptr_equal(end, text + 3);
	text = "7-2";	/* the order is the caller's to judge */
	assert_int_equal(parse_cpu_range(text, &end, &a, &b), 0);
	assert_true(a == 7 && b == 2);
	text = "0-3 4";
	assert_int_equal(parse_cpu_range(text, &end, &a, &b), 0);
	assert_string_equal(end, " 4");
	assert_int_equal(parse_cpu_range("", &end, &a, &b), -EINVAL);
	assert_int_equal(parse_cpu_range("-1", &end, &a, &b), -EINVAL);
	assert_int_equal(parse_cpu_range("1-", &end, &a, &b), -EINVAL);
	assert_int_equal(parse_cpu_range("1--2", &end, &a, &b), -EINVAL);
	assert_int_equal(parse_cpu_range("1-+2", &end, &a, &b), -EINVAL);
	assert_int_equal(parse_cpu_range(" 1", &end, &a, &b), -EINVAL);
	assert_int_equal(parse_cpu_range("1-18446744073709551616", &end, &a, &b), -ERANGE);
	assert_int_equal(parse_cpu_range("18446744073709551616", &end, &a, &b), -ERANGE);
}

static void test_array_capacity(void **state)
{
	assert_int_equal(array_capacity(0, 1, 16), 16);
	assert_int_equal(array_capacity(0, 17, 16), 32);
	assert_int_equal(array_capacity(16, 16, 4), 16);	/* enough already */
	assert_int_equal(array_capacity(16, 17, 4), 32);
	assert_int_equal(array_capacity(16, 100, 4), 128);
	assert_int_equal(array_capacity(0, 0, 8), 0);
	assert_int_equal(array_capacity(0, 3, 0), 4);		/* no first: from 1 */
	assert_int_equal(array_capacity(SIZE_MAX / 2 + 1, SIZE_MAX, 1), 0);	/* would overflow */
}

static void test_array_grow(void **state)
{
	int *v = NULL, *nv;
	size_t alloc = 0, n = 0;

	for (int i = 0; i < 1000; i++) {
		nv = array_grow(v, &alloc, n + 1, sizeof(*v), 16);
		assert_non_null(nv);
		v = nv;
		v[n++] = i;
		assert_true(alloc >= n);
		assert_true(alloc == 16 || (alloc & (alloc - 1)) == 0);
	}
	assert_int_equal(alloc, 1024);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(v[i], i);
	/* room already: the same array, no realloc */
	assert_ptr_equal(array_grow(v, &alloc, 1000, sizeof(*v), 16), v);
	/* a size that does not fit: NULL, the array and its capacity untouched */
	assert_null(array_grow(v, &alloc, SIZE_MAX / 2, sizeof(*v), 16));
	assert_int_equal(alloc, 1024);
	assert_int_equal(v[999], 999);
	free(v);
}

static void test_trim(void **state)
{
	char a[] = " \t x y \t\r\n", b[] = "", c[] = " \t\r\n", d[] = "\nx";

	assert_string_equal(trim(a), "x y");
	assert_string_equal(trim(b), "");
	assert_string_equal(trim(c), "");
	assert_string_equal(trim(d), "\nx");	/* a leading line break is not a blank */
}

static void test_mono_ns(void **state)
{
	struct timespec ts, nap = { 0, 2000000 };
	uint64_t a, b, c;

	a = mono_ns();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	nanosleep(&nap, NULL);
	b = mono_ns();
	c = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	assert_true(a <= c && c <= b);
	assert_true(b - a >= 2000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_i64),
		cmocka_unit_test(test_integer_round_trip),
		cmocka_unit_test(test_parse_u64_prefix),
		cmocka_unit_test(test_parse_cpu_range),
		cmocka_unit_test(test_array_capacity),
		cmocka_unit_test(test_array_grow),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_mono_ns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
