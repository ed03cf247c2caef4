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
	char pres[24], avg[24];
	int64_t p = TP_NONE, a = TP_NONE;
	bool estimated = false;
	struct field f[MAX_FIELDS];
	int n = 0;

	if (m->len) {
		p = model_sel_pres(m, m->len - 1);
		a = model_sel_avg(m, m->len - 1);
	}
	/* whole fields: the name, then pressure and avg, kept longest */
	if (m->sel_kind == SEL_CPU && (size_t)m->sel < s->nr_cpus) {
		const struct tp_cpu *c = &s->cpus[m->sel];
		const struct tp_domain *d = tp_snapshot_domain(s, c);
		const char *dom = d ? d->name : "";
		char cap[24], maxcap[24], mhz[64];

		field_add(f, &n, R_HEADER, 10, false, "cpu %d%s%s%s%s:", c->cpu, dom[0] ? " (" : "",
			  dom, dom[0] ? ")" : "", c->online == 0 ? " offline" : "");
		field_add(f, &n, R_HEADER, 6, false, " capacity %s of %s,",
			  fmt_value(cap, sizeof(cap), c->capacity),
			  fmt_value(maxcap, sizeof(maxcap), c->max_capacity));
		field_add(f, &n, R_HEADER, 5, false, " %s MHz,",
			  fmt_mhz_pair(mhz, sizeof(mhz), c->capped_freq_khz, c->max_freq_khz));
		field_add(f, &n, R_HEADER, 8, false, " pressure %s,", fmt_value(pres, sizeof(pres), p));
		field_add(f, &n, R_HEADER, 9, false, " avg %s",
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
		field_add(f, &n, R_HEADER, 10, false, "cluster %s", s->domains[m->sel].name);
		field_add(f, &n, R_HEADER, 6, false, " (cpus %s, mean)", cpus);
		field_add(f, &n, R_HEADER, 10, false, ":");
		field_add(f, &n, R_HEADER, 8, false, " pressure %s,", fmt_value(pres, sizeof(pres), p));
		field_add(f, &n, R_HEADER, 9, false, " avg %s",
			  fmt_estimated(avg, sizeof(avg), a, estimated));
	} else {
		field_add(f, &n, R_HEADER, 10, false, "nothing selected");
	}
	cv_fields(cv, y, 0, cv->w - 1, f, n);
}

/*
 * The selection's pressure and average at each shown sample, computed once a frame (a
 * cluster's mean sums all its CPUs: the scale, and the curves, read them from here).
 */
static int64_t sel_p[HIST_LEN], sel_a[HIST_LEN];

static void sel_values(const struct model *m, size_t shown)
{
	for (size_t s = m->len > shown ? m->len - shown : 0; s < m->len; s++) {
		sel_p[s] = model_sel_pres(m, s);
		sel_a[s] = model_sel_avg(m, s);
	}
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
		p = sel_p[s];
		a = sel_a[s];
		if (p >= 0)
			cv_put(cv, y0 + row_of(p, scale, rows), AXIS_W + col, R_P_INST, cv->g->p_inst);
		if (a >= 0)
			cv_put(cv, y0 + row_of(a, scale, rows), AXIS_W + col, R_P_AVG, cv->g->p_avg);
	}
}

/* ---- braille: 2x4 dots a cell (U+2800 + dot bits) ------------------------------ */

#define BRAILLE_MAX_ROWS 128
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

/*
 * Where a curve's dots start at a sample at dot row r: joined from the previous sample's row
 * unless the curve turns back there (it went up to prev and comes down, or the reverse), so
 * that a value alternating at every sample is drawn as its two levels, not as a solid slab
 * between them; steps, ramps and a spike's rise stay joined.  -1: not joined.
 */
static int join_from(int prev2, int prev, int r)
{
	if (prev < 0)
		return -1;
	if (prev2 >= 0 && ((prev < prev2 && r > prev) || (prev > prev2 && r < prev)))
		return -1;
	return prev;
}

/* A curve's dot rows at the last two samples, to join the next one to (-1: none). */
struct curve_prev {
	int prev, prev2;
};

/* One sample of a curve at sub-column sc: its dots, joined from the previous ones. */
static void curve_dots(struct dots *d, struct curve_prev *cp, int sc, int64_t v, int64_t scale,
		       int ndots, enum role r, uint8_t prio)
{
	int row = v >= 0 ? row_of(v, scale, ndots) : -1;

	if (row >= 0)
		dot_line(d, sc, join_from(cp->prev2, cp->prev, row), row, r, prio);
	cp->prev2 = row >= 0 ? cp->prev : -1;
	cp->prev = row;
}

/*
 * The dots of every curve over width cells, two samples a cell.  Where curves share a
 * cell, its colour is the first of: the average, the pressure, the shadows in order.
 */
static void braille_dots(struct dots *d, const struct model *m, int rows, int width,
			 int64_t scale)
{
	int ndots = rows * 4, subcols = width * 2;
	struct curve_prev p = { -1, -1 }, a = { -1, -1 }, sh[MAX_SHADOWS];

	for (int y = 0; y < rows; y++) {
		memset(d->mask[y], 0, (size_t)width);
		memset(d->prio[y], 0, (size_t)width);
	}
	for (size_t k = 0; k < MAX_SHADOWS; k++)
		sh[k].prev = sh[k].prev2 = -1;
	for (int sc = 0; sc < subcols; sc++) {
		long s = (long)m->len - subcols + sc;
		size_t ring;

		if (s < 0)
			continue;
		ring = model_ring(m, (size_t)s);
		for (size_t k = 0; k < m->nsh; k++)
			curve_dots(d, &sh[k], sc, m->sh[k].out[ring], scale, ndots,
				   (enum role)(R_SHADOW0 + k), (uint8_t)(MAX_SHADOWS - k));
		curve_dots(d, &p, sc, sel_p[s], scale, ndots, R_P_INST, MAX_SHADOWS + 1);
		curve_dots(d, &a, sc, sel_a[s], scale, ndots, R_P_AVG, MAX_SHADOWS + 2);
	}
}

/* Row y of the dots onto the canvas, as runs of one role (an empty cell is left as it is). */
static void braille_row(struct canvas *cv, const struct dots *d, int y, int cy, int width)
{
	char buf[BRAILLE_MAX_COLS * 3 + 1];
	size_t n = 0;
	int x0 = 0;
	enum role r = R_NORMAL;

	for (int x = 0; x <= width; x++) {
		enum role rx = x < width && d->prio[y][x] ? (enum role)d->role[y][x] : R_NORMAL;

		if (x == width || (n && rx != r)) {
			buf[n] = '\0';
			if (n && r != R_NORMAL)
				cv_put(cv, cy, AXIS_W + x0, r, buf);
			n = 0;
		}
		if (x == width)
			break;
		if (!n) {
			x0 = x;
			r = rx;
		}
		if (d->prio[y][x]) {
			uint32_t cp = 0x2800u + d->mask[y][x];
			buf[n++] = (char)(0xe0 | (cp >> 12));
			buf[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			buf[n++] = (char)(0x80 | (cp & 0x3f));
		} else {
			buf[n++] = ' ';
		}
	}
}

/*
 * Two samples per column and four levels per row, as btop and bottom draw: a curve
 * is a line of dots, joined from one sample to the next.
 */
static void braille_draw(struct canvas *cv, const struct model *m, int y0, int rows, int width,
		    int64_t scale)
{
	static struct dots d;	/* 64 KiB, not on the stack; no allocation per frame */

	if (rows > BRAILLE_MAX_ROWS)
		rows = BRAILLE_MAX_ROWS;
	if (width > BRAILLE_MAX_COLS)
		width = BRAILLE_MAX_COLS;
	braille_dots(&d, m, rows, width, scale);
	for (int y = 0; y < rows; y++)
		braille_row(cv, &d, y, y0 + y, width);
}

/* The largest value any curve shows in the last `shown` samples (-1: none). */
static int64_t shown_max(const struct model *m, size_t shown)
{
	int64_t top = -1;

	for (size_t s = m->len > shown ? m->len - shown : 0; s < m->len; s++) {
		size_t ring = model_ring(m, s);
		int64_t p = sel_p[s], a = sel_a[s];

		if (p > top)
			top = p;
		if (a > top)
			top = a;
		for (size_t k = 0; k < m->nsh; k++)
			if (m->sh[k].out[ring] > top)
				top = m->sh[k].out[ring];
	}
	return top;
}

/* The least round number (1, 2, 2.5, 4, 5, 6, 8 times a power of ten, at least 8) >= v. */
static int64_t round_up(int64_t v)
{
	static const int mult[] = { 10, 20, 25, 40, 50, 60, 80 };

	if (v < 8)
		return 8;
	for (int64_t pow = 1;; pow *= 10)
		for (size_t i = 0; i < sizeof(mult) / sizeof(mult[0]); i++)
			if (mult[i] * pow / 10 >= v && mult[i] * pow % 10 == 0)
				return mult[i] * pow / 10;
}

/* The sample a plot column shows (its right half in braille); -1: none yet. */
static long col_sample(const struct model *m, int col, int width, bool braille)
{
	return braille ? (long)m->len - 2L * width + 2L * col + 1 : (long)m->len - width + col;
}

/*
 * The time axis under the graph: a line with a tick every round step before the newest
 * sample ("-10 s"), placed by the samples' own times; ticks at least 12 columns apart.
 */
static void time_axis(struct canvas *cv, const struct model *m, int y, int width, bool braille)
{
	static const uint64_t steps[] = {
		100000000ull, 200000000ull, 500000000ull, 1000000000ull, 2000000000ull,
		5000000000ull, 10000000000ull, 15000000000ull, 30000000000ull, 60000000000ull,
		120000000000ull, 300000000000ull, 600000000000ull, 900000000000ull,
		1800000000000ull, 3600000000000ull,
	};
	const char *tick = cv->g->utf8 ? "\u2534" : "+";
	uint64_t last, span, step = 0, next;
	int first = -1;
	char lab[32], sp[32];

	cv_put(cv, y, AXIS_W - 1, R_DIM, cv->g->utf8 ? "\u2514" : "+");
	for (int col = 0; col < width; col++)
		cv_put(cv, y, AXIS_W + col, R_DIM, cv->g->hline);
	if (m->len < 2)
		return;
	for (int col = 0; col < width && first < 0; col++)
		if (col_sample(m, col, width, braille) >= 0)
			first = col;
	if (first < 0 || first >= width - 1)
		return;
	last = m->t[model_ring(m, m->len - 1)];
	span = last - m->t[model_ring(m, (size_t)col_sample(m, first, width, braille))];
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && !step; i++)
		if (steps[i] * (uint64_t)(width - 1 - first) >= 12 * span)
			step = steps[i];
	if (!step)
		step = steps[sizeof(steps) / sizeof(steps[0]) - 1];
	/* right to left: a tick at the first column at least the next step old */
	next = step;
	for (int col = width - 1; col >= first; col--) {
		long s = col_sample(m, col, width, braille);
		uint64_t t, age;
		int len, x;

		if (s < 0 || (size_t)s >= m->len)
			continue;
		t = m->t[model_ring(m, (size_t)s)];
		age = last > t ? last - t : 0;
		if (age < next)
			continue;
		while (next <= age)
			next += step;
		snprintf(lab, sizeof(lab), "-%s", fmt_span(sp, sizeof(sp), (next - step)));
		len = glyph_len(lab);
		x = AXIS_W + col;
		cv_put(cv, y, x, R_DIM, tick);
		if (x - len >= AXIS_W)
			cv_put(cv, y, x - len, R_DIM, lab);
	}
}

/*
 * The value at the top of the y axis: the full scale (the largest max capacity of the
 * selection, key y), or fitted, the least round number over what the curves show.
 */
static int64_t plot_scale(const struct model *m, const struct layout *l, size_t shown)
{
	int64_t full = 0, scale;
	struct tp_cpuset set;

	model_sel_cpus(m, &set);
	for (size_t i = 0; i < m->snap.nr_cpus; i++)
		if (tp_cpuset_has(&set, m->snap.cpus[i].cpu) &&
		    m->snap.cpus[i].max_capacity > full)
			full = m->snap.cpus[i].max_capacity;
	if (full <= 0)
		full = TP_CAPACITY_SCALE;
	if (l->y_full)
		return TP_CAPACITY_SCALE;
	scale = round_up(shown_max(m, shown));
	return scale > full ? full : scale;
}

/* The y axis: its values at quarters (halves on a short plot) and its line. */
static void y_axis(struct canvas *cv, int y0, int rows, int64_t scale)
{
	int last_y = -2;
	int marks = rows >= 12 ? 4 : 2;

	for (int q = marks; q >= 0; q--) {
		int64_t v = scale * q / marks;
		int y = y0 + row_of(v, scale, rows);

		if (y == last_y)
			continue;
		cv_printf(cv, y, 0, R_DIM, "%5lld", (long long)v);
		last_y = y;
	}
	for (int r = 0; r < rows; r++)
		cv_put(cv, y0 + r, AXIS_W - 1, R_DIM, cv->g->utf8 ? "\u2502" : "|");
}

/* The legend under the time axis: whole fields, the curves' keys kept longest. */
static void legend(struct canvas *cv, const struct model *m, const struct layout *l, int y,
		   size_t shown)
{
	char span[32], decay[32];
	struct field f[MAX_FIELDS];
	int n = 0;

	field_add(f, &n, R_P_INST, 10, false, "%s pressure", cv->g->p_inst);
	if (m->snap.decay_ms > 0)
		field_add(f, &n, R_P_AVG, 10, false, "  %s avg %s %s", cv->g->p_avg, m->snap.backend,
			  fmt_decay(decay, sizeof(decay), m->snap.decay_ms));
	else
		field_add(f, &n, R_P_AVG, 10, false, "  %s avg %s", cv->g->p_avg, m->snap.backend);
	for (size_t k = 0; k < m->nsh; k++) {
		/* a shadow curve is an estimate: marked as every estimate is */
		enum role r = (enum role)(R_SHADOW0 + k);
		if (m->sh[k].avg.decay_ms)
			field_add(f, &n, r, 9 - (int)k, false, "  %c %s%s %s", m->sh[k].ops->name[0],
				  FMT_ESTIMATE, m->sh[k].ops->name,
				  fmt_decay(decay, sizeof(decay), m->sh[k].avg.decay_ms));
		else
			field_add(f, &n, r, 9 - (int)k, false, "  %c %s%s", m->sh[k].ops->name[0],
				  FMT_ESTIMATE, m->sh[k].ops->name);
	}
	/* the y axis: fitted to the curves, or the full scale (key y) */
	field_add(f, &n, R_DIM, 7, false, l->y_full ? "  y: full" : "  y: fit");
	if (m->len >= 2) {
		uint64_t first = m->t[model_ring(m, m->len > shown ? m->len - shown : 0)];
		uint64_t last = m->t[model_ring(m, m->len - 1)];
		field_add(f, &n, R_DIM, 3, true, "%sshadow estimate  last %s", FMT_ESTIMATE,
			  fmt_span(span, sizeof(span), last - first));
	} else {
		field_add(f, &n, R_DIM, 3, true, "%sshadow estimate", FMT_ESTIMATE);
	}
	cv_fields(cv, y, 0, cv->w - 1, f, n);
}

void plot_draw(struct canvas *cv, const struct model *m, const struct layout *l)
{
	int rows = l->plot_h - 3, y0 = l->plot_y + 1, width = cv->w - AXIS_W - 1;
	bool braille = cv->g->utf8;
	/* braille shows two samples a column */
	size_t shown = (size_t)width * (braille ? 2 : 1);
	int64_t scale;

	if (rows < 2 || width < 4)
		return;
	title(cv, m, l->plot_y);
	sel_values(m, shown);
	scale = plot_scale(m, l, shown);
	y_axis(cv, y0, rows, scale);
	if (braille)
		braille_draw(cv, m, y0, rows, width, scale);
	else
		cells(cv, m, y0, rows, width, scale);
	time_axis(cv, m, y0 + rows, width, braille);
	legend(cv, m, l, y0 + rows + 1, shown);
}
