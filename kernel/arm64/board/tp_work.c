// SPDX-License-Identifier: MIT
/*
 * tp_work: the calibration loop and the CPU-bound workload of the slowing board's study
 * (kernel/arm64/study.sh), run inside the VM.  Both do the same unit of work, so the
 * calibration's rate is the rate the workload runs at.
 *
 *   tp_work spin CPU MS       the loop pinned to CPU for MS ms of CLOCK_MONOTONIC; prints
 *                             "cpu=CPU ms=MS units=N rate=N" (units per second)
 *   tp_work spin-all MS       the loop on every online CPU at once, each pinned, all
 *                             starting together: one such line per CPU
 *   tp_work burn THREADS N    THREADS threads, unpinned, each N units: a fixed amount of
 *                             CPU-bound work; exits 0 when every thread is done
 *
 * One unit is UNIT_STEPS xorshift steps kept in a register (no memory traffic: the
 * board models a CPU's speed, not its caches).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNIT_STEPS 4096

static volatile uint64_t sink;	/* keeps the loop's result alive */

static uint64_t unit(uint64_t x)
{
	for (int i = 0; i < UNIT_STEPS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long number(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "tp_work: %s '%s' is not an integer in %ld..%ld\n", what, s, min, max);
		exit(2);
	}
	return v;
}

/* start_fd >= 0: wait until it reads end of file (every spinner starts together) */
static int spin(int cpu, long ms, int start_fd)
{
	cpu_set_t set;
	uint64_t x = 88172645463325252ull, units = 0;
	double t0, t;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "tp_work: cannot pin to cpu %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	sched_yield();	/* now on CPU */
	if (start_fd >= 0) {
		char c;

		while (read(start_fd, &c, 1) > 0)
			;
		close(start_fd);
	}
	t0 = now_s();
	do {
		x = unit(x);
		units++;
		t = now_s();
	} while (t - t0 < (double)ms / 1e3);
	sink = x;
	printf("cpu=%d ms=%ld units=%llu rate=%.1f\n", cpu, ms, (unsigned long long)units,
	       (double)units / (t - t0));
	return 0;
}

static int spin_all(long ms)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int start[2], rc = 0, ws;

	if (n < 1 || pipe(start)) {
		fprintf(stderr, "tp_work: spin-all: no CPUs or no pipe\n");
		return 1;
	}
	for (long cpu = 0; cpu < n; cpu++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "tp_work: fork: %s\n", strerror(errno));
			return 1;
		}
		if (!pid) {
			close(start[1]);
			exit(spin((int)cpu, ms, start[0]));
		}
	}
	close(start[0]);
	close(start[1]);	/* every spinner sees end of file: go */
	while (wait(&ws) > 0)
		rc |= !WIFEXITED(ws) || WEXITSTATUS(ws);
	return rc;
}

static long burn_units;

static void *burn_thread(void *arg)
{
	uint64_t x = 88172645463325252ull + (uintptr_t)arg;

	for (long i = 0; i < burn_units; i++)
		x = unit(x);
	sink = x;
	return NULL;
}

static int burn(long threads, long units)
{
	pthread_t tid[64];

	burn_units = units;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, burn_thread, (void *)(uintptr_t)i)) {
			fprintf(stderr, "tp_work: cannot start thread %ld\n", i);
			return 1;
		}
	for (long i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "spin"))
		return spin((int)number(argv[2], "CPU", 0, CPU_SETSIZE - 1),
			    number(argv[3], "MS", 1, 3600000), -1);
	if (argc == 3 && !strcmp(argv[1], "spin-all"))
		return spin_all(number(argv[2], "MS", 1, 3600000));
	if (argc == 4 && !strcmp(argv[1], "burn"))
		return burn(number(argv[2], "THREADS", 1, 64), number(argv[3], "N", 1, 1L << 40));
	fprintf(stderr, "usage: tp_work spin CPU MS | tp_work spin-all MS | tp_work burn THREADS N\n");
	return 2;
}
