/* SPDX-License-Identifier: MIT */
/*
 * The history plot of the selection: instantaneous and averaged pressure, newest on
 * the right, in braille dots (two samples a column, four levels a row) on a UTF-8
 * terminal and one sample a column otherwise, and the shadow curves of the other
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

/* One sample per column, one glyph per curve (the drawing without UTF-8). */
static void cells(struct canvas *cv, const struct model *m, int y0, int rows, int width,
		  int64_t scale)
{
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
}

/* ---- braille: 2x4 dots a cell (U+2800 + dot bits) ------------------------------ */

#define BRAILLE_MAX_ROWS 32
#define BRAILLE_MAX_COLS 1024

/* The dot bits of a cell's left and right column, top to bottom. */
static const uint8_t dot_bit[2][4] = { { 0x01, 0x02, 0x04, 0x40 }, { 0x08, 0x10, 0x20, 0x80 } };

struct dots {
	uint8_t mask[BRAILLE_MAX_ROWS][BRAILLE_MAX_COLS];
	uint8_t prio[BRAILLE_MAX_ROWS][BRAILLE_MAX_COLS];	/* 0: empty */
	uint8_t role[BRAILLE_MAX_ROWS][BRAILLE_MAX_COLS];
};

/* Dots of one curve at sub-column sc, from the previous sample's dot row to this one's. */
static void dot_line(struct dots *d, int sc, int from, int to, enum role r, uint8_t prio)
{
	int lo = from < to ? from : to, hi = from < to ? to : from;

	if (from < 0)
		lo = hi = to;
	for (int dr = lo; dr <= hi; dr++) {
		int y = dr / 4, x = sc / 2;
		d->mask[y][x] |= dot_bit[sc % 2][dr % 4];
		if (prio > d->prio[y][x]) {
			d->prio[y][x] = prio;
			d->role[y][x] = (uint8_t)r;
		}
	}
}

static int dot_row(int64_t v, int64_t scale, int dots)
{
	return row_of(v, scale, dots);
}

/*
 * Two samples per column and four levels per row, as btop and bottom draw: a curve
 * is a line of dots, joined from one sample to the next.  Where curves share a cell
 * its dots are theirs together and its colour the first of: the average, the
 * pressure, the shadows in order.
 */
static void braille(struct canvas *cv, const struct model *m, int y0, int rows, int width,
		    int64_t scale)
{
	static struct dots d;	/* 64 KiB, not on the stack; no allocation per frame */
	int ndots, subcols;
	int prev_p = -1, prev_a = -1, prev_sh[MAX_SHADOWS];

	if (rows > BRAILLE_MAX_ROWS)
		rows = BRAILLE_MAX_ROWS;
	if (width > BRAILLE_MAX_COLS)
		width = BRAILLE_MAX_COLS;
	ndots = rows * 4;
	subcols = width * 2;
	for (int y = 0; y < rows; y++) {
		memset(d.mask[y], 0, (size_t)width);
		memset(d.prio[y], 0, (size_t)width);
	}
	for (size_t k = 0; k < MAX_SHADOWS; k++)
		prev_sh[k] = -1;
	for (int sc = 0; sc < subcols; sc++) {
		long s = (long)m->len - subcols + sc;
		size_t ring;
		int64_t p, a;

		if (s < 0)
			continue;
		ring = model_ring(m, (size_t)s);
		for (size_t k = 0; k < m->nsh; k++) {
			int32_t v = m->sh[k].out[ring];
			int r = v >= 0 ? dot_row(v, scale, ndots) : -1;
			if (r >= 0)
				dot_line(&d, sc, prev_sh[k], r, (enum role)(R_SHADOW0 + k),
					 (uint8_t)(MAX_SHADOWS - k));
			prev_sh[k] = r;
		}
		p = model_sel_pres(m, (size_t)s);
		a = model_sel_avg(m, (size_t)s);
		if (p >= 0) {
			int r = dot_row(p, scale, ndots);
			dot_line(&d, sc, prev_p, r, R_P_INST, MAX_SHADOWS + 1);
			prev_p = r;
		} else {
			prev_p = -1;
		}
		if (a >= 0) {
			int r = dot_row(a, scale, ndots);
			dot_line(&d, sc, prev_a, r, R_P_AVG, MAX_SHADOWS + 2);
			prev_a = r;
		} else {
			prev_a = -1;
		}
	}
	/* each row as runs of one role */
	for (int y = 0; y < rows; y++) {
		char buf[BRAILLE_MAX_COLS * 3 + 1];
		size_t n = 0;
		int x0 = 0;
		enum role r = R_NORMAL;

		for (int x = 0; x <= width; x++) {
			enum role rx = x < width && d.prio[y][x] ? (enum role)d.role[y][x] : R_NORMAL;

			if (x == width || (n && rx != r)) {
				buf[n] = '\0';
				if (n && r != R_NORMAL)
					cv_put(cv, y0 + y, AXIS_W + x0, r, buf);
				n = 0;
			}
			if (x == width)
				break;
			if (!n) {
				x0 = x;
				r = rx;
			}
			if (d.prio[y][x]) {
				uint32_t cp = 0x2800u + d.mask[y][x];
				buf[n++] = (char)(0xe0 | (cp >> 12));
				buf[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				buf[n++] = (char)(0x80 | (cp & 0x3f));
			} else {
				buf[n++] = ' ';
			}
		}
	}
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
		scale = TP_CAPACITY_SCALE;
	cv_printf(cv, y0, 0, R_DIM, "%5lld", (long long)scale);
	cv_printf(cv, y0 + rows / 2, 0, R_DIM, "%5lld", (long long)(scale / 2));
	cv_printf(cv, y0 + rows - 1, 0, R_DIM, "%5d", 0);
	for (int r = 0; r < rows; r++)
		cv_put(cv, y0 + r, AXIS_W - 1, R_DIM, cv->g->utf8 ? "\u2502" : "|");

	if (cv->g->utf8)
		braille(cv, m, y0, rows, width, scale);
	else
		cells(cv, m, y0, rows, width, scale);

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
		/* braille shows two samples a column */
		size_t shown = (size_t)width * (cv->g->utf8 ? 2 : 1);
		uint64_t first = m->t[model_ring(m, m->len > shown ? m->len - shown : 0)];
		uint64_t last = m->t[model_ring(m, m->len - 1)];
		snprintf(leg, sizeof(leg), "%sshadow estimate  last %s", FMT_ESTIMATE,
			 fmt_span(span, sizeof(span), last - first));
	} else {
		snprintf(leg, sizeof(leg), "%sshadow estimate", FMT_ESTIMATE);
	}
	if (cv->w - (int)strlen(leg) > x)
		cv_put(cv, y0 + rows, cv->w - (int)strlen(leg), R_DIM, leg);
}
