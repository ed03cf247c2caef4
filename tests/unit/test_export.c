// SPDX-License-Identifier: MIT
/*
 * export/: the metrics written from a snapshot built by hand (exact lines, missing
 * values, both formats), label values from untrusted text, and the two parsers
 * (--listen ADDR:PORT, the Accept header).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <thermpress/stock.h>
#include <thermpress/thermpress.h>

#include "export.h"

static struct tp_domain domains[2] = { { 0, "little" }, { 4, "big" } };

/* cpu 0: little, nothing capped; cpu 4: big, capped to 1.2 GHz, averaged 300 (kernel). */
static struct tp_cpu cpus[2] = {
	{ .cpu = 0, .online = 1, .domain = 0, .max_capacity = 462, .max_freq_khz = 1844000,
	  .capped_freq_khz = 1844000, .capped_capacity = 462, .pressure = 0,
	  .avg_pressure = 0, .capacity = 462, .avg_estimated = true },
	{ .cpu = 4, .online = 1, .domain = 1, .max_capacity = 1024, .max_freq_khz = 2362000,
	  .capped_freq_khz = 1200000, .capped_capacity = 521, .pressure = 503,
	  .avg_pressure = 300, .capacity = 724, .avg_estimated = false },
};

static struct tp_snapshot snapshot(void)
{
	struct tp_snapshot s = { .source = "patched", .backend = "decay", .decay_ms = 125,
		.hz = 250, .nr_cpus = 2, .cpus = cpus, .nr_domains = 2, .domains = domains };
	return s;
}

/* The rendered text; never NULL (the checks print it with %s): nothing rendered fails. */
static const char *render(const struct export_scrape *sc, enum export_format fmt)
{
	static struct export_buf b;

	export_buf_free(&b);
	export_render(&b, sc, fmt);
	if (!b.data)
		fail_msg("export_render wrote nothing");
	return b.data ? b.data : "";
}

/* text holds line as a whole line. */
static void assert_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
	fail_msg("missing line: %s\nin:\n%s", line, text);
}

static void assert_no(const char *text, const char *needle)
{
	if (strstr(text, needle))
		fail_msg("unexpected: %s\nin:\n%s", needle, text);
}

static void test_cpu_metrics(void **state)
{
	struct tp_snapshot snap = snapshot();
	struct export_scrape sc = { .up = true, .source_kind = "patched",
		.source_description = "patched kernel at /", .snap = &snap, .duration_s = 0.00025 };
	const char *t = render(&sc, EXPORT_TEXT_004);

	assert_line(t, "thermpress_up 1");
	assert_line(t, "thermpress_source_info{kind=\"patched\",description=\"patched kernel at /\"} 1");
	assert_line(t, "thermpress_backend_info{backend=\"decay\"} 1");
	assert_line(t, "thermpress_decay_period_seconds 0.125");
	assert_line(t, "thermpress_tick_rate_hertz 250");
	assert_line(t, "thermpress_cpu_capacity{cpu=\"4\",domain=\"big\"} 724");
	assert_line(t, "thermpress_cpu_max_capacity{cpu=\"0\",domain=\"little\"} 462");
	assert_line(t, "thermpress_cpu_capped_capacity{cpu=\"4\",domain=\"big\"} 521");
	assert_line(t, "thermpress_cpu_max_frequency_hertz{cpu=\"4\",domain=\"big\"} 2362000000");
	assert_line(t, "thermpress_cpu_capped_frequency_hertz{cpu=\"4\",domain=\"big\"} 1200000000");
	assert_line(t, "thermpress_cpu_pressure{cpu=\"4\",domain=\"big\"} 503");
	assert_line(t, "thermpress_cpu_average_pressure{cpu=\"4\",domain=\"big\"} 300");
	assert_line(t, "thermpress_cpu_average_info{cpu=\"4\",domain=\"big\",backend=\"decay\","
		       "origin=\"kernel\"} 1");
	assert_line(t, "thermpress_cpu_average_info{cpu=\"0\",domain=\"little\",backend=\"decay\","
		       "origin=\"estimated\"} 1");
	assert_line(t, "# TYPE thermpress_cpu_capacity gauge");
	assert_line(t, "# TYPE thermpress_source_info gauge");
	/* the build, as Prometheus's own *_build_info: a gauge of value 1 */
	char build[128];
	snprintf(build, sizeof(build), "thermpress_build_info{version=\"%s\",abi_version=\"%d\"} 1",
		 tp_version()->version, TP_ABI_VERSION);
	assert_line(t, build);
	assert_line(t, "# TYPE thermpress_build_info gauge");
	/* the same CPUs from the simulator: its average is the simulator's, never the kernel's */
	sc.simulated = true;
	t = render(&sc, EXPORT_TEXT_004);
	assert_line(t, "thermpress_cpu_average_info{cpu=\"4\",domain=\"big\",backend=\"decay\","
		       "origin=\"simulator\"} 1");
	assert_line(t, "thermpress_cpu_average_info{cpu=\"0\",domain=\"little\",backend=\"decay\","
		       "origin=\"estimated\"} 1");
	assert_no(t, "origin=\"kernel\"");
	sc.simulated = false;
	t = render(&sc, EXPORT_TEXT_004);
	assert_line(t, "thermpress_scrape_duration_seconds 0.000250000");
	assert_no(t, "thermpress_last_error_info{");
	assert_no(t, "# EOF");
	assert_no(t, "# UNIT");
	/* every family's samples follow its HELP and TYPE, each family once */
	assert_line(t, "# TYPE thermpress_cpu_pressure gauge");
	assert_true(strstr(t, "# HELP thermpress_cpu_pressure ") <
		    strstr(t, "thermpress_cpu_pressure{cpu=\"0\""));
	assert_null(strstr(strstr(t, "# HELP thermpress_cpu_pressure ") + 1,
			   "# HELP thermpress_cpu_pressure "));
}

static void test_missing_values(void **state)
{
	struct tp_snapshot snap = snapshot();
	struct tp_cpu c[2];
	struct export_scrape sc = { .up = true, .source_kind = "stock", .snap = &snap };

	memcpy(c, cpus, sizeof(c));
	snap.cpus = c;
	snap.backend[0] = '\0';
	snap.decay_ms = TP_NONE;
	snap.hz = TP_NONE;
	c[0].max_freq_khz = c[0].capped_freq_khz = TP_NONE;
	c[0].avg_pressure = TP_NONE;
	c[1].avg_pressure = TP_NONE;
	c[1].domain = TP_NONE;
	const char *t = render(&sc, EXPORT_TEXT_004);

	/* a missing value is no sample, never 0; a family without samples is left out */
	assert_no(t, "thermpress_backend_info");
	assert_no(t, "thermpress_decay_period_seconds");
	assert_no(t, "thermpress_tick_rate_hertz");
	assert_no(t, "thermpress_cpu_max_frequency_hertz{cpu=\"0\"");
	assert_line(t, "thermpress_cpu_max_frequency_hertz{cpu=\"4\",domain=\"\"} 2362000000");
	assert_no(t, "thermpress_cpu_average_pressure");
	assert_no(t, "thermpress_cpu_average_info");
	assert_line(t, "thermpress_source_info{kind=\"stock\",description=\"\"} 1");
}

static void test_down(void **state)
{
	struct export_scrape sc = { .up = false,
		.error = "cannot read \"/mnt/x\\y\":\ntransport endpoint \xff is not connected" };
	const char *t = render(&sc, EXPORT_TEXT_004);

	assert_line(t, "thermpress_up 0");
	/* one line: the quote and backslash escaped, the newline and bad byte U+FFFD */
	assert_line(t, "thermpress_last_error_info{error=\"cannot read \\\"/mnt/x\\\\y\\\":"
		       "\xef\xbf\xbdtransport endpoint \xef\xbf\xbd is not connected\"} 1");
	assert_no(t, "thermpress_cpu_");
	assert_no(t, "thermpress_source_info");
	assert_line(t, "# TYPE thermpress_scrape_duration_seconds gauge");
}

static void test_openmetrics(void **state)
{
	struct tp_snapshot snap = snapshot();
	struct export_scrape sc = { .up = true, .source_kind = "patched", .snap = &snap };
	const char *t = render(&sc, EXPORT_OPENMETRICS);
	size_t n = strlen(t);

	/* info families named without _info, their samples with it; units; # EOF last */
	assert_line(t, "# TYPE thermpress_source info");
	assert_line(t, "# TYPE thermpress_cpu_average info");
	assert_line(t, "# TYPE thermpress_backend info");
	assert_line(t, "thermpress_backend_info{backend=\"decay\"} 1");
	assert_line(t, "# UNIT thermpress_cpu_max_frequency_hertz hertz");
	assert_line(t, "# UNIT thermpress_decay_period_seconds seconds");
	assert_line(t, "# TYPE thermpress_cpu_capacity gauge");
	assert_true(n > 6 && !strcmp(t + n - 6, "# EOF\n"));
	assert_int_equal(strstr(t, "# EOF") - t, (ptrdiff_t)(n - 6));
}

static void test_stock_zones(void **state)
{
	struct tp_snapshot snap = snapshot();
	struct tp_thermal_zone zone = { .id = 3, .type = "cpu\"thermal", .temp_mc = -1500,
		.nr_trips = 2, .trips = { { "passive", 70000, 2000 }, { "critical", 115500, TP_NONE } } };
	struct tp_thermal_cooling cool[2] = {
		{ .id = 0, .type = "cpufreq-cpu0", .cur_state = 2, .max_state = 7 },
		{ .id = 1, .type = "fan", .cur_state = TP_NONE, .max_state = 3 },
	};
	struct tp_thermal st = { .nr_zones = 1, .zones = &zone, .nr_cooling = 2, .cooling = cool };
	struct export_scrape sc = { .up = true, .source_kind = "stock", .snap = &snap, .thermal = &st };
	const char *t = render(&sc, EXPORT_TEXT_004);

	assert_line(t, "thermpress_thermal_zone_temperature_celsius{zone=\"3\",type=\"cpu\\\"thermal\"} -1.5");
	assert_line(t, "thermpress_thermal_zone_trip_point_celsius{zone=\"3\",type=\"cpu\\\"thermal\","
		       "trip=\"0\",trip_type=\"passive\"} 70");
	assert_line(t, "thermpress_thermal_zone_trip_point_celsius{zone=\"3\",type=\"cpu\\\"thermal\","
		       "trip=\"1\",trip_type=\"critical\"} 115.5");
	assert_line(t, "thermpress_thermal_zone_trip_point_hysteresis_celsius{zone=\"3\","
		       "type=\"cpu\\\"thermal\",trip=\"0\",trip_type=\"passive\"} 2");
	assert_no(t, "trip=\"1\",trip_type=\"critical\"} 0");
	assert_line(t, "thermpress_cooling_device_state{device=\"0\",type=\"cpufreq-cpu0\"} 2");
	assert_no(t, "thermpress_cooling_device_state{device=\"1\"");
	assert_line(t, "thermpress_cooling_device_max_state{device=\"1\",type=\"fan\"} 3");
}

static void test_label_values(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "big", "big" },
		{ "", "" },
		{ "a\"b", "a\\\"b" },
		{ "a\\b", "a\\\\b" },
		{ "a\nb", "a\xef\xbf\xbd" "b" },
		{ "\x1b[31mred", "\xef\xbf\xbd[31mred" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "\xc3", "\xef\xbf\xbd" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "x\x7fy", "x\xef\xbf\xbdy" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct export_buf b = { 0 };
		export_buf_add(&b, "", 0);
		export_label_value(&b, cases[i].in);
		assert_string_equal(b.data, cases[i].out);
		export_buf_free(&b);
	}
}

static void test_domain_label_untrusted(void **state)
{
	struct tp_snapshot snap = snapshot();
	struct tp_domain d[2] = { { 0, "lit\"tle\\" }, { 4, "b\nig" } };
	struct export_scrape sc = { .up = true, .snap = &snap };

	snap.domains = d;
	const char *t = render(&sc, EXPORT_TEXT_004);
	assert_line(t, "thermpress_cpu_capacity{cpu=\"0\",domain=\"lit\\\"tle\\\\\"} 462");
	assert_line(t, "thermpress_cpu_capacity{cpu=\"4\",domain=\"b\xef\xbf\xbdig\"} 724");
}

static void test_accept(void **state)
{
	/* what Prometheus 2.42 sends */
	assert_true(export_accept_openmetrics("application/openmetrics-text;version=1.0.0,"
		"application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
		"*/*;q=0.1"));
	assert_true(export_accept_openmetrics("application/openmetrics-text"));
	assert_true(export_accept_openmetrics(" Application/OpenMetrics-Text ; version=1.0.0 "));
	assert_true(export_accept_openmetrics("text/plain;q=0.5, application/openmetrics-text;q=0.9"));
	assert_false(export_accept_openmetrics(NULL));
	assert_false(export_accept_openmetrics(""));
	assert_false(export_accept_openmetrics("*/*"));
	assert_false(export_accept_openmetrics("text/plain"));
	assert_false(export_accept_openmetrics("application/openmetrics-text;q=0"));
	assert_false(export_accept_openmetrics("application/openmetrics-text;version=0.0.1"));
	assert_false(export_accept_openmetrics("application/openmetrics-text;q=0.4,text/plain;q=0.5"));
	assert_false(export_accept_openmetrics("application/openmetrics-text;q=2"));
	assert_false(export_accept_openmetrics("application/openmetrics-textx"));
	assert_false(export_accept_openmetrics(";;;,,,=;q=;"));
}

/* RFC 9112, 3.2: origin and absolute form, routed by the percent-decoded path. */
static void test_route(void **state)
{
	static const struct { const char *target; enum export_route want; } cases[] = {
		{ "/", EXPORT_ROUTE_INDEX },
		{ "/metrics", EXPORT_ROUTE_METRICS },
		{ "/metrics?x=1", EXPORT_ROUTE_METRICS },
		{ "/metrics?x=%00", EXPORT_ROUTE_METRICS },	/* the query is not the path */
		{ "/%6detrics", EXPORT_ROUTE_METRICS },
		{ "/%6Detrics", EXPORT_ROUTE_METRICS },
		{ "http://127.0.0.1/metrics", EXPORT_ROUTE_METRICS },
		{ "http://127.0.0.1:9465/metrics?a", EXPORT_ROUTE_METRICS },
		{ "HTTP://[::1]:9465/metrics", EXPORT_ROUTE_METRICS },
		{ "https://example.org/metrics", EXPORT_ROUTE_METRICS },
		{ "http://127.0.0.1", EXPORT_ROUTE_INDEX },
		{ "http://127.0.0.1?x", EXPORT_ROUTE_INDEX },
		{ "http://127.0.0.1/", EXPORT_ROUTE_INDEX },
		{ "/metrics%00.html", EXPORT_ROUTE_NOT_FOUND },
		{ "/metrics%00", EXPORT_ROUTE_NOT_FOUND },
		{ "/%00", EXPORT_ROUTE_NOT_FOUND },
		{ "/metrics/", EXPORT_ROUTE_NOT_FOUND },
		{ "/metrics%2f", EXPORT_ROUTE_NOT_FOUND },
		{ "/metricsmetricsmetrics", EXPORT_ROUTE_NOT_FOUND },
		{ "//metrics", EXPORT_ROUTE_NOT_FOUND },
		{ "http://h/x", EXPORT_ROUTE_NOT_FOUND },
		{ "/metrics%zz", EXPORT_ROUTE_BAD },
		{ "/metrics%4", EXPORT_ROUTE_BAD },
		{ "/metrics%", EXPORT_ROUTE_BAD },
		{ "/metrics#x", EXPORT_ROUTE_BAD },
		{ "*", EXPORT_ROUTE_BAD },
		{ "metrics", EXPORT_ROUTE_BAD },
		{ "ftp://h/metrics", EXPORT_ROUTE_BAD },
		{ "", EXPORT_ROUTE_BAD },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (export_route(cases[i].target) != cases[i].want)
			fail_msg("'%s': %d, expected %d", cases[i].target,
				 export_route(cases[i].target), cases[i].want);
	}
}

static void test_listen(void **state)
{
	static const struct { const char *text; int kind; } good[] = {
		{ "127.0.0.1:9465", EXPORT_LISTEN_ADDRESS }, { "0.0.0.0:0", EXPORT_LISTEN_ADDRESS },
		{ "[::1]:80", EXPORT_LISTEN_ADDRESS }, { "[::]:65535", EXPORT_LISTEN_ADDRESS },
		{ "255.255.255.255:1", EXPORT_LISTEN_ADDRESS },
		{ "[::ffff:1.2.3.4]:9", EXPORT_LISTEN_ADDRESS },
		/* as node_exporter's --web.listen-address */
		{ ":9465", EXPORT_LISTEN_ANY }, { ":0", EXPORT_LISTEN_ANY },
		{ "localhost:9465", EXPORT_LISTEN_NAME }, { "my-host.example:80", EXPORT_LISTEN_NAME },
		{ "a1:1", EXPORT_LISTEN_NAME }, { "1a.2b:1", EXPORT_LISTEN_NAME },
	};
	static const char *const bad[] = { "", "9465", ":", "127.0.0.1", "127.0.0.1:",
		"127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80", "127.0.0.1: 80", "127.1:80",
		"1.2.3.4.5:80", "::1:80", "[::1]80", "[::1]:", "[127.0.0.1]:80", "1.2.3.4:000001",
		"[::1:80", "[localhost]:80", "local_host:80", "-host:80", "host-:80", "a..b:80",
		".host:80", "host.:80", ":9465:1", "local host:80", "localhost:http", "[]:80" };
	struct export_listen a;
	struct tp_error err = { 0 };
	char back[300], name[300];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (export_parse_listen(good[i].text, &a, &err) != 0)
			fail_msg("'%s' refused: %s", good[i].text, err.msg);
		assert_int_equal(a.kind, good[i].kind);
		export_listen_text(&a, back, sizeof(back));
		assert_string_equal(back, good[i].text);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (export_parse_listen(bad[i], &a, &err) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err.msg, "invalid listen address"));
		assert_non_null(strstr(err.msg, ":9465, localhost:9465, 127.0.0.1:9465 or [::1]:9465"));
	}
	/* a label of 63 bytes, a name of 253: the longest; one more is refused */
	memset(name, 'a', 253);
	for (size_t i = 63; i < 253; i += 64)
		name[i] = '.';
	strcpy(name + 253, ":1");
	assert_int_equal(export_parse_listen(name, &a, &err), 0);
	assert_int_equal(a.kind, EXPORT_LISTEN_NAME);
	strcpy(name + 253, "a:1");
	assert_int_equal(export_parse_listen(name, &a, &err), -EINVAL);
	memset(name, 'a', 64);
	strcpy(name + 64, ":1");
	assert_int_equal(export_parse_listen(name, &a, &err), -EINVAL);
	/* a long or hostile text is cut and made safe, never at the cost of the valid form */
	char long_text[600];
	memset(long_text, '\xe0', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	memcpy(long_text, "\x1b[2J", 4);
	assert_int_equal(export_parse_listen(long_text, &a, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "...' (expected [HOST]:PORT"));
	assert_non_null(strstr(err.msg, "127.0.0.1:9465 or [::1]:9465)"));
	assert_null(strchr(err.msg, '\x1b'));
}

/* The whole scrape on the in-process simulator: repeated (ASan's leak check at exit covers
 * the buffers reused between scrapes), a cap showing up, and a source that cannot open. */
static void test_scrape_sim(void **state)
{
	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_virtual_clock = true,
		.sim_scenario = "heat" };
	struct export_source *es = export_source_new(&o, NULL);
	struct export_buf first = { 0 };
	struct tp_error err = { 0 };

	assert_non_null(es);
	(void)export_scrape(es, &first, EXPORT_TEXT_004);
	assert_non_null(strstr(first.data, "\nthermpress_up 1\n"));
	assert_non_null(strstr(first.data, "thermpress_cpu_capped_frequency_hertz{cpu=\"4\",domain=\"big\"} 2362000000\n"));
	/* the clock holds still: every scrape says the same but for its duration */
	for (int i = 0; i < 200; i++) {
		struct export_buf b = { 0 };
		(void)export_scrape(es, &b, i % 2 ? EXPORT_OPENMETRICS : EXPORT_TEXT_004);
		char *d1 = strstr(first.data, "thermpress_scrape_duration_seconds ");
		char *d2 = strstr(b.data, "thermpress_scrape_duration_seconds ");
		assert_non_null(d2);
		if (i % 2 == 0)
			assert_memory_equal(first.data, b.data, (size_t)(d1 - first.data));
		export_buf_free(&b);
	}
	export_buf_free(&first);
	export_source_free(es);

	/* a cap made through another handle of the same kind of source is what a scrape says */
	struct tp_source *src;
	struct tp_cpuset set;
	struct tp_cap_value v = { TP_CAP_KHZ, 1000000 };
	assert_int_equal(tp_source_open(&o, &src, &err), 0);
	tp_cpuset_zero(&set);
	tp_cpuset_add(&set, 4);
	assert_int_equal(tp_cap_set(src, &set, &v, &err), 0);
	es = export_source_new(&o, src);
	(void)export_scrape(es, &first, EXPORT_TEXT_004);
	assert_non_null(strstr(first.data, "thermpress_cpu_capped_frequency_hertz{cpu=\"4\",domain=\"big\"} 1000000000\n"));
	export_buf_free(&first);
	export_source_free(es);

	struct tp_open_options gone = { .kind = TP_SOURCE_PATCHED, .root = "/nonexistent-export-root" };
	es = export_source_new(&gone, NULL);
	for (int i = 0; i < 50; i++) {
		struct export_buf b = { 0 };
		(void)export_scrape(es, &b, EXPORT_TEXT_004);
		assert_non_null(strstr(b.data, "\nthermpress_up 0\n"));
		assert_non_null(strstr(b.data, "thermpress_last_error_info{error=\""));
		assert_null(strstr(b.data, "thermpress_cpu_capacity{"));
		export_buf_free(&b);
	}
	export_source_free(es);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_metrics),
		cmocka_unit_test(test_missing_values),
		cmocka_unit_test(test_down),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_stock_zones),
		cmocka_unit_test(test_label_values),
		cmocka_unit_test(test_domain_label_untrusted),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_route),
		cmocka_unit_test(test_listen),
		cmocka_unit_test(test_scrape_sim),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
