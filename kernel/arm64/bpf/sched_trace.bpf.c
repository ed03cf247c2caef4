// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's own inputs of each CPU's capacity on Linux 5.7..6.9 (6.1 here), where
 * Debian's kernels have no KALLSYMS_ALL, so runqueues is not a ksym: two programs on the
 * bare tracepoints keep, per CPU, the latest rq->cpu_capacity (sched_cpu_capacity_tp,
 * at each update_cpu_capacity()) and rq->avg_thermal.load_avg (pelt_thermal_tp, at each
 * update of the average).  sched_inputs.c attaches them for a while and reads the
 * arrays.  Values are stored plus one: 0 means the tracepoint has not fired for that
 * CPU.  The harness's ground truth, independent of thermpress's code; CO-RE.
 */
typedef unsigned long long u64;
typedef unsigned int u32;
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define TP_MAX_CPUS 64

struct sched_avg {
	unsigned long load_avg;
} __attribute__((preserve_access_index));

struct rq {
	int cpu;
	unsigned long cpu_capacity;
	struct sched_avg avg_thermal;
} __attribute__((preserve_access_index));

struct cpu_inputs {	/* the layout of sched_inputs.bpf.c's, plus one */
	u64 cpu_capacity;
	u64 avg;
	u64 cpufreq_pressure;
	u64 hw_pressure;
};

struct cpu_inputs inputs[TP_MAX_CPUS];

static struct cpu_inputs *slot(struct rq *rq)
{
	u32 cpu = BPF_CORE_READ(rq, cpu);

	return cpu < TP_MAX_CPUS ? &inputs[cpu] : 0;
}

SEC("tp_btf/sched_cpu_capacity_tp")
int BPF_PROG(on_capacity, struct rq *rq)
{
	struct cpu_inputs *in = slot(rq);

	if (in)
		in->cpu_capacity = BPF_CORE_READ(rq, cpu_capacity) + 1;
	return 0;
}

SEC("tp_btf/pelt_thermal_tp")
int BPF_PROG(on_thermal, struct rq *rq)
{
	struct cpu_inputs *in = slot(rq);

	if (in)
		in->avg = BPF_CORE_READ(rq, avg_thermal.load_avg) + 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
