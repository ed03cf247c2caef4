// SPDX-License-Identifier: MIT
/*
 * A self-contained SVG plot of step series (pressure and averages over time).
 * Series 0 is the pressure: drawn last, on top of the averages, so a backend that
 * follows it exactly (instant) cannot hide it; and such a series, the same as an earlier
 * one, is drawn dashed and wider so that it stays visible under it, with a legend note.  Ticks are round (a 1-2-5 step), and
 * every drawn series has a legend entry: the image grows to hold them all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <thermpress/experiment.h>

#define W 960
#define H 480	/* at least; taller when the legend needs it */
#define ML 64	/* margins */
#define MR 180
#define MT 40
#define MB 48
#define LEGEND_DY 18
#define MAX_POINTS 4000
#define TICKS 5	/* about this many intervals per axis */

/* The pressure's colour, then one per average; past the palette, dash patterns tell them apart. */
static const char *const colors[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NCOLORS (sizeof(colors) / sizeof(colors[0]))
static const char *const dashes[] = { NULL, "8 4", "2 3", "8 3 2 3" };
#define NDASHES (sizeof(dashes) / sizeof(dashes[0]))
#define PRESSURE_COLOR "#000000"

struct frame {
	uint64_t t0, t1;	/* the data's first and last times */
	double xs, ys;		/* pixels per ns, per capacity unit */
	int h;			/* image height */
};

static void xml_text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: fputc(*s, fp);
		}
	}
}

/* A round step (1, 2 or 5 times a power of ten) cutting range into about intervals. */
static double nice_step(double range, int intervals)
{
	double raw, mag = 1, f;

	if (!(range > 0) || intervals < 1)
		return 1;
	raw = range / intervals;
	while (mag * 10 <= raw)
		mag *= 10;
	while (mag > raw)
		mag /= 10;
	f = raw / mag;
	if (f < 1.5)
		return mag;
	if (f < 3.5)
		return 2 * mag;
	if (f < 7.5)
		return 5 * mag;
	return 10 * mag;
}

/* Decimals that write every multiple of step exactly (0.2 -> 1, 0.05 -> 2, 10 -> 0). */
static int step_decimals(double step)
{
	int d = 0;

	for (double x = step; d < 9; d++, x *= 10) {
		double frac = x - (double)(long long)(x + 0.5);

		if (frac < 1e-6 && frac > -1e-6)
			break;
	}
	return d;
}

static void axes(FILE *fp, const struct frame *f, double span_s, double vtop, double vstep)
{
	double tstep = nice_step(span_s, TICKS);
	int tdec = step_decimals(tstep);
	int bottom = f->h - MB;

	fprintf(fp, "<g stroke=\"#ccc\" stroke-width=\"1\">\n");
	for (int k = 0; k * vstep <= vtop + vstep * 1e-9; k++) {
		double y = bottom - k * vstep * f->ys;

		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", ML, y, W - MR, y);
	}
	for (int k = 0; k * tstep <= span_s * (1 + 1e-9); k++) {
		double x = ML + k * tstep * 1e9 * f->xs;

		fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", x, MT, x, bottom);
	}
	fputs("</g>\n<g fill=\"#333\">\n", fp);
	for (int k = 0; k * vstep <= vtop + vstep * 1e-9; k++)
		fprintf(fp, "<text class=\"ytick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n",
			ML - 6, bottom - k * vstep * f->ys + 4, k * vstep);
	for (int k = 0; k * tstep <= span_s * (1 + 1e-9); k++)
		fprintf(fp, "<text class=\"xtick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.*f</text>\n",
			ML + k * tstep * 1e9 * f->xs, bottom + 16, tdec, k * tstep);
	fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (s)</text>\n",
		(W - MR + ML) / 2, f->h - 10);
	fprintf(fp, "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">"
		"pressure (capacity)</text>\n</g>\n", (bottom + MT) / 2);
}

/*
 * The first series before s with the same points as s (instant under the pressure), or -1:
 * a curve under another would not be seen, so it is drawn dashed and wider, and the
 * legend says so.
 */
static long same_as(const struct tp_plot_series *series, size_t s)
{
	const struct tp_plot_series *a = &series[s];

	if (!a->n)
		return -1;
	for (size_t j = 0; j < s; j++) {
		const struct tp_plot_series *b = &series[j];

		if (b->n == a->n && !memcmp(b->t, a->t, a->n * sizeof(*a->t)) &&
		    !memcmp(b->v, a->v, a->n * sizeof(*a->v)))
			return (long)j;
	}
	return -1;
}

#define SAME_DASH "6 4"

/*
 * Series s's stroke: the pressure black and narrow on top, each average its colour and
 * dash; one that coincides with an earlier series dashed and wider, peeking out around it.
 */
static void stroke(FILE *fp, size_t s, double width, bool same)
{
	const char *dash = s ? dashes[((s - 1) / NCOLORS) % NDASHES] : NULL;

	if (same) {
		dash = SAME_DASH;
		width += 2;
	}
	fprintf(fp, "stroke=\"%s\" stroke-width=\"%.1f\"",
		s ? colors[(s - 1) % NCOLORS] : PRESSURE_COLOR, width);
	if (dash)
		fprintf(fp, " stroke-dasharray=\"%s\"", dash);
}

/*
 * Beyond MAX_POINTS values a bucket of step values becomes one vertical stroke from its
 * highest to its lowest value, ending on its last: a short spike stays visible.
 */
static void curve(FILE *fp, const struct frame *f, const struct tp_plot_series *series, size_t s)
{
	const struct tp_plot_series *se = &series[s];
	size_t step = se->n > MAX_POINTS ? (se->n + MAX_POINTS - 1) / MAX_POINTS : 1;
	double base = f->h - MB;

	fprintf(fp, "<path class=\"series\" data-series=\"%zu\" fill=\"none\" ", s);
	stroke(fp, s, s ? 2.5 : 1.5, same_as(series, s) >= 0);
	fputs(" d=\"", fp);
	for (size_t i = 0; i < se->n; i += step) {
		double x = ML + (double)(se->t[i] - f->t0) * f->xs;
		int64_t lo = se->v[i], hi = se->v[i], last = se->v[i];

		for (size_t j = i + 1; j < i + step && j < se->n; j++) {
			lo = se->v[j] < lo ? se->v[j] : lo;
			hi = se->v[j] > hi ? se->v[j] : hi;
			last = se->v[j];
		}
		if (i == 0)
			fprintf(fp, "M%.1f %.1f", x, base - (double)se->v[i] * f->ys);
		else
			fprintf(fp, "H%.1fV%.1f", x, base - (double)se->v[i] * f->ys);
		if (hi != lo)
			fprintf(fp, "V%.1fV%.1fV%.1f", base - (double)hi * f->ys,
				base - (double)lo * f->ys, base - (double)last * f->ys);
	}
	fprintf(fp, "H%.1f\"/>\n", ML + (double)(f->t1 - f->t0) * f->xs);	/* the last value holds to the end */
}

/* The legend's lines: one per series, and a note under each that coincides with another. */
static int legend_rows(const struct tp_plot_series *series, size_t n)
{
	int rows = 0;

	for (size_t s = 0; s < n; s++)
		rows += same_as(series, s) >= 0 ? 2 : 1;
	return rows;
}

static void legend(FILE *fp, const struct tp_plot_series *series, size_t n)
{
	int row = 0;

	for (size_t s = 0; s < n; s++) {
		double ly = MT + 10 + (double)LEGEND_DY * (double)row++;
		long same = same_as(series, s);

		fprintf(fp, "<g class=\"legend\" data-series=\"%zu\"><line x1=\"%d\" y1=\"%.1f\" "
			"x2=\"%d\" y2=\"%.1f\" ", s, W - MR + 10, ly, W - MR + 34, ly);
		stroke(fp, s, 2, same >= 0);
		fprintf(fp, "/>\n<text x=\"%d\" y=\"%.1f\">", W - MR + 40, ly + 4);
		xml_text(fp, series[s].label ? series[s].label : "");
		if (!series[s].n)
			fputs(" (no data)", fp);
		fputs("</text>", fp);
		if (same >= 0) {
			/* the curve is under the other one: say which, and how it is drawn */
			ly = MT + 10 + (double)LEGEND_DY * (double)row++;
			fprintf(fp, "\n<text class=\"same\" x=\"%d\" y=\"%.1f\" font-size=\"11\">"
				"dashed: same as ", W - MR + 40, ly + 4);
			xml_text(fp, series[same].label ? series[same].label : "");
			fputs("</text>", fp);
		}
		fputs("</g>\n", fp);
	}
}

int tp_plot_svg(FILE *fp, const char *title, const struct tp_plot_series *series, size_t n,
		struct tp_error *err)
{
	int64_t vmax = 1;
	double span_s, vstep, vtop, tstep;
	struct frame f = { .t0 = UINT64_MAX, .h = H };

	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < series[s].n; i++) {
			if (series[s].t[i] < f.t0)
				f.t0 = series[s].t[i];
			if (series[s].t[i] > f.t1)
				f.t1 = series[s].t[i];
			if (series[s].v[i] > vmax)
				vmax = series[s].v[i];
		}
	if (f.t0 == UINT64_MAX)
		f.t0 = f.t1 = 0;
	if (f.t1 == f.t0)
		f.t1 = f.t0 + 1;
	if (MT + 10 + LEGEND_DY * legend_rows(series, n) + MB > f.h)
		f.h = MT + 10 + LEGEND_DY * legend_rows(series, n) + MB;
	/* the value axis ends on a round tick above the largest value */
	vstep = nice_step((double)vmax, TICKS);
	if (vstep < 1)
		vstep = 1;	/* capacities are integers */
	vtop = vstep * (double)(int64_t)(((double)vmax + vstep - 1) / vstep);
	/* the time axis too: 7.99 s of data on an axis to 8 s */
	span_s = (double)(f.t1 - f.t0) / 1e9;
	tstep = nice_step(span_s, TICKS);
	span_s = tstep * (double)(int64_t)((span_s + tstep * (1 - 1e-9)) / tstep);
	f.xs = (double)(W - ML - MR) / (span_s * 1e9);
	f.ys = (double)(f.h - MT - MB) / vtop;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, f.h, W, f.h);
	fprintf(fp, "<text x=\"%d\" y=\"24\" font-size=\"15\">", ML);
	xml_text(fp, title ? title : "");
	fputs("</text>\n", fp);
	axes(fp, &f, span_s, vtop, vstep);
	/* the averages first, the pressure last: on top */
	for (size_t s = 1; s <= n; s++)
		if (series[s % n].n)
			curve(fp, &f, series, s % n);
	legend(fp, series, n);
	fputs("</svg>\n", fp);
	if (fflush(fp) || ferror(fp))
		return tp_error_set(err, -EIO, "write error on the plot");
	return 0;
}
