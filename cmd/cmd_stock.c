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

extern const struct cmd_entry cmd_cap_hold_entry, cmd_cap_restore_entry;

static volatile sig_atomic_t hold_signal;

/* Only a flag: the restore runs in the main flow, never in the handler. */
static void on_hold_signal(int sig)
{
	hold_signal = sig;
}

static int exec_cap_hold(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_hold_signal }, old_int, old_term;
	struct tp_error err = { 0 };
	struct tp_cap_value value;
	struct tp_cpuset set;
	const char *cpus = NULL, *val = NULL, *dur = NULL, *via = NULL;
	enum tp_stock_cap_method method = TP_STOCK_CAP_SCALING_MAX_FREQ;
	uint64_t ns = 0;
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
	if (via && tp_source_kind(ctx->src) != TP_SOURCE_STOCK)
		return cmd_error(ctx, EXIT_USAGE, "--via only applies to a stock kernel (this is %s)",
				 tp_source_describe(ctx->src));
	if (via) {
		rc = tp_stock_set_cap_method(ctx->src, method, &err);
		if (rc < 0)
			return cmd_tp_error(ctx, rc, &err);
	}

	hold_signal = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = tp_cap_set(ctx->src, &set, &value, &err);
	if (rc < 0) {
		status = cmd_tp_error(ctx, rc, &err);
		goto out;
	}
	tp_cpuset_format(&set, list, sizeof(list));
	if (dur)
		out_printf(ctx, "holding the cap on cpus %s at %s for %s (interrupt to end early)\n",
			   list, val, dur);
	else
		out_printf(ctx, "holding the cap on cpus %s at %s until interrupted\n", list, val);
	out_check_stdout(false);

	/* sleep until the time is up or a signal comes; nanosleep returns early on one */
	struct timespec left = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (!hold_signal) {
		if (!dur) {
			pause();
			continue;
		}
		if (nanosleep(&left, &left) == 0)
			break;
	}
	rc = tp_cap_clear(ctx->src, &set, &err);
	if (rc < 0)
		status = cmd_tp_error(ctx, rc, &err);
	else
		out_printf(ctx, "restored cpus %s%s\n", list,
			   hold_signal == SIGINT ? " (interrupted)" :
			   hold_signal == SIGTERM ? " (terminated)" : "");
out:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	/* interrupted is not a failure: the caps are back, which is what was asked */
	return status;
}

static int exec_cap_restore(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_error err = { 0 };
	struct tp_source *src = ctx_source(ctx);
	size_t n = 0;
	int rc;

	if (!src)
		return ctx->status;
	if (tp_source_kind(src) != TP_SOURCE_STOCK)
		return cmd_error(ctx, EXIT_RUNTIME,
				 "cap restore undoes caps on a stock kernel; %s keeps no state file (use cap clear all)",
				 tp_source_describe(src));
	rc = tp_stock_restore(src, &n, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	if (n)
		out_printf(ctx, "restored %zu limit%s\n", n, n == 1 ? "" : "s");
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
		"without --for until interrupted) and then clears it.  SIGINT and SIGTERM end the "
		"hold early and still put every limit back.  On a stock kernel the cap goes "
		"through scaling_max_freq (the default) or the CPUs' cpufreq cooling device "
		"(--via cooling), and every original limit is recorded in a state file first, so "
		"that `cap restore` undoes what a killed thermpress left behind.",
	.min_args = 2, .max_args = 6,
	.flags = CMD_NO_SHELL,
	.exec = exec_cap_hold,
	.complete = complete_hold,
};

const struct cmd_entry cmd_cap_restore_entry = {
	.path = "cap restore",
	.args = NULL,
	.summary = "put back every limit thermpress changed on a stock kernel",
	.help = "Writes back every original limit recorded in the stock source's state file "
		"($THERMPRESS_STATE_DIR/caps.state, /run/thermpress/caps.state as root, "
		"$XDG_RUNTIME_DIR/thermpress/caps.state otherwise), including what a thermpress "
		"that was killed left behind.",
	.min_args = 0, .max_args = 0,
	.exec = exec_cap_restore,
};
