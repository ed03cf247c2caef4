/* SPDX-License-Identifier: MIT */
/*
 * The stock-kernel source, private to core/stock/.
 *
 * Layout: stock_sysfs.c reads files under the root (and the kernel's version,
 * command line and config); stock_model.c is the per-kernel model, one table that
 * docs/kernels.md shows; stock_freq.c is the one place that touches cpufreq
 * (libcpupower on the real root, the same files directly under any other root);
 * stock_caps.c writes caps and keeps the state file; source_stock.c is the
 * tp_source_ops and the public tp_stock_* calls; kernel_avg.c reads the kernel's
 * own average with BPF (bpf/kernel_avg.bpf.c).
 */
#ifndef TP_CORE_STOCK_H
#define TP_CORE_STOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <thermpress/stock.h>
#include <thermpress/thermpress.h>

#include "source.h"

#define STOCK_PATH_MAX 4096
#define STOCK_ENV_STATE_DIR "THERMPRESS_STATE_DIR"

struct stock_policy {
	int id;				/* the first CPU of related_cpus */
	int *cpus;			/* related CPUs, ascending */
	size_t nr_cpus;
	int64_t hw_max_khz;		/* cpuinfo_max_freq */
	int64_t hw_min_khz;		/* cpuinfo_min_freq, TP_NONE when unknown */
	uint64_t *freqs;		/* scaling_available_frequencies, descending */
	size_t nr_freqs;
	int cooling;			/* index into stock.cooling, -1 */
	int domain;			/* index into the snapshot's domains */
	/* the kernel's arch_scale_freq_ref() for this policy, kHz, when read (a BPF reader
	 * of capacity_freq_ref would fill it); TP_NONE: not read, see stock_reference_khz() */
	int64_t ref_khz;
	unsigned scaling_writes;	/* scaling_max_freq written by this process */
};

struct stock_cooling {
	int id;				/* N of cooling_deviceN */
	char type[TP_NAME_MAX];
	int policy;			/* index into stock.policies, -1 */
	int64_t max_state;
	unsigned writes;		/* cur_state written by this process */
};

struct stock_cpu {
	int cpu;
	int policy;			/* index into stock.policies, -1: no cpufreq */
	int64_t max_capacity;
	/* the estimate of the kernel's average */
	struct tp_avg avg;
	bool avg_ok, avg_started;
	uint64_t last_ns;		/* estimator clock of the last update */
	uint64_t last_pressure;
	uint64_t avg_value;
	/* the kernel's own average at the last snapshot (kernel_avg.c); else the estimate */
	bool avg_from_kernel;
	uint64_t kernel_avg;
	/* the scheduler's cpufreq_pressure and rq->cpu_capacity at the last snapshot
	 * (6.10+, read in place: stock_kernel_avg_inputs()) */
	bool inputs_from_kernel;
	uint64_t kernel_cpufreq_pressure, kernel_cpu_capacity;
};

struct stock_kernel_avg;	/* kernel_avg.c: the loaded BPF program and its map */

/* ---- stock_model.c: the per-kernel model, one table (docs/kernels.md) ---- */

struct stock_version {
	int major, minor, sublevel;
};

/* Architecture classes, as bits (a row may stand for several). */
#define STOCK_ARCH_ARM 1u	/* arm, arm64: arch_topology, hw_pressure */
#define STOCK_ARCH_RISCV 2u	/* arch_topology's reference frequency, no hw_pressure */
#define STOCK_ARCH_X86 4u
#define STOCK_ARCH_OTHER 8u

/* The frequency cpufreq (or thermal) pressure is divided by. */
enum stock_reference {
	STOCK_REF_NONE,			/* no pressure to divide */
	STOCK_REF_COOLING,		/* 5.7..6.9: the cooling device's top frequency */
	STOCK_REF_ZERO,			/* arch_scale_freq_ref() is 0: pressure stays 0 */
	STOCK_REF_ARCH,			/* arch_scale_freq_ref() (capacity_freq_ref) */
	STOCK_REF_ARCH_OR_MAX,		/* ... else policy->cpuinfo.max_freq */
	STOCK_REF_ARCH_OR_DRIVER,	/* ... else the driver's ->scale_freq_ref() */
};

struct stock_model_row {
	struct stock_version from, to;	/* from <= version < to; to.major 0: no end */
	unsigned arch;			/* STOCK_ARCH_* bits */
	enum tp_stock_model model;
	enum stock_reference reference;
	const char *feeds;		/* what sets the pressure */
	const char *averaged;		/* what is averaged, and how */
	const char *subtracts;		/* what the scheduler takes off the capacity */
	const char *names;		/* trace events, tracepoints, rq fields, per-CPU variables */
};

const struct stock_model_row *stock_model_rows(size_t *n);
/* The row of version v on an architecture class (every version has one). */
const struct stock_model_row *stock_model_find(const struct stock_version *v, unsigned arch);
unsigned stock_arch_class(const char *arch);
/* The cells as docs/kernels.md shows them. */
void stock_model_range_text(const struct stock_model_row *r, char *buf, size_t len);
void stock_arch_text(unsigned arch, char *buf, size_t len);
const char *stock_model_name(enum tp_stock_model model);
const char *stock_reference_rule(enum stock_reference ref);

struct stock_kernel {
	char release[65];
	int major, minor;
	int sublevel;			/* TP_NONE when unknown (then 0 is assumed) */
	char sublevel_from[32];		/* "osrelease", "proc/version" or "" */
	bool sublevel_matters;		/* unknown, and the model depends on it */
	char arch[32];
	unsigned arch_class;		/* STOCK_ARCH_* */
	const struct stock_model_row *row;	/* this kernel's row of the model */
	enum tp_stock_model model;
	char config[160];		/* the config file hz came from (below the root), "" for none */
	int shift;			/* sched_thermal_decay_shift in force */
	bool shift_from_cmdline;
	char shift_warning[256];	/* "" or why the cmdline value was ignored */
	int hz;
};

struct stock {
	char root[STOCK_PATH_MAX];	/* no trailing slash; "" for "/" */
	bool real_root;			/* libcpupower reaches the files */
	struct stock_kernel kernel;
	struct stock_cpu *cpus;
	size_t nr_cpus;
	struct stock_policy *policies;
	size_t nr_policies;
	struct stock_cooling *cooling;
	size_t nr_cooling;
	bool has_cpufreq, has_cpu_capacity;
	enum tp_stock_cap_method method;
	/* the state file: state_dir below root when state_in_root, else absolute */
	char state_path[STOCK_PATH_MAX + 64];	/* for messages */
	char state_dir[STOCK_PATH_MAX + 64];
	bool state_in_root;
	char root_canon[STOCK_PATH_MAX];	/* realpath of the root, recorded in the file */
	int state_dirfd;		/* the state directory kept open by a holder, else -1 */
	/* a holder (tp_hold_begin): its limits are entered in the ledger as this process's */
	bool holder;
	int64_t self_pid, self_start;
	uint64_t est_offset_ns;		/* estimator clock = time_ns + this */
	/* the kernel's own average, read with BPF (kernel_avg.c) */
	struct stock_kernel_avg *kernel_avg;	/* NULL: not read */
	bool kernel_avg_tried;
	char kernel_avg_status[320];	/* "read from the kernel (...)" or "not read (why); estimated" */
};

/* ---- stock_sysfs.c: files under the root ------------------------------ */

/* root + rel ("sys/..."), into buf; -ENAMETOOLONG. */
int stock_path(const struct stock *s, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Read a small file (trailing newline stripped); -errno. */
int stock_read_text(const char *path, char *buf, size_t len);
/* fopen(path, "r") of a regular file only, opened without blocking (readin_open()). */
FILE *stock_open_text(const char *path);
/*
 * Write value in one write() to path, a path stock_path() made: never through a
 * symlink that leads outside the root (-EXDEV).  0 or -errno.
 */
int stock_write_text(const struct stock *s, const char *path, const char *value);
/* A whole decimal integer file; -errno, -EPROTO when malformed. */
int stock_read_i64(const char *path, int64_t *out);
/* A message suffix for a failed write: " (changing cpufreq and thermal limits needs root)". */
const char *stock_write_hint(int rc);
/* Parse "0-3,6" or "0 1 2 3" into a sorted array (malloc). */
int stock_parse_cpus(const char *text, int **cpus, size_t *n);
/* Strict decimal, optional sign; the whole token. */
int stock_parse_i64(const char *text, int64_t *out);
/* Fill s->kernel from the root (osrelease, arch, cmdline, config). */
void stock_read_kernel(struct stock *s);
/* Model sentence for info and errors. */
void stock_model_text(const struct stock_kernel *k, char *buf, size_t len);
/* Thermal zones (malloc), for tp_thermal_read; 0, -ENOMEM, or 0 with none. */
int stock_read_zones(const struct stock *s, struct tp_thermal_zone **zones, size_t *n);
int stock_scan_cooling(struct stock *s);
/* The ids of entries named PREFIX%d in dir, sorted (malloc). */
int stock_list_ids(const char *dir, const char *prefix, int **ids, size_t *n);
/* tracefs event presence: 1, 0, TP_NONE; dir filled with the events dir looked at. */
void stock_trace_events(const struct stock *s, int *thermal, int *hw, char *dir, size_t len);

/* ---- stock_freq.c: cpufreq (libcpupower on "/") ----------------------- */

bool stock_freq_present(const struct stock *s, int cpu);
int stock_freq_hw_max(const struct stock *s, int cpu, int64_t *khz);
int stock_freq_hw_min(const struct stock *s, int cpu, int64_t *khz);
int stock_freq_scaling_max(const struct stock *s, int cpu, int64_t *khz);
int stock_freq_related(const struct stock *s, int cpu, int **cpus, size_t *n);
int stock_freq_available(const struct stock *s, int cpu, uint64_t **freqs, size_t *n);
int stock_freq_set_max(const struct stock *s, int cpu, uint64_t khz, struct tp_error *err);
/* The policy's current scaling_max_freq through any of its CPUs that answers. */
int stock_policy_scaling_max(const struct stock *s, const struct stock_policy *p, int64_t *khz);

/* ---- stock_caps.c: caps and the state file ---------------------------- */

void stock_state_path(struct stock *s);
int stock_inject(struct stock *s, const struct tp_cpuset *cpus, uint64_t khz,
		 struct tp_error *err);
int stock_restore_all(struct stock *s, struct tp_restore_report *rep, struct tp_error *err);
/* What the state file records; *scaling and *cooling: its scaling_max_freq and
 * cur_state records (the caps in force through each method). */
int stock_pending(const struct stock *s, struct tp_pending *out, size_t *scaling,
		  size_t *cooling, struct tp_error *err);
/* Nested holds (tp_hold_begin, tp_hold_end; docs/state.md). */
int stock_hold_begin(struct stock *s, struct tp_error *err);
int stock_hold_end(struct stock *s, struct tp_cpuset *left, struct tp_error *err);
/* The limits of the policies of cpus (tp_limits_save), and writing them back. */
int stock_limits_save(struct stock *s, const struct tp_cpuset *cpus, void **saved,
		      struct tp_error *err);
int stock_limits_put_back(struct stock *s, const void *saved, const struct tp_cpuset *only,
			  struct tp_error *err);
/* cooling_deviceN/cur_state: read, and the frequency a state stands for. */
int stock_cooling_state(const struct stock *s, const struct stock_cooling *c, int64_t *state);
int64_t stock_state_khz(const struct stock_policy *p, int64_t state);
/* ---- kernel_avg.c: the kernel's own average (BPF) --------------------- */

/* Load the BPF program once, when it can be (the real root, BTF, root); fills
 * kernel_avg_status either way. */
void stock_kernel_avg_open(struct stock *s);
/* cpu's latest kernel average and when it was stored (CLOCK_MONOTONIC ns); -ENODATA
 * when not read (not loaded, or no update of that CPU yet). */
int stock_kernel_avg_read(const struct stock *s, int cpu, uint64_t *load_avg, uint64_t *time_ns);
/* Read every CPU's values now, before a snapshot's stock_kernel_avg_read() calls
 * (the in-place reader of 6.10+; the tracepoint reader's map is always current).
 * 0 or -errno. */
int stock_kernel_avg_sample(const struct stock *s);
/* The scheduler's cpufreq_pressure and rq->cpu_capacity of cpu at the last sample
 * (6.10+, read in place); -ENODATA when not read. */
int stock_kernel_avg_inputs(const struct stock *s, int cpu, uint64_t *cpufreq_pressure,
			    uint64_t *cpu_capacity);
void stock_kernel_avg_close(struct stock *s);

/* ---- source_stock.c --------------------------------------------------- */

/*
 * The frequency this kernel divides policy->max by for policy p (the row's reference
 * rule, docs/kernels.md), in kHz; *assumed true when arch_scale_freq_ref() was not read
 * and cpuinfo_max_freq stands for it.
 */
int64_t stock_reference_khz(const struct stock *s, const struct stock_policy *p, bool *assumed);

/* Read every CPU's instantaneous pressure and advance the estimates to now. */
void stock_sample(struct stock *s);

int tp_source_stock_open(const char *root, struct tp_source *src, struct tp_error *err);

#endif
