/* SPDX-License-Identifier: MIT */
/* Completion of whole command lines (__complete, the shell's TAB): global options, command
 * words, then the command's own arguments. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Walk complete words through the tree; the node reached, the arguments left. */
static const char *walk(int argc, char **argv, char *path, size_t len, int *used)
{
	int j = 0;

	path[0] = '\0';
	while (j < argc) {
		struct cmd_cands kids = { 0 };
		const char *hit = NULL;
		int nhits = 0;
		cmd_children(path, true, &kids);
		for (size_t k = 0; k < kids.n && !hit; k++)
			if (!strcmp(kids.v[k], argv[j]))
				hit = kids.v[k], nhits = 1;
		for (size_t k = 0; k < kids.n && !nhits; k++)
			if (*argv[j] && !strncmp(kids.v[k], argv[j], strlen(argv[j])))
				hit = kids.v[k], nhits++;
		if (!hit || nhits != 1) {
			cands_free(&kids);
			break;
		}
		size_t l = strlen(path);
		snprintf(path + l, len - l, "%s%s", l ? " " : "", hit);
		cands_free(&kids);
		j++;
	}
	*used = j;
	return path;
}

void complete_command_words(enum cmd_mode mode, int argc, char **argv, struct cmd_cands *out)
{
	struct cmd_cands kids = { 0 };
	char path[160], full[224];
	int used;

	walk(argc, argv, path, sizeof(path), &used);
	if (used == argc)
		cmd_children(path, false, &kids);
	/* not the commands mode refuses (the shell's help leaves out cap hold) */
	for (size_t k = 0; k < kids.n; k++) {
		snprintf(full, sizeof(full), "%s%s%s", path, *path ? " " : "", kids.v[k]);
		const struct cmd_entry *e = cmd_find(full);
		if (!e || cmd_offered(e, mode))
			cands_add_desc(out, kids.v[k], kids.desc[k]);
	}
	cands_free(&kids);
}

/* The global option word names, or NULL; *value: after '=' or NULL. */
static const struct cmd_arg *find_global(const char *word, const char **value)
{
	for (size_t i = 0; global_options[i].name; i++)
		if (args_match(&global_options[i], word, value) >= 0)
			return &global_options[i];
	return NULL;
}

/* A global option as completion sees it: --root and --sim choose the source whose
 * CPU domains are offered. */
static void apply_global(struct cmd_ctx *ctx, const struct cmd_arg *o, const char *value)
{
	if (o == &global_options[GOPT_ROOT]) {
		ctx->opts.root = value;
	} else if (o == &global_options[GOPT_SIM]) {
		ctx->opts.kind = TP_SOURCE_SIM;
		ctx->opts.sim_preset = value;
	}
}

/*
 * Skip the global options at the start of the words; the index of the first word after
 * them, or -1 when nothing is to be completed after them or the partial word is the
 * value of the option *pending.
 */
static int skip_globals(struct cmd_ctx *ctx, int argc, char **argv, const struct cmd_arg **pending)
{
	int i = 0;

	*pending = NULL;
	while (i < argc && argv[i][0] == '-') {
		const char *value;
		const struct cmd_arg *o = find_global(argv[i], &value);

		if (o && o->kind && !value && !(o->flags & ARG_VALUE_INLINE)) {
			if (i + 1 == argc) {
				*pending = o;
				return -1;
			}
			value = argv[++i];
		}
		if (o == &global_options[GOPT_FILE])
			return -1;	/* a script takes no command */
		if (o)
			apply_global(ctx, o, value);
		i++;
	}
	return i;
}

/* "--sim=PRE": the option's values after "--sim=". */
static void complete_inline_value(struct cmd_ctx *ctx, const char *partial, struct cmd_cands *out)
{
	const char *value;
	const struct cmd_arg *o = find_global(partial, &value);
	struct cmd_cands vals = { 0 };
	char word[256];

	if (!o || !value || !o->kind || !o->kind->complete)
		return;
	o->kind->complete(ctx, o, 0, NULL, &vals);
	for (size_t k = 0; k < vals.n; k++) {
		snprintf(word, sizeof(word), "%.*s%s", (int)(value - partial), partial, vals.v[k]);
		cands_add(out, vals.v[k][0] == ':' ? vals.v[k] : word);
	}
	cands_free(&vals);
}

/* The candidates after the global options: command words, then the command's own. */
static void complete_command_line(struct cmd_ctx *ctx, int argc, char **argv,
				  const char *partial, struct cmd_cands *out)
{
	char path[160];
	int used;

	walk(argc, argv, path, sizeof(path), &used);
	const struct cmd_entry *e = cmd_find(path);
	if (used == argc)
		cmd_children(path, false, out);
	if (e && !(e->flags & CMD_HIDDEN))
		args_complete(ctx, e, argc - used, argv + used, partial, out);
}

void complete_candidates(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	struct cmd_cands all = { 0 };
	const char *partial = argc ? argv[argc - 1] : "";
	const struct cmd_arg *pending;
	int i;

	if (argc)
		argc--;	/* argv[0..argc) are complete words now */
	i = skip_globals(ctx, argc, argv, &pending);
	if (pending && pending->kind->complete)
		pending->kind->complete(ctx, pending, 0, NULL, &all);
	else if (i == argc && strchr(partial, '=') && partial[0] == '-')
		complete_inline_value(ctx, partial, &all);
	else if (i == argc && partial[0] == '-')
		for (size_t k = 0; global_options[k].name; k++)
			cands_add_desc(&all, global_options[k].name, global_options[k].help);
	else if (i >= 0)
		complete_command_line(ctx, argc - i, argv + i, partial, &all);
	/* directives (":files") are for the caller, whatever the partial word; an example
	 * (its word the description) only when the partial word starts it */
	for (size_t k = 0; k < all.n; k++) {
		const char *word = strcmp(all.v[k], CMD_COMPLETE_EXAMPLE) ? all.v[k] : all.desc[k];
		if ((all.v[k][0] == ':' && word == all.v[k]) ||
		    !strncmp(word, partial, strlen(partial)))
			cands_add_desc(out, all.v[k], all.desc[k]);
	}
	cands_free(&all);
}

int complete_words(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_cands out = { 0 };

	complete_candidates(ctx, argc, argv, &out);
	/* a description follows a tab (zsh and fish show it, bash drops it) */
	for (size_t k = 0; k < out.n; k++) {
		const char *d = out.desc[k];

		out_printf(ctx, "%s", out.v[k]);
		if (d) {	/* its first sentence */
			const char *end = strstr(d, ". ");
			putchar('\t');
			out_printf(ctx, "%.*s", end ? (int)(end - d) : (int)strlen(d), d);
		}
		putchar('\n');
	}
	cands_free(&out);
	return 0;
}

static void complete_command(struct cmd_ctx *ctx, const struct cmd_arg *a, int argc, char **argv,
			     struct cmd_cands *out)
{
	(void)a;
	complete_command_words(ctx->mode, argc, argv, out);
}
/* examples of one or more words: never offered as words (complete has candidates) */
const struct cmd_kind kind_command = { "command", NULL, complete_command,
	"show, cap set, sim advance" };
