/* SPDX-License-Identifier: MIT */
/*
 * libthermpress: what only a stock (unpatched) kernel's source can tell or do.
 *
 * A stock source (TP_SOURCE_STOCK, or TP_SOURCE_AUTO when no patched interface
 * exists) reads cpufreq, cpu_capacity and /sys/class/thermal under its root, and
 * knows from the running kernel's version and architecture what the scheduler does
 * with thermal pressure.  tp_snapshot carries the per-CPU columns, tp_thermal_read()
 * the thermal zones and cooling devices (as for every source); the facts that fit
 * neither (the kernel's model, notes about what is missing) come from
 * tp_stock_describe().
 *
 * Every function returns 0 or a negative errno and fills err; -ENOTSUP when src is
 * not a stock source.
 */
#ifndef THERMPRESS_STOCK_H
#define THERMPRESS_STOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <thermpress/thermpress.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the public API: exported from libthermpress, built with hidden visibility */
#pragma GCC visibility push(default)

/* What the running kernel does with a frequency cap: docs/kernels.md has a row per
 * kernel range and architecture class. */
enum tp_stock_model {
	/* No thermal pressure reaches the scheduler: kernel < 5.7; 5.7..6.9 on everything but
	 * arm/arm64; 6.10+ where arch_scale_freq_ref() is 0 and nothing falls back (x86 and
	 * other arches on 6.10..6.12.100 and 6.13..7.1; x86 on 7.3+ unless intel_pstate on a
	 * hybrid CPU, which sysfs does not show). */
	TP_STOCK_MODEL_NONE = 0,
	/* 5.7..6.9 on arm/arm64: per-CPU thermal_pressure set by the cpufreq cooling
	 * device (not by scaling_max_freq), PELT-averaged at the tick with the boot-time
	 * sched_thermal_decay_shift=.  Snapshot backend "pelt". */
	TP_STOCK_MODEL_THERMAL_PELT,
	/* 6.10 and later on arm/arm64: instantaneous cpufreq pressure from policy->max
	 * (scaling_max_freq and the cooling device alike) plus PELT-averaged hw_pressure
	 * from firmware/LMh drivers.  Snapshot backend "instant". */
	TP_STOCK_MODEL_CPUFREQ_HW,
	/* 6.10 and later where only the cpufreq pressure exists (no hw_pressure): riscv,
	 * and x86 and other arches on 6.12.101+ and 7.2, whose kernels divide by
	 * cpuinfo.max_freq when arch_scale_freq_ref() is 0.  Snapshot backend "instant". */
	TP_STOCK_MODEL_CPUFREQ,
};

/* How tp_cap_set() caps CPUs on a stock kernel. */
enum tp_stock_cap_method {
	TP_STOCK_CAP_SCALING_MAX_FREQ = 0,	/* the default: policy's scaling_max_freq */
	TP_STOCK_CAP_COOLING_DEVICE,		/* the policy's cpufreq cooling device cur_state */
};

#define TP_STOCK_MAX_NOTES 12

struct tp_stock_info {
	char release[65];		/* "6.1.0-18-arm64" */
	int version_major, version_minor;	/* TP_NONE when unparsable */
	/* TP_NONE when neither osrelease nor proc/version gives it (0 is then assumed);
	 * "6.1.0-18-arm64" hides it, proc/version's "Debian 6.1.76-1" gives it */
	int version_sublevel;
	char arch[32];			/* "aarch64", "x86_64" */
	enum tp_stock_model model;
	char model_text[640];		/* one sentence: what this kernel does (its docs/kernels.md row) */
	int decay_shift;		/* sched_thermal_decay_shift in force (THERMAL_PELT), else TP_NONE */
	bool decay_shift_from_cmdline;	/* given on /proc/cmdline (else the default 0) */
	int64_t decay_ms;		/* 32 << shift, TP_NONE outside THERMAL_PELT */
	int hz;				/* CONFIG_HZ, TP_NONE when no config is readable */
	char config_file[4096];		/* the kernel config hz came from, "" when none */
	bool has_cpufreq;
	bool has_cpu_capacity;		/* cpuN/cpu_capacity exists (else 1024 for all) */
	bool uses_libcpupower;		/* cpufreq read and written through libcpupower (root "/") */
	/* 1 present, 0 absent, TP_NONE tracefs not readable (not mounted, not root) */
	int trace_thermal_pressure;	/* thermal_pressure/thermal_pressure_update (5.19..6.9) */
	int trace_hw_pressure;		/* hw_pressure/hw_pressure_update (6.10+) */
	char tracefs[4096];		/* the events directory looked at, "" when none */
	/* The kernel's own averaged pressure (rq->avg_thermal, rq->avg_hw), read with BPF
	 * (core/stock/README.md): true when avg_pressure comes from the kernel (tp_cpu's
	 * avg_estimated false); kernel_avg is one line either way, "read from the kernel
	 * (BPF on pelt_thermal_tp: rq->avg_thermal)" or "not read (WHY); estimated". */
	bool kernel_avg_read;
	char kernel_avg[320];
	/* The frequency the kernel divides policy->max by: its rule (docs/kernels.md, "-"
	 * when there is no cpufreq pressure), and what thermpress divides by.  Without
	 * BPF, arch_scale_freq_ref() cannot be read: thermpress then assumes
	 * cpuinfo_max_freq and reference_assumed is true. */
	char reference_rule[160];
	char reference[160];
	bool reference_assumed;
	enum tp_stock_cap_method cap_method;	/* how the next cap is written */
	char state_file[4096];		/* where original limits are recorded */
	size_t nr_pending;		/* limits recorded there and not yet restored */
	/* of those, the caps in force through each method */
	size_t nr_pending_scaling, nr_pending_cooling;
	/* What is missing and what can still be shown, one sentence each (no period). */
	size_t nr_notes;
	char notes[TP_STOCK_MAX_NOTES][320];
};

/* Fill info (zeroed by the call).  tp_stock_info_release() frees nothing today: info
 * owns no memory since the zones moved to tp_thermal_read(); it is kept for callers. */
int tp_stock_describe(struct tp_source *src, struct tp_stock_info *info, struct tp_error *err);
void tp_stock_info_release(struct tp_stock_info *info);

/* "scaling_max_freq" (also "scaling"), "cooling" (also "cooling_device"). */
int tp_stock_cap_method_parse(const char *text, enum tp_stock_cap_method *out,
			      struct tp_error *err);
const char *tp_stock_cap_method_name(enum tp_stock_cap_method method);
/* Choose how later tp_cap_set() calls cap; -ENODEV when the machine has no such device. */
int tp_stock_set_cap_method(struct tp_source *src, enum tp_stock_cap_method method,
			    struct tp_error *err);

/*
 * Undo every limit the state file records (this process's or one that was killed),
 * then remove the records.  *restored (may be NULL) gets how many limits were
 * written back; 0 with a 0 return means there was nothing to restore.  A limit that
 * cannot be written back stays recorded and the call fails naming it.
 */
int tp_stock_restore(struct tp_source *src, size_t *restored, struct tp_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
