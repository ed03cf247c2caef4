/* SPDX-License-Identifier: MIT */
/* export: the metrics for Prometheus (export/, docs/export.md). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "export.h"
#include "signals.h"

#define EXPORT_MIN_INTERVAL_NS 100000000ull	/* 100 ms */

enum { OPT_LISTEN, OPT_INTERVAL, OPT_TEXTFILE };
static const struct cmd_arg export_opts[] = {
	[OPT_LISTEN] = { .name = "--listen", .kind = &kind_text, .value_name = "ADDR:PORT",
			 .flags = ARG_REPEAT,
			 .help = "where to serve HTTP (default 127.0.0.1:9465; port 0: a free one)" },
	[OPT_INTERVAL] = { .name = "--interval", .kind = &kind_duration, .value_name = "DURATION",
			   .unit_ns = 1000000000ull, .min = (int64_t)EXPORT_MIN_INTERVAL_NS,
			   .flags = ARG_REPEAT,
			   .help = "with --textfile: how often to write (default 15s; a bare number "
				   "is in seconds)" },
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
				 &cfg->listen, &cfg->listen_len, &err);
	if (rc < 0)
		return cmd_usage_error(ctx, "%s", err.msg);
	return 0;
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

	if (cfg.textfile_dir)
		status = export_textfile_run(es, &cfg, &exp_stop, &wait_mask);
	else
		status = export_http_run(es, &cfg, &exp_stop, &wait_mask);
	export_source_free(es);

	pthread_sigmask(SIG_UNBLOCK, &stops, NULL);
	exp_signals_restore();
	/* stopped by a signal: end as it would have (128 + signal) */
	if (status == 0)
		exp_signals_finish();
	return status ? EXIT_RUNTIME : 0;
}

const struct cmd_entry cmd_export_entry = {
	.path = "export",
	.opts = export_opts,
	.summary = "serve the metrics to Prometheus (HTTP, or files for node_exporter)",
	.help = "Serves every CPU's capacity, frequencies and thermal pressure, the backend and "
		"decay period, and on a stock kernel the thermal zones and cooling devices, as "
		"Prometheus metrics at http://ADDR:PORT/metrics (default 127.0.0.1:9465; port 0 "
		"takes a free port, named on stderr), in the Prometheus text format 0.0.4, or "
		"OpenMetrics 1.0 when the scraper asks for it.  Read-only: / answers a page "
		"linking /metrics, other paths 404, methods other than GET and HEAD 405.  Each "
		"scrape reads the source; when it cannot (the interface went away) the scrape "
		"says thermpress_up 0 and thermpress_last_error_info gives the reason, and a later "
		"scrape opens the source again.  --textfile DIR writes the same metrics to "
		"DIR/thermpress.prom (replaced atomically) every --interval DURATION (default 15s; "
		"a bare number is in seconds) for node_exporter's textfile collector, instead of "
		"serving HTTP.  The source must open at start.  SIGINT, SIGTERM, SIGHUP or SIGQUIT "
		"stop it with status 128 + the signal's number.  The installed systemd unit "
		"thermpress-export.service runs it as a service.  See docs/export.md.",
	.flags = CMD_NO_SHELL | CMD_NO_SCRIPT,
	.exec = exec_export,
};
