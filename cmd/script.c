/* SPDX-License-Identifier: MIT */
/* Scripts: one command per line, in order, stopping at the first failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int script_run_stream(struct cmd_ctx *ctx, void *stream, const char *name)
{
	FILE *fp = stream;
	char *line = NULL;
	size_t cap = 0;
	int status = 0;

	ctx->mode = MODE_SCRIPT;
	ctx->script_name = name;
	ctx->script_line = 0;
	while (getline(&line, &cap, fp) >= 0) {
		char **argv;
		int argc;
		char msg[256];

		ctx->script_line++;
		if (cmd_split(line, &argv, &argc, msg, sizeof(msg))) {
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
	if (!status && ferror(fp))
		status = cmd_error(ctx, EXIT_RUNTIME, "cannot read %s: %s", name, strerror(errno));
	free(line);
	return status;
}

int script_run_file(struct cmd_ctx *ctx, const char *path)
{
	if (!strcmp(path, "-"))
		return script_run_stream(ctx, stdin, "<stdin>");
	FILE *fp = fopen(path, "r");
	if (!fp) {
		char e[128];
		snprintf(e, sizeof(e), "%s", strerror(errno));
		e[0] = (char)(e[0] >= 'A' && e[0] <= 'Z' ? e[0] - 'A' + 'a' : e[0]);
		return cmd_error(ctx, EXIT_RUNTIME, "cannot open script '%s': %s", path, e);
	}
	int status = script_run_stream(ctx, fp, path);
	fclose(fp);
	return status;
}
