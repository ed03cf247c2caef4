/* SPDX-License-Identifier: MIT */
/* The source a command works on: opened on first use, once per process. */
#include <errno.h>
#include <string.h>

#include "cli.h"

struct tp_source *ctx_source(struct cmd_ctx *ctx)
{
	struct tp_error err = { 0 };
	int rc;

	if (ctx->src)
		return ctx->src;
	/* sim serve and top --scenario open their own simulator: only here is it wrong */
	if (ctx->opts.sim_scenario && ctx->opts.kind != TP_SOURCE_SIM) {
		ctx->status = cmd_error(ctx, EXIT_USAGE, "--scenario needs the simulator (--sim)");
		return NULL;
	}
	rc = tp_source_open(&ctx->opts, &ctx->src, &err);
	if (rc < 0) {
		ctx->src = NULL;
		ctx->status = cmd_tp_error(ctx, rc, &err);
		return NULL;
	}
	if (!ctx->warned) {
		const struct tp_plugin_set *set = tp_source_plugins(ctx->src);
		size_t n = set ? tp_plugins_warning_count(set) : 0;
		for (size_t i = 0; i < n; i++)
			cmd_warning(ctx, "%s", tp_plugins_warning(set, i));
		if (tp_source_plugin_error(ctx->src))
			cmd_warning(ctx, "%s (no backend summaries, no estimated averages)",
				    tp_source_plugin_error(ctx->src));
		ctx->warned = true;
	}
	return ctx->src;
}

int ctx_snapshot(struct cmd_ctx *ctx, struct tp_snapshot *snap)
{
	struct tp_error err = { 0 };
	struct tp_source *src = ctx_source(ctx);
	int rc;

	if (!src)
		return ctx->status;
	rc = tp_snapshot_take(src, snap, &err);
	if (rc < 0)
		return cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg[0] ? err.msg : strerror(-rc));
	return 0;
}

void ctx_close(struct cmd_ctx *ctx)
{
	if (ctx->src)
		tp_source_close(ctx->src);
	ctx->src = NULL;
}

int ctx_parse_cpus(struct cmd_ctx *ctx, const char *text, struct tp_cpuset *set)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	int rc = ctx_snapshot(ctx, &snap);

	if (!rc)
		rc = ctx_parse_cpus_in(ctx, &snap, text, set);
	tp_snapshot_release(&snap);
	return rc;
}

int ctx_parse_cpus_in(struct cmd_ctx *ctx, const struct tp_snapshot *snap, const char *text,
		      struct tp_cpuset *set)
{
	struct tp_error err = { 0 };
	int rc = tp_parse_cpulist(text, snap, set, &err);

	return rc < 0 ? cmd_usage_tp_error(ctx, rc, &err) : 0;
}
