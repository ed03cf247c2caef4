// SPDX-License-Identifier: MIT
/*
 * The patched-kernel source against fixture trees made in a temporary root:
 * well-formed, truncated, garbage, missing files, offline CPUs, and what the
 * control functions write.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "readin.h"

#include <thermpress/thermpress.h>

#define HDR "cpu online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure capacity\n"

static const char hikey_stats[] =
	"version 1\ntime_ns 10004000000\nbackend pelt\ndecay_ms 32\nhz 250\nnr_cpus 8\n" HDR
	"0 1 0 462 1844000 1844000 0 0 462\n"
	"1 1 0 462 1844000 1844000 0 0 462\n"
	"2 1 0 462 1844000 1844000 0 0 462\n"
	"3 1 0 462 1844000 1844000 0 0 462\n"
	"4 1 4 1024 2362000 1181000 512 247 777\n"
	"5 1 4 1024 2362000 1181000 512 247 777\n"
	"6 0 4 1024 2362000 1181000 512 247 777\n"
	"7 0 4 1024 2362000 1181000 512 247 777\n";

static char root[64];

static void put(const char *name, const char *content)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/debug/sched/thermal_pressure/%s", root, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	assert_int_equal(fclose(f), 0);
}

static void drop(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/sys/kernel/debug/sched/thermal_pressure/%s", root, name);
	unlink(path);
}

static int make_tree(void **state)
{
	char cmd[200];

	snprintf(root, sizeof(root), "/tmp/tp-patched-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/kernel/debug/sched/thermal_pressure", root);
	assert_int_equal(system(cmd), 0);
	put("version", "1\n");
	put("backend", "instant [pelt] decay\n");
	put("decay_ms", "32\n");
	put("hz", "250\n");
	put("stats", hikey_stats);
	put("inject", "");
	return 0;
}

static int remove_tree(void **state)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static struct tp_source *open_root(void)
{
	struct tp_open_options opts = { .kind = TP_SOURCE_PATCHED, .root = root };
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };

	if (tp_source_open(&opts, &src, &err))
		fail_msg("open: %s", err.msg);
	return src;
}

static void test_well_formed(void **state)
{
	struct tp_source *src = open_root();
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_error err;

	assert_int_equal(tp_source_kind(src), TP_SOURCE_PATCHED);
	assert_non_null(strstr(tp_source_describe(src), root));
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_string_equal(snap.source, "patched");
	assert_string_equal(snap.backend, "pelt");
	assert_int_equal(snap.nr_cpus, 8);
	assert_int_equal(snap.nr_domains, 2);
	assert_string_equal(snap.domains[0].name, "cluster0");
	assert_string_equal(snap.domains[1].name, "cluster1");
	assert_int_equal(snap.cpus[4].capped_capacity, 512);
	assert_int_equal(snap.cpus[6].online, 0);	/* offline, still listed */
	assert_int_equal(snap.cpus[6].avg_pressure, 247);
	assert_false(snap.cpus[6].avg_estimated);

	struct tp_backend_info b[TP_MAX_BACKENDS];
	size_t n;

	assert_int_equal(tp_backend_list(src, b, TP_MAX_BACKENDS, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_true(b[1].active);
	assert_int_equal(b[1].decay_ms, 32);
	assert_string_equal(b[2].name, "decay");
	tp_snapshot_release(&snap);
	tp_source_close(src);
}

static void expect_snapshot_error(const char *stats, int code, const char *msg)
{
	struct tp_source *src = open_root();
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };

	if (stats)
		put("stats", stats);
	else
		drop("stats");
	assert_int_equal(tp_snapshot_take(src, &snap, &err), code);
	if (!strstr(err.msg, msg))
		fail_msg("message '%s' lacks '%s'", err.msg, msg);
	tp_snapshot_release(&snap);
	tp_source_close(src);
	put("stats", hikey_stats);
}

static void test_bad_stats(void **state)
{
	char truncated[sizeof(hikey_stats)];

	memcpy(truncated, hikey_stats, sizeof(hikey_stats));
	truncated[sizeof(hikey_stats) / 2] = '\0';
	expect_snapshot_error(truncated, -EPROTO, "stats: ");
	expect_snapshot_error("", -EPROTO, "stats: no column header");
	expect_snapshot_error("\x01\x02garbage\xff\n", -EPROTO, "stats: no column header");
	expect_snapshot_error(NULL, -ENOENT, "/stats: No such file or directory");
}

static void test_open_errors(void **state)
{
	struct tp_open_options opts = { .kind = TP_SOURCE_PATCHED, .root = root };
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };

	put("version", "2\n");
	assert_int_equal(tp_source_open(&opts, &src, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "interface version 2 is not supported"));
	put("version", "one\n");
	assert_int_equal(tp_source_open(&opts, &src, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "malformed"));
	drop("version");
	assert_int_equal(tp_source_open(&opts, &src, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "has no readable 'version' file; use --sim"));
	put("version", "1\n");

	opts.root = "/nonexistent-tp-root";
	assert_int_equal(tp_source_open(&opts, &src, &err), -ENOENT);
	assert_string_equal(err.msg,
		"no debugfs directory at /nonexistent-tp-root/sys/kernel/debug; use --sim for the built-in simulator");
	assert_null(src);
}

/*
 * Every value the library writes to an interface file, in order: the link wraps
 * tp_write_value_fd() (tests/unit/meson.build).  An interface file must be a regular
 * file (a FIFO is refused, below), so the writes cannot be caught in a pipe.
 */
static char written[1024];
int __real_tp_write_value_fd(int fd, const char *value);
int __wrap_tp_write_value_fd(int fd, const char *value);
int __wrap_tp_write_value_fd(int fd, const char *value)
{
	size_t n = strlen(written);

	snprintf(written + n, sizeof(written) - n, "%s", value);
	return __real_tp_write_value_fd(fd, value);
}

static void test_control_writes(void **state)
{
	char path[256];
	struct tp_source *src = open_root();
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_cpuset cpus;
	struct tp_cap_value v;
	struct tp_error err;
	int fifo;

	written[0] = '\0';
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);

	/* one value, two clusters: one write per distinct frequency */
	assert_int_equal(tp_parse_cpulist("2-5", &snap, &cpus, &err), 0);
	assert_int_equal(tp_parse_cap_value("50%", &v, &err), 0);
	assert_int_equal(tp_cap_set(src, &cpus, &v, &err), 0);
	/* a cap at the maximum is written as clear */
	assert_int_equal(tp_parse_cap_value("100%", &v, &err), 0);
	assert_int_equal(tp_cap_set(src, &cpus, &v, &err), 0);
	assert_int_equal(tp_cap_clear(src, &cpus, &err), 0);
	/* invalid for one cpu: nothing written */
	assert_int_equal(tp_parse_cap_value("cap=600", &v, &err), 0);
	assert_int_equal(tp_cap_set(src, &cpus, &v, &err), -EINVAL);
	assert_string_equal(err.msg, "capacity 600 is above cpu 2's maximum (cap=1..cap=462)");
	assert_int_equal(tp_parse_cap_value("cap=400", &v, &err), 0);
	assert_int_equal(tp_cap_set(src, &cpus, &v, &err), 0);

	assert_string_equal(written,
		"2-3 922000\n4-5 1181000\n"
		"2-5 clear\n"
		"2-5 clear\n"
		"2-3 1596537\n4-5 922657\n");
	/* inject as a FIFO with a reader: refused, never written to (nor waited on) */
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/sched/thermal_pressure/inject", root);
	drop("inject");
	assert_int_equal(mkfifo(path, 0600), 0);
	fifo = open(path, O_RDWR | O_NONBLOCK);
	assert_true(fifo >= 0);
	assert_int_equal(tp_cap_clear(src, &cpus, &err), -ENOTREG);
	assert_non_null(strstr(err.msg, "not a regular file"));
	close(fifo);
	tp_snapshot_release(&snap);
	tp_source_close(src);
	drop("inject");
	put("inject", "");
}

static void test_backend_writes(void **state)
{
	struct tp_source *src = open_root();
	struct tp_error err;
	char buf[64] = "";
	FILE *f;
	char path[256];

	assert_int_equal(tp_backend_set(src, "fancy", 0, &err), -EINVAL);
	assert_string_equal(err.msg, "unknown backend 'fancy' (available: instant, pelt, decay)");
	assert_int_equal(tp_backend_set(src, "decay", 0, &err), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/sched/thermal_pressure/backend", root);
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "decay\n");
	put("backend", "instant [pelt] decay\n");
	tp_source_close(src);
}

static char *read_abi(const char *name, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/debug/sched/thermal_pressure/%s", root, name);
	f = fopen(path, "r");
	assert_non_null(f);
	buf[0] = '\0';
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	return buf;
}

/* A kernel with the none backend: switched to by name, never with a decay period. */
static void test_backend_none(void **state)
{
	struct tp_source *src;
	struct tp_backend_info b[TP_MAX_BACKENDS];
	struct tp_error err;
	char buf[64];
	size_t n;

	put("backend", "instant [pelt] decay none\n");
	src = open_root();
	assert_int_equal(tp_backend_list(src, b, TP_MAX_BACKENDS, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(b[3].name, "none");
	assert_true(b[3].has_plugin);
	assert_int_equal(b[3].decay_max_ms, 0);
	assert_int_equal(tp_backend_set(src, "none", 32, &err), -EINVAL);
	assert_string_equal(err.msg, "backend none has no decay period");
	assert_string_equal(read_abi("backend", buf, sizeof(buf)), "instant [pelt] decay none\n");
	assert_string_equal(read_abi("decay_ms", buf, sizeof(buf)), "32\n");
	assert_int_equal(tp_backend_set(src, "fancy", 0, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "unknown backend 'fancy' (available: instant, pelt, decay, none)");
	assert_int_equal(tp_backend_set(src, "none", 0, &err), 0);
	assert_string_equal(read_abi("backend", buf, sizeof(buf)), "none\n");
	put("backend", "instant [pelt] decay\n");
	tp_source_close(src);
}

static void test_write_refused(void **state)
{
	struct tp_source *src = open_root();
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_cpuset cpus;
	struct tp_cap_value v = { TP_CAP_PERCENT, 50 };
	struct tp_error err;
	char path[256];

	/* a directory where inject should be: open for writing fails */
	drop("inject");
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/sched/thermal_pressure/inject", root);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_int_equal(tp_parse_cpulist("0", &snap, &cpus, &err), 0);
	assert_int_equal(tp_cap_set(src, &cpus, &v, &err), -EISDIR);
	assert_non_null(strstr(err.msg, "/inject for writing: Is a directory"));
	rmdir(path);
	put("inject", "");
	tp_snapshot_release(&snap);
	tp_source_close(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_well_formed),
		cmocka_unit_test(test_bad_stats),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_control_writes),
		cmocka_unit_test(test_backend_writes),
		cmocka_unit_test(test_backend_none),
		cmocka_unit_test(test_write_refused),
	};
	return cmocka_run_group_tests_name("patched", tests, make_tree, remove_tree);
}
