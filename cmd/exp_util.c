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

bool exp_is_trace(const char *text)
{
	const char *p = text;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p == '{' || !strncmp(p, "# thermpress trace", 18) || !strncmp(p, "time_ns,", 8))
		return true;
	return false;
}

bool exp_virtual_clock(struct cmd_ctx *ctx)
{
	return ctx->src && tp_source_kind(ctx->src) == TP_SOURCE_SIM &&
	       ctx->opts.sim_virtual_clock;
}

bool exp_any_virtual_clock(struct cmd_ctx *ctx)
{
	const char *env = getenv("THERMPRESS_ROOT"), *root;
	char path[4200], buf[16] = "";
	FILE *fp;

	if (exp_virtual_clock(ctx))
		return true;
	if (!ctx->src || tp_source_kind(ctx->src) != TP_SOURCE_PATCHED)
		return false;
	/* a served simulator: its sim_clock reads "virtual" (a kernel has none) */
	root = ctx->opts.root && *ctx->opts.root ? ctx->opts.root : env && *env ? env : "/";
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/sim_clock", root, TP_ABI_DIR) >=
	    sizeof(path))
		return false;
	fp = fopen(path, "r");
	if (!fp)
		return false;
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = '\0';
	fclose(fp);
	return !strcmp(buf, "virtual\n") || !strcmp(buf, "virtual");
}

bool exp_progress_enabled(struct cmd_ctx *ctx)
{
	return !ctx->cli && isatty(STDERR_FILENO);
}
