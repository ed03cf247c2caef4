/* SPDX-License-Identifier: MIT */
/*
 * cap hold, cap restore: caps that always come undone.
 *
 * To register them, table.c lists &cmd_cap_hold_entry and &cmd_cap_restore_entry
 * after &cmd_cap_clear_entry (and commands.h may declare them with the others).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include <thermpress/stock.h>

#include "commands.h"
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

static int exec_cap_hold(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_error err = { 0 };
	struct tp_cap_value value;
	struct tp_cpuset set;
	struct tp_limits *before = NULL;
	const char *cpus = NULL, *val = NULL, *dur = NULL, *via = NULL;
	enum tp_stock_cap_method method = TP_STOCK_CAP_SCALING_MAX_FREQ;
	uint64_t ns = 0, waited = 0;
	char list[256];
	int rc, status = 0;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--for") == 0 || strcmp(argv[i], "--via") == 0) {
			if (i + 1 == argc)
				return cmd_error(ctx, EXIT_USAGE, "%s needs a value", argv[i]);
			*(argv[i][2] == 'f' ? &dur : &via) = argv[i + 1];
			i++;
		} else if (!cpus) {
			cpus = argv[i];
		} else if (!val) {
			val = argv[i];
		} else {
			return cmd_error(ctx, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
		}
	}
	if (!cpus || !val)
		return cmd_error(ctx, EXIT_USAGE, "usage: cap hold CPULIST VALUE [--for DURATION] [--via METHOD]");
	/* everything is checked before anything is applied */
	rc = ctx_parse_cpus(ctx, cpus, &set);
	if (rc)
		return rc;
	rc = tp_parse_cap_value(val, &value, &err);
	if (rc == 0 && dur)
		rc = tp_parse_duration_ns(dur, 1000000000ull, &ns, &err);
	if (rc == 0 && via)
		rc = tp_stock_cap_method_parse(via, &method, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	if (via) {
		rc = tp_stock_set_cap_method(ctx->src, method, &err);
		if (rc == -ENOTSUP)
			return cmd_error(ctx, EXIT_USAGE,
					 "--via only applies to a stock kernel (this is %s)",
					 tp_source_describe(ctx->src));
		if (rc < 0)
			return cmd_tp_error(ctx, rc, &err);
	}

	/* from here on a signal only sets exp_stop: the caps are put back below */
	exp_signals_install();
	rc = tp_source_journal(ctx->src, &err);
	if (rc == 0)
		rc = tp_limits_save(ctx->src, &set, &before, &err);
	if (rc == 0 && !exp_stop)
		rc = tp_cap_set(ctx->src, &set, &value, &err);
	if (rc < 0) {
		status = cmd_tp_error(ctx, rc, &err);
		goto out;
	}
	tp_cpuset_format(&set, list, sizeof(list));
	if (exp_stop)
		;	/* stopped before the cap was set: nothing to announce */
	else if (dur)
		out_printf(ctx, "holding the cap on cpus %s at %s for %s (interrupt to end early)\n",
			   list, val, dur);
	else
		out_printf(ctx, "holding the cap on cpus %s at %s until interrupted\n", list, val);
	out_check_stdout(false);

	/* short sleeps: a signal ends one at once, and one that came just before is seen too */
	while (!exp_stop && (!dur || waited < ns)) {
		uint64_t step = dur && ns - waited < 100000000u ? ns - waited : 100000000u;
		struct timespec ts = { 0, (long)step }, left = { 0, 0 };

		if (nanosleep(&ts, &left) == 0)
			waited += step;
		else
			waited += step - (uint64_t)left.tv_nsec;
	}
	/* back to what was in force before the hold (an earlier cap set too) */
	rc = tp_limits_put_back(ctx->src, before, NULL, &err);
	if (rc < 0)
		status = cmd_tp_error(ctx, rc, &err);
	else if (exp_stop != SIGPIPE)
		out_printf(ctx, "restored cpus %s%s\n", list, signal_word(exp_stop));
out:
	tp_limits_free(before);
	exp_signals_restore();
	/* the caps are back: end as the signal would have (128 + signal) */
	if (status == 0)
		exp_signals_finish();
	return status;
}

static int exec_cap_restore(struct cmd_ctx *ctx, int argc, char **argv)
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

static void complete_hold(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	if (argc == 0)
		cands_add(out, "all");
	else if (argc >= 2 && strcmp(argv[argc - 1], "--via") == 0) {
		cands_add(out, "scaling_max_freq");
		cands_add(out, "cooling");
	} else if (argc >= 2) {
		cands_add(out, "--for");
		cands_add(out, "--via");
	}
}

const struct cmd_entry cmd_cap_hold_entry = {
	.path = "cap hold",
	.args = "CPULIST VALUE [--for DURATION] [--via scaling_max_freq|cooling]",
	.summary = "cap CPUs for a while, then put the limits back",
	.help = "Caps CPULIST at VALUE as cap set does, holds the cap for DURATION (30s, 500ms; "
		"without --for until interrupted) and then puts back the caps that were in force "
		"before (an earlier cap set stays).  SIGINT, SIGTERM, SIGHUP, SIGQUIT and a closed "
		"output pipe end the hold early: every limit is put back, then thermpress ends "
		"as the signal would (exit status 128 + signal).  On a stock kernel the cap goes "
		"through scaling_max_freq (the default) or the CPUs' cpufreq cooling device "
		"(--via cooling).  Every change is recorded in a state file first (also on the "
		"patched interface and a served simulator), so that `cap restore` undoes what a "
		"killed thermpress left behind.",
	.min_args = 2, .max_args = 6,
	.flags = CMD_NO_SHELL,
	.exec = exec_cap_hold,
	.complete = complete_hold,
};

const struct cmd_entry cmd_cap_restore_entry = {
	.path = "cap restore",
	.args = NULL,
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
	.min_args = 0, .max_args = 0,
	.exec = exec_cap_restore,
};
