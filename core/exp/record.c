// SPDX-License-Identifier: MIT
/*
 * Driving a source for experiments: restarting the averaging state, recording a
 * trace (sampling on a real clock, stepping tick by tick on a virtual one) and
 * playing a cap profile with every cap restored at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <thermpress/experiment.h>

#include "clock.h"

int tp_exp_restart_state(struct tp_source *src, uint64_t *start_ns, struct tp_error *err)
{
	struct tp_backend_info info[TP_MAX_BACKENDS];
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	const char *active = NULL, *other = NULL;
	size_t n = 0;
	int rc = tp_backend_list(src, info, TP_MAX_BACKENDS, &n, err);

	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (info[i].active)
			active = info[i].name;
		else if (!other)
			other = info[i].name;
	}
	if (!active || !other)
		return tp_error_set(err, -ENOTSUP,
				    "cannot restart the averaging state: the source offers no "
				    "second backend to switch through");
	rc = tp_backend_set(src, other, 0, err);
	if (rc)
		return rc;
	rc = tp_backend_set(src, active, 0, err);
	if (rc)
		return rc;
	rc = tp_snapshot_take(src, &snap, err);
	if (!rc)
		*start_ns = snap.time_ns;
	tp_snapshot_release(&snap);
	return rc;
}

/* ---- recording ------------------------------------------------------------------ */

struct tp_recorder {
	struct tp_source *src;
	struct tp_trace_writer *w;
	struct tp_snapshot snap;
	uint64_t interval, t_start, next_sample, now;
	int64_t *last_capped;
	size_t ncpus, samples;
	int64_t peak;		/* the highest pressure or average sampled, TP_NONE: none */
};

static int write_sample(struct tp_recorder *rec, struct tp_error *err)
{
	int rc = tp_trace_write_snapshot(rec->w, &rec->snap, err);

	if (!rc)
		rec->samples++;
	for (size_t i = 0; i < rec->snap.nr_cpus && i < rec->ncpus; i++)
		rec->last_capped[i] = rec->snap.cpus[i].capped_freq_khz;
	for (size_t i = 0; i < rec->snap.nr_cpus; i++) {
		const struct tp_cpu *c = &rec->snap.cpus[i];

		if (c->pressure != TP_NONE && c->pressure > rec->peak)
			rec->peak = c->pressure;
		if (c->avg_pressure != TP_NONE && c->avg_pressure > rec->peak)
			rec->peak = c->avg_pressure;
	}
	return rc;
}

int tp_recorder_open(struct tp_source *src, FILE *fp, const struct tp_record_options *opts,
		     struct tp_recorder **out, struct tp_error *err)
{
	struct tp_recorder *rec;
	struct tp_trace_meta meta;
	uint64_t start = 0;
	int rc;

	if (!opts->interval_ns)
		return tp_error_set(err, -EINVAL, "the sampling interval must be above 0");
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return tp_error_set(err, -ENOMEM, "out of memory for a recorder");
	rec->src = src;
	rec->peak = TP_NONE;
	tp_snapshot_init(&rec->snap);
	rec->interval = opts->interval_ns;
	tp_trace_meta_init(&meta);
	if (opts->restart_state) {
		rc = tp_exp_restart_state(src, &start, err);
		if (rc)
			goto fail;
	}
	rc = tp_snapshot_take(src, &rec->snap, err);
	if (rc)
		goto fail;
	meta.source_kind = tp_source_kind(src);
	snprintf(meta.source, sizeof(meta.source), "%s", tp_source_describe(src));
	snprintf(meta.backend, sizeof(meta.backend), "%s", rec->snap.backend);
	meta.decay_ms = rec->snap.decay_ms;
	meta.hz = rec->snap.hz;
	if (opts->restart_state) {
		meta.state_start_ns = (int64_t)start;
		/* the tick at the restart's time (if any) ran before it: the next one is first */
		if (rec->snap.hz > 0) {
			uint64_t period = 1000000000ull / (uint64_t)rec->snap.hz;

			meta.first_tick_ns = (int64_t)((start / period + 1) * period);
		}
	}
	rec->ncpus = rec->snap.nr_cpus;
	rec->last_capped = calloc(rec->ncpus ? rec->ncpus : 1, sizeof(*rec->last_capped));
	if (!rec->last_capped) {
		rc = tp_error_set(err, -ENOMEM, "out of memory for a recorder");
		goto fail;
	}
	rc = tp_trace_writer_open(fp, opts->format, &meta, &rec->w, err);
	if (rc)
		goto fail;
	rec->t_start = rec->now = rec->snap.time_ns;
	rec->next_sample = rec->t_start + rec->interval;
	rc = write_sample(rec, err);
	if (rc)
		goto fail;
	*out = rec;
	return 0;
fail:
	tp_recorder_close(rec, NULL);
	return rc;
}

int tp_recorder_sample(struct tp_recorder *rec, struct tp_error *err)
{
	int rc = tp_snapshot_take(rec->src, &rec->snap, err);

	if (rc)
		return rc;
	rec->now = rec->snap.time_ns;
	return write_sample(rec, err);
}

static bool caps_changed(const struct tp_recorder *rec)
{
	if (rec->snap.nr_cpus != rec->ncpus)
		return true;
	for (size_t i = 0; i < rec->ncpus; i++)
		if (rec->snap.cpus[i].capped_freq_khz != rec->last_capped[i])
			return true;
	return false;
}

int tp_recorder_advance(struct tp_recorder *rec, uint64_t ns, struct tp_error *err)
{
	uint64_t target = rec->now + ns;
	uint64_t period = rec->snap.hz > 0 ? 1000000000ull / (uint64_t)rec->snap.hz : 4000000;
	int rc;

	while (rec->now < target) {
		uint64_t next_tick = (rec->now / period + 1) * period, to = target;

		if (next_tick < to)
			to = next_tick;
		if (rec->next_sample < to)
			to = rec->next_sample;
		rc = tp_sim_advance(rec->src, to - rec->now, err);
		if (rc)
			return rc;
		rc = tp_snapshot_take(rec->src, &rec->snap, err);
		if (rc)
			return rc;
		rec->now = rec->snap.time_ns > to ? rec->snap.time_ns : to;
		if (rec->now >= rec->next_sample || caps_changed(rec)) {
			while (rec->next_sample <= rec->now)
				rec->next_sample += rec->interval;
			rc = write_sample(rec, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

uint64_t tp_recorder_elapsed_ns(const struct tp_recorder *rec)
{
	return rec->now - rec->t_start;
}

size_t tp_recorder_rows(const struct tp_recorder *rec)
{
	return rec->w ? tp_trace_writer_rows(rec->w) : 0;
}

int64_t tp_recorder_peak_pressure(const struct tp_recorder *rec)
{
	return rec->peak;
}

size_t tp_recorder_samples(const struct tp_recorder *rec)
{
	return rec->samples;
}

int tp_recorder_close(struct tp_recorder *rec, struct tp_error *err)
{
	int rc = 0;

	if (!rec)
		return 0;
	if (rec->w)
		rc = tp_trace_writer_close(rec->w, err);
	tp_snapshot_release(&rec->snap);
	free(rec->last_capped);
	free(rec);
	return rc;
}

/* ---- playing a profile ---------------------------------------------------------- */

static bool stopped(const struct tp_play_options *o)
{
	return o && o->stop && *o->stop;
}

/* Wait until the profile's time t (from begin); false when stopped first. */
static int wait_until(struct tp_source *src, const struct tp_play_options *o, uint64_t begin,
		      uint64_t *now, uint64_t t, struct tp_error *err)
{
	if (o && o->virtual_clock) {
		if (begin + t > *now) {
			int rc = tp_sim_advance(src, begin + t - *now, err);

			if (rc)
				return rc;
			*now = begin + t;
		}
		return 0;
	}
	for (;;) {
		uint64_t m = mono_ns(), left;
		struct timespec ts;

		if (stopped(o))
			return 0;
		if (m >= begin + t)
			return 0;
		left = begin + t - m;
		if (left > 50000000)
			left = 50000000;	/* look at the stop flag often */
		ts.tv_sec = (time_t)(left / 1000000000ull);
		ts.tv_nsec = (long)(left % 1000000000ull);
		nanosleep(&ts, NULL);
	}
}

int tp_profile_play(struct tp_source *src, const struct tp_profile *profile,
		    const struct tp_play_options *opts, struct tp_error *err)
{
	struct tp_snapshot now_snap = TP_SNAPSHOT_INIT;
	struct tp_limits *before = NULL;
	struct tp_cpuset touched;
	struct tp_error e = { 0 };
	uint64_t begin, now;
	bool ledger;
	int rc, rrc;

	/*
	 * The caps in force on every CPU the profile names are kept first and put back
	 * at the end exactly (an earlier cap set, a cooling state, an admin limit), not
	 * re-derived from a snapshot, which cannot tell how a cap was made.
	 */
	tp_cpuset_zero(&touched);
	for (size_t s = 0; s < profile->nr_steps; s++)
		for (int c = tp_cpuset_next(profile->steps[s].cpus, 0); c >= 0;
		     c = tp_cpuset_next(profile->steps[s].cpus, c + 1))
			tp_cpuset_add(&touched, c);
	rc = tp_snapshot_take(src, &now_snap, err);
	if (rc)
		return rc;
	begin = now = opts && opts->virtual_clock ? now_snap.time_ns : mono_ns();
	tp_snapshot_release(&now_snap);
	/* a holder where the source keeps a ledger: holds that end meanwhile leave its caps */
	rc = tp_hold_begin(src, err);
	ledger = rc == 0;
	if (rc == -ENOTSUP)
		rc = tp_limits_save(src, &touched, &before, err);
	if (rc)
		return rc;
	for (size_t s = 0; s < profile->nr_steps; s++) {
		const struct tp_profile_step *st = &profile->steps[s];

		rc = wait_until(src, opts, begin, &now, st->time_ns, &e);
		if (rc || stopped(opts))
			break;
		rc = st->clear ? tp_cap_clear(src, st->cpus, &e)
			       : tp_cap_set(src, st->cpus, &st->value, &e);
		if (rc) {
			tp_error_set(&e, rc, "line %u: %s", st->line, e.msg);
			break;
		}
		if (opts && opts->on_step)
			opts->on_step(opts->arg, st);
	}
	while (!rc && opts && opts->hold && !*opts->hold && !stopped(opts)) {
		struct timespec ts = { 0, 5000000 };

		nanosleep(&ts, NULL);
	}
	rrc = ledger ? tp_hold_end(src, NULL, err) : tp_limits_put_back(src, before, NULL, err);
	tp_limits_free(before);
	if (rrc < 0 || (rrc > 0 && !rc))
		return rrc;
	if (rc && err)
		*err = e;
	return rc;
}
