// SPDX-License-Identifier: MIT
/*
 * Replay (docs/experiments.md): the pressure timeline of a trace goes through each
 * backend plugin as the kernel tick would feed it.
 *
 * Per CPU the timeline is a step function: the pressure of a row holds from its time
 * until the next row of that CPU.  State starts (reset) at S, ticks run at every
 * multiple of the period from the first tick F to the trace's last time; a change of
 * pressure at t updates backends flagged TP_BACKEND_UPDATE_ON_CHANGE at t.  A change
 * at a tick's time comes after that tick (as a cap written after the clock reached t).
 *
 * Updates are generated in chunks and handed to the plugin's update_batch, then the
 * chunk is walked once for the callback, the metrics and the comparison with the
 * recorded averages.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <thermpress/experiment.h>

#include "backend/state_layout.h"

int tp_replay_parse_backends(const char *list, const struct tp_plugin_set *plugins,
			     struct tp_replay_backend *out, size_t max, size_t *count,
			     struct tp_error *err)
{
	char buf[512], *save = NULL, *tok;
	size_t n = 0;

	if (strlen(list) >= sizeof(buf))
		return tp_error_set(err, -EINVAL, "backend list is too long");
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		const struct tp_backend_ops *ops;
		uint32_t decay = 0, in_force = 0;

		if (colon)
			*colon = '\0';
		ops = tp_plugins_find(plugins, tok);
		if (!ops) {
			char names[256] = "";

			for (size_t i = 0; i < tp_plugins_count(plugins); i++) {
				size_t l = strlen(names);

				snprintf(names + l, sizeof(names) - l, "%s%s", l ? ", " : "",
					 tp_plugins_get(plugins, i)->name);
			}
			return tp_error_set(err, -EINVAL,
					    "unknown backend '%.32s' in '%.100s' (available: %s)", tok,
					    list, names);
		}
		if (colon) {
			struct tp_error e = { 0 };

			if (!ops->decay_max_ms)
				return tp_error_set(err, -EINVAL,
						    "backend %s has no decay period ('%s:%.20s')",
						    ops->name, tok, colon + 1);
			if (tp_parse_decay_ms(colon + 1, &decay, &e))
				return tp_error_set(err, -EINVAL, "%s: %s", ops->name, e.msg);
		} else {
			decay = ops->decay_default_ms;
		}
		if (ops->normalize_decay(decay, &in_force))
			return tp_error_set(err, -EINVAL,
					    "decay period %u ms is out of range for %s (%u..%u ms)",
					    decay, ops->name, ops->decay_min_ms, ops->decay_max_ms);
		if (n == max)
			return tp_error_set(err, -EINVAL, "too many backends (at most %zu)", max);
		out[n].ops = ops;
		out[n].decay_ms = in_force;
		out[n].asked_ms = decay;
		if (ops->decay_max_ms)
			snprintf(out[n].label, sizeof(out[n].label), "%s:%u", ops->name, in_force);
		else
			snprintf(out[n].label, sizeof(out[n].label), "%s", ops->name);
		n++;
	}
	if (!n)
		return tp_error_set(err, -EINVAL, "no backend given");
	*count = n;
	return 0;
}

int tp_replay_csv_row(void *arg, size_t backend, const struct tp_replay_point *pt)
{
	struct tp_replay_csv *c = arg;
	const struct tp_replay_backend *b = &c->backends[backend];

	if (fprintf(c->fp, "%" PRIu64 ",%d,%s,%u,%" PRIu64 ",%" PRIu64 "\n", pt->time_ns, pt->cpu,
		    b->ops->name, b->decay_ms, pt->pressure, pt->avg_pressure) < 0)
		return -EIO;
	return 0;
}

/*
 * The engine streams: rows come one at a time (tp_replay_next_fn) and each (backend,
 * CPU) pair keeps only its averaging state, its metrics and one chunk of pending
 * updates, so memory is bounded by the number of CPUs and backends, not by the
 * trace's length.  The callback's order (backend by backend, CPU by CPU, in time) is
 * kept by spooling each pair's points to an unlinked temporary file, read back in that
 * order at the end.
 *
 * A chunk is a run of updates (ticks and updates on change) plus a short list of
 * marks (a step starts, a row to compare, comparing stops), each placed before the
 * update numbered `at`.  Ticks need no mark, so the common path stays a tight loop.
 */
#define CHUNK 512
#define MARKS (CHUNK + 8)	/* a row adds at most 3: flushed at CHUNK */

enum mark_kind { MK_STEP, MK_CHECK, MK_STOPCHECK };

struct mark {
	uint32_t kind;
	uint32_t at;		/* processed before update number at of the chunk */
	uint64_t t;		/* MK_STEP: time of the change; MK_CHECK: of the row */
	int64_t p0, p1;		/* MK_STEP: pressure before and after; MK_CHECK: p0 recorded */
};

/* A point as spooled: the backend and CPU are those of the chain it is in. */
struct spool_point {
	uint64_t t, avg;
	uint32_t p, tick;
};
struct spool_block {
	uint64_t next;		/* file offset of the pair's next block, NO_BLOCK at the end */
	uint32_t n, pad;
};
#define NO_BLOCK UINT64_MAX

/* One backend on one CPU. */
struct run {
	const struct tp_replay_backend *b;
	int cpu;
	void *state;
	bool on_change, compare;
	uint64_t tick;		/* the next tick */
	/* one chunk */
	size_t nmark, nupd;
	struct mark marks[MARKS];
	uint64_t t[CHUNK], p[CHUNK], avg[CHUNK];
	uint8_t change[CHUNK];	/* 1: an update on change, 0: a tick */
	/* carried across chunks */
	uint64_t last_avg, last_t;
	bool any_update;
	bool step_open, got50, got90;
	uint64_t step_t;
	int64_t step_sign, th50, th90;
	/* metrics, exact integers: the sums do not depend on the order of the pairs */
	uint64_t updates, ticks, mad, steps, reached50, reached90, compared;
	uint64_t t50_ns, t90_ns, t50_max_ns, t90_max_ns;
	unsigned __int128 cap;	/* capacity x ns */
	bool mismatch;
	uint64_t mm_time;
	int64_t mm_recorded, mm_replayed;
	uint64_t spool_first, spool_last;
};

struct cpu_runs {
	struct run **runs;	/* nb */
	uint64_t p;		/* the pressure in force */
	uint64_t int_last;	/* the instantaneous pressure integral so far */
	unsigned __int128 p_int;
};

struct engine {
	const struct tp_replay_backend *b;
	size_t nb;
	uint64_t start, tick0, period, end;
	bool compare_trace;	/* per backend below */
	bool compare[TP_REPLAY_MAX_BACKENDS];
	struct cpu_runs *cpus;	/* TP_MAX_CPUS, runs allocated on a CPU's first row */
	int spool_fd;		/* -1: no callback */
	uint64_t spool_end;
	struct spool_point buf[CHUNK];
	int io_error;
};

static void reached(struct run *r, uint64_t t, uint64_t *sum, uint64_t *max, uint64_t *count)
{
	uint64_t ns = t - r->step_t;

	(*count)++;
	*sum += ns;
	if (ns > *max)
		*max = ns;
}

static void step_check(struct run *r, uint64_t t, uint64_t avg)
{
	/* thresholds precomputed at the step: s * avg >= th is "got there" */
	int64_t v = r->step_sign * (int64_t)avg;

	if (!r->got50 && v >= r->th50) {
		r->got50 = true;
		reached(r, t, &r->t50_ns, &r->t50_max_ns, &r->reached50);
	}
	if (!r->got90 && v >= r->th90) {
		r->got90 = true;
		reached(r, t, &r->t90_ns, &r->t90_max_ns, &r->reached90);
	}
	if (r->got50 && r->got90)
		r->step_open = false;
}

static void do_mark(struct run *r, const struct mark *m)
{
	switch (m->kind) {
	case MK_STEP:
		r->steps++;
		r->step_open = true;
		r->got50 = r->got90 = false;
		r->step_t = m->t;
		{
			/* 2 * |avg - p0| >= |d| and 10 * |avg - p0| >= 9 * |d|, toward p1 */
			int64_t d = m->p1 - m->p0, sign = d < 0 ? -1 : 1, ad = d * sign;

			r->step_sign = sign;
			r->th50 = sign * m->p0 + (ad + 1) / 2;
			r->th90 = sign * m->p0 + (9 * ad + 9) / 10;
		}
		break;
	case MK_STOPCHECK:
		r->compare = false;
		break;
	case MK_CHECK: {
		/* before its first update the state reads 0, as the simulator's */
		uint64_t have = r->any_update ? r->last_avg : 0;

		if (!r->compare)
			break;
		r->compared++;
		if ((uint64_t)m->p0 != have && !r->mismatch) {
			r->mismatch = true;
			r->mm_time = m->t;
			r->mm_recorded = m->p0;
			r->mm_replayed = (int64_t)have;
		}
		break;
	}
	}
}

/* Append the chunk's points to the pair's chain in the spool file. */
static void spool_chunk(struct engine *e, struct run *r)
{
	struct spool_block blk = { .next = NO_BLOCK, .n = (uint32_t)r->nupd };
	uint64_t off = e->spool_end;
	size_t bytes = r->nupd * sizeof(struct spool_point);

	for (size_t u = 0; u < r->nupd; u++)
		e->buf[u] = (struct spool_point){ r->t[u], r->avg[u], (uint32_t)r->p[u],
						  !r->change[u] };
	if (pwrite(e->spool_fd, &blk, sizeof(blk), (off_t)off) != (ssize_t)sizeof(blk) ||
	    pwrite(e->spool_fd, e->buf, bytes, (off_t)(off + sizeof(blk))) != (ssize_t)bytes ||
	    (r->spool_last != NO_BLOCK &&
	     pwrite(e->spool_fd, &off, sizeof(off), (off_t)r->spool_last) != (ssize_t)sizeof(off))) {
		if (!e->io_error)
			e->io_error = errno ? errno : EIO;
		return;
	}
	if (r->spool_first == NO_BLOCK)
		r->spool_first = off;
	r->spool_last = off;
	e->spool_end += sizeof(blk) + bytes;
}

static void flush(struct engine *e, struct run *r)
{
	uint64_t mad = 0, ticks = 0, last_avg = r->last_avg, last_t = r->last_t;
	unsigned __int128 cap = 0;
	size_t m = 0;

	if (r->nupd) {
		if (r->b->ops->update_batch)
			r->b->ops->update_batch(r->state, r->nupd, r->t, r->p, r->avg);
		else
			for (size_t i = 0; i < r->nupd; i++)
				r->avg[i] = r->b->ops->update(r->state, r->t[i], r->p[i]);
	}
	for (size_t u = 0; u < r->nupd; u++) {
		uint64_t t = r->t[u], p = r->p[u], a = r->avg[u];

		if (m < r->nmark && r->marks[m].at == u) {
			r->last_avg = last_avg;
			r->last_t = last_t;
			while (m < r->nmark && r->marks[m].at == u)
				do_mark(r, &r->marks[m++]);
		}
		if (r->any_update)
			cap += (unsigned __int128)last_avg * (t - last_t);
		r->any_update = true;
		last_avg = a;
		last_t = t;
		if (!r->change[u]) {
			ticks++;
			mad += a > p ? a - p : p - a;
		}
		if (r->step_open)
			step_check(r, t, a);
	}
	r->last_avg = last_avg;
	r->last_t = last_t;
	while (m < r->nmark)
		do_mark(r, &r->marks[m++]);
	if (e->spool_fd >= 0 && r->nupd)
		spool_chunk(e, r);
	r->updates += r->nupd;
	r->ticks += ticks;
	r->mad += mad;
	r->cap += cap;
	r->nmark = r->nupd = 0;
}

static inline void add_update(struct run *r, bool change, uint64_t t, uint64_t p)
{
	r->t[r->nupd] = t;
	r->p[r->nupd] = p;
	r->change[r->nupd] = change;
	r->nupd++;
}

static void add_mark(struct run *r, struct mark m)
{
	m.at = (uint32_t)r->nupd;
	r->marks[r->nmark++] = m;
}

static bool backend_matches(const struct tp_replay_backend *b, const char *name, int64_t decay)
{
	if (strcmp(b->ops->name, name))
		return false;
	if (!b->ops->decay_max_ms)
		return decay == 0 || decay == TP_NONE;
	return decay == (int64_t)b->decay_ms;
}

/* The ticks of r up to limit (at equal times the tick comes first), at pressure p. */
static void ticks_until(struct engine *e, struct run *r, uint64_t limit, uint64_t p)
{
	if (limit > e->end)
		limit = e->end;
	while (r->tick <= limit) {
		if (r->nupd >= CHUNK)
			flush(e, r);
		add_update(r, false, r->tick, p);
		r->tick += e->period;
	}
}

/* One row through every backend of its CPU. */
static void feed_row(struct engine *e, struct cpu_runs *c, const struct tp_trace_row *row)
{
	uint64_t np = (uint64_t)row->pressure, t = row->time_ns;

	/* the instantaneous pressure, integrated from the first tick to the end */
	if (t > c->int_last && t <= e->end) {
		c->p_int += (unsigned __int128)c->p * (t - c->int_last);
		c->int_last = t;
	}
	for (size_t bi = 0; bi < e->nb; bi++) {
		struct run *r = c->runs[bi];

		ticks_until(e, r, t, c->p);
		if (t < e->start)
			continue;	/* before the state starts: only the pressure matters */
		if (r->nmark >= CHUNK || r->nupd >= CHUNK)
			flush(e, r);
		if (np != c->p) {
			add_mark(r, (struct mark){ .kind = MK_STEP, .t = t, .p0 = (int64_t)c->p,
						   .p1 = (int64_t)np });
			if (r->on_change)
				add_update(r, true, t, np);
		}
		if (row->avg_pressure != TP_NONE) {
			if (!backend_matches(r->b, row->backend, row->decay_ms))
				add_mark(r, (struct mark){ .kind = MK_STOPCHECK });
			add_mark(r, (struct mark){ .kind = MK_CHECK, .t = t,
						   .p0 = row->avg_pressure });
		}
	}
	c->p = np;
}

static int cpu_start(struct engine *e, struct cpu_runs *c, int cpu, uint64_t p,
		     struct tp_error *err)
{
	c->runs = calloc(e->nb, sizeof(*c->runs));
	if (!c->runs)
		return tp_error_set(err, -ENOMEM, "out of memory for a replay");
	c->p = p;
	c->int_last = e->tick0;
	for (size_t bi = 0; bi < e->nb; bi++) {
		const struct tp_backend_ops *ops = e->b[bi].ops;
		size_t align = tp_backend_state_align(ops);
		size_t size = tp_backend_state_stride(ops);
		struct run *r = calloc(1, sizeof(*r));

		if (!r || posix_memalign(&r->state, align, size)) {
			free(r);
			return tp_error_set(err, -ENOMEM, "out of memory for %s state", ops->name);
		}
		c->runs[bi] = r;
		memset(r->state, 0, size);
		r->b = &e->b[bi];
		r->cpu = cpu;
		r->on_change = ops->flags & TP_BACKEND_UPDATE_ON_CHANGE;
		r->compare = e->compare[bi];
		r->tick = e->tick0;
		r->spool_first = r->spool_last = NO_BLOCK;
		ops->reset(r->state, r->b->decay_ms, e->start);
	}
	return 0;
}

static void cpu_finish(struct engine *e, struct cpu_runs *c)
{
	if (e->end > c->int_last)
		c->p_int += (unsigned __int128)c->p * (e->end - c->int_last);
	for (size_t bi = 0; bi < e->nb; bi++) {
		struct run *r = c->runs[bi];

		ticks_until(e, r, e->end, c->p);
		flush(e, r);
		if (r->any_update && e->end > r->last_t)
			r->cap += (unsigned __int128)r->last_avg * (e->end - r->last_t);
	}
}

/* The spooled points, backend by backend, CPU by CPU, to fn. */
static int drain(struct engine *e, tp_replay_fn fn, void *arg)
{
	for (size_t bi = 0; bi < e->nb; bi++)
		for (int cpu = 0; cpu < TP_MAX_CPUS; cpu++) {
			struct run *r = e->cpus[cpu].runs ? e->cpus[cpu].runs[bi] : NULL;
			uint64_t off = r ? r->spool_first : NO_BLOCK;

			while (off != NO_BLOCK) {
				struct spool_block blk;
				size_t bytes;

				if (pread(e->spool_fd, &blk, sizeof(blk), (off_t)off) !=
				    (ssize_t)sizeof(blk) || blk.n > CHUNK)
					return -EIO;
				bytes = blk.n * sizeof(struct spool_point);
				if (pread(e->spool_fd, e->buf, bytes, (off_t)(off + sizeof(blk))) !=
				    (ssize_t)bytes)
					return -EIO;
				for (uint32_t i = 0; i < blk.n; i++) {
					struct tp_replay_point pt = {
						.time_ns = e->buf[i].t, .cpu = cpu,
						.pressure = e->buf[i].p, .avg_pressure = e->buf[i].avg,
						.tick = e->buf[i].tick,
					};
					int rc = fn(arg, bi, &pt);

					if (rc)
						return rc;
				}
				off = blk.next;
			}
		}
	return 0;
}

/* Where the state starts: the trace says, else its earliest time first_ns. */
static uint64_t state_start(const struct tp_trace_meta *meta, uint64_t first_ns)
{
	return meta->state_start_ns != TP_NONE ? (uint64_t)meta->state_start_ns : first_ns;
}

/* The first tick: the trace's, else the state's start, rounded up to a tick. */
static uint64_t first_tick(const struct tp_trace_meta *meta, uint64_t first_ns, uint64_t period)
{
	uint64_t f = meta->first_tick_ns != TP_NONE ? (uint64_t)meta->first_tick_ns
						     : state_start(meta, first_ns);

	return (f + period - 1) / period * period;
}

/* The ticks from the first tick tick0 up to last_ns. */
static uint64_t ticks_to(uint64_t tick0, uint64_t period, uint64_t last_ns)
{
	return last_ns < tick0 ? 0 : (last_ns - tick0) / period + 1;
}

uint64_t tp_replay_ticks(const struct tp_trace_meta *meta, const struct tp_trace_span *span,
			 int hz)
{
	uint64_t period = 1000000000ull / (uint64_t)hz;

	return ticks_to(first_tick(meta, span->first_ns, period), period, span->last_ns);
}

void tp_trace_span_add(struct tp_trace_span *span, const struct tp_trace_row *row)
{
	if (!span->rows || row->time_ns < span->first_ns)
		span->first_ns = row->time_ns;
	if (!span->rows || row->time_ns > span->last_ns)
		span->last_ns = row->time_ns;
	span->rows++;
}

/* Where the state starts and the first tick, from the earliest time of the trace. */
static void set_start(struct engine *e, const struct tp_trace_meta *meta, uint64_t first_ns,
		      uint64_t last_ns)
{
	e->end = last_ns;
	e->start = state_start(meta, first_ns);
	e->tick0 = first_tick(meta, first_ns, e->period);
}

int tp_replay_hz(const struct tp_trace_meta *meta, int hz)
{
	return hz ? hz : meta->hz > 0 ? meta->hz : TP_HZ_DEFAULT;
}

/*
 * The one check of the tick limit: the ticks per CPU from the first tick tick0 to
 * last_ns.  With the whole span known, the message gives its length and ticks; while
 * the span is learned on the way (span NULL), how far the trace reached at least.
 */
static int check_ticks(uint64_t tick0, uint64_t period, int hz, uint64_t last_ns,
		       const struct tp_trace_span *span, struct tp_error *err)
{
	uint64_t nticks = ticks_to(tick0, period, last_ns);

	if (nticks <= TP_REPLAY_MAX_TICKS)
		return 0;
	if (!span)
		return tp_error_set(err, -E2BIG, "the trace spans at least %.3f s from its first "
				    "tick, more than the limit of %llu ticks per CPU at %d Hz",
				    (double)(last_ns - tick0) / 1e9,
				    (unsigned long long)TP_REPLAY_MAX_TICKS, hz);
	return tp_error_set(err, -E2BIG, "the trace spans %.3f s, %" PRIu64 " ticks per CPU at "
			    "%d Hz: more than the limit of %llu",
			    (double)(span->last_ns - span->first_ns) / 1e9, nticks, hz,
			    (unsigned long long)TP_REPLAY_MAX_TICKS);
}

/* The tick rate a replay runs at, and that the trace fits its limits; -errno with why. */
static int replay_hz(const struct tp_trace_meta *meta, const struct tp_trace_span *span,
		     size_t nb, const struct tp_replay_options *opts, int *out,
		     struct tp_error *err)
{
	uint64_t period;
	int hz;

	if (span && !span->rows)
		return tp_error_set(err, -ENODATA, "the trace has no samples to replay");
	if (nb > TP_REPLAY_MAX_BACKENDS)
		return tp_error_set(err, -EINVAL, "too many backends (at most %d)",
				    TP_REPLAY_MAX_BACKENDS);
	hz = tp_replay_hz(meta, opts ? opts->hz : 0);
	if (hz < 1 || hz > 100000)
		return tp_error_set(err, -EINVAL, "invalid tick rate %d Hz", hz);
	period = 1000000000ull / (uint64_t)hz;
	if (span && check_ticks(first_tick(meta, span->first_ns, period), period, hz,
				span->last_ns, span, err))
		return -E2BIG;
	*out = hz;
	return 0;
}

static struct engine *engine_new(const struct tp_trace_meta *meta,
				 const struct tp_trace_span *span, const struct tp_replay_backend *b,
				 size_t nb, int hz)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e || !(e->cpus = calloc(TP_MAX_CPUS, sizeof(*e->cpus)))) {
		free(e);
		return NULL;
	}
	e->b = b;
	e->nb = nb;
	e->period = 1000000000ull / (uint64_t)hz;
	if (span)
		set_start(e, meta, span->first_ns, span->last_ns);
	e->spool_fd = -1;
	for (size_t bi = 0; bi < nb; bi++)
		e->compare[bi] = meta->state_start_ns != TP_NONE && meta->first_tick_ns != TP_NONE &&
				 meta->hz == hz && backend_matches(&b[bi], meta->backend,
								    meta->decay_ms);
	return e;
}

static void engine_free(struct engine *e)
{
	if (!e)
		return;
	for (int cpu = 0; cpu < TP_MAX_CPUS; cpu++) {
		struct cpu_runs *c = &e->cpus[cpu];

		if (!c->runs)
			continue;
		for (size_t bi = 0; bi < e->nb; bi++)
			if (c->runs[bi]) {
				free(c->runs[bi]->state);
				free(c->runs[bi]);
			}
		free(c->runs);
	}
	free(e->cpus);
	free(e);
}

/* Without a span, the span is learned on the way: the state starts at the first row,
 * and a row earlier than it (unless the trace says when its state starts) needs the
 * span first.  0, or -errno. */
static int learn_span(struct engine *e, const struct tp_trace_meta *meta,
		      const struct tp_trace_row *row, size_t nrows, uint64_t *first, int hz,
		      struct tp_error *err)
{
	if (!nrows)
		set_start(e, meta, row->time_ns, row->time_ns);
	else if (row->time_ns < *first && meta->state_start_ns == TP_NONE)
		return tp_error_set(err, -EAGAIN, "a row is earlier than the first: "
				    "the span is needed first");
	if (row->time_ns < *first)
		*first = row->time_ns;
	if (row->time_ns > e->end)
		e->end = row->time_ns;
	return check_ticks(e->tick0, e->period, hz, row->time_ns, NULL, err);
}

/* Every row into the engine, then every CPU to the end; the pressure integral in *p_int. */
static int feed_all(struct engine *e, const struct tp_trace_meta *meta,
		    const struct tp_trace_span *span, tp_replay_next_fn next, void *src, int hz,
		    double *p_int, struct tp_error *err)
{
	struct tp_trace_row row;
	uint64_t first = 0;
	size_t nrows = 0;
	int rc;

	while ((rc = next(src, &row, err)) == 1) {
		struct cpu_runs *c = &e->cpus[row.cpu];

		if (!span && (rc = learn_span(e, meta, &row, nrows, &first, hz, err)) < 0)
			return rc;
		if (!nrows++)
			first = row.time_ns;
		if (!c->runs && (rc = cpu_start(e, c, row.cpu, (uint64_t)row.pressure, err)))
			return rc;
		feed_row(e, c, &row);
	}
	if (rc < 0)
		return rc;
	if (!nrows)
		return tp_error_set(err, -ENODATA, "the trace has no samples to replay");
	for (int cpu = 0; cpu < TP_MAX_CPUS; cpu++)
		if (e->cpus[cpu].runs) {
			cpu_finish(e, &e->cpus[cpu]);
			*p_int += (double)e->cpus[cpu].p_int;
		}
	if (e->io_error)
		return tp_error_set(err, -e->io_error, "cannot spool the replay's output: %s",
				    strerror(e->io_error));
	return 0;
}

/* Backend bi's summary, the CPUs in order: the first mismatch is that of the lowest CPU. */
static void summarize(const struct engine *e, size_t bi, double p_int,
		      struct tp_replay_summary *s)
{
	unsigned __int128 cap = 0;
	uint64_t t50 = 0, t90 = 0, mad = 0;

	memset(s, 0, sizeof(*s));
	s->exact = e->compare[bi] ? 1 : -1;
	s->mismatch_cpu = TP_NONE;
	s->pressure_s = p_int / 1e9;
	for (int cpu = 0; cpu < TP_MAX_CPUS; cpu++) {
		const struct run *r = e->cpus[cpu].runs ? e->cpus[cpu].runs[bi] : NULL;

		if (!r)
			continue;
		s->updates += r->updates;
		s->ticks += r->ticks;
		mad += r->mad;
		s->steps += r->steps;
		s->reached50 += r->reached50;
		s->reached90 += r->reached90;
		t50 += r->t50_ns;
		t90 += r->t90_ns;
		if ((double)r->t50_max_ns / 1e6 > s->t50_max_ms)
			s->t50_max_ms = (double)r->t50_max_ns / 1e6;
		if ((double)r->t90_max_ns / 1e6 > s->t90_max_ms)
			s->t90_max_ms = (double)r->t90_max_ns / 1e6;
		cap += r->cap;
		s->compared += r->compared;
		if (r->mismatch && s->exact == 1) {
			s->exact = 0;
			s->mismatch_time_ns = r->mm_time;
			s->mismatch_cpu = cpu;
			s->mismatch_recorded = r->mm_recorded;
			s->mismatch_replayed = r->mm_replayed;
		}
	}
	s->mad = s->ticks ? (double)mad / (double)s->ticks : 0;
	s->t50_ms = s->reached50 ? (double)t50 / 1e6 / (double)s->reached50 : 0;
	s->t90_ms = s->reached90 ? (double)t90 / 1e6 / (double)s->reached90 : 0;
	s->capacity_s_lost = (double)cap / 1e9;
	if (s->exact == 1 && !s->compared)
		s->exact = -1;
}

/* One replay over the rows (span NULL: learned on the way, or -EAGAIN). */
static int replay_once(const struct tp_trace_meta *meta, const struct tp_trace_span *span,
		       tp_replay_next_fn next, void *src, const struct tp_replay_backend *b,
		       size_t nb, const struct tp_replay_options *opts, tp_replay_fn fn,
		       void *arg, struct tp_replay_summary *sums, struct tp_error *err)
{
	struct engine *e;
	FILE *spool = NULL;
	double p_int = 0;
	int hz = 0, rc;

	rc = replay_hz(meta, span, nb, opts, &hz, err);
	if (rc < 0)
		return rc;
	e = engine_new(meta, span, b, nb, hz);
	if (!e)
		return tp_error_set(err, -ENOMEM, "out of memory for a replay");
	if (fn) {
		spool = tmpfile();
		if (!spool) {
			rc = tp_error_set(err, -errno, "cannot create a temporary file for the "
					  "replay's output: %s", strerror(errno));
			goto done;
		}
		e->spool_fd = fileno(spool);
	}
	rc = feed_all(e, meta, span, next, src, hz, &p_int, err);
	if (rc < 0)
		goto done;
	for (size_t bi = 0; bi < nb; bi++)
		summarize(e, bi, p_int, &sums[bi]);
	if (fn) {
		rc = drain(e, fn, arg);
		if (rc) {
			tp_error_set(err, rc < 0 ? rc : -EIO, "replay stopped: write error");
			if (rc > 0)
				rc = -EIO;
		}
	}
done:
	engine_free(e);
	if (spool)
		fclose(spool);
	return rc;
}

/* A pass over the rows for their span, with the source rewound before and after it. */
static int read_span(tp_replay_next_fn next, void *src, const struct tp_replay_options *opts,
		     struct tp_trace_span *span, struct tp_error *err)
{
	struct tp_trace_row row;
	int rc = opts->rewind(src, NULL, err);

	if (rc)
		return rc;
	memset(span, 0, sizeof(*span));
	while ((rc = next(src, &row, err)) == 1)
		tp_trace_span_add(span, &row);
	return rc < 0 ? rc : opts->rewind(src, span, err);
}

/*
 * The library decides between one pass and two: one when the span is given or can be
 * learned on the way; two (the span first) when the caller asks (opts->span_first) or
 * when a row earlier than the first needs the state to start before it.
 */
int tp_replay_stream(const struct tp_trace_meta *meta, const struct tp_trace_span *span,
		     tp_replay_next_fn next, void *src, const struct tp_replay_backend *b,
		     size_t nb, const struct tp_replay_options *opts, tp_replay_fn fn, void *arg,
		     struct tp_replay_summary *sums, struct tp_error *err)
{
	bool can_rewind = !span && opts && opts->rewind;
	struct tp_trace_span learned;
	int rc;

	if (can_rewind && opts->span_first) {
		if ((rc = read_span(next, src, opts, &learned, err)))
			return rc;
		span = &learned;
	}
	rc = replay_once(meta, span, next, src, b, nb, opts, fn, arg, sums, err);
	if (rc != -EAGAIN || !can_rewind || span)
		return rc;
	if ((rc = read_span(next, src, opts, &learned, err)))
		return rc;
	return replay_once(meta, &learned, next, src, b, nb, opts, fn, arg, sums, err);
}

struct trace_cursor {
	const struct tp_trace *trace;
	size_t i;
};

static int trace_next(void *arg, struct tp_trace_row *row, struct tp_error *err)
{
	struct trace_cursor *c = arg;

	(void)err;
	if (c->i == c->trace->nr_rows)
		return 0;
	*row = c->trace->rows[c->i++];
	return 1;
}

int tp_replay_run(const struct tp_trace *trace, const struct tp_replay_backend *b, size_t nb,
		  const struct tp_replay_options *opts, tp_replay_fn fn, void *arg,
		  struct tp_replay_summary *sums, struct tp_error *err)
{
	struct tp_trace_span span = { 0 };
	struct trace_cursor cur = { trace, 0 };

	for (size_t i = 0; i < trace->nr_rows; i++)
		tp_trace_span_add(&span, &trace->rows[i]);
	return tp_replay_stream(&trace->meta, &span, trace_next, &cur, b, nb, opts, fn, arg, sums,
				err);
}
