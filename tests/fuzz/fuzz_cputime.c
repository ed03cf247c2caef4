// SPDX-License-Identifier: MIT
/*
 * core/cputime.c: /proc/stat text (the whole input, not NUL-terminated, in a buffer of
 * its exact size).  Properties: accepted exactly when a plain reference written from
 * the grammar in thermpress/cputime.h accepts, with the same CPUs and sums; busy never
 * above total; CPUs ascending; nothing counted on error; the entries printed back as
 * /proc/stat lines parse to the same entries.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>

#include <thermpress/cputime.h>

#include "fuzz_common.h"

#define MAX 16

typedef unsigned __int128 u128;

struct ref {
	int cpu;
	u128 busy, total;
};

/* The digits s[0..n) as a number, or false (not all digits, none, or above 2^100). */
static bool ref_number(const char *s, size_t n, u128 *v)
{
	*v = 0;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (*v >> 100)
			return true;	/* far too large: stays above UINT64_MAX */
		*v = *v * 10 + (u128)(s[i] - '0');
	}
	return true;
}

/* The reference: the entries, or -1 for any text the grammar refuses. */
static int reference(const char *text, size_t len, struct ref *out)
{
	int n = 0;

	for (size_t p = 0; p < len;) {
		size_t e = p, t, f = 0;
		u128 v[10] = { 0 }, x;

		while (e < len && text[e] != '\n')
			e++;
		if (e - p > 3 && !memcmp(text + p, "cpu", 3) && text[p + 3] >= '0' && text[p + 3] <= '9') {
			/* tokens split at every space; empty ones (runs of spaces) are nothing */
			for (t = p + 3; t < e && text[t] != ' '; t++)
				;
			if (!ref_number(text + p + 3, t - p - 3, &x) || x > INT_MAX)
				return -1;
			out[n].cpu = (int)x;
			while (t < e) {
				size_t s = ++t;

				while (t < e && text[t] != ' ')
					t++;
				if (t == s)
					continue;
				if (!ref_number(text + s, t - s, &x) || x > UINT64_MAX)
					return -1;
				if (f < 10)
					v[f] = x;
				f++;
			}
			if (f < 4 || (n && out[n].cpu <= out[n - 1].cpu) || n == MAX)
				return -1;
			out[n].busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
			out[n].total = out[n].busy + v[3] + v[4];
			if (out[n].busy > UINT64_MAX || out[n].total > UINT64_MAX)
				return -1;
			n++;
		}
		p = e + 1;
	}
	return n ? n : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1), back[MAX * 80];
	struct tp_cpu_ticks t[MAX], again[MAX];
	struct ref ref[MAX];
	struct tp_error err = { 0 };
	size_t n = 99, m, l = 0;
	int rc, want;

	if (!text)
		abort();
	memcpy(text, data, size);
	rc = tp_parse_proc_stat(text, size, t, MAX, &n, &err);
	want = reference(text, size, ref);
	free(text);
	if (rc < 0) {
		FUZZ_CHECK(rc == -EINVAL || rc == -ERANGE || rc == -ENOSPC, "rc %d", rc);
		FUZZ_CHECK(n == 0 && err.msg[0], "error %d with count %zu or no message", rc, n);
		FUZZ_CHECK(want < 0, "refused (%s), the reference takes %d cpus", err.msg, want);
		return 0;
	}
	FUZZ_CHECK(want >= 0 && (size_t)want == n, "took %zu cpus, the reference %d", n, want);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(t[i].cpu == ref[i].cpu && t[i].busy == ref[i].busy &&
			   t[i].total == ref[i].total, "cpu entry %zu differs from the reference", i);
		FUZZ_CHECK(t[i].busy <= t[i].total, "cpu%d busy above total", t[i].cpu);
		FUZZ_CHECK(!i || t[i].cpu > t[i - 1].cpu, "cpus not ascending");
		/* printed back as a line of 4 fields: user = busy, idle = the rest */
		l += (size_t)snprintf(back + l, sizeof(back) - l, "cpu%d %" PRIu64 " 0 0 %" PRIu64 "\n",
				      t[i].cpu, t[i].busy, t[i].total - t[i].busy);
	}
	FUZZ_CHECK(tp_parse_proc_stat(back, l, again, MAX, &m, &err) == 0 && m == n,
		   "printed back does not parse: %s", err.msg);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(again[i].cpu == t[i].cpu && again[i].busy == t[i].busy &&
			   again[i].total == t[i].total, "cpu entry %zu changed in the round trip", i);
	return 0;
}
