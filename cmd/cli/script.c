/* SPDX-License-Identifier: MIT */
/* Scripts: one command per line, in order, stopping at the first failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

#include "cli.h"
#include "readin.h"

#define SCRIPT_MAX_LINE 65536		/* bytes of a script line (docs: man page, -f) */
#define SCRIPT_MAX_LINES 10000000ul	/* lines of a script */

int script_run_stream(struct cmd_ctx *ctx, void *stream, const char *name)
{
	FILE *fp = stream;
	struct readin_line in = { .max = SCRIPT_MAX_LINE, .max_lines = SCRIPT_MAX_LINES };
	int status = 0, rc;

	ctx->mode = MODE_SCRIPT;
	ctx->script_name = name;
	ctx->script_line = 0;
	while ((rc = readin_next(&in, fp)) != 0) {
		char **argv;
		int argc;
		char msg[256];

		ctx->script_line = (unsigned)in.lineno;
		if (rc < 0) {
			/* a line cut short or a failed read is an error, never the end */
			status = cmd_error(ctx, readin_bad_input(rc) ? EXIT_USAGE : EXIT_RUNTIME, "%s",
					   readin_line_error(&in, rc, msg, sizeof(msg)));
			break;
		}
		if (cmd_split(in.buf, &argv, &argc, msg, sizeof(msg))) {
			status = cmd_error(ctx, EXIT_USAGE, "%s", msg);
			break;
		}
		if (argc)
			status = cmd_dispatch(ctx, argc, argv);
		cmd_free_words(argv, argc);
		if (status)
			break;
		/* Output reaches its reader command by command; a write error stops here. */
		int out = out_check_stdout(false);
		if (out) {
			status = out < 0 ? status : out;
			break;
		}
	}
	readin_free(&in);
	return status;
}

int script_run_file(struct cmd_ctx *ctx, const char *path)
{
	if (!strcmp(path, "-"))
		return script_run_stream(ctx, stdin, "<stdin>");
	int fd = readin_open(AT_FDCWD, path, 0, READIN_STREAM);
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "r");
	if (!fp) {
		char e[128];
		snprintf(e, sizeof(e), "%s", readin_strerror(fd < 0 ? -fd : errno));
		if (fd >= 0)
			close(fd);
		e[0] = (char)(e[0] >= 'A' && e[0] <= 'Z' ? e[0] - 'A' + 'a' : e[0]);
		return cmd_error(ctx, EXIT_RUNTIME, "cannot open script '%s': %s", path, e);
	}
	int status = script_run_stream(ctx, fp, path);
	fclose(fp);
	return status;
}
