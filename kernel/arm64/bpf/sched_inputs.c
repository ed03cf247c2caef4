// SPDX-License-Identifier: MIT
/*
 * sched_inputs OBJECT: loads sched_inputs.bpf.o, runs its program once through
 * BPF_PROG_TEST_RUN (it is never attached, so nothing runs on any other CPU) and
 * prints one line per possible CPU:
 *
 *   CPU CPU_CAPACITY AVG_HW CPUFREQ_PRESSURE HW_PRESSURE
 *
 * the scheduler's own values (Linux 6.10+).  Exit status 1 when the object does
 * not load or run, with the reason on stderr.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define TP_MAX_CPUS 64

struct cpu_inputs {
	uint64_t cpu_capacity, avg_hw, cpufreq_pressure, hw_pressure;
};

struct bss {	/* sched_inputs.bpf.c's zeroed globals */
	struct cpu_inputs inputs[TP_MAX_CPUS];
};

static int fail(const char *what, int err)
{
	fprintf(stderr, "sched_inputs: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: sched_inputs OBJECT\n");
		return 2;
	}
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
		       (unsigned long long)c->avg_hw, (unsigned long long)c->cpufreq_pressure,
		       (unsigned long long)c->hw_pressure);
	}
	bpf_object__close(obj);
	return 0;
}
