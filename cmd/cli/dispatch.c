/* SPDX-License-Identifier: MIT */
/* Running the command that words name: its mode, --help, its arguments parsed, exec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "signals.h"

/* COMMAND --help or -h (before any "--"), for a command whose words are not taken raw. */
static bool wants_help(const struct cmd_entry *e, int argc, char **argv)
{
	if (e->pos && (e->pos->flags & ARG_RAW))
		return false;
	for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/*
 * A change made by a one-shot --sim command ends with it (each process starts a fresh
 * simulator): say so once, and how to keep one.  Scripts and the shell keep theirs.
 */
static void note_sim_ends(struct cmd_ctx *ctx)
{
	char sim[64];

	if (ctx->mode != MODE_ONESHOT || ctx->opts.kind != TP_SOURCE_SIM)
		return;
	snprintf(sim, sizeof(sim), "--sim%s%.40s", ctx->opts.sim_preset ? "=" : "",
		 ctx->opts.sim_preset ? ctx->opts.sim_preset : "");
	cmd_note(ctx, "the simulator's state ends with this command; keep one running with a "
		 "script (thermpress %s -f FILE), the shell (thermpress %s shell) or sim serve "
		 "(thermpress %s sim serve DIR, then --root DIR)", sim, sim, sim);
}

int cmd_run_entry(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv)
{
	const struct cmd_entry *saved = ctx->entry;
	struct cmd_args args;
	char msg[512];

	if (cmd_mode_refuses(e, ctx->mode, msg, sizeof(msg)))
		return ctx->status = cmd_error(ctx, EXIT_USAGE, "%s", msg);
	if (wants_help(e, argc, argv)) {
		print_command_help(ctx, e);
		return ctx->status = 0;
	}
	ctx->entry = e;
	exp_stop = 0;	/* a stop asked before this command is not for it */
	ctx->status = args_parse(ctx, e, argc, argv, &args);
	if (!ctx->status) {
		ctx->cmd_json = ctx->json || args.json;
		ctx->status = e->exec(ctx, &args);
		ctx->cmd_json = false;
	}
	if (!ctx->status && (e->flags & CMD_CHANGES))
		note_sim_ends(ctx);
	ctx->entry = saved;
	return ctx->status;
}

int cmd_dispatch(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_match m;
	char msg[512];

	if (argc >= CMD_MAX_WORDS)
		return ctx->status = cmd_error(ctx, EXIT_USAGE, "too many words (at most %d)",
					       CMD_MAX_WORDS - 1);
	if (cmd_resolve(ctx->mode, argc, argv, &m, msg, sizeof(msg))) {
		/* "cap --help": COMMAND --help (-h) works for a group too, as help cap */
		if (!m.entry && *m.path && m.consumed < argc &&
		    (!strcmp(argv[m.consumed], "--help") || !strcmp(argv[m.consumed], "-h")))
			return ctx->status = print_help(ctx, m.consumed, argv);
		return ctx->status = cmd_error(ctx, EXIT_USAGE, "%s", msg);
	}
	return cmd_run_entry(ctx, m.entry, argc - m.consumed, argv + m.consumed);
}
