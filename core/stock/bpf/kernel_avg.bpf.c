// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own averaged pressure on a stock kernel, for the stock source
 * (core/stock/kernel_avg.c loads this through its skeleton).
 *
 * Linux 5.7..6.9 keeps it in rq->avg_thermal, 6.10+ in rq->avg_hw; only the bare
 * tracepoints pelt_thermal_tp and pelt_hw_tp, fired at every update, carry it.
 * One tp_btf program per tracepoint (the loader enables the one the running
 * kernel has) stores the latest load_avg of the updated CPU, with the time, in
 * the array kernel_avg indexed by CPU.  The tracepoint fires for the rq being
 * updated, which need not be the CPU running it (the nohz idle balancer updates
 * idle CPUs' blocked averages), so the index is rq->cpu.
 *
 * A CPU reports only at its next update: the loader makes each CPU tick once
 * (core/stock/kernel_avg.c).
 *
 * CO-RE: the structs below name only the fields read, preserve_access_index
 * makes libbpf relocate their offsets against the running kernel's BTF
 * (/sys/kernel/btf/vmlinux), so the object does not depend on the build
 * machine's kernel.
 */
/* the few kernel UAPI types libbpf's headers use: no <linux/bpf.h>, whose <asm/types.h>
 * lives in the build machine's multiarch directory */
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
#include <bpf/bpf_core_read.h>

#include "kernel_avg.h"

struct sched_avg {
	unsigned long load_avg;
} __attribute__((preserve_access_index));

struct rq {
	int cpu;
	struct sched_avg avg_thermal;	/* 5.7..6.9, CONFIG_SCHED_THERMAL_PRESSURE */
	struct sched_avg avg_hw;	/* 6.10+, CONFIG_SCHED_HW_PRESSURE */
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* the loader sets the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct kernel_avg);
} kernel_avg SEC(".maps");

static void store(__u32 cpu, __u64 load_avg)
{
	struct kernel_avg *v = bpf_map_lookup_elem(&kernel_avg, &cpu);

	if (!v)
		return;
	v->load_avg = load_avg;
	v->time_ns = bpf_ktime_get_ns();
	__sync_fetch_and_add(&v->updates, 1);
}

SEC("tp_btf/pelt_thermal_tp")
int BPF_PROG(on_pelt_thermal, struct rq *rq)
{
	store((__u32)BPF_CORE_READ(rq, cpu), BPF_CORE_READ(rq, avg_thermal.load_avg));
	return 0;
}

SEC("tp_btf/pelt_hw_tp")
int BPF_PROG(on_pelt_hw, struct rq *rq)
{
	store((__u32)BPF_CORE_READ(rq, cpu), BPF_CORE_READ(rq, avg_hw.load_avg));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
