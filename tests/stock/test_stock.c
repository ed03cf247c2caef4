// SPDX-License-Identifier: MIT
/*
 * The stock-kernel source against fixture trees (tests/fixtures/stock/), read under
 * a non-/ root, so every file is read and written directly (libcpupower is tested
 * through a mount namespace in test_stock_ns.c).  Every test works on a private copy.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

#define BIG_MAX "sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq"
#define LITTLE_MAX "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
#define BIG_COOLING "sys/class/thermal/cooling_device1/cur_state"
#define STATE "run/thermpress/caps.state"

struct fx {
	char *root;
	struct tp_source *src;
	struct tp_snapshot snap;
};

static int setup_named(void **state, const char *name)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct tp_error err = { 0 };

	assert_non_null(f);
	tp_snapshot_init(&f->snap);
	unsetenv("THERMPRESS_STATE_DIR");
	f->root = copy_fixture(name);
	assert_non_null(f->root);
	if (open_stock(f->root, TP_SOURCE_STOCK, &f->src, &err) != 0)
		fail_msg("open %s: %s", name, err.msg);
	*state = f;
	return 0;
}

static int setup_biglittle(void **state) { return setup_named(state, "arm64-biglittle-6.1"); }
static int setup_laptop(void **state) { return setup_named(state, "x86-laptop-6.5"); }
static int setup_server(void **state) { return setup_named(state, "x86-qemu-7.3"); }
static int setup_612(void **state) { return setup_named(state, "arm64-board-6.12"); }
static int setup_73(void **state) { return setup_named(state, "arm64-board-7.3"); }

static int teardown(void **state)
{
	struct fx *f = *state;

	tp_snapshot_release(&f->snap);
	tp_source_close(f->src);
	remove_tree(f->root);
	free(f);
	return 0;
}

static void take(struct fx *f)
{
	struct tp_error err = { 0 };

	if (tp_snapshot_take(f->src, &f->snap, &err) != 0)
		fail_msg("snapshot: %s", err.msg);
}

static const struct tp_cpu *cpu(struct fx *f, int n)
{
	int i = tp_snapshot_find_cpu(&f->snap, n);

	assert_true(i >= 0);
	return &f->snap.cpus[i];
}

static bool has_note(const struct tp_stock_info *info, const char *needle)
{
	for (size_t i = 0; i < info->nr_notes; i++)
		if (strstr(info->notes[i], needle))
			return true;
	return false;
}

/* ---- arm64 big.LITTLE, 6.1 ---------------------------------------------------- */

static void test_biglittle_snapshot(void **state)
{
	struct fx *f = *state;

	take(f);
	assert_string_equal(f->snap.source, "stock");
	assert_string_equal(f->snap.backend, "pelt");
	assert_int_equal(f->snap.decay_ms, 128);	/* 32 << 2 from the command line */
	assert_int_equal(f->snap.hz, 250);
	assert_int_equal(f->snap.nr_cpus, 6);
	assert_int_equal(f->snap.nr_domains, 2);
	assert_int_equal(f->snap.domains[0].id, 0);
	assert_int_equal(f->snap.domains[1].id, 4);
	assert_string_equal(f->snap.domains[0].name, "little");
	assert_string_equal(f->snap.domains[1].name, "big");
	assert_int_equal(cpu(f, 0)->max_capacity, 446);
	assert_int_equal(cpu(f, 3)->domain, 0);
	assert_int_equal(cpu(f, 4)->domain, 1);
	assert_int_equal(cpu(f, 0)->max_freq_khz, 1416000);
	assert_int_equal(cpu(f, 0)->pressure, 0);
	assert_int_equal(cpu(f, 5)->max_capacity, 1024);
	assert_int_equal(cpu(f, 5)->max_freq_khz, 1800000);
	assert_int_equal(cpu(f, 5)->capped_freq_khz, 1416000);
	/* cooling state 2 of 1800/1608/1416...: 1024 - 1024 * 1416000 / 1800000 */
	assert_int_equal(cpu(f, 5)->pressure, 219);
	assert_int_equal(cpu(f, 5)->capped_capacity, 805);
	/* first sample: the pressure is taken as steady */
	assert_true(cpu(f, 5)->avg_estimated);
	assert_in_range(cpu(f, 5)->avg_pressure, 217, 219);
	assert_int_equal(cpu(f, 5)->capacity, 1024 - cpu(f, 5)->avg_pressure);
	assert_int_equal(cpu(f, 1)->online, 1);
	assert_non_null(strstr(tp_source_describe(f->src), "stock kernel 6.1.0-18-arm64 (aarch64) at /tmp/"));
	assert_null(strstr(tp_source_describe(f->src), "no cpufreq"));
}

static void test_biglittle_describe(void **state)
{
	struct fx *f = *state;
	struct tp_stock_info info;
	struct tp_thermal th;
	struct tp_error err = { 0 };

	assert_int_equal(tp_stock_describe(f->src, &info, &err), 0);
	assert_string_equal(info.release, "6.1.0-18-arm64");
	assert_int_equal(info.version_major, 6);
	assert_int_equal(info.version_minor, 1);
	assert_string_equal(info.arch, "aarch64");
	assert_int_equal(info.model, TP_STOCK_MODEL_THERMAL_PELT);
	assert_int_equal(info.decay_shift, 2);
	assert_true(info.decay_shift_from_cmdline);
	assert_int_equal(info.decay_ms, 128);
	assert_int_equal(info.hz, 250);
	assert_true(info.has_cpufreq);
	assert_true(info.has_cpu_capacity);
	assert_false(info.uses_libcpupower);
	assert_int_equal(info.trace_thermal_pressure, 1);
	assert_int_equal(info.trace_hw_pressure, 0);
	assert_int_equal(info.cap_method, TP_STOCK_CAP_SCALING_MAX_FREQ);
	assert_non_null(strstr(info.state_file, STATE));
	assert_int_equal(info.nr_pending, 0);
	assert_int_equal(tp_thermal_read(f->src, &th, &err), 0);
	assert_int_equal(th.nr_zones, 2);
	assert_string_equal(th.zones[0].type, "cpu-thermal");
	assert_int_equal(th.zones[0].temp_mc, 71250);
	assert_int_equal(th.zones[0].nr_trips, 3);
	assert_string_equal(th.zones[0].trips[2].type, "critical");
	assert_int_equal(th.zones[0].trips[2].temp_mc, 115000);
	assert_int_equal(th.zones[0].trips[0].hyst_mc, 2000);
	assert_false(th.zones[0].trips_left_out);
	assert_int_equal(th.nr_cooling, 3);
	assert_int_equal(th.cooling[0].domain, 0);
	assert_int_equal(th.cooling[0].cap_khz, 1416000);
	assert_int_equal(th.cooling[1].domain, 4);
	assert_int_equal(th.cooling[1].cur_state, 2);
	assert_int_equal(th.cooling[1].max_state, 7);
	assert_int_equal(th.cooling[1].cap_khz, 1416000);
	assert_int_equal(th.cooling[2].domain, TP_NONE);
	tp_thermal_release(&th);
	assert_non_null(strstr(info.model_text, "half-life 128 ms"));
	assert_true(has_note(&info, "only the cpufreq cooling device feeds thermal pressure"));
	assert_true(has_note(&info, "estimates it with pelt"));
	tp_stock_info_release(&info);
}

static void test_biglittle_cap_scaling_and_clear(void **state)
{
	struct fx *f = *state;
	struct tp_cap_value v = { TP_CAP_KHZ, 1200000 };
	struct tp_error err = { 0 };
	struct tp_cpuset set;
	struct tp_stock_info info;

	cpus_of(&set, 4, 5);
	if (tp_cap_set(f->src, &set, &v, &err) != 0)
		fail_msg("cap: %s", err.msg);
	assert_int_equal(read_num(f->root, BIG_MAX), 1200000);
	assert_true(exists(f->root, STATE));
	take(f);
	assert_int_equal(cpu(f, 4)->capped_freq_khz, 1200000);
	/* 6.1: scaling_max_freq does not feed thermal pressure, the cooling device does */
	assert_int_equal(cpu(f, 4)->pressure, 219);
	assert_int_equal(tp_stock_describe(f->src, &info, &err), 0);
	assert_int_equal(info.nr_pending, 1);
	assert_true(has_note(&info, "cap restore"));
	tp_stock_info_release(&info);

	/* capped again: the first original stays */
	v.value = 1008000;
	assert_int_equal(tp_cap_set(f->src, &set, &v, &err), 0);
	assert_int_equal(read_num(f->root, BIG_MAX), 1008000);

	assert_int_equal(tp_cap_clear(f->src, &set, &err), 0);
	assert_int_equal(read_num(f->root, BIG_MAX), 1416000);
	assert_false(exists(f->root, STATE));

	/* clear without a record removes the cap */
	assert_int_equal(tp_cap_clear(f->src, &set, &err), 0);
	assert_int_equal(read_num(f->root, BIG_MAX), 1800000);
}

static void test_biglittle_cap_cooling_and_restore(void **state)
{
	struct fx *f = *state;
	struct tp_cap_value v = { TP_CAP_KHZ, 1000000 };
	struct tp_error err = { 0 };
	struct tp_cpuset set;
	size_t n = 99;
	enum tp_stock_cap_method m;

	assert_int_equal(tp_stock_cap_method_parse("cooling", &m, &err), 0);
	assert_int_equal(tp_stock_cap_method_parse("fan", &m, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "scaling_max_freq or cooling"));
	assert_int_equal(tp_stock_set_cap_method(f->src, TP_STOCK_CAP_COOLING_DEVICE, &err), 0);
	take(f);
	int64_t before = cpu(f, 4)->avg_pressure;

	cpus_of(&set, 4, 5);
	if (tp_cap_set(f->src, &set, &v, &err) != 0)
		fail_msg("cap: %s", err.msg);
	/* the highest frequency at most 1000000: 816000 is state 5 */
	assert_int_equal(read_num(f->root, BIG_COOLING), 5);
	assert_int_equal(read_num(f->root, BIG_MAX), 1416000);	/* untouched */
	take(f);
	assert_int_equal(cpu(f, 4)->pressure, 560);	/* 1024 - 1024 * 816000 / 1800000 */
	/* pelt ramps: not there at once */
	assert_true(cpu(f, 4)->avg_pressure >= before);
	assert_true(cpu(f, 4)->avg_pressure < 560);
	int64_t first = cpu(f, 4)->avg_pressure;

	nanosleep(&(struct timespec){ 0, 150 * 1000 * 1000 }, NULL);
	take(f);
	assert_true(cpu(f, 4)->avg_pressure > first);
	assert_true(cpu(f, 4)->avg_pressure < 560);

	/* a little cap too, through the cooling device of policy 0 */
	cpus_of(&set, 0, 3);
	v.value = 700000;
	assert_int_equal(tp_cap_set(f->src, &set, &v, &err), 0);
	assert_int_equal(read_num(f->root, "sys/class/thermal/cooling_device0/cur_state"), 4);

	assert_int_equal(tp_stock_restore(f->src, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(read_num(f->root, BIG_COOLING), 2);
	assert_int_equal(read_num(f->root, "sys/class/thermal/cooling_device0/cur_state"), 0);
	assert_false(exists(f->root, STATE));
	assert_int_equal(tp_stock_restore(f->src, &n, &err), 0);
	assert_int_equal(n, 0);
}

/* A stock kernel caps a whole frequency domain. */
static void test_biglittle_partial_domain(void **state)
{
	struct fx *f = *state;
	struct tp_cap_value v = { TP_CAP_PERCENT, 50 };
	struct tp_error err = { 0 };
	struct tp_cpuset set;

	cpus_of(&set, 1, 1);
	assert_int_equal(tp_cap_set(f->src, &set, &v, &err), 0);
	assert_int_equal(read_num(f->root, LITTLE_MAX), 708000);
	take(f);
	assert_int_equal(cpu(f, 0)->capped_freq_khz, 708000);
	assert_int_equal(cpu(f, 3)->capped_freq_khz, 708000);
	cpus_of(&set, 2, 2);
	assert_int_equal(tp_cap_clear(f->src, &set, &err), 0);
	assert_int_equal(read_num(f->root, LITTLE_MAX), 1416000);
}

static void test_biglittle_backend_decay_fixed(void **state)
{
	struct fx *f = *state;
	struct tp_backend_info b[TP_MAX_BACKENDS];
	struct tp_error err = { 0 };
	size_t n = 0;
	bool pelt_active = false;

	assert_int_equal(tp_backend_list(f->src, b, TP_MAX_BACKENDS, &n, &err), 0);
	for (size_t i = 0; i < n; i++)
		if (strcmp(b[i].name, "pelt") == 0)
			pelt_active = b[i].active && b[i].decay_ms == 128;
	assert_true(pelt_active);
	/* every backend thermpress knows is listed, none last, so that asking explains */
	assert_int_equal(n, 4);
	assert_string_equal(b[3].name, "none");
	assert_false(b[3].active);
	assert_int_equal(tp_backend_set(f->src, "decay", 0, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "thermpress-patched kernel"));
	assert_int_equal(tp_backend_set(f->src, "none", 0, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "cannot switch to none"));
	assert_int_equal(tp_decay_set(f->src, 250, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "sched_thermal_decay_shift=3"));
	assert_non_null(strstr(err.msg, "now 128 ms"));
	assert_int_equal(tp_backend_set(f->src, "pelt", 64, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "sched_thermal_decay_shift=1"));
	/* what is in force is no change, as asked or as the kernel rounds it (bench asks) */
	assert_int_equal(tp_backend_set(f->src, "pelt", 0, &err), 0);
	assert_int_equal(tp_backend_set(f->src, "pelt", 128, &err), 0);
	assert_int_equal(tp_decay_set(f->src, 128, &err), 0);
	assert_int_equal(tp_decay_set(f->src, 100, &err), 0);
	assert_int_equal(tp_decay_set(f->src, 96, &err), -EOPNOTSUPP);	/* a tie: 64 */
	assert_non_null(strstr(err.msg, "sched_thermal_decay_shift=1"));
}

/* A process that capped and was killed: restore puts every limit back. */
static void test_killed_capper_restored(void **state)
{
	struct fx *f = *state;
	struct tp_error err = { 0 };
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		child_cap_both_ways(f->root, 5, 600000);
		raise(SIGKILL);
		_exit(5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(read_num(f->root, LITTLE_MAX), 600000);
	assert_int_equal(read_num(f->root, BIG_MAX), 600000);
	assert_int_equal(read_num(f->root, BIG_COOLING), 6);	/* 600000: state 6 */

	size_t n = 0;

	assert_int_equal(tp_stock_restore(f->src, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(read_num(f->root, LITTLE_MAX), 1416000);
	assert_int_equal(read_num(f->root, BIG_MAX), 1416000);
	assert_int_equal(read_num(f->root, BIG_COOLING), 2);
	assert_false(exists(f->root, STATE));
}

/* A state file written for another root is refused, not applied. */
static void test_state_file_other_root(void **state)
{
	struct fx *f = *state;
	struct tp_error err = { 0 };
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/run", f->root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/run/thermpress", f->root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/" STATE, f->root);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "thermpress-caps 1\nroot /elsewhere\nscaling_max_freq 4 1 1\n");
	fclose(fp);
	assert_int_equal(tp_stock_restore(f->src, NULL, &err), -EXDEV);
	assert_non_null(strstr(err.msg, "/elsewhere"));
	assert_int_equal(read_num(f->root, BIG_MAX), 1416000);

	fp = fopen(path, "w");
	fprintf(fp, "garbage\n");
	fclose(fp);
	assert_int_equal(tp_stock_restore(f->src, NULL, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "not a thermpress caps state file"));
}

/* Writing without permission says so plainly (run as nobody when we are root). */
static void test_permission_denied(void **state)
{
	struct fx *f = *state;
	struct passwd *pw = getpwnam("nobody");

	if (geteuid() != 0 || !pw) {
		skip();
		return;
	}
	assert_int_equal(cap_refused_as_user(pw, f->root, f->root, 600000, "Permission denied",
					     "needs root", NULL), 0);
	assert_int_equal(read_num(f->root, LITTLE_MAX), 1416000);
	/* the record of the refused write was dropped again */
	assert_false(exists(f->root, "userstate/caps.state"));
}

/* ---- x86 laptop, 6.5 -------------------------------------------------------------- */

static void test_laptop(void **state)
{
	struct fx *f = *state;
	struct tp_stock_info info;
	struct tp_thermal th;
	struct tp_error err = { 0 };
	struct tp_cap_value v = { TP_CAP_KHZ, 2000000 };
	struct tp_cpuset set;

	take(f);
	assert_string_equal(f->snap.backend, "");
	assert_int_equal(f->snap.decay_ms, TP_NONE);
	assert_int_equal(f->snap.hz, 1000);	/* from /proc/config.gz */
	assert_int_equal(f->snap.nr_cpus, 8);
	assert_int_equal(f->snap.nr_domains, 8);
	assert_string_equal(f->snap.domains[7].name, "cluster7");
	for (int c = 0; c < 8; c++) {
		assert_int_equal(cpu(f, c)->max_capacity, 1024);
		assert_int_equal(cpu(f, c)->domain, c);
		assert_int_equal(cpu(f, c)->max_freq_khz, 4700000);
		assert_int_equal(cpu(f, c)->pressure, 0);
		assert_int_equal(cpu(f, c)->avg_pressure, TP_NONE);	/* no average: none, not 0 */
		assert_false(cpu(f, c)->avg_estimated);
		assert_int_equal(cpu(f, c)->capacity, 1024);
	}
	assert_int_equal(cpu(f, 6)->online, 1);
	assert_int_equal(cpu(f, 7)->online, 0);

	assert_int_equal(tp_stock_describe(f->src, &info, &err), 0);
	assert_int_equal(info.model, TP_STOCK_MODEL_NONE);
	assert_int_equal(info.decay_shift, TP_NONE);
	assert_false(info.has_cpu_capacity);
	assert_int_equal(info.trace_thermal_pressure, 0);
	assert_int_equal(tp_thermal_read(f->src, &th, &err), 0);
	assert_int_equal(th.nr_cooling, 10);
	assert_int_equal(th.cooling[0].domain, TP_NONE);	/* "Processor" is ACPI, not cpufreq */
	assert_int_equal(th.cooling[8].cur_state, -1);
	tp_thermal_release(&th);
	assert_true(has_note(&info, "capacity 1024"));
	assert_non_null(strstr(info.model_text, "pressure: nothing"));
	assert_string_equal(info.reference, "-");	/* no cpufreq pressure on 6.5 x86 */
	assert_false(info.reference_assumed);
	tp_stock_info_release(&info);

	assert_int_equal(tp_stock_set_cap_method(f->src, TP_STOCK_CAP_COOLING_DEVICE, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no cpufreq cooling device"));
	assert_int_equal(tp_decay_set(f->src, 250, &err), -EOPNOTSUPP);	/* no active backend */
	assert_non_null(strstr(err.msg, "nothing to decay"));
	assert_int_equal(tp_backend_set(f->src, "pelt", 0, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "feeds no thermal pressure"));

	cpus_of(&set, 2, 2);
	assert_int_equal(tp_cap_set(f->src, &set, &v, &err), 0);
	assert_int_equal(read_num(f->root, "sys/devices/system/cpu/cpufreq/policy2/scaling_max_freq"), 2000000);
	assert_int_equal(read_num(f->root, "sys/devices/system/cpu/cpufreq/policy3/scaling_max_freq"), 4700000);
	take(f);
	assert_int_equal(cpu(f, 2)->capped_freq_khz, 2000000);
	assert_int_equal(cpu(f, 2)->pressure, 0);	/* x86: the scheduler never sees it */
	assert_int_equal(tp_stock_restore(f->src, NULL, &err), 0);
	assert_int_equal(read_num(f->root, "sys/devices/system/cpu/cpufreq/policy2/scaling_max_freq"), 4700000);
}

/* ---- arm64 server without cpufreq -------------------------------------------------- */

/* A machine without cpufreq: Debian's amd64 7.3 in a qemu guest (captured there) */
static void test_server(void **state)
{
	struct fx *f = *state;
	struct tp_stock_info info;
	struct tp_thermal th;
	struct tp_error err = { 0 };
	struct tp_cap_value v = { TP_CAP_KHZ, 2000000 };
	struct tp_cpuset set;

	take(f);
	assert_int_equal(f->snap.nr_cpus, 2);
	assert_int_equal(f->snap.nr_domains, 0);	/* no cpufreq policy: no domain */
	for (int c = 0; c < 2; c++)
		assert_int_equal(cpu(f, c)->domain, TP_NONE);
	assert_int_equal(f->snap.hz, 250);		/* from usr/lib/modules/R/config */
	assert_int_equal(cpu(f, 1)->max_freq_khz, TP_NONE);
	assert_int_equal(cpu(f, 1)->capped_freq_khz, TP_NONE);
	assert_int_equal(cpu(f, 1)->pressure, TP_NONE);
	assert_int_equal(cpu(f, 1)->avg_pressure, TP_NONE);
	assert_int_equal(cpu(f, 1)->capacity, 1024);
	assert_non_null(strstr(tp_source_describe(f->src), "(no cpufreq)"));

	assert_int_equal(tp_stock_describe(f->src, &info, &err), 0);
	assert_false(info.has_cpufreq);
	assert_int_equal(tp_thermal_read(f->src, &th, &err), 0);
	assert_int_equal(th.nr_zones, 0);
	tp_thermal_release(&th);
	assert_int_equal(info.trace_thermal_pressure, 0);	/* tracefs without the event */
	assert_true(has_note(&info, "no cpufreq on this machine"));
	assert_true(has_note(&info, "still shown: the cpus"));
	assert_true(has_note(&info, "no thermal zones in"));
	tp_stock_info_release(&info);

	cpus_of(&set, 0, 0);
	assert_true(tp_cap_set(f->src, &set, &v, &err) < 0);
	assert_int_equal(tp_cap_clear(f->src, &set, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no cpufreq policy"));
}

/* ---- arm64, 6.12 ---------------------------------------------------------------------- */

/*
 * Linux 6.10+ as Debian's arm64 kernels showed themselves on the board (trees captured
 * there by kernel/arm64/run.sh, booted with a stale sched_thermal_decay_shift=3): the
 * cpufreq pressure is instantaneous, from policy->max, and nothing is averaged.
 */
static void check_cpufreq_hw(struct fx *f)
{
	struct tp_stock_info info;
	struct tp_error err = { 0 };
	struct tp_cap_value v = { TP_CAP_CAPACITY, 800 };
	struct tp_cpuset set;
	long big_max;

	take(f);
	assert_string_equal(f->snap.backend, "instant");
	assert_int_equal(f->snap.decay_ms, 0);
	assert_int_equal(cpu(f, 4)->pressure, 0);	/* captured before any cap */
	assert_int_equal(cpu(f, 4)->capacity, 1024);
	assert_int_equal(cpu(f, 0)->max_capacity, 462);

	assert_int_equal(tp_stock_describe(f->src, &info, &err), 0);
	assert_int_equal(info.model, TP_STOCK_MODEL_CPUFREQ_HW);
	assert_int_equal(info.decay_shift, TP_NONE);
	assert_int_equal(info.trace_hw_pressure, 1);
	assert_int_equal(info.trace_thermal_pressure, 0);
	assert_true(has_note(&info, "sched_thermal_decay_shift=3 is on the command line, but linux 6.10 and later ignore it"));
	assert_true(info.reference_assumed);	/* arch_scale_freq_ref() is not read */
	assert_true(has_note(&info, "divides policy->max by cpuinfo_max_freq"));
	assert_true(has_note(&info, "hw_pressure_update"));
	tp_stock_info_release(&info);

	/* 6.10+: scaling_max_freq is policy->max, so the scheduler sees it at once, as
	 * cpufreq_update_pressure() computes it: 1024 - 1024 * policy->max / 2362000 */
	cpus_of(&set, 4, 7);
	assert_int_equal(tp_cap_set(f->src, &set, &v, &err), 0);
	big_max = read_num(f->root, BIG_MAX);
	assert_in_range(big_max, 1805000, 2362000 - 1);
	take(f);
	assert_int_equal(cpu(f, 4)->pressure, 1024 - 1024 * big_max / 2362000);
	assert_int_equal(cpu(f, 7)->pressure, cpu(f, 4)->pressure);
	assert_true(cpu(f, 4)->capped_capacity >= 800);
	assert_int_equal(cpu(f, 4)->avg_pressure, cpu(f, 4)->pressure);
	assert_int_equal(cpu(f, 0)->pressure, 0);

	/* the source explains why there is no decay setting since 6.10 */
	assert_int_equal(tp_decay_set(f->src, 64, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "has no decay setting"));
	assert_int_equal(tp_backend_set(f->src, "pelt", 0, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "fixed 32 ms pelt"));
	assert_int_equal(tp_stock_restore(f->src, NULL, &err), 0);
	assert_int_equal(read_num(f->root, BIG_MAX), 2362000);
}

static void test_board_612(void **state) { check_cpufreq_hw(*state); }
static void test_board_73(void **state) { check_cpufreq_hw(*state); }

/* ---- The kernel's own average: why it is not read ------------------------------------- */

static void expect_kernel_avg(struct tp_source *src, const char *why)
{
	struct tp_stock_info info;
	struct tp_error err = { 0 };
	char want[PATH_MAX + 128];

	snprintf(want, sizeof(want), "not read (%s)%s", why,
		 strstr(why, "keeps no averaged") ? "" : "; estimated");
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	assert_false(info.kernel_avg_read);
	assert_string_equal(info.kernel_avg, want);
	tp_stock_info_release(&info);
}

/* The fixture roots have no BTF, and are not the running system's root anyway. */
static void test_kernel_avg_not_read(void **state)
{
	struct fx *f = *state;
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };
	char why[PATH_MAX + 64], path[PATH_MAX];
	FILE *fp;

	take(f);
	assert_true(cpu(f, 5)->avg_estimated);
	if (TEST_HAVE_BPF)
		snprintf(why, sizeof(why), "no BTF at %s/sys/kernel/btf/vmlinux", f->root);
	else
		snprintf(why, sizeof(why), "thermpress was built without BPF support");
	expect_kernel_avg(f->src, why);

	/* a root with BTF that is not "/": BPF would read the running kernel, not this one */
	snprintf(path, sizeof(path), "%s/sys/kernel/btf", f->root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel/btf/vmlinux", f->root);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("not BTF\n", fp);
	fclose(fp);
	assert_int_equal(open_stock(f->root, TP_SOURCE_STOCK, &src, &err), 0);
	if (TEST_HAVE_BPF)
		snprintf(why, sizeof(why),
			 "%s is not the running system's root: BPF reads the running kernel only", f->root);
	expect_kernel_avg(src, why);
	tp_source_close(src);

	/* THERMPRESS_NO_BPF turns it off */
	setenv("THERMPRESS_NO_BPF", "1", 1);
	assert_int_equal(open_stock(f->root, TP_SOURCE_STOCK, &src, &err), 0);
	if (TEST_HAVE_BPF)
		snprintf(why, sizeof(why), "THERMPRESS_NO_BPF is set");
	expect_kernel_avg(src, why);
	tp_source_close(src);
	unsetenv("THERMPRESS_NO_BPF");
}

/* x86 keeps no average: nothing to read, and nothing estimated either (none, not 0). */
static void test_kernel_avg_none_on_x86(void **state)
{
	struct fx *f = *state;

	expect_kernel_avg(f->src, "linux 6.5.0-44-generic on x86_64 keeps no averaged thermal pressure");
}

/* 6.10+ keeps rq->avg_hw: without BTF it stays the estimate (= the cpufreq pressure). */
static void test_kernel_avg_612(void **state)
{
	struct fx *f = *state;
	char why[PATH_MAX + 64];

	take(f);
	assert_true(cpu(f, 4)->avg_estimated);
	if (TEST_HAVE_BPF)
		snprintf(why, sizeof(why), "no BTF at %s/sys/kernel/btf/vmlinux", f->root);
	else
		snprintf(why, sizeof(why), "thermpress was built without BPF support");
	expect_kernel_avg(f->src, why);
}

/* ---- Opening ----------------------------------------------------------------------------- */

static void test_open(void **state)
{
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };
	struct tp_stock_info info;
	char *root = copy_fixture("arm64-biglittle-6.1");

	assert_non_null(root);
	/* no patched interface: AUTO gives the stock view */
	assert_int_equal(open_stock(root, TP_SOURCE_AUTO, &src, &err), 0);
	assert_int_equal(tp_source_kind(src), TP_SOURCE_STOCK);
	tp_source_close(src);
	/* PATCHED does not */
	assert_true(open_stock(root, TP_SOURCE_PATCHED, &src, &err) < 0);
	remove_tree(root);

	assert_int_equal(open_stock("/nonexistent-stock-root", TP_SOURCE_STOCK, &src, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no cpus under /nonexistent-stock-root/sys/devices/system/cpu"));

	/* the stock calls refuse other sources */
	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_virtual_clock = true };

	assert_int_equal(tp_source_open(&o, &src, &err), 0);
	assert_int_equal(tp_stock_describe(src, &info, &err), -ENOTSUP);
	assert_non_null(strstr(err.msg, "not a stock kernel"));
	assert_int_equal(tp_stock_restore(src, NULL, &err), -ENOTSUP);
	tp_source_close(src);
	(void)state;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_biglittle_snapshot, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_biglittle_describe, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_biglittle_cap_scaling_and_clear, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_biglittle_cap_cooling_and_restore, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_biglittle_partial_domain, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_biglittle_backend_decay_fixed, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_killed_capper_restored, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_state_file_other_root, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_permission_denied, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_laptop, setup_laptop, teardown),
		cmocka_unit_test_setup_teardown(test_server, setup_server, teardown),
		cmocka_unit_test_setup_teardown(test_board_612, setup_612, teardown),
		cmocka_unit_test_setup_teardown(test_board_73, setup_73, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_avg_not_read, setup_biglittle, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_avg_none_on_x86, setup_laptop, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_avg_612, setup_612, teardown),
		cmocka_unit_test(test_open),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	fixtures = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
