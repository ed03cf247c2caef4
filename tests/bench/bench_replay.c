/* SPDX-License-Identifier: MIT */
/*
 * Replay throughput per backend (run by hand; not a timed test).
 *
 * A 10-million-sample pressure timeline (one CPU ticking at 250 Hz, the pressure
 * stepping every 100 ticks) goes through each backend plugin
 *   - with update_batch, in chunks of 4096 as the replay engine does,
 *   - with one update() call per sample through the ops table,
 *   - through the whole replay engine, tp_replay_run(), on a trace of the same
 *     timeline (rows only where the pressure changes; the engine generates the ticks),
 * and, in the same run, through a bare loop of the same arithmetic.  The bare loop uses
 * LOCAL COPIES of the three algorithms below: they exist only as this baseline (the
 * plugins in plugins/ are the implementations; the checksums prove both agree).
 *
 * Usage: THERMPRESS_PLUGIN_DIR=build/plugins build/tests/bench/bench_replay [N]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <thermpress/experiment.h>

#include "clock.h"

#define CHUNK 4096
#define T0 10000000000ull
#define TICK 4000000ull

/* ---- baseline only: local copies of the arithmetic (docs/algorithms.md) ------------- */

static const uint32_t yN_inv[32] = {
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
	0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
	0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
};

struct b_pelt { uint64_t last, sum, avg; uint32_t contrib, shift; };

static inline uint64_t b_decay_load(uint64_t v, uint64_t n)
{
	if (n > 32 * 63)
		return 0;
	v >>= n / 32;
	return (uint64_t)(((unsigned __int128)v * yN_inv[n % 32]) >> 32);
}

static inline uint64_t b_pelt_update(struct b_pelt *s, uint64_t now, uint64_t p)
{
	uint64_t delta, periods;
	uint32_t contrib;

	now >>= s->shift;
	delta = now - s->last;
	if ((int64_t)delta < 0) {
		s->last = now;
		return s->avg;
	}
	delta >>= 10;
	if (!delta)
		return s->avg;
	s->last += delta << 10;
	contrib = (uint32_t)delta;
	delta += s->contrib;
	periods = delta / 1024;
	if (periods) {
		s->sum = b_decay_load(s->sum, periods);
		delta %= 1024;
		if (p)
			contrib = (uint32_t)b_decay_load(1024 - s->contrib, periods) +
				  (47742 - (uint32_t)b_decay_load(47742, periods) - 1024) +
				  (uint32_t)delta;
	}
	s->contrib = (uint32_t)delta;
	if (p)
		s->sum += p * contrib;
	if (periods)
		s->avg = s->sum / (47742 - 1024 + s->contrib);
	return s->avg;
}

struct b_decay { uint64_t d, old, acc, win, last, raw; bool started; };

static inline uint64_t b_decay_update(struct b_decay *s, uint64_t now, uint64_t p)
{
	if (!s->started) {
		s->win = s->last = now;
		s->started = true;
	}
	while (now >= s->win + s->d) {
		s->acc += s->raw * (s->win + s->d - s->last);
		s->last = s->win + s->d;
		s->old = (s->old * s->d + s->acc) / (2 * s->d);
		s->acc = 0;
		s->win += s->d;
	}
	s->acc += s->raw * (now - s->last);
	s->last = now;
	s->raw = p;
	return (s->old * s->d + s->acc) / (s->d + (now - s->win));
}

/* ---- the run ------------------------------------------------------------------------ */

/* seconds on the monotonic clock */
static double now_s(void)
{
	return (double)mono_ns() / 1e9;
}

static uint64_t *times, *press;
static size_t n_samples;

/* The pressure of sample i: a new pseudo-random level every 100 ticks. */
static void make_timeline(size_t n)
{
	uint64_t x = 88172645463325252ull, level = 0;

	times = malloc(n * sizeof(*times));
	press = malloc(n * sizeof(*press));
	if (!times || !press) {
		fprintf(stderr, "bench_replay: out of memory for %zu samples\n", n);
		exit(1);
	}
	for (size_t i = 0; i < n; i++) {
		if (i % 100 == 0) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			level = (x >> 20) % 1025;
		}
		times[i] = T0 + i * TICK;
		press[i] = level;
	}
	n_samples = n;
}

static uint64_t checksum(const uint64_t *a, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ a[i]) * 1099511628211ull;
	return h;
}

static uint64_t out[CHUNK];

static double run_bare(const char *name, uint32_t decay_ms, uint64_t *sum)
{
	struct b_pelt pe = { .last = T0 >> 0 };
	struct b_decay de = { .d = (uint64_t)decay_ms * 1000000ull };
	uint64_t h = 0;
	double t = now_s();

	if (!strcmp(name, "pelt")) {
		while ((32u << pe.shift) < decay_ms)
			pe.shift++;
		pe.last = T0 >> pe.shift;
	}
	for (size_t i = 0; i < n_samples; i += CHUNK) {
		size_t m = n_samples - i < CHUNK ? n_samples - i : CHUNK;

		if (name[0] == 'i')
			for (size_t k = 0; k < m; k++)
				out[k] = press[i + k];
		else if (name[0] == 'p')
			for (size_t k = 0; k < m; k++)
				out[k] = b_pelt_update(&pe, times[i + k], press[i + k]);
		else
			for (size_t k = 0; k < m; k++)
				out[k] = b_decay_update(&de, times[i + k], press[i + k]);
		h = checksum(out, m, h);
	}
	*sum = h;
	return now_s() - t;
}

static double run_plugin(const struct tp_replay_backend *b, bool batch, uint64_t *sum)
{
	struct tp_avg avg;
	struct tp_error err = { 0 };
	uint64_t h = 0;
	double t;

	if (tp_avg_init(&avg, b->ops, b->decay_ms, T0, &err)) {
		fprintf(stderr, "bench_replay: %s\n", err.msg);
		exit(1);
	}
	t = now_s();
	for (size_t i = 0; i < n_samples; i += CHUNK) {
		size_t m = n_samples - i < CHUNK ? n_samples - i : CHUNK;

		if (batch) {
			b->ops->update_batch(avg.state, m, times + i, press + i, out);
		} else {
			for (size_t k = 0; k < m; k++)
				out[k] = b->ops->update(avg.state, times[i + k], press[i + k]);
		}
		h = checksum(out, m, h);
	}
	t = now_s() - t;
	tp_avg_fini(&avg);
	*sum = h;
	return t;
}

/* The trace the replay engine reads: a row where the pressure changes, and the last. */
static void make_trace(struct tp_trace *tr)
{
	size_t rows = 0;

	memset(tr, 0, sizeof(*tr));
	tp_trace_meta_init(&tr->meta);
	tr->meta.hz = 250;
	tr->meta.state_start_ns = tr->meta.first_tick_ns = (int64_t)T0;
	tr->rows = calloc(n_samples / 100 + 2, sizeof(*tr->rows));
	for (size_t i = 0; i < n_samples; i++) {
		if (i % 100 && i != n_samples - 1)
			continue;
		struct tp_trace_row *r = &tr->rows[rows++];
		r->time_ns = times[i];
		r->cpu = 0;
		r->pressure = (int64_t)press[i];
		r->max_capacity = r->max_freq_khz = r->capped_freq_khz = TP_NONE;
		r->avg_pressure = r->decay_ms = TP_NONE;
	}
	tr->nr_rows = rows;
	tr->rows_alloc = rows;
}

static double run_engine(const struct tp_replay_backend *b, const struct tp_trace *tr,
			 uint64_t *updates)
{
	struct tp_replay_summary s;
	struct tp_error err = { 0 };
	double t = now_s();

	if (tp_replay_run(tr, b, 1, NULL, NULL, NULL, &s, &err)) {
		fprintf(stderr, "bench_replay: %s\n", err.msg);
		exit(1);
	}
	*updates = s.updates;
	return now_s() - t;
}

static double best(double a, double b)
{
	return a < b ? a : b;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;

	setenv(TP_ENV_PLUGIN_DIR, BENCH_PLUGIN_DIR, 0);	/* the build tree's plugins */
	struct tp_plugin_set *plugins = NULL;
	struct tp_error err = { 0 };
	struct tp_replay_backend b[3];
	struct tp_trace tr;
	size_t nb = 0;
	int status = 0;

	if (tp_plugins_load(NULL, &plugins, &err) < 0 ||
	    tp_replay_parse_backends("instant,pelt:32,decay:250", plugins, b, 3, &nb, &err) < 0) {
		fprintf(stderr, "bench_replay: %s\n", err.msg);
		return 1;
	}
	make_timeline(n);
	make_trace(&tr);
	printf("replay throughput, %zu samples (one cpu, 250 Hz ticks, a step every 100 ticks); "
	       "best of 3, million samples per second\n", n);
	printf("%-10s %10s %12s %7s %12s %7s %14s %7s\n", "backend", "bare loop", "update_batch",
	       "ratio", "update()", "ratio", "replay engine", "ratio");
	for (size_t i = 0; i < nb; i++) {
		double tb = 1e9, tba = 1e9, tu = 1e9, te = 1e9;
		uint64_t hb = 0, hba = 0, hu = 0, upd = 0;

		for (int rep = 0; rep < 3; rep++) {
			tb = best(tb, run_bare(b[i].ops->name, b[i].decay_ms, &hb));
			tba = best(tba, run_plugin(&b[i], true, &hba));
			tu = best(tu, run_plugin(&b[i], false, &hu));
			te = best(te, run_engine(&b[i], &tr, &upd));
		}
		if (hb != hba || hb != hu) {
			fprintf(stderr, "bench_replay: %s: the plugin and the baseline disagree\n",
				b[i].label);
			status = 1;
		}
		double mb = (double)n / tb / 1e6, mba = (double)n / tba / 1e6;
		double mu = (double)n / tu / 1e6, me = (double)upd / te / 1e6;
		printf("%-10s %10.1f %12.1f %7.2f %12.1f %7.2f %14.1f %7.2f\n", b[i].label, mb, mba,
		       mba / mb, mu, mu / mb, me, me / mb);
	}
	printf("ratio: plugin path / bare loop (target: at least 0.5 for update_batch)\n");
	tp_trace_free(&tr);
	free(times);
	free(press);
	tp_plugins_free(plugins);
	return status;
}
