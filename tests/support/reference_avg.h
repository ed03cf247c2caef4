/* SPDX-License-Identifier: MIT */
/*
 * The test reference of the averaging algorithms: PELT, the windowed decay and none, a
 * plain transcription of their definitions in docs/algorithms.md, written apart from
 * plugins/ (the only user-space implementation) so that the tests compare the plugins
 * with something independent.  Used only by tests: the plugin unit tests
 * (tests/plugins/test_algorithms.c), the kernel log replay (tests/kernel/replay.c)
 * and the bare-loop baseline of tests/bench/bench_replay.c.
 *
 * Header only (static inline): the replay checker is compiled on the VM host by
 * kernel/run.sh with one gcc call, and the benchmark wants the arithmetic inlined.
 * Link with -lm (the decay factors are computed, not copied).
 */
#ifndef THERMPRESS_TESTS_REFERENCE_AVG_H
#define THERMPRESS_TESTS_REFERENCE_AVG_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define REF_LOAD_AVG_PERIOD 32
#define REF_LOAD_AVG_MAX 47742

/*
 * y^n * (2^32 - 1) for y^32 = 1/2, n = 0..31: the kernel's runnable_avg_yN_inv, computed
 * from its definition the way the kernel's generator (sched-pelt.c) computes it, so that
 * the reference shares no table with the plugin.
 */
static inline uint32_t ref_yN_inv(uint64_t n)
{
	static uint32_t table[REF_LOAD_AVG_PERIOD];

	if (!table[0]) {
		double y = pow(0.5, 1.0 / REF_LOAD_AVG_PERIOD);

		for (int i = REF_LOAD_AVG_PERIOD - 1; i >= 0; i--)	/* table[0] last: the flag */
			table[i] = (uint32_t)(4294967295.0 * pow(y, i));
	}
	return table[n];
}

/* ---- PELT ------------------------------------------------------------------ */

struct ref_pelt {
	unsigned shift;		/* decay_ms = 32 << shift */
	uint64_t last, sum, avg;
	uint64_t contrib;
};

/* floor(v * m / 2^32) from two 32x32 products instead of a 128-bit one */
static inline uint64_t ref_mul_shr32(uint64_t v, uint32_t m)
{
	uint64_t hi = (v >> 32) * m, lo = (v & 0xffffffffu) * m;

	return hi + (lo >> 32);
}

/* v * y^n */
static inline uint64_t ref_decay_load(uint64_t v, uint64_t n)
{
	if (n > REF_LOAD_AVG_PERIOD * 63)
		return 0;
	/* one halving per whole half-life */
	while (n >= REF_LOAD_AVG_PERIOD) {
		v >>= 1;
		n -= REF_LOAD_AVG_PERIOD;
	}
	return ref_mul_shr32(v, ref_yN_inv(n));
}

/* Start at now (ns) with a half-life of decay_ms; -1 when that is not 32 << 0..10. */
static inline int ref_pelt_reset(struct ref_pelt *r, uint64_t decay_ms, uint64_t now)
{
	unsigned shift = 0;

	while (shift <= 10 && (32ull << shift) != decay_ms)
		shift++;
	memset(r, 0, sizeof(*r));
	if (shift > 10)
		return -1;
	r->shift = shift;
	r->last = now >> shift;
	return 0;
}

/* The average after pressure p until now_ns. */
static inline uint64_t ref_pelt_update(struct ref_pelt *r, uint64_t now_ns, uint64_t p)
{
	uint64_t now = now_ns >> r->shift;
	uint64_t delta, periods, contrib;

	if (now < r->last) {
		r->last = now;
		return r->avg;
	}
	delta = (now - r->last) / 1024;
	if (delta == 0)
		return r->avg;
	r->last += delta * 1024;
	contrib = delta;
	delta += r->contrib;
	periods = delta / 1024;
	if (periods > 0) {
		r->sum = ref_decay_load(r->sum, periods);
		delta = delta % 1024;
		if (p != 0)
			contrib = ref_decay_load(1024 - r->contrib, periods) +
				  (REF_LOAD_AVG_MAX - ref_decay_load(REF_LOAD_AVG_MAX, periods) - 1024) +
				  delta;
	}
	r->contrib = delta;
	if (p != 0)
		r->sum += p * contrib;
	if (periods > 0)
		r->avg = r->sum / (REF_LOAD_AVG_MAX - 1024 + r->contrib);
	return r->avg;
}

/* ---- decay: every window one by one ----------------------------------------- */

struct ref_decay {
	uint64_t d, old, acc, win_start, last, raw;
	int started;
};

static inline void ref_decay_reset(struct ref_decay *r, uint64_t decay_ms)
{
	memset(r, 0, sizeof(*r));
	r->d = decay_ms * 1000000ull;
}

static inline uint64_t ref_decay_update(struct ref_decay *r, uint64_t now, uint64_t p)
{
	if (!r->started) {
		r->started = 1;
		r->win_start = r->last = now;
	}
	if (now < r->last)
		now = r->last;
	/* one window at a time, no shortcut: the definition itself */
	while (now >= r->win_start + r->d) {
		r->acc += r->raw * (r->win_start + r->d - r->last);
		r->last = r->win_start + r->d;
		r->old = (r->old * r->d + r->acc) / (2 * r->d);
		r->acc = 0;
		r->win_start += r->d;
	}
	r->acc += r->raw * (now - r->last);
	r->last = now;
	r->raw = p;
	return (r->old * r->d + r->acc) / (r->d + (now - r->win_start));
}

/* ---- none: the scheduler sees no pressure ----------------------------------- */

static inline uint64_t ref_none_update(uint64_t now, uint64_t p)
{
	(void)now;
	(void)p;
	return 0;
}

#endif
