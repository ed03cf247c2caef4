// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own averaged thermal pressure (rq->avg_thermal.load_avg, Linux
 * 5.7..6.9), from the bare tracepoint pelt_thermal_tp, which fires at every
 * update of that average (each scheduler tick of a busy CPU).  Each update goes
 * to a ring buffer as (ktime ns, cpu, load_avg).  CO-RE against the running
 * kernel's BTF: the two structs below name only the fields read, and libbpf
 * relocates their offsets.
 */
typedef unsigned long long u64;
typedef unsigned int u32;
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

struct sched_avg {
	unsigned long load_avg;
} __attribute__((preserve_access_index));

struct rq {
	int cpu;
	struct sched_avg avg_thermal;
} __attribute__((preserve_access_index));

struct avg_event {
	u64 time_ns;
	u64 load_avg;
	u32 cpu;
	u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} avg_events SEC(".maps");

SEC("tp_btf/pelt_thermal_tp")
int BPF_PROG(on_pelt_thermal, struct rq *rq)
{
	struct avg_event *e = bpf_ringbuf_reserve(&avg_events, sizeof(*e), 0);

	if (!e)
		return 0;
	e->time_ns = bpf_ktime_get_ns();
	e->cpu = BPF_CORE_READ(rq, cpu);
	e->load_avg = BPF_CORE_READ(rq, avg_thermal.load_avg);
	e->pad = 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
