/* SPDX-License-Identifier: MIT */
/*
 * The simulator's model: CPUs, frequency domains, caps, the active backend's state
 * per CPU, the clock and the scheduler tick.  It behaves like a patched kernel
 * (docs/abi.md): same validation, same reset rules, same errnos.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "source.h"
#include "sim/sim.h"
#include "backend/state_layout.h"
#include "clock.h"

uint64_t tpsim_cpu_max_khz(const struct tp_sim *sim, int cpu)
{
	return sim->preset.domains[sim->domain[cpu]].max_khz;
}

uint32_t tpsim_cpu_max_capacity(const struct tp_sim *sim, int cpu)
{
	return sim->preset.domains[sim->domain[cpu]].max_capacity;
}

/*
 * The per-CPU instances of one backend live in one aligned block (the host owns
 * plugin state): avgs[0].state is the block, so no per-CPU allocation ever happens.
 */
static void free_avgs(struct tp_avg *avgs)
{
	if (!avgs)
		return;
	free(avgs[0].state);
	free(avgs);
}

/* New instances of backend b for every CPU, in their starting state at now. */
static int build_avgs(struct tp_sim *sim, size_t b, uint32_t decay_ms, uint64_t now,
		      struct tp_avg **out, struct tp_error *err)
{
	const struct tp_backend_ops *ops = sim->backends[b].ops;
	size_t align = tp_backend_state_align(ops);
	size_t stride = tp_backend_state_stride(ops);
	size_t n = (size_t)sim->nr_cpus;
	uint32_t in_force;
	struct tp_avg *avgs;
	char *block;

	if (ops->normalize_decay(decay_ms, &in_force))
		return tp_error_set(err, -EINVAL, "decay period %u ms is out of range for %s",
				    decay_ms, ops->name);
	avgs = calloc(n, sizeof(*avgs));
	if (!avgs || posix_memalign((void **)&block, align, n * stride)) {
		free(avgs);
		return tp_error_set(err, -ENOMEM, "out of memory for %zu %s backend states", n,
				    ops->name);
	}
	memset(block, 0, n * stride);
	for (size_t i = 0; i < n; i++) {
		avgs[i].ops = ops;
		avgs[i].decay_ms = in_force;
		avgs[i].state = block + i * stride;
		tp_avg_reset(&avgs[i], now);
	}
	*out = avgs;
	return 0;
}

/* Make backend b active with decay_ms, every CPU's state reset at the current time. */
static int switch_state(struct tp_sim *sim, size_t b, uint32_t decay_ms, struct tp_error *err)
{
	struct tp_avg *avgs;
	int r = build_avgs(sim, b, decay_ms, sim->now_ns, &avgs, err);

	if (r)
		return r;
	free_avgs(sim->avgs);
	sim->avgs = avgs;
	sim->active = b;
	sim->backends[b].decay_ms = decay_ms;
	memset(sim->avg, 0, (size_t)sim->nr_cpus * sizeof(*sim->avg));
	tpsim_log_reset_line(sim, sim->now_ns);
	return 0;
}

static void tick(struct tp_sim *sim, uint64_t t)
{
	size_t d;
	uint64_t khz;

	/* the scenario's governor decides, the simulator caps (sim_scenario.c calls nothing here) */
	if (sim->scenario && tpsim_scenario_tick(sim->scenario, sim, t, &d, &khz)) {
		const struct tpsim_domain_desc *dd = &sim->preset.domains[d];

		for (int cpu = dd->first_cpu; cpu < dd->first_cpu + dd->nr_cpus; cpu++)
			tpsim_apply_cap(sim, cpu, khz);
	}
	for (int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		if (!sim->online[cpu])
			continue;
		sim->avg[cpu] = tp_avg_update(&sim->avgs[cpu], t, sim->pressure[cpu]);
		if (cpu == sim->log.cpu)
			tpsim_log_update_line(sim, t, sim->pressure[cpu], sim->avg[cpu]);
	}
}

/* Move the clock to target, running every tick at or before it, in order. */
static void run_until(struct tp_sim *sim, uint64_t target)
{
	while (sim->next_tick_ns <= target) {
		sim->now_ns = sim->next_tick_ns;
		tick(sim, sim->next_tick_ns);
		sim->next_tick_ns += sim->tick_ns;
	}
	if (target > sim->now_ns)
		sim->now_ns = target;
}

void tpsim_sync(struct tp_sim *sim)
{
	if (sim->virtual_clock)
		return;
	run_until(sim, TPSIM_T0_NS + (mono_ns() - sim->mono_origin_ns));
}

int tpsim_advance_check(uint64_t ns, struct tp_error *err)
{
	/* -ERANGE: bad input (a usage error), where -EINVAL here means a real clock */
	if (ns == 0 || ns > TPSIM_ADVANCE_MAX_NS)
		return tp_error_set(err, -ERANGE,
				    "cannot advance the clock by %llu ns (1 ns to 1 day at a time)",
				    (unsigned long long)ns);
	return 0;
}

int tpsim_advance(struct tp_sim *sim, uint64_t ns, struct tp_error *err)
{
	if (!sim->virtual_clock)
		return tp_error_set(err, -EINVAL,
				    "the simulator runs on the real clock: only a virtual clock "
				    "can be advanced");
	if (tpsim_advance_check(ns, err))
		return -ERANGE;
	run_until(sim, sim->now_ns + ns);
	return 0;
}

static int first_bad_cpu(const struct tp_sim *sim, const struct tp_cpuset *cpus)
{
	return tp_cpuset_next(cpus, sim->nr_cpus);
}

void tpsim_apply_cap(struct tp_sim *sim, int cpu, uint64_t khz)
{
	const struct tp_backend_ops *ops = sim->backends[sim->active].ops;
	uint64_t max = tpsim_cpu_max_khz(sim, cpu);

	sim->capped_khz[cpu] = khz && khz < max ? khz : max;
	sim->pressure[cpu] = tp_pressure(tpsim_cpu_max_capacity(sim, cpu), sim->capped_khz[cpu],
					 max);
	/* instant and decay (V2) also update at the change; pelt only at the tick */
	if ((ops->flags & TP_BACKEND_UPDATE_ON_CHANGE) && sim->online[cpu]) {
		sim->avg[cpu] = tp_avg_update(&sim->avgs[cpu], sim->now_ns, sim->pressure[cpu]);
		if (cpu == sim->log.cpu)
			tpsim_log_update_line(sim, sim->now_ns, sim->pressure[cpu], sim->avg[cpu]);
	}
}

int tpsim_inject(struct tp_sim *sim, const struct tp_cpuset *cpus, uint64_t khz,
		 struct tp_error *err)
{
	int bad, cpu;

	tpsim_sync(sim);
	if (tp_cpuset_next(cpus, 0) < 0)
		return tp_error_set(err, -EINVAL, "no cpu to cap");
	bad = first_bad_cpu(sim, cpus);
	if (bad >= 0)
		return tp_error_set(err, -EINVAL, "cpu %d does not exist (cpus: 0-%d)", bad,
				    sim->nr_cpus - 1);
	if (khz) {
		for (cpu = tp_cpuset_next(cpus, 0); cpu >= 0; cpu = tp_cpuset_next(cpus, cpu + 1)) {
			uint64_t max = tpsim_cpu_max_khz(sim, cpu);

			if (khz > max)
				return tp_error_set(err, -EINVAL,
						    "%llu kHz is above the maximum of cpu %d "
						    "(%llu kHz)", (unsigned long long)khz, cpu,
						    (unsigned long long)max);
		}
	}

	for (cpu = tp_cpuset_next(cpus, 0); cpu >= 0; cpu = tp_cpuset_next(cpus, cpu + 1))
		tpsim_apply_cap(sim, cpu, khz);
	return 0;
}

static size_t names_list(const struct tp_sim *sim, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sim->nr_backends && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      sim->backends[i].ops->name);
	return n;
}

int tpsim_set_backend(struct tp_sim *sim, const char *name, struct tp_error *err)
{
	char list[128];

	tpsim_sync(sim);
	for (size_t i = 0; i < sim->nr_backends; i++) {
		if (strcmp(sim->backends[i].ops->name, name))
			continue;
		if (i == sim->active)
			return 0;
		return switch_state(sim, i, sim->backends[i].decay_ms, err);
	}
	names_list(sim, list, sizeof(list));
	return tp_error_set(err, -EINVAL, "unknown backend '%.32s' (%s)", name, list);
}

int tpsim_set_decay(struct tp_sim *sim, uint64_t decay_ms, struct tp_error *err)
{
	const struct tp_backend_ops *ops = sim->backends[sim->active].ops;
	uint32_t in_force;

	tpsim_sync(sim);
	if (!ops->decay_max_ms)
		return tp_error_set(err, -EINVAL, "the %s backend has no decay period", ops->name);
	if (decay_ms > UINT32_MAX || ops->normalize_decay((uint32_t)decay_ms, &in_force))
		return tp_error_set(err, -EINVAL,
				    "decay period %llu ms is out of range for %s (%u..%u ms)",
				    (unsigned long long)decay_ms, ops->name, ops->decay_min_ms,
				    ops->decay_max_ms);
	if (in_force == sim->backends[sim->active].decay_ms)
		return 0;
	return switch_state(sim, sim->active, in_force, err);
}

/* Every plugin, in the loader's order (the kernel's backends first, in its order). */
static int load_backends(struct tp_sim *sim, const struct tp_plugin_set *plugins,
			 struct tp_error *err)
{
	size_t n = plugins ? tp_plugins_count(plugins) : 0;

	for (size_t i = 0; i < n && sim->nr_backends < TP_MAX_BACKENDS; i++)
		sim->backends[sim->nr_backends++].ops = tp_plugins_get(plugins, i);
	if (!sim->nr_backends)
		return tp_error_set(err, -ENOENT, "the simulator has no backend plugin to run");
	sim->active = 0;
	for (size_t i = 0; i < sim->nr_backends; i++) {
		sim->backends[i].decay_ms = sim->backends[i].ops->decay_default_ms;
		if (!strcmp(sim->backends[i].ops->name, "pelt"))
			sim->active = i;
	}
	return 0;
}

int tpsim_create(const struct tpsim_config *cfg, const struct tp_plugin_set *plugins,
		 struct tp_sim **out, struct tp_error *err)
{
	struct tp_sim *sim;
	int r, hz = cfg->hz ? cfg->hz : TP_HZ_DEFAULT;
	size_t n;

	if (!tp_sim_hz_valid(hz))
		return tp_error_set(err, -EINVAL, "invalid tick rate %d Hz (%s)", cfg->hz,
				    tp_sim_hz_rates_text());
	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return tp_error_set(err, -ENOMEM, "out of memory for the simulator");
	sim->log.cpu = -1;
	r = tpsim_preset_get(cfg->preset, &sim->preset, err);
	if (r)
		goto fail;
	r = load_backends(sim, plugins, err);
	if (r)
		goto fail;
	sim->nr_cpus = sim->preset.nr_cpus;
	sim->hz = hz;
	sim->tick_ns = 1000000000ull / (uint64_t)hz;
	sim->virtual_clock = cfg->virtual_clock;
	sim->now_ns = TPSIM_T0_NS;
	sim->next_tick_ns = TPSIM_T0_NS;

	n = (size_t)sim->nr_cpus;
	sim->online = calloc(n, sizeof(*sim->online));
	sim->domain = calloc(n, sizeof(*sim->domain));
	sim->capped_khz = calloc(n, sizeof(*sim->capped_khz));
	sim->pressure = calloc(n, sizeof(*sim->pressure));
	sim->avg = calloc(n, sizeof(*sim->avg));
	if (!sim->online || !sim->domain || !sim->capped_khz || !sim->pressure || !sim->avg) {
		r = tp_error_set(err, -ENOMEM, "out of memory for %zu simulated cpus", n);
		goto fail;
	}
	for (size_t d = 0; d < sim->preset.nr_domains; d++) {
		const struct tpsim_domain_desc *dd = &sim->preset.domains[d];

		for (int c = dd->first_cpu; c < dd->first_cpu + dd->nr_cpus; c++) {
			sim->domain[c] = (uint16_t)d;
			sim->online[c] = 1;
			sim->capped_khz[c] = dd->max_khz;
		}
	}
	r = build_avgs(sim, sim->active, sim->backends[sim->active].decay_ms, sim->now_ns,
		       &sim->avgs, err);
	if (r)
		goto fail;
	r = tpsim_scenario_create(cfg->scenario, sim, &sim->scenario, err);
	if (r)
		goto fail;
	/* The tick at t0 runs at once; the real clock counts from here. */
	run_until(sim, TPSIM_T0_NS);
	sim->mono_origin_ns = mono_ns();
	*out = sim;
	return 0;
fail:
	tpsim_destroy(sim);
	return r;
}

void tpsim_destroy(struct tp_sim *sim)
{
	if (!sim)
		return;
	tpsim_scenario_destroy(sim->scenario);
	free_avgs(sim->avgs);
	tpsim_log_free(sim);
	free(sim->online);
	free(sim->domain);
	free(sim->capped_khz);
	free(sim->pressure);
	free(sim->avg);
	free(sim);
}

int tpsim_snapshot(struct tp_sim *sim, struct tp_snapshot *snap, struct tp_error *err)
{
	const struct tpsim_preset *p = &sim->preset;

	tpsim_sync(sim);
	if (tp_snapshot_reserve(snap, (size_t)sim->nr_cpus, p->nr_domains))
		return tp_error_set(err, -ENOMEM, "out of memory for a snapshot of %d cpus",
				    sim->nr_cpus);
	snprintf(snap->backend, sizeof(snap->backend), "%s", tpsim_backend_name(sim, sim->active));
	snap->decay_ms = tpsim_decay_ms(sim);
	snap->hz = sim->hz;
	snap->time_ns = sim->now_ns;
	snap->nr_domains = p->nr_domains;
	for (size_t d = 0; d < p->nr_domains; d++) {
		snap->domains[d].id = p->domains[d].first_cpu;
		snprintf(snap->domains[d].name, sizeof(snap->domains[d].name), "%s",
			 p->domains[d].name);
	}
	snap->nr_cpus = (size_t)sim->nr_cpus;
	for (int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		struct tp_cpu *c = &snap->cpus[cpu];
		const struct tpsim_domain_desc *dd = &p->domains[sim->domain[cpu]];
		int64_t avg = (int64_t)sim->avg[cpu];
		int64_t cap = (int64_t)dd->max_capacity - avg;

		c->cpu = cpu;
		c->online = sim->online[cpu];
		c->domain = sim->domain[cpu];
		c->max_capacity = dd->max_capacity;
		c->max_freq_khz = (int64_t)dd->max_khz;
		c->min_freq_khz = (int64_t)dd->opps_khz[0];	/* the lowest operating point */
		c->capped_freq_khz = (int64_t)sim->capped_khz[cpu];
		c->pressure = (int64_t)sim->pressure[cpu];
		c->capped_capacity = c->max_capacity - c->pressure;
		c->avg_pressure = avg;
		c->capacity = cap < 1 ? 1 : cap;
		c->avg_estimated = false;
	}
	return 0;
}
