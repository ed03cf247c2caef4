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
 * and, in the same run, through a bare loop of the same arithmetic: the test reference
 * of tests/support/reference_avg.h, inlined (the plugins in plugins/ are the
 * implementations; the checksums prove both agree).
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
#include "reference_avg.h"

#define CHUNK 4096
#define T0 10000000000ull
#define TICK 4000000ull

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
	struct ref_pelt pe;
	struct ref_decay de;
	uint64_t h = 0;
	double t = now_s();

	ref_pelt_reset(&pe, !strcmp(name, "pelt") ? decay_ms : 32, T0);
	ref_decay_reset(&de, decay_ms);
	for (size_t i = 0; i < n_samples; i += CHUNK) {
		size_t m = n_samples - i < CHUNK ? n_samples - i : CHUNK;

		if (name[0] == 'i')
			for (size_t k = 0; k < m; k++)
				out[k] = press[i + k];
		else if (name[0] == 'p')
			for (size_t k = 0; k < m; k++)
				out[k] = ref_pelt_update(&pe, times[i + k], press[i + k]);
		else
			for (size_t k = 0; k < m; k++)
				out[k] = ref_decay_update(&de, times[i + k], press[i + k]);
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
