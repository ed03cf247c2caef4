// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's inputs of each CPU's capacity on Linux 6.10 and later, read in
 * place for the stock source (core/stock/kernel_avg.c loads this through its
 * skeleton): rq->avg_hw.load_avg, the per-CPU cpufreq_pressure and
 * rq->cpu_capacity, the facts get_actual_cpu_capacity() combines.
 *
 * The program is never attached: the loader runs it through BPF_PROG_TEST_RUN at
 * each snapshot, on the calling CPU, so reading puts nothing on any other CPU
 * (the tracepoint reader in kernel_avg.bpf.c needs each CPU's tick).  The per-CPU
 * variables are typed ksyms: the load fails, and the loader falls back, on a
 * kernel without them in its BTF and kallsyms (CONFIG_KALLSYMS_ALL).
 *
 * No global variables: an object with .bss or .rodata makes libbpf load one more
 * probe program (global data), and each program loaded costs every CPU an IPI on
 * arm64 (the JIT's icache flush, kick_all_cpus_sync()).  The loader sizes the
 * array to the number of possible CPUs; the loop ends at the first CPU past it.
 */
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
enum bpf_map_type { BPF_MAP_TYPE_ARRAY = 2 };

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "kernel_avg.h"

struct sched_avg {
	unsigned long load_avg;
} __attribute__((preserve_access_index));

struct rq {
	unsigned long cpu_capacity;
	struct sched_avg avg_hw;	/* 6.10+, CONFIG_SCHED_HW_PRESSURE */
} __attribute__((preserve_access_index));

extern struct rq runqueues __ksym;
extern unsigned long cpufreq_pressure __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* the loader sets the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct kernel_inputs);
} kernel_inputs SEC(".maps");

/* One CPU into its entry; 1 (stop) past the array or past nr_cpu_ids. */
static long read_cpu(__u32 cpu, void *now)
{
	struct kernel_inputs *v = bpf_map_lookup_elem(&kernel_inputs, &cpu);
	struct rq *rq = bpf_per_cpu_ptr(&runqueues, cpu);
	unsigned long *cp = bpf_per_cpu_ptr(&cpufreq_pressure, cpu);

	if (!v || !rq || !cp)
		return 1;
	/* plain loads (CO-RE relocated): BPF_CORE_READ's bpf_probe_read_kernel would
	 * make libbpf load one more probe program */
	v->avg_hw = rq->avg_hw.load_avg;
	v->cpu_capacity = rq->cpu_capacity;
	v->cpufreq_pressure = *cp;
	v->time_ns = *(__u64 *)now;
	return 0;
}

/* bpf_loop (5.17+): the verifier checks the callback once, where an unrolled loop
 * over every CPU costs it seconds under emulation. */
SEC("raw_tp")
int read_inputs(void *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	bpf_loop(KERNEL_AVG_MAX_CPUS, read_cpu, &now, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
