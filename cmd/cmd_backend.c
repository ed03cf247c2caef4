/* SPDX-License-Identifier: MIT */
/* backend set, decay set. */
#include <stdio.h>
#include <errno.h>
#include <string.h>

#include <thermpress/backend_params.h>

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

/* The one wording of a decay period a backend rounded (pelt: 32 << shift). */
static void warn_rounded(struct cmd_ctx *ctx, const char *name, uint32_t asked, long long in_force)
{
	cmd_warning(ctx, "%.31s has no decay period of %u ms: %lld ms in force", name, asked,
		    in_force);
}

void warn_decays_in_force(struct cmd_ctx *ctx, const struct tp_replay_backend *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i].decay_ms != b[i].asked_ms)
			warn_rounded(ctx, b[i].ops->name, b[i].asked_ms, b[i].decay_ms);
}

/*
 * A backend may round the decay period asked for to one it has (pelt: 32 << shift):
 * say what is in force when it differs.  name NULL: the active backend.
 */
static void warn_decay_in_force(struct cmd_ctx *ctx, const char *name, uint32_t asked)
{
	struct tp_backend_info b[TP_MAX_BACKENDS];
	size_t n = 0;

	if (list_backends(ctx, b, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		if (name ? strcmp(b[i].name, name) : !b[i].active)
			continue;
		if (b[i].decay_ms != TP_NONE && b[i].decay_ms != (int64_t)asked)
			warn_rounded(ctx, b[i].name, asked, (long long)b[i].decay_ms);
		return;
	}
}

enum { POS_NAME };
enum { OPT_DECAY };

static const struct cmd_arg backend_set_pos[] = {
	[POS_NAME] = { .name = "NAME", .kind = &kind_backend,
		       .help = "the backend: instant, pelt, decay or none (see show backends)" },
	{ 0 },
};
static const struct cmd_arg backend_set_opts[] = {
	[OPT_DECAY] = { .name = "decay", .kind = &kind_decay, .value_name = "VALUE",
			.help = "also set that backend's decay period (as decay set)" },
	{ 0 },
};

static const struct cmd_arg decay_set_pos[] = {
	{ .name = "VALUE", .kind = &kind_decay, .help = "the decay period: 250 (ms), 250ms, 1s" },
	{ 0 },
};

static int exec_backend_set(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_backend_info b[TP_MAX_BACKENDS];
	struct tp_error err = { 0 };
	const char *name = args->pos[POS_NAME].text;
	uint32_t decay = args->opt[OPT_DECAY].given ? args->opt[OPT_DECAY].v.ms : 0;
	size_t n = 0;
	int rc;

	rc = list_backends(ctx, b, &n);
	if (rc)
		return rc;
	bool found = false;
	char names[TP_MAX_BACKENDS * (TP_NAME_MAX + 2)] = "";
	for (size_t i = 0; i < n; i++) {
		found |= !strcmp(b[i].name, name);
		size_t l = strlen(names);
		snprintf(names + l, sizeof(names) - l, "%s%.31s", l ? ", " : "", b[i].name);
	}
	if (!found)
		return cmd_usage_error(ctx, "unknown backend '%.64s' (available: %.400s)", name,
				       names);
	/* the decay period checked against the backend's range: a usage error is ours */
	rc = tp_backend_set(ctx->src, name, decay, &err);
	if (rc < 0)
		return cmd_usage_tp_error(ctx, rc, &err);
	if (args->opt[OPT_DECAY].given)
		warn_decay_in_force(ctx, name, decay);
	return 0;
}

static int exec_decay_set(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_error err = { 0 };
	uint32_t decay = args->pos[0].v.ms;
	int rc;

	if (!ctx_source(ctx))
		return ctx->status;
	rc = tp_decay_set(ctx->src, decay, &err);
	if (rc < 0)
		return cmd_usage_tp_error(ctx, rc, &err);
	warn_decay_in_force(ctx, NULL, decay);
	return 0;
}

const struct cmd_entry cmd_backend_set_entry = {
	.path = "backend set",
	.pos = backend_set_pos,
	.opts = backend_set_opts,
	.summary = "switch the averaging backend",
	.help = "Switches the backend that averages the thermal pressure (see show backends): "
		"instant, pelt, decay, or none (the scheduler sees no thermal pressure: the "
		"average is 0, the baseline).  With decay VALUE, also sets that backend's decay "
		"period (as in decay set; instant and none have none).  Switching resets the "
		"averaging state of every CPU; naming the active backend changes nothing.",
	.flags = CMD_CHANGES,
	.exec = exec_backend_set,
};

const struct cmd_entry cmd_decay_set_entry = {
	.path = "decay set",
	.pos = decay_set_pos,
	.summary = "set the decay period of the active backend",
	.help = "Sets the decay period of the active backend: 250 (ms), 250ms, 1s.  pelt takes "
		TP_PELT_RANGE_TEXT " and uses the nearest half-life of 32 << shift ms, decay "
		"takes " TP_DECAY_RANGE_TEXT ", instant and none have none (the RANGE column of "
		"show backends).  Changing it resets the averaging state of every CPU.",
	.flags = CMD_CHANGES,
	.exec = exec_decay_set,
};
