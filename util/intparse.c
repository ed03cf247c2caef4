// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>

#include "intparse.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The digits at text: *end after them (text when none); -ERANGE when they overflow. */
static int scan_digits(const char *text, const char **end, uint64_t *value)
{
	const char *p = text;
	uint64_t v = 0;
	int rc = 0;

	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			rc = -ERANGE;
		v = v * 10 + d;
	}
	*end = p;
	*value = v;
	return rc;
}

int parse_u64_prefix(const char *text, const char **end, uint64_t *value)
{
	const char *p;
	uint64_t v;
	int rc = scan_digits(text, &p, &v);

	if (p == text)
		return -EINVAL;
	if (rc < 0)
		return rc;
	*end = p;
	*value = v;
	return 0;
}

int parse_u64(const char *text, uint64_t *value)
{
	const char *p;
	uint64_t v;
	int rc = scan_digits(text, &p, &v);

	/* not a number at all is -EINVAL, whatever the size of its digits */
	if (p == text || *p)
		return -EINVAL;
	if (rc < 0)
		return rc;
	*value = v;
	return 0;
}

int parse_i64(const char *text, int64_t *value)
{
	int neg = *text == '-';
	uint64_t v;
	int rc = parse_u64(text + neg, &v);

	if (rc < 0)
		return rc;
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return -ERANGE;
	*value = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int parse_cpu_range(const char *text, const char **end, uint64_t *first, uint64_t *last)
{
	const char *p, *q;
	uint64_t a, b;
	int rc = scan_digits(text, &p, &a), rc2 = 0;

	if (p == text)
		return -EINVAL;
	b = a;
	if (*p == '-') {
		rc2 = scan_digits(p + 1, &q, &b);
		if (q == p + 1)
			return -EINVAL;
		p = q;
	}
	/* malformed before too large, as parse_u64 */
	if (rc < 0 || rc2 < 0)
		return -ERANGE;
	*end = p;
	*first = a;
	*last = b;
	return 0;
}
