/* SPDX-License-Identifier: MIT */
/* cap set, cap clear. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <thermpress/stock.h>

#include "commands.h"

int cap_apply_via(struct cmd_ctx *ctx, const struct cmd_parsed *via)
{
	struct tp_error err = { 0 };
	int rc;

	if (!via->given)
		return 0;
	if (!ctx_source(ctx))
		return ctx->status;
	rc = tp_stock_set_cap_method(ctx->src, (enum tp_stock_cap_method)via->v.i, &err);
	if (rc == -ENOTSUP)
		return cmd_usage_error(ctx, "--via only applies to a stock kernel (this is %s)",
				       tp_source_describe(ctx->src));
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	return 0;
}

int cap_check_bare(struct cmd_ctx *ctx, const struct tp_snapshot *snap,
		   const struct tp_cpuset *set, const char *text, char *warn, size_t len)
{
	struct tp_snapshot own = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };
	char one[256];
	int rc = 0;

	warn[0] = '\0';
	if (!snap) {
		if (ctx_snapshot(ctx, &own))
			return ctx->status;
		snap = &own;
	}
	for (size_t i = 0; i < snap->nr_cpus && !rc; i++) {
		if (!tp_cpuset_has(set, snap->cpus[i].cpu))
			continue;
		rc = tp_cap_check_bare(text, &snap->cpus[i], one, sizeof(one), &err);
		if (!warn[0])
			snprintf(warn, len, "%s", one);
	}
	tp_snapshot_release(&own);
	return rc < 0 ? cmd_usage_tp_error(ctx, rc, &err) : 0;
}

enum { POS_CPULIST, POS_VALUE };
enum { OPT_VIA };

static const struct cmd_arg cap_set_pos[] = {
	[POS_CPULIST] = CMD_POS_CPULIST,
	[POS_VALUE] = CMD_POS_CAP_VALUE,
	{ 0 },
};
static const struct cmd_arg cap_clear_pos[] = {
	[POS_CPULIST] = CMD_POS_CPULIST,
	{ 0 },
};
static const struct cmd_arg cap_via_opts[] = {
	[OPT_VIA] = CMD_OPT_VIA,
	{ 0 },
};

/*
 * One snapshot per command: the CPU list, the value's text and the value itself are
 * checked against it, and the caps are applied from it (tp_cap_set_in).
 */
static int exec_cap_set(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_cpuset set;
	struct tp_error err = { 0 };
	char warn[256] = "";
	int rc = ctx_snapshot(ctx, &snap);

	/* Every argument is checked before anything is applied. */
	if (!rc)
		rc = ctx_parse_cpus_in(ctx, &snap, args->pos[POS_CPULIST].text, &set);
	if (!rc)
		rc = cap_apply_via(ctx, &args->opt[OPT_VIA]);
	if (!rc)
		rc = cap_check_bare(ctx, &snap, &set, args->pos[POS_VALUE].text, warn,
				    sizeof(warn));
	/* the value checked against the CPUs' frequencies: a usage error is the VALUE's */
	if (!rc && (rc = tp_cap_set_in(ctx->src, &snap, &set, &args->pos[POS_VALUE].v.cap,
				       &err)) < 0)
		rc = cmd_usage_tp_error(ctx, rc, &err);
	if (!rc && warn[0])
		cmd_warning(ctx, "%s", warn);
	tp_snapshot_release(&snap);
	return rc;
}

static int exec_cap_clear(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_cpuset set;
	struct tp_error err = { 0 };
	int rc = ctx_snapshot(ctx, &snap);

	if (!rc)
		rc = ctx_parse_cpus_in(ctx, &snap, args->pos[POS_CPULIST].text, &set);
	if (!rc)
		rc = cap_apply_via(ctx, &args->opt[OPT_VIA]);
	if (!rc && (rc = tp_cap_clear_in(ctx->src, &snap, &set, &err)) < 0)
		rc = cmd_usage_tp_error(ctx, rc, &err);
	tp_snapshot_release(&snap);
	return rc;
}

const struct cmd_entry cmd_cap_set_entry = {
	.path = "cap set",
	.pos = cap_set_pos,
	.opts = cap_via_opts,
	.summary = "cap the maximum frequency of CPUs",
	.help = "Caps the maximum frequency of every CPU of CPULIST (0-3,6, all, or a domain name "
		"such as big) as the cpufreq cooling device would.  VALUE is a frequency "
		"(2362000 in kHz, 2.36GHz, 1800MHz, 1800000kHz), a capped capacity (cap=600: "
		"the lowest frequency whose capacity is at least 600) or a percentage of each "
		"CPU's top frequency (60%).  Whatever its unit, a VALUE whose frequency is outside "
		"the CPU's range (its lowest frequency where the source knows it, .. its "
		"maximum) is refused, with the range in kHz; a bare number is kHz, and one that "
		"reads as a slip gets a hint (did you mean 50%?).  Where the source does not "
		"know the lowest frequency, a frequency below a tenth of the maximum is applied "
		"with a warning.  Everything is checked before anything is applied: "
		"one bad CPU or value caps nothing.  On a stock kernel a whole frequency domain "
		"is capped, through its scaling_max_freq (the default, --via scaling_max_freq) or "
		"its cpufreq cooling device's cur_state (--via cooling), and every original limit "
		"is recorded in a state file first (see cap restore); --via is refused on any "
		"other source.",
	.flags = CMD_CHANGES,
	.exec = exec_cap_set,
};

const struct cmd_entry cmd_cap_clear_entry = {
	.path = "cap clear",
	.pos = cap_clear_pos,
	.opts = cap_via_opts,
	.summary = "remove the frequency cap of CPUs",
	.help = "Removes the cap of every CPU of CPULIST (0-3,6, all, or a domain name).  On a "
		"stock kernel the recorded original limits of those CPUs' domains are written "
		"back (without a record: cpuinfo_max_freq, or cooling state 0 with --via "
		"cooling); --via names the limit to clear as for cap set and is refused on any "
		"other source.",
	.flags = CMD_CHANGES,
	.exec = exec_cap_clear,
};
