// SPDX-License-Identifier: MIT
/*
 * avg_probe OBJECT CPU SECONDS: loads pelt_thermal.bpf.o, attaches it to the
 * pelt_thermal_tp tracepoint and prints "TIME_NS LOAD_AVG" for every update of
 * CPU's averaged thermal pressure during SECONDS.  TIME_NS is CLOCK_MONOTONIC,
 * the clock of thermpress's samples.  The first line is "attached" once the
 * program runs.  SIGINT or SIGTERM end it early, with every update read so far
 * printed.  Exit status 1 when the object does not load or attach.
 */
#include <errno.h>
#include <signal.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct avg_event {
	uint64_t time_ns;
	uint64_t load_avg;
	uint32_t cpu;
	uint32_t pad;
};

static unsigned int want_cpu;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct avg_event *e = data;

	(void)ctx;
	if (size >= sizeof(*e) && e->cpu == want_cpu)
		printf("%llu %llu\n", (unsigned long long)e->time_ns, (unsigned long long)e->load_avg);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: avg_probe OBJECT CPU SECONDS\n");
		return 2;
	}
	want_cpu = (unsigned int)atoi(argv[2]);
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	double end = now_s() + atof(argv[3]);
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);

	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "avg_probe: cannot load %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, "on_pelt_thermal");
	struct bpf_link *link = prog ? bpf_program__attach(prog) : NULL;

	if (!link) {
		fprintf(stderr, "avg_probe: cannot attach to pelt_thermal_tp: %s\n", strerror(errno));
		return 1;
	}
	struct ring_buffer *rb = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "avg_events"),
						  on_event, NULL, NULL);

	if (!rb) {
		fprintf(stderr, "avg_probe: cannot open the ring buffer: %s\n", strerror(errno));
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	while (!stop && now_s() < end)
		if (ring_buffer__poll(rb, 50) < 0)
			break;
	ring_buffer__consume(rb);
	fflush(stdout);
	ring_buffer__free(rb);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return 0;
}
