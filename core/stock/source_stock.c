// SPDX-License-Identifier: MIT
/*
 * The stock-kernel source: an unpatched kernel's cpufreq, cpu_capacity and thermal
 * interfaces under a root, mapped onto tp_snapshot with what the running kernel
 * does with thermal pressure (core/stock/README.md):
 *
 *   model (docs/kernels.md)  pressure column (what the scheduler is fed)        avg column
 *   none                     0                                                   none (TP_NONE)
 *   thermal_pelt             from the cpufreq cooling device's cur_state         pelt estimate, shift from cmdline
 *   cpufreq_hw, cpufreq      cpufreq pressure: policy->max against the reference  = pressure (hw_pressure unseen)
 *
 * No stock kernel exposes the averaged value in a file.  As root on the running
 * system's root, with BTF, it is read with BPF (kernel_avg.c): avg_pressure is the
 * kernel's rq->avg_thermal (5.7..6.9) or max(rq->avg_hw, pressure) (6.10+), not
 * estimated.  Otherwise, and for a CPU the program has not seen yet, it is
 * thermpress's estimate (avg_estimated): the pelt plugin with the kernel's
 * half-life, stepped at the kernel's tick between this process's samples; at the
 * first sample the pressure is taken to have been steady.  capacity is max_capacity - avg (floor 1);
 * the kernel also subtracts RT, DL and IRQ time, which user space cannot see.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "stock.h"
#include "clock.h"

static const struct tp_source_ops stock_ops;

static const char *root_name(const struct stock *s)
{
	return s->root[0] ? s->root : "/";
}

static const char *model_backend(const struct stock *s)
{
	switch (s->kernel.model) {
	case TP_STOCK_MODEL_THERMAL_PELT:
		return "pelt";
	case TP_STOCK_MODEL_CPUFREQ_HW:
	case TP_STOCK_MODEL_CPUFREQ:
		return "instant";
	default:
		return "";
	}
}

static int64_t model_decay_ms(const struct stock *s)
{
	switch (s->kernel.model) {
	case TP_STOCK_MODEL_THERMAL_PELT:
		return (int64_t)32 << s->kernel.shift;
	case TP_STOCK_MODEL_CPUFREQ_HW:
	case TP_STOCK_MODEL_CPUFREQ:
		return 0;
	default:
		return TP_NONE;
	}
}

/* ---- Opening -------------------------------------------------------------- */

static struct stock_cpu *find_cpu(struct stock *s, int cpu)
{
	size_t lo = 0, hi = s->nr_cpus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->cpus[mid].cpu == cpu)
			return &s->cpus[mid];
		if (s->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int read_cpus(struct stock *s, struct tp_error *err)
{
	char path[STOCK_PATH_MAX], buf[16384];
	int *ids = NULL, rc;
	size_t n = 0;

	rc = stock_path(s, path, sizeof(path), "sys/devices/system/cpu/possible");
	if (rc == 0 && stock_read_text(path, buf, sizeof(buf)) == 0 &&
	    stock_parse_cpus(buf, &ids, &n) == 0 && n == 0) {
		free(ids);
		ids = NULL;
	}
	if (!n) {
		stock_path(s, path, sizeof(path), "sys/devices/system/cpu");
		rc = stock_list_ids(path, "cpu", &ids, &n);
		if (rc < 0 || n == 0) {
			free(ids);
			return tp_error_set(err, -ENOENT,
				"no cpus under %s: not a linux sysfs tree (is /sys mounted?)", path);
		}
	}
	s->cpus = calloc(n, sizeof(*s->cpus));
	if (!s->cpus) {
		free(ids);
		return tp_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		struct stock_cpu *c = &s->cpus[i];

		c->cpu = ids[i];
		c->policy = -1;
		stock_path(s, path, sizeof(path), "sys/devices/system/cpu/cpu%d/cpu_capacity", c->cpu);
		if (stock_read_i64(path, &c->max_capacity) == 0 && c->max_capacity >= 1 &&
		    c->max_capacity <= TP_CAPACITY_SCALE)
			s->has_cpu_capacity = true;
		else
			c->max_capacity = TP_CAPACITY_SCALE;
	}
	s->nr_cpus = n;
	free(ids);
	return 0;
}

static int read_policies(struct stock *s, struct tp_error *err)
{
	s->policies = calloc(s->nr_cpus, sizeof(*s->policies));
	if (!s->policies)
		return tp_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct stock_cpu *c = &s->cpus[i];
		struct stock_policy *p = &s->policies[s->nr_policies];
		int *related = NULL;
		size_t nrel = 0;

		if (c->policy >= 0 || !stock_freq_present(s, c->cpu))
			continue;
		if (stock_freq_hw_max(s, c->cpu, &p->hw_max_khz) < 0)
			continue;	/* a cpufreq directory without limits: no policy */
		if (stock_freq_hw_min(s, c->cpu, &p->hw_min_khz) < 0)
			p->hw_min_khz = TP_NONE;
		if (stock_freq_related(s, c->cpu, &related, &nrel) < 0) {
			related = malloc(sizeof(*related));
			if (!related)
				return tp_error_set(err, -ENOMEM, "out of memory");
			related[0] = c->cpu;
			nrel = 1;
		}
		p->cpus = related;
		p->nr_cpus = nrel;
		p->id = related[0];
		p->cooling = -1;
		p->ref_khz = TP_NONE;	/* arch_scale_freq_ref() is not read (yet) */
		if (stock_freq_available(s, c->cpu, &p->freqs, &p->nr_freqs) < 0) {
			p->freqs = NULL;
			p->nr_freqs = 0;
		}
		for (size_t j = 0; j < nrel; j++) {
			struct stock_cpu *m = find_cpu(s, related[j]);

			if (m && m->policy < 0)
				m->policy = (int)s->nr_policies;
		}
		if (c->policy < 0)	/* related_cpus that does not name the cpu itself */
			c->policy = (int)s->nr_policies;
		s->has_cpufreq = true;
		s->nr_policies++;
	}
	return 0;
}

static void stock_free(struct stock *s)
{
	if (s->state_dirfd >= 0)
		close(s->state_dirfd);
	stock_kernel_avg_close(s);
	for (size_t i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].avg_ok)
			tp_avg_fini(&s->cpus[i].avg);
	for (size_t i = 0; i < s->nr_policies; i++) {
		free(s->policies[i].cpus);
		free(s->policies[i].freqs);
	}
	free(s->policies);
	free(s->cpus);
	free(s->cooling);
	free(s);
}

static void describe_source(struct tp_source *src, struct stock *s)
{
	const struct stock_kernel *k = &s->kernel;
	size_t n = sizeof(src->description), used;

	used = (size_t)snprintf(src->description, n, "stock kernel %s (%s) at %s",
				k->release[0] ? k->release : "of unknown version",
				k->arch[0] ? k->arch : "unknown architecture", root_name(s));
	if (used < n && (!s->has_cpufreq || !s->nr_cooling))
		used += (size_t)snprintf(src->description + used, n - used, " (%s%s%s)",
					 s->has_cpufreq ? "" : "no cpufreq",
					 !s->has_cpufreq && !s->nr_cooling ? ", " : "",
					 s->nr_cooling ? "" : "no cooling devices");
	/* so that every view of the source (show, top, record's metadata, JSON) says so */
	if (used < n && s->kernel_avg)
		snprintf(src->description + used, n - used, ", kernel average read with BPF");
}

/* Load the BPF reader of the kernel's average on first use (kernel_avg.c). */
static void kernel_avg_start(struct tp_source *src, struct stock *s)
{
	if (s->kernel_avg_tried)
		return;
	stock_kernel_avg_open(s);
	describe_source(src, s);
}

int tp_source_stock_open(const char *root, struct tp_source *src, struct tp_error *err)
{
	struct stock *s = calloc(1, sizeof(*s));
	char real[PATH_MAX];
	size_t len;
	int rc;

	if (s)
		s->state_dirfd = -1;
	if (!s)
		return tp_error_set(err, -ENOMEM, "out of memory");
	if (!root || !*root)
		root = "/";
	if (strlen(root) >= sizeof(s->root)) {
		free(s);
		return tp_error_set(err, -ENAMETOOLONG, "root path too long");
	}
	snprintf(s->root, sizeof(s->root), "%s", root);
	len = strlen(s->root);
	while (len && s->root[len - 1] == '/')
		s->root[--len] = '\0';
	/* libcpupower reads /sys itself: only the real root can use it */
	s->real_root = !s->root[0] || (realpath(root, real) && strcmp(real, "/") == 0);
	if (s->real_root)
		s->root[0] = '\0';
	stock_read_kernel(s);
	rc = read_cpus(s, err);
	if (rc == 0)
		rc = read_policies(s, err);
	if (rc == 0) {
		rc = stock_scan_cooling(s);
		if (rc == -ENOMEM)
			rc = tp_error_set(err, rc, "out of memory");
		else
			rc = 0;	/* unreadable /sys/class/thermal: no cooling devices */
	}
	if (rc < 0) {
		stock_free(s);
		return rc;
	}
	s->method = TP_STOCK_CAP_SCALING_MAX_FREQ;
	stock_state_path(s);
	/* the estimator's clock runs ahead of time_ns by more than the longest history */
	s->est_offset_ns = ((uint64_t)32 << s->kernel.shift) * 64 * 1000000 + 1000000000;
	src->priv = s;
	src->ops = &stock_ops;
	src->kind = TP_SOURCE_STOCK;
	describe_source(src, s);
	return 0;
}

/* ---- Reading --------------------------------------------------------------- */

int64_t stock_reference_khz(const struct stock *s, const struct stock_policy *p, bool *assumed)
{
	*assumed = p->ref_khz == TP_NONE;
	if (*assumed)
		return p->hw_max_khz;
	/* the kernel's fallback when arch_scale_freq_ref() is 0 */
	if (p->ref_khz == 0 && s->kernel.row->reference == STOCK_REF_ARCH_OR_MAX)
		return p->hw_max_khz;
	return p->ref_khz;
}

/* What the scheduler is fed for cpu c now, given its policy's capped frequency. */
static int64_t cpu_pressure(const struct stock *s, const struct stock_cpu *c, int64_t capped,
			    int64_t cooling_khz)
{
	const struct stock_policy *p;

	if (c->policy < 0)
		return TP_NONE;
	p = &s->policies[c->policy];
	switch (s->kernel.model) {
	case TP_STOCK_MODEL_THERMAL_PELT:
		if (p->cooling < 0)
			return 0;	/* only the cooling device (or LMh) feeds it */
		if (cooling_khz == TP_NONE)
			return TP_NONE;
		return (int64_t)tp_pressure((uint64_t)c->max_capacity, (uint64_t)cooling_khz,
					    (uint64_t)p->hw_max_khz);
	case TP_STOCK_MODEL_CPUFREQ_HW:
	case TP_STOCK_MODEL_CPUFREQ: {
		bool assumed;
		int64_t ref = stock_reference_khz(s, p, &assumed);

		if (capped == TP_NONE || ref < 0)
			return TP_NONE;
		return (int64_t)tp_pressure((uint64_t)c->max_capacity, (uint64_t)capped,
					    (uint64_t)ref);
	}
	default:
		return 0;
	}
}

static void estimate(struct stock *s, struct stock_cpu *c, uint64_t now, int64_t pressure)
{
	uint64_t est = now + s->est_offset_ns, tick;

	if (pressure < 0) {
		c->avg_started = false;
		return;
	}
	if (s->kernel.model != TP_STOCK_MODEL_THERMAL_PELT) {
		/* cpufreq pressure is not averaged; no model: nothing to average */
		c->avg_value = s->kernel.model == TP_STOCK_MODEL_NONE ? 0 : (uint64_t)pressure;
		c->avg_started = true;
		return;
	}
	if (!c->avg_ok)
		return;		/* no pelt plugin: no estimate */
	if (!c->avg_started) {
		/* assume the pressure has been steady for longer than pelt remembers */
		tp_avg_reset(&c->avg, est - (s->est_offset_ns - 1000000000));
		c->avg_value = tp_avg_update(&c->avg, est, (uint64_t)pressure);
		c->avg_started = true;
	} else if (est > c->last_ns) {
		tick = 1000000000u / (uint64_t)(s->kernel.hz > 0 ? s->kernel.hz : TP_HZ_DEFAULT);
		if ((est - c->last_ns) / tick > 100000) {
			tp_avg_update(&c->avg, est - tick, c->last_pressure);
		} else {
			for (uint64_t t = c->last_ns + tick; t < est; t += tick)
				tp_avg_update(&c->avg, t, c->last_pressure);
		}
		c->avg_value = tp_avg_update(&c->avg, est, (uint64_t)pressure);
	}
	c->last_ns = est;
	c->last_pressure = (uint64_t)pressure;
}

/* Per policy: scaling_max_freq and the cooling device's frequency (TP_NONE when unknown). */
static void read_limits(struct stock *s, int64_t *capped, int64_t *cooling_khz)
{
	for (size_t i = 0; i < s->nr_policies; i++) {
		struct stock_policy *p = &s->policies[i];
		int64_t state;

		if (stock_policy_scaling_max(s, p, &capped[i]) < 0)
			capped[i] = TP_NONE;
		cooling_khz[i] = TP_NONE;
		if (p->cooling >= 0 && stock_cooling_state(s, &s->cooling[p->cooling], &state) == 0)
			cooling_khz[i] = stock_state_khz(p, state);
	}
}

static int sample_at(struct stock *s, uint64_t now, int64_t **capped_out)
{
	size_t np = s->nr_policies ? s->nr_policies : 1;
	int64_t *capped = malloc(2 * np * sizeof(*capped));

	if (!capped)
		return -ENOMEM;
	read_limits(s, capped, capped + np);
	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct stock_cpu *c = &s->cpus[i];
		int64_t cap = c->policy >= 0 ? capped[c->policy] : TP_NONE;
		int64_t cool = c->policy >= 0 ? capped[np + (size_t)c->policy] : TP_NONE;

		estimate(s, c, now, cpu_pressure(s, c, cap, cool));
	}
	if (capped_out)
		*capped_out = capped;
	else
		free(capped);
	return 0;
}

void stock_sample(struct stock *s)
{
	sample_at(s, mono_ns(), NULL);
}

/* The snapshot's domain of a cpu of policy p (NULL: none), numbered in order of first cpu. */
static int cpu_domain(struct tp_snapshot *snap, struct stock_policy *p)
{
	struct tp_domain *d;

	if (!p)
		return TP_NONE;	/* without cpufreq, no domain */
	if (p->domain >= 0)
		return p->domain;
	d = &snap->domains[snap->nr_domains];
	d->id = p->id;
	snprintf(d->name, sizeof(d->name), "cluster%zu", snap->nr_domains);
	p->domain = (int)snap->nr_domains;
	return (int)snap->nr_domains++;
}

/* o's avg_pressure and capacity: the kernel's average when read, else the estimate. */
static void cpu_average(const struct stock *s, struct stock_cpu *c, struct tp_cpu *o,
			const struct stock_policy *p, int64_t pressure)
{
	if (s->kernel.model == TP_STOCK_MODEL_NONE) {
		/* the kernel keeps no average: none, not an estimated 0 */
		o->avg_pressure = TP_NONE;
		o->capacity = c->max_capacity;
	} else if (pressure != TP_NONE && c->avg_from_kernel) {
		/* 6.10+ subtracts max(hw_load_avg, cpufreq pressure): the scheduler's
		 * own cpufreq_pressure when read in place */
		int64_t cfp = c->inputs_from_kernel ? (int64_t)c->kernel_cpufreq_pressure : pressure;

		o->avg_pressure = s->kernel.model == TP_STOCK_MODEL_CPUFREQ_HW &&
			(uint64_t)cfp > c->kernel_avg ? cfp : (int64_t)c->kernel_avg;
		o->avg_estimated = false;
		c->avg_from_kernel = true;
		o->capacity = c->max_capacity - o->avg_pressure;
		if (o->capacity < 1)
			o->capacity = 1;
	} else if (pressure != TP_NONE && c->avg_started &&
	    (s->kernel.model != TP_STOCK_MODEL_THERMAL_PELT || c->avg_ok)) {
		o->avg_pressure = (int64_t)c->avg_value;
		o->avg_estimated = true;
		o->capacity = c->max_capacity - o->avg_pressure;
		if (o->capacity < 1)
			o->capacity = 1;
	} else {
		o->avg_pressure = TP_NONE;
		/* no cpufreq: nothing can cap the cpu, the scheduler sees it whole */
		o->capacity = p ? TP_NONE : c->max_capacity;
	}
}

/* Two frequency domains of different capacity: big.LITTLE, name them so. */
static void name_big_little(const struct stock *s, struct tp_snapshot *snap)
{
	int64_t cap0 = TP_NONE, cap1 = TP_NONE;

	if (snap->nr_domains != 2 || s->nr_policies != 2)
		return;
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		if (snap->cpus[i].domain == 0 && cap0 == TP_NONE)
			cap0 = snap->cpus[i].max_capacity;
		if (snap->cpus[i].domain == 1 && cap1 == TP_NONE)
			cap1 = snap->cpus[i].max_capacity;
	}
	if (cap0 != cap1) {
		snprintf(snap->domains[cap0 < cap1 ? 0 : 1].name, TP_NAME_MAX, "little");
		snprintf(snap->domains[cap0 < cap1 ? 1 : 0].name, TP_NAME_MAX, "big");
	}
}

/* Each CPU's kernel average (and, read in place, its cpufreq_pressure and
 * rq->cpu_capacity) as of now; a CPU not read keeps the estimate. */
static void read_kernel_avgs(struct stock *s)
{
	uint64_t kavg_ns;

	(void)stock_kernel_avg_sample(s);	/* on failure no CPU reads: the estimate */
	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct stock_cpu *c = &s->cpus[i];

		c->avg_from_kernel = stock_kernel_avg_read(s, c->cpu, &c->kernel_avg, &kavg_ns) == 0;
		c->inputs_from_kernel = stock_kernel_avg_inputs(s, c->cpu, &c->kernel_cpufreq_pressure,
								&c->kernel_cpu_capacity) == 0;
	}
}

static int stock_snapshot(struct tp_source *src, struct tp_snapshot *snap, struct tp_error *err)
{
	struct stock *s = src->priv;
	char path[STOCK_PATH_MAX], buf[16384];
	int *online = NULL;
	size_t nonline = 0, ndomains = 0, np = s->nr_policies ? s->nr_policies : 1;
	bool have_online = false;
	int64_t *capped;
	uint64_t now;
	int rc;

	/* the pelt estimate needs the plugin: bind it on first use */
	if (s->kernel.model == TP_STOCK_MODEL_THERMAL_PELT) {
		const struct tp_backend_ops *pelt = tp_plugins_find(src->plugins, "pelt");

		for (size_t i = 0; pelt && i < s->nr_cpus; i++)
			if (!s->cpus[i].avg_ok &&
			    tp_avg_init(&s->cpus[i].avg, pelt, (uint32_t)(32u << s->kernel.shift), 0, NULL) == 0)
				s->cpus[i].avg_ok = true;
	}
	kernel_avg_start(src, s);
	/* the kernel's averages in force at the snapshot's time: read first, the files take longer */
	now = mono_ns();
	read_kernel_avgs(s);
	ndomains = s->nr_cpus;	/* at most one per cpu */
	if (tp_snapshot_reserve(snap, s->nr_cpus, ndomains) < 0)
		return tp_error_set(err, -ENOMEM, "out of memory");
	rc = sample_at(s, now, &capped);
	if (rc < 0)
		return tp_error_set(err, rc, "out of memory");
	if (stock_path(s, path, sizeof(path), "sys/devices/system/cpu/online") == 0 &&
	    stock_read_text(path, buf, sizeof(buf)) == 0 && stock_parse_cpus(buf, &online, &nonline) == 0)
		have_online = true;

	snprintf(snap->backend, sizeof(snap->backend), "%s", model_backend(s));
	snap->decay_ms = model_decay_ms(s);
	snap->hz = s->kernel.hz;
	snap->time_ns = now;
	snap->nr_cpus = s->nr_cpus;
	snap->nr_domains = 0;
	for (size_t i = 0; i < s->nr_policies; i++)
		s->policies[i].domain = -1;
	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct stock_cpu *c = &s->cpus[i];
		struct tp_cpu *o = &snap->cpus[i];
		struct stock_policy *p = c->policy >= 0 ? &s->policies[c->policy] : NULL;
		int64_t cap = p ? capped[c->policy] : TP_NONE;
		int64_t cool = p ? capped[np + (size_t)c->policy] : TP_NONE;
		int64_t pressure = cpu_pressure(s, c, cap, cool);

		memset(o, 0, sizeof(*o));
		o->cpu = c->cpu;
		o->online = TP_NONE;
		if (have_online) {
			o->online = 0;
			for (size_t j = 0; j < nonline; j++)
				if (online[j] == c->cpu)
					o->online = 1;
		}
		o->domain = cpu_domain(snap, p);
		o->max_capacity = c->max_capacity;
		o->max_freq_khz = p ? p->hw_max_khz : TP_NONE;
		o->min_freq_khz = p ? p->hw_min_khz : TP_NONE;
		o->capped_freq_khz = p && cap != TP_NONE ?
			(cap > p->hw_max_khz ? p->hw_max_khz : cap) : TP_NONE;
		o->capped_capacity = TP_NONE;	/* derived from pressure */
		o->pressure = pressure;
		cpu_average(s, c, o, p, pressure);
	}
	name_big_little(s, snap);
	free(online);
	free(capped);
	return 0;
}

/* ---- Control ------------------------------------------------------------------ */

/*
 * After a limit changed, sample at once, so that the estimate sees the change when
 * it happened (stock_caps.c writes limits and calls nothing here).
 */
static int stock_inject_op(struct tp_source *src, const struct tp_cpuset *cpus, uint64_t khz,
			   struct tp_error *err)
{
	int rc = stock_inject(src->priv, cpus, khz, err);

	if (rc == 0)
		stock_sample(src->priv);
	return rc;
}

static const char *kernel_name(const struct stock *s, char *buf, size_t len)
{
	snprintf(buf, len, "linux %s", s->kernel.release[0] ? s->kernel.release : "(unknown version)");
	return buf;
}

static int stock_set_backend(struct tp_source *src, const char *name, struct tp_error *err)
{
	struct stock *s = src->priv;
	char k[96];

	kernel_name(s, k, sizeof(k));
	switch (s->kernel.model) {
	case TP_STOCK_MODEL_THERMAL_PELT:
		return tp_error_set(err, -EOPNOTSUPP,
			"%s averages thermal pressure with pelt and cannot switch to %s: another backend needs a thermpress-patched kernel (or try it with --sim)",
			kernel_name(s, k, sizeof(k)), name);
	case TP_STOCK_MODEL_CPUFREQ_HW:
		return tp_error_set(err, -EOPNOTSUPP,
			"%s uses the cpufreq pressure at once (instant) and a fixed 32 ms pelt for hardware pressure; nothing switches that to %s: it needs a thermpress-patched kernel (or try it with --sim)",
			k, name);
	case TP_STOCK_MODEL_CPUFREQ:
		return tp_error_set(err, -EOPNOTSUPP,
			"%s uses the cpufreq pressure at once (instant) and has no hardware pressure; nothing switches that to %s: it needs a thermpress-patched kernel (or try it with --sim)",
			k, name);
	default:
		return tp_error_set(err, -EOPNOTSUPP,
			"%s on %s feeds no thermal pressure to the scheduler, so there is no backend to switch to %s: it needs a thermpress-patched kernel (or try it with --sim)",
			k, s->kernel.arch[0] ? s->kernel.arch : "this architecture", name);
	}
}

/* The half-life a pelt kernel gives for DECAY_MS: the nearest 32 << shift, a tie to the
 * smaller (docs/abi.md). */
static uint32_t nearest_pelt_ms(uint32_t decay_ms)
{
	int shift = 0;

	while (shift < 10 && (uint64_t)decay_ms * 2 > (uint64_t)(32u << shift) * 3)
		shift++;
	return 32u << shift;
}

static int stock_set_decay(struct tp_source *src, uint32_t decay_ms, struct tp_error *err)
{
	struct stock *s = src->priv;
	char k[96];
	int shift = 0;

	kernel_name(s, k, sizeof(k));
	switch (s->kernel.model) {
	case TP_STOCK_MODEL_THERMAL_PELT:
		while (32u << shift < nearest_pelt_ms(decay_ms))
			shift++;
		return tp_error_set(err, -EOPNOTSUPP,
			"%s fixes the pelt half-life at boot (now %d ms, sched_thermal_decay_shift=%d): for %u ms reboot with sched_thermal_decay_shift=%d on the kernel command line (half-life %d ms), or use a thermpress-patched kernel",
			k, 32 << s->kernel.shift, s->kernel.shift, decay_ms, shift, 32 << shift);
	case TP_STOCK_MODEL_CPUFREQ_HW:
		return tp_error_set(err, -EOPNOTSUPP,
			"%s has no decay setting: since 6.10 the cpufreq pressure is not averaged, the hardware pressure's pelt half-life is fixed at 32 ms and sched_thermal_decay_shift= is ignored; a decay period needs a thermpress-patched kernel",
			k);
	case TP_STOCK_MODEL_CPUFREQ:
		return tp_error_set(err, -EOPNOTSUPP,
			"%s has no decay setting: since 6.10 the cpufreq pressure is not averaged and sched_thermal_decay_shift= is ignored; a decay period needs a thermpress-patched kernel",
			k);
	default:
		return tp_error_set(err, -EOPNOTSUPP,
			"%s on %s feeds no thermal pressure to the scheduler, so there is nothing to decay: a decay period needs a thermpress-patched kernel",
			k, s->kernel.arch[0] ? s->kernel.arch : "this architecture");
	}
}

static int stock_backends(struct tp_source *src, char names[][TP_NAME_MAX], size_t max,
			  size_t *count, int *active, int64_t *decay_ms, struct tp_error *err);

/*
 * A stock kernel cannot switch or change its decay: it says why, and what would be
 * needed, for the request as asked (a new decay for the backend in force is a decay
 * request).
 */
static int stock_fixed_backend(struct tp_source *src, const char *name, uint32_t decay_ms,
			       struct tp_error *err)
{
	char names[TP_MAX_BACKENDS][TP_NAME_MAX];
	size_t count;
	int active;
	int64_t in_force;

	bool mine = false;

	if (stock_backends(src, names, TP_MAX_BACKENDS, &count, &active, &in_force, NULL) == 0 &&
	    active >= 0)
		mine = !name || strcmp(names[active], name) == 0;
	/* what is in force already is no change: a script may ask for it (bench does) */
	if (mine && (!decay_ms || (int64_t)nearest_pelt_ms(decay_ms) == in_force))
		return 0;
	if (!name || mine)
		return stock_set_decay(src, decay_ms, err);
	return stock_set_backend(src, name, err);
}

static int stock_backends(struct tp_source *src, char names[][TP_NAME_MAX], size_t max,
			  size_t *count, int *active, int64_t *decay_ms, struct tp_error *err)
{
	const char *const *fallback;
	size_t nr_fallback = tp_backend_kernel_order(&fallback);
	struct stock *s = src->priv;
	const char *mine = model_backend(s);
	size_t n = src->plugins ? tp_plugins_count(src->plugins) : 0;

	/* every backend thermpress knows, so that asking for one explains the kernel */
	*count = 0;
	*active = -1;
	for (size_t i = 0; i < (n ? n : nr_fallback) && *count < max; i++) {
		const char *name = n ? tp_plugins_get(src->plugins, i)->name : fallback[i];

		snprintf(names[*count], TP_NAME_MAX, "%s", name);
		if (strcmp(name, mine) == 0)
			*active = (int)*count;
		(*count)++;
	}
	if (*mine && *active < 0 && *count < max) {
		snprintf(names[*count], TP_NAME_MAX, "%s", mine);
		*active = (int)(*count)++;
	}
	*decay_ms = model_decay_ms(s);
	return 0;
}

static void stock_close(struct tp_source *src)
{
	if (src->priv)
		stock_free(src->priv);
	src->priv = NULL;
}

static int stock_limits_save_op(struct tp_source *src, const struct tp_cpuset *cpus, void **saved,
				struct tp_error *err)
{
	return stock_limits_save(src->priv, cpus, saved, err);
}

static int stock_limits_put_back_op(struct tp_source *src, const void *saved,
				    const struct tp_cpuset *only, struct tp_error *err)
{
	int rc = stock_limits_put_back(src->priv, saved, only, err);

	stock_sample(src->priv);	/* also after a partial failure: some may be back */
	return rc;
}

static int stock_restore_op(struct tp_source *src, struct tp_restore_report *rep,
			    struct tp_error *err)
{
	int rc = stock_restore_all(src->priv, rep, err);

	if (rc == 0 && rep->restored)
		stock_sample(src->priv);
	return rc;
}

static int stock_hold_begin_op(struct tp_source *src, struct tp_error *err)
{
	return stock_hold_begin(src->priv, err);
}

static int stock_hold_end_op(struct tp_source *src, struct tp_cpuset *left, struct tp_error *err)
{
	int rc = stock_hold_end(src->priv, left, err);

	stock_sample(src->priv);	/* also after a partial failure: some may be back */
	return rc;
}

static int stock_pending_op(struct tp_source *src, struct tp_pending *out, struct tp_error *err)
{
	size_t scaling, cooling;

	return stock_pending(src->priv, out, &scaling, &cooling, err);
}

static int stock_describe(struct tp_source *src, struct tp_stock_info *info,
			  struct tp_error *err);
static int stock_thermal(struct tp_source *src, struct tp_thermal *out, struct tp_error *err);
static int stock_set_cap_method(struct tp_source *src, enum tp_stock_cap_method method,
				struct tp_error *err);

static const struct tp_source_ops stock_ops = {
	.fixed_backend = stock_fixed_backend,
	.stock_describe = stock_describe,
	.thermal = stock_thermal,
	.stock_set_cap_method = stock_set_cap_method,
	.limits_save = stock_limits_save_op,
	.limits_put_back = stock_limits_put_back_op,
	.restore = stock_restore_op,
	.pending = stock_pending_op,
	.hold_begin = stock_hold_begin_op,
	.hold_end = stock_hold_end_op,
	.snapshot = stock_snapshot,
	.inject = stock_inject_op,
	.set_backend = stock_set_backend,
	.set_decay = stock_set_decay,
	.backends = stock_backends,
	.close = stock_close,
};

/* ---- The stock operations (thermpress/stock.h; core/source.c calls them) ------------- */

static void add_note(struct tp_stock_info *info, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_note(struct tp_stock_info *info, const char *fmt, ...)
{
	va_list ap;

	if (info->nr_notes >= TP_STOCK_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(info->notes[info->nr_notes++], sizeof(info->notes[0]), fmt, ap);
	va_end(ap);
}

/* Every cooling device, with the domain it caps and the frequency of its state. */
static int read_cooling(const struct stock *s, struct tp_thermal *out)
{
	if (!s->nr_cooling)
		return 0;
	out->cooling = calloc(s->nr_cooling, sizeof(*out->cooling));
	if (!out->cooling)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_cooling; i++) {
		const struct stock_cooling *c = &s->cooling[i];
		struct tp_thermal_cooling *o = &out->cooling[i];

		o->id = c->id;
		snprintf(o->type, sizeof(o->type), "%s", c->type);
		o->max_state = c->max_state;
		if (stock_cooling_state(s, c, &o->cur_state) < 0)
			o->cur_state = TP_NONE;
		o->domain = c->policy >= 0 ? s->policies[c->policy].id : TP_NONE;
		o->cap_khz = c->policy >= 0 ?
			stock_state_khz(&s->policies[c->policy], o->cur_state) : TP_NONE;
	}
	out->nr_cooling = s->nr_cooling;
	return 0;
}

/* /sys/class/thermal's zones and cooling devices, now: the one reader (tp_thermal_read). */
static int stock_thermal(struct tp_source *src, struct tp_thermal *out, struct tp_error *err)
{
	struct stock *s = src->priv;
	int rc = stock_read_zones(s, &out->zones, &out->nr_zones);

	if (rc == -ENOMEM || (rc = read_cooling(s, out)) == -ENOMEM)
		return tp_error_set(err, -ENOMEM, "out of memory");
	return 0;	/* an unreadable /sys/class/thermal: no zones */
}

/* The kernel's part of describe: version, model, decay, config, reference frequency. */
static void describe_kernel(const struct stock *s, struct tp_stock_info *info)
{
	const struct stock_kernel *k = &s->kernel;
	bool assumed = true;

	snprintf(info->release, sizeof(info->release), "%s", k->release);
	info->version_major = k->major;
	info->version_minor = k->minor;
	info->version_sublevel = k->sublevel;
	snprintf(info->arch, sizeof(info->arch), "%s", k->arch);
	info->model = k->model;
	stock_model_text(k, info->model_text, sizeof(info->model_text));
	info->decay_shift = k->model == TP_STOCK_MODEL_THERMAL_PELT ? k->shift : TP_NONE;
	info->decay_shift_from_cmdline = k->shift_from_cmdline;
	info->decay_ms = k->model == TP_STOCK_MODEL_THERMAL_PELT ? (int64_t)32 << k->shift : TP_NONE;
	info->hz = k->hz;
	if (k->config[0])
		stock_path(s, info->config_file, sizeof(info->config_file), "%s", k->config);
	snprintf(info->reference_rule, sizeof(info->reference_rule), "%s",
		 stock_reference_rule(k->row->reference));
	for (size_t i = 0; i < s->nr_policies; i++)
		if (s->policies[i].ref_khz != TP_NONE)
			assumed = false;
	if (k->model != TP_STOCK_MODEL_CPUFREQ_HW && k->model != TP_STOCK_MODEL_CPUFREQ) {
		snprintf(info->reference, sizeof(info->reference), "-");
		assumed = false;
	} else if (assumed) {
		snprintf(info->reference, sizeof(info->reference),
			 "cpuinfo_max_freq (assumed: arch_scale_freq_ref() is not readable without BPF)");
	} else {
		snprintf(info->reference, sizeof(info->reference),
			 "arch_scale_freq_ref(), read from the kernel");
	}
	info->reference_assumed = assumed;
}

/* The notes about what the kernel does that the numbers alone do not say. */
static void describe_model_notes(const struct stock *s, struct tp_stock_info *info)
{
	const struct stock_kernel *k = &s->kernel;

	if (k->shift_warning[0])
		add_note(info, "%s", k->shift_warning);
	if (k->sublevel_matters)
		add_note(info, "the release %s hides the sublevel and %s/proc/version names no Debian version, but the model depends on it: thermpress assumes %d.%d.0",
			 k->release, root_name(s), k->major, k->minor);
	if (k->model == TP_STOCK_MODEL_THERMAL_PELT && s->has_cpufreq)
		add_note(info,
			 "on this kernel only the cpufreq cooling device feeds thermal pressure: a cap through scaling_max_freq lowers the frequency "
			 "but the scheduler does not count it (cap through the cooling device to create pressure)");
	if (k->model == TP_STOCK_MODEL_THERMAL_PELT && s->has_cpufreq && !info->kernel_avg_read)
		add_note(info,
			 "the kernel does not expose the averaged pressure in a file: thermpress estimates it with pelt from its own samples, "
			 "taking the pressure at its first sample as steady (as root with BTF it is read with BPF)");
	/* read with BPF, avg_pressure includes it: nothing to warn about */
	if (k->model == TP_STOCK_MODEL_CPUFREQ_HW && !info->kernel_avg_read)
		add_note(info,
			 "hardware pressure (firmware or LMh throttling) is taken as 0: the kernel's rq->avg_hw is not read (kernel average)%s",
			 info->trace_hw_pressure == 1 ? "; trace hw_pressure/hw_pressure_update to see it" : "");
	if (info->reference_assumed && s->has_cpufreq)
		add_note(info, "thermpress divides policy->max by cpuinfo_max_freq, assumed to be the kernel's reference frequency (%s), which is not read without BPF",
			 info->reference_rule);
	if (k->arch_class == STOCK_ARCH_X86 && k->row->reference == STOCK_REF_ARCH_OR_DRIVER)
		add_note(info, "intel_pstate on a hybrid CPU without SMT feeds cpufreq pressure on this kernel; sysfs does not show that, so thermpress assumes it does not");
}

/* What /sys/class/thermal lacks, and the zones with more trip points than are read. */
static void describe_thermal_notes(const struct stock *s, struct tp_stock_info *info,
				   const struct tp_thermal *th)
{
	char path[STOCK_PATH_MAX];

	stock_path(s, path, sizeof(path), "sys/class/thermal");
	if (!th->nr_zones && !th->nr_cooling)
		add_note(info, "no thermal zones or cooling devices in %s: no temperatures, trip points or cooling states to show",
			 path);
	else if (!th->nr_zones)
		add_note(info, "no thermal zones in %s: no temperatures or trip points to show", path);
	for (size_t i = 0; i < th->nr_zones; i++)
		if (th->zones[i].trips_left_out)
			add_note(info, "thermal_zone%d has more than %d trip points: only the first %d are read",
				 th->zones[i].id, TP_THERMAL_MAX_TRIPS, TP_THERMAL_MAX_TRIPS);
}

static int stock_describe(struct tp_source *src, struct tp_stock_info *info,
			  struct tp_error *err)
{
	struct stock *s = src->priv;
	char path[STOCK_PATH_MAX];
	struct tp_pending pend;
	struct tp_thermal th = { 0 };
	int rc;

	describe_kernel(s, info);
	info->has_cpufreq = s->has_cpufreq;
	info->has_cpu_capacity = s->has_cpu_capacity;
	info->uses_libcpupower = s->real_root;
	stock_trace_events(s, &info->trace_thermal_pressure, &info->trace_hw_pressure, info->tracefs,
			   sizeof(info->tracefs));
	kernel_avg_start(src, s);
	info->kernel_avg_read = s->kernel_avg != NULL;
	snprintf(info->kernel_avg, sizeof(info->kernel_avg), "%s", s->kernel_avg_status);
	info->cap_method = s->method;
	snprintf(info->state_file, sizeof(info->state_file), "%.4095s", s->state_path);
	/* an unreadable state file is an error, never "nothing pending" */
	rc = stock_pending(s, &pend, &info->nr_pending_scaling, &info->nr_pending_cooling, err);
	if (rc < 0)
		return rc;
	info->nr_pending = pend.count;
	rc = stock_thermal(src, &th, err);
	if (rc < 0) {
		tp_thermal_release(&th);
		return rc;
	}

	/* what is missing, and what is still shown */
	if (!s->has_cpufreq) {
		stock_path(s, path, sizeof(path), "sys/devices/system/cpu/cpu%d/cpufreq",
			   s->cpus[0].cpu);
		add_note(info,
			 "no cpufreq on this machine (%s is missing): no frequencies, caps or thermal pressure to show or change; "
			 "still shown: the cpus, their online state and capacity, and what the kernel does with thermal pressure",
			 path);
	}
	describe_thermal_notes(s, info, &th);
	tp_thermal_release(&th);
	describe_model_notes(s, info);
	if (!s->has_cpu_capacity)
		add_note(info, "no cpu_capacity in sysfs: every cpu is taken to have capacity 1024");
	if (info->nr_pending)
		add_note(info, "%zu limit%s changed by thermpress %s recorded in %s: `thermpress cap restore` puts %s back",
			 info->nr_pending, info->nr_pending == 1 ? "" : "s",
			 info->nr_pending == 1 ? "is" : "are", s->state_path,
			 info->nr_pending == 1 ? "it" : "them");
	return 0;
}

void tp_stock_info_release(struct tp_stock_info *info)
{
	(void)info;	/* it owns no memory any more (thermpress/stock.h) */
}

int tp_stock_cap_method_parse(const char *text, enum tp_stock_cap_method *out, struct tp_error *err)
{
	if (text && (strcmp(text, "scaling_max_freq") == 0 || strcmp(text, "scaling") == 0)) {
		*out = TP_STOCK_CAP_SCALING_MAX_FREQ;
		return 0;
	}
	if (text && (strcmp(text, "cooling") == 0 || strcmp(text, "cooling_device") == 0)) {
		*out = TP_STOCK_CAP_COOLING_DEVICE;
		return 0;
	}
	return tp_error_set(err, -EINVAL, "unknown cap method '%s' (scaling_max_freq or cooling)",
			    text ? text : "");
}

const char *tp_stock_cap_method_name(enum tp_stock_cap_method method)
{
	return method == TP_STOCK_CAP_COOLING_DEVICE ? "cooling" : "scaling_max_freq";
}

static int stock_set_cap_method(struct tp_source *src, enum tp_stock_cap_method method,
				struct tp_error *err)
{
	struct stock *s = src->priv;
	bool any = false;

	if (method == TP_STOCK_CAP_COOLING_DEVICE) {
		for (size_t i = 0; i < s->nr_policies; i++)
			any |= s->policies[i].cooling >= 0;
		if (!any)
			return tp_error_set(err, -ENODEV,
				"no cpufreq cooling device in %s/sys/class/thermal: cap through scaling_max_freq instead",
				s->root);
	} else if (method != TP_STOCK_CAP_SCALING_MAX_FREQ) {
		return tp_error_set(err, -EINVAL, "unknown cap method %d", (int)method);
	}
	s->method = method;
	return 0;
}
