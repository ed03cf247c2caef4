/* SPDX-License-Identifier: MIT */
/*
 * Ending on a signal without leaving a change behind: the one mechanism for every
 * command that changes caps, backend or decay for a while (cap hold, cap play,
 * bench, record; sim serve).
 *
 *	exp_signals_install();		before the first change
 *	... work, looking at exp_stop (also handed to the library as a stop flag) ...
 *	... put back what was changed ...
 *	exp_signals_restore();
 *	exp_signals_finish();		ends the process as the signal would have
 *
 * The handlers only record the signal in exp_stop; nothing is undone in a handler.
 * A closed output pipe counts as SIGPIPE, also while nothing is written: a thread
 * watches standard output when it is a pipe or socket and raises SIGPIPE once its
 * reader has gone (`thermpress cap hold big 60% | head -c1`).
 */
#ifndef THERMPRESS_CMD_SIGNALS_H
#define THERMPRESS_CMD_SIGNALS_H

#include <signal.h>

/* 0, or the first signal that asked to stop (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE). */
extern volatile sig_atomic_t exp_stop;

/* Catch the stop signals, watch standard output.  Not nested.  exp_stop is cleared
 * before each command (cmd_run_entry), not here: a stop that came while the command
 * was starting still counts. */
void exp_signals_install(void);
/* The dispositions from before exp_signals_install(); exp_stop keeps its value. */
void exp_signals_restore(void);
/*
 * After exp_signals_restore(): when a signal asked to stop, flush what can be
 * flushed and re-raise it with its default action (exit status 128 + signal, no core
 * dump for SIGQUIT); otherwise return.
 */
void exp_signals_finish(void);
/* Block the stop signals in the calling thread (helper threads: they reach the main one). */
void exp_signals_block_here(void);

#endif
