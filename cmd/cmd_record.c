/* SPDX-License-Identifier: MIT */
/* record: sample the source into a trace (docs/experiments.md). */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <thermpress/experiment.h>
#include <thermpress/outfile.h>

#include "exp_util.h"
#include "fmt.h"

extern char **environ;

#define USAGE "record [--interval 10ms] [--duration 60s | -- COMMAND ...] " \
	      "[--format csv|jsonl|perfetto] [--reset|--no-reset] -o FILE"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	uint64_t now = mono_ns();
	struct timespec ts;

	if (now >= t)
		return;
	ts.tv_sec = (time_t)((t - now) / 1000000000ull);
	ts.tv_nsec = (long)((t - now) % 1000000000ull);
	nanosleep(&ts, NULL);	/* a signal ends it early: the loop looks at exp_stop */
}

static void progress(struct cmd_ctx *ctx, struct tp_recorder *rec, bool done)
{
	if (!exp_progress_enabled(ctx))
		return;
	if (done) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	char t[32];

	fprintf(stderr, "\rrecording: %s, %zu rows",
		fmt_time(t, sizeof(t), tp_recorder_elapsed_ns(rec)), tp_recorder_rows(rec));
}

/* 0, or the command's failure as a positive status word; -1 when it is still running. */
static int child_done(pid_t pid, int *wstatus)
{
	pid_t r = waitpid(pid, wstatus, WNOHANG);

	return r == pid ? 0 : -1;
}

static int exec_record(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_record_options ro = { .format = TP_TRACE_CSV, .interval_ns = 10000000ull };
	struct tp_error err = { 0 };
	uint64_t duration = 60ull * 1000000000ull;
	const char *out = NULL, *v;
	char **command = NULL;
	int reset = -1, status = 0, rc, wstatus = 0;
	bool have_duration = false;
	struct tp_recorder *rec = NULL;
	struct tp_outfile *of = NULL;
	FILE *fp = NULL;
	pid_t pid = -1;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			if (i + 1 >= argc)
				return cmd_error(ctx, EXIT_USAGE, "record: missing COMMAND after -- "
						 "(usage: %s)", USAGE);
			command = argv + i + 1;
			break;
		} else if (cmd_is_option(a, "--interval")) {
			if (!(v = cmd_option_value(ctx, "record", argc, argv, &i, "--interval", &status)))
				return status;
			if ((rc = tp_parse_duration_ns(v, 1000000ull, &ro.interval_ns, &err)))
				return cmd_tp_error(ctx, rc, &err);
		} else if (cmd_is_option(a, "--duration")) {
			if (!(v = cmd_option_value(ctx, "record", argc, argv, &i, "--duration", &status)))
				return status;
			if ((rc = tp_parse_duration_ns(v, 1000000000ull, &duration, &err)))
				return cmd_tp_error(ctx, rc, &err);
			have_duration = true;
		} else if (cmd_is_option(a, "--format")) {
			if (!(v = cmd_option_value(ctx, "record", argc, argv, &i, "--format", &status)))
				return status;
			if ((rc = tp_trace_format_parse(v, &ro.format, &err)))
				return cmd_tp_error(ctx, rc, &err);
		} else if (!strcmp(a, "--reset")) {
			reset = 1;
		} else if (!strcmp(a, "--no-reset")) {
			reset = 0;
		} else if (!strcmp(a, "-o") || cmd_is_option(a, "--output")) {
			if (!(v = cmd_option_value(ctx, "record", argc, argv, &i, a[1] == 'o' ? "-o" :
						   "--output", &status)))
				return status;
			out = v;
		} else {
			return cmd_error(ctx, EXIT_USAGE, "record: unexpected argument '%s' (usage: %s)",
					 a, USAGE);
		}
	}
	if (!out)
		return cmd_error(ctx, EXIT_USAGE, "record: missing -o FILE (usage: %s)", USAGE);
	if (command && have_duration)
		return cmd_error(ctx, EXIT_USAGE, "record: give --duration or -- COMMAND, not both");
	if (!ctx_source(ctx))
		return ctx->status;
	ro.restart_state = reset >= 0 ? reset : tp_source_kind(ctx->src) == TP_SOURCE_SIM;

	rc = tp_outfile_open(out, &of, &err);
	if (rc)
		return cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg);
	fp = tp_outfile_stream(of);
	/* the reset switches the backend away and back: recorded first, so a crash in
	 * between leaves something `cap restore` undoes */
	rc = ro.restart_state ? tp_source_journal(ctx->src, &err) : 0;
	if (rc == 0)
		rc = tp_recorder_open(ctx->src, fp, &ro, &rec, &err);
	if (rc)
		goto fail;
	if (command) {
		rc = posix_spawnp(&pid, command[0], NULL, NULL, command, environ);
		if (rc) {
			tp_error_set(&err, -rc, "cannot run %s: %s", command[0], strerror(rc));
			rc = -rc;
			goto fail;
		}
	}
	exp_signals_install();
	if (exp_virtual_clock(ctx)) {
		/* the clock moves only when advanced: one interval per real interval with a
		 * command, the whole duration at once (in steps, for progress) without */
		uint64_t left = duration;

		while (!exp_stop && (command ? child_done(pid, &wstatus) < 0 : left > 0)) {
			uint64_t step = command ? ro.interval_ns
						: left < 1000000000ull ? left : 1000000000ull;

			if (command)
				sleep_until(mono_ns() + ro.interval_ns);
			rc = tp_recorder_advance(rec, step, &err);
			if (rc)
				break;
			if (!command)
				left -= step;
			progress(ctx, rec, false);
		}
	} else {
		uint64_t start = mono_ns(), next = start + ro.interval_ns;

		while (!exp_stop && (command ? child_done(pid, &wstatus) < 0
					     : next <= start + duration)) {
			sleep_until(next);
			if (exp_stop)
				break;
			rc = tp_recorder_sample(rec, &err);
			if (rc)
				break;
			next += ro.interval_ns;
			if (next < mono_ns())	/* fell behind: skip, do not burst */
				next = mono_ns() + ro.interval_ns;
			progress(ctx, rec, false);
		}
	}
	exp_signals_restore();
	progress(ctx, rec, true);
	if (command && pid > 0 && child_done(pid, &wstatus) < 0) {
		/* interrupted: the command got the same signal from the terminal; wait for it */
		waitpid(pid, &wstatus, 0);
	}
	if (rc)
		goto fail;
	rc = tp_recorder_close(rec, &err);
	rec = NULL;
	if (rc)
		goto fail;
	rc = tp_outfile_commit(of, &err);
	of = NULL;
	if (rc)
		goto fail;
	if (command && (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)))
		cmd_warning(ctx, "%s %s %d; the trace is complete", command[0],
			    WIFEXITED(wstatus) ? "exited with status" : "was killed by signal",
			    WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
	return 0;
fail:
	if (rec)
		tp_recorder_close(rec, NULL);
	/* the output path is as it was: only our temporary file goes */
	tp_outfile_discard(of);
	if (pid > 0 && child_done(pid, &wstatus) < 0)
		waitpid(pid, &wstatus, 0);
	if (!strncmp(err.msg, "write error on the trace", 24)) {
		/* name the file the user gave */
		char msg[sizeof(err.msg)];

		snprintf(msg, sizeof(msg), "write error on %s%s", out, err.msg + 24);
		snprintf(err.msg, sizeof(err.msg), "%s", msg);
	}
	return cmd_tp_error(ctx, rc == -EINVAL ? -EIO : rc, &err);
}

static void complete_record(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	(void)ctx;
	if (argc && !strcmp(argv[argc - 1], "--format")) {
		cands_add(out, "csv");
		cands_add(out, "jsonl");
		cands_add(out, "perfetto");
		return;
	}
	cands_add(out, "--interval");
	cands_add(out, "--duration");
	cands_add(out, "--format");
	cands_add(out, "--reset");
	cands_add(out, "--no-reset");
	cands_add(out, "-o");
}

const struct cmd_entry cmd_record_entry = {
	.path = "record",
	.args = "[--interval 10ms] [--duration 60s | -- COMMAND ...] [--format csv|jsonl|perfetto] "
		"[--reset|--no-reset] -o FILE",
	.summary = "record the pressure of every CPU into a trace",
	.help = "Samples every CPU every --interval (default 10ms) for --duration (default 60s), "
		"or while COMMAND runs, and writes a trace to FILE (- for standard output): CSV "
		"with the columns time_ns, cpu, max_capacity, max_freq_khz, capped_freq_khz, "
		"pressure, avg_pressure, backend, decay_ms; JSON lines; or a Chrome/Perfetto JSON "
		"trace with one counter track per CPU and signal (--format perfetto), which "
		"ui.perfetto.dev opens.  --reset first restarts every CPU's averaging state (it "
		"switches the backend away and back) and records when, so that replay gives the "
		"recorded averages exactly; it is the default on the simulator, --no-reset turns "
		"it off.  On a simulator with a virtual clock the clock is advanced instead of "
		"waited for, tick by tick, and a sample is also written at every tick where a cap "
		"changed.  A progress line is shown on a terminal only.  A regular FILE is written "
		"to a temporary file and renamed into place when complete: a failed recording "
		"leaves it as it was; a device or FIFO is written in place and never removed.  "
		"See docs/experiments.md.",
	.min_args = 0, .max_args = -1,
	.flags = CMD_NO_SHELL,
	.exec = exec_record,
	.complete = complete_record,
};
