/* SPDX-License-Identifier: MIT */
/* top: the live view (tui/, docs/top.md). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "exp_util.h"
#include "top.h"

extern const struct cmd_entry cmd_top_entry;

#define TOP_MIN_INTERVAL_NS 10000000ull	/* 10 ms */

static int exec_top(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct top_options opts = { .interval_ns = 1000000000ull };
	const char *cpus = NULL, *scenario = NULL, *v;
	struct tp_cpuset set;
	struct tp_error err = { 0 };
	struct tp_source *src;
	int status = 0, rc;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (cmd_is_option(a, "--interval")) {
			if (!(v = cmd_option_value(ctx, "top", argc, argv, &i, "--interval", &status)))
				return status;
			/* a bare number is in seconds, as in top -d */
			rc = tp_parse_duration_ns(v, 1000000000ull, &opts.interval_ns, &err);
			if (rc < 0)
				return cmd_tp_error(ctx, rc, &err);
			if (opts.interval_ns < TOP_MIN_INTERVAL_NS)
				return cmd_error(ctx, EXIT_USAGE,
						 "top: interval '%s' is too short (at least 10ms)", v);
		} else if (cmd_is_option(a, "--cpus")) {
			if (!(cpus = cmd_option_value(ctx, "top", argc, argv, &i, "--cpus", &status)))
				return status;
		} else if (cmd_is_option(a, "--scenario")) {
			if (!(scenario = cmd_option_value(ctx, "top", argc, argv, &i, "--scenario", &status)))
				return status;
		} else if (!strcmp(a, "--once")) {
			opts.once = true;
		} else {
			return cmd_error(ctx, EXIT_USAGE, "top: unknown %s '%s' (usage: top %s)",
					 a[0] == '-' ? "option" : "argument", a, cmd_top_entry.args);
		}
	}
	if (scenario) {
		if (ctx->opts.kind != TP_SOURCE_SIM)
			return cmd_error(ctx, EXIT_USAGE, "top: --scenario needs the simulator (--sim)");
		if (ctx->src)
			return cmd_error(ctx, EXIT_USAGE,
					 "top: --scenario must be given before the simulator starts "
					 "(run it as a one-shot command)");
		ctx->opts.sim_scenario = scenario;
	}
	src = ctx_source(ctx);
	if (!src)
		return ctx->status;
	if (cpus) {
		struct tp_snapshot snap = TP_SNAPSHOT_INIT;

		rc = ctx_snapshot(ctx, &snap);
		if (!rc) {
			rc = tp_parse_cpulist(cpus, &snap, &set, &err);
			if (rc < 0)
				rc = cmd_tp_error(ctx, rc, &err);
		}
		tp_snapshot_release(&snap);
		if (rc)
			return rc;
		opts.cpus = &set;
	}
	/* on the in-process simulator's virtual clock, each interval moves it by the interval */
	if (exp_virtual_clock(ctx))
		opts.vclock_step_ns = opts.interval_ns;
	fflush(stdout);
	/* a write error of --once stays in stdout's flags: main reports it at exit */
	rc = top_run(src, &opts, &err);
	if (rc < 0)
		return cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg);
	return 0;
}

static void complete_top(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	if (argc && !strcmp(argv[argc - 1], "--scenario")) {
		for (const char *const *s = tp_sim_scenarios(); *s; s++)
			cands_add(out, *s);
		return;
	}
	if (argc && (!strcmp(argv[argc - 1], "--interval") || !strcmp(argv[argc - 1], "--cpus")))
		return;
	cands_add(out, "--interval");
	cands_add(out, "--cpus");
	cands_add(out, "--once");
	cands_add(out, "--scenario");
}

const struct cmd_entry cmd_top_entry = {
	.path = "top",
	.args = "[--interval DURATION] [--cpus LIST] [--once] [--scenario NAME]",
	.summary = "live view of every CPU's capacity and thermal pressure",
	.help = "Shows every CPU (or those of --cpus LIST) grouped by frequency domain: a bar of "
		"its max capacity, its capped capacity and the capacity the scheduler uses (max "
		"minus the averaged pressure), the numbers, and a history plot of the selected CPU "
		"or cluster with the curves the other backends would give (estimates).  Keys: "
		"arrows select, c caps the selection (as cap set), x clears, b chooses the "
		"backend, + and - double and halve the decay period, p pauses, ? helps, q quits.  "
		"--interval DURATION samples every DURATION (default 1s; a bare number is in "
		"seconds).  On the simulator's virtual clock (--sim --virtual-clock) each interval "
		"also advances the clock by the interval.  --once prints one frame as plain text "
		"and exits.  --scenario NAME runs the simulator with a thermal scenario (heat).  "
		"See docs/top.md.",
	.min_args = 0, .max_args = -1,
	.flags = CMD_NO_SHELL,
	.exec = exec_top,
	.complete = complete_top,
};
