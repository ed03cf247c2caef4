/* SPDX-License-Identifier: MIT */
/* sim advance, sim serve. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "signals.h"

static const struct cmd_arg sim_advance_pos[] = {
	{ .name = "DURATION", .kind = &kind_duration,
	  .help = "how far: 400ms, 1.5s, 250us" },
	{ 0 },
};

enum { OPT_PRESET, OPT_HZ, OPT_VIRTUAL_CLOCK, OPT_SCENARIO };
static const struct cmd_arg sim_serve_pos[] = {
	{ .name = "MOUNTPOINT", .kind = &kind_dir,
	  .help = "the directory to serve at (created when missing, removed again after)" },
	{ 0 },
};
static const struct cmd_arg sim_serve_opts[] = {
	[OPT_PRESET] = { .name = "--preset", .kind = &kind_preset, .value_name = "P",
			 .values = (const char *const[]){ "hikey960", "db410c", "smp:", NULL },
			 .flags = ARG_REPEAT,
			 .help = "the simulated machine: hikey960, db410c or smp:N (default: --sim's)" },
	[OPT_HZ] = CMD_OPT_HZ,
	[OPT_VIRTUAL_CLOCK] = { .name = "--virtual-clock",
				.help = "a virtual clock that only sim advance moves" },
	[OPT_SCENARIO] = { .name = "--scenario", .kind = &kind_scenario, .value_name = "S",
			   .flags = ARG_REPEAT, .help = "a thermal scenario (heat)" },
	{ 0 },
};

static int exec_sim_advance(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_error err = { 0 };
	uint64_t ns = args->pos[0].v.ns;
	int rc;

	if (!ctx_source(ctx))
		return ctx->status;
	rc = tp_sim_advance(ctx->src, ns, &err);
	if (rc == -EINVAL && ctx->opts.kind == TP_SOURCE_SIM && !ctx->opts.sim_virtual_clock)
		return cmd_usage_error(ctx, "the simulator runs on the real clock: add "
				       "--virtual-clock before the command (thermpress --sim "
				       "--virtual-clock ...) to advance its clock");
	if (rc < 0)
		return cmd_tp_error(ctx, rc == -EINVAL ? -ENOTSUP : rc, &err);
	return 0;
}

/*
 * A missing mountpoint is created (its parent must exist), and *created says so, for
 * removing it after; 0 or EXIT_RUNTIME (reported).
 */
static int make_mountpoint(struct cmd_ctx *ctx, const char *mountpoint, bool *created)
{
	struct stat st;

	*created = false;
	if (stat(mountpoint, &st) == 0 && !S_ISDIR(st.st_mode))
		return cmd_error(ctx, EXIT_RUNTIME, "mountpoint %s is not a directory", mountpoint);
	if (stat(mountpoint, &st) == 0 || errno != ENOENT)
		return 0;	/* there (or unreachable): the mount says what is wrong */
	if (mkdir(mountpoint, 0755))
		return cmd_error(ctx, EXIT_RUNTIME, "cannot create the mountpoint %s: %s%s",
				 mountpoint, strerror(errno),
				 errno == ENOENT ? " (its parent directory does not exist)" : "");
	*created = true;
	return 0;
}

static int exec_sim_serve(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_open_options opts = ctx->opts;
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };
	const char *mountpoint = args->pos[0].text;
	int status = 0, rc;
	bool created;

	opts.kind = TP_SOURCE_SIM;
	if (args->opt[OPT_PRESET].given)
		opts.sim_preset = args->opt[OPT_PRESET].text;
	if (args->opt[OPT_HZ].given)
		opts.sim_hz = (int)args->opt[OPT_HZ].v.i;
	if (args->opt[OPT_VIRTUAL_CLOCK].given)
		opts.sim_virtual_clock = true;
	if (args->opt[OPT_SCENARIO].given)
		opts.sim_scenario = args->opt[OPT_SCENARIO].text;

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

	status = make_mountpoint(ctx, mountpoint, &created);
	rc = status ? 0 : tp_source_open(&opts, &src, &err);
	if (rc < 0) {
		status = cmd_tp_error(ctx, rc, &err);
	} else if (!status) {
		fprintf(stderr, "thermpress: serving %s at %s (use it with thermpress --root %s); "
			"Ctrl-C or kill -INT %ld stops it\n", tp_source_describe(src), mountpoint,
			mountpoint, (long)getpid());
		rc = tp_sim_serve(src, mountpoint, &exp_stop, &err);
		if (rc < 0)
			status = cmd_error(ctx, EXIT_RUNTIME, "%s",
					   err.msg[0] ? err.msg : strerror(-rc));
		tp_source_close(src);
	}
	if (created && rmdir(mountpoint))
		cmd_warning(ctx, "cannot remove the mountpoint %s it created: %s", mountpoint,
			    strerror(errno));
	exp_signals_restore();
	/* unmounted by now: end as the signal would have (128 + signal) */
	if (status == 0)
		exp_signals_finish();
	return status;
}

const struct cmd_entry cmd_sim_advance_entry = {
	.path = "sim advance",
	.pos = sim_advance_pos,
	.summary = "advance the simulator's virtual clock",
	.help = "Advances the simulator's virtual clock by DURATION (400 in ms, 400ms, 1s, 1.5s, "
		"250us), running every tick in between.  Needs a simulator on a virtual clock: "
		"--sim --virtual-clock, or --root on a tree served by sim serve --virtual-clock.  "
		"A one-shot thermpress --sim starts a fresh simulator each time, so advance the "
		"clock inside one script or shell, or use sim serve for a simulator that persists.",
	.flags = CMD_CHANGES,
	.exec = exec_sim_advance,
};

const struct cmd_entry cmd_sim_serve_entry = {
	.path = "sim serve",
	.pos = sim_serve_pos,
	.opts = sim_serve_opts,
	.summary = "serve the simulator as a kernel interface over FUSE",
	.help = "Runs a simulator and serves the patched kernel's interface (docs/abi.md) at "
		"MOUNTPOINT/sys/kernel/debug/sched/thermal_pressure with FUSE, in the foreground "
		"(MOUNTPOINT is created when missing, and removed again at the end), "
		"until a signal stops it: SIGINT, SIGTERM, SIGHUP or SIGQUIT unmount it and exit "
		"with status 128 + the signal's number (SIGPIPE is ignored).  Another process then reads "
		"and steers it as it would a patched kernel: thermpress --root MOUNTPOINT.  The "
		"preset (hikey960, db410c, smp:N), tick rate (" TP_HZ_RATES_TEXT "), virtual clock and "
		"scenario default to the global --sim, --hz and --virtual-clock options.",
	.flags = CMD_NO_SHELL,
	.exec = exec_sim_serve,
};
