/* SPDX-License-Identifier: MIT */
/* The simulator as a struct tp_source: the in-process seam of core/source.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "source.h"
#include "sim/sim.h"

static struct tp_sim *sim_of(struct tp_source *src)
{
	return src->priv;
}

static int op_snapshot(struct tp_source *src, struct tp_snapshot *snap, struct tp_error *err)
{
	return tpsim_snapshot(sim_of(src), snap, err);
}

static int op_inject(struct tp_source *src, const struct tp_cpuset *cpus, uint64_t khz,
		     struct tp_error *err)
{
	return tpsim_inject(sim_of(src), cpus, khz, err);
}

static int op_set_backend(struct tp_source *src, const char *name, struct tp_error *err)
{
	return tpsim_set_backend(sim_of(src), name, err);
}

static int op_set_decay(struct tp_source *src, uint32_t decay_ms, struct tp_error *err)
{
	return tpsim_set_decay(sim_of(src), decay_ms, err);
}

static int op_backends(struct tp_source *src, char names[][TP_NAME_MAX], size_t max,
		       size_t *count, int *active, int64_t *decay_ms, struct tp_error *err)
{
	struct tp_sim *sim = sim_of(src);
	size_t n = sim->nr_backends < max ? sim->nr_backends : max;

	tpsim_sync(sim);
	for (size_t i = 0; i < n; i++)
		snprintf(names[i], TP_NAME_MAX, "%s", tpsim_backend_name(sim, i));
	*count = n;
	*active = sim->active < n ? (int)sim->active : -1;
	*decay_ms = tpsim_decay_ms(sim);
	return 0;
}

static int op_info(const struct tp_source *src, struct tp_source_info *info,
		   struct tp_error *err)
{
	const struct tp_sim *sim = src->priv;

	/* it serves docs/abi.md as it is, so it speaks the version a kernel does */
	info->abi_version = TP_ABI_VERSION;
	info->simulated = true;
	info->clock = sim->virtual_clock ? TP_CLOCK_VIRTUAL : TP_CLOCK_REAL;
	return 0;
}

static int op_advance(struct tp_source *src, uint64_t ns, struct tp_error *err)
{
	return tpsim_advance(sim_of(src), ns, err);
}

static int op_serve(struct tp_source *src, const char *mountpoint, volatile sig_atomic_t *stop,
		    struct tp_error *err)
{
	return tpsim_fuse_serve(sim_of(src), mountpoint, stop, err);
}

static int op_thermal(struct tp_source *src, struct tp_thermal *out, struct tp_error *err)
{
	struct tp_sim *sim = sim_of(src);

	tpsim_sync(sim);	/* the model as of now, as a snapshot would be */
	if (tpsim_scenario_thermal(sim->scenario, sim, out) < 0)
		return tp_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

static void op_close(struct tp_source *src)
{
	tpsim_destroy(sim_of(src));
	src->priv = NULL;
}

static const struct tp_source_ops sim_ops = {
	.snapshot = op_snapshot,
	.inject = op_inject,
	.set_backend = op_set_backend,
	.set_decay = op_set_decay,
	.backends = op_backends,
	.info = op_info,
	.advance = op_advance,
	.serve = op_serve,
	.thermal = op_thermal,
	.close = op_close,
};

int tp_source_sim_open(const struct tp_open_options *opts, struct tp_source *src,
		       struct tp_error *err)
{
	struct tpsim_config cfg = {
		.preset = opts->sim_preset,
		.hz = opts->sim_hz,
		.virtual_clock = opts->sim_virtual_clock,
		.scenario = opts->sim_scenario,
	};
	struct tp_sim *sim;
	int r = tpsim_create(&cfg, src->plugins, &sim, err);

	if (r)
		return r;
	src->ops = &sim_ops;
	src->kind = TP_SOURCE_SIM;
	src->priv = sim;
	snprintf(src->description, sizeof(src->description), "simulator %s (%s clock%s%s)",
		 sim->preset.name, sim->virtual_clock ? "virtual" : "real",
		 sim->scenario ? ", scenario " : "",
		 sim->scenario ? tpsim_scenario_name(sim->scenario) : "");
	return 0;
}
