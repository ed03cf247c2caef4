// SPDX-License-Identifier: GPL-2.0
/*
 * tp_speed_notify: the slowing board's limit channel (kernel/arm64/study.sh).  It
 * watches each cpufreq policy's maximum-frequency QoS, through which every limit goes
 * (a cooling device's caps, scaling_max_freq writes), and shows each CPU's limit in kHz
 * in /sys/kernel/tp_speed/limits ("KHZ0 KHZ1 ..."), notifying pollers on each change.
 * tp_speed_report sleeps in poll() until then: a poller that read sysfs every 10 ms
 * cost the slowest CPUs most of their time under TCG, and the board's speed has to
 * follow a cap when it lands, not at the next poll.
 */
#include <linux/cpu.h>
#include <linux/cpufreq.h>
#include <linux/kobject.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/pm_qos.h>
#include <linux/sysfs.h>

struct watch {
	struct notifier_block nb;
	struct cpufreq_policy *policy;
};

static unsigned int limit_khz[NR_CPUS];
static struct watch watches[NR_CPUS];
static int nr_watches;
static struct kobject *tp_kobj;

static void set_limit(struct cpufreq_policy *policy, unsigned long khz)
{
	int cpu;

	khz = clamp_t(unsigned long, khz, policy->cpuinfo.min_freq, policy->cpuinfo.max_freq);
	for_each_cpu(cpu, policy->related_cpus)
		WRITE_ONCE(limit_khz[cpu], khz);
}

/* the policy's QoS maximum changed (called in process context, before cpufreq applies it) */
static int on_max(struct notifier_block *nb, unsigned long value, void *data)
{
	struct watch *w = container_of(nb, struct watch, nb);

	set_limit(w->policy, value);
	sysfs_notify(tp_kobj, NULL, "limits");
	return NOTIFY_OK;
}

static ssize_t limits_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	int cpu, len = 0;

	for_each_possible_cpu(cpu)
		len += sysfs_emit_at(buf, len, "%s%u", len ? " " : "", READ_ONCE(limit_khz[cpu]));
	return len + sysfs_emit_at(buf, len, "\n");
}

static struct kobj_attribute limits_attr = __ATTR_RO(limits);

static void unwatch(void)
{
	while (nr_watches > 0) {
		struct watch *w = &watches[--nr_watches];

		freq_qos_remove_notifier(&w->policy->constraints, FREQ_QOS_MAX, &w->nb);
		cpufreq_cpu_put(w->policy);
	}
}

static int __init tp_speed_notify_init(void)
{
	int cpu, err;

	tp_kobj = kobject_create_and_add("tp_speed", kernel_kobj);
	if (!tp_kobj)
		return -ENOMEM;
	err = sysfs_create_file(tp_kobj, &limits_attr.attr);
	if (err)
		goto put;
	for_each_possible_cpu(cpu) {
		struct cpufreq_policy *policy = cpufreq_cpu_get(cpu);
		struct watch *w;

		if (!policy)
			continue;
		if (cpumask_first(policy->related_cpus) != cpu) {	/* one watch per policy */
			cpufreq_cpu_put(policy);
			continue;
		}
		w = &watches[nr_watches];
		w->policy = policy;
		w->nb.notifier_call = on_max;
		set_limit(policy, policy->max);
		err = freq_qos_add_notifier(&policy->constraints, FREQ_QOS_MAX, &w->nb);
		if (err) {
			cpufreq_cpu_put(policy);
			goto unwatch;
		}
		nr_watches++;
	}
	if (!nr_watches) {
		err = -ENODEV;	/* no cpufreq: nothing to follow */
		goto put;
	}
	return 0;
unwatch:
	unwatch();
put:
	kobject_put(tp_kobj);
	return err;
}

static void __exit tp_speed_notify_exit(void)
{
	unwatch();
	kobject_put(tp_kobj);
}

module_init(tp_speed_notify_init);
module_exit(tp_speed_notify_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("thermpress: each CPU's frequency limit, notified on change (the slowing board)");
