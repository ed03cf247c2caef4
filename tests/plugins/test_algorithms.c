// SPDX-License-Identifier: MIT
/*
 * The four backend plugins against the definitions of docs/algorithms.md: the
 * kernel's PELT check values, edge cases, and long random timelines compared with
 * the test reference, tests/support/reference_avg.h (written from the definitions:
 * no fast paths, no shared code with the plugins).
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

#include <thermpress/thermpress.h>

#include "reference_avg.h"

#define MS 1000000ull

static struct tp_plugin_set *plugins;

static const struct tp_backend_ops *backend(const char *name)
{
	const struct tp_backend_ops *ops = tp_plugins_find(plugins, name);

	assert_non_null(ops);
	return ops;
}

/* xorshift64*: a fixed seed makes every failure reproducible */
static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t rng_below(uint64_t n)
{
	return rng() % n;
}

/* ---- helpers ---------------------------------------------------------------- */

static void avg_init(struct tp_avg *avg, const char *name, uint32_t decay_ms, uint64_t now)
{
	struct tp_error err = { 0 };

	assert_int_equal(tp_avg_init(avg, backend(name), decay_ms, now, &err), 0);
}

/* ---- pelt ------------------------------------------------------------------- */

static void test_pelt_kernel_check_values(void **unused)
{
	const uint64_t t0 = 10000000000ull;
	struct tp_avg avg;
	struct { uint64_t ms, value; } expect[] = {
		{ 32, 247 }, { 64, 375 }, { 128, 475 }, { 400, 511 },
		{ 432, 264 }, { 464, 136 }, { 528, 36 },
	};
	size_t next = 0;

	avg_init(&avg, "pelt", 32, t0);
	for (uint64_t ms = 0; ms <= 528; ms += 4) {
		uint64_t v = tp_avg_update(&avg, t0 + ms * MS, ms <= 400 ? 512 : 0);

		if (next < sizeof(expect) / sizeof(expect[0]) && expect[next].ms == ms) {
			assert_int_equal(v, expect[next].value);
			next++;
		}
	}
	assert_int_equal(next, sizeof(expect) / sizeof(expect[0]));
	tp_avg_fini(&avg);
}

/*
 * Held long enough, the average settles at P - 1 or P: the kernel's truncations
 * leave it a unit below P in some phases of the tick against the 1024 ns periods.
 * It never goes above P.  (The check values above show P - 1 at 400 ms.)
 */
static void test_pelt_steady_state(void **unused)
{
	uint64_t pressures[] = { 1, 300, 512, 1023, 1024 };
	uint64_t steps[] = { 1 * MS, 4 * MS, 3333333, 10 * MS };

	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		for (size_t i = 0; i < sizeof(pressures) / sizeof(pressures[0]); i++) {
			uint64_t p = pressures[i];
			struct tp_avg avg;

			avg_init(&avg, "pelt", 32, 0);
			for (uint64_t t = steps[s]; t <= 4000 * MS; t += steps[s]) {
				uint64_t v = tp_avg_update(&avg, t, p);

				assert_true(v <= p);
				if (t >= 2000 * MS)
					assert_true(v + 1 >= p);
			}
			tp_avg_fini(&avg);
		}
	}
}

static void test_pelt_normalize(void **unused)
{
	const struct tp_backend_ops *ops = backend("pelt");
	struct { uint32_t req, want; } table[] = {
		{ 1, 32 }, { 32, 32 }, { 47, 32 }, { 48, 32 }, { 49, 64 }, { 96, 64 },
		{ 97, 128 }, { 1000, 1024 }, { 24576, 16384 }, { 24577, 32768 },
		{ 32768, 32768 },
	};
	uint32_t in_force;

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		in_force = 0;
		assert_int_equal(ops->normalize_decay(table[i].req, &in_force), 0);
		assert_int_equal(in_force, table[i].want);
	}
	assert_int_equal(ops->normalize_decay(0, &in_force), -EINVAL);
	assert_int_equal(ops->normalize_decay(32769, &in_force), -EINVAL);
	assert_int_equal(ops->normalize_decay(UINT32_MAX, &in_force), -EINVAL);
	assert_int_equal(ops->decay_default_ms, 32);
	assert_int_equal(ops->flags & TP_BACKEND_UPDATE_ON_CHANGE, 0);
}

/*
 * A gap of more than 63 * 32 PELT periods decays everything to 0, whatever the
 * shift.  A period is 1024 * 1024 ns of the shifted clock, so the half-life is
 * a little over 32 << shift ms.
 */
static void test_pelt_long_gap(void **unused)
{
	struct tp_avg avg;

	avg_init(&avg, "pelt", 64, 0);
	for (uint64_t t = 4 * MS; t <= 1000 * MS; t += 4 * MS)
		tp_avg_update(&avg, t, 1024);
	assert_true(tp_avg_update(&avg, 1000 * MS, 1024) > 1000);
	/* 70 nominal half-lives of 64 ms later (2136 periods), at pressure 0 */
	assert_int_equal(tp_avg_update(&avg, 1000 * MS + 70 * 64 * MS, 0), 0);
	tp_avg_fini(&avg);
}

/* Sub-1024 ns steps accumulate nothing until a whole unit has passed. */
static void test_pelt_small_steps_and_backwards(void **unused)
{
	struct tp_avg avg;
	struct ref_pelt ref;
	uint64_t t = 5000 * MS;

	avg_init(&avg, "pelt", 32, t);
	ref_pelt_reset(&ref, 32, t);
	for (int i = 0; i < 20000; i++) {
		t += (i % 7 == 0) ? 0 : 300;
		if (i % 1000 == 999)
			t -= 100000;	/* backwards, below the last update */
		assert_int_equal(tp_avg_update(&avg, t, 700), ref_pelt_update(&ref, t, 700));
	}
	assert_true(ref.avg > 0);
	tp_avg_fini(&avg);
}

/* ---- decay ------------------------------------------------------------------ */

static void test_decay_normalize(void **unused)
{
	const struct tp_backend_ops *ops = backend("decay");
	uint32_t in_force;

	for (uint32_t ms = 1; ms <= 10000; ms += 333) {
		assert_int_equal(ops->normalize_decay(ms, &in_force), 0);
		assert_int_equal(in_force, ms);
	}
	assert_int_equal(ops->normalize_decay(10000, &in_force), 0);
	assert_int_equal(in_force, 10000);
	assert_int_equal(ops->normalize_decay(0, &in_force), -EINVAL);
	assert_int_equal(ops->normalize_decay(10001, &in_force), -EINVAL);
	assert_int_equal(ops->decay_default_ms, 250);
	assert_int_equal(ops->flags & TP_BACKEND_UPDATE_ON_CHANGE, TP_BACKEND_UPDATE_ON_CHANGE);
}

/* Worked by hand from the definition, D = 100 ms. */
static void test_decay_by_hand(void **unused)
{
	struct tp_avg avg;

	avg_init(&avg, "decay", 100, 123);
	assert_int_equal(tp_avg_update(&avg, 1000 * MS, 1000), 0);	/* initial state */
	/* half a window at 1000: (0 + 1000 * 50ms) / (100ms + 50ms) */
	assert_int_equal(tp_avg_update(&avg, 1050 * MS, 1000), 333);
	/* window closes: old = (0 + 1000 * 100ms) / 200ms = 500; 10 ms in */
	assert_int_equal(tp_avg_update(&avg, 1110 * MS, 0), (500 * 100 + 1000 * 10) / 110);
	/* a reset starts over at the next update */
	tp_avg_reset(&avg, 2000 * MS);
	assert_int_equal(tp_avg_update(&avg, 3000 * MS, 1024), 0);
	tp_avg_fini(&avg);
}

static void test_decay_backwards(void **unused)
{
	struct tp_avg avg;
	uint64_t before;

	avg_init(&avg, "decay", 10, 0);
	tp_avg_update(&avg, 100 * MS, 800);
	before = tp_avg_update(&avg, 105 * MS, 800);
	/* no time passes when the clock goes back: the average stays */
	assert_int_equal(tp_avg_update(&avg, 50 * MS, 0), before);
	/* and the new pressure holds from the latest time seen */
	assert_int_equal(tp_avg_update(&avg, 105 * MS, 0), before);
	assert_true(tp_avg_update(&avg, 109 * MS, 0) < before);
	tp_avg_fini(&avg);
}

/* Years skipped in one update: fast, and the same as skipping fewer windows. */
static void test_decay_years_gap(void **unused)
{
	const uint64_t year = 365ull * 24 * 3600 * 1000 * MS;
	uint32_t periods[] = { 1, 7, 250, 10000 };

	for (size_t i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		uint64_t d = periods[i] * MS;

		for (uint64_t p = 0; p <= 1024; p += 256) {
			struct tp_avg a, b;
			struct ref_decay ref;
			uint64_t offset = d / 3;
			uint64_t va, vb, vr;

			avg_init(&a, "decay", periods[i], 0);
			avg_init(&b, "decay", periods[i], 0);
			ref_decay_reset(&ref, periods[i]);
			for (uint64_t t = 1; t < 4 * d; t += d / 5 + 1) {
				tp_avg_update(&a, t, 1024 - p);
				tp_avg_update(&b, t, 1024 - p);
				ref_decay_update(&ref, t, 1024 - p);
			}
			tp_avg_update(&a, 4 * d, p);
			tp_avg_update(&b, 4 * d, p);
			ref_decay_update(&ref, 4 * d, p);
			/* 2000 windows through the naive loop vs. 30 years in one step */
			vr = ref_decay_update(&ref, 2004 * d + offset, p);
			va = tp_avg_update(&a, 2004 * d + offset, p);
			vb = tp_avg_update(&b, 4 * d + (30 * year / d) * d + offset, p);
			assert_int_equal(va, vr);
			assert_int_equal(vb, vr);
			/* the carried value has settled on the pressure */
			assert_true(vr + 1 >= p && vr <= p);
			tp_avg_fini(&a);
			tp_avg_fini(&b);
		}
	}
}

static void test_decay_extremes(void **unused)
{
	struct tp_avg avg;
	uint64_t v = 0;

	/* the largest D at full pressure: the arithmetic must not overflow */
	avg_init(&avg, "decay", 10000, 0);
	for (uint64_t t = 0; t <= 200000 * MS; t += 9999 * MS)
		v = tp_avg_update(&avg, t, 1024);
	assert_true(v >= 1020 && v <= 1024);
	for (uint64_t t = 200001 * MS; t <= 400000 * MS; t += 9999 * MS)
		v = tp_avg_update(&avg, t, 0);
	assert_int_equal(v, 0);
	tp_avg_fini(&avg);
}

/* ---- instant ---------------------------------------------------------------- */

static void test_instant(void **unused)
{
	const struct tp_backend_ops *ops = backend("instant");
	struct tp_avg avg;
	uint32_t in_force = 7;

	assert_int_equal(ops->normalize_decay(0, &in_force), 0);
	assert_int_equal(in_force, 0);
	assert_int_equal(ops->normalize_decay(1, &in_force), -EINVAL);
	assert_int_equal(ops->normalize_decay(250, &in_force), -EINVAL);
	assert_int_equal(ops->flags & TP_BACKEND_UPDATE_ON_CHANGE, TP_BACKEND_UPDATE_ON_CHANGE);
	avg_init(&avg, "instant", 0, 0);
	assert_int_equal(avg.decay_ms, 0);
	for (uint64_t p = 0; p <= 1024; p += 17)
		assert_int_equal(tp_avg_update(&avg, p * 1000, p), p);
	assert_int_equal(tp_avg_update(&avg, 0, 1024), 1024);	/* backwards */
	tp_avg_fini(&avg);
}

/* ---- none ------------------------------------------------------------------- */

/* none: 0 whatever the pressure and the time; no decay period; fed at the tick only. */
static void test_none(void **unused)
{
	const struct tp_backend_ops *ops = backend("none");
	struct tp_avg avg;
	uint32_t in_force = 7;

	assert_int_equal(ops->normalize_decay(0, &in_force), 0);
	assert_int_equal(in_force, 0);
	in_force = 7;
	assert_int_equal(ops->normalize_decay(1, &in_force), -EINVAL);
	assert_int_equal(ops->normalize_decay(32, &in_force), -EINVAL);
	assert_int_equal(ops->normalize_decay(UINT32_MAX, &in_force), -EINVAL);
	assert_int_equal(in_force, 7);	/* a refusal leaves the output alone */
	assert_int_equal(ops->decay_min_ms, 0);
	assert_int_equal(ops->decay_max_ms, 0);
	assert_int_equal(ops->decay_default_ms, 0);
	assert_int_equal(ops->flags & TP_BACKEND_UPDATE_ON_CHANGE, 0);
	avg_init(&avg, "none", 0, 0);
	assert_int_equal(avg.decay_ms, 0);
	for (uint64_t p = 0; p <= 1024; p += 17)
		assert_int_equal(tp_avg_update(&avg, p * 1000, p), 0);
	assert_int_equal(tp_avg_update(&avg, 0, 1024), 0);		/* backwards */
	assert_int_equal(tp_avg_update(&avg, UINT64_MAX, 1024), 0);	/* the end of time */
	tp_avg_fini(&avg);
}

/* ---- random timelines -------------------------------------------------------- */

/* The next time: ticks, sub-unit steps, jitter, backwards steps and huge gaps. */
static uint64_t next_time(uint64_t t, uint64_t huge_gap_max)
{
	uint64_t kind = rng_below(100);

	if (kind < 50)
		return t + 4 * MS;
	if (kind < 60)
		return t + rng_below(1024);
	if (kind < 80)
		return t + rng_below(20 * MS);
	if (kind < 85) {
		uint64_t back = rng_below(5 * MS);

		return t > back ? t - back : 0;
	}
	if (kind < 87)
		return t + rng_below(huge_gap_max);
	return t + rng_below(200 * MS);
}

static uint64_t next_pressure(uint64_t p)
{
	uint64_t kind = rng_below(100);

	if (kind < 70)
		return p;
	if (kind < 80)
		return 0;
	if (kind < 90)
		return 1024;
	return rng_below(1025);
}

#define STEPS 100000

static void test_random_pelt(void **unused)
{
	const struct tp_backend_ops *ops = backend("pelt");
	struct tp_avg avg;
	struct ref_pelt ref;
	uint64_t t = 10000000000ull, p = 0;

	rng_state = 0x9e3779b97f4a7c15ull;
	avg_init(&avg, "pelt", 32, t);
	ref_pelt_reset(&ref, 32, t);
	for (int i = 0; i < STEPS; i++) {
		if (rng_below(1000) == 0) {
			uint32_t ms;

			assert_int_equal(ops->normalize_decay(1 + rng_below(32768), &ms), 0);
			tp_avg_fini(&avg);
			avg_init(&avg, "pelt", ms, t);
			ref_pelt_reset(&ref, ms, t);
		} else if (rng_below(2000) == 0) {
			tp_avg_reset(&avg, t);
			ref_pelt_reset(&ref, avg.decay_ms, t);
		}
		t = next_time(t, 1ull << 42);	/* up to over an hour at once */
		p = next_pressure(p);
		uint64_t v = tp_avg_update(&avg, t, p);
		assert_int_equal(v, ref_pelt_update(&ref, t, p));
		assert_true(v <= 1024);
	}
	tp_avg_fini(&avg);
}

static void test_random_decay(void **unused)
{
	struct tp_avg avg;
	struct ref_decay ref;
	uint64_t t = 10000000000ull, p = 0;

	rng_state = 0x243f6a8885a308d3ull;
	avg_init(&avg, "decay", 250, t);
	ref_decay_reset(&ref, 250);
	for (int i = 0; i < STEPS; i++) {
		if (rng_below(1000) == 0) {
			/* short periods often, so that windows close on most steps */
			uint32_t ms = rng_below(2) ? 1 + rng_below(20) : 1 + rng_below(10000);

			tp_avg_fini(&avg);
			avg_init(&avg, "decay", ms, t);
			ref_decay_reset(&ref, ms);
		} else if (rng_below(2000) == 0) {
			tp_avg_reset(&avg, t);
			ref_decay_reset(&ref, avg.decay_ms);
		}
		/* gaps up to 1000 windows keep the naive reference loop affordable */
		t = next_time(t, 1000 * avg.decay_ms * MS);
		p = next_pressure(p);
		uint64_t v = tp_avg_update(&avg, t, p);
		assert_int_equal(v, ref_decay_update(&ref, t, p));
		assert_true(v <= 1024);
	}
	tp_avg_fini(&avg);
}

static void test_random_none(void **unused)
{
	struct tp_avg avg;
	uint64_t t = 10000000000ull, p = 0;

	rng_state = 0x13198a2e03707344ull;
	avg_init(&avg, "none", 0, t);
	for (int i = 0; i < STEPS; i++) {
		if (rng_below(2000) == 0)
			tp_avg_reset(&avg, t);
		t = next_time(t, 1ull << 42);
		p = next_pressure(p);
		assert_int_equal(tp_avg_update(&avg, t, p), ref_none_update(t, p));
	}
	tp_avg_fini(&avg);
}

/* update_batch gives what the same updates one by one give. */
static void test_update_batch(void **unused)
{
	const char *names[] = { "instant", "pelt", "decay", "none" };
	enum { N = 5000 };
	static uint64_t now[N], pressure[N], batch[N];

	rng_state = 42;
	for (size_t b = 0; b < sizeof(names) / sizeof(names[0]); b++) {
		const struct tp_backend_ops *ops = backend(names[b]);
		struct tp_avg one, many;
		uint64_t t = 1000 * MS, p = 0;

		for (size_t i = 0; i < N; i++) {
			now[i] = t = next_time(t, 100000 * MS);
			pressure[i] = p = next_pressure(p);
		}
		avg_init(&one, names[b], 0, 1000 * MS);
		avg_init(&many, names[b], 0, 1000 * MS);
		ops->update_batch(many.state, N, now, pressure, batch);
		for (size_t i = 0; i < N; i++)
			assert_int_equal(batch[i], tp_avg_update(&one, now[i], pressure[i]));
		ops->update_batch(many.state, 0, NULL, NULL, NULL);
		tp_avg_fini(&one);
		tp_avg_fini(&many);
	}
}

/* ---- tp_avg ------------------------------------------------------------------ */

static void test_avg_init(void **unused)
{
	struct tp_error err = { 0 };
	struct tp_avg avg;

	assert_int_equal(tp_avg_init(&avg, backend("decay"), 10001, 0, &err), -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.msg, "1..10000 ms"));
	assert_non_null(strstr(err.msg, "10001"));
	assert_null(avg.state);
	assert_int_equal(tp_avg_init(&avg, backend("pelt"), 32769, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "1..32768 ms"));
	assert_int_equal(tp_avg_init(&avg, backend("instant"), 5, 0, NULL), -EINVAL);
	assert_int_equal(tp_avg_init(&avg, backend("none"), 5, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "backend none has no decay period"));
	assert_int_equal(tp_avg_init(&avg, NULL, 0, 0, &err), -EINVAL);

	for (size_t i = 0; i < tp_plugins_count(plugins); i++) {
		const struct tp_backend_ops *ops = tp_plugins_get(plugins, i);

		assert_int_equal(tp_avg_init(&avg, ops, 0, 0, &err), 0);
		assert_int_equal(avg.decay_ms, ops->decay_default_ms);
		assert_int_equal((uintptr_t)avg.state % ops->state_align, 0);
		tp_avg_fini(&avg);
		assert_null(avg.state);
	}
	assert_int_equal(tp_avg_init(&avg, backend("pelt"), 100, 0, &err), 0);
	assert_int_equal(avg.decay_ms, 128);
	tp_avg_fini(&avg);
}

static int setup(void **unused)
{
	struct tp_error err = { 0 };

	if (tp_plugins_load(NULL, &plugins, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **unused)
{
	tp_plugins_free(plugins);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pelt_kernel_check_values),
		cmocka_unit_test(test_pelt_steady_state),
		cmocka_unit_test(test_pelt_normalize),
		cmocka_unit_test(test_pelt_long_gap),
		cmocka_unit_test(test_pelt_small_steps_and_backwards),
		cmocka_unit_test(test_decay_normalize),
		cmocka_unit_test(test_decay_by_hand),
		cmocka_unit_test(test_decay_backwards),
		cmocka_unit_test(test_decay_years_gap),
		cmocka_unit_test(test_decay_extremes),
		cmocka_unit_test(test_instant),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_random_pelt),
		cmocka_unit_test(test_random_decay),
		cmocka_unit_test(test_random_none),
		cmocka_unit_test(test_update_batch),
		cmocka_unit_test(test_avg_init),
	};

	return cmocka_run_group_tests_name("plugin algorithms", tests, setup, teardown);
}
