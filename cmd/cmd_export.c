/* SPDX-License-Identifier: MIT */
/* export: the metrics for Prometheus (export/, docs/export.md). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "export.h"
#include "signals.h"

extern const struct cmd_entry cmd_export_entry;

#define EXPORT_MIN_INTERVAL_NS 100000000ull	/* 100 ms */

/*
 * The options, and nothing else: --listen ADDR:PORT, --interval DURATION, --textfile DIR
 * into cfg.  0 or an exit status (reported).
 */
static int export_parse_options(struct cmd_ctx *ctx, int argc, char **argv,
				struct export_config *cfg)
{
	struct tp_error err = { 0 };
	const char *listen = NULL, *interval = NULL, *v;
	int status = 0, rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->interval_ns = EXPORT_DEFAULT_INTERVAL_NS;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (cmd_is_option(a, "--listen")) {
			if (!(v = cmd_option_value(ctx, "export", argc, argv, &i, "--listen", &status)))
				return status;
			listen = v;
		} else if (cmd_is_option(a, "--interval")) {
			if (!(v = cmd_option_value(ctx, "export", argc, argv, &i, "--interval", &status)))
				return status;
			interval = v;
		} else if (cmd_is_option(a, "--textfile")) {
			if (!(v = cmd_option_value(ctx, "export", argc, argv, &i, "--textfile", &status)))
				return status;
			cfg->textfile_dir = v;
		} else {
			return cmd_error(ctx, EXIT_USAGE, "export: unknown %s '%s' (usage: export %s)",
					 a[0] == '-' ? "option" : "argument", a, cmd_export_entry.args);
		}
	}
	if (interval && !cfg->textfile_dir)
		return cmd_error(ctx, EXIT_USAGE, "export: --interval needs --textfile DIR "
				 "(over HTTP, each scrape reads the source)");
	if (cfg->textfile_dir && listen)
		return cmd_error(ctx, EXIT_USAGE, "export: --listen and --textfile exclude each "
				 "other (serve HTTP, or write files)");
	if (cfg->textfile_dir && !cfg->textfile_dir[0])
		return cmd_error(ctx, EXIT_USAGE, "export: --textfile needs a directory");
	if (interval) {
		/* a bare number is in seconds, as Prometheus's scrape_interval */
		rc = tp_parse_duration_ns(interval, 1000000000ull, &cfg->interval_ns, &err);
		if (rc < 0)
			return cmd_tp_error(ctx, rc, &err);
		if (cfg->interval_ns < EXPORT_MIN_INTERVAL_NS)
			return cmd_error(ctx, EXIT_USAGE,
					 "export: interval '%s' is too short (at least 100ms)", interval);
	}
	rc = export_parse_listen(listen ? listen : EXPORT_DEFAULT_LISTEN, &cfg->listen, &cfg->listen_len, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	return 0;
}

static int exec_export(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct export_config cfg;
	struct export_source *es;
	sigset_t stops, wait_mask;
	int status = export_parse_options(ctx, argc, argv, &cfg);

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

static void complete_export(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	if (argc && (!strcmp(argv[argc - 1], "--listen") || !strcmp(argv[argc - 1], "--interval") ||
		     !strcmp(argv[argc - 1], "--textfile")))
		return;
	cands_add(out, "--listen");
	cands_add(out, "--interval");
	cands_add(out, "--textfile");
}

const struct cmd_entry cmd_export_entry = {
	.path = "export",
	.args = "[--listen ADDR:PORT] [--textfile DIR [--interval DURATION]]",
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
	.min_args = 0, .max_args = -1,
	.flags = CMD_NO_SHELL | CMD_NO_SCRIPT,
	.exec = exec_export,
	.complete = complete_export,
};
