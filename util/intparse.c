// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>

#include "intparse.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int parse_u64_prefix(const char *text, const char **end, uint64_t *value)
{
	const char *p = text;
	uint64_t v = 0;

	if (!is_digit(*p))
		return -EINVAL;
	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*end = p;
	*value = v;
	return 0;
}

int parse_u64(const char *text, uint64_t *value)
{
	const char *end;
	uint64_t v;
	int rc = parse_u64_prefix(text, &end, &v);

	if (rc < 0)
		return rc;
	if (*end)
		return -EINVAL;
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
	const char *p;
	uint64_t a, b;
	int rc = parse_u64_prefix(text, &p, &a);

	if (rc < 0)
		return rc;
	b = a;
	if (*p == '-') {
		rc = parse_u64_prefix(p + 1, &p, &b);
		if (rc < 0)
			return rc;
	}
	*end = p;
	*first = a;
	*last = b;
	return 0;
}
