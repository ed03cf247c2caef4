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

#include "exp_clock.h"
#include "clock.h"
#include "fmt.h"

extern char **environ;

enum { OPT_INTERVAL, OPT_DURATION, OPT_FORMAT, OPT_RESET, OPT_OUTPUT };
enum { POS_COMMAND };

static const struct cmd_arg record_opts[] = {
	[OPT_INTERVAL] = { .name = "--interval", .kind = &kind_duration, .value_name = "DURATION",
			   .flags = ARG_REPEAT,
			   .help = "sample every DURATION (default 10ms; 500us, 0.5s)" },
	[OPT_DURATION] = { .name = "--duration", .kind = &kind_duration, .value_name = "DURATION",
			   .flags = ARG_REPEAT,
			   .help = "record for DURATION (default 60s; 1.5s, 2min)" },
	[OPT_FORMAT] = { .name = "--format", .kind = &kind_trace_format,
			 .values = (const char *const[]){ "csv", "jsonl", "perfetto", NULL },
			 .flags = ARG_REPEAT, .help = "the trace format (default csv)" },
	[OPT_RESET] = { .name = "--reset", .no_name = "--no-reset", .flags = ARG_REPEAT,
			.help = "restart the averaging state first (default on the simulator)" },
	[OPT_OUTPUT] = { .name = "--output", .short_name = "-o", .kind = &kind_file,
			 .value_name = "FILE", .flags = ARG_REQUIRED | ARG_REPEAT,
			 .help = "the trace file (- for standard output)" },
	{ 0 },
};
static const struct cmd_arg record_pos[] = {
	[POS_COMMAND] = { .name = "COMMAND", .kind = &kind_words,
			  .flags = ARG_AFTER_DASHES | ARG_OPTIONAL,
			  .help = "record while COMMAND runs, instead of for --duration" },
	{ 0 },
};

/* One recording: what it writes to, and the command it follows. */
struct recording {
	struct tp_record_options ro;
	uint64_t duration;
	const char *out;
	char **command;
	struct tp_recorder *rec;
	struct tp_outfile *of;
	pid_t pid;
	int wstatus;
	struct tp_error err;
};

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

/*
 * The progress line: the time recorded and the samples (the word of the interrupted
 * line, record_interrupted()), and with a --duration (total > 0) the total and the
 * time left.
 */
static void progress(struct cmd_ctx *ctx, struct tp_recorder *rec, uint64_t total, bool done)
{
	if (!exp_progress_enabled(ctx))
		return;
	if (done) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	char t[32], all[32], left[32];
	uint64_t ns = tp_recorder_elapsed_ns(rec);
	size_t n = tp_recorder_samples(rec);

	fmt_time(t, sizeof(t), ns);
	if (!total) {
		fprintf(stderr, "\rrecording: %s, %zu sample%s\033[K", t, n, n == 1 ? "" : "s");
		return;
	}
	fprintf(stderr, "\rrecording: %s of %s, %zu sample%s, %s left\033[K", t,
		fmt_time(all, sizeof(all), total), n, n == 1 ? "" : "s",
		fmt_time(left, sizeof(left), ns < total ? total - ns : 0));
}

/* 0, or the command's failure as a positive status word; -1 when it is still running. */
static int child_done(pid_t pid, int *wstatus)
{
	pid_t r = waitpid(pid, wstatus, WNOHANG);

	return r == pid ? 0 : -1;
}

/* Restart the state if asked, start the recorder and the command. */
static int record_start(struct cmd_ctx *ctx, struct recording *r)
{
	int rc;

	/* the reset switches the backend away and back: recorded first, so a crash in
	 * between leaves something `cap restore` undoes */
	rc = r->ro.restart_state ? tp_source_journal(ctx->src, &r->err) : 0;
	if (rc == 0)
		rc = tp_recorder_open(ctx->src, tp_outfile_stream(r->of), &r->ro, &r->rec, &r->err);
	if (rc || !r->command)
		return rc;
	rc = posix_spawnp(&r->pid, r->command[0], NULL, NULL, r->command, environ);
	if (rc)
		return tp_error_set(&r->err, -rc, "cannot run %s: %s", r->command[0], strerror(rc));
	return 0;
}

/* Whether the recording goes on: the command runs, or the time is not over. */
static bool record_going(struct recording *r, bool time_left)
{
	if (exp_stop)
		return false;
	return r->command ? child_done(r->pid, &r->wstatus) < 0 : time_left;
}

/*
 * On a virtual clock the clock moves only when advanced: one interval per real interval
 * with a command, the whole duration at once (in steps, for progress) without.
 */
static int record_virtual(struct cmd_ctx *ctx, struct recording *r)
{
	uint64_t left = r->duration;
	int rc = 0;

	while (record_going(r, left > 0)) {
		uint64_t step = r->command ? r->ro.interval_ns
					   : left < 1000000000ull ? left : 1000000000ull;

		if (r->command)
			sleep_until(mono_ns() + r->ro.interval_ns);
		rc = tp_recorder_advance(r->rec, step, &r->err);
		if (rc)
			break;
		if (!r->command)
			left -= step;
		progress(ctx, r->rec, r->command ? 0 : r->duration, false);
	}
	return rc;
}

static int record_real(struct cmd_ctx *ctx, struct recording *r)
{
	uint64_t start = mono_ns(), next = start + r->ro.interval_ns;
	int rc = 0;

	while (record_going(r, next <= start + r->duration)) {
		sleep_until(next);
		if (exp_stop)
			break;
		rc = tp_recorder_sample(r->rec, &r->err);
		if (rc == -EINTR && exp_stop)
			rc = 0;		/* the signal cut a read short: keep what was written */
		if (rc)
			break;
		next += r->ro.interval_ns;
		if (next < mono_ns())	/* fell behind: skip, do not burst */
			next = mono_ns() + r->ro.interval_ns;
		progress(ctx, r->rec, r->command ? 0 : r->duration, false);
	}
	return rc;
}

/*
 * A trace with nothing to replay is still written, but said: no sample (the source
 * gave no CPU with values), or no pressure at all (nothing was capped).
 */
static void warn_flat(struct cmd_ctx *ctx, const struct recording *r, size_t rows,
		      int64_t peak)
{
	const char *name = strcmp(r->out, "-") ? r->out : "the trace";
	bool sim = tp_source_kind(ctx->src) == TP_SOURCE_SIM;

	if (!rows)
		cmd_warning(ctx, "%s has no samples: %s gave no CPU with values to record",
			    name, tp_source_describe(ctx->src));
	else if (peak <= 0)
		cmd_warning(ctx, "%s has no thermal pressure: no CPU was capped while recording%s",
			    name, sim ? " (--scenario heat makes the simulator cap CPUs, or cap "
			    "them from a script)" : "");
}

/* The trace complete: closed and put into place; then the command's failure said. */
static int record_finish(struct cmd_ctx *ctx, struct recording *r)
{
	size_t rows = tp_recorder_rows(r->rec);
	int64_t peak = tp_recorder_peak_pressure(r->rec);
	int rc = tp_recorder_close(r->rec, &r->err);

	r->rec = NULL;
	if (rc)
		return rc;
	rc = tp_outfile_commit(r->of, &r->err);
	r->of = NULL;
	if (rc)
		return rc;
	warn_flat(ctx, r, rows, peak);
	if (r->command && (!WIFEXITED(r->wstatus) || WEXITSTATUS(r->wstatus)))
		cmd_warning(ctx, "%s %s %d; the trace is complete", r->command[0],
			    WIFEXITED(r->wstatus) ? "exited with status" : "was killed by signal",
			    WIFEXITED(r->wstatus) ? WEXITSTATUS(r->wstatus) : WTERMSIG(r->wstatus));
	return 0;
}

static int record_fail(struct cmd_ctx *ctx, struct recording *r, int rc)
{
	if (r->rec)
		tp_recorder_close(r->rec, NULL);
	/* the output path is as it was: only our temporary file goes */
	tp_outfile_discard(r->of);
	if (r->pid > 0 && child_done(r->pid, &r->wstatus) < 0)
		waitpid(r->pid, &r->wstatus, 0);
	if (!strncmp(r->err.msg, "write error on the trace", 24)) {
		/* name the file the user gave */
		char msg[sizeof(r->err.msg)];

		snprintf(msg, sizeof(msg), "write error on %s%s", r->out, r->err.msg + 24);
		snprintf(r->err.msg, sizeof(r->err.msg), "%s", msg);
	}
	return cmd_tp_error(ctx, rc == -EINVAL ? -EIO : rc, &r->err);
}

/* The options into r; 0 or an exit status (reported). */
static int record_options(struct cmd_ctx *ctx, const struct cmd_args *args, struct recording *r)
{
	const struct cmd_parsed *o = args->opt;

	r->ro = (struct tp_record_options){ .format = TP_TRACE_CSV, .interval_ns = 10000000ull };
	r->duration = o[OPT_DURATION].given ? o[OPT_DURATION].v.ns : 60ull * 1000000000ull;
	if (o[OPT_INTERVAL].given)
		r->ro.interval_ns = o[OPT_INTERVAL].v.ns;
	if (o[OPT_FORMAT].given)
		r->ro.format = (enum tp_trace_format)o[OPT_FORMAT].v.i;
	r->out = o[OPT_OUTPUT].text;
	r->command = args->pos[POS_COMMAND].given ? args->words : NULL;
	r->pid = -1;
	if (r->command && o[OPT_DURATION].given)
		return cmd_usage_error(ctx, "give --duration or -- COMMAND, not both");
	if (!ctx_source(ctx))
		return ctx->status;
	r->ro.restart_state = o[OPT_RESET].given ? o[OPT_RESET].v.i
						 : tp_source_kind(ctx->src) == TP_SOURCE_SIM;
	return 0;
}

/*
 * Stopped by a signal: the trace is complete and in place; say what it holds, in one line.
 * Not for SIGPIPE: whoever read standard output has gone.
 */
static void record_interrupted(const struct recording *r, size_t samples, uint64_t ns)
{
	char t[32];

	if (exp_stop == SIGPIPE)
		return;
	fprintf(stderr, "thermpress: record interrupted: %zu sample%s over %s kept in %s\n",
		samples, samples == 1 ? "" : "s", fmt_time(t, sizeof(t), ns),
		strcmp(r->out, "-") ? r->out : "standard output");
}

static int exec_record(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct recording r = { 0 };
	size_t samples;
	uint64_t ns;
	int rc, status = record_options(ctx, args, &r);

	if (status)
		return status;
	if (tp_outfile_open(r.out, &r.of, &r.err))
		return cmd_error(ctx, EXIT_RUNTIME, "%s", r.err.msg);
	rc = record_start(ctx, &r);
	if (rc)
		return record_fail(ctx, &r, rc);
	exp_signals_install();
	rc = exp_virtual_clock(ctx) ? record_virtual(ctx, &r) : record_real(ctx, &r);
	exp_signals_restore();
	progress(ctx, r.rec, 0, true);
	if (r.command && r.pid > 0 && child_done(r.pid, &r.wstatus) < 0) {
		/* interrupted: the command got the same signal from the terminal; wait for it */
		waitpid(r.pid, &r.wstatus, 0);
	}
	samples = tp_recorder_samples(r.rec);
	ns = tp_recorder_elapsed_ns(r.rec);
	if (!rc)
		rc = record_finish(ctx, &r);
	if (rc)
		return record_fail(ctx, &r, rc);
	if (exp_stop) {
		record_interrupted(&r, samples, ns);
		exp_signals_finish();	/* 128 + signal: does not return */
	}
	return 0;
}

const struct cmd_entry cmd_record_entry = {
	.path = "record",
	.pos = record_pos,
	.opts = record_opts,
	.summary = "record the pressure of every CPU into a trace",
	.help = "Samples every CPU every --interval (default 10ms) for --duration (default 60s), "
		"or while COMMAND runs, and writes a trace to FILE (- for standard output): CSV "
		"with the columns time_ns, cpu, max_capacity, max_freq_khz, capped_freq_khz, "
		"pressure, avg_pressure, backend, decay_ms; JSON lines; or a Chrome/Perfetto JSON "
		"trace with one counter track per CPU and signal (--format perfetto), which the "
		"Perfetto trace viewer opens.  --reset first restarts every CPU's averaging state (it "
		"switches the backend away and back) and records when, so that replay gives the "
		"recorded averages exactly; it is the default on the simulator, --no-reset turns "
		"it off.  On a simulator with a virtual clock the clock is advanced instead of "
		"waited for, tick by tick, and a sample is also written at every tick where a cap "
		"changed.  A progress line, on a terminal only, gives the time and samples "
		"recorded, with --duration also the total and the time left.  A regular FILE is "
		"written to a temporary file and renamed into place when complete: a failed recording "
		"leaves it as it was; a device or FIFO is written in place and never removed.  "
		"Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT) ends the recording and keeps it: the "
		"trace is complete and in place, one line on stderr gives its samples, seconds "
		"and file, and the exit status is 128 + the signal (130).  "
		"See docs/experiments.md.",
	.flags = CMD_NO_SHELL,
	.exec = exec_record,
};
