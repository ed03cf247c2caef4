// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's own inputs of each CPU's capacity on Linux 6.10 and later, read
 * in place: rq->cpu_capacity, rq->avg_hw.load_avg (the PELT-averaged hardware
 * pressure) and the per-CPU cpufreq_pressure and hw_pressure, which
 * get_actual_cpu_capacity() combines as max - max(avg_hw, cpufreq_pressure).
 *
 * The harness's ground truth, independent of thermpress's code: one raw_tp program
 * that is never attached, only run by sched_inputs.c through BPF_PROG_TEST_RUN, so
 * reading wakes no CPU.  The per-CPU variables are typed ksyms (the kernel's BTF
 * and KALLSYMS_ALL, as Debian's 6.12 and 7.3 kernels have); the fields are read
 * with CO-RE, so one object serves every kernel that has them.
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
	unsigned long cpu_capacity;
	struct sched_avg avg_hw;
} __attribute__((preserve_access_index));

extern struct rq runqueues __ksym;
extern unsigned long cpufreq_pressure __ksym;
extern unsigned long hw_pressure __ksym;

struct cpu_inputs {
	u64 cpu_capacity;
	u64 avg_hw;
	u64 cpufreq_pressure;
	u64 hw_pressure;
};

struct cpu_inputs inputs[TP_MAX_CPUS];
const volatile u32 nr_cpus;	/* .rodata, set by the loader before it loads */

SEC("raw_tp")
int read_inputs(void *ctx)
{
	for (u32 cpu = 0; cpu < TP_MAX_CPUS && cpu < nr_cpus; cpu++) {
		struct rq *rq = bpf_per_cpu_ptr(&runqueues, cpu);
		unsigned long *cp = bpf_per_cpu_ptr(&cpufreq_pressure, cpu);
		unsigned long *hp = bpf_per_cpu_ptr(&hw_pressure, cpu);

		if (!rq || !cp || !hp)
			return 1;
		inputs[cpu].cpu_capacity = BPF_CORE_READ(rq, cpu_capacity);
		inputs[cpu].avg_hw = BPF_CORE_READ(rq, avg_hw.load_avg);
		inputs[cpu].cpufreq_pressure = *cp;
		inputs[cpu].hw_pressure = *hp;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
