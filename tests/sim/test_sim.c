/* SPDX-License-Identifier: MIT */
/* The simulator: presets, the virtual clock, backends, validation, the log, scenarios. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "abi_text.h"
#include "source.h"
#include "sim/sim.h"

#define MS 1000000ull

static struct tp_source *open_sim(const char *preset, int hz, bool virt, const char *scenario)
{
	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_preset = preset, .sim_hz = hz,
				     .sim_virtual_clock = virt, .sim_scenario = scenario };
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };
	int r = tp_source_open(&o, &src, &err);

	if (r)
		fail_msg("opening %s: %s", preset ? preset : "default", err.msg);
	return src;
}

static int open_err(const char *preset, int hz, const char *scenario, struct tp_error *err)
{
	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_preset = preset, .sim_hz = hz,
				     .sim_virtual_clock = true, .sim_scenario = scenario };
	struct tp_source *src = NULL;
	int r = tp_source_open(&o, &src, err);

	if (!r)
		tp_source_close(src);
	return r;
}

static struct tp_sim *sim_of(struct tp_source *src)
{
	return src->priv;
}

static void take(struct tp_source *src, struct tp_snapshot *snap)
{
	struct tp_error err = { 0 };

	assert_int_equal(tp_snapshot_take(src, snap, &err), 0);
}

static char *read_file(struct tp_source *src, const char *name)
{
	char *text;
	size_t len;

	assert_int_equal(tpsim_file_read(sim_of(src), tpsim_file_find(name), &text, &len), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

/* The file name reads exactly want. */
static void assert_file(struct tp_source *src, const char *name, const char *want)
{
	char *text = read_file(src, name);

	assert_string_equal(text, want);
	free(text);
}

static int write_file(struct tp_source *src, const char *name, const char *value)
{
	struct tp_error err = { 0 };

	return tpsim_file_write(sim_of(src), tpsim_file_find(name), value, strlen(value), 0, &err);
}

/*
 * Cap through the simulated kernel's inject file, as a program other than thermpress
 * may: the kernel takes a frequency below the lowest operating point, which
 * tp_cap_set refuses (the CPU's range, whatever the unit).
 */
static void inject(struct tp_source *src, const char *cpus, uint64_t khz)
{
	char line[64];

	snprintf(line, sizeof(line), "%s %llu", cpus, (unsigned long long)khz);
	assert_int_equal(write_file(src, "inject", line), 0);
}

static void advance(struct tp_source *src, uint64_t ns)
{
	struct tp_error err = { 0 };

	assert_int_equal(tp_sim_advance(src, ns, &err), 0);
}

static void cap(struct tp_source *src, const char *list, uint64_t khz)
{
	struct tp_snapshot topo = TP_SNAPSHOT_INIT;
	struct tp_cpuset set;
	struct tp_error err = { 0 };
	struct tp_cap_value v = { TP_CAP_KHZ, khz };

	take(src, &topo);
	assert_int_equal(tp_parse_cpulist(list, &topo, &set, &err), 0);
	if (khz)
		assert_int_equal(tp_cap_set(src, &set, &v, &err), 0);
	else
		assert_int_equal(tp_cap_clear(src, &set, &err), 0);
	tp_snapshot_release(&topo);
}

/* ---- presets ----------------------------------------------------------------- */

static void test_hikey960(void **state)
{
	struct tp_source *src = open_sim(NULL, 0, true, NULL);
	struct tp_snapshot s = TP_SNAPSHOT_INIT;

	take(src, &s);
	assert_string_equal(tp_source_describe(src), "simulator hikey960 (virtual clock)");
	assert_string_equal(s.source, "sim");
	assert_string_equal(s.backend, "pelt");
	assert_int_equal(s.decay_ms, 32);
	assert_int_equal(s.hz, 250);
	assert_int_equal(s.time_ns, TPSIM_T0_NS);
	assert_int_equal(s.nr_cpus, 8);
	assert_int_equal(s.nr_domains, 2);
	assert_string_equal(s.domains[0].name, "little");
	assert_int_equal(s.domains[0].id, 0);
	assert_string_equal(s.domains[1].name, "big");
	assert_int_equal(s.domains[1].id, 4);
	for (int i = 0; i < 8; i++) {
		const struct tp_cpu *c = &s.cpus[i];

		assert_int_equal(c->cpu, i);
		assert_int_equal(c->online, 1);
		assert_int_equal(c->domain, i < 4 ? 0 : 1);
		assert_int_equal(c->max_capacity, i < 4 ? 462 : 1024);
		assert_int_equal(c->max_freq_khz, i < 4 ? 1844000 : 2362000);
		assert_int_equal(c->capped_freq_khz, c->max_freq_khz);
		assert_int_equal(c->pressure, 0);
		assert_int_equal(c->avg_pressure, 0);
		assert_int_equal(c->capacity, c->max_capacity);
	}
	char *t = read_file(src, "sim_preset");
	assert_string_equal(t, "hikey960\n");
	free(t);
	assert_file(src, "sim_clock", "virtual\n");
	tp_snapshot_release(&s);
	tp_source_close(src);
}

static void test_db410c_smp(void **state)
{
	struct tp_source *src = open_sim("db410c", 1000, true, NULL);
	struct tp_snapshot s = TP_SNAPSHOT_INIT;

	take(src, &s);
	assert_int_equal(s.nr_cpus, 4);
	assert_int_equal(s.nr_domains, 1);
	assert_int_equal(s.hz, 1000);
	assert_string_equal(s.domains[0].name, "cluster0");
	for (int i = 0; i < 4; i++) {
		assert_int_equal(s.cpus[i].max_freq_khz, 1209600);
		assert_int_equal(s.cpus[i].max_capacity, 1024);
		assert_int_equal(s.cpus[i].domain, 0);
	}
	tp_source_close(src);

	src = open_sim("smp:3", 100, true, NULL);
	take(src, &s);
	assert_int_equal(s.nr_cpus, 3);
	assert_int_equal(s.hz, 100);
	assert_int_equal(s.cpus[2].max_freq_khz, 2000000);
	assert_string_equal(s.domains[0].name, "cluster0");
	char *t = read_file(src, "sim_preset");
	assert_string_equal(t, "smp:3\n");
	free(t);
	tp_source_close(src);
	tp_snapshot_release(&s);
}

static void test_bad_options(void **state)
{
	static const char *const bad[] = { "smp:0", "smp:4097", "smp:", "smp:x", "smp:04",
					   "smp:-1", "smp: 4", "smp:4 ", "smp:99999999999999999999",
					   "hikey", "", "HIKEY960" };
	struct tp_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(open_err(bad[i], 0, NULL, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "preset"));
	}
	assert_int_equal(open_err("smp:4096", 0, NULL, &err), 0);
	assert_int_equal(open_err("smp:1", 0, NULL, &err), 0);
	assert_int_equal(open_err(NULL, 300, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "300"));
	assert_int_equal(open_err(NULL, 0, "cold", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "scenario"));
	assert_string_equal(tp_sim_scenarios()[0], "heat");
	assert_null(tp_sim_scenarios()[1]);
}

/* ---- the virtual clock against docs/algorithms.md's check values ------------------ */

static void test_pelt_check_values(void **state)
{
	static const struct { uint64_t ms; int64_t avg; } want[] = {
		{ 32, 247 }, { 64, 375 }, { 128, 475 }, { 400, 511 }, { 432, 264 },
		{ 464, 136 }, { 528, 36 },
	};
	struct tp_source *src = open_sim("hikey960", 250, true, NULL);
	struct tp_snapshot s = TP_SNAPSHOT_INIT;
	uint64_t ms = 0;
	size_t w = 0;

	cap(src, "4-7", 1181000);
	take(src, &s);
	assert_int_equal(s.cpus[4].pressure, 512);
	assert_int_equal(s.cpus[4].capped_freq_khz, 1181000);
	assert_int_equal(s.cpus[4].avg_pressure, 0);	/* pelt: only at the tick */
	while (w < sizeof(want) / sizeof(want[0])) {
		advance(src, 4 * MS);
		ms += 4;
		if (ms == 400) {
			take(src, &s);
			assert_int_equal(s.cpus[7].avg_pressure, 511);
			cap(src, "big", 0);	/* P = 512 while k*4 <= 400, 0 after */
		}
		if (ms != want[w].ms)
			continue;
		take(src, &s);
		assert_int_equal(s.time_ns, TPSIM_T0_NS + ms * MS);
		for (int cpu = 4; cpu < 8; cpu++) {
			assert_int_equal(s.cpus[cpu].avg_pressure, want[w].avg);
			assert_int_equal(s.cpus[cpu].capacity, 1024 - want[w].avg);
		}
		for (int cpu = 0; cpu < 4; cpu++)
			assert_int_equal(s.cpus[cpu].avg_pressure, 0);
		w++;
	}
	tp_snapshot_release(&s);
	tp_source_close(src);
}

/* Advancing in one step or many runs the same ticks. */
static void test_advance_steps(void **state)
{
	struct tp_source *a = open_sim(NULL, 1000, true, NULL), *b = open_sim(NULL, 1000, true, NULL);
	struct tp_snapshot sa = TP_SNAPSHOT_INIT, sb = TP_SNAPSHOT_INIT;

	cap(a, "0-7", 1000000);
	cap(b, "0-7", 1000000);
	advance(a, 123456789);
	for (int i = 0; i < 123; i++)
		advance(b, 1000000);
	advance(b, 456789);
	take(a, &sa);
	take(b, &sb);
	assert_int_equal(sa.time_ns, sb.time_ns);
	for (int i = 0; i < 8; i++)
		assert_int_equal(sa.cpus[i].avg_pressure, sb.cpus[i].avg_pressure);
	assert_true(sa.cpus[7].avg_pressure > 0);
	struct tp_error err = { 0 };
	/* a step out of range is bad input (-ERANGE, exit 2), not a clock that cannot move */
	assert_int_equal(tp_sim_advance(a, 0, &err), -ERANGE);
	assert_int_equal(tp_sim_advance(a, UINT64_MAX, &err), -ERANGE);
	tp_snapshot_release(&sa);
	tp_snapshot_release(&sb);
	tp_source_close(a);
	tp_source_close(b);
}

static void test_real_clock(void **state)
{
	struct tp_source *src = open_sim(NULL, 1000, false, NULL);
	struct tp_snapshot s = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };
	struct timespec ts = { 0, 30 * 1000000 };

	assert_string_equal(tp_source_describe(src), "simulator hikey960 (real clock)");
	cap(src, "4", 1181000);
	nanosleep(&ts, NULL);
	take(src, &s);
	assert_true(s.time_ns >= TPSIM_T0_NS + 30 * MS);
	assert_true(s.cpus[4].avg_pressure > 0);	/* the ticks caught up */
	assert_int_equal(tp_sim_advance(src, MS, &err), -EINVAL);
	assert_int_equal(write_file(src, "sim_clock", "1000"), -EINVAL);
	char *t = read_file(src, "sim_clock");
	assert_string_equal(t, "real\n");
	free(t);
	tp_snapshot_release(&s);
	tp_source_close(src);
}

/* ---- backends ------------------------------------------------------------------- */

static void test_backend_switching(void **state)
{
	struct tp_source *src = open_sim(NULL, 250, true, NULL);
	struct tp_snapshot s = TP_SNAPSHOT_INIT;

	assert_file(src, "backend", "instant [pelt] decay none\n");
	cap(src, "4-7", 1181000);
	advance(src, 100 * MS);
	take(src, &s);
	int64_t before = s.cpus[4].avg_pressure;
	assert_true(before > 0);
	/* the backend already active: nothing is reset */
	assert_int_equal(write_file(src, "backend", "pelt\n"), 0);
	assert_int_equal(write_file(src, "decay_ms", "32"), 0);
	take(src, &s);
	assert_int_equal(s.cpus[4].avg_pressure, before);

	/* pelt rounds to the nearest 32 << shift, a tie to the smaller */
	assert_int_equal(write_file(src, "decay_ms", "100"), 0);
	assert_file(src, "decay_ms", "128\n");
	take(src, &s);
	assert_int_equal(s.cpus[4].avg_pressure, 0);	/* reset */
	assert_int_equal(write_file(src, "decay_ms", "96"), 0);
	assert_file(src, "decay_ms", "64\n");

	/* each backend keeps its own period */
	assert_int_equal(write_file(src, "backend", "decay"), 0);
	assert_file(src, "decay_ms", "250\n");
	assert_int_equal(write_file(src, "decay_ms", "125\n"), 0);
	assert_int_equal(write_file(src, "backend", "pelt"), 0);
	assert_file(src, "decay_ms", "64\n");
	assert_int_equal(write_file(src, "backend", "decay"), 0);
	assert_file(src, "decay_ms", "125\n");

	/* decay updates at the change too */
	take(src, &s);
	assert_int_equal(s.cpus[4].avg_pressure, 0);
	inject(src, "4", 2362000 / 4);
	advance(src, 4 * MS);
	take(src, &s);
	assert_true(s.cpus[4].avg_pressure > 0);

	/* instant: the average follows the pressure at once */
	assert_int_equal(write_file(src, "backend", "instant"), 0);
	assert_file(src, "backend", "[instant] pelt decay none\n");
	assert_file(src, "decay_ms", "0\n");
	cap(src, "5", 1181000);
	take(src, &s);
	assert_int_equal(s.cpus[5].avg_pressure, 512);
	assert_int_equal(s.cpus[5].capacity, 512);
	assert_int_equal(s.decay_ms, 0);
	assert_string_equal(s.backend, "instant");

	/* through the public API too */
	struct tp_error err = { 0 };
	assert_int_equal(tp_backend_set(src, "pelt", 0, &err), 0);
	assert_int_equal(tp_decay_set(src, 256, &err), 0);
	take(src, &s);
	assert_int_equal(s.decay_ms, 256);
	tp_snapshot_release(&s);
	tp_source_close(src);
}

/*
 * none: the scheduler sees no thermal pressure.  With a cap in force the pressure is
 * kept, the average is 0 and the capacity the maximum; it has no decay period; like
 * pelt it is updated at the tick only, always with 0 (docs/abi.md).
 */
static void test_backend_none(void **state)
{
	struct tp_source *src = open_sim(NULL, 250, true, NULL);
	struct tp_snapshot s = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };
	char *before, *t;

	cap(src, "4-7", 1181000);
	advance(src, 100 * MS);
	take(src, &s);
	assert_true(s.cpus[4].avg_pressure > 0);
	assert_int_equal(write_file(src, "log_cpu", "4"), 0);
	assert_int_equal(write_file(src, "backend", "none"), 0);
	assert_file(src, "backend", "instant pelt decay [none]\n");
	assert_file(src, "decay_ms", "0\n");
	for (int i = 0; i < 3; i++) {
		take(src, &s);
		assert_string_equal(s.backend, "none");
		assert_int_equal(s.decay_ms, 0);
		assert_int_equal(s.cpus[4].pressure, 512);
		assert_int_equal(s.cpus[4].avg_pressure, 0);
		assert_int_equal(s.cpus[4].capacity, 1024);
		assert_int_equal(s.cpus[0].capacity, 462);
		advance(src, 100 * MS);
	}
	inject(src, "4", 2362000 / 4);	/* not an update: the log gains no line here */
	take(src, &s);
	assert_int_equal(s.cpus[4].pressure, 768);
	assert_int_equal(s.cpus[4].capacity, 1024);
	advance(src, 4 * MS);
	t = read_file(src, "log");
	assert_true(!strncmp(t, "reset 10100000000 pelt 32\nreset 10100000000 none 0\n"
				"update 10104000000 512 0\n", 76));
	assert_non_null(strstr(t, "update 10396000000 512 0\nupdate 10400000000 512 0\n"
				  "update 10404000000 768 0\n"));
	free(t);

	/* no decay period: every write refused, and nothing changes */
	before = read_file(src, "stats");
	assert_int_equal(write_file(src, "decay_ms", "32"), -EINVAL);
	assert_int_equal(write_file(src, "decay_ms", "0"), -EINVAL);
	assert_int_equal(tp_decay_set(src, 32, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "none"));
	assert_int_equal(tp_backend_set(src, "none", 32, &err), -EINVAL);
	t = read_file(src, "stats");
	assert_string_equal(t, before);
	assert_non_null(strstr(t, "backend none\ndecay_ms 0\n"));
	assert_non_null(strstr(t, "\n4 1 4 1024 2362000 590500 768 0 1024\n"));
	free(t);
	free(before);
	assert_file(src, "backend", "instant pelt decay [none]\n");

	/* switching away: the others see the pressure again */
	assert_int_equal(write_file(src, "backend", "instant"), 0);
	advance(src, 4 * MS);
	take(src, &s);
	assert_int_equal(s.cpus[4].avg_pressure, 768);
	assert_int_equal(s.cpus[4].capacity, 256);
	tp_snapshot_release(&s);
	tp_source_close(src);
}

/* ---- bad writes: EINVAL and nothing changes --------------------------------------- */

static void test_bad_writes(void **state)
{
	static const struct { const char *file, *value; } bad[] = {
		{ "inject", "" }, { "inject", "\n" }, { "inject", "0-3" }, { "inject", "0-3 0" },
		{ "inject", "0-8 1000" }, { "inject", "9 1000" }, { "inject", "0-3  1000" },
		{ "inject", "0-3 1844001" }, { "inject", "0-7 1844001" }, { "inject", "4-7 abc" },
		{ "inject", "0-3 clear\n\n" }, { "inject", " 0-3 1000" }, { "inject", "0-3 1000 " },
		{ "inject", "3-1 1000" }, { "inject", "0-3 +1000" }, { "inject", "0-3 -1" },
		{ "inject", "0-3 1000\nx" }, { "inject", "0-3 clr" },
		/* docs/abi.md's CPULIST has numbers and ranges only: none of the extensions
		 * of the kernel's cpulist_parse() */
		{ "inject", "all 1000" }, { "inject", ",1, 1000" }, { "inject", "0-1, 1000" },
		{ "inject", "0-3:2/4 1000" }, { "inject", "0x1 1000" }, { "inject", "1,,2 1000" },
		{ "backend", "foo" }, { "backend", "pelt " }, { "backend", "" }, { "backend", "PELT" },
		{ "decay_ms", "abc" }, { "decay_ms", "0" }, { "decay_ms", "32769" },
		{ "decay_ms", "-1" }, { "decay_ms", "" }, { "decay_ms", " 64" },
		{ "decay_ms", "99999999999999999999" }, { "decay_ms", "64\n\n" },
		{ "log_cpu", "8" }, { "log_cpu", "-2" }, { "log_cpu", "x" }, { "log_cpu", "" },
		{ "sim_clock", "0" }, { "sim_clock", "-5" }, { "sim_clock", "abc" },
		{ "sim_clock", "1ms" }, { "version", "2" }, { "stats", "x" }, { "hz", "100" },
		{ "log", "x" }, { "sim_preset", "db410c" },
	};
	struct tp_source *src = open_sim(NULL, 250, true, NULL);
	struct tp_sim *sim = sim_of(src);
	struct tp_error err = { 0 };
	char *before, *after, *log_before, *log_after, big[5000];

	cap(src, "4-7", 1181000);
	assert_int_equal(write_file(src, "log_cpu", "5"), 0);
	advance(src, 40 * MS);
	before = read_file(src, "stats");
	log_before = read_file(src, "log");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = write_file(src, bad[i].file, bad[i].value);

		if (r != -EINVAL)
			fail_msg("%s <- '%s': %d, not -EINVAL", bad[i].file, bad[i].value, r);
	}
	/* offset must be 0, one write of at most 4095 bytes */
	assert_int_equal(tpsim_file_write(sim, tpsim_file_find("inject"), "0 1000", 6, 1, &err),
			 -EINVAL);
	memset(big, '0', sizeof(big));
	big[0] = '1';
	assert_int_equal(tpsim_file_write(sim, tpsim_file_find("sim_clock"), big, 4096, 0, &err),
			 -EINVAL);
	/* reading inject */
	char *t;
	size_t len;
	assert_int_equal(tpsim_file_read(sim, tpsim_file_find("inject"), &t, &len), -EINVAL);
	/* instant: no decay write is accepted */
	assert_int_equal(write_file(src, "backend", "instant"), 0);
	assert_int_equal(write_file(src, "decay_ms", "32"), -EINVAL);
	assert_int_equal(write_file(src, "backend", "pelt"), 0);

	after = read_file(src, "stats");
	/* only the backend switch pair changed the averages: compare caps and pressure */
	assert_non_null(strstr(after, "7 1 4 1024 2362000 1181000 512 "));
	assert_non_null(strstr(after, "0 1 0 462 1844000 1844000 0 0 462\n"));
	free(after);
	free(before);
	/* a failed write recorded nothing in the log */
	log_after = read_file(src, "log");
	assert_int_equal(strncmp(log_before, log_after, strlen(log_before)), 0);
	free(log_before);
	free(log_after);

	/* the public path refuses too, naming the subject */
	struct tp_cpuset set;
	tp_cpuset_zero(&set);
	tp_cpuset_add(&set, 8);
	assert_int_equal(tpsim_inject(sim, &set, 1000, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "cpu 8"));
	tp_cpuset_zero(&set);
	assert_int_equal(tpsim_inject(sim, &set, 1000, &err), -EINVAL);
	assert_int_equal(tpsim_set_backend(sim, "nope", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "instant, pelt, decay, none"));
	tp_source_close(src);
}

static void test_bad_writes_change_nothing(void **state)
{
	struct tp_source *src = open_sim(NULL, 250, true, NULL);
	char *before, *after;

	assert_int_equal(write_file(src, "backend", "decay"), 0);
	inject(src, "0-7", 900000);
	advance(src, 40 * MS);
	before = read_file(src, "stats");
	assert_int_equal(write_file(src, "inject", "0-3 1844001"), -EINVAL);
	assert_int_equal(write_file(src, "inject", "0-8 1000"), -EINVAL);
	assert_int_equal(write_file(src, "inject", "0-3,4 2362000x"), -EINVAL);
	assert_int_equal(write_file(src, "decay_ms", "10001"), -EINVAL);
	assert_int_equal(write_file(src, "backend", "pel"), -EINVAL);
	after = read_file(src, "stats");
	assert_string_equal(before, after);	/* the decay backend updates on change: none */
	free(before);
	free(after);
	tp_source_close(src);
}

/* ---- the log ----------------------------------------------------------------------- */

static void test_log(void **state)
{
	struct tp_source *src = open_sim(NULL, 250, true, NULL);
	const struct tp_plugin_set *ps = tp_source_plugins(src);
	char *t, *line, *save = NULL;
	struct tp_avg avg = { 0 };
	struct tp_error err = { 0 };
	int resets = 0, updates = 0;

	assert_file(src, "log_cpu", "-1\n");
	advance(src, 10 * MS);
	assert_int_equal(write_file(src, "log_cpu", "6\n"), 0);
	assert_file(src, "log_cpu", "6\n");
	cap(src, "6", 1500000);
	advance(src, 50 * MS);
	assert_int_equal(write_file(src, "backend", "decay"), 0);
	advance(src, 2 * MS);
	cap(src, "6", 1000000);
	advance(src, 50 * MS);
	assert_int_equal(write_file(src, "decay_ms", "125"), 0);
	cap(src, "4-7", 2000000);
	advance(src, 50 * MS);

	/* replay every line through the plugin named by the last reset */
	t = read_file(src, "log");
	assert_true(!strncmp(t, "reset 10010000000 pelt 32\n", 26));
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long time, a, b;
		char name[32];

		if (sscanf(line, "reset %llu %31s %llu", &time, name, &b) == 3) {
			if (avg.state)
				tp_avg_fini(&avg);
			assert_int_equal(tp_avg_init(&avg, tp_plugins_find(ps, name), (uint32_t)b,
						     time, &err), 0);
			resets++;
		} else if (sscanf(line, "update %llu %llu %llu", &time, &a, &b) == 3) {
			assert_int_equal(tp_avg_update(&avg, time, a), b);
			updates++;
		} else {
			fail_msg("bad log line '%s'", line);
		}
	}
	tp_avg_fini(&avg);
	free(t);
	assert_int_equal(resets, 3);
	assert_true(updates > 35);

	/* stopping keeps what was logged */
	assert_int_equal(write_file(src, "log_cpu", "-1"), 0);
	assert_file(src, "log_cpu", "-1\n");
	tp_source_close(src);
}

/* docs/abi.md: the log before any log_cpu write is the one empty file */
static void test_log_empty(void **state)
{
	struct tp_source *src = open_sim(NULL, 250, true, NULL);
	char *t;

	advance(src, 40 * MS);
	t = read_file(src, "log");
	assert_string_equal(t, "");
	free(t);
	tp_source_close(src);
}

/* docs/abi.md: after a reset every backend, instant too, reads 0 until its next update */
static void test_reset_reads_zero(void **state)
{
	struct tp_source *src = open_sim(NULL, 250, true, NULL);
	struct tp_snapshot s = { 0 };

	cap(src, "4-7", 1181000);
	advance(src, 100 * MS);
	assert_int_equal(write_file(src, "backend", "instant"), 0);
	take(src, &s);
	assert_int_equal(s.cpus[4].pressure, 512);
	assert_int_equal(s.cpus[4].avg_pressure, 0);
	advance(src, 4 * MS);	/* one tick */
	take(src, &s);
	assert_int_equal(s.cpus[4].avg_pressure, 512);
	assert_int_equal(write_file(src, "log_cpu", "5"), 0);
	take(src, &s);
	assert_int_equal(s.cpus[5].avg_pressure, 0);
	assert_int_equal(s.cpus[4].avg_pressure, 512);	/* only the logged cpu is reset */
	tp_snapshot_release(&s);
	tp_source_close(src);
}

static void test_log_overflow(void **state)
{
	struct tp_source *src = open_sim("smp:1", 1000, true, NULL);
	char *t;
	size_t lines = 0;

	assert_int_equal(write_file(src, "log_cpu", "0"), 0);
	advance(src, 70000 * MS);
	t = read_file(src, "log");
	for (char *p = t; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, TPSIM_LOG_MAX + 1);
	assert_non_null(strstr(t, "\noverflow\n"));
	assert_int_equal(strcmp(t + strlen(t) - 9, "overflow\n"), 0);
	free(t);
	/* a new log starts empty again */
	assert_int_equal(write_file(src, "log_cpu", "0"), 0);
	t = read_file(src, "log");
	assert_int_equal(strncmp(t, "reset ", 6), 0);
	assert_string_equal(strchr(t, '\n'), "\n");
	free(t);
	tp_source_close(src);
}

/* ---- stats and the other files ----------------------------------------------------- */

static void test_stats_file(void **state)
{
	struct tp_source *src = open_sim(NULL, 250, true, NULL);
	struct tp_snapshot s = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };
	char *t;
	size_t len;

	cap(src, "4-7", 1181000);
	advance(src, 32 * MS);
	t = read_file(src, "stats");
	assert_true(!strncmp(t, "version 1\ntime_ns 10032000000\nbackend pelt\ndecay_ms 32\n"
			     "hz 250\nnr_cpus 8\n", 68));
	assert_non_null(strstr(t, "\n7 1 4 1024 2362000 1181000 512 247 777\n"));
	/* the same text parses back into the same snapshot */
	len = strlen(t);
	assert_int_equal(tp_abi_parse_stats(t, len, &s, &err), 0);
	assert_int_equal(s.cpus[7].avg_pressure, 247);
	free(t);
	assert_file(src, "version", "1\n");
	assert_file(src, "hz", "250\n");
	tp_snapshot_release(&s);
	tp_source_close(src);
}

/* ---- the scenario ------------------------------------------------------------------- */

static void test_scenario_heat(void **state)
{
	struct tp_source *src = open_sim(NULL, 250, true, "heat");
	struct tp_snapshot s = TP_SNAPSHOT_INIT;
	int64_t lowest = 2362000;
	bool recovered = false;

	assert_string_equal(tp_source_describe(src),
			    "simulator hikey960 (virtual clock, scenario heat)");
	for (int i = 0; i < 120; i++) {
		advance(src, 500 * MS);
		take(src, &s);
		for (int cpu = 0; cpu < 4; cpu++)
			assert_int_equal(s.cpus[cpu].capped_freq_khz, 1844000);
		for (int cpu = 5; cpu < 8; cpu++)
			assert_int_equal(s.cpus[cpu].capped_freq_khz, s.cpus[4].capped_freq_khz);
		if (s.cpus[4].capped_freq_khz < lowest)
			lowest = s.cpus[4].capped_freq_khz;
		if (lowest < 2362000 && s.cpus[4].capped_freq_khz == 2362000)
			recovered = true;
	}
	assert_true(lowest < 2362000);
	assert_true(recovered);	/* the light half of the load profile cools it down */
	tp_snapshot_release(&s);
	tp_source_close(src);
}

/* ---- 4096 CPUs ---------------------------------------------------------------------- */

static void test_smp4096(void **state)
{
	struct tp_source *src = open_sim("smp:4096", 1000, true, NULL);
	struct tp_snapshot s = TP_SNAPSHOT_INIT;
	struct timespec a, b;
	char *t;

	cap(src, "0-4095", 1000000);
	clock_gettime(CLOCK_MONOTONIC, &a);
	advance(src, 1000 * MS);	/* 1000 ticks of 4096 cpus */
	for (int i = 0; i < 100; i++)
		take(src, &s);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_int_equal(s.nr_cpus, 4096);
	assert_int_equal(s.cpus[4095].pressure, 512);
	assert_int_equal(s.cpus[4095].avg_pressure, s.cpus[0].avg_pressure);
	assert_true(s.cpus[4095].avg_pressure > 500);
	double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	if (secs > 20)
		fail_msg("4096 cpus: 1000 ticks and 100 snapshots took %.1f s", secs);
	t = read_file(src, "stats");
	assert_non_null(strstr(t, "nr_cpus 4096\n"));
	assert_non_null(strstr(t, "\n4095 1 0 1024 2000000 1000000 512 "));
	free(t);
	tp_snapshot_release(&s);
	tp_source_close(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hikey960),
		cmocka_unit_test(test_db410c_smp),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_pelt_check_values),
		cmocka_unit_test(test_advance_steps),
		cmocka_unit_test(test_real_clock),
		cmocka_unit_test(test_backend_switching),
		cmocka_unit_test(test_backend_none),
		cmocka_unit_test(test_bad_writes),
		cmocka_unit_test(test_bad_writes_change_nothing),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_log_empty),
		cmocka_unit_test(test_reset_reads_zero),
		cmocka_unit_test(test_log_overflow),
		cmocka_unit_test(test_stats_file),
		cmocka_unit_test(test_scenario_heat),
		cmocka_unit_test(test_smp4096),
	};

	return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
