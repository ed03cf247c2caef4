// SPDX-License-Identifier: MIT
/*
 * The snapshot's shared rules (core/snapshot.c): the one domain lookup and the one
 * "capped" rule that show, top, JSON and the exporter use.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <thermpress/thermpress.h>

static struct tp_cpu cpu_with(int64_t max_khz, int64_t capped_khz, int64_t max_cap,
			      int64_t capped_cap)
{
	struct tp_cpu c = { .cpu = 0, .online = 1, .domain = TP_NONE, .max_freq_khz = max_khz,
			    .capped_freq_khz = capped_khz, .max_capacity = max_cap,
			    .capped_capacity = capped_cap };
	return c;
}

static void test_capped(void **state)
{
	struct tp_cpu c;

	(void)state;
	/* frequencies decide where they are known, whatever the capacity says (a 6.1
	 * scaling_max_freq cap gives the scheduler no pressure) */
	c = cpu_with(2362000, 1805000, 1024, 1024);
	assert_int_equal(tp_cpu_capped(&c), 1);
	c = cpu_with(2362000, 2362000, 1024, 900);
	assert_int_equal(tp_cpu_capped(&c), 0);
	/* a source without frequencies: the capacities */
	c = cpu_with(TP_NONE, TP_NONE, 1024, 600);
	assert_int_equal(tp_cpu_capped(&c), 1);
	c = cpu_with(TP_NONE, TP_NONE, 1024, 1024);
	assert_int_equal(tp_cpu_capped(&c), 0);
	/* neither: unknown, not "not capped" */
	c = cpu_with(TP_NONE, TP_NONE, 1024, TP_NONE);
	assert_int_equal(tp_cpu_capped(&c), TP_NONE);
}

static void test_domain(void **state)
{
	struct tp_domain doms[2] = { { 0, "little" }, { 4, "big" } };
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_cpu c = cpu_with(1, 1, 1, 1);

	(void)state;
	snap.domains = doms;
	snap.nr_domains = 2;
	c.domain = 1;
	assert_ptr_equal(tp_snapshot_domain(&snap, &c), &doms[1]);
	c.domain = TP_NONE;
	assert_null(tp_snapshot_domain(&snap, &c));
	c.domain = 2;		/* out of range: none, never past the array */
	assert_null(tp_snapshot_domain(&snap, &c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capped),
		cmocka_unit_test(test_domain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
