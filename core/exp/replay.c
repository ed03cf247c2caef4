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

#include <thermpress/experiment.h>

#define CHUNK 4096

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
		if (!ops)
			return tp_error_set(err, -EINVAL, "unknown backend '%.32s' in '%.100s'", tok,
					    list);
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
 * A chunk is a run of updates (ticks and updates on change) plus a short list of
 * marks (a step starts, a row to compare, comparing stops), each placed before the
 * update numbered `at`.  Ticks need no mark, so the common path stays a tight loop.
 */
enum mark_kind { MK_STEP, MK_CHECK, MK_STOPCHECK };

struct mark {
	uint32_t kind;
	uint32_t at;		/* processed before update number at of the chunk */
	size_t idx;		/* MK_CHECK: row index */
	uint64_t t;		/* MK_STEP: time of the change */
	int64_t p0, p1;		/* MK_STEP: pressure before and after */
};

struct run {
	const struct tp_trace *trace;
	const struct tp_replay_backend *b;
	size_t bi;
	struct tp_replay_summary *sum;
	tp_replay_fn fn;
	void *arg;
	void *state;
	int cpu;
	bool compare;
	/* one chunk */
	size_t nmark, nupd;
	struct mark marks[CHUNK * 3 + 8];
	uint64_t t[CHUNK], p[CHUNK], avg[CHUNK];
	uint8_t change[CHUNK];	/* 1: an update on change, 0: a tick */
	/* carried across chunks */
	uint64_t last_avg, last_t;
	bool any_update;
	bool step_open, got50, got90;
	uint64_t step_t;
	int64_t step_sign, th50, th90;
	double mad_sum, t50_sum, t90_sum;
	double cap_int;		/* capacity x ns */
};

static void reached(struct run *r, uint64_t t, double *sum, double *max, size_t *count)
{
	double ms = (double)(t - r->step_t) / 1e6;

	(*count)++;
	*sum += ms;
	if (ms > *max)
		*max = ms;
}

static void step_check(struct run *r, uint64_t t, uint64_t avg)
{
	/* thresholds precomputed at the step: s * avg >= th is "got there" */
	int64_t v = r->step_sign * (int64_t)avg;

	if (!r->got50 && v >= r->th50) {
		r->got50 = true;
		reached(r, t, &r->t50_sum, &r->sum->t50_max_ms, &r->sum->reached50);
	}
	if (!r->got90 && v >= r->th90) {
		r->got90 = true;
		reached(r, t, &r->t90_sum, &r->sum->t90_max_ms, &r->sum->reached90);
	}
	if (r->got50 && r->got90)
		r->step_open = false;
}

static void do_mark(struct run *r, const struct mark *m)
{
	switch (m->kind) {
	case MK_STEP:
		r->sum->steps++;
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
		const struct tp_trace_row *row = &r->trace->rows[m->idx];
		/* before its first update the state reads 0, as the simulator's */
		uint64_t have = r->any_update ? r->last_avg : 0;

		if (!r->compare)
			break;
		r->sum->compared++;
		if ((uint64_t)row->avg_pressure != have && r->sum->exact != 0) {
			r->sum->exact = 0;
			r->sum->mismatch_time_ns = row->time_ns;
			r->sum->mismatch_cpu = row->cpu;
			r->sum->mismatch_recorded = row->avg_pressure;
			r->sum->mismatch_replayed = (int64_t)have;
		}
		break;
	}
	}
}

static int flush(struct run *r)
{
	uint64_t mad = 0, ticks = 0, last_avg = r->last_avg, last_t = r->last_t;
	double cap = 0;
	size_t m = 0;
	int rc = 0;

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
			cap += (double)(last_avg * (t - last_t));
		r->any_update = true;
		last_avg = a;
		last_t = t;
		if (!r->change[u]) {
			ticks++;
			mad += a > p ? a - p : p - a;
		}
		if (r->step_open)
			step_check(r, t, a);
		if (r->fn && !rc) {
			struct tp_replay_point pt = {
				.time_ns = t, .cpu = r->cpu, .pressure = p,
				.avg_pressure = a, .tick = !r->change[u],
			};
			rc = r->fn(r->arg, r->bi, &pt);
		}
	}
	r->last_avg = last_avg;
	r->last_t = last_t;
	while (m < r->nmark)
		do_mark(r, &r->marks[m++]);
	r->sum->updates += r->nupd;
	r->sum->ticks += ticks;
	r->mad_sum += (double)mad;
	r->cap_int += cap;
	r->nmark = r->nupd = 0;
	return rc;
}

static void add_update(struct run *r, bool change, uint64_t t, uint64_t p)
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

/* One backend over the rows of one CPU (idx[0..m) in time order). */
static int replay_cpu(struct run *r, const size_t *idx, size_t m, uint64_t start,
		      uint64_t tick0, uint64_t period, uint64_t end)
{
	const struct tp_trace_row *rows = r->trace->rows;
	bool on_change = r->b->ops->flags & TP_BACKEND_UPDATE_ON_CHANGE;
	uint64_t p = (uint64_t)rows[idx[0]].pressure, tick = tick0;
	size_t j = 0;
	int rc;

	r->b->ops->reset(r->state, r->b->decay_ms, start);
	r->any_update = false;
	r->last_avg = r->last_t = 0;
	r->step_open = false;
	for (;;) {
		uint64_t rt = j < m ? rows[idx[j]].time_ns : UINT64_MAX;

		if (r->nmark >= CHUNK * 3 || r->nupd >= CHUNK) {
			rc = flush(r);
			if (rc)
				return rc;
		}
		/* at equal times the tick comes first: a change at t follows the tick at t */
		if (tick <= end && tick <= rt) {
			add_update(r, false, tick, p);
			tick += period;
			continue;
		}
		if (j == m)
			break;
		const struct tp_trace_row *row = &rows[idx[j++]];
		uint64_t np = (uint64_t)row->pressure;

		if (row->time_ns < start) {
			p = np;	/* before the state starts: only the pressure matters */
			continue;
		}
		if (np != p) {
			add_mark(r, (struct mark){ .kind = MK_STEP, .t = row->time_ns,
						   .p0 = (int64_t)p, .p1 = (int64_t)np });
			p = np;
			if (on_change)
				add_update(r, true, row->time_ns, p);
		}
		if (row->avg_pressure != TP_NONE) {
			if (!backend_matches(r->b, row->backend, row->decay_ms))
				add_mark(r, (struct mark){ .kind = MK_STOPCHECK });
			add_mark(r, (struct mark){ .kind = MK_CHECK, .idx = idx[j - 1] });
		}
	}
	rc = flush(r);
	if (r->any_update && end > r->last_t)
		r->cap_int += (double)r->last_avg * (double)(end - r->last_t);
	return rc;
}

/* The integral of the instantaneous pressure of one CPU over [from, end], capacity x ns. */
static double pressure_integral(const struct tp_trace_row *rows, const size_t *idx, size_t m,
				uint64_t from, uint64_t end)
{
	uint64_t cur = (uint64_t)rows[idx[0]].pressure, last = from;
	double sum = 0;

	for (size_t j = 0; j < m; j++) {
		uint64_t t = rows[idx[j]].time_ns;

		if (t > last && t <= end) {
			sum += (double)cur * (double)(t - last);
			last = t;
		}
		cur = (uint64_t)rows[idx[j]].pressure;
	}
	if (end > last)
		sum += (double)cur * (double)(end - last);
	return sum;
}

int tp_replay_run(const struct tp_trace *trace, const struct tp_replay_backend *b, size_t nb,
		  const struct tp_replay_options *opts, tp_replay_fn fn, void *arg,
		  struct tp_replay_summary *sums, struct tp_error *err)
{
	const struct tp_trace_meta *meta = &trace->meta;
	size_t *count = NULL, *first = NULL, *order = NULL;
	struct run *r = NULL;
	uint64_t period, start, tick0, end = 0, t_first = UINT64_MAX, f;
	double p_int = 0;
	int hz, rc = 0;

	if (!trace->nr_rows)
		return tp_error_set(err, -ENODATA, "the trace has no samples to replay");
	hz = opts && opts->hz ? opts->hz : meta->hz > 0 ? meta->hz : 250;
	if (hz < 1 || hz > 100000)
		return tp_error_set(err, -EINVAL, "invalid tick rate %d Hz", hz);
	period = 1000000000ull / (uint64_t)hz;
	for (size_t i = 0; i < trace->nr_rows; i++) {
		if (trace->rows[i].time_ns > end)
			end = trace->rows[i].time_ns;
		if (trace->rows[i].time_ns < t_first)
			t_first = trace->rows[i].time_ns;
	}
	start = meta->state_start_ns != TP_NONE ? (uint64_t)meta->state_start_ns : t_first;
	f = meta->first_tick_ns != TP_NONE ? (uint64_t)meta->first_tick_ns : start;
	tick0 = (f + period - 1) / period * period;

	/* rows grouped by CPU, in file order within a CPU (counting sort) */
	count = calloc(TP_MAX_CPUS + 1, sizeof(*count));
	first = calloc(TP_MAX_CPUS + 1, sizeof(*first));
	order = malloc(trace->nr_rows * sizeof(*order));
	r = calloc(1, sizeof(*r));
	if (!count || !first || !order || !r) {
		rc = tp_error_set(err, -ENOMEM, "out of memory for a replay");
		goto done;
	}
	for (size_t i = 0; i < trace->nr_rows; i++)
		count[trace->rows[i].cpu]++;
	for (size_t c = 1; c <= TP_MAX_CPUS; c++)
		first[c] = first[c - 1] + count[c - 1];
	{
		size_t *fill = calloc(TP_MAX_CPUS, sizeof(*fill));

		if (!fill) {
			rc = tp_error_set(err, -ENOMEM, "out of memory for a replay");
			goto done;
		}
		for (size_t i = 0; i < trace->nr_rows; i++) {
			int c = trace->rows[i].cpu;

			order[first[c] + fill[c]++] = i;
		}
		free(fill);
	}
	for (int c = 0; c < TP_MAX_CPUS; c++)
		if (count[c])
			p_int += pressure_integral(trace->rows, order + first[c], count[c], tick0, end);

	for (size_t bi = 0; bi < nb && !rc; bi++) {
		const struct tp_backend_ops *ops = b[bi].ops;
		size_t align = ops->state_align < sizeof(void *) ? sizeof(void *) : ops->state_align;
		size_t size = ops->state_size ? ops->state_size : 1;
		struct tp_replay_summary *s = &sums[bi];
		bool compare = meta->state_start_ns != TP_NONE && meta->first_tick_ns != TP_NONE &&
			       meta->hz == hz && backend_matches(&b[bi], meta->backend, meta->decay_ms);
		void *state;

		memset(s, 0, sizeof(*s));
		s->exact = compare ? 1 : -1;
		s->mismatch_cpu = TP_NONE;
		s->pressure_s = p_int / 1e9;
		if (posix_memalign(&state, align, (size + align - 1) / align * align)) {
			rc = tp_error_set(err, -ENOMEM, "out of memory for %s state", ops->name);
			break;
		}
		memset(state, 0, size);
		r->trace = trace;
		r->b = &b[bi];
		r->bi = bi;
		r->sum = s;
		r->fn = fn;
		r->arg = arg;
		r->state = state;
		r->mad_sum = r->t50_sum = r->t90_sum = r->cap_int = 0;
		r->nmark = r->nupd = 0;
		for (int c = 0; c < TP_MAX_CPUS && !rc; c++) {
			if (!count[c])
				continue;
			r->cpu = c;
			r->compare = compare;
			rc = replay_cpu(r, order + first[c], count[c], start, tick0, period, end);
		}
		free(state);
		if (rc && rc != -ENOMEM)
			tp_error_set(err, rc < 0 ? rc : -EIO, "replay stopped: write error");
		s->mad = s->ticks ? r->mad_sum / (double)s->ticks : 0;
		s->t50_ms = s->reached50 ? r->t50_sum / (double)s->reached50 : 0;
		s->t90_ms = s->reached90 ? r->t90_sum / (double)s->reached90 : 0;
		s->capacity_s_lost = r->cap_int / 1e9;
		if (s->exact == 1 && !s->compared)
			s->exact = -1;
	}
	if (rc > 0)
		rc = -EIO;
done:
	free(count);
	free(first);
	free(order);
	free(r);
	return rc;
}
