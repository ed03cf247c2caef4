/* SPDX-License-Identifier: MIT */
/* export: the metrics for Prometheus (export/, docs/export.md). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "export.h"
#include "signals.h"

#define EXPORT_MIN_INTERVAL_NS 100000000ull	/* 100 ms */
_Static_assert(EXPORT_SCRAPE_DEADLINE_MS == 2000, "the help text says the deadline is 2 s");

enum { OPT_LISTEN, OPT_INTERVAL, OPT_TEXTFILE };
static const struct cmd_arg export_opts[] = {
	[OPT_LISTEN] = { .name = "--listen", .kind = &kind_text, .value_name = "[HOST]:PORT",
			 .flags = ARG_REPEAT,
			 .help = "where to serve HTTP (default 127.0.0.1:9465; :9465 every address, "
				 "localhost:9465, [::1]:9465; port 0: a free one)" },
	[OPT_INTERVAL] = { .name = "--interval", .kind = &kind_duration, .value_name = "DURATION",
			   .min = (int64_t)EXPORT_MIN_INTERVAL_NS, .flags = ARG_REPEAT,
			   .help = "with --textfile: how often to write (default 15s)" },
	[OPT_TEXTFILE] = { .name = "--textfile", .kind = &kind_dir, .value_name = "DIR",
			   .flags = ARG_REPEAT,
			   .help = "write DIR/thermpress.prom for node_exporter instead of serving "
				   "HTTP" },
	{ 0 },
};

/* The parsed options into cfg, checked together.  0 or an exit status (reported). */
static int export_config_from(struct cmd_ctx *ctx, const struct cmd_args *args,
			      struct export_config *cfg)
{
	const struct cmd_parsed *o = args->opt;
	struct tp_error err = { 0 };
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->interval_ns = o[OPT_INTERVAL].given ? o[OPT_INTERVAL].v.ns : EXPORT_DEFAULT_INTERVAL_NS;
	cfg->textfile_dir = o[OPT_TEXTFILE].text;
	if (o[OPT_INTERVAL].given && !cfg->textfile_dir)
		return cmd_usage_error(ctx, "--interval needs --textfile DIR (over HTTP, each "
				       "scrape reads the source)");
	if (cfg->textfile_dir && o[OPT_LISTEN].given)
		return cmd_usage_error(ctx, "--listen and --textfile exclude each other (serve "
				       "HTTP, or write files)");
	if (cfg->textfile_dir && !cfg->textfile_dir[0])
		return cmd_usage_error(ctx, "--textfile needs a directory");
	rc = export_parse_listen(o[OPT_LISTEN].given ? o[OPT_LISTEN].text : EXPORT_DEFAULT_LISTEN,
				 &cfg->listen, &err);
	if (rc < 0)
		return cmd_usage_error(ctx, "%s", err.msg);
	return 0;
}

/* Serve HTTP until a stop signal; 0, or an exit status (reported). */
static int serve_http(struct cmd_ctx *ctx, struct export_source *es,
		      const struct export_config *cfg, const sigset_t *wait_mask)
{
	struct tp_error err = { 0 };
	struct export_http *h;
	char where[80];

	if (export_http_start(es, cfg, &h, where, sizeof(where), &err) < 0)
		return cmd_error(ctx, EXIT_RUNTIME, "export: %s", err.msg);
	fprintf(stderr, "thermpress: export: serving http://%s/metrics (interrupt to stop)\n",
		where);
	while (!exp_stop)
		ppoll(NULL, 0, NULL, wait_mask);	/* returns on a signal: no lost wake-up */
	export_http_stop(h, es);
	return 0;
}

/*
 * Write DIR/thermpress.prom every interval until a stop signal.  A directory that cannot
 * be written at start is an error; later a failed write is said once, and again when it
 * changes or recovers.  0, or an exit status (reported).
 */
static int write_textfiles(struct cmd_ctx *ctx, struct export_source *es,
			   const struct export_config *cfg, const sigset_t *wait_mask)
{
	const struct timespec wait = {
		.tv_sec = (time_t)(cfg->interval_ns / 1000000000ull),
		.tv_nsec = (long)(cfg->interval_ns % 1000000000ull),
	};
	struct tp_error err = { 0 };
	char last[sizeof(err.msg)] = "";
	int rc;

	export_source_watch(es, &exp_stop, wait_mask);	/* a stuck source never holds a stop */
	if ((rc = export_textfile_write(es, cfg->textfile_dir, &err)) < 0)
		return rc == -ECANCELED ? 0 : cmd_error(ctx, EXIT_RUNTIME, "export: %s", err.msg);
	fprintf(stderr, "thermpress: export: writing %s/%s every %.3gs (interrupt to stop)\n",
		cfg->textfile_dir, EXPORT_TEXTFILE_NAME, (double)cfg->interval_ns / 1e9);
	for (;;) {
		ppoll(NULL, 0, &wait, wait_mask);	/* a signal ends the wait at once */
		if (exp_stop)
			return 0;
		rc = export_textfile_write(es, cfg->textfile_dir, &err);
		if (rc == -ECANCELED || exp_stop)
			return 0;
		if (rc < 0) {
			if (strcmp(err.msg, last))
				fprintf(stderr, "thermpress: export: %s (trying again every interval)\n",
					err.msg);
			snprintf(last, sizeof(last), "%s", err.msg);
		} else if (last[0]) {
			fprintf(stderr, "thermpress: export: writing %s/%s again\n",
				cfg->textfile_dir, EXPORT_TEXTFILE_NAME);
			last[0] = '\0';
		}
	}
}

static int exec_export(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct export_config cfg;
	struct export_source *es;
	sigset_t stops, wait_mask;
	int status = export_config_from(ctx, args, &cfg);

	if (status)
		return status;
	/* a source that cannot be opened at start is a mistake to say now; later it may go */
	if (!ctx_source(ctx))
		return ctx->status;
	es = export_source_new(&ctx->opts, ctx->src);
	if (!es)
		return cmd_error(ctx, EXIT_RUNTIME, "export: out of memory");
	ctx->src = NULL;	/* the exporter's now: it closes and reopens it */

	/*
	 * The stop signals end the serving loop; they are blocked but while it waits, so
	 * none comes between its check and its wait, and the server's threads never get
	 * them.  A server has no output to lose: a closed pipe (SIGPIPE) does not end it.
	 */
	struct sigaction ign = { .sa_handler = SIG_IGN };

	exp_signals_install();
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);	/* exp_signals_restore() puts back the one from before */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigaddset(&stops, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &stops, &wait_mask);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGHUP);
	sigdelset(&wait_mask, SIGQUIT);

	status = cfg.textfile_dir ? write_textfiles(ctx, es, &cfg, &wait_mask)
				  : serve_http(ctx, es, &cfg, &wait_mask);
	export_source_free(es);

	pthread_sigmask(SIG_UNBLOCK, &stops, NULL);
	exp_signals_restore();
	/* stopped by a signal: end as it would have (128 + signal) */
	if (status == 0)
		exp_signals_finish();
	return status;
}

const struct cmd_entry cmd_export_entry = {
	.path = "export",
	.opts = export_opts,
	.summary = "serve the metrics to Prometheus (HTTP, or files for node_exporter)",
	.help = "Serves every CPU's capacity, frequencies and thermal pressure, the backend and "
		"decay period, the thermal zones and cooling devices (a stock kernel's, the "
		"simulator's), and thermpress_build_info, as Prometheus metrics at "
		"http://HOST:PORT/metrics (default 127.0.0.1:9465; --listen takes what "
		"node_exporter takes: :9465 for every address, localhost:9465, 127.0.0.1:9465, "
		"[::1]:9465; port 0 takes a free port, named on stderr), in the Prometheus text format 0.0.4, or "
		"OpenMetrics 1.0 when the scraper asks for it.  Read-only: / answers a page "
		"linking /metrics, other paths 404, methods other than GET and HEAD 405.  Each "
		"scrape reads the source; when it cannot (the interface went away), or the source "
		"does not answer within the scrape's deadline of 2 s (a stopped FUSE server), the "
		"scrape says thermpress_up 0 and thermpress_last_error_info gives the reason, and a "
		"later scrape opens the source again; / never reads it.  Requests may be pipelined "
		"and their target in absolute form (RFC 9112); a path is percent-decoded and must "
		"then be exactly / or /metrics.  --textfile DIR writes the same metrics to "
		"DIR/thermpress.prom (replaced atomically) every --interval DURATION (default 15s) "
		"for node_exporter's textfile collector, instead of "
		"serving HTTP.  The source must open at start.  SIGINT, SIGTERM, SIGHUP or SIGQUIT "
		"stop it within a second, whatever the source does, with status 128 + the "
		"signal's number.  The installed systemd unit "
		"thermpress-export.service runs it as a service.  See docs/export.md.",
	.flags = CMD_NO_SHELL | CMD_NO_SCRIPT,
	.exec = exec_export,
};
