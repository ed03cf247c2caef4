// SPDX-License-Identifier: MIT
/*
 * What one snapshot costs through libthermpress, against what the alternatives
 * cost in the same run (so the machine's noise cancels in the ratios):
 *
 *   per-file   the facts read file by file per CPU, as a shell loop or a naive
 *              tool does with sysfs-style files (7 files per CPU, on tmpfs);
 *   bare       one open of `stats`, a read loop and a minimal strtoull parse;
 *   library    tp_snapshot_take() on the patched source (strict parse, domains).
 *
 * Trees: a fixture tree on tmpfs (/dev/shm), and the simulator serving the same
 * interface over FUSE (skipped, with a note, where FUSE cannot be used).
 *
 *   bench_snapshot [MIN_SECONDS_PER_MEASUREMENT]     (default 0.3)
 *
 * Run by hand (meson compile -C build tests/bench/bench_snapshot); it is not a
 * timed test.  Targets (issue 2): at 4096 CPUs library <= 2 x bare, and
 * per-file >= 20 x library.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <thermpress/thermpress.h>

#include "clock.h"

static double min_seconds = 0.3;
static volatile long sink;

/* seconds on the monotonic clock */
static double now(void)
{
	return (double)mono_ns() / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_snapshot: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die(path);
}

static char buf[1 << 22];

static size_t read_all(const char *path)
{
	int fd = open(path, O_RDONLY);
	size_t used = 0;
	ssize_t n;

	if (fd < 0)
		die(path);
	while ((n = read(fd, buf + used, sizeof(buf) - 1 - used)) > 0)
		used += (size_t)n;
	close(fd);
	buf[used] = '\0';
	return used;
}

/* A tree with the ABI directory and sysfs-style per-CPU files for the baseline. */
static void make_fixture(const char *root, int ncpus)
{
	char path[512], line[256];
	char *stats;
	size_t used = 0, cap = 256 + (size_t)ncpus * 80;

	snprintf(path, sizeof(path), "mkdir -p %s/%s %s/percpu", root, TP_ABI_DIR, root);
	if (system(path) != 0)
		die("mkdir");
	stats = malloc(cap);
	used += snprintf(stats + used, cap - used,
			 "version 1\ntime_ns 10000000000\nbackend pelt\ndecay_ms 32\nhz 250\nnr_cpus %d\n"
			 "cpu online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure capacity\n",
			 ncpus);
	for (int c = 0; c < ncpus; c++) {
		static const char *const names[] = { "online", "max_capacity", "max_freq_khz",
			"capped_freq_khz", "pressure", "avg_pressure", "capacity" };
		long vals[] = { 1, 1024, 2000000, c % 2 ? 1000000 : 2000000, c % 2 ? 512 : 0,
				c % 2 ? 247 : 0, c % 2 ? 777 : 1024 };

		used += snprintf(stats + used, cap - used, "%d 1 0 1024 2000000 %ld %ld %ld %ld\n", c,
				 vals[3], vals[4], vals[5], vals[6]);
		snprintf(path, sizeof(path), "%s/percpu/cpu%d", root, c);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die(path);
		for (int k = 0; k < 7; k++) {
			snprintf(path, sizeof(path), "%s/percpu/cpu%d/%s", root, c, names[k]);
			snprintf(line, sizeof(line), "%ld\n", vals[k]);
			write_text(path, line);
		}
	}
	snprintf(path, sizeof(path), "%s/%s/stats", root, TP_ABI_DIR);
	write_text(path, stats);
	free(stats);
	snprintf(path, sizeof(path), "%s/%s/version", root, TP_ABI_DIR);
	write_text(path, "1\n");
	snprintf(path, sizeof(path), "%s/%s/backend", root, TP_ABI_DIR);
	write_text(path, "instant [pelt] decay\n");
	snprintf(path, sizeof(path), "%s/%s/decay_ms", root, TP_ABI_DIR);
	write_text(path, "32\n");
}

/* Seconds per call of fn, repeated until min_seconds have passed. */
static double measure(void (*fn)(void *), void *arg)
{
	double start = now(), t;
	long n = 0;

	fn(arg);	/* warm up */
	do {
		fn(arg);
		n++;
		t = now() - start;
	} while (t < min_seconds);
	return t / n;
}

struct job {
	const char *root;
	int ncpus;
	struct tp_source *src;
	struct tp_snapshot snap;
};

static void per_file(void *arg)
{
	static const char *const names[] = { "online", "max_capacity", "max_freq_khz",
		"capped_freq_khz", "pressure", "avg_pressure", "capacity" };
	struct job *j = arg;
	char path[512];
	long sum = 0;

	for (int c = 0; c < j->ncpus; c++) {
		for (int k = 0; k < 7; k++) {
			snprintf(path, sizeof(path), "%s/percpu/cpu%d/%s", j->root, c, names[k]);
			read_all(path);
			sum += strtol(buf, NULL, 10);
		}
	}
	sink = sum;
}

static void bare(void *arg)
{
	struct job *j = arg;
	char path[512];
	long sum = 0;
	char *p, *end;

	snprintf(path, sizeof(path), "%s/%s/stats", j->root, TP_ABI_DIR);
	read_all(path);
	/* skip the key lines and the header, then every number on every line */
	p = strstr(buf, "\ncpu ");
	p = strchr(p + 1, '\n') + 1;
	while (*p) {
		long v = strtol(p, &end, 10);

		if (end == p)
			end++;
		sum += v;
		p = end;
	}
	sink = sum;
}

static void library(void *arg)
{
	struct job *j = arg;
	struct tp_error err;

	if (tp_snapshot_take(j->src, &j->snap, &err) < 0) {
		fprintf(stderr, "bench_snapshot: %s\n", err.msg);
		exit(1);
	}
	sink = (long)j->snap.nr_cpus;
}

static void open_patched(struct job *j)
{
	struct tp_open_options opts = { .kind = TP_SOURCE_PATCHED, .root = j->root };
	struct tp_error err;

	if (tp_source_open(&opts, &j->src, &err) < 0) {
		fprintf(stderr, "bench_snapshot: %s\n", err.msg);
		exit(1);
	}
	tp_snapshot_init(&j->snap);
}

struct server {
	struct tp_source *sim;
	char mount[64];
	volatile sig_atomic_t stop;
	int rc;
	struct tp_error err;
};

static void *serve(void *arg)
{
	struct server *s = arg;

	s->rc = tp_sim_serve(s->sim, s->mount, &s->stop, &s->err);
	return NULL;
}

static int start_fuse(struct server *s, int ncpus, pthread_t *th)
{
	struct tp_open_options opts = { .kind = TP_SOURCE_SIM, .sim_virtual_clock = true };
	char preset[32], path[256];

	snprintf(preset, sizeof(preset), "smp:%d", ncpus);
	opts.sim_preset = preset;
	if (tp_source_open(&opts, &s->sim, &s->err) < 0)
		return -1;
	snprintf(s->mount, sizeof(s->mount), "/tmp/tp-bench-fuse-XXXXXX");
	if (!mkdtemp(s->mount))
		die("mkdtemp");
	s->stop = 0;
	s->rc = 0;
	if (pthread_create(th, NULL, serve, s) != 0)
		die("pthread_create");
	snprintf(path, sizeof(path), "%s/%s/version", s->mount, TP_ABI_DIR);
	for (int i = 0; i < 500 && access(path, R_OK) != 0; i++) {
		if (s->rc < 0)
			break;
		usleep(10000);
	}
	if (access(path, R_OK) != 0) {
		s->stop = 1;
		pthread_join(*th, NULL);
		tp_source_close(s->sim);
		rmdir(s->mount);
		return -1;
	}
	return 0;
}

static void stop_fuse(struct server *s, pthread_t th)
{
	char path[256];

	s->stop = 1;
	/* a request wakes the loop so that it sees the flag */
	snprintf(path, sizeof(path), "%s/%s/version", s->mount, TP_ABI_DIR);
	access(path, R_OK);
	pthread_join(th, NULL);
	tp_source_close(s->sim);
	rmdir(s->mount);
}

int main(int argc, char **argv)
{
	static const int sizes[] = { 8, 256, 4096 };
	int fails = 0;

	setenv(TP_ENV_PLUGIN_DIR, BENCH_PLUGIN_DIR, 0);	/* the build tree's plugins */

	if (argc > 1)
		min_seconds = atof(argv[1]);
	printf("one snapshot, microseconds (each measured for at least %.2f s)\n", min_seconds);
	printf("%-6s %-6s %11s %11s %11s %14s %12s\n", "tree", "cpus", "per-file", "bare", "library",
	       "per-file/lib", "lib/bare");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct job j = { .ncpus = sizes[i] };
		char root[64], cmd[128];
		double pf, b, l;

		snprintf(root, sizeof(root), "/dev/shm/tp-bench-XXXXXX");
		if (!mkdtemp(root))
			die("mkdtemp /dev/shm");
		j.root = root;
		make_fixture(root, j.ncpus);
		open_patched(&j);
		pf = measure(per_file, &j);
		b = measure(bare, &j);
		l = measure(library, &j);
		printf("%-6s %-6d %11.1f %11.1f %11.1f %13.1fx %11.2fx\n", "tmpfs", j.ncpus, pf * 1e6,
		       b * 1e6, l * 1e6, pf / l, l / b);
		if (j.ncpus == 4096 && (pf / l < 20 || l / b > 2))
			fails++;
		tp_snapshot_release(&j.snap);
		tp_source_close(j.src);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd) != 0)
			die("rm");
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct server s = { 0 };
		struct job j = { .ncpus = sizes[i] };
		pthread_t th;
		double b, l;

		if (start_fuse(&s, sizes[i], &th) < 0) {
			printf("fuse   %-6d skipped: %s\n", sizes[i], s.err.msg[0] ? s.err.msg : "mount did not appear");
			continue;
		}
		j.root = s.mount;
		open_patched(&j);
		b = measure(bare, &j);
		l = measure(library, &j);
		printf("%-6s %-6d %11s %11.1f %11.1f %14s %11.2fx\n", "fuse", j.ncpus, "-", b * 1e6,
		       l * 1e6, "-", l / b);
		if (j.ncpus == 4096 && l / b > 2)
			fails++;
		tp_snapshot_release(&j.snap);
		tp_source_close(j.src);
		stop_fuse(&s, th);
	}
	printf("targets at 4096 cpus (per-file/lib >= 20, lib/bare <= 2): %s\n", fails ? "MISSED" : "met");
	return fails ? 1 : 0;
}
