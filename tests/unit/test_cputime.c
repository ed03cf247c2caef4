// SPDX-License-Identifier: MIT
/*
 * core/cputime.c: /proc/stat parsed into per-CPU busy ticks (good text, gaps, garbage,
 * overflow), read under a source's root (and refused for a simulator), and the 95%
 * confidence interval bench prints.
 */
#include <errno.h>
#include <limits.h>
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

#include <thermpress/cputime.h>

static int parse(const char *text, struct tp_cpu_ticks *t, size_t max, size_t *n,
		 struct tp_error *err)
{
	return tp_parse_proc_stat(text, strlen(text), t, max, n, err);
}

static void test_parse_good(void **state)
{
	/* a 6.x kernel's lines: the total line, cpuN, then lines that are not CPUs */
	const char *text =
		"cpu  100 20 30 4000 50 6 7 8 9 10\n"
		"cpu0 10 2 3 400 5 1 1 1 9 10\n"
		"cpu1 90 18 27 3600 45 5 6 7 0 0\n"
		"intr 12345 0 0 1 2\nctxt 999\nbtime 1700000000\nprocesses 42\n"
		"procs_running 1\nprocs_blocked 0\nsoftirq 1 2 3\n";
	struct tp_cpu_ticks t[4];
	struct tp_error err = { 0 };
	size_t n = 99;

	assert_int_equal(parse(text, t, 4, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(t[0].cpu, 0);
	/* busy = user nice system irq softirq steal; guest is inside user already */
	assert_true(t[0].busy == 10 + 2 + 3 + 1 + 1 + 1);
	assert_true(t[0].total == t[0].busy + 400 + 5);
	assert_int_equal(t[1].cpu, 1);
	assert_true(t[1].busy == 90 + 18 + 27 + 5 + 6 + 7);
	assert_true(t[1].total == t[1].busy + 3600 + 45);
	(void)state;
}

static void test_parse_forms(void **state)
{
	struct tp_cpu_ticks t[8];
	struct tp_error err = { 0 };
	size_t n;

	/* offline CPUs have no line: numbers skip; no trailing newline */
	assert_int_equal(parse("cpu0 1 0 0 1\ncpu4 2 0 0 2\ncpu7 3 0 0 3", t, 8, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(t[1].cpu, 4);
	assert_int_equal(t[2].cpu, 7);
	assert_true(t[2].busy == 3 && t[2].total == 6);
	/* an old kernel's 4 fields; a later kernel's 11th field is ignored */
	assert_int_equal(parse("cpu3 5 6 7 8\n", t, 8, &n, &err), 0);
	assert_true(n == 1 && t[0].busy == 18 && t[0].total == 26);
	assert_int_equal(parse("cpu3 1 1 1 1 1 1 1 1 1 1 1000\n", t, 8, &n, &err), 0);
	assert_true(t[0].busy == 6 && t[0].total == 8);
	/* trailing spaces are harmless */
	assert_int_equal(parse("cpu0 1 2 3 4 \n", t, 8, &n, &err), 0);
	/* the largest CPU number */
	assert_int_equal(parse("cpu2147483647 1 2 3 4\n", t, 8, &n, &err), 0);
	assert_int_equal(t[0].cpu, INT_MAX);
	/* the text ends where len says, not at a NUL */
	assert_int_equal(tp_parse_proc_stat("cpu0 1 2 3 4 garbage", 12, t, 8, &n, &err), 0);
	assert_true(n == 1 && t[0].total == 10);
	(void)state;
}

static void test_parse_refused(void **state)
{
	static const struct {
		const char *text;
		int rc;
	} cases[] = {
		{ "", -EINVAL },				/* no cpuN line */
		{ "cpu  1 2 3 4\nintr 5\n", -EINVAL },		/* only the total */
		{ "cpu0 1 2 3\n", -EINVAL },			/* too few fields */
		{ "cpu0 1 2 x 4\n", -EINVAL },
		{ "cpu0 1 2 -3 4\n", -EINVAL },
		{ "cpu0 1 2 3 4x\n", -EINVAL },
		{ "cpu0\t1 2 3 4\n", -EINVAL },
		{ "cpu0 1 2 3\t4\n", -EINVAL },
		{ "cpu0x 1 2 3 4\n", -EINVAL },
		{ "cpu1 1 2 3 4\ncpu1 1 2 3 4\n", -EINVAL },	/* twice */
		{ "cpu2 1 2 3 4\ncpu1 1 2 3 4\n", -EINVAL },	/* descending */
		{ "cpu0 1 2 3 4\ncpu1 1 2 \xff 4\n", -EINVAL },
		{ "cpu2147483648 1 2 3 4\n", -ERANGE },		/* above INT_MAX */
		{ "cpu99999999999999999999999 1 2 3 4\n", -ERANGE },
		{ "cpu0 18446744073709551616 0 0 0\n", -ERANGE },	/* UINT64_MAX + 1 */
		{ "cpu0 99999999999999999999999999 0 0 0\n", -ERANGE },
		/* each field fits, the sum does not: busy, then total */
		{ "cpu0 18446744073709551615 1 0 0\n", -ERANGE },
		{ "cpu0 18446744073709551615 0 0 1\n", -ERANGE },
		{ "cpu0 0 0 0 18446744073709551615 1\n", -ERANGE },
	};
	struct tp_cpu_ticks t[4];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tp_error err = { 0 };
		size_t n = 7;
		int rc = parse(cases[i].text, t, 4, &n, &err);

		if (rc != cases[i].rc)
			fail_msg("case %zu '%s': %d, expected %d", i, cases[i].text, rc, cases[i].rc);
		assert_int_equal(n, 0);
		assert_true(err.msg[0] != '\0');
	}
	/* the largest sums that fit are taken */
	struct tp_error err = { 0 };
	size_t n;

	assert_int_equal(parse("cpu0 18446744073709551615 0 0 0\n", t, 4, &n, &err), 0);
	assert_true(t[0].busy == UINT64_MAX && t[0].total == UINT64_MAX);
	/* more CPUs than room */
	assert_int_equal(parse("cpu0 1 2 3 4\ncpu1 1 2 3 4\ncpu2 1 2 3 4\n", t, 2, &n, &err),
			 -ENOSPC);
	assert_non_null(strstr(err.msg, "more than 2 cpus"));
	(void)state;
}

/* The running kernel's own /proc/stat parses, one entry per cpuN line. */
static void test_parse_host(void **state)
{
	static char text[1 << 20];
	static struct tp_cpu_ticks t[8192];
	struct tp_error err = { 0 };
	size_t len, n, lines = 0;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		skip();
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	for (char *l = text; l; l = strchr(l, '\n')) {
		l += *l == '\n';
		lines += !strncmp(l, "cpu", 3) && l[3] >= '0' && l[3] <= '9';
	}
	if (tp_parse_proc_stat(text, len, t, 8192, &n, &err))
		fail_msg("/proc/stat: %s", err.msg);
	assert_int_equal(n, lines);
	for (size_t i = 0; i < n; i++)
		assert_true(t[i].busy <= t[i].total);
	(void)state;
}

static void test_t_table(void **state)
{
	assert_true(tp_student_t975(0) == 0);
	assert_true(tp_student_t975(1) == 12.706);
	assert_true(tp_student_t975(9) == 2.262);
	assert_true(tp_student_t975(30) == 2.042);
	assert_true(tp_student_t975(31) == 1.96);
	assert_true(tp_student_t975(100000) == 1.96);
	/* the table falls towards the normal quantile */
	for (size_t df = 1; df < 40; df++)
		assert_true(tp_student_t975(df + 1) <= tp_student_t975(df));
	(void)state;
}

static void test_ci95(void **state)
{
	const double two[] = { 0.6, 0.8 };
	const double ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	double mean, sd, half;

	/* n = 2: sd = |a - b| / sqrt 2, half = t(1) * sd / sqrt 2 = 12.706 * 0.1 */
	tp_mean_ci95(two, 2, &mean, &sd, &half);
	assert_float_equal(mean, 0.7, 1e-12);
	assert_float_equal(sd, 0.1414213562373095, 1e-12);
	assert_float_equal(half, 1.2706, 1e-12);
	/* 1..10: sd = sqrt(55/6), half = 2.262 * sd / sqrt 10 */
	tp_mean_ci95(ten, 10, &mean, &sd, &half);
	assert_float_equal(mean, 5.5, 1e-12);
	assert_float_equal(sd, 3.0276503540974917, 1e-12);
	assert_float_equal(half, 2.262 * 3.0276503540974917 / 3.1622776601683795, 1e-12);
	/* one run: no spread, no interval */
	tp_mean_ci95(ten, 1, &mean, &sd, &half);
	assert_float_equal(mean, 1, 0);
	assert_float_equal(sd, 0, 0);
	assert_true(half < 0);
	/* equal runs: an interval of width 0 */
	tp_mean_ci95((const double[]){ 3, 3, 3 }, 3, &mean, NULL, &half);
	assert_float_equal(half, 0, 0);
	(void)state;
}

/* ---- reading under a source's root --------------------------------------------------- */

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A minimal patched-kernel tree (docs/abi.md) with a proc/stat of its own. */
static int make_root(void **state)
{
	char cmd[256];

	snprintf(root, sizeof(root), "/tmp/test_cputime.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/kernel/debug/sched/thermal_pressure %s/proc",
		 root, root);
	if (system(cmd))
		return -1;
	put("sys/kernel/debug/sched/thermal_pressure/version", "1\n");
	put("sys/kernel/debug/sched/thermal_pressure/backend", "instant [pelt] decay\n");
	put("sys/kernel/debug/sched/thermal_pressure/decay_ms", "32\n");
	put("sys/kernel/debug/sched/thermal_pressure/hz", "250\n");
	put("sys/kernel/debug/sched/thermal_pressure/inject", "");
	put("sys/kernel/debug/sched/thermal_pressure/stats",
	    "version 1\ntime_ns 1\nbackend pelt\ndecay_ms 32\nhz 250\nnr_cpus 1\n"
	    "cpu online domain max_capacity max_freq_khz capped_freq_khz pressure "
	    "avg_pressure capacity\n0 1 0 1024 2362000 2362000 0 0 1024\n");
	(void)state;
	return 0;
}

static int remove_root(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	(void)state;
	return system(cmd);
}

static struct tp_source *open_kind(enum tp_source_kind kind)
{
	struct tp_open_options o = { .kind = kind, .root = root };
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };

	if (tp_source_open(&o, &src, &err))
		fail_msg("open: %s", err.msg);
	return src;
}

static void test_read_root(void **state)
{
	struct tp_source *src = open_kind(TP_SOURCE_PATCHED);
	struct tp_cpu_ticks t[4];
	struct tp_error err = { 0 };
	char link[128];
	size_t n;

	/* no proc/stat under the root: the root's, never the host's */
	assert_int_equal(tp_cpu_ticks_read(src, t, 4, &n, &err), -ENOENT);
	assert_non_null(strstr(err.msg, root));
	put("proc/stat", "cpu  3 0 0 3\ncpu0 1 0 0 1\ncpu2 2 0 0 2\nintr 1\n");
	assert_int_equal(tp_cpu_ticks_read(src, t, 4, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_true(t[1].cpu == 2 && t[1].busy == 2 && t[1].total == 4);
	/* a parse error names the file */
	put("proc/stat", "cpu0 1 0 0\n");
	assert_int_equal(tp_cpu_ticks_read(src, t, 4, &n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "/proc/stat: line 1"));
	/* a link out of the root is not followed */
	snprintf(link, sizeof(link), "%s/proc/stat", root);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("/proc/stat", link), 0);
	assert_int_equal(tp_cpu_ticks_read(src, t, 4, &n, &err), -EXDEV);
	tp_source_close(src);
	(void)state;
}

static void test_read_simulator(void **state)
{
	struct tp_cpu_ticks t[4];
	struct tp_error err = { 0 };
	struct tp_source *src = open_kind(TP_SOURCE_SIM);
	size_t n = 3;

	assert_int_equal(tp_cpu_ticks_read(src, t, 4, &n, &err), -ENOTSUP);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "simulator"));
	tp_source_close(src);
	/* a served simulator (it has sim_clock) is refused too, even with a proc/stat */
	put("proc/stat", "cpu0 1 0 0 1\n");
	put("sys/kernel/debug/sched/thermal_pressure/sim_clock", "real\n");
	src = open_kind(TP_SOURCE_PATCHED);
	assert_int_equal(tp_cpu_ticks_read(src, t, 4, &n, &err), -ENOTSUP);
	tp_source_close(src);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_parse_host),
		cmocka_unit_test(test_t_table),
		cmocka_unit_test(test_ci95),
		cmocka_unit_test_setup_teardown(test_read_root, make_root, remove_root),
		cmocka_unit_test_setup_teardown(test_read_simulator, make_root, remove_root),
	};

	unsetenv("THERMPRESS_STATE_DIR");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
