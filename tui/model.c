/* SPDX-License-Identifier: MIT */
/*
 * The model: the last snapshot, a history ring per CPU (instantaneous and averaged
 * pressure at each sample), and the shadow curves of the selection.
 *
 * Shadow curves are what the other backends would output on the same caps: the
 * selection's pressure timeline is replayed through their plugins (tp_avg_*), one
 * update per scheduler tick (at the source's hz), as the kernel's tick does, plus
 * the update at the change itself for backends that want it.  Between two samples
 * the pressure is taken to be the earlier one until the later sample's time (a
 * change made from this view is sampled at once, so its time is exact; a change
 * made elsewhere is seen up to one interval late).  Their state starts at zero at
 * the oldest sample of the history, so they are estimates, marked as such.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

#define MAX_TICKS_PER_GAP 200000u

size_t model_ring(const struct model *m, size_t s)
{
	return (m->head + HIST_LEN - m->len + s) % HIST_LEN;
}

bool model_shown(const struct model *m, int i)
{
	return !m->filter || tp_cpuset_has(m->filter, m->snap.cpus[i].cpu);
}

static bool in_sel(const struct model *m, int i)
{
	if (!model_shown(m, i))
		return false;
	if (m->sel_kind == SEL_CPU)
		return i == m->sel;
	return m->snap.cpus[i].domain == m->sel;
}

void model_sel_cpus(const struct model *m, struct tp_cpuset *out)
{
	tp_cpuset_zero(out);
	for (size_t i = 0; i < m->snap.nr_cpus; i++)
		if (in_sel(m, (int)i))
			tp_cpuset_add(out, m->snap.cpus[i].cpu);
}

/* The mean over the selection's CPUs that have the value; TP_NONE when none has. */
static int64_t sel_mean(const struct model *m, const int32_t *col)
{
	int64_t sum = 0, n = 0;

	if (m->sel_kind == SEL_CPU)
		return m->sel >= 0 && (size_t)m->sel < m->ncpus && col[m->sel] >= 0 ?
			col[m->sel] : TP_NONE;
	for (size_t i = 0; i < m->ncpus; i++) {
		if (in_sel(m, (int)i) && col[i] >= 0) {
			sum += col[i];
			n++;
		}
	}
	return n ? sum / n : TP_NONE;
}

int64_t model_sel_pres(const struct model *m, size_t s)
{
	return sel_mean(m, m->pres + model_ring(m, s) * m->ncpus);
}

int64_t model_sel_avg(const struct model *m, size_t s)
{
	return sel_mean(m, m->avg + model_ring(m, s) * m->ncpus);
}

/* ---- shadows ------------------------------------------------------------------ */

static uint32_t known_decay(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->nknown; i++)
		if (!strcmp(m->known_name[i], name))
			return m->known_decay[i];
	return 0;
}

static void remember_decay(struct model *m)
{
	const char *name = m->snap.backend;
	size_t i;

	if (!name[0] || m->snap.decay_ms <= 0)
		return;
	for (i = 0; i < m->nknown; i++)
		if (!strcmp(m->known_name[i], name))
			break;
	if (i == m->nknown) {
		if (m->nknown == TP_MAX_BACKENDS)
			return;
		m->nknown++;
		snprintf(m->known_name[i], TP_NAME_MAX, "%s", name);
	}
	m->known_decay[i] = (uint32_t)m->snap.decay_ms;
}

static void shadows_free(struct model *m)
{
	for (size_t k = 0; k < m->nsh; k++)
		tp_avg_fini(&m->sh[k].avg);
	m->nsh = 0;
	m->sh_started = false;
}

/* One update of every shadow; on_change: the pressure changed at now. */
static void shadows_update(struct model *m, uint64_t now, uint64_t p, bool tick, bool change)
{
	for (size_t k = 0; k < m->nsh; k++) {
		struct shadow *sh = &m->sh[k];
		if (tick || (change && (sh->ops->flags & TP_BACKEND_UPDATE_ON_CHANGE)))
			sh->last = tp_avg_update(&sh->avg, now, p);
	}
}

/* Feed the selection's pressure p, observed at t. */
static void shadows_feed(struct model *m, uint64_t t, int64_t p)
{
	uint64_t tick_ns = 1000000000ull / (uint64_t)(m->hz > 0 ? m->hz : TP_HZ_DEFAULT);
	uint64_t k, last_k, n;

	if (p < 0)
		return;
	if (!m->sh_started || t < m->sh_t) {
		for (size_t i = 0; i < m->nsh; i++) {
			tp_avg_reset(&m->sh[i].avg, t);
			m->sh[i].last = tp_avg_update(&m->sh[i].avg, t, (uint64_t)p);
		}
		m->sh_started = true;
		m->sh_t = t;
		m->sh_p = p;
		return;
	}
	/* ticks strictly between the two samples run on the earlier pressure */
	k = m->sh_t / tick_ns + 1;
	last_k = t / tick_ns;
	if (last_k * tick_ns == t)
		last_k--;
	if (last_k >= k) {
		n = last_k - k + 1;
		if (n > MAX_TICKS_PER_GAP)
			k = last_k - MAX_TICKS_PER_GAP + 1;
		for (; k <= last_k; k++)
			shadows_update(m, k * tick_ns, (uint64_t)m->sh_p, true, false);
	}
	shadows_update(m, t, (uint64_t)p, t % tick_ns == 0, p != m->sh_p);
	m->sh_t = t;
	m->sh_p = p;
}

/* Rebuild the shadows for the selection and the active backend from the history. */
static void shadows_rebuild(struct model *m)
{
	size_t n = m->plugins ? tp_plugins_count(m->plugins) : 0;

	shadows_free(m);
	snprintf(m->active, sizeof(m->active), "%s", m->snap.backend);
	for (size_t i = 0; i < n && m->nsh < MAX_SHADOWS; i++) {
		const struct tp_backend_ops *ops = tp_plugins_get(m->plugins, i);
		struct shadow *sh = &m->sh[m->nsh];

		if (!ops || !strcmp(ops->name, m->snap.backend))
			continue;
		if (tp_avg_init(&sh->avg, ops, known_decay(m, ops->name), 0, NULL) < 0 &&
		    tp_avg_init(&sh->avg, ops, 0, 0, NULL) < 0)
			continue;
		sh->ops = ops;
		m->nsh++;
	}
	for (size_t s = 0; s < m->len; s++) {
		size_t r = model_ring(m, s);
		int64_t p = model_sel_pres(m, s);

		shadows_feed(m, m->t[r], p);
		for (size_t k = 0; k < m->nsh; k++)
			m->sh[k].out[r] = p < 0 ? -1 : (int32_t)m->sh[k].last;
	}
}

void model_select(struct model *m, enum sel_kind kind, int index)
{
	if (kind == m->sel_kind && index == m->sel)
		return;
	m->sel_kind = kind;
	m->sel = index;
	shadows_rebuild(m);
}

/* ---- samples -------------------------------------------------------------------- */

static int32_t clamp32(int64_t v)
{
	if (v < 0)
		return -1;
	return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

int heat_level(const struct tp_cpu *c)
{
	int64_t q;

	if (c->online == 0 || c->avg_pressure <= 0 || c->max_capacity <= 0)
		return 0;
	q = c->avg_pressure * 4 / c->max_capacity;
	return q >= 3 ? 4 : (int)q + 1;
}

/* The domains' summaries, in one pass over the CPUs. */
static void summarize(struct model *m)
{
	const struct tp_snapshot *s = &m->snap;
	size_t nd = m->ndomains;

	for (size_t d = 0; d < nd; d++) {
		struct dom_summary *ds = &m->dsum[d];
		ds->shown = ds->capped = ds->ncap = ds->navg = 0;
		ds->cap_sum = ds->avg_sum = 0;
		ds->cap_min = TP_NONE;
		ds->avg_estimated = false;
	}
	for (size_t i = 0; i < s->nr_cpus && i < m->ncpus; i++) {
		const struct tp_cpu *c = &s->cpus[i];
		struct dom_summary *ds;

		if (c->domain < 0 || (size_t)c->domain >= nd || !model_shown(m, (int)i))
			continue;
		ds = &m->dsum[c->domain];
		ds->shown++;
		if (c->online == 0)
			continue;
		if (tp_cpu_capped(c) == 1)
			ds->capped++;
		if (c->capacity >= 0) {
			if (ds->cap_min == TP_NONE || c->capacity < ds->cap_min)
				ds->cap_min = c->capacity;
			ds->cap_sum += c->capacity;
			ds->ncap++;
		}
		if (c->avg_pressure >= 0) {
			ds->avg_sum += c->avg_pressure;
			ds->navg++;
			ds->avg_estimated |= c->avg_estimated;
		}
	}
	for (size_t d = 0; d < nd; d++) {
		struct dom_summary *ds = &m->dsum[d];
		ds->cap_mean = ds->ncap ? ds->cap_sum / ds->ncap : TP_NONE;
		ds->avg_mean = ds->navg ? ds->avg_sum / ds->navg : TP_NONE;
	}
}

/* The shown CPUs of each domain, as text (at a topology change). */
static void summarize_cpus(struct model *m)
{
	struct tp_cpuset set;

	for (size_t d = 0; d < m->ndomains; d++) {
		tp_cpuset_zero(&set);
		for (size_t i = 0; i < m->snap.nr_cpus; i++)
			if (m->snap.cpus[i].domain == (int)d && model_shown(m, (int)i))
				tp_cpuset_add(&set, m->snap.cpus[i].cpu);
		if (tp_cpuset_format(&set, m->dsum[d].cpus, sizeof(m->dsum[d].cpus)) >=
		    sizeof(m->dsum[d].cpus))
			snprintf(m->dsum[d].cpus, sizeof(m->dsum[d].cpus), "%d CPUs",
				 tp_cpuset_count(&set));
	}
}

static int reset_history(struct model *m)
{
	size_t n = m->snap.nr_cpus;

	if (n > m->hist_cap) {
		int32_t *p = realloc(m->pres, HIST_LEN * n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		m->pres = p;
		p = realloc(m->avg, HIST_LEN * n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		m->avg = p;
		m->hist_cap = n;
	}
	if (m->snap.nr_domains > m->dsum_cap) {
		struct dom_summary *ds = realloc(m->dsum, m->snap.nr_domains * sizeof(*ds));
		if (!ds)
			return -ENOMEM;
		m->dsum = ds;
		m->dsum_cap = m->snap.nr_domains;
	}
	m->gen++;
	m->ncpus = n;
	m->ndomains = m->snap.nr_domains;
	summarize_cpus(m);
	m->len = m->head = 0;
	/* keep the selection if it still exists */
	if (m->sel_kind == SEL_DOMAIN ? (size_t)m->sel >= m->ndomains : (size_t)m->sel >= n) {
		m->sel_kind = SEL_CPU;
		m->sel = 0;
	}
	return 0;
}

int model_sample(struct model *m, struct tp_source *src, bool column)
{
	struct tp_error err = { 0 };
	int rc = tp_snapshot_take(src, &m->snap, &err);
	size_t r;

	if (rc < 0) {
		m->snap_failed = true;
		snprintf(m->snap_err, sizeof(m->snap_err), "%s",
			 err.msg[0] ? err.msg : "cannot take a snapshot");
		return rc;
	}
	m->snap_failed = false;
	if (!m->have_snap || m->snap.nr_cpus != m->ncpus || m->snap.nr_domains != m->ndomains ||
	    (m->len && m->snap.time_ns < m->t[model_ring(m, m->len - 1)])) {
		/* a new topology, or the clock went back (the interface came back) */
		rc = reset_history(m);
		if (rc < 0) {
			m->snap_failed = true;
			snprintf(m->snap_err, sizeof(m->snap_err), "out of memory for the history");
			return rc;
		}
		m->have_snap = true;
		m->sh_started = false;
		m->active[0] = '\0';
		m->hz = m->snap.hz;
		column = true;
	}
	m->hz = m->snap.hz;
	summarize(m);
	remember_decay(m);
	if (strcmp(m->active, m->snap.backend))
		shadows_rebuild(m);
	if (column && !m->thermal_unsupported) {
		struct tp_error terr = { 0 };

		tp_thermal_release(&m->thermal);
		rc = tp_thermal_read(src, &m->thermal, &terr);
		if (rc == -ENOTSUP)
			m->thermal_unsupported = true;
		m->have_thermal = rc == 0 && (m->thermal.nr_zones || m->thermal.nr_cooling);
	}
	if (column) {
		r = m->head;
		m->t[r] = m->snap.time_ns;
		for (size_t i = 0; i < m->ncpus; i++) {
			const struct tp_cpu *c = &m->snap.cpus[i];
			bool on = c->online != 0;
			m->pres[r * m->ncpus + i] = on ? clamp32(c->pressure) : -1;
			m->avg[r * m->ncpus + i] = on ? clamp32(c->avg_pressure) : -1;
		}
		m->head = (m->head + 1) % HIST_LEN;
		if (m->len < HIST_LEN)
			m->len++;
		{
			int64_t p = model_sel_pres(m, m->len - 1);
			shadows_feed(m, m->snap.time_ns, p);
			for (size_t k = 0; k < m->nsh; k++)
				m->sh[k].out[r] = p < 0 ? -1 : (int32_t)m->sh[k].last;
		}
	} else {
		/* feed the shadows the pressure right after a change, at its time */
		int64_t sum = 0, n = 0, p;

		for (size_t i = 0; i < m->ncpus; i++) {
			const struct tp_cpu *c = &m->snap.cpus[i];
			if (in_sel(m, (int)i) && c->online != 0 && c->pressure >= 0) {
				sum += c->pressure;
				n++;
			}
		}
		p = n ? sum / n : TP_NONE;
		shadows_feed(m, m->snap.time_ns, p);
	}
	return 0;
}

size_t model_nr_cpufreq_cooling(const struct model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->thermal.nr_cooling; i++)
		n += m->thermal.cooling[i].domain != TP_NONE;
	return n;
}

int model_thermal_rows(const struct model *m)
{
	if (!m->have_thermal)
		return 0;
	return (m->thermal.nr_zones ? 1 : 0) + (model_nr_cpufreq_cooling(m) ? 1 : 0);
}

int model_init(struct model *m, struct tp_source *src, const struct tp_cpuset *filter)
{
	memset(m, 0, sizeof(*m));
	tp_snapshot_init(&m->snap);
	m->filter = filter;
	m->plugins = tp_source_plugins(src);
	return 0;
}

void model_fini(struct model *m)
{
	shadows_free(m);
	free(m->pres);
	free(m->avg);
	free(m->dsum);
	tp_snapshot_release(&m->snap);
	tp_thermal_release(&m->thermal);
	memset(m, 0, sizeof(*m));
}
