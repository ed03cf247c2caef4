/* SPDX-License-Identifier: MIT */
/*
 * The layout: which rows show what.  Items are domain header rows (when some domain
 * has more than one CPU shown) followed by their CPUs.  When the items do not fit,
 * compact mode packs CPUs into cells (256 CPUs fit a 50-line terminal); when even those
 * do not fit, the heatmap gives each CPU one column (4096 CPUs fit 120x50), and the list
 * scrolls to keep the selection visible.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "grow.h"

#define COMPACT_BAR 6

static int push(struct layout *l, enum sel_kind kind, int index)
{
	if (l->nitems == l->alloc) {
		size_t n = array_capacity(l->alloc, l->nitems + 1, 64);
		struct item *it = realloc(l->items, n * sizeof(*it));
		int *line, *col;

		if (!it)
			return -ENOMEM;
		l->items = it;
		line = realloc(l->line, n * sizeof(*line));
		if (!line)
			return -ENOMEM;
		l->line = line;
		col = realloc(l->col, n * sizeof(*col));
		if (!col)
			return -ENOMEM;
		l->col = col;
		l->alloc = n;
	}
	l->items[l->nitems].kind = kind;
	l->items[l->nitems].index = index;
	l->nitems++;
	return 0;
}

static int digits(const struct layout *l, const struct model *m)
{
	int maxcpu = 0, d = 1;

	for (size_t k = 0; k < l->nitems; k++)
		if (l->items[k].kind == SEL_CPU && m->snap.cpus[l->items[k].index].cpu > maxcpu)
			maxcpu = m->snap.cpus[l->items[k].index].cpu;
	while (maxcpu >= 10) {
		maxcpu /= 10;
		d++;
	}
	return d;
}

/* Rebuild the items after a topology change; keeps the selection when it still exists. */
int layout_items(struct layout *l, const struct model *m)
{
	const struct tp_snapshot *s = &m->snap;
	struct item old = { SEL_CPU, -1 };
	int rc = 0;

	if (l->cur < l->nitems)
		old = l->items[l->cur];
	l->nitems = 0;
	l->grouped = false;
	for (size_t d = 0; d < s->nr_domains; d++) {
		int n = 0;
		for (size_t i = 0; i < s->nr_cpus; i++)
			if (s->cpus[i].domain == (int)d && model_shown(m, (int)i))
				n++;
		if (n > 1)
			l->grouped = true;
	}
	if (l->grouped) {
		for (size_t d = 0; d < s->nr_domains && !rc; d++) {
			bool any = false;
			for (size_t i = 0; i < s->nr_cpus && !rc; i++) {
				if (s->cpus[i].domain != (int)d || !model_shown(m, (int)i))
					continue;
				if (!any)
					rc = push(l, SEL_DOMAIN, (int)d);
				any = true;
				if (!rc)
					rc = push(l, SEL_CPU, (int)i);
			}
		}
		for (size_t i = 0; i < s->nr_cpus && !rc; i++)
			if ((s->cpus[i].domain < 0 || (size_t)s->cpus[i].domain >= s->nr_domains) &&
			    model_shown(m, (int)i))
				rc = push(l, SEL_CPU, (int)i);
	} else {
		for (size_t i = 0; i < s->nr_cpus && !rc; i++)
			if (model_shown(m, (int)i))
				rc = push(l, SEL_CPU, (int)i);
	}
	l->cell_digits = digits(l, m);
	l->cur = 0;
	for (size_t k = 0; k < l->nitems; k++)
		if (l->items[k].kind == old.kind && l->items[k].index == old.index)
			l->cur = k;
	/* start on the first item: the first domain when there are domain rows */
	return rc;
}

static void place_compact(struct layout *l, int cols)
{
	int line = -1, col = 0;

	l->cols = cols;
	if (l->cols < 1)
		l->cols = 1;
	for (size_t k = 0; k < l->nitems; k++) {
		if (l->items[k].kind == SEL_DOMAIN) {
			line++;
			l->line[k] = line;
			l->col[k] = 0;
			col = l->cols;	/* the next CPU starts a new line */
			continue;
		}
		if (line < 0 || col >= l->cols) {
			line++;
			col = 0;
		}
		l->line[k] = line;
		l->col[k] = col++;
	}
	l->nlines = line + 1;
}

/* The plot's least rows: a title, 3 graph rows, the time axis and the legend. */
#define PLOT_MIN 6

void layout_fit(struct layout *l, int w, int h, bool once)
{
	const int header = 3 + l->thermal_rows;
	int avail = h - 1 - header;	/* the list's and the plot's rows */
	int plot_min = h >= 16 && avail >= PLOT_MIN + 2 ? PLOT_MIN : 0;

	l->compact = l->heatmap = false;
	l->heat_prefix = 0;
	/* the wide bar takes every column the numbers leave (capped at 64 in --once) */
	l->bar_w = w - 6 - columns_top_width() - 1;
	if (once && l->bar_w > 64)
		l->bar_w = 64;
	if (l->bar_w < 8)
		l->bar_w = 8;
	for (size_t k = 0; k < l->nitems; k++) {
		l->line[k] = (int)k;
		l->col[k] = 0;
	}
	l->nlines = (int)l->nitems;
	l->list_y = header;
	l->top = once ? 0 : l->top;
	if (once) {
		l->list_h = l->nlines;
		l->plot_y = l->plot_h = 0;
		l->status_y = header + l->nlines;
		return;
	}
	l->status_y = h - 1;
	if (l->nlines + plot_min > avail) {
		/* compact cells, as many a line as fit; their bars share the spare columns */
		int used = 0;

		l->compact = true;
		l->cell_w = l->cell_digits + 1 + COMPACT_BAR + 1;
		place_compact(l, (w - 1) / l->cell_w);
		for (size_t k = 0; k < l->nitems; k++)
			if (l->items[k].kind == SEL_CPU && l->col[k] + 1 > used)
				used = l->col[k] + 1;
		if (used > 0) {
			l->bar_w = (w - 1) / used - l->cell_digits - 2;
			if (l->bar_w < COMPACT_BAR)
				l->bar_w = COMPACT_BAR;
			if (l->bar_w > 64)
				l->bar_w = 64;
			l->cell_w = l->cell_digits + 2 + l->bar_w;
		}
	}
	if (l->compact && l->nlines + plot_min > avail) {
		/*
		 * still too many: one column per CPU after the line's first CPU number, the
		 * last column left to the scroll marks; a round number a line when it can be
		 */
		int cols;

		l->heatmap = true;
		l->cell_w = 1;
		l->bar_w = 0;
		l->heat_prefix = l->cell_digits + 1;
		cols = w - 1 - l->heat_prefix - 1;
		if (cols >= 16)
			cols -= cols % 8;
		place_compact(l, cols > 1 ? cols : 1);
	}
	/* the list takes what it needs, the plot the rest */
	l->list_h = l->nlines;
	if (l->list_h > avail - plot_min)
		l->list_h = avail - plot_min;
	if (l->list_h < 1)
		l->list_h = 1;
	l->plot_h = avail - l->list_h >= PLOT_MIN && h >= 16 ? avail - l->list_h : 0;
	if (l->plot_h < 0)
		l->plot_h = 0;
	l->plot_y = l->status_y - l->plot_h;
	layout_scroll(l);
}

void layout_scroll(struct layout *l)
{
	int line = l->nitems ? l->line[l->cur] : 0;

	if (line < l->top)
		l->top = line;
	if (line >= l->top + l->list_h)
		l->top = line - l->list_h + 1;
	if (l->top > l->nlines - l->list_h)
		l->top = l->nlines - l->list_h;
	if (l->top < 0)
		l->top = 0;
}

void layout_move(struct layout *l, int dy, int dx)
{
	long cur = (long)l->cur;

	if (!l->nitems)
		return;
	l->follow = false;
	if (!l->compact) {
		if (dy) {
			cur += dy;
		} else if (l->grouped) {
			/* left and right: the previous or next domain header */
			long k = cur + dx;
			while (k >= 0 && k < (long)l->nitems && l->items[k].kind != SEL_DOMAIN)
				k += dx;
			cur = k;
		} else {
			cur += dx;
		}
	} else if (dx) {
		cur += dx;
	} else {
		int target = l->line[cur] + dy, col = l->col[cur];
		long best = -1;

		if (target < 0)
			target = 0;
		if (target >= l->nlines)
			target = l->nlines - 1;
		for (size_t k = 0; k < l->nitems; k++) {
			if (l->line[k] != target)
				continue;
			if (best < 0 || l->col[k] <= col)
				best = (long)k;
		}
		if (best >= 0)
			cur = best;
	}
	if (cur < 0)
		cur = 0;
	if (cur >= (long)l->nitems)
		cur = (long)l->nitems - 1;
	l->cur = (size_t)cur;
	layout_scroll(l);
}

/* Item k's averaged pressure: a domain's mean (its summary), a CPU's own; TP_NONE: none. */
static int64_t item_pressure(const struct layout *l, const struct model *m, size_t k)
{
	const struct tp_snapshot *s = &m->snap;
	int i = l->items[k].index;

	if (l->items[k].kind == SEL_DOMAIN)
		return (size_t)i < m->ndomains ? m->dsum[i].avg_mean : TP_NONE;
	return s->cpus[i].online != 0 ? s->cpus[i].avg_pressure : TP_NONE;
}

bool layout_follow_pressure(struct layout *l, const struct model *m)
{
	enum sel_kind kind = l->grouped ? SEL_DOMAIN : SEL_CPU;
	size_t best = (size_t)-1, old = l->cur;
	int64_t best_p = TP_NONE;

	if ((!l->follow && !l->pick) || !l->nitems || !m->have_snap)
		return false;
	l->pick = false;
	for (size_t k = 0; k < l->nitems; k++) {
		int64_t p;

		if (l->items[k].kind != kind)
			continue;
		p = item_pressure(l, m, k);
		if (best == (size_t)-1 || p > best_p) {
			best = k;
			best_p = p;
		}
	}
	if (best == (size_t)-1)
		return false;
	l->cur = best;
	layout_scroll(l);
	return l->cur != old;
}

void layout_free(struct layout *l)
{
	free(l->items);
	free(l->line);
	free(l->col);
	memset(l, 0, sizeof(*l));
}
