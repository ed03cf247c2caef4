/* SPDX-License-Identifier: MIT */
/*
 * kernel_inputs.c: the scheduler's per-CPU inputs read in place with one BPF
 * program run through BPF_PROG_TEST_RUN (Linux 6.10+, BTF, CONFIG_KALLSYMS_ALL),
 * for kernel_avg.c.  Every call returns 0 or -errno.
 */
#ifndef TP_STOCK_KERNEL_INPUTS_H
#define TP_STOCK_KERNEL_INPUTS_H

#include <linux/types.h>

#include "bpf/kernel_avg.h"

struct stock_kernel_inputs;

/* Load for nr_cpus possible CPUs and run once; on failure why says why in words.
 * keep_dir (NULL: none) keeps what was found in the kernel's BTF for the next start
 * of this boot (btf_ids.c). */
int stock_kernel_inputs_load(int nr_cpus, const char *keep_dir, struct stock_kernel_inputs **out,
			     char *why, size_t n);
/* Read every CPU now. */
int stock_kernel_inputs_run(struct stock_kernel_inputs *in);
/* cpu at the last run; -ENODATA when not read. */
int stock_kernel_inputs_get(const struct stock_kernel_inputs *in, int cpu, struct kernel_inputs *v);
void stock_kernel_inputs_free(struct stock_kernel_inputs *in);

#endif
