/* SPDX-License-Identifier: MIT */
/*
 * The values of the kernel's average, shared by the BPF programs and the stock
 * source that reads them: struct kernel_avg per CPU in the array of
 * kernel_avg.bpf.c (from the tracepoints), struct kernel_inputs per CPU in the one
 * entry kernel_inputs.c's program fills (read in place).
 */
#ifndef TP_STOCK_KERNEL_AVG_H
#define TP_STOCK_KERNEL_AVG_H

struct kernel_avg {
	__u64 load_avg;		/* rq->avg_thermal.load_avg or rq->avg_hw.load_avg */
	__u64 time_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC when it was stored */
	__u64 updates;		/* tracepoint updates seen since the program was attached */
};

struct kernel_inputs {
	__u64 avg_hw;		/* rq->avg_hw.load_avg */
	__u64 cpufreq_pressure;	/* per-CPU cpufreq_pressure */
	__u64 cpu_capacity;	/* rq->cpu_capacity */
	__u64 time_ns;		/* bpf_ktime_get_ns() of the run that read them; 0: not read */
};

#endif
