/* SPDX-License-Identifier: MIT */
/*
 * Drawing: the header, one row per CPU with its bar and numbers, domain rows,
 * compact cells, the status line and the help.  Everything reads the model and
 * the layout; nothing here computes values or changes state.
 *
 * A bar is on the scheduler's 0..1024 scale:
 *   solid   0 .. capacity          what the scheduler uses (max - averaged pressure)
 *   shaded  capacity .. max        the rest of the CPU's max capacity
 *   mark    at capped capacity     the instantaneous cap (max - pressure), when capped
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fmt.h"
#include "tui.h"

/* ---- bars ------------------------------------------------------------------------ */

struct run {
	char buf[64 * 4 + 1];
	size_t n;
	enum role r;
	int x0;
};

static void run_flush(struct canvas *cv, int y, struct run *run)
{
	if (run->n) {
		run->buf[run->n] = '\0';
		cv_put(cv, y, run->x0, run->r, run->buf);
	}
	run->n = 0;
}

static void run_add(struct canvas *cv, int y, int x, struct run *run, enum role r,
		    const char *glyph)
{
	size_t k = strlen(glyph);

	if (run->n && (run->r != r || run->n + k >= sizeof(run->buf)))
		run_flush(cv, y, run);
	if (!run->n) {
		run->r = r;
		run->x0 = x;
	}
	memcpy(run->buf + run->n, glyph, k);
	run->n += k;
}

static void draw_bar(struct canvas *cv, int y, int x, int width, const struct tp_cpu *c)
{
	const struct glyphs *g = cv->g;
	int64_t e8 = c->capacity >= 0 ? c->capacity * width * 8 / TP_CAPACITY_SCALE : 0;
	int64_t m8 = c->max_capacity >= 0 ? c->max_capacity * width * 8 / TP_CAPACITY_SCALE : 0;
	int mark = -1;
	struct run run = { .n = 0 };

	if (c->capped_capacity >= 0 && c->max_capacity > 0 && c->capped_capacity < c->max_capacity) {
		mark = (int)(c->capped_capacity * width / TP_CAPACITY_SCALE);
		if (mark >= width)
			mark = width - 1;
	}
	for (int i = 0; i < width; i++) {
		int64_t lo = (int64_t)i * 8;

		if (i == mark)
			run_add(cv, y, x + i, &run, R_MARK, g->mark);
		else if (lo + 8 <= e8)
			run_add(cv, y, x + i, &run, R_EFFECTIVE, g->full);
		else if (lo < e8 && g->utf8)
			run_add(cv, y, x + i, &run, R_EFFECTIVE, g->part[e8 - lo]);
		else if (lo < e8 && e8 - lo >= 4)
			run_add(cv, y, x + i, &run, R_EFFECTIVE, g->full);
		else if (lo < m8)
			run_add(cv, y, x + i, &run, R_LOST, g->lost);
		else
			run_add(cv, y, x + i, &run, R_NORMAL, " ");
	}
	run_flush(cv, y, &run);
}

/* ---- rows ------------------------------------------------------------------------- */

static void draw_domain_row(struct canvas *cv, const struct model *m, const struct layout *l,
			    int y, int d, bool sel)
{
	const struct dom_summary *ds = &m->dsum[d];
	char cmin[24], cmean[24], avg[24];
	struct field f[MAX_FIELDS];
	int n = 0, x;

	(void)l;
	if (sel)
		cv_put(cv, y, 0, R_SELECTED, cv->g->sel);
	/* whole fields in the line, the least telling dropped first */
	field_add(f, &n, sel ? R_SELECTED : R_DOMAIN, 10, false, "%s", m->snap.domains[d].name);
	field_add(f, &n, R_DIM, 9, false, " cpus %s", ds->cpus);
	field_add(f, &n, R_NORMAL, 6, false, "  %d/%d capped", ds->capped, ds->shown);
	field_add(f, &n, R_NORMAL, 5, false, "  capacity min %s mean %s",
		  fmt_value(cmin, sizeof(cmin), ds->cap_min),
		  fmt_value(cmean, sizeof(cmean), ds->cap_mean));
	field_add(f, &n, R_NORMAL, 7, false, "  avg pressure mean %s",
		  fmt_estimated(avg, sizeof(avg), ds->avg_mean, ds->avg_estimated));
	x = cv_fields(cv, y, 1, cv_room(cv) - 1, f, n) + 1;
	/* a line to where the CPUs' numbers end */
	int end = l->compact ? 0 : 6 + l->bar_w + columns_top_width();
	for (; x < end && x < cv_room(cv); x++)
		cv_put(cv, y, x, R_DIM, cv->g->hline);
}

/*
 * The numbers after a CPU's bar at x (or, c NULL, their header ending where they end):
 * the column table's top columns, a space before each.  A longer value widens the row
 * rather than losing digits; a header wider than its column reaches left into the bar.
 */
static void draw_numbers(struct canvas *cv, int y, int x, enum role r,
			 const struct tp_snapshot *snap, const struct tp_cpu *c)
{
	const struct column *cols[COLUMNS_MAX];
	size_t n = columns_of(COL_TOP, cols), at = 0;
	char line[512], buf[64];
	int wider = 0;

	for (size_t k = 0; k < n && at < sizeof(line); k++) {
		const char *head = cols[k]->top.header;
		int w = cols[k]->top.width, hl = (int)strlen(head), len;
		if (!c && hl > w) {
			wider += hl - w;
			w = hl;
		}
		len = snprintf(line + at, sizeof(line) - at, " %*s", w,
			       c ? column_format(cols[k], buf, sizeof(buf), snap, c) : head);
		at += len > 0 ? (size_t)len : 0;
	}
	cv_printf(cv, y, x - wider, r, "%s", line);
}

static void draw_cpu_row(struct canvas *cv, const struct model *m, const struct layout *l,
			 int y, int i, bool sel)
{
	const struct tp_cpu *c = &m->snap.cpus[i];
	int x = 6 + l->bar_w;
	bool off = c->online == 0;

	if (sel)
		cv_put(cv, y, 0, R_SELECTED, cv->g->sel);
	cv_printf(cv, y, 1, sel ? R_SELECTED : R_NORMAL, "%4d", c->cpu);
	if (off)
		cv_printf(cv, y, 6, R_DIM, "%-*s", l->bar_w, "offline");
	else if (c->capacity < 0 || c->max_capacity < 0)
		cv_printf(cv, y, 6, R_DIM, "%-*s", l->bar_w, "capacity unknown");
	else
		draw_bar(cv, y, 6, l->bar_w, c);
	draw_numbers(cv, y, x, off ? R_DIM : R_NORMAL, &m->snap, c);
}

static void draw_cell(struct canvas *cv, const struct model *m, const struct layout *l,
		      int y, int x, int i, bool sel)
{
	const struct tp_cpu *c = &m->snap.cpus[i];

	cv_printf(cv, y, x, sel ? R_SELECTED : R_NORMAL, "%*d", l->cell_digits, c->cpu);
	if (c->online == 0)
		cv_printf(cv, y, x + l->cell_digits + 1, R_DIM, "%-*s", l->bar_w, "off");
	else if (c->capacity < 0 || c->max_capacity < 0)
		cv_printf(cv, y, x + l->cell_digits + 1, R_DIM, "%-*s", l->bar_w, "?");
	else
		draw_bar(cv, y, x + l->cell_digits + 1, l->bar_w, c);
}

/* A heatmap cell: one glyph by heat_level(), the selected CPU in reverse. */
static void add_heat(struct canvas *cv, int y, int x, struct run *run, const struct tp_cpu *c,
		     bool sel)
{
	const struct glyphs *g = cv->g;
	int level = heat_level(c);
	const char *glyph = g->heat[level];
	enum role r = (enum role)(R_HEAT0 + level);

	if (c->online == 0) {
		glyph = g->off;
		r = R_DIM;
	} else if (c->capacity < 0 || c->max_capacity < 0) {
		glyph = g->unknown;
		r = R_DIM;
	}
	run_add(cv, y, x, run, sel ? R_SELECTED : r, glyph);
}

static void draw_list(struct canvas *cv, const struct model *m, const struct layout *l)
{
	struct run run = { .n = 0 };
	int run_y = -1;

	for (size_t k = 0; k < l->nitems; k++) {
		int line = l->line[k] - l->top;
		int y = l->list_y + line;
		bool sel = k == l->cur;

		if (line < 0 || line >= l->list_h)
			continue;
		if (run_y != y) {
			/* a heatmap line is drawn as runs of one role, not cell by cell */
			run_flush(cv, run_y, &run);
			run_y = y;
		}
		if (l->items[k].kind == SEL_DOMAIN) {
			draw_domain_row(cv, m, l, y, l->items[k].index, sel);
		} else if (l->heatmap) {
			if (l->col[k] == 0)	/* the line carries its first CPU's number */
				cv_printf(cv, y, 0, R_DIM, "%*d", l->heat_prefix - 1,
					  m->snap.cpus[l->items[k].index].cpu);
			add_heat(cv, y, l->heat_prefix + l->col[k], &run,
				 &m->snap.cpus[l->items[k].index], sel);
		}
		else if (l->compact)
			draw_cell(cv, m, l, y, 1 + l->col[k] * l->cell_w, l->items[k].index, sel);
		else
			draw_cpu_row(cv, m, l, y, l->items[k].index, sel);
	}
	run_flush(cv, run_y, &run);
	if (l->top > 0)
		cv_put(cv, l->list_y, cv->w - 1, R_DIM, "^");
	if (l->top + l->list_h < l->nlines)
		cv_put(cv, l->list_y + l->list_h - 1, cv->w - 1, R_DIM, "v");
}

/* ---- header, status, help --------------------------------------------------------- */

/*
 * The thermal zones, "thermal  big-thermal 72.3 C (passive 70.0 C)  little-thermal 45.0 C",
 * a zone at or above a trip point in the error role; under them the cpufreq cooling
 * devices, "cooling  cpufreq-cpu4 2/3 (big)", one in force in the error role.
 */
static void draw_thermal(struct canvas *cv, const struct model *m, int y)
{
	const struct tp_thermal *th = &m->thermal;
	char buf[160], temp[32], trip[32];
	int x = 0;

	cv_put(cv, y, x, R_HEADER, "thermal");
	x += 7;
	for (size_t i = 0; i < th->nr_zones && x < cv->w; i++) {
		const struct tp_thermal_zone *z = &th->zones[i];
		bool hot = false;
		size_t n;

		n = (size_t)snprintf(buf, sizeof(buf), "  %s %s", z->type,
				     fmt_temp(temp, sizeof(temp), z->temp_mc));
		for (size_t t = 0; t < z->nr_trips && n < sizeof(buf); t++) {
			const struct tp_thermal_trip *tr = &z->trips[t];
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s %s", t ? ", " : " (",
					      tr->type, fmt_temp(trip, sizeof(trip), tr->temp_mc));
			/* a trip at 0 C or below is one the firmware left unset */
			if (z->temp_mc != TP_NONE && tr->temp_mc > 0 &&
			    z->temp_mc >= tr->temp_mc)
				hot = true;
		}
		if (z->nr_trips && n < sizeof(buf))
			snprintf(buf + n, sizeof(buf) - n, ")");
		if (x + glyph_len(buf) > cv->w - 1)
			break;	/* whole zones only */
		cv_put(cv, y, x, hot ? R_ERROR : R_NORMAL, buf);
		x += glyph_len(buf);
	}
	if (!model_nr_cpufreq_cooling(m))
		return;
	if (th->nr_zones)
		y++;
	cv_put(cv, y, 0, R_HEADER, "cooling");
	x = 7;
	for (size_t i = 0; i < th->nr_cooling && x < cv->w; i++) {
		const struct tp_thermal_cooling *c = &th->cooling[i];
		const char *dom = "";
		char cur[24], max[24];

		if (c->domain == TP_NONE)
			continue;	/* a fan or a processor device: it caps no domain */
		for (size_t d = 0; d < m->snap.nr_domains; d++)
			if (m->snap.domains[d].id == c->domain)
				dom = m->snap.domains[d].name;
		snprintf(buf, sizeof(buf), "  %s %s/%s%s%s%s", c->type,
			 fmt_value(cur, sizeof(cur), c->cur_state),
			 fmt_value(max, sizeof(max), c->max_state), dom[0] ? " (" : "", dom,
			 dom[0] ? ")" : "");
		if (x + glyph_len(buf) > cv->w - 1)
			break;	/* whole devices only */
		cv_put(cv, y, x, c->cur_state > 0 ? R_ERROR : R_DIM, buf);
		x += glyph_len(buf);
	}
}

/*
 * " - stock kernel 6.1.0 (aarch64) at /a/root": a root path that does not fit is shortened
 * in its middle (cv_fields), so that its last components stay; one longer than the field's
 * buffer is cut here the same way first.
 */
static void source_field(struct field *f, int *n, const char *desc)
{
	const char *at = strstr(desc, " at "), *tail;
	size_t len = strlen(desc), keep = sizeof(f->text) / 2;
	int from = at ? (int)(at - desc) + 7 : 3;	/* after " - " and " at " */

	if (len + 3 < sizeof(f->text)) {
		field_add(f, n, R_NORMAL, 9, false, " - %s", desc);
	} else {
		tail = desc + len - keep;
		while ((*tail & 0xc0) == 0x80)	/* a UTF-8 continuation byte */
			tail++;
		if (from - 3 > (int)keep - 8)
			from = 3;
		field_add(f, n, R_NORMAL, 9, false, " - %.*s...%s", from - 3, desc, tail);
	}
	field_elidable(f, *n, from);
}

static void draw_header(struct canvas *cv, const struct model *m, const struct layout *l,
			const struct ui *ui)
{
	const struct tp_snapshot *s = &m->snap;
	char iv[32], step[32], decay[32], t[32], wall[16] = "";
	struct field f[MAX_FIELDS];
	int n = 0, y;

	if (cv->win) {
		time_t now = time(NULL);
		struct tm tm;
		if (localtime_r(&now, &tm))
			strftime(wall, sizeof(wall), "  %H:%M:%S", &tm);
	}
	field_add(f, &n, R_TITLE, 10, false, "thermpress top");
	source_field(f, &n, ui->source_desc);
	field_add(f, &n, R_NORMAL, 8, true, "clock %s",
		  m->have_snap ? fmt_time(t, sizeof(t), s->time_ns) : FMT_NONE);
	field_add(f, &n, R_NORMAL, 3, true, "%s", wall);
	cv_fields(cv, 0, 0, cv_room(cv), f, n);

	n = 0;
	field_add(f, &n, R_NORMAL, 10, false, "backend %-7s", s->backend[0] ? s->backend : FMT_NONE);
	field_add(f, &n, R_NORMAL, 9, false, " decay %-8s",
		  fmt_decay(decay, sizeof(decay), s->decay_ms));
	field_add(f, &n, R_NORMAL, 8, false, " interval %s",
		  fmt_duration(iv, sizeof(iv), ui->interval_ns));
	if (ui->vclock_step_ns)
		field_add(f, &n, R_DIM, 2, false, "  (virtual clock: +%s per interval)",
			  fmt_duration(step, sizeof(step), ui->vclock_step_ns));
	if (l->follow)
		field_add(f, &n, R_GOOD, 9, false, "  FOLLOWING the most pressured (f)");
	if (ui->paused)
		field_add(f, &n, R_ERROR, 11, false, "  PAUSED");
	cv_fields(cv, 1, 0, cv_room(cv), f, n);

	if (l->thermal_rows)
		draw_thermal(cv, m, 2);
	y = l->list_y - 1;
	n = 0;
	if (!l->compact) {
		cv_printf(cv, y, 1, R_HEADER, "%4s", "CPU");
		cv_printf(cv, y, 6, R_HEADER, "%-*s", l->bar_w, "capacity 0..1024");
		draw_numbers(cv, y, 6 + l->bar_w, R_HEADER, &m->snap, NULL);
		return;
	} else if (!l->heatmap) {
		field_add(f, &n, R_HEADER, 10, false, "compact: %zu CPUs", m->snap.nr_cpus);
		field_add(f, &n, R_HEADER, 6, false, ", bars 0..1024");
		field_add(f, &n, R_HEADER, 2, false, "; select one for its numbers");
	} else {
		const struct glyphs *g = cv->g;

		field_add(f, &n, R_HEADER, 10, false, "heatmap: %zu CPUs", m->snap.nr_cpus);
		field_add(f, &n, R_HEADER, 3, false, ", averaged pressure of max capacity:");
		field_add(f, &n, R_HEADER, 8, false, " %s none %s <25%% %s <50%% %s <75%% %s more",
			  g->heat[0], g->heat[1], g->heat[2], g->heat[3], g->heat[4]);
	}
	cv_fields(cv, y, 1, cv_room(cv) - 1, f, n);
}

static const char *const help_lines[] = {
	"keys",
	"  up/down k/j  select a CPU or a cluster (left/right h/l: cells, or clusters)",
	"  pgup/pgdn    scroll a page          home/end  first/last",
	"  c            cap the selection: a frequency (1.8GHz, 1800MHz, 1800000 kHz),",
	"               a capped capacity (cap=600) or a percentage (60%)",
	"  x            clear the selection's cap",
	"  b            choose the backend (left/right, enter; esc cancels)",
	"  + / -        double / halve the decay period of the active backend",
	"  p            pause or resume sampling",
	"  f            follow the most pressured cluster (or stop); moving stops it",
	"  y            plot: y axis fitted to the data, or the full 0..1024 scale",
	"  ? or F1      this help         q or F10  quit",
	"bars (0..1024, the scheduler's capacity scale)",
	"  solid        capacity the scheduler uses: max - averaged pressure",
	"  shaded       the rest of the CPU's max capacity",
	"  mark         the capped capacity: max - instantaneous pressure",
	"  " FMT_ESTIMATE "161         " FMT_ESTIMATE_WHY,
	"press any key",
};

static void draw_help(struct canvas *cv, const struct layout *l)
{
	int n = (int)(sizeof(help_lines) / sizeof(help_lines[0]));
	int y0 = 3;

	for (int i = 0; i < n && y0 + i < l->status_y; i++) {
		cv_fill(cv, y0 + i, 0, cv->w, R_NORMAL);
		cv_put(cv, y0 + i, 2, i == 0 || i == 12 ? R_HEADER : R_NORMAL, help_lines[i]);
	}
}

static void draw_status(struct canvas *cv, const struct layout *l, const struct ui *ui)
{
	int y = l->status_y;
	struct field f[MAX_FIELDS];
	int n = 0;

	if (ui->mode == UI_PROMPT) {
		cv_printf(cv, y, 0, R_HEADER, "%s", ui->prompt);
		cv_printf(cv, y, glyph_len(ui->prompt), R_NORMAL, "%s_", ui->input);
		return;
	}
	if (ui->mode == UI_MENU) {
		int x = 0;
		cv_put(cv, y, x, R_HEADER, "backend:");
		x += 8;
		/* each entry with its digit shortcut */
		for (size_t i = 0; i < ui->nbackends; i++) {
			const struct tp_backend_info *b = &ui->backends[i];
			char entry[TP_NAME_MAX + 16];

			if (i < 9)
				snprintf(entry, sizeof(entry), b->active ? "%zu [%s]" : "%zu %s", i + 1,
					 b->name);
			else
				snprintf(entry, sizeof(entry), b->active ? "[%s]" : "%s", b->name);
			cv_put(cv, y, x + 1, i == ui->menu_cur ? R_SELECTED : R_NORMAL, entry);
			x += 2 + glyph_len(entry);
		}
		n = 0;
		field_add(f, &n, R_DIM, 2, false, " (1-%zu, left/right, enter, esc)",
			  ui->nbackends < 9 ? ui->nbackends : 9);
		cv_fields(cv, y, x, cv->w - 1 - x, f, n);
		return;
	}
	if (ui->status[0]) {
		/* a long message is cut after a whole word, never inside one */
		char msg[sizeof(ui->status)];
		int room = cv->w - 1;

		snprintf(msg, sizeof(msg), "%s", ui->status);
		while (glyph_len(msg) > room) {
			char *sp = strrchr(msg, ' ');
			if (!sp)
				break;
			*sp = '\0';
		}
		cv_put(cv, y, 0, ui->status_err ? R_ERROR : R_GOOD, msg);
		return;
	}
	field_add(f, &n, R_DIM, 10, false, "?/F1 help");
	field_add(f, &n, R_DIM, 7, false, "  c cap");
	field_add(f, &n, R_DIM, 6, false, "  x clear");
	field_add(f, &n, R_DIM, 5, false, "  b backend");
	field_add(f, &n, R_DIM, 3, false, "  +/- decay");
	field_add(f, &n, R_DIM, 2, false, "  p pause");
	field_add(f, &n, R_DIM, 4, false, "  f follow");
	field_add(f, &n, R_DIM, 4, false, "  y scale");
	field_add(f, &n, R_DIM, 9, false, "  q/F10 quit");
	cv_fields(cv, y, 0, cv->w - 1, f, n);
}

int draw_once_height(const struct layout *l)
{
	return l->status_y + 2;
}

void draw_frame(struct canvas *cv, const struct model *m, struct layout *l, const struct ui *ui)
{
	draw_header(cv, m, l, ui);
	if (m->snap_failed) {
		char iv[32];
		cv_printf(cv, l->list_y, 1, R_ERROR, "%s", m->snap_err);
		cv_printf(cv, l->list_y + 1, 1, R_DIM, "retrying every %s%s",
			  fmt_duration(iv, sizeof(iv), ui->interval_ns),
			  m->have_snap ? "; the rows below are from the last good snapshot" : "");
	}
	if (m->have_snap && !(m->snap_failed && !cv->win)) {
		struct layout shifted = *l;
		if (m->snap_failed) {
			shifted.list_y += 2;
			shifted.list_h -= 2;
		}
		if (shifted.list_h > 0)
			draw_list(cv, m, &shifted);
		if (l->plot_h && m->len)
			plot_draw(cv, m, l);
	}
	if (!cv->win) {
		/* --once: a legend instead of the status line */
		const struct glyphs *g = cv->g;
		cv_printf(cv, l->status_y, 0, R_DIM,
			  "bars 0..1024: %s capacity (max - avg)  %s rest of max capacity  "
			  "%s capped capacity (max - pres)%s", g->full, g->lost, g->mark,
			  "");
		for (size_t i = 0; i < m->snap.nr_cpus; i++)
			if (m->snap.cpus[i].avg_estimated && m->snap.cpus[i].avg_pressure != TP_NONE &&
			    model_shown(m, (int)i)) {
				cv_put(cv, l->status_y + 1, 0, R_DIM, FMT_ESTIMATE_NOTE);
				break;
			}
		return;
	}
	if (ui->mode == UI_HELP)
		draw_help(cv, l);
	draw_status(cv, l, ui);
}
