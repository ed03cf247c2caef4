// SPDX-License-Identifier: GPL-2.0
/*
 * What the scheduler's tracepoints show of each CPU, for the arm64 board's checks:
 *
 * - capacity: rq->cpu_capacity, as update_cpu_capacity() computes it from the
 *   averaged thermal pressure, at the bare tracepoint sched_cpu_capacity_tp.
 *   kernel/arm64/vm-test-prefix.sh reads it on every prefix of the patch series,
 *   most of which have no debugfs interface (it comes with patch 5);
 * - thermal: rq->avg_thermal.load_avg at the bare tracepoint pelt_thermal_tp, where
 *   tracers have read the thermal average since Linux 5.7.  The series keeps it
 *   there whatever the backend; kernel/arm64/vm-test-patched.sh compares it with the
 *   interface's avg_pressure.  Since Linux 6.10 the tracepoint is pelt_hw_tp and
 *   the average rq->avg_hw.load_avg, hardware pressure only (the 6.12 series keeps
 *   its own average, which no tracepoint shows): the same parameter records that.
 *
 *   cat /sys/module/tp_capacity_probe/parameters/capacity    (or thermal)
 *   0 462 1873
 *   ...            (cpu, the last value, how many times it fired; -1 before the first)
 *
 * Linux 6.1 has no accessors for struct rq, so this module is built with the
 * scheduler's own kernel/sched/sched.h (Kbuild.probe: only against a kernel built
 * here, whose source tree is there).
 */
#include <linux/module.h>
#include <linux/version.h>
#include <linux/moduleparam.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/sched/cputime.h>	/* what kernel/sched/sched.h's inlines use */
#include <linux/mmu_context.h>	/* 6.12: task_cpu_possible() */
#include <trace/events/sched.h>
#include "sched.h"	/* kernel/sched/sched.h: struct rq, cpu_of() */

struct tp_seen {
	long last;
	unsigned long count;
};
static struct tp_seen tp_capacity[NR_CPUS], tp_thermal[NR_CPUS];

/* one writer per CPU at a time (under its rq lock); readers take what they see */
static void tp_record(struct tp_seen *seen, struct rq *rq, long value)
{
	int cpu = cpu_of(rq);

	if (cpu < 0 || cpu >= nr_cpu_ids)
		return;
	WRITE_ONCE(seen[cpu].last, value);
	WRITE_ONCE(seen[cpu].count, seen[cpu].count + 1);
}

static void tp_capacity_probe(void *data, struct rq *rq)
{
	tp_record(tp_capacity, rq, rq->cpu_capacity);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define register_trace_tp_avg	register_trace_pelt_hw_tp
#define unregister_trace_tp_avg	unregister_trace_pelt_hw_tp
#define TP_AVG(rq)		((rq)->avg_hw.load_avg)
#else
#define register_trace_tp_avg	register_trace_pelt_thermal_tp
#define unregister_trace_tp_avg	unregister_trace_pelt_thermal_tp
#define TP_AVG(rq)		((rq)->avg_thermal.load_avg)
#endif

static void tp_thermal_probe(void *data, struct rq *rq)
{
	tp_record(tp_thermal, rq, TP_AVG(rq));
}

static int tp_seen_get(char *buf, const struct kernel_param *kp)
{
	const struct tp_seen *seen = kp->arg;
	int cpu, n = 0;

	for_each_possible_cpu(cpu)
		n += scnprintf(buf + n, PAGE_SIZE - n, "%d %ld %lu\n", cpu,
			       READ_ONCE(seen[cpu].last), READ_ONCE(seen[cpu].count));
	return n;
}

static const struct kernel_param_ops tp_seen_ops = {
	.get = tp_seen_get,
};
module_param_cb(capacity, &tp_seen_ops, tp_capacity, 0444);
MODULE_PARM_DESC(capacity, "per CPU: cpu, its last cpu_capacity, how many times it was computed");
module_param_cb(thermal, &tp_seen_ops, tp_thermal, 0444);
MODULE_PARM_DESC(thermal, "per CPU: cpu, its last avg_thermal.load_avg at pelt_thermal_tp, how many times it fired");

static int __init tp_capacity_init(void)
{
	int cpu, err;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		tp_capacity[cpu].last = tp_thermal[cpu].last = -1;
	err = register_trace_sched_cpu_capacity_tp(tp_capacity_probe, NULL);
	if (err)
		return err;
	err = register_trace_tp_avg(tp_thermal_probe, NULL);
	if (err) {
		unregister_trace_sched_cpu_capacity_tp(tp_capacity_probe, NULL);
		tracepoint_synchronize_unregister();
	}
	return err;
}

static void __exit tp_capacity_exit(void)
{
	unregister_trace_tp_avg(tp_thermal_probe, NULL);
	unregister_trace_sched_cpu_capacity_tp(tp_capacity_probe, NULL);
	tracepoint_synchronize_unregister();
}

module_init(tp_capacity_init);
module_exit(tp_capacity_exit);
MODULE_DESCRIPTION("thermpress test: the scheduler's cpu_capacity and thermal average of each CPU, as its tracepoints show them");
MODULE_LICENSE("GPL");
