/* SPDX-License-Identifier: MIT */
/* bench: run a workload under each backend and decay period (docs/experiments.md). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <json-c/json.h>
#include <thermpress/experiment.h>

#include "bench_probe.h"
#include "exp_clock.h"
#include "clock.h"

#define MAX_CONFIGS TP_REPLAY_MAX_BACKENDS
#define MAX_RUNS 1000

/* bench's defaults, spelled once: the option table, the help and the run use these */
#define BENCH_DEFAULT_BACKENDS "instant,pelt,decay"
#define BENCH_DEFAULT_DECAYS "125,250,500"
#define BENCH_DEFAULT_RUNS 10
#define STR_(x) #x
#define STR(x) STR_(x)

enum { OPT_BACKENDS, OPT_DECAY, OPT_RUNS, OPT_PROFILE };
static const struct cmd_arg bench_opts[] = {
	[OPT_BACKENDS] = { .name = "--backends", .kind = &kind_backend_list, .value_name = "LIST",
			   .values = (const char *const[]){ BENCH_DEFAULT_BACKENDS, NULL },
			   .flags = ARG_REPEAT,
			   .help = "the backends (default " BENCH_DEFAULT_BACKENDS "; NAME:MS names one "
				   "decay period)" },
	[OPT_DECAY] = { .name = "--decay", .kind = &kind_text, .value_name = "LIST",
			.values = (const char *const[]){ BENCH_DEFAULT_DECAYS, NULL }, .flags = ARG_REPEAT,
			.help = "the decay periods in ms (default " BENCH_DEFAULT_DECAYS ")" },
	[OPT_RUNS] = { .name = "--runs", .kind = &kind_int, .value_name = "N", .min = 1,
		       .max = MAX_RUNS, .flags = ARG_REPEAT,
		       .help = "runs per configuration (default " STR(BENCH_DEFAULT_RUNS) ")" },
	[OPT_PROFILE] = { .name = "--profile", .kind = &kind_file, .value_name = "PROFILE",
			  .flags = ARG_REPEAT, .help = "a cap profile played alongside every run" },
	{ 0 },
};
static const struct cmd_arg bench_pos[] = {
	{ .name = "COMMAND", .kind = &kind_words, .flags = ARG_AFTER_DASHES,
	  .help = "the workload, run with its standard output discarded" },
	{ 0 },
};

/* One benchmark: the configurations, the state to put back, the times measured. */
struct bench {
	struct tp_replay_backend cfg[MAX_CONFIGS];
	size_t ncfg, done_cfg;
	struct tp_backend_info info[TP_MAX_BACKENDS];
	size_t ninfo;
	char orig[TP_NAME_MAX];		/* the backend in force before, and its decay */
	int64_t orig_decay;
	struct tp_profile prof;
	const char *profile;
	bool vclock;
	char **command;
	long runs;
	double *times;			/* [config * runs + run] */
	double mean[MAX_CONFIGS], sd[MAX_CONFIGS];
	double half[MAX_CONFIGS];	/* the 95% interval's half-width, < 0: one run */
	struct bench_probe probe;	/* where the work ran, how often it moved */
};

struct player {
	struct tp_source *src;
	const struct tp_profile *prof;
	bool virtual_clock;
	volatile sig_atomic_t stop;
	int rc;
	struct tp_error err;
	pthread_t thread;
};

static void *play_thread(void *arg)
{
	struct player *p = arg;

	/*
	 * In real time the profile is cut short when the workload ends.  On a virtual
	 * clock every step is applied at its virtual time (the clock advances by the
	 * profile's length, whatever the workload's wall time: deterministic), and the
	 * last step's caps hold until the workload ends; only a signal cuts it short.
	 */
	struct tp_play_options o = {
		.virtual_clock = p->virtual_clock,
		.stop = p->virtual_clock ? &exp_stop : &p->stop,
		.hold = p->virtual_clock ? &p->stop : NULL,
	};

	exp_signals_block_here();	/* a stop signal must reach the main thread's wait */
	p->rc = tp_profile_play(p->src, p->prof, &o, &p->err);
	return NULL;
}

/*
 * Wait for the workload.  A stop signal ends it too (the backend is put back only after
 * it): SIGTERM first, then SIGKILL when it is still running WORKLOAD_GRACE_NS later (a
 * workload that ignores SIGTERM must not keep the backend changed).
 */
#define WORKLOAD_GRACE_NS 2000000000ull
static void wait_workload(pid_t pid, int *ws)
{
	uint64_t termed = 0;

	for (;;) {
		pid_t r = waitpid(pid, ws, exp_stop ? WNOHANG : 0);

		if (r == pid || (r < 0 && errno != EINTR))
			return;
		if (!exp_stop)
			continue;
		if (!termed) {
			kill(pid, SIGTERM);
			termed = mono_ns();
		} else if (termed != UINT64_MAX && mono_ns() - termed >= WORKLOAD_GRACE_NS) {
			kill(pid, SIGKILL);
			termed = UINT64_MAX;
		}
		if (r == 0) {
			struct timespec ts = { 0, 10000000 };	/* 10 ms */

			nanosleep(&ts, NULL);
		}
	}
}

/*
 * Run the workload once, its standard output to /dev/null: its seconds, and the
 * probe's figures for run r of configuration c; 0 or an exit status.
 */
static int run_once(struct cmd_ctx *ctx, struct bench *bn, size_t c, size_t r)
{
	char **command = bn->command;
	double *secs = &bn->times[c * (size_t)bn->runs + r];
	pid_t pid;
	int ws = 0, rc, counter;
	uint64_t t0;

	probe_before(&bn->probe);
	t0 = mono_ns();
	rc = probe_spawn(&bn->probe, command, &pid, &counter);
	if (rc)
		return cmd_error(ctx, EXIT_RUNTIME, "bench: cannot run %s: %s", command[0],
				 strerror(-rc));
	wait_workload(pid, &ws);
	*secs = (double)(mono_ns() - t0) / 1e9;
	probe_after(&bn->probe, counter, c, r);
	if (exp_stop)
		return 0;	/* stopped by us: the caller ends the loop */
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
		return 0;
	if (WIFEXITED(ws))
		return cmd_error(ctx, EXIT_RUNTIME, "bench: %s exited with status %d", command[0],
				 WEXITSTATUS(ws));
	return cmd_error(ctx, EXIT_RUNTIME, "bench: %s was killed by signal %d", command[0],
			 WTERMSIG(ws));
}

/* Whether a configuration switches to the backend name. */
static bool touches(const struct tp_replay_backend *cfg, size_t ncfg, const char *name)
{
	for (size_t c = 0; c < ncfg; c++)
		if (!strcmp(cfg[c].ops->name, name))
			return true;
	return false;
}

/*
 * Each backend keeps its own decay period, which reads only while it is active: learn
 * those of the inactive backends the run will change, so that they are put back
 * afterwards (switching resets the averages, which the run does anyway).
 */
static int learn_decay_periods(struct cmd_ctx *ctx, const struct tp_replay_backend *cfg, size_t ncfg,
			       struct tp_backend_info *info, size_t ninfo)
{
	struct tp_backend_info now[TP_MAX_BACKENDS];
	struct tp_error err = { 0 };
	size_t n;

	for (size_t i = 0; i < ninfo && !exp_stop; i++) {
		int rc;

		if (info[i].active || !info[i].decay_max_ms || info[i].decay_ms > 0 ||
		    !touches(cfg, ncfg, info[i].name))
			continue;
		rc = tp_backend_set(ctx->src, info[i].name, 0, &err);
		if (rc == 0)
			rc = tp_backend_list(ctx->src, now, TP_MAX_BACKENDS, &n, &err);
		if (rc < 0)
			return cmd_tp_error(ctx, rc == -EINVAL ? -EIO : rc, &err);
		for (size_t k = 0; k < n; k++)
			if (now[k].active && !strcmp(now[k].name, info[i].name))
				info[i].decay_ms = now[k].decay_ms;
	}
	return 0;
}

/* The configurations: each backend crossed with the decay list where it has a period. */
static int build_configs(struct cmd_ctx *ctx, const char *backends, const char *decays,
			 struct tp_replay_backend *cfg, size_t *n)
{
	char expanded[1024] = "", blist[512], dlist[256], *s1 = NULL, *s2 = NULL, *tok, *d;
	struct tp_error err = { 0 };
	const struct tp_plugin_set *plugins = tp_source_plugins(ctx->src);
	struct tp_replay_backend tmp[MAX_CONFIGS * 4];
	size_t nt = 0;
	int rc;

	if (strlen(backends) >= sizeof(blist) || strlen(decays) >= sizeof(dlist))
		return cmd_error(ctx, EXIT_USAGE, "bench: --backends or --decay is too long");
	snprintf(blist, sizeof(blist), "%s", backends);
	for (tok = strtok_r(blist, ",", &s1); tok; tok = strtok_r(NULL, ",", &s1)) {
		const struct tp_backend_ops *ops = tp_plugins_find(plugins, tok);
		size_t l = strlen(expanded);

		if (strchr(tok, ':') || !ops || !ops->decay_max_ms) {
			snprintf(expanded + l, sizeof(expanded) - l, "%s%s", l ? "," : "", tok);
			continue;
		}
		snprintf(dlist, sizeof(dlist), "%s", decays);
		for (d = strtok_r(dlist, ",", &s2); d; d = strtok_r(NULL, ",", &s2)) {
			l = strlen(expanded);
			snprintf(expanded + l, sizeof(expanded) - l, "%s%s:%s", l ? "," : "", tok, d);
		}
	}
	rc = tp_replay_parse_backends(expanded, plugins, tmp, MAX_CONFIGS * 4, &nt, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	*n = 0;
	for (size_t i = 0; i < nt; i++) {	/* pelt:125 and pelt:128 are one configuration */
		bool dup = false;

		for (size_t j = 0; j < *n; j++)
			dup |= !strcmp(cfg[j].label, tmp[i].label);
		if (dup)
			continue;
		if (*n == MAX_CONFIGS)
			return cmd_error(ctx, EXIT_USAGE, "bench: too many configurations (at most %d)",
					 MAX_CONFIGS);
		cfg[(*n)++] = tmp[i];
	}
	return 0;
}

/* The configurations, the profile, the backend in force; 0 or an exit status. */
static int bench_prepare(struct cmd_ctx *ctx, const struct cmd_args *args, struct bench *bn)
{
	const struct cmd_parsed *o = args->opt;
	struct tp_error err = { 0 };
	int status, rc;

	bn->command = args->words;
	bn->runs = o[OPT_RUNS].given ? (long)o[OPT_RUNS].v.i : BENCH_DEFAULT_RUNS;
	bn->profile = o[OPT_PROFILE].text;
	if (!ctx_source(ctx))
		return ctx->status;
	if ((status = build_configs(ctx, o[OPT_BACKENDS].given ? o[OPT_BACKENDS].text :
				    BENCH_DEFAULT_BACKENDS, o[OPT_DECAY].given ? o[OPT_DECAY].text :
				    BENCH_DEFAULT_DECAYS, bn->cfg, &bn->ncfg)))
		return status;
	if (bn->profile && (status = exp_load_profile(ctx, bn->profile, &bn->prof)))
		return status;
	bn->vclock = bn->profile && exp_any_virtual_clock(ctx);
	rc = tp_backend_list(ctx->src, bn->info, TP_MAX_BACKENDS, &bn->ninfo, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc == -EINVAL ? -EIO : rc, &err);
	for (size_t i = 0; i < bn->ninfo; i++)
		if (bn->info[i].active) {
			snprintf(bn->orig, sizeof(bn->orig), "%.31s", bn->info[i].name);
			bn->orig_decay = bn->info[i].decay_ms;
		}
	bn->times = calloc((size_t)bn->runs * bn->ncfg, sizeof(*bn->times));
	if (!bn->times)
		return cmd_error(ctx, EXIT_RUNTIME, "out of memory");
	return probe_init(ctx, &bn->probe, bn->ncfg, (size_t)bn->runs);
}

/* One run of the workload, with the profile played alongside; 0 or an exit status. */
static int bench_run(struct cmd_ctx *ctx, struct bench *bn, size_t c, size_t r)
{
	struct player pl = { .src = ctx->src, .prof = &bn->prof, .virtual_clock = bn->vclock };
	int status;

	if (bn->profile && pthread_create(&pl.thread, NULL, play_thread, &pl))
		return cmd_error(ctx, EXIT_RUNTIME, "bench: cannot start the profile player");
	status = run_once(ctx, bn, c, r);
	if (bn->profile) {
		pl.stop = 1;
		pthread_join(pl.thread, NULL);
		if (pl.rc < 0 && !status)
			status = cmd_error(ctx, EXIT_RUNTIME, "bench: cap profile: %s", pl.err.msg);
		else if (pl.rc > 0)	/* put back without the state file: said */
			cmd_warning(ctx, "bench: cap profile: %s", pl.err.msg);
	}
	return status;
}

/* The mean, standard deviation and 95% interval of configuration c's runs. */
static void bench_stats(struct bench *bn, size_t c)
{
	tp_mean_ci95(&bn->times[c * (size_t)bn->runs], (size_t)bn->runs, &bn->mean[c], &bn->sd[c],
		     &bn->half[c]);
}

/* Every configuration, until done, a failure or a stop signal; 0 or an exit status. */
static int bench_loop(struct cmd_ctx *ctx, struct bench *bn)
{
	struct tp_error err = { 0 };
	int status = 0, rc = tp_source_journal(ctx->src, &err);

	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	status = learn_decay_periods(ctx, bn->cfg, bn->ncfg, bn->info, bn->ninfo);
	for (size_t c = 0; c < bn->ncfg && !status && !exp_stop; c++) {
		const struct tp_replay_backend *cfg = &bn->cfg[c];

		rc = tp_backend_set(ctx->src, cfg->ops->name,
				    cfg->ops->decay_max_ms ? cfg->decay_ms : 0, &err);
		if (rc < 0)
			return cmd_tp_error(ctx, rc == -EINVAL ? -EIO : rc, &err);
		for (long r = 0; r < bn->runs && !status && !exp_stop; r++)
			status = bench_run(ctx, bn, c, (size_t)r);
		if (status || exp_stop)
			break;
		bench_stats(bn, c);
		bn->done_cfg = c + 1;
	}
	return status;
}

/* The decay periods known before (each backend keeps its own), then the backend. */
static int bench_restore(struct cmd_ctx *ctx, struct bench *bn, int status)
{
	struct tp_error err = { 0 };

	if (!bn->orig[0])
		return status;
	for (size_t i = 0; i < bn->ninfo; i++)
		if (touches(bn->cfg, bn->ncfg, bn->info[i].name) && !bn->info[i].active &&
		    bn->info[i].decay_ms > 0 && bn->info[i].decay_max_ms)
			tp_backend_set(ctx->src, bn->info[i].name, (uint32_t)bn->info[i].decay_ms,
				       NULL);
	if (tp_backend_set(ctx->src, bn->orig, bn->orig_decay > 0 ? (uint32_t)bn->orig_decay : 0,
			   &err) < 0 && !status)
		status = cmd_error(ctx, EXIT_RUNTIME, "bench: cannot restore backend %s: %s",
				   bn->orig, err.msg);
	return status;
}

static void bench_print_json(struct cmd_ctx *ctx, const struct bench *bn)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	struct json_object *cmdv = json_object_new_array();

	json_object_object_add(o, "schema_version", json_object_new_int(JSON_BENCH_SCHEMA_VERSION));
	json_object_object_add(o, "source", json_source(ctx->src));
	for (char **w = bn->command; *w; w++)
		json_object_array_add(cmdv, json_object_new_string(*w));
	json_object_object_add(o, "command", cmdv);
	json_object_object_add(o, "runs", json_object_new_int64(bn->runs));
	json_object_object_add(o, "profile", bn->profile ? json_object_new_string(bn->profile)
							 : NULL);
	probe_json_top(&bn->probe, o);
	for (size_t c = 0; c < bn->done_cfg; c++) {
		struct json_object *j = json_object_new_object(), *t = json_object_new_array();
		const struct tp_replay_backend *cfg = &bn->cfg[c];

		json_object_object_add(j, "backend", json_object_new_string(cfg->ops->name));
		json_object_object_add(j, "decay_ms", cfg->ops->decay_max_ms ?
				       json_object_new_int64(cfg->decay_ms) : NULL);
		json_object_object_add(j, "label", json_object_new_string(cfg->label));
		for (long r = 0; r < bn->runs; r++)
			json_object_array_add(t, json_object_new_double(
						      bn->times[c * (size_t)bn->runs + (size_t)r]));
		json_object_object_add(j, "times_s", t);
		json_object_object_add(j, "mean_s", json_object_new_double(bn->mean[c]));
		json_object_object_add(j, "stddev_pct", json_object_new_double(
				       bn->mean[c] > 0 ? 100 * bn->sd[c] / bn->mean[c] : 0));
		json_object_object_add(j, "ci95_s", bn->half[c] >= 0 ?
				       json_object_new_double(bn->half[c]) : NULL);
		probe_json_config(&bn->probe, c, j);
		json_object_array_add(arr, j);
	}
	json_object_object_add(o, "configurations", arr);
	out_json(ctx, o);
}

static void bench_print_table(struct cmd_ctx *ctx, const struct bench *bn)
{
	char line[512], ci[32];

	snprintf(line, sizeof(line), "%-16s %5s %12s %20s %12s", "CONFIGURATION", "RUNS",
		 "MEAN (s)", "STDDEV (% of mean)", "95% CI (s)");
	probe_table_header(&bn->probe, line, sizeof(line));
	out_printf(ctx, "%s\n", line);
	for (size_t c = 0; c < bn->done_cfg; c++) {
		if (bn->half[c] >= 0)
			snprintf(ci, sizeof(ci), "±%.4f", bn->half[c]);
		else
			snprintf(ci, sizeof(ci), "-");
		snprintf(line, sizeof(line), "%-16s %5ld %12.4f %19.2f%% ", bn->cfg[c].label,
			 bn->runs, bn->mean[c], bn->mean[c] > 0 ? 100 * bn->sd[c] / bn->mean[c] : 0);
		probe_cell(line + strlen(line), sizeof(line) - strlen(line), 12, ci);
		probe_table_cells(&bn->probe, c, line, sizeof(line));
		out_printf(ctx, "%s\n", line);
	}
}

static void bench_free(struct bench *bn)
{
	free(bn->times);
	probe_free(&bn->probe);
	tp_profile_free(&bn->prof);
	free(bn);
}

static int exec_bench(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct bench *bn = calloc(1, sizeof(*bn));
	int status;

	if (!bn)
		return cmd_error(ctx, EXIT_RUNTIME, "out of memory");
	status = bench_prepare(ctx, args, bn);
	if (status) {
		bench_free(bn);
		return status;
	}
	/* from here on a signal only sets exp_stop: the loop ends and everything is put back */
	exp_signals_install();
	status = bench_restore(ctx, bn, bench_loop(ctx, bn));
	exp_signals_restore();
	if (exp_stop) {
		if (exp_stop != SIGPIPE && !status)
			cmd_error(ctx, EXIT_RUNTIME, "bench: interrupted; the backend, decay and caps were restored");
		bench_free(bn);
		exp_signals_finish();	/* 128 + signal: does not return */
		return EXIT_RUNTIME;
	}
	if (!status)
		probe_notes(ctx, &bn->probe);
	if (!status && ctx->cmd_json)
		bench_print_json(ctx, bn);
	else if (!status)
		bench_print_table(ctx, bn);
	bench_free(bn);
	return status;
}

const struct cmd_entry cmd_bench_entry = {
	.path = "bench",
	.pos = bench_pos,
	.opts = bench_opts,
	.summary = "time a workload under each backend and decay period",
	.help = "For each configuration, switches the backend and decay period, then runs "
		"COMMAND --runs times (default " STR(BENCH_DEFAULT_RUNS) ") with its standard output discarded, and prints "
		"the mean time and the standard deviation in % of the mean, as in the tables of "
		"the thermal pressure series' cover letter, "
		"with the 95% confidence interval of the mean, the share of the busy CPU time "
		"on the domain of largest capacity (BIG %, from /proc/stat under the root; - for "
		"a simulator) and the workload's CPU migrations (a perf counter; - without perf "
		"events), a line on stderr saying why a figure is missing.  "
		"The configurations are each backend "
		"of --backends (default " BENCH_DEFAULT_BACKENDS "; NAME:MS names one decay period) "
		"crossed with --decay (default " BENCH_DEFAULT_DECAYS ") where it has a decay period; pelt "
		"rounds to its half-lives, so 125 runs as pelt:128.  --profile plays a cap "
		"profile alongside every run and restores the caps after it: in real time, or on "
		"a simulator with a virtual clock (--sim --virtual-clock, or a served one) at "
		"its virtual times, the clock advancing by the profile's length each run and "
		"the last step's caps held until the run ends.  "
		"Afterwards the backend and decay in force before are restored, also on SIGINT, "
		"SIGTERM, SIGHUP, SIGQUIT or a closed output pipe (the workload is stopped: SIGTERM, "
		"then SIGKILL when it is still running 2 s later; then "
		"thermpress ends as the signal would: exit status 128 + signal); every change is "
		"recorded in a state file first, so that `cap restore` undoes what a killed bench "
		"left behind.  Against the "
		"simulator it is a full dry run.",
	.flags = CMD_JSON | CMD_NO_SHELL,
	.exec = exec_bench,
};
