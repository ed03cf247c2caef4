/* SPDX-License-Identifier: MIT */
/* Resolving words against the command table, and running what they name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "grow.h"
#include "signals.h"

void cands_add_desc(struct cmd_cands *c, const char *word, const char *desc)
{
	/* once each (the examples are told apart by their descriptions, the words) */
	bool example = !strcmp(word, CMD_COMPLETE_EXAMPLE);
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i], word) &&
		    (!example || (desc && c->desc[i] && !strcmp(c->desc[i], desc))))
			return;
	if (c->n == c->alloc) {
		size_t alloc = array_capacity(c->alloc, c->n + 1, 16);
		char **v = realloc(c->v, alloc * sizeof(*v));
		char **d = v ? realloc(c->desc, alloc * sizeof(*d)) : NULL;
		if (!v || !d)
			abort();
		c->v = v;
		c->desc = d;
		c->alloc = alloc;
	}
	c->v[c->n] = strdup(word);
	if (!c->v[c->n])
		abort();
	c->desc[c->n] = desc ? strdup(desc) : NULL;
	if (desc && !c->desc[c->n])
		abort();
	c->n++;
}

void cands_add(struct cmd_cands *c, const char *word)
{
	cands_add_desc(c, word, NULL);
}

void cands_free(struct cmd_cands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i]);
		free(c->desc[i]);
	}
	free(c->v);
	free(c->desc);
	memset(c, 0, sizeof(*c));
}

const struct cmd_entry *cmd_find(const char *path)
{
	for (size_t i = 0; cmd_table[i]; i++)
		if (!strcmp(cmd_table[i]->path, path))
			return cmd_table[i];
	return NULL;
}

/* The component of path after prefix ("" or "show"), into word; false if none. */
static bool next_word(const char *path, const char *prefix, char *word, size_t len)
{
	size_t pl = strlen(prefix);
	const char *rest;

	if (pl) {
		if (strncmp(path, prefix, pl) || path[pl] != ' ')
			return false;
		rest = path + pl + 1;
	} else {
		rest = path;
	}
	size_t wl = strcspn(rest, " ");
	if (!wl || wl >= len)
		return false;
	memcpy(word, rest, wl);
	word[wl] = '\0';
	return true;
}

void cmd_children(const char *prefix, bool hidden, struct cmd_cands *out)
{
	char word[64];

	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];
		if ((e->flags & CMD_HIDDEN) && !hidden)
			continue;
		if (next_word(e->path, prefix, word, sizeof(word))) {
			char path[160];
			snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? " " : "", word);
			cands_add_desc(out, word, cmd_summary(path));
		}
	}
}

const char *cmd_summary(const char *path)
{
	const struct cmd_entry *e = cmd_find(path);

	if (e)
		return e->summary;
	for (size_t g = 0; cmd_groups[g].name; g++)
		if (!strcmp(cmd_groups[g].name, path))
			return cmd_groups[g].summary;
	return NULL;
}

/* Why e cannot run in mode, into msg; false if it can. */
static bool mode_refuses(const struct cmd_entry *e, enum cmd_mode mode, char *msg, size_t msglen)
{
	if ((e->flags & CMD_NO_SHELL) && mode == MODE_SHELL)
		snprintf(msg, msglen, "'%s' cannot be run inside the shell", e->path);
	else if ((e->flags & CMD_NO_SCRIPT) && mode == MODE_SCRIPT)
		snprintf(msg, msglen, "'%s' cannot be run from a script", e->path);
	else
		return false;
	return true;
}

bool cmd_offered(const struct cmd_entry *e, enum cmd_mode mode)
{
	char msg[160];

	return !(e->flags & CMD_HIDDEN) && !mode_refuses(e, mode, msg, sizeof(msg));
}

/* A word under prefix that is not offered in mode: hidden, or refused there. */
static bool is_unoffered_word(const char *prefix, const char *word, enum cmd_mode mode)
{
	char path[160];

	snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? " " : "", word);
	const struct cmd_entry *e = cmd_find(path);
	return e && !cmd_offered(e, mode);
}

bool cmd_has_children(const char *path)
{
	struct cmd_cands c = { 0 };
	cmd_children(path, true, &c);
	bool yes = c.n > 0;
	cands_free(&c);
	return yes;
}

void cmd_unknown_message(char *msg, size_t msglen, enum cmd_mode mode, const char *path,
			 const char *word)
{
	struct cmd_cands kids = { 0 }, offered = { 0 };
	char near[192], mean[224] = "";

	/* the commands this mode offers under path, nearest the word first (git's help.c) */
	cmd_children(path, false, &kids);
	for (size_t k = 0; k < kids.n; k++)
		if (!is_unoffered_word(path, kids.v[k], mode))
			cands_add(&offered, kids.v[k]);
	cmd_suggest(word, &offered, path, near, sizeof(near));
	cands_free(&kids);
	cands_free(&offered);
	if (near[0])
		snprintf(mean, sizeof(mean), ": did you mean %s?", near);
	/* the shell's own help is `?` */
	if (mode == MODE_SHELL)
		snprintf(msg, msglen, "unknown command '%s%s%s'%s (%s%s? lists the commands)",
			 path, *path ? " " : "", word, mean, path, *path ? " " : "");
	else
		snprintf(msg, msglen, "unknown command '%s%s%s'%s (see 'thermpress help%s%s')",
			 path, *path ? " " : "", word, mean, *path ? " " : "", path);
}

int cmd_resolve(enum cmd_mode mode, int argc, char **argv, struct cmd_match *m, char *msg,
		size_t msglen)
{
	memset(m, 0, sizeof(*m));
	int i = 0;

	while (i < argc) {
		struct cmd_cands kids = { 0 };
		const char *w = argv[i];
		const char *hit = NULL;
		size_t nhits = 0;
		char list[256] = "";

		cmd_children(m->path, true, &kids);
		for (size_t k = 0; k < kids.n; k++)
			if (!strcmp(kids.v[k], w))
				hit = kids.v[k];
		if (!hit && *w) {
			for (size_t k = 0; k < kids.n; k++) {
				if (strncmp(kids.v[k], w, strlen(w)) ||
				    is_unoffered_word(m->path, kids.v[k], mode))
					continue;
				hit = kids.v[k];
				nhits++;
				size_t l = strlen(list);
				snprintf(list + l, sizeof(list) - l, "%s%s", l ? ", " : "", kids.v[k]);
			}
			if (nhits > 1) {
				snprintf(msg, msglen, "ambiguous command '%s%s%s' (could be: %s)",
					 m->path, *m->path ? " " : "", w, list);
				cands_free(&kids);
				return EXIT_USAGE;
			}
		}
		if (!hit) {
			cands_free(&kids);
			break;
		}
		size_t l = strlen(m->path);
		snprintf(m->path + l, sizeof(m->path) - l, "%s%s", l ? " " : "", hit);
		cands_free(&kids);
		i++;
	}
	m->consumed = i;
	m->entry = cmd_find(m->path);
	if (m->entry)
		return 0;
	if (!*m->path) {
		if (argc)
			cmd_unknown_message(msg, msglen, mode, "", argv[0]);
		else
			snprintf(msg, msglen, "no command given (see 'thermpress help')");
	} else if (i < argc) {
		cmd_unknown_message(msg, msglen, mode, m->path, argv[i]);
	} else {
		struct cmd_cands kids = { 0 };
		char list[256] = "";
		cmd_children(m->path, false, &kids);
		for (size_t k = 0; k < kids.n; k++) {
			if (is_unoffered_word(m->path, kids.v[k], mode))
				continue;
			size_t l = strlen(list);
			snprintf(list + l, sizeof(list) - l, "%s%s", l ? ", " : "", kids.v[k]);
		}
		cands_free(&kids);
		snprintf(msg, msglen, "'%s' needs a subcommand (%s)", m->path, list);
	}
	return EXIT_USAGE;
}

void cmd_unoffered_message(const char *word, enum cmd_mode mode, char *msg, size_t msglen)
{
	struct cmd_match m;
	char *argv[] = { (char *)word, NULL };

	if (cmd_resolve(mode, 1, argv, &m, msg, msglen))
		return;
	if ((m.entry->flags & CMD_HIDDEN) || !mode_refuses(m.entry, mode, msg, msglen))
		cmd_unknown_message(msg, msglen, mode, "", word);
}

/* COMMAND --help or -h (before any "--"), for a command whose words are not taken raw. */
static bool wants_help(const struct cmd_entry *e, int argc, char **argv)
{
	if (e->pos && (e->pos->flags & ARG_RAW))
		return false;
	for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/*
 * A change made by a one-shot --sim command ends with it (each process starts a fresh
 * simulator): say so once, and how to keep one.  Scripts and the shell keep theirs.
 */
static void note_sim_ends(struct cmd_ctx *ctx)
{
	char sim[64];

	if (ctx->mode != MODE_ONESHOT || ctx->opts.kind != TP_SOURCE_SIM)
		return;
	snprintf(sim, sizeof(sim), "--sim%s%.40s", ctx->opts.sim_preset ? "=" : "",
		 ctx->opts.sim_preset ? ctx->opts.sim_preset : "");
	cmd_note(ctx, "the simulator's state ends with this command; keep one running with a "
		 "script (thermpress %s -f FILE), the shell (thermpress %s shell) or sim serve "
		 "(thermpress %s sim serve DIR, then --root DIR)", sim, sim, sim);
}

int cmd_run_entry(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv)
{
	const struct cmd_entry *saved = ctx->entry;
	struct cmd_args args;
	char msg[512];

	if (mode_refuses(e, ctx->mode, msg, sizeof(msg)))
		return ctx->status = cmd_error(ctx, EXIT_USAGE, "%s", msg);
	if (wants_help(e, argc, argv)) {
		print_command_help(ctx, e);
		return ctx->status = 0;
	}
	ctx->entry = e;
	exp_stop = 0;	/* a stop asked before this command is not for it */
	ctx->status = args_parse(ctx, e, argc, argv, &args);
	if (!ctx->status) {
		ctx->cmd_json = ctx->json || args.json;
		ctx->status = e->exec(ctx, &args);
		ctx->cmd_json = false;
	}
	if (!ctx->status && (e->flags & CMD_CHANGES))
		note_sim_ends(ctx);
	ctx->entry = saved;
	return ctx->status;
}

int cmd_dispatch(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_match m;
	char msg[512];

	if (argc >= CMD_MAX_WORDS)
		return ctx->status = cmd_error(ctx, EXIT_USAGE, "too many words (at most %d)",
					       CMD_MAX_WORDS - 1);
	if (cmd_resolve(ctx->mode, argc, argv, &m, msg, sizeof(msg))) {
		/* "cap --help": COMMAND --help (-h) works for a group too, as help cap */
		if (!m.entry && *m.path && m.consumed < argc &&
		    (!strcmp(argv[m.consumed], "--help") || !strcmp(argv[m.consumed], "-h")))
			return cmd_run_entry(ctx, &cmd_help_entry, m.consumed, argv);
		return ctx->status = cmd_error(ctx, EXIT_USAGE, "%s", msg);
	}
	return cmd_run_entry(ctx, m.entry, argc - m.consumed, argv + m.consumed);
}

void cmd_free_words(char **argv, int argc)
{
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

int cmd_split(const char *line, char ***argvp, int *argcp, char *msg, size_t msglen)
{
	size_t len = strlen(line);
	char **argv = calloc(CMD_MAX_WORDS + 1, sizeof(*argv));
	char *word = malloc(len + 1);
	int argc = 0;
	const char *p = line;

	if (!argv || !word)
		abort();
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break;
		size_t wl = 0;
		char quote = 0;
		while (*p && (quote || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r'))) {
			if (quote) {
				if (*p == quote)
					quote = 0;
				else if (*p == '\\' && quote == '"' && p[1])
					word[wl++] = *++p;
				else
					word[wl++] = *p;
			} else if (*p == '\'' || *p == '"') {
				quote = *p;
			} else if (*p == '\\' && p[1]) {
				word[wl++] = *++p;
			} else {
				word[wl++] = *p;
			}
			p++;
		}
		if (quote) {
			snprintf(msg, msglen, "unterminated %s quote",
				 quote == '"' ? "double" : "single");
			free(word);
			cmd_free_words(argv, argc);
			return EXIT_USAGE;
		}
		if (argc == CMD_MAX_WORDS) {
			snprintf(msg, msglen, "too many words (at most %d)", CMD_MAX_WORDS);
			free(word);
			cmd_free_words(argv, argc);
			return EXIT_USAGE;
		}
		word[wl] = '\0';
		argv[argc] = strdup(word);
		if (!argv[argc])
			abort();
		argc++;
	}
	free(word);
	*argvp = argv;
	*argcp = argc;
	return 0;
}
