/* SPDX-License-Identifier: MIT */
/* top: the live view (tui/, docs/top.md). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "exp_clock.h"
#include "top.h"

extern const struct cmd_entry cmd_top_entry;

#define TOP_MIN_INTERVAL_NS 10000000ull	/* 10 ms */

enum { OPT_INTERVAL, OPT_DELAY, OPT_CPUS, OPT_ONCE, OPT_SCENARIO, OPT_NO_COLOR, OPT_NO_UNICODE };
static const struct cmd_arg top_opts[] = {
	[OPT_INTERVAL] = { .name = "--interval", .kind = &kind_duration, .value_name = "DURATION",
			   .min = (int64_t)TOP_MIN_INTERVAL_NS, .flags = ARG_REPEAT,
			   .help = "sample every DURATION (default 1s; 500ms, 1.5s)" },
	/* htop's -d: the same interval, a bare number in tenths of a second */
	[OPT_DELAY] = { .name = "--delay", .short_name = "-d", .kind = &kind_duration,
			.value_name = "TENTHS", .unit_ns = 100000000ull,
			.min = (int64_t)TOP_MIN_INTERVAL_NS, .flags = ARG_REPEAT,
			.help = "sample every TENTHS tenths of a second, as htop -d (10 is 1s; "
				"also a duration such as 500ms)" },
	[OPT_CPUS] = { .name = "--cpus", .kind = &kind_cpulist, .value_name = "LIST",
		       .flags = ARG_REPEAT, .help = "show these CPUs only" },
	[OPT_ONCE] = { .name = "--once", .help = "print one frame as plain text and exit" },
	[OPT_SCENARIO] = { .name = "--scenario", .kind = &kind_scenario, .value_name = "NAME",
			   .flags = ARG_REPEAT,
			   .help = "run the simulator with a thermal scenario (heat)" },
	[OPT_NO_COLOR] = { .name = "--no-color", .help = "no colours, as with NO_COLOR set" },
	[OPT_NO_UNICODE] = { .name = "--no-unicode",
			     .help = "ASCII drawing only, as in a locale that is not UTF-8" },
	{ 0 },
};

static int exec_top(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct top_options opts = { .interval_ns = 1000000000ull };
	const char *cpus = args->opt[OPT_CPUS].text, *scenario = args->opt[OPT_SCENARIO].text;
	struct tp_cpuset set;
	struct tp_error err = { 0 };
	struct tp_source *src;
	int rc;

	if (args->opt[OPT_INTERVAL].given && args->opt[OPT_DELAY].given)
		return cmd_usage_error(ctx, "--interval and --delay both set the interval "
				       "(give one)");
	if (args->opt[OPT_INTERVAL].given)
		opts.interval_ns = args->opt[OPT_INTERVAL].v.ns;
	if (args->opt[OPT_DELAY].given)
		opts.interval_ns = args->opt[OPT_DELAY].v.ns;
	opts.once = args->opt[OPT_ONCE].given;
	opts.no_color = args->opt[OPT_NO_COLOR].given;
	opts.no_unicode = args->opt[OPT_NO_UNICODE].given;
	if (scenario) {
		if (ctx->opts.kind != TP_SOURCE_SIM)
			return cmd_usage_error(ctx, "--scenario needs the simulator (--sim)");
		if (ctx->src)
			return cmd_usage_error(ctx, "--scenario must be given before the simulator "
					       "starts (run it as a one-shot command)");
		ctx->opts.sim_scenario = scenario;
	}
	src = ctx_source(ctx);
	if (!src)
		return ctx->status;
	if (cpus) {
		if ((rc = ctx_parse_cpus(ctx, cpus, &set)))
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

const struct cmd_entry cmd_top_entry = {
	.path = "top",
	.opts = top_opts,
	.summary = "live view of every CPU's capacity and thermal pressure",
	.help = "Shows every CPU (or those of --cpus LIST) grouped by frequency domain: a bar of "
		"its max capacity, its capped capacity and the capacity the scheduler uses (max "
		"minus the averaged pressure), the numbers, and a history plot of the selected CPU "
		"or cluster with the curves the other backends would give (estimates).  Keys: "
		"arrows or h/j/k/l select, f follows the most pressured domain (or stops), y switches the plot's y axis between fitted and 0..1024, c caps the selection (as cap set), x clears, b chooses the "
		"backend, + and - double and halve the decay period, p pauses, ? or F1 helps, q or "
		"F10 quits.  --interval DURATION samples every DURATION (default 1s; a "
		"duration takes its unit: 500ms, 1.5s); -d, --delay TENTHS is the same in tenths of "
		"a second, as htop's -d (5 is 0.5s).  --no-color and --no-unicode draw without colours (as NO_COLOR) and with "
		"ASCII only (as a locale that is not UTF-8).  On the simulator's virtual clock (--sim --virtual-clock) each interval "
		"also advances the clock by the interval.  --once prints one frame as plain text "
		"and exits.  --scenario NAME runs the simulator with a thermal scenario (heat).  "
		"See docs/top.md.",
	.flags = CMD_NO_SHELL,
	.exec = exec_top,
};
