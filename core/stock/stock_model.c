// SPDX-License-Identifier: MIT
/*
 * The per-kernel model: what feeds thermal pressure, which frequency it is divided by,
 * what is averaged and what the scheduler subtracts, for each kernel range and
 * architecture.  This table is the one definition: stock_read_kernel() picks a row,
 * docs/kernels.md shows the same rows (tests/unit/test_kernels.c checks that every
 * cell of the page is the cell made here).
 */
#include <stdio.h>
#include <string.h>

#include "stock.h"

/* The cells shared by several rows, one text each. */
#define FEEDS_NONE "nothing: the scheduler gets no thermal pressure"
#define FEEDS_COOLING "the cpufreq cooling device's cur_state (a scaling_max_freq cap does not count)"
#define FEEDS_ZERO_REF "nothing: arch_scale_freq_ref() is 0, so the cpufreq pressure stays 0"
#define FEEDS_POLICY "policy->max (scaling_max_freq and cpufreq cooling devices alike)"
#define FEEDS_POLICY_HW FEEDS_POLICY "; hardware throttling (qcom-cpufreq-hw) through arch_update_hw_pressure()"
#define FEEDS_HYBRID "policy->max only with intel_pstate on a hybrid CPU without SMT (assumed not: invisible in sysfs)"
#define AVG_NONE "nothing"
#define AVG_THERMAL "thermal_pressure with PELT at each tick, half-life 32 ms << sched_thermal_decay_shift"
#define AVG_CPUFREQ "nothing: the cpufreq pressure is used at once; sched_thermal_decay_shift= is ignored"
#define AVG_HW "not the cpufreq pressure; hw_pressure with PELT at each tick (half-life 32 ms); sched_thermal_decay_shift= is ignored"
#define SUB_NONE "no thermal pressure (RT, DL and IRQ time only)"
#define SUB_THERMAL "rq->avg_thermal (then RT, DL and IRQ time)"
#define SUB_MAX "max(hw_load_avg, cpufreq_pressure) in get_actual_cpu_capacity() (then RT, DL and IRQ time)"
#define SUB_CPUFREQ "cpufreq_pressure in get_actual_cpu_capacity(): hw_load_avg is 0 without CONFIG_SCHED_HW_PRESSURE (then RT, DL and IRQ time)"
#define NAMES_NONE "-"
#define NAMES_THERMAL "event thermal_pressure/thermal_pressure_update (5.19+); tracepoint pelt_thermal_tp; rq->avg_thermal; per-CPU thermal_pressure; boot option sched_thermal_decay_shift="
#define NAMES_CPUFREQ "per-CPU cpufreq_pressure; no event or tracepoint carries it"
#define NAMES_HW NAMES_CPUFREQ "; event hw_pressure/hw_pressure_update (cpu = first CPU of the policy); tracepoint pelt_hw_tp; rq->avg_hw; per-CPU hw_pressure"

#define V(a, b, c) { a, b, c }
#define OPEN_END { 0, 0, 0 }
#define ARM STOCK_ARCH_ARM
#define RISCV STOCK_ARCH_RISCV
#define X86 STOCK_ARCH_X86
#define OTHER STOCK_ARCH_OTHER
#define ALL (ARM | RISCV | X86 | OTHER)

static const struct stock_model_row rows[] = {
	{ V(0, 0, 0), V(5, 7, 0), ALL, TP_STOCK_MODEL_NONE, STOCK_REF_NONE,
	  FEEDS_NONE, AVG_NONE, SUB_NONE, NAMES_NONE },
	{ V(5, 7, 0), V(6, 10, 0), ARM, TP_STOCK_MODEL_THERMAL_PELT, STOCK_REF_COOLING,
	  FEEDS_COOLING, AVG_THERMAL, SUB_THERMAL, NAMES_THERMAL },
	{ V(5, 7, 0), V(6, 10, 0), RISCV | X86 | OTHER, TP_STOCK_MODEL_NONE, STOCK_REF_NONE,
	  FEEDS_NONE, AVG_NONE, SUB_NONE, NAMES_NONE },
	{ V(6, 10, 0), V(6, 12, 101), ARM, TP_STOCK_MODEL_CPUFREQ_HW, STOCK_REF_ARCH,
	  FEEDS_POLICY_HW, AVG_HW, SUB_MAX, NAMES_HW },
	{ V(6, 10, 0), V(6, 12, 101), RISCV, TP_STOCK_MODEL_CPUFREQ, STOCK_REF_ARCH,
	  FEEDS_POLICY, AVG_CPUFREQ, SUB_CPUFREQ, NAMES_CPUFREQ },
	{ V(6, 10, 0), V(6, 12, 101), X86 | OTHER, TP_STOCK_MODEL_NONE, STOCK_REF_ZERO,
	  FEEDS_ZERO_REF, AVG_CPUFREQ, SUB_CPUFREQ, NAMES_CPUFREQ },
	{ V(6, 12, 101), V(6, 13, 0), ARM, TP_STOCK_MODEL_CPUFREQ_HW, STOCK_REF_ARCH_OR_MAX,
	  FEEDS_POLICY_HW, AVG_HW, SUB_MAX, NAMES_HW },
	{ V(6, 12, 101), V(6, 13, 0), RISCV | X86 | OTHER, TP_STOCK_MODEL_CPUFREQ,
	  STOCK_REF_ARCH_OR_MAX, FEEDS_POLICY, AVG_CPUFREQ, SUB_CPUFREQ, NAMES_CPUFREQ },
	{ V(6, 13, 0), V(7, 2, 0), ARM, TP_STOCK_MODEL_CPUFREQ_HW, STOCK_REF_ARCH,
	  FEEDS_POLICY_HW, AVG_HW, SUB_MAX, NAMES_HW },
	{ V(6, 13, 0), V(7, 2, 0), RISCV, TP_STOCK_MODEL_CPUFREQ, STOCK_REF_ARCH,
	  FEEDS_POLICY, AVG_CPUFREQ, SUB_CPUFREQ, NAMES_CPUFREQ },
	{ V(6, 13, 0), V(7, 2, 0), X86 | OTHER, TP_STOCK_MODEL_NONE, STOCK_REF_ZERO,
	  FEEDS_ZERO_REF, AVG_CPUFREQ, SUB_CPUFREQ, NAMES_CPUFREQ },
	{ V(7, 2, 0), V(7, 3, 0), ARM, TP_STOCK_MODEL_CPUFREQ_HW, STOCK_REF_ARCH_OR_MAX,
	  FEEDS_POLICY_HW, AVG_HW, SUB_MAX, NAMES_HW },
	{ V(7, 2, 0), V(7, 3, 0), RISCV | X86 | OTHER, TP_STOCK_MODEL_CPUFREQ,
	  STOCK_REF_ARCH_OR_MAX, FEEDS_POLICY, AVG_CPUFREQ, SUB_CPUFREQ, NAMES_CPUFREQ },
	{ V(7, 3, 0), OPEN_END, ARM, TP_STOCK_MODEL_CPUFREQ_HW, STOCK_REF_ARCH_OR_DRIVER,
	  FEEDS_POLICY_HW, AVG_HW, SUB_MAX, NAMES_HW },
	{ V(7, 3, 0), OPEN_END, RISCV, TP_STOCK_MODEL_CPUFREQ, STOCK_REF_ARCH_OR_DRIVER,
	  FEEDS_POLICY, AVG_CPUFREQ, SUB_CPUFREQ, NAMES_CPUFREQ },
	{ V(7, 3, 0), OPEN_END, X86, TP_STOCK_MODEL_NONE, STOCK_REF_ARCH_OR_DRIVER,
	  FEEDS_HYBRID, AVG_CPUFREQ, SUB_CPUFREQ, NAMES_CPUFREQ },
	{ V(7, 3, 0), OPEN_END, OTHER, TP_STOCK_MODEL_NONE, STOCK_REF_ZERO,
	  FEEDS_ZERO_REF, AVG_CPUFREQ, SUB_CPUFREQ, NAMES_CPUFREQ },
};

const struct stock_model_row *stock_model_rows(size_t *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}

/* a < b, comparing major, minor, sublevel */
static int version_cmp(const struct stock_version *a, const struct stock_version *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	return (a->sublevel > b->sublevel) - (a->sublevel < b->sublevel);
}

const struct stock_model_row *stock_model_find(const struct stock_version *v, unsigned arch)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct stock_model_row *r = &rows[i];

		if (!(r->arch & arch) || version_cmp(v, &r->from) < 0)
			continue;
		if (r->to.major && version_cmp(v, &r->to) >= 0)
			continue;
		return r;
	}
	return &rows[0];	/* not reached: the rows cover every version */
}

unsigned stock_arch_class(const char *arch)
{
	if (strcmp(arch, "aarch64") == 0 || strcmp(arch, "arm64") == 0 ||
	    strncmp(arch, "arm", 3) == 0)
		return STOCK_ARCH_ARM;
	if (strncmp(arch, "riscv", 5) == 0)
		return STOCK_ARCH_RISCV;
	if (strcmp(arch, "x86_64") == 0 || strcmp(arch, "x86") == 0 ||
	    (arch[0] == 'i' && strcmp(arch + 2, "86") == 0 && arch[1] >= '3' && arch[1] <= '6'))
		return STOCK_ARCH_X86;
	return STOCK_ARCH_OTHER;
}

static void version_text(const struct stock_version *v, char *buf, size_t len)
{
	if (v->sublevel)
		snprintf(buf, len, "%d.%d.%d", v->major, v->minor, v->sublevel);
	else
		snprintf(buf, len, "%d.%d", v->major, v->minor);
}

/* "< 5.7", "6.10 to 6.12.100", "6.12.101 and later 6.12", "7.2", "7.3 and later" */
void stock_model_range_text(const struct stock_model_row *r, char *buf, size_t len)
{
	char from[32], last[32];
	struct stock_version end = r->to;

	version_text(&r->from, from, sizeof(from));
	if (!r->to.major) {
		snprintf(buf, len, "%s and later", from);
		return;
	}
	if (r->from.major == 0) {
		snprintf(buf, len, "< %d.%d", r->to.major, r->to.minor);
		return;
	}
	/* the last release before "to": x.y.(z-1), or the whole series x.(y-1) */
	if (end.sublevel) {
		end.sublevel--;
	} else if (end.minor) {
		end.minor--;
		if (end.major == r->from.major && end.minor == r->from.minor && r->from.sublevel) {
			snprintf(buf, len, "%s and later %d.%d", from, end.major, end.minor);
			return;
		}
	}
	version_text(&end, last, sizeof(last));
	if (strcmp(from, last) == 0)
		snprintf(buf, len, "%s", from);
	else
		snprintf(buf, len, "%s to %s", from, last);
}

void stock_arch_text(unsigned arch, char *buf, size_t len)
{
	static const char *const names[] = { "arm, arm64", "riscv", "x86", "other" };
	size_t used = 0;

	buf[0] = '\0';
	if (arch == (STOCK_ARCH_ARM | STOCK_ARCH_RISCV | STOCK_ARCH_X86 | STOCK_ARCH_OTHER)) {
		snprintf(buf, len, "all");
		return;
	}
	for (unsigned i = 0; i < 4; i++)
		if (arch & (1u << i))
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
						 used ? ", " : "", names[i]);
}

const char *stock_model_name(enum tp_stock_model model)
{
	switch (model) {
	case TP_STOCK_MODEL_THERMAL_PELT:
		return "thermal_pelt";
	case TP_STOCK_MODEL_CPUFREQ_HW:
		return "cpufreq_hw";
	case TP_STOCK_MODEL_CPUFREQ:
		return "cpufreq";
	default:
		return "none";
	}
}

const char *stock_reference_rule(enum stock_reference ref)
{
	switch (ref) {
	case STOCK_REF_ARCH:
		return "arch_scale_freq_ref(): capacity_freq_ref (device tree: cpuinfo.max_freq when the policy is created; ACPI: CPPC highest perf)";
	case STOCK_REF_COOLING:
		return "the policy's top frequency as arch_topology records it (cpuinfo.max_freq on device-tree systems)";
	case STOCK_REF_ZERO:
		return "arch_scale_freq_ref() = 0";
	case STOCK_REF_ARCH_OR_MAX:
		return "arch_scale_freq_ref(), else policy->cpuinfo.max_freq";
	case STOCK_REF_ARCH_OR_DRIVER:
		return "arch_scale_freq_ref(), else the driver's ->scale_freq_ref() (only intel_pstate has one)";
	default:
		return "-";
	}
}
