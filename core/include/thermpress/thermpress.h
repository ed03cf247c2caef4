/* SPDX-License-Identifier: MIT */
/*
 * libthermpress: read and steer the scheduler's view of thermal pressure.
 *
 * Every function returns 0 or a negative errno.  When it fails and the caller passed
 * a struct tp_error, err->msg holds one human sentence in git's style (lower case,
 * no trailing period, names the subject: "cpu 9 does not exist (online: 0-7)").
 * The library never prints and never exits.
 *
 * A value that does not exist is TP_NONE, never 0.
 */
#ifndef THERMPRESS_H
#define THERMPRESS_H

#include <signal.h>	/* sig_atomic_t: the stop flags */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <thermpress/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the public API: exported from libthermpress, built with hidden visibility */
#pragma GCC visibility push(default)

#define TP_NONE (-1)
#define TP_MAX_CPUS 8192
#define TP_NAME_MAX 32
/* the scheduler's capacity scale (SCHED_CAPACITY_SCALE): the biggest CPU at its top
 * frequency; capacities and pressures are on it */
#define TP_CAPACITY_SCALE 1024
#define TP_MAX_BACKENDS 16

/* Where the default root and plugin directory come from when not given. */
#define TP_ENV_ROOT "THERMPRESS_ROOT"
#define TP_ENV_PLUGIN_DIR "THERMPRESS_PLUGIN_DIR"
/* The interface directory below the root (docs/abi.md). */
#define TP_ABI_DIR "sys/kernel/debug/sched/thermal_pressure"
#define TP_ABI_VERSION 1

/* ---- Versions -------------------------------------------------------------- */

struct tp_version_info {
	const char *version;		/* the library's release: "0.1.0" */
	int abi_version;		/* the docs/abi.md interface it reads: TP_ABI_VERSION */
	unsigned backend_abi_version;	/* the plugins it loads: TP_BACKEND_ABI_VERSION */
	int trace_version;		/* the traces it writes (experiment.h: TP_TRACE_VERSION) */
};

/* The library actually loaded, which may be newer than the headers a program was built with. */
const struct tp_version_info *tp_version(void);

/* ---- Tick rates ------------------------------------------------------------ */

/* CONFIG_HZ when nothing says otherwise: the simulator's and replay's default. */
#define TP_HZ_DEFAULT 250

/*
 * The tick rates the simulator runs at, ascending, and the same as text for messages and
 * help (a string literal, so that static help can quote it; test_tick checks the two agree).
 */
#define TP_HZ_RATES 100, TP_HZ_DEFAULT, 1000
#define TP_HZ_RATES_TEXT "100, 250 or 1000"

/* Whether hz is a tick rate the simulator runs at (TP_HZ_RATES). */
bool tp_sim_hz_valid(int hz);
/* Those rates, ascending; *rates points to a static array. */
size_t tp_sim_hz_rates(const int **rates);
/* The same as text for messages: TP_HZ_RATES_TEXT. */
const char *tp_sim_hz_rates_text(void);

/* The simulator's clock when it starts (and a profile's start when replayed): 10 s. */
#define TP_SIM_START_NS 10000000000ull

struct tp_error {
	int code;		/* the negative errno also returned */
	char msg[256];
};

/* ---- CPU sets ------------------------------------------------------------ */

struct tp_cpuset {
	uint64_t bits[TP_MAX_CPUS / 64];
};

void tp_cpuset_zero(struct tp_cpuset *set);
void tp_cpuset_add(struct tp_cpuset *set, int cpu);
bool tp_cpuset_has(const struct tp_cpuset *set, int cpu);
int tp_cpuset_count(const struct tp_cpuset *set);
/* The lowest CPU in set that is >= from, or -1. */
int tp_cpuset_next(const struct tp_cpuset *set, int from);
/* "0-3,6"; "" for an empty set.  Returns the length it needs (snprintf style). */
size_t tp_cpuset_format(const struct tp_cpuset *set, char *buf, size_t len);

/* ---- Snapshots --------------------------------------------------------- */

struct tp_cpu {
	int cpu;
	int online;			/* 1, 0 or TP_NONE */
	int domain;			/* index into tp_snapshot.domains, or TP_NONE */
	int64_t max_capacity;		/* 1..1024 */
	int64_t max_freq_khz;
	int64_t min_freq_khz;		/* the lowest it runs at; TP_NONE (or 0) when unknown */
	int64_t capped_freq_khz;	/* == max_freq_khz when not capped */
	int64_t capped_capacity;	/* max_capacity - pressure */
	int64_t pressure;		/* instantaneous */
	int64_t avg_pressure;		/* the active backend's output */
	int64_t capacity;		/* what the scheduler uses */
	bool avg_estimated;		/* avg_pressure computed by thermpress, not read */
};

/* A frequency domain (cluster): CPUs that share one cpufreq policy. */
struct tp_domain {
	int id;				/* the policy number: its first CPU */
	char name[TP_NAME_MAX];		/* "little", "big", or "cluster0", ... */
};

struct tp_snapshot {
	char source[TP_NAME_MAX];	/* "patched", "sim", "stock" */
	char backend[TP_NAME_MAX];	/* active backend, "" when unknown */
	int64_t decay_ms;		/* in force for the active backend, TP_NONE when unknown */
	int hz;				/* tick rate, TP_NONE when unknown */
	uint64_t time_ns;		/* the source's clock */
	size_t nr_cpus;
	struct tp_cpu *cpus;		/* in CPU order, cpus[i].cpu need not be i */
	size_t nr_domains;
	struct tp_domain *domains;
};

/* An empty snapshot: no CPUs, nothing known ("struct tp_snapshot s = TP_SNAPSHOT_INIT;"). */
#define TP_SNAPSHOT_INIT { .decay_ms = TP_NONE, .hz = TP_NONE }

/* Make snap an empty snapshot, before its first use (as TP_SNAPSHOT_INIT does). */
void tp_snapshot_init(struct tp_snapshot *snap);

/* Index of cpu in snap->cpus, or -1. */
int tp_snapshot_find_cpu(const struct tp_snapshot *snap, int cpu);
/* The domain c belongs to in snap; NULL when it has none (no cpufreq policy). */
const struct tp_domain *tp_snapshot_domain(const struct tp_snapshot *snap, const struct tp_cpu *c);
/*
 * Whether c runs capped: 1 when its frequency limit is below its maximum frequency, 0
 * when not; on a source that knows no frequencies, the same of its capped capacity
 * against its maximum capacity; TP_NONE when neither is known.  The one rule show,
 * top, JSON and the exporter use.
 */
int tp_cpu_capped(const struct tp_cpu *c);
void tp_snapshot_release(struct tp_snapshot *snap);

/* ---- Sources ----------------------------------------------------------- */

enum tp_source_kind {
	TP_SOURCE_AUTO = 0,	/* the patched kernel when its interface exists */
	TP_SOURCE_PATCHED,	/* docs/abi.md under a root directory */
	TP_SOURCE_SIM,		/* the built-in simulator, in process */
	TP_SOURCE_STOCK,	/* an unpatched kernel's cpufreq/thermal interfaces */
};

struct tp_open_options {
	enum tp_source_kind kind;
	const char *root;		/* NULL: $THERMPRESS_ROOT, else "/" */
	const char *plugin_dir;		/* NULL: as tp_plugins_load() finds them */
	/* simulator only */
	const char *sim_preset;		/* NULL: "hikey960"; "db410c"; "smp:N" (N 1..4096) */
	int sim_hz;			/* 0: TP_HZ_DEFAULT; else tp_sim_hz_valid() */
	bool sim_virtual_clock;		/* time moves only through tp_sim_advance() */
	const char *sim_scenario;	/* NULL: none; see tp_sim_scenarios() */
};

struct tp_source;

int tp_source_open(const struct tp_open_options *opts, struct tp_source **out,
		   struct tp_error *err);
void tp_source_close(struct tp_source *src);
enum tp_source_kind tp_source_kind(const struct tp_source *src);
/* "patched kernel at /", "simulator hikey960 (virtual clock)" */
const char *tp_source_describe(const struct tp_source *src);
/* A kind's name: "patched", "sim", "stock" (tp_source_info.kind_name); NULL for
 * TP_SOURCE_AUTO or a value that names no kind. */
const char *tp_source_kind_name(enum tp_source_kind kind);
/* The kind a name gives (not "auto"): 0, or -EINVAL. */
int tp_source_kind_parse(const char *name, enum tp_source_kind *out);

enum tp_clock_kind {
	TP_CLOCK_REAL = 0,	/* moves by itself, with the machine's time */
	TP_CLOCK_VIRTUAL,	/* a simulator's: moves only through tp_sim_advance() */
};

/* What a source is; its strings live as long as the source. */
struct tp_source_info {
	enum tp_source_kind kind;	/* never TP_SOURCE_AUTO */
	const char *kind_name;		/* "patched", "sim", "stock": tp_snapshot.source */
	const char *description;	/* tp_source_describe() */
	int abi_version;		/* the docs/abi.md version it speaks, TP_NONE: none (stock) */
	bool simulated;			/* the simulator, in process or served under a root */
	enum tp_clock_kind clock;
};

/*
 * Fill info.  A served simulator's clock is read from its sim_clock file now; when
 * that fails the other fields are still filled.
 */
int tp_source_info(const struct tp_source *src, struct tp_source_info *info, struct tp_error *err);

/*
 * Take a consistent snapshot.  snap must be initialized (tp_snapshot_init()) before
 * its first use and may be passed again to reuse its buffers; free it with
 * tp_snapshot_release(), which leaves it empty again.
 */
int tp_snapshot_take(struct tp_source *src, struct tp_snapshot *snap, struct tp_error *err);

/* ---- Parsers (strict: the whole token must parse) ---------------------- */

/*
 * CPU lists: "0-3,6", "all", and domain names ("big") where the topology has them.
 * Every CPU must exist in topo; the message names the bad token and the valid CPUs.
 */
int tp_parse_cpulist(const char *text, const struct tp_snapshot *topo,
		     struct tp_cpuset *out, struct tp_error *err);

/* "2362000" (kHz), "2.36GHz", "1800MHz", "1800000kHz", "900000000Hz"; > 0. */
int tp_parse_freq_khz(const char *text, uint64_t *khz, struct tp_error *err);

/*
 * "250ms", "1s", "1.5s", "400us", "10ns", "2min"; > 0 and exact to the nanosecond.
 * A bare number ("250") is in default_unit_ns; with default_unit_ns 0 it is refused,
 * and the message asks "did you mean 250s?" (the rule of every duration a user types,
 * docs/values.md).
 */
int tp_parse_duration_ns(const char *text, uint64_t default_unit_ns, uint64_t *ns,
			 struct tp_error *err);

/* A decay period for `decay set`: a duration, bare numbers in ms, whole ms only. */
int tp_parse_decay_ms(const char *text, uint32_t *ms, struct tp_error *err);

enum tp_cap_kind {
	TP_CAP_KHZ,		/* a frequency */
	TP_CAP_CAPACITY,	/* "cap=600": the capped capacity wanted */
	TP_CAP_PERCENT,		/* "60%": of each CPU's max frequency */
};

struct tp_cap_value {
	enum tp_cap_kind kind;
	uint64_t value;		/* kHz, capacity or percent */
};

int tp_parse_cap_value(const char *text, struct tp_cap_value *out, struct tp_error *err);

/*
 * The frequency that realises value on cpu: a capacity or percent rounds up, so that
 * the capped capacity is at least what was asked for.  -EINVAL when the frequency is
 * out of the CPU's range, lowest..max kHz (1..max when the source does not know the
 * lowest), whatever the unit (the message gives the range in kHz), -ENODATA when the CPU has no
 * known frequency.
 */
int tp_cap_resolve_khz(const struct tp_cap_value *value, const struct tp_cpu *cpu,
		       uint64_t *khz, struct tp_error *err);

/*
 * Check the cap value text before capping cpu with it, whatever its unit: the frequency
 * it stands for outside the CPU's range (its lowest frequency where the source knows it,
 * tp_cpu.min_freq_khz, .. its maximum) is -EINVAL, with the same message as
 * tp_cap_resolve_khz; a bare number ("50": kHz) is often a slip for 50% or 50MHz, and
 * its message ends with a hint ("; did you mean 50%?").  Where the source does not know
 * the lowest frequency, a frequency below a tenth of the maximum gives 0 and a warning
 * (with the hint) in warn for the caller to show.  Otherwise 0 and warn[0] == '\0'.
 */
int tp_cap_check_bare(const char *text, const struct tp_cpu *cpu, char *warn, size_t len,
		      struct tp_error *err);

/* The instantaneous pressure: max_cap - max_cap * capped / max (mult_frac). */
uint64_t tp_pressure(uint64_t max_capacity, uint64_t capped_khz, uint64_t max_khz);

/* ---- Control ------------------------------------------------------------ */

/*
 * Cap every CPU of cpus.  All of it is validated before anything is written; if the
 * source still refuses part of it, what was applied is rolled back.
 */
int tp_cap_set(struct tp_source *src, const struct tp_cpuset *cpus,
	       const struct tp_cap_value *value, struct tp_error *err);
int tp_cap_clear(struct tp_source *src, const struct tp_cpuset *cpus, struct tp_error *err);
/*
 * The same against snap, a snapshot of src the caller took (and checked the CPUs and
 * the value's text against): no snapshot of its own, so a command reads the source's
 * state once.  A source that records caps may still read the caps in force while it
 * holds its state file's lock (the original it records must be the one of that moment).
 */
int tp_cap_set_in(struct tp_source *src, const struct tp_snapshot *snap,
		  const struct tp_cpuset *cpus, const struct tp_cap_value *value,
		  struct tp_error *err);
int tp_cap_clear_in(struct tp_source *src, const struct tp_snapshot *snap,
		    const struct tp_cpuset *cpus, struct tp_error *err);

/* Switch backend; decay_ms 0 keeps the backend's own period. */
int tp_backend_set(struct tp_source *src, const char *name, uint32_t decay_ms,
		   struct tp_error *err);
/* Set the decay period of the active backend. */
int tp_decay_set(struct tp_source *src, uint32_t decay_ms, struct tp_error *err);

struct tp_backend_info {
	char name[TP_NAME_MAX];
	char summary[128];		/* "" when no plugin describes it */
	bool active;
	bool has_plugin;		/* thermpress can compute it */
	uint32_t decay_min_ms, decay_max_ms, decay_default_ms;	/* 0: no parameter */
	int64_t decay_ms;		/* in force, TP_NONE when unknown */
};

/* The backends the source offers, in its order. */
int tp_backend_list(struct tp_source *src, struct tp_backend_info *out, size_t max,
		    size_t *count, struct tp_error *err);

/*
 * Put caps back later: tp_limits_save() keeps the caps in force on cpus (on a stock
 * kernel: each policy's scaling_max_freq and cooling state), tp_limits_put_back()
 * writes them back for the CPUs of only (NULL: all of them), so that a command that
 * caps for a while restores exactly what was there before (an earlier `cap set`
 * too).  A limit put back to the original its state file records drops the record.
 */
struct tp_limits;
int tp_limits_save(struct tp_source *src, const struct tp_cpuset *cpus, struct tp_limits **out,
		   struct tp_error *err);
int tp_limits_put_back(struct tp_source *src, const struct tp_limits *limits,
		       const struct tp_cpuset *only, struct tp_error *err);
void tp_limits_free(struct tp_limits *limits);

/* ---- Undoing after a crash (the state file) -------------------------------- */

/*
 * From now on, record every cap, backend and decay change made through src in the
 * source's state file before making it, so that tp_restore() (`cap restore`) can
 * undo it after a crash.  Holding commands (cap hold, cap play, bench) call it.
 * A stock kernel always records caps; the in-process simulator ends with the
 * process and records nothing (0).
 */
int tp_source_journal(struct tp_source *src, struct tp_error *err);

/*
 * Holds that nest (docs/state.md, "Holds nest").  tp_hold_begin() makes this process a
 * holder and turns on the state file (as tp_source_journal() does, keeping the state
 * directory open from now on): every cap it sets from then on is entered in the file's
 * ledger under this process's pid and start time.  tp_hold_end() ends the hold: each
 * CPU it held gets the cap of the most recent live holder left, or, after the last
 * one, what it carried before the first.  Holds of processes that are gone are dropped
 * on the way.  When the state file cannot be used any more, on the patched interface
 * each CPU gets back what it carried before this hold capped it, and the result is 1
 * with err saying so.  On failure, left (may be NULL) gets the CPUs that may still
 * carry this hold's cap.  -ENOTSUP from tp_hold_begin(): the source keeps no ledger
 * (the in-process simulator): use tp_limits_save() and tp_limits_put_back().
 */
int tp_hold_begin(struct tp_source *src, struct tp_error *err);
int tp_hold_end(struct tp_source *src, struct tp_cpuset *left, struct tp_error *err);

struct tp_restore_report {
	size_t restored;		/* limits, decay periods and backends written back */
	size_t skipped;			/* damaged lines of the file, left out */
	char skipped_text[320];		/* "" or which lines and the file */
};

/*
 * Write back everything the state file records (this process's or a killed one's)
 * and remove the records.  Damaged lines do not stop the intact ones; they are
 * counted in rep and removed.  A change that cannot be undone stays recorded and the
 * call fails naming it.  -ENOTSUP on the in-process simulator.
 */
int tp_restore(struct tp_source *src, struct tp_restore_report *rep, struct tp_error *err);

struct tp_pending {
	char state_file[4200];		/* "" when the source keeps none */
	size_t count;			/* changes recorded and not undone */
	size_t skipped;			/* damaged lines */
};

/* What the state file records; a file that cannot be read is an error. */
int tp_pending(struct tp_source *src, struct tp_pending *out, struct tp_error *err);

/* ---- Thermal zones ---------------------------------------------------------- */

/*
 * The one model of thermal zones and cooling devices, for every source and every
 * reader (show status, show --json, top, export).  Zones and cooling devices are as
 * many as the source has; a zone keeps at most TP_THERMAL_MAX_TRIPS trip points and
 * says when it has more (trips_left_out), never cutting them silently.
 */
#define TP_THERMAL_MAX_TRIPS 16

struct tp_thermal_trip {
	char type[16];			/* "passive", "hot", "critical", "active" */
	int64_t temp_mc;		/* millidegrees Celsius, TP_NONE when unreadable */
	int64_t hyst_mc;		/* TP_NONE when absent */
};

struct tp_thermal_zone {
	int id;				/* N of thermal_zoneN (the simulator: its domain's index) */
	char type[TP_NAME_MAX];		/* "cpu-thermal", "x86_pkg_temp", "big-thermal" */
	int64_t temp_mc;		/* TP_NONE when unreadable */
	size_t nr_trips;
	struct tp_thermal_trip trips[TP_THERMAL_MAX_TRIPS];
	/* the zone has more trip points than TP_THERMAL_MAX_TRIPS: the rest are not read */
	bool trips_left_out;
};

struct tp_thermal_cooling {
	int id;				/* N of cooling_deviceN (the simulator numbers its own) */
	char type[TP_NAME_MAX];		/* "cpufreq-cpu4", "Processor", "fan" */
	int domain;			/* tp_domain.id of the frequency domain it caps (cpufreq
					   cooling), TP_NONE: it caps none (a fan) */
	int64_t cur_state, max_state;	/* 0: not capped; TP_NONE when unreadable */
	int64_t cap_khz;		/* the frequency cur_state caps to, TP_NONE when unknown */
};

/* What a source knows of its thermal zones and cooling devices, now. */
struct tp_thermal {
	size_t nr_zones;
	struct tp_thermal_zone *zones;	/* owned; tp_thermal_release() */
	size_t nr_cooling;
	struct tp_thermal_cooling *cooling;
};

/*
 * The temperatures, trip points and cooling states the source has: the simulator's
 * heat model under a scenario (one zone per domain, and the cpufreq cooling device of
 * the domain its governor caps), a stock kernel's /sys/class/thermal (every zone and
 * cooling device).  out is overwritten (release an earlier result first); free it with
 * tp_thermal_release(), also after a failure.  0 with nothing in out when the source
 * has none (a simulator without a scenario); -ENOTSUP for a patched kernel's
 * interface, which carries no temperatures.
 */
int tp_thermal_read(struct tp_source *src, struct tp_thermal *out, struct tp_error *err);
void tp_thermal_release(struct tp_thermal *th);

/* ---- Simulator ----------------------------------------------------------- */

/* The simulator's scenario names for sim_scenario, NULL-terminated ("heat"). */
const char *const *tp_sim_scenarios(void);

/* Advance a virtual clock (the in-process simulator, or a served one: sim_clock). */
int tp_sim_advance(struct tp_source *src, uint64_t ns, struct tp_error *err);

/*
 * Serve src's simulator as the docs/abi.md tree at mountpoint with FUSE until
 * *stop becomes nonzero or the filesystem is unmounted.  Returns -ENOTSUP with a
 * reason when FUSE cannot be used here.
 */
int tp_sim_serve(struct tp_source *src, const char *mountpoint, volatile sig_atomic_t *stop,
		 struct tp_error *err);

/* ---- Plugins --------------------------------------------------------------- */

struct tp_plugin_set;

/*
 * Load every backend plugin in dir (NULL: $THERMPRESS_PLUGIN_DIR, else the build tree
 * the running program was built in, else the installed directory; docs/plugins.md).  Broken, incomplete or version-mismatched plugins are skipped and
 * listed as warnings; only an unreadable directory or no usable plugin fails.
 */
int tp_plugins_load(const char *dir, struct tp_plugin_set **out, struct tp_error *err);
void tp_plugins_free(struct tp_plugin_set *set);
size_t tp_plugins_count(const struct tp_plugin_set *set);
const struct tp_backend_ops *tp_plugins_get(const struct tp_plugin_set *set, size_t i);
const struct tp_backend_ops *tp_plugins_find(const struct tp_plugin_set *set, const char *name);
/* The backends every thermpress-patched kernel knows, in its order ("instant", "pelt",
 * "decay", "none"); a plugin set lists these first, in this order, then any other by
 * name.  *names points to a static array. */
size_t tp_backend_kernel_order(const char *const **names);
size_t tp_plugins_warning_count(const struct tp_plugin_set *set);
const char *tp_plugins_warning(const struct tp_plugin_set *set, size_t i);
/* The plugin set a source loaded; NULL when none could be loaded. */
const struct tp_plugin_set *tp_source_plugins(const struct tp_source *src);
/*
 * Why no plugin set could be loaded (the source still works, but shows no backend
 * summaries and estimates no averages), or NULL.
 */
const char *tp_source_plugin_error(const struct tp_source *src);

/* One averaging instance whose state the host allocates. */
struct tp_avg {
	const struct tp_backend_ops *ops;
	uint32_t decay_ms;		/* in force */
	void *state;
};

/* decay_ms 0: the backend's default.  -EINVAL (with the range) when it is refused. */
int tp_avg_init(struct tp_avg *avg, const struct tp_backend_ops *ops, uint32_t decay_ms,
		uint64_t now_ns, struct tp_error *err);
void tp_avg_reset(struct tp_avg *avg, uint64_t now_ns);
uint64_t tp_avg_update(struct tp_avg *avg, uint64_t now_ns, uint64_t pressure);
void tp_avg_fini(struct tp_avg *avg);

/* ---- Errors ------------------------------------------------------------- */

/* Fill err (if not NULL) and return code (a negative errno). */
int tp_error_set(struct tp_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
