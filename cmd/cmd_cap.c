/* SPDX-License-Identifier: MIT */
/* cap set, cap clear. */
#include <errno.h>
#include <string.h>

#include <thermpress/stock.h>

#include "commands.h"

/*
 * Split argv into the positional words (want of them) and --via METHOD, with the
 * messages cmd_run_entry() gives for a wrong count.  0 or EXIT_USAGE (reported).
 */
static int split_via(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv,
		     char **pos, int want, const char **via)
{
	int n = 0;

	*via = NULL;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--via") == 0) {
			if (i + 1 == argc)
				return cmd_error(ctx, EXIT_USAGE,
						 "%s: --via needs a value (scaling_max_freq or cooling)",
						 e->path);
			if (*via)
				return cmd_error(ctx, EXIT_USAGE, "%s: --via given twice", e->path);
			*via = argv[++i];
		} else if (n < want) {
			pos[n++] = argv[i];
		} else {
			return cmd_error(ctx, EXIT_USAGE, "%s: unexpected argument '%s' (usage: %s %s)",
					 e->path, argv[i], e->path, e->args);
		}
	}
	if (n < want)
		return cmd_error(ctx, EXIT_USAGE, "%s: missing argument (usage: %s %s)", e->path,
				 e->path, e->args);
	return 0;
}

/*
 * Apply --via METHOD: parsed first, then refused on a source that is not a stock
 * kernel (a usage error), then chosen.  0 or an exit status (reported).
 */
static int apply_via(struct cmd_ctx *ctx, const char *via)
{
	enum tp_stock_cap_method method;
	struct tp_error err = { 0 };
	int rc;

	if (!via)
		return 0;
	rc = tp_stock_cap_method_parse(via, &method, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	rc = tp_stock_set_cap_method(ctx->src, method, &err);
	if (rc == -ENOTSUP)
		return cmd_error(ctx, EXIT_USAGE,
				 "--via only applies to a stock kernel (this is %s)",
				 tp_source_describe(ctx->src));
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	return 0;
}

static int exec_cap_set(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_cpuset set;
	struct tp_cap_value value;
	struct tp_error err = { 0 };
	char *pos[2];
	const char *via;
	int rc;

	rc = split_via(ctx, &cmd_cap_set_entry, argc, argv, pos, 2, &via);
	if (rc)
		return rc;
	/* Every argument is checked before anything is applied. */
	rc = ctx_parse_cpus(ctx, pos[0], &set);
	if (rc)
		return rc;
	rc = tp_parse_cap_value(pos[1], &value, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	rc = apply_via(ctx, via);
	if (rc)
		return rc;
	rc = tp_cap_set(ctx->src, &set, &value, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	return 0;
}

static int exec_cap_clear(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_cpuset set;
	struct tp_error err = { 0 };
	char *pos[1];
	const char *via;
	int rc;

	rc = split_via(ctx, &cmd_cap_clear_entry, argc, argv, pos, 1, &via);
	if (rc)
		return rc;
	rc = ctx_parse_cpus(ctx, pos[0], &set);
	if (rc)
		return rc;
	rc = apply_via(ctx, via);
	if (rc)
		return rc;
	rc = tp_cap_clear(ctx->src, &set, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	return 0;
}

/* CPULIST, then (after the positional words) --via and its methods. */
static void complete_via(int argc, char **argv, int positional, struct cmd_cands *out)
{
	if (argc == 0) {
		cands_add(out, "all");
	} else if (strcmp(argv[argc - 1], "--via") == 0) {
		cands_add(out, "scaling_max_freq");
		cands_add(out, "cooling");
	} else if (argc >= positional) {
		bool seen = false;
		for (int i = 0; i < argc; i++)
			seen |= strcmp(argv[i], "--via") == 0;
		if (!seen)
			cands_add(out, "--via");
	}
}

static void complete_cap_set(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	complete_via(argc, argv, 2, out);
}

static void complete_cap_clear(struct cmd_ctx *ctx, int argc, char **argv,
			       struct cmd_cands *out)
{
	complete_via(argc, argv, 1, out);
}

const struct cmd_entry cmd_cap_set_entry = {
	.path = "cap set",
	.args = "CPULIST VALUE [--via scaling_max_freq|cooling]",
	.summary = "cap the maximum frequency of CPUs",
	.help = "Caps the maximum frequency of every CPU of CPULIST (0-3,6, all, or a domain name "
		"such as big) as the cpufreq cooling device would.  VALUE is a frequency "
		"(2362000 in kHz, 2.36GHz, 1800MHz, 1800000kHz), a capped capacity (cap=600: "
		"the lowest frequency whose capacity is at least 600) or a percentage of each "
		"CPU's top frequency (60%).  Everything is checked before anything is applied: "
		"one bad CPU or value caps nothing.  On a stock kernel a whole frequency domain "
		"is capped, through its scaling_max_freq (the default, --via scaling_max_freq) or "
		"its cpufreq cooling device's cur_state (--via cooling), and every original limit "
		"is recorded in a state file first (see cap restore); --via is refused on any "
		"other source.",
	.min_args = 2, .max_args = 4,
	.exec = exec_cap_set,
	.complete = complete_cap_set,
};

const struct cmd_entry cmd_cap_clear_entry = {
	.path = "cap clear",
	.args = "CPULIST [--via scaling_max_freq|cooling]",
	.summary = "remove the frequency cap of CPUs",
	.help = "Removes the cap of every CPU of CPULIST (0-3,6, all, or a domain name).  On a "
		"stock kernel the recorded original limits of those CPUs' domains are written "
		"back (without a record: cpuinfo_max_freq, or cooling state 0 with --via "
		"cooling); --via names the limit to clear as for cap set and is refused on any "
		"other source.",
	.min_args = 1, .max_args = 3,
	.exec = exec_cap_clear,
	.complete = complete_cap_clear,
};
