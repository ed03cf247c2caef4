/* SPDX-License-Identifier: MIT */
/*
 * The history plot of the selection: instantaneous and averaged pressure, one
 * column per sample, newest on the right, and the shadow curves of the other
 * backends (estimates, computed by model.c with their plugins).
 */
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "tui.h"

#define AXIS_W 6

static int row_of(int64_t v, int64_t scale, int rows)
{
	int64_t r;

	if (v > scale)
		v = scale;
	r = (v * (rows - 1) + scale / 2) / scale;
	return rows - 1 - (int)r;
}

static void title(struct canvas *cv, const struct model *m, int y)
{
	const struct tp_snapshot *s = &m->snap;
	char buf[256], pres[24], avg[24];
	int64_t p = TP_NONE, a = TP_NONE;
	bool estimated = false;

	if (m->len) {
		p = model_sel_pres(m, m->len - 1);
		a = model_sel_avg(m, m->len - 1);
	}
	if (m->sel_kind == SEL_CPU && (size_t)m->sel < s->nr_cpus) {
		const struct tp_cpu *c = &s->cpus[m->sel];
		const char *dom = c->domain >= 0 && (size_t)c->domain < s->nr_domains ?
			s->domains[c->domain].name : "";
		char cap[24], maxcap[24], mhz[64];

		snprintf(buf, sizeof(buf), "cpu %d%s%s%s%s: capacity %s of %s, %s MHz, pressure %s, avg %s",
			 c->cpu, dom[0] ? " (" : "", dom, dom[0] ? ")" : "",
			 c->online == 0 ? " offline" : "", fmt_value(cap, sizeof(cap), c->capacity),
			 fmt_value(maxcap, sizeof(maxcap), c->max_capacity),
			 fmt_mhz_pair(mhz, sizeof(mhz), c->capped_freq_khz, c->max_freq_khz),
			 fmt_value(pres, sizeof(pres), p),
			 fmt_estimated(avg, sizeof(avg), a, c->avg_estimated));
	} else if (m->sel_kind == SEL_DOMAIN && (size_t)m->sel < s->nr_domains) {
		struct tp_cpuset set;
		char cpus[96];

		model_sel_cpus(m, &set);
		tp_cpuset_format(&set, cpus, sizeof(cpus));
		/* the mean is an estimate as soon as one of its CPUs' averages is */
		for (size_t i = 0; i < s->nr_cpus; i++)
			if (tp_cpuset_has(&set, s->cpus[i].cpu) && s->cpus[i].avg_estimated)
				estimated = true;
		snprintf(buf, sizeof(buf), "cluster %s (cpus %s, mean): pressure %s, avg %s",
			 s->domains[m->sel].name, cpus, fmt_value(pres, sizeof(pres), p),
			 fmt_estimated(avg, sizeof(avg), a, estimated));
	} else {
		snprintf(buf, sizeof(buf), "nothing selected");
	}
	cv_put(cv, y, 0, R_HEADER, buf);
}

void plot_draw(struct canvas *cv, const struct model *m, const struct layout *l)
{
	int rows = l->plot_h - 2, y0 = l->plot_y + 1, width = cv->w - AXIS_W - 1;
	int64_t scale = 0;
	struct tp_cpuset set;
	char span[32], decay[32], leg[160];
	int x;

	if (rows < 2 || width < 4)
		return;
	title(cv, m, l->plot_y);
	/* the scale: the largest max capacity of the selection */
	model_sel_cpus(m, &set);
	for (size_t i = 0; i < m->snap.nr_cpus; i++)
		if (tp_cpuset_has(&set, m->snap.cpus[i].cpu) &&
		    m->snap.cpus[i].max_capacity > scale)
			scale = m->snap.cpus[i].max_capacity;
	if (scale <= 0)
		scale = 1024;
	cv_printf(cv, y0, 0, R_DIM, "%5lld", (long long)scale);
	cv_printf(cv, y0 + rows / 2, 0, R_DIM, "%5lld", (long long)(scale / 2));
	cv_printf(cv, y0 + rows - 1, 0, R_DIM, "%5d", 0);
	for (int r = 0; r < rows; r++)
		cv_put(cv, y0 + r, AXIS_W - 1, R_DIM, cv->g->utf8 ? "\u2502" : "|");

	for (int col = 0; col < width; col++) {
		long s = (long)m->len - width + col;
		size_t ring;
		int64_t p, a;

		if (s < 0)
			continue;
		ring = model_ring(m, (size_t)s);
		for (size_t k = 0; k < m->nsh; k++) {
			int32_t v = m->sh[k].out[ring];
			char gl[2] = { m->sh[k].ops->name[0], 0 };
			if (v >= 0)
				cv_put(cv, y0 + row_of(v, scale, rows), AXIS_W + col,
				       (enum role)(R_SHADOW0 + k), gl);
		}
		p = model_sel_pres(m, (size_t)s);
		a = model_sel_avg(m, (size_t)s);
		if (p >= 0)
			cv_put(cv, y0 + row_of(p, scale, rows), AXIS_W + col, R_P_INST, cv->g->p_inst);
		if (a >= 0)
			cv_put(cv, y0 + row_of(a, scale, rows), AXIS_W + col, R_P_AVG, cv->g->p_avg);
	}

	/* legend */
	x = 0;
	snprintf(leg, sizeof(leg), "%s pressure", cv->g->p_inst);
	cv_put(cv, y0 + rows, x, R_P_INST, leg);
	x += glyph_len(leg) + 2;
	if (m->snap.decay_ms > 0)
		snprintf(leg, sizeof(leg), "%s avg %s %s", cv->g->p_avg, m->snap.backend,
			 fmt_decay(decay, sizeof(decay), m->snap.decay_ms));
	else
		snprintf(leg, sizeof(leg), "%s avg %s", cv->g->p_avg, m->snap.backend);
	cv_put(cv, y0 + rows, x, R_P_AVG, leg);
	x += glyph_len(leg) + 2;
	for (size_t k = 0; k < m->nsh; k++) {
		/* a shadow curve is an estimate: marked as every estimate is */
		if (m->sh[k].avg.decay_ms)
			snprintf(leg, sizeof(leg), "%c %s%s %s", m->sh[k].ops->name[0], FMT_ESTIMATE,
				 m->sh[k].ops->name,
				 fmt_decay(decay, sizeof(decay), m->sh[k].avg.decay_ms));
		else
			snprintf(leg, sizeof(leg), "%c %s%s", m->sh[k].ops->name[0], FMT_ESTIMATE,
				 m->sh[k].ops->name);
		cv_put(cv, y0 + rows, x, (enum role)(R_SHADOW0 + k), leg);
		x += (int)strlen(leg) + 2;
	}
	if (m->len >= 2) {
		uint64_t first = m->t[model_ring(m, m->len > (size_t)width ? m->len - width : 0)];
		uint64_t last = m->t[model_ring(m, m->len - 1)];
		snprintf(leg, sizeof(leg), "%sshadow estimate  last %s", FMT_ESTIMATE,
			 fmt_span(span, sizeof(span), last - first));
	} else {
		snprintf(leg, sizeof(leg), "%sshadow estimate", FMT_ESTIMATE);
	}
	if (cv->w - (int)strlen(leg) > x)
		cv_put(cv, y0 + rows, cv->w - (int)strlen(leg), R_DIM, leg);
}
