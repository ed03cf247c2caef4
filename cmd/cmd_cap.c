/* SPDX-License-Identifier: MIT */
/* cap set, cap clear. */
#include <string.h>

#include "commands.h"

/* Parse a CPU list against the current topology; 0 or an exit status (reported). */
static int parse_cpus(struct cmd_ctx *ctx, const char *text, struct tp_cpuset *set)
{
	struct tp_snapshot snap = { 0 };
	struct tp_error err = { 0 };
	int rc = ctx_snapshot(ctx, &snap);

	if (!rc) {
		rc = tp_parse_cpulist(text, &snap, set, &err);
		if (rc < 0)
			rc = cmd_tp_error(ctx, rc, &err);
	}
	tp_snapshot_release(&snap);
	return rc;
}

static int exec_cap_set(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_cpuset set;
	struct tp_cap_value value;
	struct tp_error err = { 0 };
	int rc;

	/* Both arguments are checked before anything is applied. */
	rc = parse_cpus(ctx, argv[0], &set);
	if (rc)
		return rc;
	rc = tp_parse_cap_value(argv[1], &value, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	rc = tp_cap_set(ctx->src, &set, &value, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	return 0;
}

static int exec_cap_clear(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_cpuset set;
	struct tp_error err = { 0 };
	int rc = parse_cpus(ctx, argv[0], &set);

	if (rc)
		return rc;
	rc = tp_cap_clear(ctx->src, &set, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	return 0;
}

static void complete_cpus(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	if (argc == 0)
		cands_add(out, "all");
}

const struct cmd_entry cmd_cap_set_entry = {
	.path = "cap set",
	.args = "CPULIST VALUE",
	.summary = "cap the maximum frequency of CPUs",
	.help = "Caps the maximum frequency of every CPU of CPULIST (0-3,6, all, or a domain name "
		"such as big) as the cpufreq cooling device would.  VALUE is a frequency "
		"(2362000 in kHz, 2.36GHz, 1800MHz, 1800000kHz), a capped capacity (cap=600: "
		"the lowest frequency whose capacity is at least 600) or a percentage of each "
		"CPU's top frequency (60%).  Everything is checked before anything is applied: "
		"one bad CPU or value caps nothing.",
	.min_args = 2, .max_args = 2,
	.exec = exec_cap_set,
	.complete = complete_cpus,
};

const struct cmd_entry cmd_cap_clear_entry = {
	.path = "cap clear",
	.args = "CPULIST",
	.summary = "remove the frequency cap of CPUs",
	.help = "Removes the cap of every CPU of CPULIST (0-3,6, all, or a domain name).",
	.min_args = 1, .max_args = 1,
	.exec = exec_cap_clear,
	.complete = complete_cpus,
};
