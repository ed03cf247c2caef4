/* SPDX-License-Identifier: MIT */
/* The command tree: the table the program hands over, and resolving words against it. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct cmd_entry *const *tree_entries;
static const struct cmd_group *tree_groups;

void cmd_tree_set(const struct cmd_entry *const *entries, const struct cmd_group *groups)
{
	tree_entries = entries;
	tree_groups = groups;
}

const struct cmd_entry *const *cmd_entries(void)
{
	return tree_entries;
}

const struct cmd_entry *cmd_find(const char *path)
{
	for (size_t i = 0; tree_entries[i]; i++)
		if (!strcmp(tree_entries[i]->path, path))
			return tree_entries[i];
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

	for (size_t i = 0; tree_entries[i]; i++) {
		const struct cmd_entry *e = tree_entries[i];
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
	for (size_t g = 0; tree_groups[g].name; g++)
		if (!strcmp(tree_groups[g].name, path))
			return tree_groups[g].summary;
	return NULL;
}

/* Why e cannot run in mode, into msg; false if it can. */
bool cmd_mode_refuses(const struct cmd_entry *e, enum cmd_mode mode, char *msg, size_t msglen)
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

	return !(e->flags & CMD_HIDDEN) && !cmd_mode_refuses(e, mode, msg, sizeof(msg));
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
	if ((m.entry->flags & CMD_HIDDEN) || !cmd_mode_refuses(m.entry, mode, msg, msglen))
		cmd_unknown_message(msg, msglen, mode, "", word);
}
