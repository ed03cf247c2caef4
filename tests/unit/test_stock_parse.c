// SPDX-License-Identifier: MIT
/*
 * The stock readers' text parsing, on the inputs fuzz_stock (tests/fuzz/) showed they
 * got wrong: signs and white space strtol/sscanf let through, an overflowing kernel
 * version, the kernel's own rules for sched_thermal_decay_shift= and CONFIG_HZ.
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

#include "fixture_tree.h"

#include "stock/stock.h"
#include "stock/stock_config.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	assert_int_equal(fixture_put(root, rel, text), 0);
}

static void drop(const char *rel)
{
	fixture_drop(root, rel);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/thermpress-test-stock-parse-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put("proc/sys/kernel/arch", "aarch64\n");
	put("proc/sys/kernel/osrelease", "6.1.0\n");
	put("proc/cmdline", "ro\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct stock_kernel read_kernel(void)
{
	static struct stock s;

	memset(&s, 0, sizeof(s));
	snprintf(s.root, sizeof(s.root), "%s", root);
	stock_read_kernel(&s);
	return s.kernel;
}

static void test_parse_i64(void **state)
{
	int64_t v = 0;

	assert_int_equal(stock_parse_i64("-42", &v), 0);
	assert_int_equal(v, -42);
	assert_int_equal(stock_parse_i64("+7", &v), 0);
	assert_int_equal(stock_parse_i64("\n\n4", &v), -EPROTO);
	assert_int_equal(stock_parse_i64(" 5", &v), -EPROTO);
	assert_int_equal(stock_parse_i64("", &v), -EPROTO);
}

static void test_parse_cpus(void **state)
{
	int *cpus = NULL;
	size_t n = 0;

	assert_int_equal(stock_parse_cpus("0-2,5 7\n", &cpus, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(cpus[4], 7);
	free(cpus);
	assert_int_equal(stock_parse_cpus("+7", &cpus, &n), -EPROTO);
	assert_int_equal(stock_parse_cpus("5- 6", &cpus, &n), -EPROTO);
	assert_int_equal(stock_parse_cpus("1-+3", &cpus, &n), -EPROTO);
}

static void test_release(void **state)
{
	struct stock_kernel k;

	put("proc/sys/kernel/osrelease", "6.10.0-rc1\n");
	k = read_kernel();
	assert_int_equal(k.major, 6);
	assert_int_equal(k.minor, 10);
	assert_int_equal(k.model, TP_STOCK_MODEL_CPUFREQ_HW);
	/* "%d" overflowed to 6.10 */
	put("proc/sys/kernel/osrelease", "4294967302.10\n");
	k = read_kernel();
	assert_int_equal(k.major, TP_NONE);
	assert_int_equal(k.model, TP_STOCK_MODEL_NONE);
	put("proc/sys/kernel/osrelease", "1.+1.+\n");
	k = read_kernel();
	assert_int_equal(k.major, TP_NONE);
	put("proc/sys/kernel/osrelease", " 6.1\n");
	k = read_kernel();
	assert_int_equal(k.major, TP_NONE);
	put("proc/sys/kernel/osrelease", "6.1.0\n");
}

static void test_cmdline_shift(void **state)
{
	struct stock_kernel k;

	/* kstrtoint takes INT_MIN, and the last valid value wins: clamped to 0 */
	put("proc/cmdline", "sched_thermal_decay_shift=5 sched_thermal_decay_shift=-2147483648\n");
	k = read_kernel();
	assert_int_equal(k.shift, 0);
	assert_true(k.shift_from_cmdline);
	/* the kernel splits arguments at every isspace() character */
	put("proc/cmdline", "ro sched_thermal_decay_shift=3\rquiet\n");
	k = read_kernel();
	assert_int_equal(k.shift, 3);
	assert_true(k.shift_from_cmdline);
	put("proc/cmdline", "ro\n");
}

static void test_config_hz(void **state)
{
	char text[600];

	put("proc/sys/kernel/osrelease", "6.1.0\n");
	put("boot/config-6.1.0", "CONFIG_ARM64=y\nCONFIG_HZ=300\n");
	assert_int_equal(read_kernel().hz, 300);
	/* a long comment line is not cut into lines of 255 bytes */
	memcpy(text, "# ", 2);
	memset(text + 2, 'x', 253);
	snprintf(text + 255, sizeof(text) - 255, "CONFIG_HZ=1000\nCONFIG_HZ=250\n");
	put("boot/config-6.1.0", text);
	assert_int_equal(read_kernel().hz, 250);
	put("boot/config-6.1.0", "CONFIG_HZ= 250\n");
	assert_int_equal(read_kernel().hz, TP_NONE);
	drop("boot/config-6.1.0");
#if HAVE_ZLIB
	/* config.gz: the first CONFIG_HZ= line decides, as for boot/config-* (gzread reads plain text) */
	put("proc/config.gz", "CONFIG_HZ=x\nCONFIG_HZ=300\n");
	assert_int_equal(read_kernel().hz, TP_NONE);
	put("proc/config.gz", "CONFIG_HZ_100=y\nCONFIG_HZ=100\n");
	assert_int_equal(read_kernel().hz, 100);
	drop("proc/config.gz");
#endif
}

/* A cooling device named cpufreq-cpu+2 is no cpufreq cooling device (strtol took the sign). */
static void test_cooling_type(void **state)
{
	static const char *const types[][2] = {
		{ "cpufreq-cpu2\n", "2" }, { "cpufreq-cpu+2\n", "-" }, { "cpufreq-cpu 3\n", "-" },
		{ "thermal-cpufreq-1\n", "2" }, { "thermal-cpufreq-+1\n", "-" },
	};
	struct tp_open_options opts = { .kind = TP_SOURCE_STOCK, .root = root,
					.plugin_dir = "/nonexistent" };
	char rel[128];

	put("sys/devices/system/cpu/possible", "0-3\n");
	for (int c = 0; c < 4; c++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", c);
		put(rel, "2000000\n");
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/related_cpus", c);
		put(rel, c < 2 ? "0-1\n" : "2-3\n");
	}
	put("sys/class/thermal/cooling_device0/max_state", "3\n");
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct tp_source *src = NULL;
		struct tp_thermal th;
		struct tp_error err = { 0 };

		put("sys/class/thermal/cooling_device0/type", types[i][0]);
		assert_int_equal(tp_source_open(&opts, &src, &err), 0);
		assert_int_equal(tp_thermal_read(src, &th, &err), 0);
		assert_int_equal(th.nr_cooling, 1);
		if (types[i][1][0] == '-')
			assert_int_equal(th.cooling[0].domain, TP_NONE);
		else
			assert_int_equal(th.cooling[0].domain, atoi(types[i][1]));
		tp_thermal_release(&th);
		tp_source_close(src);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_i64),
		cmocka_unit_test(test_parse_cpus),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_cmdline_shift),
		cmocka_unit_test(test_config_hz),
		cmocka_unit_test(test_cooling_type),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
