// SPDX-License-Identifier: MIT
/* A self-contained SVG plot of step series (pressure and averages over time). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <thermpress/experiment.h>

#define W 960
#define H 480
#define ML 64	/* margins */
#define MR 180
#define MT 40
#define MB 48
#define MAX_POINTS 4000

static const char *const colors[] = {
	"#000000", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
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

int tp_plot_svg(FILE *fp, const char *title, const struct tp_plot_series *series, size_t n,
		struct tp_error *err)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int64_t vmax = 1;
	double xs, ys, span_s;
	int ticks = 5;

	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < series[s].n; i++) {
			if (series[s].t[i] < t0)
				t0 = series[s].t[i];
			if (series[s].t[i] > t1)
				t1 = series[s].t[i];
			if (series[s].v[i] > vmax)
				vmax = series[s].v[i];
		}
	if (t0 == UINT64_MAX)
		t0 = t1 = 0;
	if (t1 == t0)
		t1 = t0 + 1;
	vmax = (vmax + 63) / 64 * 64;
	xs = (double)(W - ML - MR) / (double)(t1 - t0);
	ys = (double)(H - MT - MB) / (double)vmax;
	span_s = (double)(t1 - t0) / 1e9;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H, W, H);
	fputs("<text x=\"", fp);
	fprintf(fp, "%d\" y=\"24\" font-size=\"15\">", ML);
	xml_text(fp, title ? title : "");
	fputs("</text>\n", fp);
	/* axes and grid */
	fprintf(fp, "<g stroke=\"#ccc\" stroke-width=\"1\">\n");
	for (int k = 0; k <= ticks; k++) {
		double y = H - MB - (double)(H - MT - MB) * k / ticks;
		double x = ML + (double)(W - ML - MR) * k / ticks;

		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", ML, y, W - MR, y);
		fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", x, MT, x, H - MB);
	}
	fputs("</g>\n<g fill=\"#333\">\n", fp);
	for (int k = 0; k <= ticks; k++) {
		double y = H - MB - (double)(H - MT - MB) * k / ticks;
		double x = ML + (double)(W - ML - MR) * k / ticks;

		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%" PRId64 "</text>\n",
			ML - 6, y + 4, vmax * k / ticks);
		fprintf(fp, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.3g</text>\n", x,
			H - MB + 16, span_s * k / ticks);
	}
	fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (s)</text>\n",
		(W - MR + ML) / 2, H - 10);
	fprintf(fp, "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">"
		"pressure (capacity)</text>\n</g>\n", (H - MB + MT) / 2);

	for (size_t s = 0; s < n; s++) {
		const struct tp_plot_series *se = &series[s];
		const char *color = colors[s % (sizeof(colors) / sizeof(colors[0]))];
		size_t step = se->n > MAX_POINTS ? (se->n + MAX_POINTS - 1) / MAX_POINTS : 1;
		double ly = MT + 10 + 18.0 * (double)s;

		if (se->n) {
			fprintf(fp, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" d=\"", color,
				s ? "1.5" : "1");
			for (size_t i = 0; i < se->n; i += step) {
				double x = ML + (double)(se->t[i] - t0) * xs;
				double y = H - MB - (double)se->v[i] * ys;

				if (i == 0)
					fprintf(fp, "M%.1f %.1f", x, y);
				else
					fprintf(fp, "H%.1fV%.1f", x, y);
			}
			fprintf(fp, "H%d\"/>\n", W - MR);
		}
		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"/>\n<text x=\"%d\" y=\"%.1f\">", W - MR + 10, ly,
			W - MR + 34, ly, color, W - MR + 40, ly + 4);
		xml_text(fp, se->label ? se->label : "");
		fputs("</text>\n", fp);
	}
	fputs("</svg>\n", fp);
	if (fflush(fp) || ferror(fp))
		return tp_error_set(err, -EIO, "write error on the plot");
	return 0;
}
