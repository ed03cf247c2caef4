/* SPDX-License-Identifier: MIT */
/*
 * cap hold, cap restore: caps that always come undone.
 *
 * To register them, table.c lists &cmd_cap_hold_entry and &cmd_cap_restore_entry
 * after &cmd_cap_clear_entry (and commands.h may declare them with the others).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <thermpress/stock.h>

#include "commands.h"
#include "exp_clock.h"
#include "signals.h"

extern const struct cmd_entry cmd_cap_hold_entry, cmd_cap_restore_entry;

static const char *signal_word(int sig)
{
	switch (sig) {
	case SIGINT: return " (interrupted)";
	case SIGTERM: return " (terminated)";
	case SIGHUP: return " (hangup)";
	case SIGQUIT: return " (quit)";
	default: return "";
	}
}

enum { POS_CPULIST, POS_VALUE };
enum { OPT_FOR, OPT_VIA };

static const struct cmd_arg cap_hold_pos[] = {
	[POS_CPULIST] = CMD_POS_CPULIST,
	[POS_VALUE] = CMD_POS_CAP_VALUE,
	{ 0 },
};
static const struct cmd_arg cap_hold_opts[] = {
	[OPT_FOR] = { .name = "--for", .kind = &kind_duration, .value_name = "DURATION",
		      .flags = ARG_REPEAT,
		      .help = "how long to hold the cap (30s, 2min); default: until interrupted" },
	[OPT_VIA] = CMD_OPT_VIA,
	{ 0 },
};

/* Sleep in short steps until the hold ends: a signal ends one at once, and one that came
 * just before is seen too.  dur_ns 0: until a signal. */
static void hold_sleep(uint64_t dur_ns)
{
	uint64_t waited = 0;

	while (!exp_stop && (!dur_ns || waited < dur_ns)) {
		uint64_t step = dur_ns && dur_ns - waited < 100000000u ? dur_ns - waited : 100000000u;
		struct timespec ts = { 0, (long)step }, left = { 0, 0 };

		if (nanosleep(&ts, &left) == 0)
			waited += step;
		else
			waited += step - (uint64_t)left.tv_nsec;
	}
}

/*
 * The hold's time.  On the in-process simulator's virtual clock, --for advances the clock
 * instead of waiting for it (as record and cap play do), a second at a time so that a
 * signal ends it; without --for the clock stays where it is until a signal.  0, or
 * -errno with err set when the clock could not be advanced (the hold then ends).
 */
static int hold_wait(struct cmd_ctx *ctx, uint64_t dur_ns, struct tp_error *err)
{
	uint64_t done = 0;

	if (!dur_ns || !exp_virtual_clock(ctx)) {
		hold_sleep(dur_ns);
		return 0;
	}
	while (!exp_stop && done < dur_ns) {
		uint64_t step = dur_ns - done < 1000000000u ? dur_ns - done : 1000000000u;
		int rc = tp_sim_advance(ctx->src, step, err);

		if (rc < 0)
			return rc;
		done += step;
	}
	return 0;
}

/*
 * Record, save and cap.  Where the source keeps a ledger of holds (*ledger), the hold is
 * entered there and its end gives each CPU what the ledger says; elsewhere *before gets
 * the limits to put back.  0 or an exit status.
 */
/* Whether standard error takes a line at once (a pipe: PIPE_BUF bytes free); the
 * interactive shell's messages go to its terminal. */
static bool stderr_takes_it(const struct cmd_ctx *ctx)
{
	struct pollfd pfd = { .fd = STDERR_FILENO, .events = POLLOUT };

	return ctx->cli || (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT));
}

static int hold_apply(struct cmd_ctx *ctx, const struct cmd_args *args,
		      const struct tp_cpuset *set, struct tp_limits **before, bool *ledger,
		      char *warn, size_t warn_len)
{
	struct tp_error err = { 0 };
	int rc = cap_check_bare(ctx, NULL, set, args->pos[POS_VALUE].text, warn, warn_len);

	if (rc)
		return rc;
	rc = tp_hold_begin(ctx->src, &err);
	*ledger = rc == 0;
	if (rc == -ENOTSUP) {
		rc = tp_source_journal(ctx->src, &err);
		if (rc == 0)
			rc = tp_limits_save(ctx->src, set, before, &err);
	}
	if (rc == 0 && !exp_stop)
		rc = tp_cap_set(ctx->src, set, &args->pos[POS_VALUE].v.cap, &err);
	if (rc < 0 && *ledger) {
		tp_hold_end(ctx->src, NULL, NULL);	/* out of the ledger again */
		*ledger = false;
	}
	/* said now when standard error takes it, else after the hold (a full pipe must not
	 * keep the cap past its time): warn is then left for the caller */
	if (rc == 0 && warn[0] && stderr_takes_it(ctx)) {
		cmd_warning(ctx, "%s", warn);
		warn[0] = '\0';
	}
	if (rc < 0)
		warn[0] = '\0';
	return rc < 0 ? cmd_usage_tp_error(ctx, rc, &err) : 0;
}

/* The hold's end: each CPU back to what the ledger says, or to the limits saved before. */
static int hold_end(struct cmd_ctx *ctx, bool ledger, const struct tp_limits *before,
		    const char *list)
{
	struct tp_error err = { 0 };
	struct tp_cpuset left;
	char which[256];
	int rc = ledger ? tp_hold_end(ctx->src, &left, &err)
			: tp_limits_put_back(ctx->src, before, NULL, &err);

	if (rc > 0)	/* put back without the ledger: said, not a failure */
		cmd_warning(ctx, "%s", err.msg);
	if (rc >= 0)
		return 0;
	if (ledger && tp_cpuset_count(&left))
		tp_cpuset_format(&left, which, sizeof(which));
	else
		snprintf(which, sizeof(which), "%s", list);
	/* say what may remain, and how to undo it */
	return cmd_error(ctx, EXIT_RUNTIME,
			 "%s; cpus %s may still carry this hold's cap: undo it with "
			 "'thermpress cap restore' (with the same --root), or with "
			 "'thermpress cap clear %s' where the state file is gone",
			 err.msg[0] ? err.msg : strerror(-rc), which, which);
}

/*
 * One line of the hold's own output, only when standard output takes it at once: a full
 * pipe (a reader that does not read) must not keep the cap past its time.  A line left
 * out is counted in *dropped and named at the end.
 */
static void hold_say(struct cmd_ctx *ctx, unsigned *dropped, const char *fmt, const char *a,
		     const char *b, const char *c)
{
	struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };

	if (!ctx->cli && (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT))) {
		(*dropped)++;
		return;
	}
	out_printf(ctx, fmt, a, b, c);
	out_check_stdout(false);
}

static void hold_announce(struct cmd_ctx *ctx, const struct cmd_args *args, const char *list,
			  unsigned *dropped)
{
	const struct cmd_parsed *dur = &args->opt[OPT_FOR];
	const char *val = args->pos[POS_VALUE].text;

	if (exp_stop)
		;	/* stopped before the cap was set: nothing to announce */
	else if (dur->given && exp_virtual_clock(ctx))
		hold_say(ctx, dropped, "holding the cap on cpus %s at %s for %s of the virtual clock "
			 "(advanced at once)\n", list, val, dur->text);
	else if (dur->given)
		hold_say(ctx, dropped, "holding the cap on cpus %s at %s for %s (interrupt to end early)\n",
			 list, val, dur->text);
	else
		hold_say(ctx, dropped, "holding the cap on cpus %s at %s until interrupted\n%s", list,
			 val, "");
}

static int exec_cap_hold(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_cpuset set;
	struct tp_limits *before = NULL;
	char list[256];
	struct tp_error err = { 0 };
	unsigned dropped = 0;
	bool ledger = false;
	char late_warning[256] = "";
	int status, wait_rc;

	/* everything is checked before anything is applied */
	status = ctx_parse_cpus(ctx, args->pos[POS_CPULIST].text, &set);
	if (!status)
		status = cap_apply_via(ctx, &args->opt[OPT_VIA]);
	if (status)
		return status;

	/* from here on a signal only sets exp_stop: the caps are put back below */
	exp_signals_install();
	status = hold_apply(ctx, args, &set, &before, &ledger, late_warning, sizeof(late_warning));
	if (status)
		goto out;
	tp_cpuset_format(&set, list, sizeof(list));
	hold_announce(ctx, args, list, &dropped);
	wait_rc = hold_wait(ctx, args->opt[OPT_FOR].given ? args->opt[OPT_FOR].v.ns : 0, &err);
	/* back to what was in force before the hold (an earlier cap set too), or to the cap
	 * of the most recent holder still holding */
	status = hold_end(ctx, ledger, before, list);
	if (late_warning[0])	/* the caps are back: now it may wait for standard error */
		cmd_warning(ctx, "%s", late_warning);
	if (!status && exp_stop != SIGPIPE)
		hold_say(ctx, &dropped, "restored cpus %s%s\n%s", list, signal_word(exp_stop), "");
	if (!status && wait_rc < 0)	/* the clock could not be advanced: the hold ended early */
		status = cmd_tp_error(ctx, wait_rc, &err);
	if (dropped && exp_stop != SIGPIPE) {
		const char *what = "standard output took nothing without waiting: %u %s of the hold "
				   "left out (the cap ended on time)";

		if (status || exp_stop)
			cmd_warning(ctx, what, dropped, dropped == 1 ? "line" : "lines");
		else
			status = cmd_error(ctx, EXIT_RUNTIME, what, dropped,
					   dropped == 1 ? "line" : "lines");
	}
out:
	tp_limits_free(before);
	exp_signals_restore();
	/* the caps are back: end as the signal would have (128 + signal) */
	if (status == 0)
		exp_signals_finish();
	return status;
}

static int exec_cap_restore(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_error err = { 0 };
	struct tp_restore_report rep;
	struct tp_source *src = ctx_source(ctx);
	int rc;

	if (!src)
		return ctx->status;
	rc = tp_restore(src, &rep, &err);
	if (rc == -ENOTSUP)	/* the in-process simulator */
		return cmd_error(ctx, EXIT_RUNTIME,
				 "cap restore undoes what thermpress recorded in a state file; %s keeps none: "
				 "nothing it changed outlives the process (use cap clear all)",
				 tp_source_describe(src));
	if (rep.skipped_text[0])
		cmd_warning(ctx, "%s", rep.skipped_text);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	if (rep.restored)
		out_printf(ctx, "restored %zu %s%s\n", rep.restored,
			   tp_source_kind(src) == TP_SOURCE_STOCK ? "limit" : "change",
			   rep.restored == 1 ? "" : "s");
	else
		out_printf(ctx, "nothing to restore\n");
	return 0;
}

const struct cmd_entry cmd_cap_hold_entry = {
	.path = "cap hold",
	.pos = cap_hold_pos,
	.opts = cap_hold_opts,
	.summary = "cap CPUs for a while, then put the limits back",
	.help = "Caps CPULIST at VALUE as cap set does, holds the cap for DURATION (30s, 500ms; "
		"without --for until interrupted) and then puts back the caps that were in force "
		"before (an earlier cap set stays).  SIGINT, SIGTERM, SIGHUP, SIGQUIT and a closed "
		"output pipe end the hold early: every limit is put back, then thermpress ends "
		"as the signal would (exit status 128 + signal).  On a stock kernel the cap goes "
		"through scaling_max_freq (the default) or the CPUs' cpufreq cooling device "
		"(--via cooling).  Every change is recorded in a state file first (also on the "
		"patched interface and a served simulator), so that `cap restore` undoes what a "
		"killed thermpress left behind.  Holds nest: while several processes hold one CPU "
		"(on a stock kernel one policy) it carries the cap of the most recent one still "
		"holding, and after the last one ends what it had before the first "
		"(docs/state.md).  The hold's lines are written only when standard output takes "
		"them at once: a full pipe never keeps the cap past its time (a line left out is "
		"named on stderr, exit status 1).  On the simulator with a virtual clock (--sim "
		"--virtual-clock) --for advances the clock by DURATION at once instead of waiting, "
		"as record and cap play do; without --for the clock stands still until interrupted.",
	.flags = CMD_NO_SHELL,
	.exec = exec_cap_hold,
};

const struct cmd_entry cmd_cap_restore_entry = {
	.path = "cap restore",
	.summary = "put back every cap, backend and decay thermpress recorded",
	.help = "Writes back everything recorded in the source's state file, including what a "
		"thermpress that was killed left behind: on a stock kernel every original limit "
		"(cap set, cap hold, cap play record them in caps.state: $THERMPRESS_STATE_DIR, "
		"ROOT/run/thermpress under a --root, /run/thermpress as root, "
		"$XDG_RUNTIME_DIR/thermpress or /tmp/thermpress-UID otherwise); on the patched "
		"interface or a served simulator the caps, backend and decay periods that cap hold, "
		"cap play and bench changed (patched-HASH.state in the same directory).  Damaged "
		"lines of the file are named and skipped; an unreadable file is an error.  The "
		"in-process simulator keeps no state file.",
	.exec = exec_cap_restore,
};
