/* SPDX-License-Identifier: MIT */
/*
 * The terminal: locale and glyphs, curses on and off, colours, signals.
 *
 * No curses call ever runs in a signal handler: SIGINT and SIGTERM only set
 * tui_stop, which the loop checks; resizes arrive as KEY_RESIZE from ncurses.
 * The terminal is restored on every way out: the loop's end, and atexit.
 */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

volatile sig_atomic_t tui_stop;

const struct glyphs glyphs_utf8 = {
	.utf8 = true,
	.full = "\u2588",
	.part = { "", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589" },
	.lost = "\u2591",
	.mark = "\u2502",
	.sel = "\u25b6",
	.hline = "\u2500",
	.p_inst = "\u00b7",
	.p_avg = "\u25cf",
	.heat = { "\u00b7", "\u2591", "\u2592", "\u2593", "\u2588" },
	.off = "x",
	.unknown = "?",
};

const struct glyphs glyphs_ascii = {
	.utf8 = false,
	.full = "#",
	.part = { "", "", "", "", "", "", "", "" },
	.lost = ".",
	.mark = "|",
	.sel = ">",
	.hline = "-",
	.p_inst = ".",
	.p_avg = "*",
	.heat = { ".", "-", "+", "*", "#" },
	.off = "x",
	.unknown = "?",
};

static bool curses_on;
static SCREEN *screen;
static bool atexit_done;
static int attrs[R_COUNT];
static struct sigaction old_int, old_term;

const struct glyphs *term_glyphs(bool no_unicode)
{
	const char *cs;

	setlocale(LC_ALL, "");
	/* numbers stay "1209.6" whatever the locale */
	setlocale(LC_NUMERIC, "C");
	cs = nl_langinfo(CODESET);
	if (no_unicode)
		return &glyphs_ascii;
	if (cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8")))
		return &glyphs_utf8;
	return &glyphs_ascii;
}

static void on_signal(int sig)
{
	(void)sig;
	tui_stop = 1;
}

void term_signals(bool on)
{
	if (on) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		/* no SA_RESTART: getch returns at once and the loop sees the flag */
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
	} else {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
}

static void set_colours(bool no_color)
{
	const char *nc = getenv("NO_COLOR");
	bool colour = has_colors() && !(nc && *nc) && !no_color;

	/* monochrome: attributes only */
	for (int r = 0; r < R_COUNT; r++)
		attrs[r] = A_NORMAL;
	attrs[R_HEADER] = A_BOLD;
	attrs[R_TITLE] = A_BOLD;
	attrs[R_DIM] = A_DIM;
	attrs[R_LOST] = A_DIM;
	attrs[R_MARK] = A_BOLD;
	attrs[R_SELECTED] = A_REVERSE;
	attrs[R_DOMAIN] = A_BOLD | A_UNDERLINE;
	attrs[R_ERROR] = A_BOLD | A_REVERSE;
	attrs[R_P_AVG] = A_BOLD;
	attrs[R_HEAT0] = A_DIM;
	attrs[R_HEAT4] = A_BOLD;
	if (!colour || start_color() == ERR)
		return;
	use_default_colors();
	static const short fg[R_COUNT] = {
		[R_TITLE] = COLOR_CYAN, [R_EFFECTIVE] = COLOR_GREEN, [R_LOST] = COLOR_WHITE,
		[R_MARK] = COLOR_RED, [R_DOMAIN] = COLOR_CYAN, [R_ERROR] = COLOR_RED,
		[R_GOOD] = COLOR_GREEN, [R_P_INST] = COLOR_YELLOW, [R_P_AVG] = COLOR_GREEN,
		/* no plain blue: dark blue on a dark background cannot be read */
		[R_SHADOW0] = COLOR_MAGENTA, [R_SHADOW1] = COLOR_CYAN, [R_SHADOW2] = COLOR_WHITE,
		[R_SHADOW3] = COLOR_BLUE,
		[R_HEAT0] = COLOR_GREEN, [R_HEAT1] = COLOR_YELLOW, [R_HEAT2] = COLOR_YELLOW,
		[R_HEAT3] = COLOR_RED, [R_HEAT4] = COLOR_RED,
	};
	for (int r = 0; r < R_COUNT; r++) {
		if (!fg[r] || r >= COLOR_PAIRS)
			continue;
		init_pair((short)r, fg[r], -1);
		attrs[r] = (attrs[r] & ~A_REVERSE) | COLOR_PAIR(r);
	}
	attrs[R_ERROR] = COLOR_PAIR(R_ERROR) | A_BOLD;
	attrs[R_SHADOW3] |= A_BOLD;	/* bright blue */
}

int term_attr(enum role r)
{
	return attrs[r];
}

int term_start(bool no_color)
{
	if (!atexit_done) {
		atexit(term_stop);
		atexit_done = true;
	}
	/* newterm, not initscr: initscr exits the process when it fails */
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return -1;
	set_term(screen);
	curses_on = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	leaveok(stdscr, TRUE);
	set_colours(no_color);
	return 0;
}

void term_stop(void)
{
	if (!curses_on)
		return;
	curses_on = false;
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
}
