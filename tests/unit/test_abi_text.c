// SPDX-License-Identifier: MIT
/* The docs/abi.md text formats: round trips, and refusals of malformed text. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "abi_text.h"
#include "source.h"

static const char good[] =
	"version 1\n"
	"time_ns 10004000000\n"
	"backend pelt\n"
	"decay_ms 32\n"
	"hz 250\n"
	"nr_cpus 3\n"
	"domain 4 big\n"
	"cpu online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure capacity\n"
	"0 1 0 462 1844000 1844000 0 0 462\n"
	"4 0 4 1024 2362000 1181000 512 247 777\n"
	"9 1 - 1024 - - - 0 1024\n";

static void parse_ok(const char *text, struct tp_snapshot *snap)
{
	struct tp_error err = { 0 };
	int rc = tp_abi_parse_stats(text, strlen(text), snap, &err);

	if (rc)
		fail_msg("%s", err.msg);
}

static void parse_bad(const char *text, const char *msg)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };

	assert_int_equal(tp_abi_parse_stats(text, strlen(text), &snap, &err), -EPROTO);
	assert_string_equal(err.msg, msg);
	assert_int_equal(snap.nr_cpus, 0);
	tp_snapshot_release(&snap);
}

static void test_parse_good(void **state)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;

	parse_ok(good, &snap);
	assert_int_equal(snap.time_ns, 10004000000ull);
	assert_string_equal(snap.backend, "pelt");
	assert_int_equal(snap.decay_ms, 32);
	assert_int_equal(snap.hz, 250);
	assert_int_equal(snap.nr_cpus, 3);
	assert_int_equal(snap.nr_domains, 2);
	assert_string_equal(snap.domains[0].name, "big");	/* named before any cpu line */
	assert_int_equal(snap.domains[0].id, 4);
	assert_string_equal(snap.domains[1].name, "cluster1");
	assert_int_equal(snap.domains[1].id, 0);
	assert_int_equal(snap.cpus[0].domain, 1);
	assert_int_equal(snap.cpus[1].cpu, 4);
	assert_int_equal(snap.cpus[1].online, 0);
	assert_int_equal(snap.cpus[1].domain, 0);
	assert_int_equal(snap.cpus[1].pressure, 512);
	assert_int_equal(snap.cpus[1].avg_pressure, 247);
	assert_int_equal(snap.cpus[1].capacity, 777);
	assert_int_equal(snap.cpus[2].domain, TP_NONE);
	assert_int_equal(snap.cpus[2].max_freq_khz, TP_NONE);
	assert_int_equal(snap.cpus[2].pressure, TP_NONE);
	tp_snapshot_derive(&snap);
	assert_int_equal(snap.cpus[1].capped_capacity, 512);
	assert_int_equal(snap.cpus[2].capped_capacity, TP_NONE);
	assert_int_equal(tp_snapshot_find_cpu(&snap, 9), 2);
	assert_int_equal(tp_snapshot_find_cpu(&snap, 5), -1);

	/* the buffers are reused by a second parse */
	struct tp_cpu *before = snap.cpus;

	parse_ok(good, &snap);
	assert_ptr_equal(before, snap.cpus);
	tp_snapshot_release(&snap);
}

static void test_round_trip(void **state)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT, again = TP_SNAPSHOT_INIT;
	char *text;
	size_t len;

	parse_ok(good, &snap);
	assert_int_equal(tp_abi_format_stats(&snap, &text, &len), 0);
	assert_int_equal(strlen(text), len);
	parse_ok(text, &again);
	assert_int_equal(again.nr_cpus, snap.nr_cpus);
	for (size_t i = 0; i < snap.nr_cpus; i++) {	/* field by field: structs have padding */
		const struct tp_cpu *a = &again.cpus[i], *b = &snap.cpus[i];

		assert_int_equal(a->cpu, b->cpu);
		assert_int_equal(a->online, b->online);
		assert_int_equal(a->domain, b->domain);
		assert_int_equal(a->max_capacity, b->max_capacity);
		assert_int_equal(a->max_freq_khz, b->max_freq_khz);
		assert_int_equal(a->capped_freq_khz, b->capped_freq_khz);
		assert_int_equal(a->pressure, b->pressure);
		assert_int_equal(a->avg_pressure, b->avg_pressure);
		assert_int_equal(a->capacity, b->capacity);
	}
	free(text);
	tp_snapshot_release(&snap);
	tp_snapshot_release(&again);
}

static void test_extensible(void **state)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;

	/* unknown keys and trailing unknown columns are allowed in version 1 */
	parse_ok("version 1\nfuture_key 7 and more\nnr_cpus 1\n"
		 "cpu online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure capacity extra\n"
		 "0 1 0 1024 1000 1000 0 0 1024 42\n", &snap);
	assert_int_equal(snap.nr_cpus, 1);
	/* the header names the columns: their order after cpu is free */
	parse_ok("version 1\nnr_cpus 1\n"
		 "cpu capacity online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure\n"
		 "0 900 1 0 1024 1000 1000 0 124\n", &snap);
	assert_int_equal(snap.cpus[0].capacity, 900);
	assert_int_equal(snap.cpus[0].avg_pressure, 124);
	tp_snapshot_release(&snap);
}

static void test_parse_bad(void **state)
{
	static const char hdr[] =
		"cpu online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure capacity\n";
	char buf[1024];

	parse_bad("", "stats: no column header");
	parse_bad("garbage\n", "stats: no column header");
	snprintf(buf, sizeof(buf), "version 2\nnr_cpus 0\n%s", hdr);
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_error err;

	assert_int_equal(tp_abi_parse_stats(buf, strlen(buf), &snap, &err), -EPROTO);
	assert_string_equal(err.msg,
		"stats: interface version 2 is not supported (this thermpress reads version 1)");
	snprintf(buf, sizeof(buf), "version 1\n%s", hdr);
	parse_bad(buf, "stats: no nr_cpus line");
	/* truncated: fewer lines than announced */
	snprintf(buf, sizeof(buf), "version 1\nnr_cpus 2\n%s0 1 0 1024 1000 1000 0 0 1024\n", hdr);
	parse_bad(buf, "stats: 1 cpu lines, expected 2");
	/* truncated mid-line */
	snprintf(buf, sizeof(buf), "version 1\nnr_cpus 1\n%s0 1 0 1024 1000", hdr);
	parse_bad(buf, "stats: malformed line 4");
	/* garbage values */
	snprintf(buf, sizeof(buf), "version 1\nnr_cpus 1\n%s0 1 0 1024 x 1000 0 0 1024\n", hdr);
	parse_bad(buf, "stats: malformed line 4");
	snprintf(buf, sizeof(buf), "version 1\nnr_cpus 1\n%s0 2 0 1024 1000 1000 0 0 1024\n", hdr);
	parse_bad(buf, "stats: malformed line 4");
	snprintf(buf, sizeof(buf), "version 1\nnr_cpus 1\n%s0 1 0 1024 1000 1000 0 0 1024 7\n", hdr);
	parse_bad(buf, "stats: malformed line 4");
	snprintf(buf, sizeof(buf), "version 1\nnr_cpus 2\n%s1 1 0 1024 1000 1000 0 0 1024\n"
		 "0 1 0 1024 1000 1000 0 0 1024\n", hdr);
	parse_bad(buf, "stats: malformed line 5");	/* not in cpu order */
	snprintf(buf, sizeof(buf), "version 1\nnr_cpus 0\n%s0 1 0 1024 1000 1000 0 0 1024\n", hdr);
	parse_bad(buf, "stats: more cpu lines than nr_cpus 0");
	parse_bad("version 1\nnr_cpus 1\ncpu online domain\n0 1 0\n", "stats: column max_capacity missing");
	parse_bad("version 1\nnr_cpus 99999\ncpu\n", "stats: malformed line 2");
	parse_bad("version 1\ntime_ns -5\n", "stats: malformed line 2");
	tp_snapshot_release(&snap);
}

static void test_backends(void **state)
{
	char names[TP_MAX_BACKENDS][TP_NAME_MAX], buf[64];
	size_t count;
	int active;
	struct tp_error err;

	assert_int_equal(tp_abi_parse_backends("instant [pelt] decay\n", 21, names, TP_MAX_BACKENDS,
					       &count, &active, &err), 0);
	assert_int_equal(count, 3);
	assert_int_equal(active, 1);
	assert_string_equal(names[2], "decay");
	assert_int_equal(tp_abi_format_backends(names, count, 2, buf, sizeof(buf)), 21);
	assert_string_equal(buf, "instant pelt [decay]\n");
	/* the kernel with the none backend: it comes last, and may be the active one */
	assert_int_equal(tp_abi_parse_backends("instant pelt decay [none]\n", 26, names,
					       TP_MAX_BACKENDS, &count, &active, &err), 0);
	assert_int_equal(count, 4);
	assert_int_equal(active, 3);
	assert_string_equal(names[3], "none");
	assert_int_equal(tp_abi_format_backends(names, count, 1, buf, sizeof(buf)), 26);
	assert_string_equal(buf, "instant [pelt] decay none\n");
	assert_int_equal(tp_abi_parse_backends("instant pelt decay", 18, names, TP_MAX_BACKENDS,
					       &count, &active, &err), -EPROTO);
	assert_int_equal(tp_abi_parse_backends("[a] [b]", 7, names, TP_MAX_BACKENDS,
					       &count, &active, &err), -EPROTO);
	assert_int_equal(tp_abi_parse_backends("[Pelt]", 6, names, TP_MAX_BACKENDS,
					       &count, &active, &err), -EPROTO);
	assert_int_equal(tp_abi_parse_backends("", 0, names, TP_MAX_BACKENDS,
					       &count, &active, &err), -EPROTO);
}

static void test_writes(void **state)
{
	struct tp_cpuset cpus;
	uint64_t khz, v;
	char out[16];

	assert_int_equal(tp_abi_write_value("pelt\n", 5, out, sizeof(out)), 0);
	assert_string_equal(out, "pelt");
	assert_int_equal(tp_abi_write_value("pelt", 4, out, sizeof(out)), 0);
	assert_int_equal(tp_abi_write_value("\n", 1, out, sizeof(out)), -EINVAL);
	assert_int_equal(tp_abi_write_value("a\nb\n", 4, out, sizeof(out)), -EINVAL);
	assert_int_equal(tp_abi_write_value("a\n\n", 3, out, sizeof(out)), -EINVAL);
	assert_int_equal(tp_abi_write_value("a\0b", 3, out, sizeof(out)), -EINVAL);
	assert_int_equal(tp_abi_write_value("0123456789abcdef", 16, out, sizeof(out)), -EINVAL);

	assert_int_equal(tp_abi_parse_u64("42", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(tp_abi_parse_u64("", &v), -EINVAL);
	assert_int_equal(tp_abi_parse_u64("+1", &v), -EINVAL);
	assert_int_equal(tp_abi_parse_u64("1 ", &v), -EINVAL);
	assert_int_equal(tp_abi_parse_u64("18446744073709551616", &v), -EINVAL);

	assert_int_equal(tp_abi_parse_inject("0-3,6 1181000", 8, &cpus, &khz), 0);
	assert_int_equal(khz, 1181000);
	assert_int_equal(tp_cpuset_count(&cpus), 5);
	assert_int_equal(tp_abi_parse_inject("7 clear", 8, &cpus, &khz), 0);
	assert_int_equal(khz, 0);
	assert_true(tp_cpuset_has(&cpus, 7));
	assert_int_equal(tp_abi_parse_inject("8 1000", 8, &cpus, &khz), -EINVAL);
	assert_int_equal(tp_abi_parse_inject("0-3,99 1000", 8, &cpus, &khz), -EINVAL);
	assert_int_equal(tp_abi_parse_inject("0 0", 8, &cpus, &khz), -EINVAL);
	assert_int_equal(tp_abi_parse_inject("0  1000", 8, &cpus, &khz), -EINVAL);
	assert_int_equal(tp_abi_parse_inject("0 1000 x", 8, &cpus, &khz), -EINVAL);
	assert_int_equal(tp_abi_parse_inject(" 1000", 8, &cpus, &khz), -EINVAL);
	assert_int_equal(tp_abi_parse_inject("0", 8, &cpus, &khz), -EINVAL);
	assert_int_equal(tp_abi_parse_inject("3-1 1000", 8, &cpus, &khz), -EINVAL);
	assert_int_equal(tp_abi_parse_inject("1, 1000", 8, &cpus, &khz), -EINVAL);
	assert_int_equal(tp_abi_parse_inject("1 1MHz", 8, &cpus, &khz), -EINVAL);
}

/* Found by fuzz_abi: values out of docs/abi.md's ranges were accepted, names could carry
 * control characters, and a time_ns the formatter writes did not parse back. */
static void test_ranges(void **state)
{
	static const char hdr[] =
		"cpu online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure capacity\n";
	static const struct {
		const char *head, *line, *msg;
	} bad[] = {
		{ "", "0 1 0 2000 1000 1000 0 0 1024", "stats: line 4: max_capacity 2000 is out of 1..1024" },
		{ "", "0 1 0 1024 0 1000 0 0 1024", "stats: line 4: max_freq_khz 0 is out of 1..9223372036854775807" },
		{ "", "0 1 0 1024 1000 0 0 0 1024", "stats: line 4: capped_freq_khz 0 is out of 1..9223372036854775807" },
		{ "", "0 1 0 1024 1000 1000 1025 0 1024", "stats: line 4: pressure 1025 is out of 0..1024" },
		{ "", "0 1 0 1024 1000 1000 0 5000 1024", "stats: line 4: avg_pressure 5000 is out of 0..1024" },
		{ "", "0 1 0 1024 1000 1000 0 0 0", "stats: line 4: capacity 0 is out of 1..1024" },
		{ "hz 0\n", "0 1 0 1024 1000 1000 0 0 1024", "stats: malformed line 3" },
		{ "decay_ms 40000\n", "0 1 0 1024 1000 1000 0 0 1024", "stats: malformed line 3" },
		{ "backend \033[2J\n", "0 1 0 1024 1000 1000 0 0 1024", "stats: malformed line 3" },
		{ "backend Pelt\n", "0 1 0 1024 1000 1000 0 0 1024", "stats: malformed line 3" },
		{ "domain 0 b\033ig\n", "0 1 0 1024 1000 1000 0 0 1024", "stats: malformed line 3" },
	};
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	char buf[1024], *text;
	size_t len;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "version 1\nnr_cpus 1\n%s%s%s\n", bad[i].head, hdr, bad[i].line);
		parse_bad(buf, bad[i].msg);
	}
	/* every u64 time the formatter can write parses back */
	snprintf(buf, sizeof(buf), "version 1\ntime_ns 18446744073709551615\nnr_cpus 1\n%s"
		 "0 1 0 1024 1000 1000 0 0 1024\n", hdr);
	parse_ok(buf, &snap);
	assert_true(snap.time_ns == UINT64_MAX);
	snap.time_ns = INT64_MAX;
	assert_int_equal(tp_abi_format_stats(&snap, &text, &len), 0);
	parse_ok(text, &snap);
	assert_true(snap.time_ns == INT64_MAX);
	free(text);
	tp_snapshot_release(&snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_extensible),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_backends),
		cmocka_unit_test(test_writes),
		cmocka_unit_test(test_ranges),
	};
	return cmocka_run_group_tests_name("abi_text", tests, NULL, NULL);
}
