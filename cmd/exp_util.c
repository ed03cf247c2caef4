/* SPDX-License-Identifier: MIT */
/* Helpers shared by the experiment commands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp_util.h"
#include "grow.h"

int exp_read_file(struct cmd_ctx *ctx, const char *path, char **text, size_t *len)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!fp)
		return cmd_error(ctx, EXIT_RUNTIME, "cannot open %s: %s", path, strerror(errno));
	for (;;) {
		if (n + 4096 + 1 > cap) {
			size_t nc = array_capacity(cap, n + 4096 + 1, 65536);
			char *p = realloc(buf, nc);

			if (!p) {
				free(buf);
				if (fp != stdin)
					fclose(fp);
				return cmd_error(ctx, EXIT_RUNTIME, "out of memory reading %s", path);
			}
			buf = p;
			cap = nc;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, fp);

		n += got;
		if (got == 0)
			break;
	}
	if (ferror(fp)) {
		int e = errno;

		free(buf);
		if (fp != stdin)
			fclose(fp);
		return cmd_error(ctx, EXIT_RUNTIME, "cannot read %s: %s", path, strerror(e));
	}
	if (fp != stdin)
		fclose(fp);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* An error reading a served simulator's sim_clock leaves its clock real (info.clock). */
bool exp_virtual_clock(struct cmd_ctx *ctx)
{
	struct tp_source_info info;

	if (!ctx->src)
		return false;
	tp_source_info(ctx->src, &info, NULL);
	return info.kind == TP_SOURCE_SIM && info.clock == TP_CLOCK_VIRTUAL;
}

bool exp_any_virtual_clock(struct cmd_ctx *ctx)
{
	struct tp_source_info info;

	if (!ctx->src)
		return false;
	tp_source_info(ctx->src, &info, NULL);
	return info.clock == TP_CLOCK_VIRTUAL;
}

bool exp_progress_enabled(struct cmd_ctx *ctx)
{
	return !ctx->cli && isatty(STDERR_FILENO);
}
