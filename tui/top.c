/* SPDX-License-Identifier: MIT */
/*
 * top_run: the loop.  One sample per interval (advancing a virtual clock by the
 * step first), keys in between; drawing only when something changed, with werase
 * and wnoutrefresh/doupdate so that curses sends only the difference.  No
 * allocation per frame: the snapshot's buffers are reused and the history is a ring.
 */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui.h"
#include "clock.h"

static int run_once(struct tp_source *src, const struct top_options *opts,
		    const struct glyphs *g, struct model *m, struct layout *l, struct ui *ui,
		    struct tp_error *err)
{
	FILE *out = opts->out ? opts->out : stdout;
	struct canvas cv;
	int w = opts->width, rc;

	ui->vclock_step_ns = 0;	/* one frame: the clock is not moved */
	rc = model_sample(m, src, true);
	if (rc < 0)
		return tp_error_set(err, rc, "%s", m->snap_err);
	if (w <= 0) {
		const char *cols = getenv("COLUMNS");
		w = cols ? atoi(cols) : 0;
		if (w < 40 || w > 1000)
			w = 120;
	}
	if (layout_items(l, m) < 0)
		return tp_error_set(err, -ENOMEM, "out of memory");
	l->cur = (size_t)-1;	/* no selection marker in a printed frame */
	l->thermal_rows = model_thermal_rows(m);
	layout_fit(l, w, 0, true);
	if (cv_text_init(&cv, w, draw_once_height(l), g) < 0)
		return tp_error_set(err, -ENOMEM, "out of memory");
	draw_frame(&cv, m, l, ui);
	rc = cv_text_print(&cv, out);
	cv_text_free(&cv);
	/* on stdout the error stays in its flags: the command reports it once, at exit */
	if (rc < 0 && out != stdout)
		return tp_error_set(err, rc, "cannot write the frame: error %d", -rc);
	return 0;
}

static void sample(struct tp_source *src, struct model *m, struct ui *ui)
{
	struct tp_error err = { 0 };

	if (ui->vclock_step_ns && tp_sim_advance(src, ui->vclock_step_ns, &err) < 0)
		ui_status(ui, true, "error: %s", err.msg[0] ? err.msg : "cannot advance the clock");
	model_sample(m, src, true);
	ui->dirty = true;
}

static void sync_layout(struct model *m, struct layout *l, unsigned *gen, int w, int h)
{
	l->thermal_rows = model_thermal_rows(m);
	if (m->have_snap && *gen != m->gen) {
		*gen = m->gen;
		layout_items(l, m);
	}
	layout_fit(l, w, h, false);
	layout_follow_pressure(l, m);
	if (l->nitems)
		model_select(m, l->items[l->cur].kind, l->items[l->cur].index);
}

/* Draw the frame when something changed (curses sends only the difference). */
static void redraw(const struct glyphs *g, struct model *m, struct layout *l, struct ui *ui,
		   unsigned *gen, int w, int h)
{
	struct canvas cv = { .w = w, .h = h, .win = stdscr, .g = g };

	if (!ui->dirty)
		return;
	if (*gen != m->gen)
		sync_layout(m, l, gen, w, h);
	werase(stdscr);
	draw_frame(&cv, m, l, ui);
	wnoutrefresh(stdscr);
	doupdate();
	ui->dirty = false;
}

/* No key came before the timeout: a sample when one is due (*next: its time). */
static void on_idle(struct tp_source *src, struct model *m, struct layout *l, struct ui *ui,
		    unsigned *gen, int w, int h, uint64_t *next)
{
	uint64_t now = mono_ns();

	if (!ui->paused && now >= *next) {
		sample(src, m, ui);
		/* the selection moves by itself only in follow mode (f) */
		if (*gen != m->gen || l->thermal_rows != model_thermal_rows(m))
			sync_layout(m, l, gen, w, h);
		else if (layout_follow_pressure(l, m))
			model_select(m, l->items[l->cur].kind, l->items[l->cur].index);
		*next += ui->interval_ns;
		if (*next <= now)
			*next = now + ui->interval_ns;
	}
	if (ui->paused)
		ui->dirty = true;	/* the wall clock in the header */
}

static int run_live(struct tp_source *src, const struct top_options *opts,
		    const struct glyphs *g, struct model *m, struct layout *l, struct ui *ui,
		    struct tp_error *err)
{
	unsigned gen = 0;
	uint64_t next;
	int w, h;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return tp_error_set(err, -ENOTTY,
				    "top needs a terminal (use --once to print one frame)");
	tui_stop = 0;
	term_signals(true);
	if (term_start(opts->no_color) < 0) {
		term_signals(false);
		return tp_error_set(err, -EIO, "cannot start the terminal (TERM=%s)",
				    getenv("TERM") ? getenv("TERM") : "");
	}
	model_sample(m, src, true);
	next = mono_ns() + ui->interval_ns;
	getmaxyx(stdscr, h, w);
	sync_layout(m, l, &gen, w, h);
	ui->dirty = true;

	while (!tui_stop && !ui->quit) {
		uint64_t now;
		int ch;

		redraw(g, m, l, ui, &gen, w, h);
		now = mono_ns();
		if (ui->paused) {
			timeout(1000);
		} else {
			uint64_t wait = next > now ? (next - now + 999999) / 1000000 : 0;
			timeout(wait > 1000 ? 1000 : (int)wait);
		}
		ch = getch();
		if (tui_stop)
			break;
		if (ch == ERR) {
			on_idle(src, m, l, ui, &gen, w, h, &next);
			continue;
		}
		if (ch == KEY_RESIZE) {
			getmaxyx(stdscr, h, w);
			sync_layout(m, l, &gen, w, h);
			ui->dirty = true;
			continue;
		}
		input_key(ch, src, m, l, ui);
		if (gen != m->gen)
			sync_layout(m, l, &gen, w, h);
		if (ui->paused && ch == 'p')
			next = mono_ns() + ui->interval_ns;
		else if (!ui->paused && ch == 'p')
			next = mono_ns();
	}
	term_stop();
	term_signals(false);
	return 0;
}

int top_run(struct tp_source *src, const struct top_options *opts, struct tp_error *err)
{
	const struct glyphs *g = term_glyphs(opts->no_unicode);
	struct model m;
	struct layout l;
	struct ui ui;
	int status;

	memset(&l, 0, sizeof(l));
	memset(&ui, 0, sizeof(ui));
	ui.interval_ns = opts->interval_ns ? opts->interval_ns : 1000000000ull;
	ui.vclock_step_ns = opts->vclock_step_ns;
	ui.source_desc = tp_source_describe(src);
	l.pick = !opts->once;	/* start on the most pressured domain, then stay */
	model_init(&m, src, opts->cpus);
	if (opts->once)
		status = run_once(src, opts, g, &m, &l, &ui, err);
	else
		status = run_live(src, opts, g, &m, &l, &ui, err);
	layout_free(&l);
	model_fini(&m);
	return status;
}
