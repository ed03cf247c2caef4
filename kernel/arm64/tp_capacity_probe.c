// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's view of each CPU's capacity, for kernel/arm64/vm-test-prefix.sh:
 * the checks that every prefix of the patch series keeps thermal pressure working
 * run on kernels without the series' debugfs interface (it comes with patch 5),
 * so they read what the load balancer computed instead.
 *
 * update_cpu_capacity() sets rq->cpu_capacity to the CPU's capacity less the
 * rt, deadline, irq and averaged thermal pressure, then fires the bare tracepoint
 * sched_cpu_capacity_tp, exported for modules.  Linux 6.1 no longer has accessors
 * for struct rq, so this module is built with the scheduler's own kernel/sched/sched.h
 * (Kbuild.probe: only against a kernel built here, whose source tree is there).  It
 * records, per CPU, the last value and how many times it was computed:
 *
 *   cat /sys/module/tp_capacity_probe/parameters/capacity
 *   0 462 1873
 *   ...            (cpu, last cpu_capacity, updates; -1 before the first)
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/sched/cputime.h>	/* what kernel/sched/sched.h's inlines use */
#include <trace/events/sched.h>
#include "sched.h"	/* kernel/sched/sched.h: struct rq, cpu_of() */

struct tp_capacity {
	long last;
	unsigned long updates;
};
static struct tp_capacity tp_cap[NR_CPUS];

static void tp_capacity_probe(void *data, struct rq *rq)
{
	int cpu = cpu_of(rq);

	if (cpu < 0 || cpu >= nr_cpu_ids)
		return;
	/* one writer per CPU at a time (its load balancing); readers take what they see */
	WRITE_ONCE(tp_cap[cpu].last, rq->cpu_capacity);
	WRITE_ONCE(tp_cap[cpu].updates, tp_cap[cpu].updates + 1);
}

static int tp_capacity_get(char *buf, const struct kernel_param *kp)
{
	int cpu, n = 0;

	for_each_possible_cpu(cpu)
		n += scnprintf(buf + n, PAGE_SIZE - n, "%d %ld %lu\n", cpu,
			       READ_ONCE(tp_cap[cpu].last), READ_ONCE(tp_cap[cpu].updates));
	return n;
}

static const struct kernel_param_ops tp_capacity_ops = {
	.get = tp_capacity_get,
};
module_param_cb(capacity, &tp_capacity_ops, NULL, 0444);
MODULE_PARM_DESC(capacity, "per CPU: cpu, its last cpu_capacity, how many times it was computed");

static int __init tp_capacity_init(void)
{
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		tp_cap[cpu].last = -1;
	return register_trace_sched_cpu_capacity_tp(tp_capacity_probe, NULL);
}

static void __exit tp_capacity_exit(void)
{
	unregister_trace_sched_cpu_capacity_tp(tp_capacity_probe, NULL);
	tracepoint_synchronize_unregister();
}

module_init(tp_capacity_init);
module_exit(tp_capacity_exit);
MODULE_DESCRIPTION("thermpress test: the scheduler's cpu_capacity of each CPU, as the load balancer computes it");
MODULE_LICENSE("GPL");
