// SPDX-License-Identifier: MIT
/*
 * tp_speed_report: tells the host each CPU's capacity and frequency limit, so that the
 * host's board-speed.py can slow that CPU's vCPU thread to capacity x f / f_max.  Runs
 * inside the VM, in the background, on the serial console (its standard output).
 *
 * The limits come from tp_speed_notify.ko (/sys/kernel/tp_speed/limits, one kHz value
 * per CPU, notified on each change): the program sleeps in poll() until a limit
 * changes, and every ten seconds, then writes one line in one write(2):
 *   TPSPEED SEQ NCPUS CAP0:KHZ0:MAXKHZ0 CAP1:KHZ1:MAXKHZ1 ...
 * CAP is cpu_capacity (the capacity the board declares, 1024 for the biggest), KHZ the
 * limit and MAXKHZ cpuinfo_max_freq.  The periodic line repairs one the host missed (a
 * kernel message written into the middle of it).  SCHED_FIFO, so that a busy CPU does
 * not hold a report back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CPUS 64
#define LIMITS "/sys/kernel/tp_speed/limits"

static long read_long(const char *fmt, int cpu)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), fmt, cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

int main(void)
{
	long cap[MAX_CPUS], maxf[MAX_CPUS];
	struct sched_param sp = { .sched_priority = 50 };
	char limits[MAX_CPUS * 12], line[64 + MAX_CPUS * 40];
	unsigned long seq = 0;
	int ncpus = 0, fd;

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		fprintf(stderr, "tp_speed_report: no SCHED_FIFO: %s\n", strerror(errno));
	while (ncpus < MAX_CPUS &&
	       (cap[ncpus] = read_long("/sys/devices/system/cpu/cpu%d/cpu_capacity", ncpus)) > 0) {
		maxf[ncpus] = read_long("/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", ncpus);
		ncpus++;
	}
	fd = open(LIMITS, O_RDONLY | O_CLOEXEC);
	if (!ncpus || fd < 0) {
		fprintf(stderr, "tp_speed_report: no cpu_capacity, or no %s (tp_speed_notify.ko)\n",
			LIMITS);
		return 1;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLPRI | POLLERR };
		ssize_t n = pread(fd, limits, sizeof(limits) - 1, 0);
		char *s = limits, *end;
		int len;

		if (n <= 0)
			return 1;
		limits[n] = 0;
		len = snprintf(line, sizeof(line), "TPSPEED %lu %d", ++seq, ncpus);
		for (int c = 0; c < ncpus; c++) {
			long khz = strtol(s, &end, 10);

			if (end == s)
				return 1;
			s = end;
			len += snprintf(line + len, sizeof(line) - (size_t)len, " %ld:%ld:%ld", cap[c],
					khz, maxf[c]);
		}
		line[len++] = '\n';
		if (write(1, line, (size_t)len) != len)
			return 1;
		poll(&p, 1, 10000);	/* a change, or ten seconds */
	}
}
