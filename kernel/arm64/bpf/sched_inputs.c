// SPDX-License-Identifier: MIT
/*
 * sched_inputs OBJECT [SECONDS]: the scheduler's own inputs of each CPU's capacity,
 * one line per possible CPU:
 *
 *   CPU CPU_CAPACITY AVG CPUFREQ_PRESSURE HW_PRESSURE
 *
 * With sched_inputs.bpf.o (Linux 6.10+; AVG is rq->avg_hw) its program runs once through
 * BPF_PROG_TEST_RUN: it is never attached, so nothing runs on any other CPU.  With
 * sched_trace.bpf.o and SECONDS (5.7..6.9; AVG is rq->avg_thermal) its programs are
 * attached to the scheduler's tracepoints for SECONDS and each value is the latest
 * they saw, '-' where one never fired (and for the two pressures, which it has not).
 * Exit status 1 when the object does not load or run, with the reason on stderr.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define TP_MAX_CPUS 64

struct cpu_inputs {
	uint64_t cpu_capacity, avg, cpufreq_pressure, hw_pressure;
};

struct bss {	/* sched_inputs.bpf.c's zeroed globals */
	struct cpu_inputs inputs[TP_MAX_CPUS];
};

static int fail(const char *what, int err)
{
	fprintf(stderr, "sched_inputs: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static void print_traced(uint64_t v)	/* stored plus one; 0: never fired */
{
	if (v)
		printf(" %llu", (unsigned long long)(v - 1));
	else
		printf(" -");
}

/* sched_trace.bpf.o: attach its programs for seconds, then print what they kept */
static int traced_inputs(const char *path, double seconds)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return fail("open", errno);
	int err = bpf_object__load(obj);
	if (err)
		return fail("load", err);
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, obj)
		if (!bpf_program__attach(prog))
			return fail(bpf_program__name(prog), errno);
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	nanosleep(&ts, NULL);
	struct bss out;
	uint32_t key = 0;
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
	if (!bss || bpf_map_lookup_elem(bpf_map__fd(bss), &key, &out))
		return fail("reading .bss", errno);
	long n = sysconf(_SC_NPROCESSORS_CONF);
	for (long cpu = 0; cpu < n && cpu < TP_MAX_CPUS; cpu++) {
		printf("%ld", cpu);
		print_traced(out.inputs[cpu].cpu_capacity);
		print_traced(out.inputs[cpu].avg);
		printf(" - -\n");
	}
	bpf_object__close(obj);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: sched_inputs OBJECT [SECONDS]\n");
		return 2;
	}
	if (argc == 3)
		return traced_inputs(argv[1], atof(argv[2]));
	long n = sysconf(_SC_NPROCESSORS_CONF);
	if (n < 1 || n > TP_MAX_CPUS)
		return fail("CPU count", ERANGE);
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj)
		return fail("open", errno);
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
	struct bpf_map *rodata = bpf_object__find_map_by_name(obj, ".rodata");
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, "read_inputs");
	if (!bss || !rodata || !prog)
		return fail("the object has no .bss, .rodata or read_inputs", ENOENT);
	bpf_program__set_autoattach(prog, false);
	uint32_t nr_cpus = (uint32_t)n;	/* .rodata holds nr_cpus alone */
	int err = bpf_map__set_initial_value(rodata, &nr_cpus, sizeof(nr_cpus));
	if (err)
		return fail(".rodata", err);
	err = bpf_object__load(obj);
	if (err)
		return fail("load", err);
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
	if (err)
		return fail("BPF_PROG_TEST_RUN", errno);
	if (opts.retval != 0)
		return fail("a per-CPU variable was not there", ENOENT);
	struct bss out;
	uint32_t key = 0;
	if (bpf_map_lookup_elem(bpf_map__fd(bss), &key, &out))
		return fail("reading .bss", errno);
	for (long cpu = 0; cpu < n; cpu++) {
		const struct cpu_inputs *c = &out.inputs[cpu];
		printf("%ld %llu %llu %llu %llu\n", cpu, (unsigned long long)c->cpu_capacity,
		       (unsigned long long)c->avg, (unsigned long long)c->cpufreq_pressure,
		       (unsigned long long)c->hw_pressure);
	}
	bpf_object__close(obj);
	return 0;
}
