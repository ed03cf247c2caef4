// SPDX-License-Identifier: MIT
/*
 * The per-kernel model (core/stock/stock_model.c) and its page (docs/kernels.md): every
 * row of the page's table is the code's row, cell for cell, and the rows cover every
 * kernel and architecture once; then the model's decisions on the kernels thermpress
 * meets today, from osrelease (and Debian's proc/version) as a system shows them, and
 * the cpufreq pressure an x86 6.12.118 kernel feeds, and where the config is found.
 * Usage: test_kernels DOCS_KERNELS_MD
 */
#include <errno.h>
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

#define NR_CELLS 8

static const char *kernels_md;
static char root[64];

/* ---- The page against the code ------------------------------------------------- */

/* Split "| a | b |" into trimmed cells (in place); the number of cells. */
static int split_row(char *line, char *cells[], int max)
{
	int n = 0;
	char *p = strchr(line, '|');

	while (p && n < max) {
		char *start = p + 1, *end = strchr(start, '|');

		if (!end)
			break;
		*end = '\0';
		while (*start == ' ')
			start++;
		for (char *t = end - 1; t >= start && *t == ' '; t--)
			*t = '\0';
		cells[n++] = start;
		p = end;
	}
	return n;
}

/* The code's row i as the page shows it. */
static void code_cells(const struct stock_model_row *r, char range[64], char arch[64],
		       const char *cells[NR_CELLS])
{
	stock_model_range_text(r, range, 64);
	stock_arch_text(r->arch, arch, 64);
	cells[0] = range;
	cells[1] = arch;
	cells[2] = stock_model_name(r->model);
	cells[3] = r->feeds;
	cells[4] = stock_reference_rule(r->reference);
	cells[5] = r->averaged;
	cells[6] = r->subtracts;
	cells[7] = r->names;
}

static void test_page_matches_code(void **state)
{
	static const char *const headers[NR_CELLS] = {
		"kernels", "arch", "model", "feeds", "reference", "averaged", "subtracts", "names",
	};
	FILE *f = fopen(kernels_md, "r");
	char line[4096];
	size_t n, row = 0;
	const struct stock_model_row *rows = stock_model_rows(&n);
	int in_table = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *cells[NR_CELLS + 1], range[64], arch[64];
		const char *want[NR_CELLS];
		int nc;

		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, "<!-- model table"))
			in_table = 1;
		else if (strstr(line, "<!-- end of model table"))
			in_table = 0;
		if (!in_table || line[0] != '|')
			continue;
		nc = split_row(line, cells, NR_CELLS + 1);
		if (nc == NR_CELLS && strcmp(cells[0], "---") == 0)
			continue;
		assert_int_equal(nc, NR_CELLS);
		if (in_table++ == 1) {	/* the header line */
			for (int c = 0; c < NR_CELLS; c++)
				assert_string_equal(cells[c], headers[c]);
			continue;
		}
		if (row >= n)
			fail_msg("docs/kernels.md has a row the code lacks: %s | %s", cells[0], cells[1]);
		code_cells(&rows[row], range, arch, want);
		for (int c = 0; c < NR_CELLS; c++)
			if (strcmp(cells[c], want[c]) != 0)
				fail_msg("docs/kernels.md row %zu, column %s: the page says \"%s\", the code \"%s\"",
					 row + 1, headers[c], cells[c], want[c]);
		row++;
	}
	fclose(f);
	if (row != n)
		fail_msg("docs/kernels.md has %zu rows, core/stock/stock_model.c %zu", row, n);
}

/* Every (version, class) falls in exactly one row: probe each row's edges. */
static void test_rows_cover_once(void **state)
{
	static const unsigned classes[] = { STOCK_ARCH_ARM, STOCK_ARCH_RISCV, STOCK_ARCH_X86,
					    STOCK_ARCH_OTHER };
	size_t n;
	const struct stock_model_row *rows = stock_model_rows(&n);

	for (size_t i = 0; i < n; i++) {
		const struct stock_version probes[] = {
			rows[i].from,
			{ rows[i].from.major, rows[i].from.minor, rows[i].from.sublevel + 1 },
			rows[i].to,
		};

		for (size_t p = 0; p < sizeof(probes) / sizeof(probes[0]); p++) {
			for (size_t c = 0; c < 4; c++) {
				size_t hits = 0;

				for (size_t j = 0; j < n; j++) {
					const struct stock_model_row *r = &rows[j];
					const struct stock_version *v = &probes[p];
					long lv = ((long)v->major << 40) + ((long)v->minor << 20) + v->sublevel;
					long lf = ((long)r->from.major << 40) + ((long)r->from.minor << 20) +
						  r->from.sublevel;
					long lt = ((long)r->to.major << 40) + ((long)r->to.minor << 20) +
						  r->to.sublevel;

					if ((r->arch & classes[c]) && lv >= lf && (!r->to.major || lv < lt))
						hits++;
				}
				assert_int_equal(hits, 1);
			}
		}
	}
}

/* ---- The decisions -------------------------------------------------------------- */

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
	snprintf(root, sizeof(root), "/tmp/thermpress-test-kernels-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put("proc/cmdline", "ro\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* The kernel as stock_read_kernel() sees it with this release, arch and proc/version. */
static struct stock_kernel kernel(const char *arch, const char *release, const char *version)
{
	static struct stock s;
	char text[128];

	snprintf(text, sizeof(text), "%s\n", arch);
	put("proc/sys/kernel/arch", text);
	snprintf(text, sizeof(text), "%s\n", release);
	put("proc/sys/kernel/osrelease", text);
	if (version)
		put("proc/version", version);
	else
		drop("proc/version");
	memset(&s, 0, sizeof(s));
	snprintf(s.root, sizeof(s.root), "%s", root);
	stock_read_kernel(&s);
	return s.kernel;
}

static void test_x86(void **state)
{
	struct stock_kernel k;

	k = kernel("x86_64", "6.1.0-27-amd64", NULL);
	assert_int_equal(k.model, TP_STOCK_MODEL_NONE);
	/* bookworm-backports' 6.12 before the fallback: arch_scale_freq_ref() is 0 */
	k = kernel("x86_64", "6.12.95+deb12-amd64", NULL);
	assert_int_equal(k.sublevel, 95);
	assert_int_equal(k.model, TP_STOCK_MODEL_NONE);
	assert_int_equal(k.row->reference, STOCK_REF_ZERO);
	/* trixie's 6.12.118 falls back to cpuinfo.max_freq: x86 gets cpufreq pressure */
	k = kernel("x86_64", "6.12.118+deb13-amd64", NULL);
	assert_int_equal(k.sublevel, 118);
	assert_int_equal(k.model, TP_STOCK_MODEL_CPUFREQ);
	assert_int_equal(k.row->reference, STOCK_REF_ARCH_OR_MAX);
	k = kernel("x86_64", "6.12.101", NULL);
	assert_int_equal(k.model, TP_STOCK_MODEL_CPUFREQ);
	k = kernel("x86_64", "6.12.100", NULL);
	assert_int_equal(k.model, TP_STOCK_MODEL_NONE);
	k = kernel("x86_64", "7.2.1", NULL);
	assert_int_equal(k.model, TP_STOCK_MODEL_CPUFREQ);
	/* 7.3: only intel_pstate's hybrid ->scale_freq_ref(), which sysfs does not show */
	k = kernel("x86_64", "7.3.4+deb13-amd64", NULL);
	assert_int_equal(k.sublevel, 4);
	assert_int_equal(k.model, TP_STOCK_MODEL_NONE);
	assert_int_equal(k.row->reference, STOCK_REF_ARCH_OR_DRIVER);
	assert_non_null(strstr(k.row->feeds, "assumed not"));
}

static void test_arm64(void **state)
{
	struct stock_kernel k;

	/* bookworm hides the sublevel; Debian's proc/version names it */
	k = kernel("aarch64", "6.1.0-57-arm64",
		   "Linux version 6.1.0-57-arm64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP Debian 6.1.192-1 (2026-10-01)\n");
	assert_int_equal(k.model, TP_STOCK_MODEL_THERMAL_PELT);
	assert_int_equal(k.sublevel, 192);
	assert_string_equal(k.sublevel_from, "proc/version");
	k = kernel("aarch64", "6.12.118+deb13-arm64", NULL);
	assert_int_equal(k.model, TP_STOCK_MODEL_CPUFREQ_HW);
	assert_string_equal(k.sublevel_from, "osrelease");
	k = kernel("aarch64", "7.3.4+deb13-arm64", NULL);
	assert_int_equal(k.model, TP_STOCK_MODEL_CPUFREQ_HW);
	assert_non_null(strstr(k.row->averaged, "hw_pressure with PELT"));
	k = kernel("armv7l", "6.12.118", NULL);
	assert_int_equal(k.model, TP_STOCK_MODEL_CPUFREQ_HW);
	/* riscv: arch_topology's reference frequency, but no hw_pressure */
	k = kernel("riscv64", "6.12.118+deb13-riscv64", NULL);
	assert_int_equal(k.model, TP_STOCK_MODEL_CPUFREQ);
	k = kernel("riscv64", "6.1.0-57-riscv64", NULL);
	assert_int_equal(k.model, TP_STOCK_MODEL_NONE);
}

/* A hidden sublevel where it matters: 0 is assumed, and that is said. */
static void test_sublevel_unknown(void **state)
{
	struct stock_kernel k;
	char text[640];

	k = kernel("x86_64", "6.12.0-1-amd64", "Linux version 6.12.0-1-amd64 (gcc) #1 SMP\n");
	assert_int_equal(k.sublevel, TP_NONE);
	assert_true(k.sublevel_matters);
	assert_int_equal(k.model, TP_STOCK_MODEL_NONE);
	stock_model_text(&k, text, sizeof(text));
	assert_non_null(strstr(text, "sublevel unknown: 6.12.0 assumed"));
	/* 6.5 hides it too, but every 6.5 is the same row */
	k = kernel("x86_64", "6.5.0-44-generic", NULL);
	assert_int_equal(k.sublevel, TP_NONE);
	assert_false(k.sublevel_matters);
	/* a proc/version of another version does not lend its sublevel */
	k = kernel("aarch64", "6.12.0-1-arm64", "Linux version ... Debian 6.1.192-1 (2026-10-01)\n");
	assert_int_equal(k.sublevel, TP_NONE);
}

/* The config: proc/config.gz, boot/config-R, usr/lib/modules/R/config, lib/modules/R/config. */
static void test_config_places(void **state)
{
	struct stock_kernel k;

	put("lib/modules/7.3.4+deb13-arm64/config", "CONFIG_HZ=100\n");
	k = kernel("aarch64", "7.3.4+deb13-arm64", NULL);
	assert_int_equal(k.hz, 100);
	assert_string_equal(k.config, "lib/modules/7.3.4+deb13-arm64/config");
	put("usr/lib/modules/7.3.4+deb13-arm64/config", "CONFIG_HZ=250\n");
	k = kernel("aarch64", "7.3.4+deb13-arm64", NULL);
	assert_int_equal(k.hz, 250);
	assert_string_equal(k.config, "usr/lib/modules/7.3.4+deb13-arm64/config");
	put("boot/config-7.3.4+deb13-arm64", "CONFIG_HZ=300\n");
	k = kernel("aarch64", "7.3.4+deb13-arm64", NULL);
	assert_int_equal(k.hz, 300);
#if HAVE_ZLIB
	put("proc/config.gz", "CONFIG_HZ=1000\n");	/* gzread reads plain text too */
	k = kernel("aarch64", "7.3.4+deb13-arm64", NULL);
	assert_int_equal(k.hz, 1000);
	assert_string_equal(k.config, "proc/config.gz");
	drop("proc/config.gz");
#endif
	drop("boot/config-7.3.4+deb13-arm64");
	drop("usr/lib/modules/7.3.4+deb13-arm64/config");
	drop("lib/modules/7.3.4+deb13-arm64/config");
}

static bool has_note(const struct tp_stock_info *info, const char *text)
{
	for (size_t i = 0; i < info->nr_notes; i++)
		if (strstr(info->notes[i], text))
			return true;
	return false;
}

/* x86 on 6.12.118: a scaling_max_freq cap is cpufreq pressure against cpuinfo_max_freq. */
static void test_x86_612_pressure(void **state)
{
	struct tp_open_options opts = { .kind = TP_SOURCE_STOCK, .root = root,
					.plugin_dir = "/nonexistent" };
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_source *src = NULL;
	struct tp_stock_info info;
	struct tp_error err = { 0 };

	kernel("x86_64", "6.12.118+deb13-amd64", NULL);
	put("sys/devices/system/cpu/possible", "0\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "4000000\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq", "800000\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", "3000000\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/related_cpus", "0\n");
	assert_int_equal(tp_source_open(&opts, &src, &err), 0);
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_string_equal(snap.backend, "instant");
	assert_int_equal(snap.cpus[0].pressure, 256);	/* 1024 - 1024 * 3000000 / 4000000 */
	assert_int_equal(snap.cpus[0].avg_pressure, 256);
	assert_int_equal(snap.cpus[0].capacity, 768);
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	assert_int_equal(info.model, TP_STOCK_MODEL_CPUFREQ);
	assert_true(info.reference_assumed);
	assert_string_equal(info.reference_rule, "arch_scale_freq_ref(), else policy->cpuinfo.max_freq");
	tp_stock_info_release(&info);
	tp_snapshot_release(&snap);
	tp_source_close(src);

	/* 7.3 on x86: no pressure, and a note says what was assumed */
	kernel("x86_64", "7.3.4+deb13-amd64", NULL);
	assert_int_equal(tp_source_open(&opts, &src, &err), 0);
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_int_equal(snap.cpus[0].pressure, 0);
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	assert_false(info.reference_assumed);	/* nothing is divided */
	assert_true(has_note(&info, "intel_pstate on a hybrid CPU"));
	tp_stock_info_release(&info);
	tp_snapshot_release(&snap);
	tp_source_close(src);
}

/*
 * arm64 6.12: the note that hardware pressure is taken as 0 only while the kernel's
 * rq->avg_hw is not read.  The BPF reader needs the running kernel, so the test marks
 * the source as having read it (kernel_avg.c is not reached: it was "tried" already).
 */
static void test_hw_note_only_when_not_read(void **state)
{
	struct tp_open_options opts = { .kind = TP_SOURCE_STOCK, .root = root,
					.plugin_dir = "/nonexistent" };
	struct tp_source *src = NULL;
	struct tp_stock_info info;
	struct tp_error err = { 0 };
	struct stock *s;
	char loaded;

	kernel("aarch64", "6.12.118+deb13-arm64", NULL);
	put("sys/devices/system/cpu/possible", "0\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "2000000\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq", "2000000\n");
	assert_int_equal(tp_source_open(&opts, &src, &err), 0);
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	assert_false(info.kernel_avg_read);
	assert_true(has_note(&info, "hardware pressure (firmware or LMh throttling) is taken as 0"));
	tp_stock_info_release(&info);
	tp_source_close(src);

	assert_int_equal(tp_source_open(&opts, &src, &err), 0);
	s = src->priv;
	s->kernel_avg_tried = true;
	s->kernel_avg = (struct stock_kernel_avg *)&loaded;
	snprintf(s->kernel_avg_status, sizeof(s->kernel_avg_status),
		 "read from the kernel (BPF on pelt_hw_tp: rq->avg_hw)");
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	s->kernel_avg = NULL;	/* nothing was loaded: nothing to close */
	assert_true(info.kernel_avg_read);
	assert_false(has_note(&info, "hardware pressure"));
	tp_stock_info_release(&info);
	tp_source_close(src);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_matches_code),
		cmocka_unit_test(test_rows_cover_once),
		cmocka_unit_test_setup_teardown(test_x86, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arm64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sublevel_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_places, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x86_612_pressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hw_note_only_when_not_read, setup, teardown),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_kernels DOCS_KERNELS_MD\n");
		return 2;
	}
	kernels_md = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
