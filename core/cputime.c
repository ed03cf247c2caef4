// SPDX-License-Identifier: MIT
/* Per-CPU busy ticks from /proc/stat under a source's root (thermpress/cputime.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <thermpress/cputime.h>

#include "rootfs.h"
#include "source.h"

/* Fields of a cpuN line: user nice system idle iowait irq softirq steal guest guest_nice. */
enum { F_USER, F_NICE, F_SYSTEM, F_IDLE, F_IOWAIT, F_IRQ, F_SOFTIRQ, F_STEAL, F_COUNTED,
       F_MIN = 4, F_KNOWN = 10 };

/* A run of digits at *p (before end) as a number; advances *p.  0, -EINVAL, -ERANGE. */
static int take_number(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	if (s == end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < end && *s >= '0' && *s <= '9'; s++)
		if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, (uint64_t)(*s - '0'), &n))
			return -ERANGE;
	*p = s;
	*v = n;
	return 0;
}

/* One cpuN line (s just after "cpu", before end): its entry.  0 or -errno with err. */
static int parse_cpu_line(const char *s, const char *end, unsigned line, struct tp_cpu_ticks *t,
			  struct tp_error *err)
{
	uint64_t cpu, f[F_COUNTED] = { 0 }, v;
	size_t nf = 0;
	int rc = take_number(&s, end, &cpu);

	if (rc == -ERANGE || (rc == 0 && cpu > INT_MAX))
		return tp_error_set(err, -ERANGE, "line %u: cpu number out of range (at most %d)",
				    line, INT_MAX);
	if (rc < 0)
		return tp_error_set(err, -EINVAL, "line %u: no cpu number after \"cpu\"", line);
	while (s < end) {
		if (*s != ' ')
			return tp_error_set(err, -EINVAL,
					    "line %u (cpu%u): fields are decimal numbers separated by spaces",
					    line, (unsigned)cpu);
		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;	/* trailing spaces */
		rc = take_number(&s, end, &v);
		if (rc == -ERANGE)
			return tp_error_set(err, -ERANGE, "line %u (cpu%u): field %zu is above %llu",
					    line, (unsigned)cpu, nf + 1, (unsigned long long)UINT64_MAX);
		if (rc < 0)
			return tp_error_set(err, -EINVAL,
					    "line %u (cpu%u): field %zu is not a decimal number", line,
					    (unsigned)cpu, nf + 1);
		if (nf < F_COUNTED)
			f[nf] = v;
		nf++;
	}
	if (nf < F_MIN)
		return tp_error_set(err, -EINVAL,
				    "line %u (cpu%u): %zu fields (user nice system idle at least)",
				    line, (unsigned)cpu, nf);
	uint64_t busy = 0, total;

	for (int i = 0; i < F_COUNTED; i++)
		if (i != F_IDLE && i != F_IOWAIT && __builtin_add_overflow(busy, f[i], &busy))
			goto overflow;
	if (__builtin_add_overflow(busy, f[F_IDLE], &total) ||
	    __builtin_add_overflow(total, f[F_IOWAIT], &total))
		goto overflow;
	t->cpu = (int)cpu;
	t->busy = busy;
	t->total = total;
	return 0;
overflow:
	return tp_error_set(err, -ERANGE, "line %u (cpu%u): the fields add up to more than %llu",
			    line, (unsigned)cpu, (unsigned long long)UINT64_MAX);
}

int tp_parse_proc_stat(const char *text, size_t len, struct tp_cpu_ticks *out, size_t max,
		       size_t *count, struct tp_error *err)
{
	const char *p = text, *end = text + len;
	unsigned line = 0;
	size_t n = 0;

	*count = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct tp_cpu_ticks t;
		int rc;

		if (!eol)
			eol = end;
		line++;
		/* "cpuN ...": the total line "cpu  ..." and every other line are skipped */
		if (eol - p > 3 && !memcmp(p, "cpu", 3) && p[3] >= '0' && p[3] <= '9') {
			rc = parse_cpu_line(p + 3, eol, line, &t, err);
			if (rc < 0)
				return rc;
			if (n && t.cpu <= out[n - 1].cpu)
				return tp_error_set(err, -EINVAL,
						    "line %u: cpu%d after cpu%d (the kernel lists cpus in ascending order, once)",
						    line, t.cpu, out[n - 1].cpu);
			if (n == max)
				return tp_error_set(err, -ENOSPC, "more than %zu cpus", max);
			out[n++] = t;
		}
		p = eol + 1;
	}
	if (!n)
		return tp_error_set(err, -EINVAL, "no cpuN line (per-cpu times)");
	*count = n;
	return 0;
}

/* The whole of fd, NUL-terminated; /proc files say size 0, so read until EOF. */
static int read_all(int fd, char **text, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap), *grown;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (cap - n < 2) {
			if (cap >= ((size_t)64 << 20)) {
				free(buf);
				return -EFBIG;
			}
			grown = realloc(buf, cap * 2);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int tp_cpu_ticks_read(struct tp_source *src, struct tp_cpu_ticks *out, size_t max,
		      size_t *count, struct tp_error *err)
{
	struct tp_source_info info;
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	*count = 0;
	if (src->kind == TP_SOURCE_SIM ||
	    (tp_source_info(src, &info, NULL) == 0 && info.simulated))
		return tp_error_set(err, -ENOTSUP,
				    "%s: its cpus are simulated, not the ones /proc/stat counts",
				    src->description);
	fd = tp_root_open_file(src->root, "proc/stat", O_RDONLY);
	if (fd < 0)
		return tp_error_set(err, fd, "cannot open %s/proc/stat: %s", src->root,
				    strerror(-fd));
	rc = read_all(fd, &text, &len);
	close(fd);
	if (rc < 0)
		return tp_error_set(err, rc, "cannot read %s/proc/stat: %s", src->root, strerror(-rc));
	rc = tp_parse_proc_stat(text, len, out, max, count, err);
	free(text);
	if (rc < 0 && err) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg);
		tp_error_set(err, rc, "%s/proc/stat: %s", src->root, why);
	}
	return rc;
}

/* t(0.975, df) for df 1..30 (two-sided 95%), from the t distribution's quantiles. */
static const double t975[] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double tp_student_t975(size_t df)
{
	if (df == 0)
		return 0;
	if (df <= sizeof(t975) / sizeof(t975[0]))
		return t975[df - 1];
	return 1.96;	/* the normal quantile: close enough above 30 */
}

/* Newton's square root: the library does not link libm for one call. */
static double root(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++)
		r = (r + x / r) / 2;
	return r;
}

void tp_mean_ci95(const double *v, size_t n, double *mean, double *sd, double *half)
{
	double sum = 0, sq = 0, m, s;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	m = n ? sum / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - m) * (v[i] - m);
	s = n > 1 ? root(sq / (double)(n - 1)) : 0;
	if (mean)
		*mean = m;
	if (sd)
		*sd = s;
	if (half)
		*half = n > 1 ? tp_student_t975(n - 1) * s / root((double)n) : -1;
}
