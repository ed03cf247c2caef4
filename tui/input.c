/* SPDX-License-Identifier: MIT */
/*
 * Keys.  Every change goes through the library exactly as the one-shot commands do
 * (tp_parse_cap_value + tp_cap_set as `cap set`, tp_cap_clear, tp_backend_set,
 * tp_decay_set); a refused change leaves everything as it was and its error is
 * shown in the status line.  After a change the rows are refreshed at once.
 */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "tui.h"

void ui_status(struct ui *ui, bool err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ui->status, sizeof(ui->status), fmt, ap);
	va_end(ap);
	ui->status_err = err;
	ui->dirty = true;
}

static void sel_name(const struct model *m, const struct layout *l, char *buf, size_t len)
{
	const struct item *it = &l->items[l->cur];

	if (it->kind == SEL_DOMAIN) {
		snprintf(buf, len, "cluster %s", m->snap.domains[it->index].name);
	} else {
		snprintf(buf, len, "cpu %d", m->snap.cpus[it->index].cpu);
	}
}

/* After a change: refresh the rows and feed the shadows at the change's time. */
static void after_change(struct tp_source *src, struct model *m)
{
	model_sample(m, src, false);
}

static void do_cap(struct tp_source *src, struct model *m, struct layout *l, struct ui *ui)
{
	struct tp_cap_value v;
	struct tp_error err = { 0 };
	struct tp_cpuset set;
	char who[64], warn[256] = "", one[256];
	int rc;

	sel_name(m, l, who, sizeof(who));
	rc = tp_parse_cap_value(ui->input, &v, &err);
	if (rc >= 0) {
		model_sel_cpus(m, &set);
		/* a bare number, checked as cap set checks it (a slip for 50% or 50MHz) */
		for (size_t i = 0; i < m->snap.nr_cpus && rc >= 0; i++) {
			if (!tp_cpuset_has(&set, m->snap.cpus[i].cpu))
				continue;
			rc = tp_cap_check_bare(ui->input, &m->snap.cpus[i], one, sizeof(one), &err);
			if (!warn[0])
				snprintf(warn, sizeof(warn), "%s", one);
		}
	}
	if (rc >= 0)
		rc = tp_cap_set(src, &set, &v, &err);
	if (rc < 0) {
		ui_status(ui, true, "error: %s", err.msg[0] ? err.msg : "cap refused");
		return;
	}
	after_change(src, m);
	if (warn[0])
		ui_status(ui, true, "capped %s at %s; warning: %s", who, ui->input, warn);
	else
		ui_status(ui, false, "capped %s at %s", who, ui->input);
}

static void do_clear(struct tp_source *src, struct model *m, struct layout *l, struct ui *ui)
{
	struct tp_error err = { 0 };
	struct tp_cpuset set;
	char who[64];

	sel_name(m, l, who, sizeof(who));
	model_sel_cpus(m, &set);
	if (tp_cap_clear(src, &set, &err) < 0) {
		ui_status(ui, true, "error: %s", err.msg[0] ? err.msg : "clear refused");
		return;
	}
	after_change(src, m);
	ui_status(ui, false, "cleared the cap of %s", who);
}

static void open_menu(struct tp_source *src, struct ui *ui)
{
	struct tp_error err = { 0 };

	if (tp_backend_list(src, ui->backends, TP_MAX_BACKENDS, &ui->nbackends, &err) < 0) {
		ui_status(ui, true, "error: %s", err.msg[0] ? err.msg : "cannot list backends");
		return;
	}
	if (!ui->nbackends) {
		ui_status(ui, true, "error: the source offers no backend");
		return;
	}
	ui->menu_cur = 0;
	for (size_t i = 0; i < ui->nbackends; i++)
		if (ui->backends[i].active)
			ui->menu_cur = i;
	ui->mode = UI_MENU;
	ui->status[0] = '\0';
}

static void do_backend(struct tp_source *src, struct model *m, struct ui *ui)
{
	struct tp_error err = { 0 };
	const char *name = ui->backends[ui->menu_cur].name;

	ui->mode = UI_NORMAL;
	if (ui->backends[ui->menu_cur].active) {
		ui_status(ui, false, "backend %s already active", name);
		return;
	}
	if (tp_backend_set(src, name, 0, &err) < 0) {
		ui_status(ui, true, "error: %s", err.msg[0] ? err.msg : "backend refused");
		return;
	}
	after_change(src, m);
	ui_status(ui, false, "backend %s", name);
}

static void do_decay(struct tp_source *src, struct model *m, struct ui *ui, bool up)
{
	const struct tp_backend_ops *ops = NULL;
	struct tp_error err = { 0 };
	int64_t cur = m->snap.decay_ms;
	uint64_t want;
	char decay[32];

	if (m->plugins && m->snap.backend[0])
		ops = tp_plugins_find(m->plugins, m->snap.backend);
	if (!m->snap.backend[0] || cur < 0) {
		ui_status(ui, true, "error: the decay period in force is unknown");
		return;
	}
	if (ops && !ops->decay_max_ms) {
		ui_status(ui, true, "error: backend %s has no decay period", m->snap.backend);
		return;
	}
	want = up ? (uint64_t)cur * 2 : (uint64_t)cur / 2;
	if (ops && want > ops->decay_max_ms)
		want = ops->decay_max_ms;
	if (ops && want < ops->decay_min_ms)
		want = ops->decay_min_ms;
	if (want == (uint64_t)cur || want == 0) {
		ui_status(ui, true, "error: decay period already at its %s (%s)",
			  up ? "maximum" : "minimum", fmt_decay(decay, sizeof(decay), cur));
		return;
	}
	if (want > UINT32_MAX)
		want = UINT32_MAX;
	if (tp_decay_set(src, (uint32_t)want, &err) < 0) {
		ui_status(ui, true, "error: %s", err.msg[0] ? err.msg : "decay refused");
		return;
	}
	after_change(src, m);
	ui_status(ui, false, "decay period %s", fmt_decay(decay, sizeof(decay), m->snap.decay_ms));
}

static bool is_enter(int ch)
{
	return ch == '\n' || ch == '\r' || ch == KEY_ENTER;
}

static void key_prompt(int ch, struct tp_source *src, struct model *m, struct layout *l,
		       struct ui *ui)
{
	if (ch == 27) {
		ui->mode = UI_NORMAL;
		ui_status(ui, false, "cancelled");
	} else if (is_enter(ch)) {
		ui->mode = UI_NORMAL;
		if (!ui->input_len)
			ui_status(ui, false, "cancelled");
		else
			do_cap(src, m, l, ui);
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (ui->input_len)
			ui->input[--ui->input_len] = '\0';
	} else if (ch >= 0x20 && ch < 0x7f && ui->input_len + 1 < sizeof(ui->input)) {
		ui->input[ui->input_len++] = (char)ch;
		ui->input[ui->input_len] = '\0';
	}
}

static void key_menu(int ch, struct tp_source *src, struct model *m, struct ui *ui)
{
	if (ch == 27 || ch == 'q') {
		ui->mode = UI_NORMAL;
		ui_status(ui, false, "cancelled");
	} else if (ch == KEY_LEFT || ch == KEY_UP) {
		if (ui->menu_cur > 0)
			ui->menu_cur--;
	} else if (ch == KEY_RIGHT || ch == KEY_DOWN || ch == '\t' || ch == 'b') {
		ui->menu_cur = (ui->menu_cur + 1) % ui->nbackends;
	} else if (is_enter(ch)) {
		do_backend(src, m, ui);
	} else if (ch >= '1' && ch <= '9' && (size_t)(ch - '1') < ui->nbackends) {
		ui->menu_cur = (size_t)(ch - '1');
		do_backend(src, m, ui);
	}
}

/* The keys that move the selection; false for any other. */
static bool key_move(int ch, struct layout *l)
{
	switch (ch) {
	case KEY_UP:
	case 'k':
		layout_move(l, -1, 0);
		break;
	case KEY_DOWN:
	case 'j':
		layout_move(l, 1, 0);
		break;
	case KEY_LEFT:
	case 'h':
		layout_move(l, 0, -1);
		break;
	case KEY_RIGHT:
	case 'l':
		layout_move(l, 0, 1);
		break;
	case KEY_PPAGE:
		layout_move(l, -(l->list_h > 1 ? l->list_h - 1 : 1), 0);
		break;
	case KEY_NPAGE:
		layout_move(l, l->list_h > 1 ? l->list_h - 1 : 1, 0);
		break;
	case KEY_HOME:
		l->follow = false;
		l->cur = 0;
		layout_scroll(l);
		break;
	case KEY_END:
		l->follow = false;
		l->cur = l->nitems ? l->nitems - 1 : 0;
		layout_scroll(l);
		break;
	default:
		return false;
	}
	return true;
}

/* The prompt for a cap of the selection (c). */
static void open_cap_prompt(struct model *m, struct layout *l, struct ui *ui)
{
	char who[64];

	if (!l->nitems || !m->have_snap)
		return;
	l->follow = false;	/* what is capped stays selected */
	sel_name(m, l, who, sizeof(who));
	snprintf(ui->prompt, sizeof(ui->prompt), "cap %s at (1.8GHz, capped capacity cap=600, 60%%): ", who);
	ui->input[0] = '\0';
	ui->input_len = 0;
	ui->mode = UI_PROMPT;
}

/* The keys that act: quit, cap, clear, backend, decay, modes, pause, help. */
static void key_action(int ch, struct tp_source *src, struct model *m, struct layout *l,
		       struct ui *ui)
{
	switch (ch) {
	case 'q':
	case 'Q':
	case KEY_F(10):	/* htop's habits: F10 quits, F1 helps */
		ui->quit = true;
		break;
	case 'c':
		open_cap_prompt(m, l, ui);
		break;
	case 'x':
		l->follow = false;
		if (l->nitems && m->have_snap)
			do_clear(src, m, l, ui);
		break;
	case 'b':
		open_menu(src, ui);
		break;
	case '+':
	case '=':
		do_decay(src, m, ui, true);
		break;
	case '-':
	case '_':
		do_decay(src, m, ui, false);
		break;
	case 'f':
		/* the user's mode: the selection follows the most pressured domain */
		l->follow = !l->follow;
		if (l->follow)
			layout_follow_pressure(l, m);
		ui_status(ui, false, l->follow ? "following the most pressured %s (f stops)" :
			  "the selection stays where it is", l->grouped ? "cluster" : "cpu");
		break;
	case 'y':
		l->y_full = !l->y_full;
		ui_status(ui, false, l->y_full ? "plot: full scale 0..%d" :
			  "plot: y axis fitted to the data", TP_CAPACITY_SCALE);
		break;
	case 'p':
	case ' ':
		ui->paused = !ui->paused;
		ui_status(ui, false, ui->paused ? "paused" : "resumed");
		break;
	case '?':
	case KEY_F(1):
		ui->mode = UI_HELP;
		break;
	case 27:
		ui->status[0] = '\0';
		break;
	default:
		break;
	}
}

void input_key(int ch, struct tp_source *src, struct model *m, struct layout *l, struct ui *ui)
{
	ui->dirty = true;
	if (ui->mode == UI_PROMPT) {
		key_prompt(ch, src, m, l, ui);
		return;
	}
	if (ui->mode == UI_MENU) {
		key_menu(ch, src, m, ui);
		return;
	}
	if (ui->mode == UI_HELP) {
		ui->mode = UI_NORMAL;
		if (ch != 'q' && ch != KEY_F(10))
			return;
	}
	if (!key_move(ch, l))
		key_action(ch, src, m, l, ui);
	if (l->nitems)
		model_select(m, l->items[l->cur].kind, l->items[l->cur].index);
}
