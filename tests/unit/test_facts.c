// SPDX-License-Identifier: MIT
/*
 * What the library answers about itself and its sources, so that no front end
 * re-derives it: tp_source_info() on the simulator, a patched tree (also one served
 * by a simulator) and a stock fixture; the tick rates; trace detection; the optional
 * source operations' -ENOTSUP; the version query.
 * Usage: test_facts STOCK_FIXTURES_DIR PROJECT_VERSION
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <thermpress/experiment.h>
#include <thermpress/stock.h>
#include <thermpress/thermpress.h>

#include "../stock/common.h"

static const char *project_version;

static struct tp_source *open_sim(bool virtual_clock, int hz)
{
	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_virtual_clock = virtual_clock,
				     .sim_hz = hz };
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };

	if (tp_source_open(&o, &src, &err))
		fail_msg("open the simulator: %s", err.msg);
	return src;
}

/* The kind name is the one the source's snapshots carry. */
static void assert_kind_name_matches_snapshot(struct tp_source *src, const char *kind_name)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };

	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_string_equal(snap.source, kind_name);
	tp_snapshot_release(&snap);
}

static void test_info_sim(void **state)
{
	struct tp_source_info info;
	struct tp_error err = { 0 };
	struct tp_source *src = open_sim(true, 0);

	assert_int_equal(tp_source_info(src, &info, &err), 0);
	assert_int_equal(info.kind, TP_SOURCE_SIM);
	assert_string_equal(info.kind_name, "sim");
	assert_string_equal(info.description, tp_source_describe(src));
	assert_int_equal(info.abi_version, TP_ABI_VERSION);
	assert_true(info.simulated);
	assert_int_equal(info.clock, TP_CLOCK_VIRTUAL);
	assert_kind_name_matches_snapshot(src, info.kind_name);
	tp_source_close(src);

	src = open_sim(false, 0);
	assert_int_equal(tp_source_info(src, &info, &err), 0);
	assert_true(info.simulated);
	assert_int_equal(info.clock, TP_CLOCK_REAL);
	tp_source_close(src);
	(void)state;
}

static char patched_root[64];

static void put_abi(const char *name, const char *content)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", patched_root, TP_ABI_DIR, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	assert_int_equal(fclose(f), 0);
}

static int make_patched(void **state)
{
	char cmd[200];

	snprintf(patched_root, sizeof(patched_root), "/tmp/tp-facts-XXXXXX");
	assert_non_null(mkdtemp(patched_root));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/%s", patched_root, TP_ABI_DIR);
	assert_int_equal(system(cmd), 0);
	put_abi("version", "1\n");
	put_abi("backend", "instant [pelt] decay\n");
	put_abi("decay_ms", "32\n");
	put_abi("hz", "250\n");
	put_abi("stats", "version 1\ntime_ns 10004000000\nbackend pelt\ndecay_ms 32\nhz 250\n"
		"nr_cpus 1\ncpu online domain max_capacity max_freq_khz capped_freq_khz pressure "
		"avg_pressure capacity\n0 1 0 1024 2362000 2362000 0 0 1024\n");
	put_abi("inject", "");
	(void)state;
	return 0;
}

static int remove_patched(void **state)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", patched_root);
	(void)state;
	return system(cmd);
}

static struct tp_source *open_patched(void)
{
	struct tp_open_options o = { .kind = TP_SOURCE_PATCHED, .root = patched_root };
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };

	if (tp_source_open(&o, &src, &err))
		fail_msg("open %s: %s", patched_root, err.msg);
	return src;
}

static void test_info_patched(void **state)
{
	struct tp_source_info info;
	struct tp_error err = { 0 };
	struct tp_source *src = open_patched();

	/* a kernel: no sim_clock */
	assert_int_equal(tp_source_info(src, &info, &err), 0);
	assert_int_equal(info.kind, TP_SOURCE_PATCHED);
	assert_string_equal(info.kind_name, "patched");
	assert_non_null(strstr(info.description, patched_root));
	assert_int_equal(info.abi_version, 1);
	assert_false(info.simulated);
	assert_int_equal(info.clock, TP_CLOCK_REAL);
	assert_kind_name_matches_snapshot(src, info.kind_name);

	/* a served simulator: its sim_clock, read at each call */
	put_abi("sim_clock", "virtual\n");
	assert_int_equal(tp_source_info(src, &info, &err), 0);
	assert_true(info.simulated);
	assert_int_equal(info.clock, TP_CLOCK_VIRTUAL);
	put_abi("sim_clock", "real\n");
	assert_int_equal(tp_source_info(src, &info, &err), 0);
	assert_true(info.simulated);
	assert_int_equal(info.clock, TP_CLOCK_REAL);
	tp_source_close(src);
	(void)state;
}

static void test_info_stock(void **state)
{
	struct tp_source_info info;
	struct tp_error err = { 0 };
	struct tp_source *src = NULL;
	char *root = copy_fixture("arm64-biglittle-6.1");

	assert_non_null(root);
	assert_int_equal(open_stock(root, TP_SOURCE_AUTO, &src, &err), 0);
	assert_int_equal(tp_source_info(src, &info, &err), 0);
	assert_int_equal(info.kind, TP_SOURCE_STOCK);
	assert_string_equal(info.kind_name, "stock");
	assert_int_equal(info.abi_version, TP_NONE);	/* it speaks no docs/abi.md */
	assert_false(info.simulated);
	assert_int_equal(info.clock, TP_CLOCK_REAL);
	assert_kind_name_matches_snapshot(src, info.kind_name);
	tp_source_close(src);
	remove_tree(root);
	(void)state;
}

static void test_hz(void **state)
{
	const int *rates;
	size_t n = tp_sim_hz_rates(&rates);
	char text[64] = "";
	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_hz = 300 };
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;

	assert_int_equal(n, 3);
	assert_true(tp_sim_hz_valid(100) && tp_sim_hz_valid(250) && tp_sim_hz_valid(1000));
	assert_true(tp_sim_hz_valid(TP_HZ_DEFAULT));
	assert_false(tp_sim_hz_valid(0) || tp_sim_hz_valid(300) || tp_sim_hz_valid(-250) ||
		     tp_sim_hz_valid(99) || tp_sim_hz_valid(1001));
	/* the text names exactly the rates, in order */
	for (size_t i = 0; i < n; i++) {
		assert_true(tp_sim_hz_valid(rates[i]));
		assert_true(i == 0 || rates[i] > rates[i - 1]);
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%d",
			 i == 0 ? "" : i + 1 < n ? ", " : " or ", rates[i]);
	}
	assert_string_equal(tp_sim_hz_rates_text(), text);

	/* the simulator refuses another rate, naming the valid ones, and defaults to 250 */
	assert_int_equal(tp_source_open(&o, &src, &err), -EINVAL);
	assert_non_null(strstr(err.msg, tp_sim_hz_rates_text()));
	src = open_sim(true, 0);
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_int_equal(snap.hz, TP_HZ_DEFAULT);
	assert_int_equal(snap.time_ns, TP_SIM_START_NS);
	tp_snapshot_release(&snap);
	tp_source_close(src);
	src = open_sim(true, 1000);
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_int_equal(snap.hz, 1000);
	tp_snapshot_release(&snap);
	tp_source_close(src);
	(void)state;
}

static int detect(const char *text, enum tp_trace_format *format)
{
	return tp_trace_detect(text, strlen(text), format);
}

/* A trace as thermpress writes it, detected as the format it was written in. */
static void detect_written(enum tp_trace_format want)
{
	struct tp_source *src = open_sim(true, 0);
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_trace_meta meta;
	struct tp_trace_writer *w;
	struct tp_error err = { 0 };
	enum tp_trace_format got;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	tp_trace_meta_init(&meta);
	assert_int_equal(tp_trace_writer_open(fp, want, &meta, &w, &err), 0);
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_int_equal(tp_trace_write_snapshot(w, &snap, &err), 0);
	assert_int_equal(tp_trace_writer_close(w, &err), 0);
	fclose(fp);
	assert_int_equal(tp_trace_detect(buf, len, &got), 1);
	assert_int_equal(got, want);
	free(buf);
	tp_snapshot_release(&snap);
	tp_source_close(src);
}

static void test_trace_detect(void **state)
{
	enum tp_trace_format f;

	detect_written(TP_TRACE_CSV);
	detect_written(TP_TRACE_JSONL);
	detect_written(TP_TRACE_PERFETTO);

	f = TP_TRACE_PERFETTO;
	assert_int_equal(detect("# thermpress trace 1\n# hz 250\n" TP_TRACE_CSV_HEADER "\n", &f), 1);
	assert_int_equal(f, TP_TRACE_CSV);
	f = TP_TRACE_PERFETTO;
	assert_int_equal(detect(TP_TRACE_CSV_HEADER "\n10,0,1024,1,1,0,0,pelt,32\n", &f), 1);
	assert_int_equal(f, TP_TRACE_CSV);
	assert_int_equal(detect("\n \t\r\n{\"thermpress_trace\":1}\n", &f), 1);
	assert_int_equal(f, TP_TRACE_JSONL);
	assert_int_equal(detect("{\"traceEvents\":[\n", &f), 1);
	assert_int_equal(f, TP_TRACE_PERFETTO);
	/* a key cut short is no key */
	assert_int_equal(tp_trace_detect("{\"traceEvents\"", 13, &f), 1);
	assert_int_equal(f, TP_TRACE_JSONL);
	assert_int_equal(detect("  time_ns,cpu,pressure\n", &f), 1);
	assert_int_equal(f, TP_TRACE_CSV);

	/* cap profiles and garbage are not traces */
	assert_int_equal(detect("0s, all, 50%\n1s, 4-7, clear\n", &f), 0);
	assert_int_equal(detect("# a cap profile\n0s, all, cap=600\n", &f), 0);
	assert_int_equal(detect("", &f), 0);
	assert_int_equal(detect(" \n\t\n", &f), 0);
	assert_int_equal(detect("\x01\xff\xfe garbage", &f), 0);
	assert_int_equal(detect("[1,2,3]", &f), 0);
	assert_int_equal(detect("time_ns\n", &f), 0);
	assert_int_equal(detect("# thermpress", &f), 0);
	/* only the len bytes given count: a magic cut short is no magic */
	assert_int_equal(tp_trace_detect("# thermpress trace 1\n", 10, &f), 0);
	assert_int_equal(tp_trace_detect("time_ns,cpu", 7, &f), 0);
	assert_int_equal(tp_trace_detect("   {", 3, &f), 0);
	assert_int_equal(tp_trace_detect("   {", 4, &f), 1);
	(void)state;
}

/* The optional operations a source does not have: -ENOTSUP, with a reason. */
static void expect_enotsup(int rc, const struct tp_error *err)
{
	assert_int_equal(rc, -ENOTSUP);
	assert_int_equal(err->code, -ENOTSUP);
	assert_true(err->msg[0] != '\0');
}

/* tp_thermal_read: the heat model, a stock tree's zones, none without a scenario. */
static void test_thermal(void **state)
{
	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_virtual_clock = true,
				     .sim_scenario = "heat" };
	struct tp_thermal th;
	struct tp_error err = { 0 };
	struct tp_source *src = open_sim(true, 0);
	char *root;

	(void)state;
	assert_int_equal(tp_thermal_read(src, &th, &err), 0);
	assert_int_equal(th.nr_zones, 0);
	assert_int_equal(th.nr_cooling, 0);
	tp_source_close(src);

	assert_int_equal(tp_source_open(&o, &src, &err), 0);
	assert_int_equal(tp_sim_advance(src, 20000000000ull, &err), 0);
	assert_int_equal(tp_thermal_read(src, &th, &err), 0);
	assert_int_equal(th.nr_zones, 2);
	assert_string_equal(th.zones[0].type, "little-thermal");
	assert_string_equal(th.zones[1].type, "big-thermal");
	assert_int_equal(th.zones[0].nr_trips, 0);
	assert_int_equal(th.zones[1].nr_trips, 1);
	assert_string_equal(th.zones[1].trips[0].type, "passive");
	assert_int_equal(th.zones[1].trips[0].temp_mc, 70000);
	assert_int_equal(th.zones[1].trips[0].hyst_mc, 5000);
	/* 20 s at full load: big has been capped, its temperature near the trip */
	assert_true(th.zones[1].temp_mc > 60000 && th.zones[1].temp_mc < 80000);
	assert_int_equal(th.nr_cooling, 1);
	assert_int_equal(th.zones[1].id, 1);
	assert_string_equal(th.cooling[0].type, "cpufreq-cpu4");
	assert_int_equal(th.cooling[0].domain, 4);
	assert_int_equal(th.cooling[0].max_state, 4);
	assert_true(th.cooling[0].cur_state >= 1 && th.cooling[0].cur_state <= 4);
	assert_true(th.cooling[0].cap_khz > 0);
	tp_thermal_release(&th);
	tp_source_close(src);

	root = copy_fixture("arm64-biglittle-6.1");
	assert_non_null(root);
	assert_int_equal(open_stock(root, TP_SOURCE_STOCK, &src, &err), 0);
	assert_int_equal(tp_thermal_read(src, &th, &err), 0);
	assert_int_equal(th.nr_zones, 2);
	assert_string_equal(th.zones[0].type, "cpu-thermal");
	assert_int_equal(th.zones[0].temp_mc, 71250);
	assert_int_equal(th.zones[0].nr_trips, 3);
	assert_string_equal(th.zones[0].trips[2].type, "critical");
	/* every cooling device, a fan too (it caps no domain) */
	assert_int_equal(th.nr_cooling, 3);
	assert_string_equal(th.cooling[1].type, "cpufreq-cpu4");
	assert_int_equal(th.cooling[1].domain, 4);
	assert_int_equal(th.cooling[1].cur_state, 2);
	assert_int_equal(th.cooling[1].max_state, 7);
	assert_int_equal(th.cooling[1].cap_khz, 1416000);
	assert_int_equal(th.cooling[2].domain, TP_NONE);
	tp_thermal_release(&th);
	tp_source_close(src);
	remove_tree(root);

	/* a patched kernel's interface carries no temperatures */
	make_patched(NULL);
	src = open_patched();
	expect_enotsup(tp_thermal_read(src, &th, &err), &err);
	tp_source_close(src);
	remove_patched(NULL);
}

/* Write TEXT to ROOT/sys/class/thermal/thermal_zone0/trip_point_T_NAME. */
static void put_trip(const char *root, int t, const char *name, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/thermal/thermal_zone0/trip_point_%d_%s", root,
		 t, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Every trip point up to TP_THERMAL_MAX_TRIPS, the same in every reader; more is said. */
static void test_thermal_trips(void **state)
{
	struct tp_thermal th;
	struct tp_stock_info info;
	struct tp_error err = { 0 };
	struct tp_source *src;
	char *root = copy_fixture("arm64-biglittle-6.1"), temp[32];
	bool noted = false;

	(void)state;
	assert_non_null(root);
	for (int t = 3; t < 10; t++) {	/* 10 trip points: top once showed 8 */
		snprintf(temp, sizeof(temp), "%d\n", 50000 + t * 1000);
		put_trip(root, t, "type", "active\n");
		put_trip(root, t, "temp", temp);
	}
	assert_int_equal(open_stock(root, TP_SOURCE_STOCK, &src, &err), 0);
	assert_int_equal(tp_thermal_read(src, &th, &err), 0);
	assert_int_equal(th.zones[0].nr_trips, 10);
	assert_int_equal(th.zones[0].trips[9].temp_mc, 59000);
	assert_false(th.zones[0].trips_left_out);
	tp_thermal_release(&th);
	tp_source_close(src);
	for (int t = 10; t <= TP_THERMAL_MAX_TRIPS; t++) {	/* one more than is read */
		snprintf(temp, sizeof(temp), "%d\n", 50000 + t * 1000);
		put_trip(root, t, "type", "active\n");
		put_trip(root, t, "temp", temp);
	}
	assert_int_equal(open_stock(root, TP_SOURCE_STOCK, &src, &err), 0);
	assert_int_equal(tp_thermal_read(src, &th, &err), 0);
	assert_int_equal(th.zones[0].nr_trips, TP_THERMAL_MAX_TRIPS);
	assert_true(th.zones[0].trips_left_out);
	assert_false(th.zones[1].trips_left_out);
	tp_thermal_release(&th);
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	for (size_t i = 0; i < info.nr_notes; i++)
		noted |= strstr(info.notes[i], "thermal_zone0 has more than 16 trip points") != NULL;
	assert_true(noted);
	tp_stock_info_release(&info);
	tp_source_close(src);
	remove_tree(root);
}

static void test_optional_ops(void **state)
{
	struct tp_stock_info info;
	struct tp_error err = { 0 };
	size_t restored = 99;
	volatile int stop = 1;
	struct tp_source *src = open_sim(true, 0);
	char *root;

	/* the simulator: no stock operations */
	expect_enotsup(tp_stock_describe(src, &info, &err), &err);
	assert_non_null(strstr(err.msg, "not a stock kernel"));
	tp_stock_info_release(&info);
	expect_enotsup(tp_stock_set_cap_method(src, TP_STOCK_CAP_COOLING_DEVICE, &err), &err);
	expect_enotsup(tp_stock_restore(src, &restored, &err), &err);
	assert_int_equal(restored, 0);
	tp_source_close(src);

	/* a patched kernel: no stock operations, nothing to serve */
	make_patched(NULL);
	src = open_patched();
	expect_enotsup(tp_stock_describe(src, &info, &err), &err);
	tp_stock_info_release(&info);
	expect_enotsup(tp_stock_set_cap_method(src, TP_STOCK_CAP_SCALING_MAX_FREQ, &err), &err);
	expect_enotsup(tp_sim_serve(src, "/nonexistent", &stop, &err), &err);
	tp_source_close(src);
	remove_patched(NULL);

	/* a stock kernel: has them, but no clock to advance and nothing to serve */
	root = copy_fixture("arm64-biglittle-6.1");
	assert_non_null(root);
	assert_int_equal(open_stock(root, TP_SOURCE_STOCK, &src, &err), 0);
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	tp_stock_info_release(&info);
	assert_int_equal(tp_stock_set_cap_method(src, TP_STOCK_CAP_COOLING_DEVICE, &err), 0);
	expect_enotsup(tp_sim_advance(src, 1000000, &err), &err);
	expect_enotsup(tp_sim_serve(src, "/nonexistent", &stop, &err), &err);
	/* its backend is fixed: it says why for the request as asked */
	assert_int_equal(tp_backend_set(src, "decay", 0, &err), -ENOTSUP);
	assert_non_null(strstr(err.msg, "cannot switch to decay"));
	assert_int_equal(tp_decay_set(src, 64, &err), -ENOTSUP);
	assert_non_null(strstr(err.msg, "sched_thermal_decay_shift=1"));
	assert_int_equal(tp_backend_set(src, "pelt", 64, &err), -ENOTSUP);
	assert_non_null(strstr(err.msg, "sched_thermal_decay_shift=1"));
	tp_source_close(src);
	remove_tree(root);
	(void)state;
}

static void test_version(void **state)
{
	const struct tp_version_info *v = tp_version();

	assert_non_null(v);
	assert_string_equal(v->version, project_version);
	assert_int_equal(v->abi_version, TP_ABI_VERSION);
	assert_int_equal(v->backend_abi_version, TP_BACKEND_ABI_VERSION);
	assert_int_equal(v->trace_version, TP_TRACE_VERSION);
	assert_ptr_equal(tp_version(), v);
	(void)state;
}

static void test_snapshot_init(void **state)
{
	struct tp_snapshot snap;
	struct tp_source *src = open_sim(true, 0);
	struct tp_error err = { 0 };

	memset(&snap, 0x5a, sizeof(snap));	/* garbage, as an uninitialized variable */
	tp_snapshot_init(&snap);
	assert_int_equal(snap.nr_cpus, 0);
	assert_null(snap.cpus);
	assert_null(snap.domains);
	assert_int_equal(snap.hz, TP_NONE);
	assert_int_equal(snap.decay_ms, TP_NONE);
	assert_string_equal(snap.source, "");
	/* taken, retaken (buffers reused), released: empty again */
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_int_equal(snap.nr_cpus, 8);
	struct tp_cpu *cpus = snap.cpus;
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_ptr_equal(snap.cpus, cpus);
	tp_snapshot_release(&snap);
	assert_null(snap.cpus);
	assert_int_equal(snap.hz, TP_NONE);
	tp_source_close(src);
	(void)state;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_info_sim),
		cmocka_unit_test_setup_teardown(test_info_patched, make_patched, remove_patched),
		cmocka_unit_test(test_info_stock),
		cmocka_unit_test(test_hz),
		cmocka_unit_test(test_trace_detect),
		cmocka_unit_test(test_optional_ops),
		cmocka_unit_test(test_thermal),
		cmocka_unit_test(test_thermal_trips),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_snapshot_init),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_facts STOCK_FIXTURES_DIR PROJECT_VERSION\n");
		return 2;
	}
	fixtures = argv[1];
	project_version = argv[2];
	unsetenv("THERMPRESS_STATE_DIR");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
