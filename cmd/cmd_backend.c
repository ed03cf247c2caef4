/* SPDX-License-Identifier: MIT */
/* backend set, decay set. */
#include <stdio.h>
#include <errno.h>
#include <string.h>

#include "commands.h"

/* The source's backends; 0 or an exit status (reported). */
static int list_backends(struct cmd_ctx *ctx, struct tp_backend_info *b, size_t *n)
{
	struct tp_error err = { 0 };
	struct tp_source *src = ctx_source(ctx);
	int rc;

	if (!src)
		return ctx->status;
	memset(b, 0, TP_MAX_BACKENDS * sizeof(*b));
	rc = tp_backend_list(src, b, TP_MAX_BACKENDS, n, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc == -EINVAL ? -EIO : rc, &err);
	return 0;
}

static int parse_decay(struct cmd_ctx *ctx, const char *text, uint32_t *ms)
{
	struct tp_error err = { 0 };
	int rc = tp_parse_decay_ms(text, ms, &err);

	return rc < 0 ? cmd_tp_error(ctx, rc, &err) : 0;
}

static int exec_backend_set(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_backend_info b[TP_MAX_BACKENDS];
	struct tp_error err = { 0 };
	uint32_t decay = 0;
	size_t n = 0;
	int rc;

	if (argc == 2)
		return cmd_error(ctx, EXIT_USAGE, "backend set: missing decay value (usage: "
				 "backend set NAME [decay VALUE])");
	if (argc == 3 && strcmp(argv[1], "decay"))
		return cmd_error(ctx, EXIT_USAGE, "backend set: unexpected argument '%s' (usage: "
				 "backend set NAME [decay VALUE])", argv[1]);
	if (argc == 3 && (rc = parse_decay(ctx, argv[2], &decay)))
		return rc;
	rc = list_backends(ctx, b, &n);
	if (rc)
		return rc;
	bool found = false;
	char names[TP_MAX_BACKENDS * (TP_NAME_MAX + 2)] = "";
	for (size_t i = 0; i < n; i++) {
		found |= !strcmp(b[i].name, argv[0]);
		size_t l = strlen(names);
		snprintf(names + l, sizeof(names) - l, "%s%.31s", l ? ", " : "", b[i].name);
	}
	if (!found)
		return cmd_error(ctx, EXIT_USAGE, "unknown backend '%.64s' (available: %.400s)", argv[0],
				 names);
	rc = tp_backend_set(ctx->src, argv[0], decay, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	return 0;
}

static int exec_decay_set(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_error err = { 0 };
	uint32_t decay;
	int rc = parse_decay(ctx, argv[0], &decay);

	if (rc)
		return rc;
	if (!ctx_source(ctx))
		return ctx->status;
	rc = tp_decay_set(ctx->src, decay, &err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	return 0;
}

static void complete_backend(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	if (argc == 1) {
		cands_add(out, "decay");
		return;
	}
	if (argc != 0)
		return;
	/* The installed plugins, without opening a source. */
	struct tp_plugin_set *set = NULL;
	if (tp_plugins_load(ctx->opts.plugin_dir, &set, NULL) < 0)
		return;
	for (size_t i = 0; i < tp_plugins_count(set); i++)
		cands_add(out, tp_plugins_get(set, i)->name);
	tp_plugins_free(set);
}

const struct cmd_entry cmd_backend_set_entry = {
	.path = "backend set",
	.args = "NAME [decay VALUE]",
	.summary = "switch the averaging backend",
	.help = "Switches the backend that averages the thermal pressure (see show backends): "
		"instant, pelt or decay.  With decay VALUE, also sets that backend's decay period "
		"(as in decay set).  Switching resets the averaging state of every CPU; naming the "
		"active backend changes nothing.",
	.min_args = 1, .max_args = 3,
	.exec = exec_backend_set,
	.complete = complete_backend,
};

const struct cmd_entry cmd_decay_set_entry = {
	.path = "decay set",
	.args = "VALUE",
	.summary = "set the decay period of the active backend",
	.help = "Sets the decay period of the active backend: 250 (ms), 250ms, 1s.  pelt takes "
		"the nearest half-life of 32 << shift ms (32 to 32768), decay takes 1 to 10000 ms, "
		"instant has none.  Changing it resets the averaging state of every CPU.",
	.min_args = 1, .max_args = 1,
	.exec = exec_decay_set,
};
