/* SPDX-License-Identifier: MIT */
/* cap play: apply a cap profile over time, then restore every cap. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <thermpress/experiment.h>

#include "exp_clock.h"
#include "readin.h"

int exp_load_profile(struct cmd_ctx *ctx, const char *path, struct tp_profile *prof)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };
	int status, rc, fd = -1;
	FILE *fp = stdin;

	/* streamed, a line at a time (the reader's limits), from a file or a pipe only */
	if (strcmp(path, "-")) {
		fd = readin_open(AT_FDCWD, path, 0, READIN_STREAM);
		fp = fd < 0 ? NULL : fdopen(fd, "r");
		if (!fp) {
			if (fd >= 0)
				close(fd);
			return cmd_error(ctx, EXIT_RUNTIME, "cannot open %s: %s", path,
					 readin_strerror(fd < 0 ? fd : -errno));
		}
	}
	if ((status = ctx_snapshot(ctx, &snap)) == 0) {
		rc = tp_profile_read(fp, path, &snap, prof, &err);
		if (rc < 0)
			status = cmd_tp_error(ctx, rc, &err);
	}
	if (fp != stdin)
		fclose(fp);
	tp_snapshot_release(&snap);
	return status;
}

static const struct cmd_arg cap_play_pos[] = {
	{ .name = "PROFILE", .kind = &kind_file,
	  .help = "lines of TIME, CPULIST, VALUE (docs/experiments.md)" },
	{ 0 },
};

static int exec_cap_play(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_profile prof;
	struct tp_error err = { 0 };
	struct tp_play_options po = { 0 };
	int status, rc;

	if ((status = exp_load_profile(ctx, args->pos[0].text, &prof)))
		return status;
	po.virtual_clock = exp_virtual_clock(ctx);
	po.stop = &exp_stop;
	/* a signal only stops the player, which puts every cap back before it returns */
	exp_signals_install();
	rc = tp_source_journal(ctx->src, &err);
	if (rc == 0)
		rc = tp_profile_play(ctx->src, &prof, &po, &err);
	exp_signals_restore();
	tp_profile_free(&prof);
	if (rc < 0)
		return cmd_error(ctx, EXIT_RUNTIME, "cap play: %s", err.msg[0] ? err.msg :
				 strerror(-rc));
	if (rc > 0)	/* put back without the state file: said, not a failure */
		cmd_warning(ctx, "cap play: %s", err.msg);
	if (exp_stop) {
		status = exp_stop == SIGPIPE ? EXIT_RUNTIME :
			 cmd_error(ctx, EXIT_RUNTIME, "cap play: interrupted; every cap was restored");
		/* the interactive shell goes on (its ^C ends the command, not the shell) */
		if (ctx->mode != MODE_SHELL)
			exp_signals_finish();	/* 128 + signal */
	}
	return status;
}

const struct cmd_entry cmd_cap_play_entry = {
	.path = "cap play",
	.pos = cap_play_pos,
	.summary = "apply a cap profile over time, then restore the caps",
	.help = "Applies the caps of PROFILE at their times from now: lines of TIME, CPULIST, "
		"VALUE, where TIME is from the start (0, 250ms, 1.5s: a unit "
		"after every number but 0), "
		"CPULIST is as for cap set (commas allowed) and VALUE is what cap set takes, or "
		"clear.  '#' starts a comment.  The whole profile is checked first: a bad line "
		"applies nothing and names the line.  At the end, or on SIGINT, SIGTERM, SIGHUP, "
		"SIGQUIT or a closed output pipe (then ending as the signal would, exit status 128 "
		"+ signal), every CPU the profile touched gets back the cap it had before.  Every "
		"change is recorded in a state file first, so that `cap restore` undoes what a "
		"killed cap play left behind.  On a simulator with a "
		"virtual clock the clock is advanced to each step instead of waited for.",
	.exec = exec_cap_play,
};
