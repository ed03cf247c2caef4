/* SPDX-License-Identifier: MIT */
/*
 * The simulator's internal API (private to core/; tests reach it through
 * libthermpress_core_dep).  One model behaves like a patched kernel (docs/abi.md):
 * CPUs, frequency domains, caps, one averaging instance per CPU for the active
 * backend, a scheduler tick, and the update log.  Averages are computed only by the
 * loaded backend plugins (tp_avg_*).
 *
 * Files:  sim.c          the model, clocks, tick, inject, backend and decay switching
 *         sim_presets.c  the presets (hikey960, db410c, smp:N)
 *         sim_scenario.c thermal scenarios that cap CPUs on their own
 *         sim_log.c      the update log (log_cpu / log)
 *         sim_files.c    the docs/abi.md files: content of reads, handling of writes
 *         sim_fuse.c     serving those files with libfuse3
 *         source_sim.c   the struct tp_source seam (tp_source_sim_open)
 */
#ifndef TP_CORE_SIM_H
#define TP_CORE_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <thermpress/thermpress.h>

/* The virtual clock starts here (and the real clock counts from here). */
#define TPSIM_T0_NS TP_SIM_START_NS
/* The most one advance may move the clock: one day. */
#define TPSIM_ADVANCE_MAX_NS (86400ull * 1000000000ull)
/* Whether ns is a step the clock takes (1 ns to TPSIM_ADVANCE_MAX_NS): 0 or -ERANGE. */
int tpsim_advance_check(uint64_t ns, struct tp_error *err);
#define TPSIM_MAX_CPUS 4096
#define TPSIM_MAX_DOMAINS 64
#define TPSIM_MAX_OPPS 16
#define TPSIM_LOG_MAX 65536

/* ---- presets ---------------------------------------------------------------- */

struct tpsim_domain_desc {
	char name[TP_NAME_MAX];
	int first_cpu;
	int nr_cpus;
	uint32_t max_capacity;
	uint64_t max_khz;
	size_t nr_opps;			/* ascending, the last one is max_khz */
	uint64_t opps_khz[TPSIM_MAX_OPPS];
};

struct tpsim_preset {
	char name[TP_NAME_MAX];		/* canonical: "hikey960", "db410c", "smp:4" */
	int nr_cpus;
	size_t nr_domains;
	struct tpsim_domain_desc domains[TPSIM_MAX_DOMAINS];
};

/* NULL means hikey960.  -EINVAL with a message naming the bad preset. */
int tpsim_preset_get(const char *name, struct tpsim_preset *out, struct tp_error *err);

/* ---- scenarios -------------------------------------------------------------- */

struct tpsim_scenario;	/* the running state of one scenario */
struct tp_sim;

/* NULL or "none": no scenario (*out NULL).  -EINVAL for an unknown name. */
int tpsim_scenario_create(const char *name, const struct tp_sim *sim,
			  struct tpsim_scenario **out, struct tp_error *err);
void tpsim_scenario_destroy(struct tpsim_scenario *sc);
const char *tpsim_scenario_name(const struct tpsim_scenario *sc);
/*
 * Called at every tick time t before the CPUs are updated.  True when the governor
 * moves the cap of domain *domain to *khz, which the simulator then applies to the
 * domain's CPUs (the scenario decides, the simulator caps: no call back into sim.c).
 */
bool tpsim_scenario_tick(struct tpsim_scenario *sc, const struct tp_sim *sim, uint64_t t,
			 size_t *domain, uint64_t *khz);
/* Temperature of domain d in millidegrees C (TP_NONE without a model). */
int64_t tpsim_scenario_temp_mc(const struct tpsim_scenario *sc, size_t d);
/* The heat model as thermal zones (tp_thermal_read); out zeroed; nothing for sc NULL.
 * 0 or -ENOMEM (out's arrays then freed by the caller). */
int tpsim_scenario_thermal(const struct tpsim_scenario *sc, const struct tp_sim *sim,
			   struct tp_thermal *out);

/* ---- the model ---------------------------------------------------------------- */

enum tpsim_log_kind { TPSIM_LOG_RESET, TPSIM_LOG_UPDATE };

struct tpsim_log_entry {
	uint64_t time_ns;
	uint64_t a;		/* reset: backend index; update: pressure */
	uint64_t b;		/* reset: decay ms;      update: avg pressure */
	uint32_t kind;
};

struct tpsim_log {
	int cpu;			/* -1: not logging */
	size_t count;
	bool overflow;
	struct tpsim_log_entry *entries;	/* TPSIM_LOG_MAX, allocated at first use */
};

struct tpsim_backend {
	const struct tp_backend_ops *ops;
	uint32_t decay_ms;		/* in force for this backend (0: none) */
};

struct tp_sim {
	struct tpsim_preset preset;
	int nr_cpus;
	int hz;
	bool virtual_clock;
	uint64_t tick_ns;
	uint64_t now_ns;		/* the clock as of the last sync */
	uint64_t next_tick_ns;		/* t0 + k * tick_ns, the next tick to run */
	uint64_t mono_origin_ns;	/* real clock: CLOCK_MONOTONIC at t0 */

	/* per CPU, one allocation each, indexed by CPU number */
	uint8_t *online;
	uint16_t *domain;		/* index into preset.domains */
	uint64_t *capped_khz;		/* == max when not capped */
	uint64_t *pressure;
	uint64_t *avg;
	struct tp_avg *avgs;		/* the active backend's instances */

	size_t nr_backends;
	struct tpsim_backend backends[TP_MAX_BACKENDS];
	size_t active;

	struct tpsim_log log;
	struct tpsim_scenario *scenario;
};

struct tpsim_config {
	const char *preset;		/* NULL: hikey960 */
	int hz;				/* 0: TP_HZ_DEFAULT */
	bool virtual_clock;
	const char *scenario;		/* NULL: none */
};

int tpsim_create(const struct tpsim_config *cfg, const struct tp_plugin_set *plugins,
		 struct tp_sim **out, struct tp_error *err);
void tpsim_destroy(struct tp_sim *sim);

/* Real clock: run every tick due since the last sync.  Virtual clock: nothing. */
void tpsim_sync(struct tp_sim *sim);
/* Virtual clock only: move the clock by ns (> 0), running every tick in between. */
int tpsim_advance(struct tp_sim *sim, uint64_t ns, struct tp_error *err);

/*
 * Cap every CPU of cpus at khz (0: clear).  Validates everything first (non-empty,
 * every CPU exists, 1 <= khz <= the max of every listed CPU); -EINVAL changes nothing.
 */
int tpsim_inject(struct tp_sim *sim, const struct tp_cpuset *cpus, uint64_t khz,
		 struct tp_error *err);
int tpsim_set_backend(struct tp_sim *sim, const char *name, struct tp_error *err);
int tpsim_set_decay(struct tp_sim *sim, uint64_t decay_ms, struct tp_error *err);
/* The decay in force for the active backend (0 for one without a parameter). */
static inline uint32_t tpsim_decay_ms(const struct tp_sim *sim)
{
	return sim->backends[sim->active].decay_ms;
}

static inline const char *tpsim_backend_name(const struct tp_sim *sim, size_t i)
{
	return sim->backends[i].ops->name;
}

/* Fill snap (reusing its buffers).  Does not sync: callers sync first. */
int tpsim_snapshot(struct tp_sim *sim, struct tp_snapshot *snap, struct tp_error *err);

/* Cap one CPU at khz (0 or max: clear) at the current time, as the cooling device
 * does: no validation, no sync (the tick calls it for the scenario's governor). */
void tpsim_apply_cap(struct tp_sim *sim, int cpu, uint64_t khz);

/* Used by the tick, inject and the scenario. */
uint64_t tpsim_cpu_max_khz(const struct tp_sim *sim, int cpu);
uint32_t tpsim_cpu_max_capacity(const struct tp_sim *sim, int cpu);

/* ---- the update log (sim_log.c) ------------------------------------------------- */

/*
 * cpu -1 stops logging; a CPU starts a new log (its backend state is reset) at the
 * simulator's time: callers sync first.
 */
int tpsim_log_set_cpu(struct tp_sim *sim, int64_t cpu, struct tp_error *err);
void tpsim_log_reset_line(struct tp_sim *sim, uint64_t t);
void tpsim_log_update_line(struct tp_sim *sim, uint64_t t, uint64_t pressure, uint64_t avg);
/* The `log` file text, malloc'ed. */
int tpsim_log_format(const struct tp_sim *sim, char **text, size_t *len);
void tpsim_log_free(struct tp_sim *sim);

/* ---- the docs/abi.md files (sim_files.c) ----------------------------------------- */

enum tpsim_file_mode { TPSIM_R = 1, TPSIM_W = 2 };

struct tpsim_file {
	const char *name;
	unsigned mode;			/* file mode bits, e.g. 0444 */
	unsigned access;		/* TPSIM_R | TPSIM_W: what the file supports */
};

/* The files of the interface directory, NULL-name terminated. */
extern const struct tpsim_file tpsim_files[];
const struct tpsim_file *tpsim_file_find(const char *name);

/*
 * The content of a read of file (synced first), malloc'ed, NUL terminated.
 * -EINVAL for a write-only file.
 */
int tpsim_file_read(struct tp_sim *sim, const struct tpsim_file *file, char **text,
		    size_t *len);
/* One write() of len bytes at offset: 0 or the negative errno of docs/abi.md. */
int tpsim_file_write(struct tp_sim *sim, const struct tpsim_file *file, const char *buf,
		     size_t len, uint64_t offset, struct tp_error *err);

/* ---- FUSE (sim_fuse.c) ----------------------------------------------------------- */

int tpsim_fuse_serve(struct tp_sim *sim, const char *mountpoint, volatile sig_atomic_t *stop,
		     struct tp_error *err);

#endif
