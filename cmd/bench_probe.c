// SPDX-License-Identifier: MIT
/* bench's placement share and migration count (bench_probe.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bench_probe.h"

#define PROBE_MAX_CPUS 8192

/* ---- placement: per-domain shares of the busy CPU time ------------------------------ */

/* The domain with the largest max capacity (the first of equals), or -1. */
static int biggest_domain(const struct tp_snapshot *s)
{
	int64_t best = -1;
	int big = -1;

	for (size_t d = 0; d < s->nr_domains; d++)
		for (size_t i = 0; i < s->nr_cpus; i++)
			if (s->cpus[i].domain == (int)d && s->cpus[i].max_capacity != TP_NONE &&
			    s->cpus[i].max_capacity > best) {
				best = s->cpus[i].max_capacity;
				big = (int)d;
			}
	return big;
}

static void placement_init(struct bench_probe *p, struct tp_source *src)
{
	struct tp_error err = { 0 };
	size_t n;

	p->big = -1;
	if (tp_snapshot_take(src, &p->snap, &err) < 0) {
		snprintf(p->place_why, sizeof(p->place_why), "%s", err.msg);
		return;
	}
	if (!p->snap.nr_domains) {
		snprintf(p->place_why, sizeof(p->place_why), "%s names no frequency domains",
			 tp_source_describe(src));
		return;
	}
	p->big = biggest_domain(&p->snap);
	/* one read now, so that a source that has no CPU times says so before any run */
	if (tp_cpu_ticks_read(src, p->before, p->max_cpus, &n, &err) < 0)
		snprintf(p->place_why, sizeof(p->place_why), "%s", err.msg);
}

/* The CPU times now into buf; false (and the reason kept, once) when they cannot be read. */
static bool read_ticks(struct bench_probe *p, struct tp_cpu_ticks *buf, size_t *n)
{
	struct tp_error err = { 0 };

	if (tp_cpu_ticks_read(p->src, buf, p->max_cpus, n, &err) == 0)
		return true;
	if (!p->place_why[0])
		snprintf(p->place_why, sizeof(p->place_why), "%s", err.msg);
	return false;
}

void probe_before(struct bench_probe *p)
{
	p->have_before = !p->place_why[0] && read_ticks(p, p->before, &p->nbefore);
}

/* The shares of run (cfg, run) from before and after; all < 0 when undefined. */
static void placement_after(struct bench_probe *p, size_t cfg, size_t run)
{
	size_t nd = p->snap.nr_domains, nafter = 0, i = 0;
	double *share = &p->share[(cfg * p->runs + run) * nd];
	uint64_t total = 0;

	for (size_t d = 0; d < nd; d++)
		share[d] = -1;
	if (!p->have_before || !read_ticks(p, p->after, &nafter))
		return;
	uint64_t per[nd ? nd : 1];

	memset(per, 0, sizeof(per));
	/* both lists ascend: a CPU in only one of them (hotplugged meanwhile) is left out */
	for (size_t a = 0; a < nafter; a++) {
		const struct tp_cpu_ticks *t = &p->after[a];
		int k;

		while (i < p->nbefore && p->before[i].cpu < t->cpu)
			i++;
		if (i == p->nbefore || p->before[i].cpu != t->cpu)
			continue;
		if (t->busy < p->before[i].busy)
			return;	/* a counter went back: not a run's time */
		uint64_t delta = t->busy - p->before[i].busy;

		total += delta;
		k = tp_snapshot_find_cpu(&p->snap, t->cpu);
		if (k >= 0 && p->snap.cpus[k].domain >= 0 && (size_t)p->snap.cpus[k].domain < nd)
			per[p->snap.cpus[k].domain] += delta;
	}
	if (!total)
		return;	/* nothing ran that the ticks saw */
	for (size_t d = 0; d < nd; d++)
		share[d] = (double)per[d] / (double)total;
}

/* ---- migrations: a software counter on the workload, inherited by its children ------ */

static int perf_open(pid_t pid)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_MIGRATIONS,
		.disabled = 1,
		.enable_on_exec = 1,	/* from the workload's exec, not bench's fork */
		.inherit = 1,		/* its children's counts fold in as they exit */
		/* a migration is counted in the kernel: exclude_kernel would count none */
	};

	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void perf_why(struct bench_probe *p, int e)
{
	char paranoid[16] = "?";
	FILE *f;

	switch (e) {
	case EACCES:
	case EPERM:
		f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
		if (f) {
			if (!fgets(paranoid, sizeof(paranoid), f))
				snprintf(paranoid, sizeof(paranoid), "?");
			paranoid[strcspn(paranoid, "\n")] = '\0';
			fclose(f);
		}
		snprintf(p->mig_why, sizeof(p->mig_why),
			 "perf_event_open: %s (kernel.perf_event_paranoid is %s: counting them needs 1 or less, or CAP_PERFMON)",
			 strerror(e), paranoid);
		break;
	case ENOSYS:
		snprintf(p->mig_why, sizeof(p->mig_why),
			 "perf_event_open: %s (a kernel without CONFIG_PERF_EVENTS, or the call is filtered)",
			 strerror(e));
		break;
	default:
		snprintf(p->mig_why, sizeof(p->mig_why), "perf_event_open: %s (no software perf events)",
			 strerror(e));
		break;
	}
}

/* A read of fd that EINTR does not cut short. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
	ssize_t r;

	while ((r = read(fd, buf, len)) < 0 && errno == EINTR)
		;
	return r;
}

int probe_spawn(struct bench_probe *p, char **command, pid_t *pid, int *counter)
{
	int go[2], failed[2], devnull, e = 0;
	pid_t child;

	*counter = -1;
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0)
		return -errno;
	if (pipe2(go, O_CLOEXEC) < 0) {
		e = errno;
		close(devnull);
		return -e;
	}
	if (pipe2(failed, O_CLOEXEC) < 0) {
		e = errno;
		close(go[0]);
		close(go[1]);
		close(devnull);
		return -e;
	}
	child = fork();
	if (child == 0) {
		char c;

		/*
		 * Only async-signal-safe calls here: bench has threads (the profile player).
		 * Read go first, so that the parent's write never meets a closed pipe; without
		 * our copy of its writing end, a parent killed before go gives end of file
		 * instead of a child waiting for ever.
		 */
		close(go[1]);
		close(failed[0]);
		if (read_full(go[0], &c, 1) != 1 || dup2(devnull, 1) < 0)
			_exit(127);
		execvp(command[0], command);
		e = errno;
		(void)!write(failed[1], &e, sizeof(e));
		_exit(127);
	}
	if (child < 0)
		e = errno;
	close(go[0]);
	close(failed[1]);
	close(devnull);
	if (child > 0 && !p->mig_why[0]) {
		/* the child waits on go: the counter is on it before it execs */
		*counter = perf_open(child);
		if (*counter < 0)
			perf_why(p, errno);
	}
	if (child > 0 && write(go[1], "g", 1) != 1)
		e = errno ? errno : EIO;
	close(go[1]);
	if (child > 0 && !e && read_full(failed[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = 0;	/* closed by the exec: it runs */
	close(failed[0]);
	if (child > 0 && e) {
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (e) {
		if (*counter >= 0)
			close(*counter);
		*counter = -1;
		return -e;
	}
	*pid = child;
	return 0;
}

void probe_after(struct bench_probe *p, int counter, size_t cfg, size_t run)
{
	uint64_t n;

	if (p->share)
		placement_after(p, cfg, run);
	p->migr[cfg * p->runs + run] = -1;
	if (counter < 0)
		return;
	if (read_full(counter, &n, sizeof(n)) == (ssize_t)sizeof(n))
		p->migr[cfg * p->runs + run] = (double)n;
	else if (!p->mig_why[0])
		snprintf(p->mig_why, sizeof(p->mig_why), "reading the perf counter: %s",
			 strerror(errno));
	close(counter);
}

/* ---- setup ------------------------------------------------------------------------- */

int probe_init(struct cmd_ctx *ctx, struct bench_probe *p, size_t ncfg, size_t runs)
{
	p->src = ctx->src;
	p->ncfg = ncfg;
	p->runs = runs;
	p->max_cpus = PROBE_MAX_CPUS;
	tp_snapshot_init(&p->snap);
	p->before = calloc(p->max_cpus, sizeof(*p->before));
	p->after = calloc(p->max_cpus, sizeof(*p->after));
	p->migr = calloc(ncfg * runs, sizeof(*p->migr));
	if (!p->before || !p->after || !p->migr)
		return cmd_error(ctx, EXIT_RUNTIME, "out of memory");
	placement_init(p, ctx->src);
	if (!p->place_why[0]) {
		p->share = calloc(ncfg * runs * p->snap.nr_domains, sizeof(*p->share));
		if (!p->share)
			return cmd_error(ctx, EXIT_RUNTIME, "out of memory");
	}
	return 0;
}

void probe_free(struct bench_probe *p)
{
	free(p->before);
	free(p->after);
	free(p->share);
	free(p->migr);
	tp_snapshot_release(&p->snap);
}

/* ---- results ----------------------------------------------------------------------- */

/* Every run had a share of domain d in cfg (placement is all or nothing per run). */
static size_t shares_of(const struct bench_probe *p, size_t cfg, size_t d, double *v)
{
	size_t n = 0, nd = p->snap.nr_domains;

	for (size_t r = 0; p->share && !p->place_why[0] && r < p->runs; r++) {
		double s = p->share[(cfg * p->runs + r) * nd + d];

		if (s >= 0)
			v[n++] = s;
	}
	return n;
}

static size_t migrations_of(const struct bench_probe *p, size_t cfg, double *v)
{
	size_t n = 0;

	for (size_t r = 0; !p->mig_why[0] && r < p->runs; r++)
		if (p->migr[cfg * p->runs + r] >= 0)
			v[n++] = p->migr[cfg * p->runs + r];
	return n;
}

void probe_notes(struct cmd_ctx *ctx, const struct bench_probe *p)
{
	if (p->place_why[0])
		cmd_warning(ctx, "bench: placement not measured: %s", p->place_why);
	if (p->mig_why[0])
		cmd_warning(ctx, "bench: migrations not counted: %s", p->mig_why);
}

void probe_cell(char *buf, size_t len, int width, const char *text)
{
	int chars = 0;

	for (const unsigned char *s = (const unsigned char *)text; *s; s++)
		chars += (*s & 0xc0) != 0x80;
	snprintf(buf, len, "%*s%s", width > chars ? width - chars : 0, "", text);
}

void probe_table_header(const struct bench_probe *p, char *buf, size_t len)
{
	char name[16] = "BIG", cell[40];
	size_t l = strlen(buf);

	if (p->big >= 0) {
		snprintf(name, sizeof(name), "%.10s", p->snap.domains[p->big].name);
		for (char *c = name; *c; c++)
			*c = (char)toupper((unsigned char)*c);
	}
	snprintf(cell, sizeof(cell), "%s %%", name);
	probe_cell(buf + l, len - l, 17, cell);
	l = strlen(buf);
	snprintf(buf + l, len - l, " %10s", "MIGRATIONS");
}

void probe_table_cells(const struct bench_probe *p, size_t cfg, char *buf, size_t len)
{
	double v[p->runs ? p->runs : 1], mean, half;
	char text[64];
	size_t n = p->big >= 0 ? shares_of(p, cfg, (size_t)p->big, v) : 0, l;

	if (!n)
		snprintf(text, sizeof(text), "-");
	else {
		tp_mean_ci95(v, n, &mean, NULL, &half);
		if (half < 0)
			snprintf(text, sizeof(text), "%.1f", 100 * mean);
		else
			snprintf(text, sizeof(text), "%.1f ± %.1f", 100 * mean, 100 * half);
	}
	l = strlen(buf);
	probe_cell(buf + l, len - l, 17, text);
	n = migrations_of(p, cfg, v);
	if (n)
		tp_mean_ci95(v, n, &mean, NULL, NULL);
	l = strlen(buf);
	if (n)
		snprintf(buf + l, len - l, " %10.1f", mean);
	else
		snprintf(buf + l, len - l, " %10s", "-");
}

static struct json_object *note(const char *why)
{
	return why[0] ? json_object_new_string(why) : NULL;
}

void probe_json_top(const struct bench_probe *p, struct json_object *o)
{
	struct json_object *big = NULL;

	if (p->big >= 0 && !p->place_why[0]) {
		big = json_object_new_object();
		json_object_object_add(big, "id", json_object_new_int(p->snap.domains[p->big].id));
		json_object_object_add(big, "name",
				       json_object_new_string(p->snap.domains[p->big].name));
	}
	json_object_object_add(o, "placement_domain", big);
	json_object_object_add(o, "placement_note", note(p->place_why));
	json_object_object_add(o, "migrations_note", note(p->mig_why));
}

/* A mean and its interval's half-width (null without one). */
static void add_mean(struct json_object *o, const char *mean_key, const char *ci_key,
		     const double *v, size_t n)
{
	double mean, half;

	tp_mean_ci95(v, n, &mean, NULL, &half);
	json_object_object_add(o, mean_key, n ? json_object_new_double(mean) : NULL);
	json_object_object_add(o, ci_key, n && half >= 0 ? json_object_new_double(half) : NULL);
}

void probe_json_config(const struct bench_probe *p, size_t cfg, struct json_object *o)
{
	struct json_object *place = NULL, *mig = NULL;
	double v[p->runs ? p->runs : 1];
	size_t nd = p->snap.nr_domains;

	if (!p->place_why[0]) {
		place = json_object_new_array();
		for (size_t d = 0; d < nd; d++) {
			struct json_object *j = json_object_new_object(), *runs = json_object_new_array();

			json_object_object_add(j, "domain_id", json_object_new_int(p->snap.domains[d].id));
			json_object_object_add(j, "name", json_object_new_string(p->snap.domains[d].name));
			for (size_t r = 0; r < p->runs; r++) {
				double s = p->share[(cfg * p->runs + r) * nd + d];

				json_object_array_add(runs, s >= 0 ? json_object_new_double(s) : NULL);
			}
			json_object_object_add(j, "shares", runs);
			add_mean(j, "share", "share_ci95", v, shares_of(p, cfg, d, v));
			json_object_array_add(place, j);
		}
	}
	json_object_object_add(o, "placement", place);
	if (!p->mig_why[0]) {
		struct json_object *runs = json_object_new_array();

		mig = json_object_new_object();
		for (size_t r = 0; r < p->runs; r++) {
			double m = p->migr[cfg * p->runs + r];

			json_object_array_add(runs, m >= 0 ? json_object_new_int64((int64_t)m) : NULL);
		}
		json_object_object_add(mig, "runs", runs);
		add_mean(mig, "mean", "ci95", v, migrations_of(p, cfg, v));
	}
	json_object_object_add(o, "migrations", mig);
}
