/* SPDX-License-Identifier: MIT */
/* The experiment commands' pace: the source's clock, virtual or real, and progress lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp_clock.h"
#include "grow.h"

/* An error reading a served simulator's sim_clock leaves its clock real (info.clock). */
bool exp_virtual_clock(struct cmd_ctx *ctx)
{
	struct tp_source_info info;

	if (!ctx->src)
		return false;
	tp_source_info(ctx->src, &info, NULL);
	return info.kind == TP_SOURCE_SIM && info.clock == TP_CLOCK_VIRTUAL;
}

bool exp_any_virtual_clock(struct cmd_ctx *ctx)
{
	struct tp_source_info info;

	if (!ctx->src)
		return false;
	tp_source_info(ctx->src, &info, NULL);
	return info.clock == TP_CLOCK_VIRTUAL;
}

bool exp_progress_enabled(struct cmd_ctx *ctx)
{
	return !ctx->cli && isatty(STDERR_FILENO);
}
