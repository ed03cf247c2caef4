/* SPDX-License-Identifier: MIT */
/*
 * One CPU's entry of the BPF array kernel_avg (kernel_avg.bpf.c): shared by the
 * BPF program and the stock source that reads it.
 */
#ifndef TP_STOCK_KERNEL_AVG_H
#define TP_STOCK_KERNEL_AVG_H

struct kernel_avg {
	__u64 load_avg;		/* rq->avg_thermal.load_avg or rq->avg_hw.load_avg */
	__u64 time_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC when it was stored */
	__u64 updates;		/* tracepoint updates seen since the program was attached */
};

#endif
