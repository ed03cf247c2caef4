/* SPDX-License-Identifier: MIT */
/* sim advance, sim serve. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "signals.h"

static int exec_sim_advance(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_error err = { 0 };
	uint64_t ns;
	int rc = tp_parse_duration_ns(argv[0], 1000000ull, &ns, &err);

	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	if (!ctx_source(ctx))
		return ctx->status;
	rc = tp_sim_advance(ctx->src, ns, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc == -EINVAL ? -ENOTSUP : rc, &err);
	return 0;
}

/* --hz N: the tick rates the simulator offers. */
int parse_sim_hz(struct cmd_ctx *ctx, const char *text, int *hz)
{
	char canon[24];
	long v = strtol(text, NULL, 10);

	/* exactly as written: not "0250", "+250" or " 250" */
	snprintf(canon, sizeof(canon), "%ld", v);
	if (!strcmp(canon, text) && v > 0 && v <= 100000 && tp_sim_hz_valid((int)v)) {
		*hz = (int)v;
		return 0;
	}
	return cmd_error(ctx, EXIT_USAGE, "invalid tick rate '%s' (expected %s)", text,
			 tp_sim_hz_rates_text());
}

static int exec_sim_serve(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_open_options opts = ctx->opts;
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };
	const char *mountpoint = NULL;
	int status = 0, rc;

	opts.kind = TP_SOURCE_SIM;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;
		if (cmd_is_option(a, "--preset")) {
			if (!(v = cmd_option_value(ctx, "sim serve", argc, argv, &i, "--preset", &status)))
				return status;
			opts.sim_preset = v;
		} else if (cmd_is_option(a, "--hz")) {
			if (!(v = cmd_option_value(ctx, "sim serve", argc, argv, &i, "--hz", &status)))
				return status;
			if ((status = parse_sim_hz(ctx, v, &opts.sim_hz)))
				return status;
		} else if (!strcmp(a, "--virtual-clock")) {
			opts.sim_virtual_clock = true;
		} else if (cmd_is_option(a, "--scenario")) {
			if (!(v = cmd_option_value(ctx, "sim serve", argc, argv, &i, "--scenario", &status)))
				return status;
			opts.sim_scenario = v;
		} else if (a[0] == '-' && a[1]) {
			return cmd_error(ctx, EXIT_USAGE, "sim serve: unknown option '%s' (usage: "
					 "sim serve %s)", a, cmd_sim_serve_entry.args);
		} else if (mountpoint) {
			return cmd_error(ctx, EXIT_USAGE, "sim serve: unexpected argument '%s' "
					 "(usage: sim serve %s)", a, cmd_sim_serve_entry.args);
		} else {
			mountpoint = a;
		}
	}
	if (!mountpoint)
		return cmd_error(ctx, EXIT_USAGE, "sim serve: missing mount point (usage: sim serve %s)",
				 cmd_sim_serve_entry.args);

	/*
	 * The stop signals are caught before anything is mounted, so that one at any moment
	 * from here on ends in an unmount; the serve loop's poll() returns on a signal.  A
	 * server has no output to lose: a closed pipe (SIGPIPE) does not end it, a write to
	 * a closed stderr only fails.
	 */
	struct sigaction ign = { .sa_handler = SIG_IGN };

	exp_signals_install();
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);	/* exp_signals_restore() puts back the one from before */

	rc = tp_source_open(&opts, &src, &err);
	if (rc < 0) {
		status = cmd_tp_error(ctx, rc, &err);
	} else {
		fprintf(stderr, "thermpress: serving %s at %s (interrupt to stop)\n",
			tp_source_describe(src), mountpoint);
		rc = tp_sim_serve(src, mountpoint, &exp_stop, &err);
		if (rc < 0)
			status = cmd_error(ctx, EXIT_RUNTIME, "%s",
					   err.msg[0] ? err.msg : strerror(-rc));
		tp_source_close(src);
	}
	exp_signals_restore();
	/* unmounted by now: end as the signal would have (128 + signal) */
	if (status == 0)
		exp_signals_finish();
	return status;
}

static void complete_serve(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	if (argc && !strcmp(argv[argc - 1], "--preset")) {
		cands_add(out, "hikey960");
		cands_add(out, "db410c");
		cands_add(out, "smp:");
		return;
	}
	if (argc && !strcmp(argv[argc - 1], "--hz")) {
		cands_add(out, "100");
		cands_add(out, "250");
		cands_add(out, "1000");
		return;
	}
	if (argc && !strcmp(argv[argc - 1], "--scenario"))
		return;
	cands_add(out, "--preset");
	cands_add(out, "--hz");
	cands_add(out, "--virtual-clock");
	cands_add(out, "--scenario");
}

const struct cmd_entry cmd_sim_advance_entry = {
	.path = "sim advance",
	.args = "DURATION",
	.summary = "advance the simulator's virtual clock",
	.help = "Advances the simulator's virtual clock by DURATION (400 in ms, 400ms, 1s, 1.5s, "
		"250us), running every tick in between.  Needs a simulator on a virtual clock: "
		"--sim --virtual-clock, or --root on a tree served by sim serve --virtual-clock.  "
		"A one-shot thermpress --sim starts a fresh simulator each time, so advance the "
		"clock inside one script or shell, or use sim serve for a simulator that persists.",
	.min_args = 1, .max_args = 1,
	.exec = exec_sim_advance,
};

const struct cmd_entry cmd_sim_serve_entry = {
	.path = "sim serve",
	.args = "[--preset P] [--hz N] [--virtual-clock] [--scenario S] MOUNTPOINT",
	.summary = "serve the simulator as a kernel interface over FUSE",
	.help = "Runs a simulator and serves the patched kernel's interface (docs/abi.md) at "
		"MOUNTPOINT/sys/kernel/debug/sched/thermal_pressure with FUSE, in the foreground, "
		"until a signal stops it: SIGINT, SIGTERM, SIGHUP or SIGQUIT unmount it and exit "
		"with status 128 + the signal's number (SIGPIPE is ignored).  Another process then reads "
		"and steers it as it would a patched kernel: thermpress --root MOUNTPOINT.  The "
		"preset (hikey960, db410c, smp:N), tick rate (100, 250, 1000), virtual clock and "
		"scenario default to the global --sim, --hz and --virtual-clock options.",
	.min_args = 1, .max_args = -1,
	.flags = CMD_NO_SHELL,
	.exec = exec_sim_serve,
	.complete = complete_serve,
};
