/* SPDX-License-Identifier: MIT */
/*
 * The live view behind `thermpress top` (docs/top.md), as a module the command links.
 *
 * top_run() draws the CPUs of an open source with ncursesw until the user quits
 * (q, SIGINT, SIGTERM), or, with once, prints one frame to opts->out as plain text
 * without touching the terminal.  Every change it makes (caps, backend, decay) goes
 * through the library exactly as the one-shot commands do.  It returns 0, or a
 * negative errno with the message in err for the command to report (it prints
 * nothing itself), and restores the terminal on every way out.  With once on stdout, a write error is left in stdout's
 * error flag for the caller to report (as it reports every other command's output).
 */
#ifndef THERMPRESS_TUI_TOP_H
#define THERMPRESS_TUI_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <thermpress/thermpress.h>

struct top_options {
	uint64_t interval_ns;		/* between samples; 0: 1 s */
	const struct tp_cpuset *cpus;	/* the CPUs shown; NULL: all */
	bool once;			/* one frame as plain text, then return */
	FILE *out;			/* for once; NULL: stdout */
	int width;			/* for once: columns; 0: $COLUMNS, else 120 */
	/*
	 * Nonzero on a virtual clock: before each sample the simulator's clock is
	 * advanced by this much (tp_sim_advance), so the view runs at one virtual
	 * interval per real interval.  The first frame is drawn without advancing.
	 */
	uint64_t vclock_step_ns;
	bool no_color;			/* monochrome, as with NO_COLOR */
	bool no_unicode;		/* ASCII glyphs, as in a locale that is not UTF-8 */
};

int top_run(struct tp_source *src, const struct top_options *opts, struct tp_error *err);

#endif
