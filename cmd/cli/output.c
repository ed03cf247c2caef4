/* SPDX-License-Identifier: MIT */
/* Where output and messages go: stdout and stderr, or the shell's terminal. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libcli.h>
#include <thermpress/text.h>

#include "cli.h"

/*
 * What the commands print may carry text from the kernel, sysfs, plugins and files, so
 * all of it goes through tp_text_terminal: control characters and ill-formed UTF-8
 * become U+FFFD, newlines stay (docs/json.md, "Strings").
 */
void out_printf(struct cmd_ctx *ctx, const char *fmt, ...)
{
	char *raw = NULL, *text;
	va_list ap;

	va_start(ap, fmt);
	int n = vasprintf(&raw, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	text = tp_text_terminal_dup(raw, TP_TEXT_KEEP_NEWLINE);
	free(raw);
	if (!text)
		return;
	if (!ctx->cli) {
		fputs(text, stdout);
		free(text);
		return;
	}
	/* libcli ends every cli_print with "\r\n" and applies the `|` filters per line. */
	char *line = text;
	while (*line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		cli_print(ctx->cli, "%s", line);
		if (!nl)
			break;
		line = nl + 1;
	}
	free(text);
}

/*
 * One message line (errors, warnings): it may quote file content or kernel text, so
 * it goes through tp_text_terminal like out_printf, and a newline in it is replaced too.
 */
static void vmessage(struct cmd_ctx *ctx, const char *kind, const char *fmt, va_list ap)
{
	char raw[1024], msg[3 * sizeof(raw)];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	tp_text_terminal(msg, sizeof(msg), raw, strlen(raw), 0);
	if (ctx && ctx->cli) {
		cli_error(ctx->cli, "thermpress: %s%s", kind, msg);
		return;
	}
	fflush(stdout);
	if (ctx && ctx->mode == MODE_SCRIPT && ctx->script_name && !*kind)
		fprintf(stderr, "thermpress: %s:%u: %s%s\n", ctx->script_name, ctx->script_line,
			kind, msg);
	else
		fprintf(stderr, "thermpress: %s%s\n", kind, msg);
}

/* "COMMAND: MESSAGE (usage: COMMAND SYNOPSIS)": every usage error of a command. */
static void usage_message(struct cmd_ctx *ctx, const char *fmt, va_list ap)
{
	const struct cmd_entry *e = ctx->usage_of;
	char msg[1024], syn[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	args_synopsis(e, syn, sizeof(syn));
	ctx->usage_of = NULL;
	cmd_error(ctx, EXIT_USAGE, "%s: %s (usage: %s%s%s)", e->path, msg, e->path,
		  *syn ? " " : "", syn);
	ctx->usage_of = e;
}

int cmd_error(struct cmd_ctx *ctx, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (ctx && ctx->usage_of && status == EXIT_USAGE)
		usage_message(ctx, fmt, ap);
	else
		vmessage(ctx, "", fmt, ap);
	va_end(ap);
	return status;
}

void cmd_warning(struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(ctx, "warning: ", fmt, ap);
	va_end(ap);
}

void cmd_note(struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(ctx, "note: ", fmt, ap);
	va_end(ap);
}

static void lower_strerror(int errnum, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strerror(errnum));
	buf[0] = (char)tolower((unsigned char)buf[0]);
}

int cmd_tp_error(struct cmd_ctx *ctx, int rc, const struct tp_error *err)
{
	int status = (rc == -EINVAL || rc == -ERANGE) ? EXIT_USAGE : EXIT_RUNTIME;
	char buf[256];

	if (err && err->msg[0])
		return cmd_error(ctx, status, "%s", err->msg);
	lower_strerror(rc < 0 ? -rc : rc, buf, sizeof(buf));
	return cmd_error(ctx, status, "%s", buf);
}

int out_check_stdout(bool closing)
{
	char buf[256];
	int e = 0;
	bool bad = false;

	errno = 0;
	if (fflush(stdout)) {
		bad = true;
		e = errno;
	} else if (ferror(stdout)) {
		bad = true;
	}
	if (closing) {
		errno = 0;
		if (fclose(stdout) && !bad) {
			bad = true;
			e = errno;
		}
	}
	if (!bad)
		return 0;
	if (e == EPIPE)
		return -1;	/* the reader went away: stop quietly */
	if (e) {
		lower_strerror(e, buf, sizeof(buf));
		fprintf(stderr, "thermpress: write error on standard output: %s\n", buf);
	} else {
		fprintf(stderr, "thermpress: write error on standard output\n");
	}
	return EXIT_RUNTIME;
}

/* A usage error of the shell's own words (history, | include): on its terminal. */
void shell_message(struct cli_def *cli, const char *fmt, ...)
{
	struct cmd_ctx *ctx = cli_get_context(cli);
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_error(cli, "thermpress: %s", msg);
	ctx->status = EXIT_USAGE;
}
