// SPDX-License-Identifier: MIT
/*
 * util/intparse.c: strict decimal integers and CPU ranges.
 *
 * Byte 0 picks the parser, the rest (up to its first NUL) is the text:
 *   0: parse_u64   1: parse_i64   2: parse_cpu_range
 * Properties:
 * - agreement with a reference written from the grammar (ASCII digits, an optional '-'
 *   for parse_i64, nothing else) that decides the range by comparing digit strings;
 * - round trip: a parsed value printed back is the text without its leading zeros;
 * - nothing written on error; parse_cpu_range stops where the grammar says.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>

#include "fuzz_common.h"
#include "intparse.h"

/* s[0..n) is one or more ASCII digits. */
static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* The digits s[0..n) without leading zeros ("0" for zero). */
static const char *significant(const char *s, size_t *n)
{
	while (*n > 1 && *s == '0') {
		s++;
		(*n)--;
	}
	return s;
}

/* digits s[0..n) <= limit (decimal, no leading zeros), by length then lexicographically. */
static bool fits(const char *s, size_t n, const char *limit)
{
	size_t ln = strlen(limit);

	s = significant(s, &n);
	return n < ln || (n == ln && memcmp(s, limit, n) <= 0);
}

static void check_u64(const char *text)
{
	size_t n = strlen(text);
	uint64_t v = 12345;
	int rc = parse_u64(text, &v);
	int want = !all_digits(text, n) ? -EINVAL : fits(text, n, "18446744073709551615") ? 0 : -ERANGE;
	char back[32];

	FUZZ_CHECK(rc == want, "parse_u64('%s') = %d, the grammar says %d", text, rc, want);
	if (rc < 0) {
		FUZZ_CHECK(v == 12345, "parse_u64('%s') wrote a value on error", text);
		return;
	}
	snprintf(back, sizeof(back), "%" PRIu64, v);
	const char *sig = significant(text, &n);
	FUZZ_CHECK(strlen(back) == n && !memcmp(back, sig, n), "'%s' -> %s", text, back);
}

static void check_i64(const char *text)
{
	bool neg = *text == '-';
	const char *digits = text + neg;
	size_t n = strlen(digits);
	int64_t v = 12345;
	int rc = parse_i64(text, &v);
	int want = !all_digits(digits, n) ? -EINVAL :
		   fits(digits, n, neg ? "9223372036854775808" : "9223372036854775807") ? 0 : -ERANGE;
	char back[32];

	FUZZ_CHECK(rc == want, "parse_i64('%s') = %d, the grammar says %d", text, rc, want);
	if (rc < 0) {
		FUZZ_CHECK(v == 12345, "parse_i64('%s') wrote a value on error", text);
		return;
	}
	FUZZ_CHECK(neg ? v <= 0 : v >= 0, "parse_i64('%s') = %" PRId64 ": wrong sign", text, v);
	snprintf(back, sizeof(back), "%" PRIu64, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	const char *sig = significant(digits, &n);
	FUZZ_CHECK(strlen(back) == n && !memcmp(back, sig, n), "'%s' -> %" PRId64, text, v);
}

static void check_cpu_range(const char *text)
{
	const char *end = NULL, *dash;
	uint64_t a = 1, b = 2, ra, rb;
	size_t n1, n2 = 0;
	int rc = parse_cpu_range(text, &end, &a, &b), want;
	char back[48];

	/* reference: the digits, then "-" and digits when a '-' follows them */
	n1 = strspn(text, "0123456789");
	dash = text + n1;
	if (n1 && *dash == '-')
		n2 = strspn(dash + 1, "0123456789");
	if (n1 == 0 || (*dash == '-' && n2 == 0))
		want = -EINVAL;
	else if (!fits(text, n1, "18446744073709551615") ||
		 (*dash == '-' && !fits(dash + 1, n2, "18446744073709551615")))
		want = -ERANGE;
	else
		want = 0;
	FUZZ_CHECK(rc == want, "parse_cpu_range('%s') = %d, the grammar says %d", text, rc, want);
	if (rc < 0) {
		FUZZ_CHECK(a == 1 && b == 2 && !end, "parse_cpu_range('%s') wrote on error", text);
		return;
	}
	FUZZ_CHECK(end == (*dash == '-' ? dash + 1 + n2 : dash), "parse_cpu_range('%s') stopped "
		   "at %zu", text, (size_t)(end - text));
	FUZZ_CHECK(*dash == '-' || a == b, "'%s': a single cpu is a range of one", text);
	/* round trip through the kernel's own way of writing a range */
	snprintf(back, sizeof(back), a == b && *dash != '-' ? "%" PRIu64 : "%" PRIu64 "-%" PRIu64,
		 a, b);
	end = NULL;
	FUZZ_CHECK(parse_cpu_range(back, &end, &ra, &rb) == 0 && !*end && ra == a && rb == b,
		   "'%s' written as '%s' does not parse back", text, back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	text = fuzz_cstring(data + 1, size - 1);
	switch (data[0] % 3) {
	case 0:
		check_u64(text);
		break;
	case 1:
		check_i64(text);
		break;
	default:
		check_cpu_range(text);
		break;
	}
	free(text);
	return 0;
}
