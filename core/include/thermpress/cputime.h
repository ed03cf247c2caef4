/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU busy time from /proc/stat, read under a source's root, and the small
 * statistics `bench` reports (docs/experiments.md, "bench").
 *
 * A cpuN line of /proc/stat counts ticks (USER_HZ) since boot: user nice system idle
 * iowait irq softirq steal guest guest_nice.  guest and guest_nice are already inside
 * user and nice, so they are not added again.
 */
#ifndef THERMPRESS_CPUTIME_H
#define THERMPRESS_CPUTIME_H

#include <stddef.h>
#include <stdint.h>

#include <thermpress/thermpress.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* One CPU's ticks since boot. */
struct tp_cpu_ticks {
	int cpu;
	uint64_t busy;		/* user + nice + system + irq + softirq + steal */
	uint64_t total;		/* busy + idle + iowait */
};

/*
 * Parse the text of /proc/stat (len bytes, need not end in NUL or a newline): one
 * entry per cpuN line, in the file's order, which must be strictly ascending (offline
 * CPUs have no line: numbers may skip).  A cpuN line has 4 to 10 plain decimal fields
 * (fields a later kernel adds are ignored); other lines, the total "cpu" line
 * included, are ignored.  0 and *count entries in out; -EINVAL (malformed, or no cpuN
 * line), -ERANGE (a number or a sum above UINT64_MAX, or a CPU number above INT_MAX),
 * -ENOSPC (more than max CPUs); on error out's contents are unspecified.
 */
int tp_parse_proc_stat(const char *text, size_t len, struct tp_cpu_ticks *out, size_t max,
		       size_t *count, struct tp_error *err);

/*
 * tp_parse_proc_stat() of ROOT/proc/stat, the root the source reads (never leaving
 * it).  -ENOTSUP for the simulator, in process or served: its CPUs are not the ones
 * the host's /proc/stat counts.
 */
int tp_cpu_ticks_read(struct tp_source *src, struct tp_cpu_ticks *out, size_t max,
		      size_t *count, struct tp_error *err);

/*
 * Student's t for a two-sided 95% interval, t(0.975, df): the table for df 1..30,
 * 1.96 above; 0 for df 0 (no interval).
 */
double tp_student_t975(size_t df);

/*
 * The mean of v[0..n-1], its sample standard deviation (0 when n < 2) and the
 * half-width of its 95% confidence interval, t(0.975, n-1) * sd / sqrt(n) (< 0 when
 * n < 2: no interval).  Any output may be NULL; n must be at least 1.
 */
void tp_mean_ci95(const double *v, size_t n, double *mean, double *sd, double *half);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
