/* SPDX-License-Identifier: MIT */
/*
 * The simulator served over FUSE: plain open/read/write on the mounted files, as any
 * reader of docs/abi.md does.  Exit 77 (skip) only when /dev/fuse is unavailable.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <thermpress/thermpress.h>

static char mnt[64];
static char dir[256];
static struct tp_source *src;
static volatile sig_atomic_t stop;
static pthread_t server;
static int serve_rc = 1;
static volatile int serve_done;
static struct tp_error serve_err;

static void *serve_thread(void *arg)
{
	serve_rc = tp_sim_serve(src, mnt, &stop, &serve_err);
	serve_done = 1;
	return NULL;
}

static int setup(void **state)
{
	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_virtual_clock = true };
	struct tp_error err = { 0 };
	char version[300];

	snprintf(mnt, sizeof(mnt), "/tmp/tp-sim-fuse-XXXXXX");
	if (!mkdtemp(mnt))
		return -1;
	snprintf(dir, sizeof(dir), "%s/%s", mnt, TP_ABI_DIR);
	snprintf(version, sizeof(version), "%s/version", dir);
	if (tp_source_open(&o, &src, &err)) {
		print_error("open: %s\n", err.msg);
		return -1;
	}
	if (pthread_create(&server, NULL, serve_thread, NULL))
		return -1;
	for (int i = 0; i < 500; i++) {
		struct timespec ts = { 0, 10 * 1000000 };

		if (serve_done) {
			print_error("serve: %d %s\n", serve_rc, serve_err.msg);
			return -1;
		}
		if (access(version, R_OK) == 0)
			return 0;
		nanosleep(&ts, NULL);
	}
	print_error("the mount did not appear at %s\n", mnt);
	return -1;
}

static int teardown(void **state)
{
	struct stat st;
	char sys[128];

	stop = 1;
	pthread_join(server, NULL);
	if (serve_rc) {
		print_error("serve returned %d: %s\n", serve_rc, serve_err.msg);
		return -1;
	}
	snprintf(sys, sizeof(sys), "%s/sys", mnt);
	if (stat(sys, &st) == 0) {
		print_error("%s is still mounted\n", mnt);
		return -1;
	}
	rmdir(mnt);
	tp_source_close(src);
	return 0;
}

static char *path_of(const char *name)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

/* The whole file, read in chunks of chunk bytes until read() gives 0. */
static char *slurp(const char *name, size_t chunk, int *err)
{
	int fd = open(path_of(name), O_RDONLY);
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);

	*err = 0;
	assert_true(fd >= 0);
	for (;;) {
		if (len + chunk > cap) {
			cap = (len + chunk) * 2;
			buf = realloc(buf, cap + 1);
		}
		ssize_t n = read(fd, buf + len, chunk);

		if (n < 0) {
			*err = errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static char *cat(const char *name)
{
	int err;
	char *t = slurp(name, 4096, &err);

	assert_int_equal(err, 0);
	return t;
}

/* One write(): 0 or the errno. */
static int put(const char *name, const char *value)
{
	int fd = open(path_of(name), O_WRONLY), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		e = errno;
	close(fd);
	return e;
}

static void expect(const char *name, const char *want)
{
	char *t = cat(name);

	assert_string_equal(t, want);
	free(t);
}

static void test_tree(void **state)
{
	static const char *const files[] = { "version", "backend", "decay_ms", "hz", "inject",
					     "stats", "log_cpu", "log", "sim_preset", "sim_clock" };
	struct stat st;
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, 10);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_int_equal(stat(path_of(files[i]), &st), 0);
	assert_int_equal(stat(path_of("inject"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0200);
	assert_int_equal(stat(path_of("stats"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0444);
	assert_int_equal(stat(path_of("backend"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(stat(path_of("nope"), &st), -1);
	assert_int_equal(errno, ENOENT);

	expect("version", "1\n");
	expect("backend", "instant [pelt] decay none\n");
	expect("decay_ms", "32\n");
	expect("hz", "250\n");
	expect("log_cpu", "-1\n");
	expect("sim_preset", "hikey960\n");
	expect("sim_clock", "virtual\n");
}

static void test_inject_and_advance(void **state)
{
	char *t;

	assert_int_equal(put("log_cpu", "7\n"), 0);
	assert_int_equal(put("inject", "4-7 1181000\n"), 0);
	assert_int_equal(put("sim_clock", "32000000\n"), 0);
	t = cat("stats");
	assert_non_null(strstr(t, "time_ns 10032000000\n"));
	assert_non_null(strstr(t, "\n7 1 4 1024 2362000 1181000 512 247 777\n"));
	assert_non_null(strstr(t, "\n0 1 0 462 1844000 1844000 0 0 462\n"));
	free(t);
	t = cat("log");
	assert_int_equal(strncmp(t, "reset 10000000000 pelt 32\nupdate 10004000000 512 ", 49), 0);
	assert_non_null(strstr(t, "update 10032000000 512 247\n"));
	free(t);
	/* a shell's echo: O_TRUNC, then one write with a newline */
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "echo decay > %s/backend && cat %s/stats > /dev/null", dir,
		 dir);
	assert_int_equal(system(cmd), 0);
	expect("backend", "instant pelt [decay] none\n");
	expect("decay_ms", "250\n");
	assert_int_equal(put("backend", "pelt"), 0);
	expect("decay_ms", "32\n");
}

/* One open sees one snapshot, however it is read. */
static void test_consistent_reads(void **state)
{
	int fd = open(path_of("stats"), O_RDONLY), err;
	char first[32], rest[8192];
	ssize_t n, m;
	char *whole;

	assert_true(fd >= 0);
	n = read(fd, first, 20);
	assert_int_equal(n, 20);
	assert_int_equal(put("sim_clock", "1000000000"), 0);	/* the clock moves on */
	m = read(fd, rest, sizeof(rest) - 1);
	assert_true(m > 0);
	rest[m] = '\0';
	close(fd);
	assert_int_equal(strncmp(first, "version 1\ntime_ns 10", 20), 0);
	/* the snapshot was taken before the advance: time_ns 10032000000 */
	assert_int_equal(strncmp(rest, "032000000\n", 10), 0);

	/* byte by byte is the same text as in one go */
	whole = slurp("stats", 1, &err);
	assert_int_equal(err, 0);
	char *again = cat("stats");
	assert_string_equal(whole, again);
	assert_non_null(strstr(whole, "time_ns 11032000000\n"));
	free(whole);
	free(again);
}

static void test_bad_writes(void **state)
{
	static const struct { const char *file, *value; } bad[] = {
		{ "inject", "9 1000" }, { "inject", "0-3 1844001" }, { "inject", "0-3 0" },
		{ "inject", "0-3" }, { "inject", "x 1000\n" }, { "backend", "foo" },
		{ "decay_ms", "0" }, { "decay_ms", "abc" }, { "log_cpu", "8" },
		{ "sim_clock", "0" }, { "sim_clock", "-1" }, { "version", "1" }, { "stats", "x" },
	};
	char *before, *after;
	int err;

	before = cat("stats");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int e = put(bad[i].file, bad[i].value);

		if (e != EINVAL)
			fail_msg("%s <- '%s': errno %d, not EINVAL", bad[i].file, bad[i].value, e);
	}
	after = cat("stats");
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(slurp("inject", 4096, &err));
	assert_int_equal(err, EINVAL);

	/* at offset 0 only */
	int fd = open(path_of("inject"), O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "0 1000", 6, 3), -1);
	assert_int_equal(errno, EINVAL);
	close(fd);
}

/* The patched-kernel source reads the served tree as it reads a kernel. */
static void test_patched_source_reads_it(void **state)
{
	struct tp_open_options o = { .kind = TP_SOURCE_PATCHED, .root = mnt };
	struct tp_source *patched = NULL;
	struct tp_snapshot a = TP_SNAPSHOT_INIT, b = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };

	if (tp_source_open(&o, &patched, &err))
		fail_msg("patched source at %s: %s", mnt, err.msg);
	assert_int_equal(tp_snapshot_take(patched, &a, &err), 0);
	assert_int_equal(put("inject", "4-7 1181000"), 0);	/* the served sim is still live */
	tp_source_close(patched);
	/*
	 * The in-process view of the same simulator (safe: the server thread is idle, and a
	 * virtual clock makes a snapshot read-only).  Caps differ after that inject.
	 */
	assert_int_equal(tp_snapshot_take(src, &b, &err), 0);
	assert_int_equal(a.nr_cpus, 8);
	assert_int_equal(a.time_ns, b.time_ns);
	assert_string_equal(a.backend, b.backend);
	assert_int_equal(a.decay_ms, b.decay_ms);
	assert_int_equal(a.hz, 250);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(a.cpus[i].max_capacity, b.cpus[i].max_capacity);
		assert_int_equal(a.cpus[i].max_freq_khz, b.cpus[i].max_freq_khz);
		assert_int_equal(a.cpus[i].avg_pressure, b.cpus[i].avg_pressure);
	}
	tp_snapshot_release(&a);
	tp_snapshot_release(&b);
}

/* A second serve of the same simulator on a mountpoint that does not exist. */
static void test_serve_errors(void **state)
{
	volatile sig_atomic_t never = 0;
	struct tp_error err = { 0 };
	int r = tp_sim_serve(src, "/nonexistent-thermpress-mountpoint", &never, &err);

	assert_int_equal(r, -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent-thermpress-mountpoint"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_inject_and_advance),
		cmocka_unit_test(test_consistent_reads),
		cmocka_unit_test(test_bad_writes),
		cmocka_unit_test(test_patched_source_reads_it),
		cmocka_unit_test(test_serve_errors),
	};

	if (access("/dev/fuse", R_OK | W_OK)) {
		printf("/dev/fuse is unavailable (%s): skipping the FUSE tests\n", strerror(errno));
		return 77;
	}
	return cmocka_run_group_tests_name("sim fuse", tests, setup, teardown);
}
