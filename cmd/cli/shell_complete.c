/* SPDX-License-Identifier: MIT */
/*
 * TAB after a command's words in the shell: its arguments' and options' values.
 *
 * libcli (1.10.7) asks an optarg's completion hook about the first argument only, and
 * with that word alone; the candidates here come from the same place as `thermpress
 * __complete`'s (complete_candidates(), the command table), for the whole line.  The
 * command words themselves, and the filters after '|', stay libcli's.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "shell_parts.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in partial's directory that partial starts, a directory's with '/'. */
static void add_files(const char *partial, bool dirs_only, struct cmd_cands *out)
{
	const char *slash = strrchr(partial, '/');
	size_t dlen = slash ? (size_t)(slash - partial) + 1 : 0;
	const char *base = partial + dlen;
	char dir[4096], path[4096 + 256];
	struct cmd_cands names = { 0 };
	struct dirent *d;
	struct stat st;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%.*s", (int)dlen, partial);
	dp = opendir(dlen ? dir : ".");
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		/* hidden names when asked for, as bash does */
		if (strncmp(d->d_name, base, strlen(base)) || (d->d_name[0] == '.' && base[0] != '.'))
			continue;
		snprintf(path, sizeof(path), "%s%s", dir, d->d_name);
		bool is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		if (dirs_only && !is_dir)
			continue;
		if (is_dir)
			strcat(path, "/");
		cands_add(&names, path);
	}
	closedir(dp);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), by_name);
	for (size_t i = 0; i < names.n; i++)
		cands_add(out, names.v[i]);
	cands_free(&names);
}

/* Whether the words before the partial one name a command whose arguments come next. */
static bool at_arguments(int argc, char **argv)
{
	struct cmd_match m;
	char msg[256];

	if (argc < 1 || cmd_resolve(MODE_SHELL, argc, argv, &m, msg, sizeof(msg)) || !m.entry)
		return false;
	if (!cmd_offered(m.entry, MODE_SHELL))
		return false;
	/* "show ": its subcommands are libcli's to complete */
	return m.consumed < argc || !cmd_has_children(m.path);
}

/* Whether libcli reads word as typed: no space, quote, '?' (help), '|' or control key. */
static bool typable(const char *word)
{
	for (const unsigned char *c = (const unsigned char *)word; *c; c++)
		if (*c < ' ' || *c == 0x7f || strchr(" ?|\"'\\", *c))
			return false;
	return true;
}

/* The candidates (the directives replaced by file names) that can be typed, into out;
 * the argument that comes next, with its examples, into hint (or ""). */
static void candidates(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out,
		       char *hint, size_t hlen)
{
	struct cmd_cands c = { 0 }, all = { 0 };
	const char *partial = argv[argc - 1];

	hint[0] = '\0';
	complete_candidates(ctx, argc, argv, &c);
	for (size_t i = 0; i < c.n; i++) {
		if (!strcmp(c.v[i], CMD_COMPLETE_HINT) && c.desc[i])
			snprintf(hint, hlen, "%s", c.desc[i]);
		else if (!strcmp(c.v[i], CMD_COMPLETE_FILES) || !strcmp(c.v[i], CMD_COMPLETE_DIRS))
			add_files(partial, !strcmp(c.v[i], CMD_COMPLETE_DIRS), &all);
		else if (c.v[i][0] != ':')
			cands_add(&all, c.v[i]);
	}
	for (size_t i = 0; i < all.n; i++)
		if (typable(all.v[i]))
			cands_add(out, all.v[i]);
	cands_free(&c);
	cands_free(&all);
}

/* What the candidates have in common after the partial word: the text to insert. */
static void common_rest(const struct cmd_cands *c, size_t plen, char *insert, size_t len)
{
	size_t k = strlen(c->v[0]);

	for (size_t i = 1; i < c->n; i++) {
		size_t j = 0;
		while (j < k && c->v[i][j] == c->v[0][j])
			j++;
		k = j;
	}
	if (k > plen)
		snprintf(insert, len, "%.*s", (int)(k - plen), c->v[0] + plen);
	/* a word complete in itself is followed by a space, a directory is not */
	if (c->n == 1 && k && c->v[0][k - 1] != '/' && strlen(insert) + 1 < len)
		strcat(insert, " ");
}

int shell_complete(struct cmd_ctx *ctx, const char *line, char *insert, size_t len,
		   struct cmd_cands *list, char *hint, size_t hlen)
{
	char **argv = NULL, msg[256];
	int argc = 0, rc = -1;
	size_t l = strlen(line);

	insert[0] = '\0';
	hint[0] = '\0';
	if (strchr(line, '|') || strchr(line, '#') ||
	    cmd_split(line, &argv, &argc, msg, sizeof(msg)))
		return -1;
	/* after a space, an empty word is being typed */
	if (l && line[l - 1] == ' ' && argc < CMD_MAX_WORDS)
		argv[argc++] = strdup("");
	if (argc >= 2 && at_arguments(argc - 1, argv)) {
		struct cmd_cands c = { 0 };
		size_t plen = strlen(argv[argc - 1]);

		candidates(ctx, argc, argv, &c, hint, hlen);
		if (c.n)
			common_rest(&c, plen, insert, len);
		if (c.n > 1 && !insert[0]) {
			/* a file is listed by its name, as a shell lists it */
			const char *slash = strrchr(argv[argc - 1], '/');
			size_t dlen = slash ? (size_t)(slash - argv[argc - 1]) + 1 : 0;
			for (size_t i = 0; i < c.n; i++)
				cands_add(list, strncmp(c.v[i], argv[argc - 1], dlen) ? c.v[i]
							: c.v[i] + dlen);
		}
		if (insert[0])	/* the hint is shown when nothing is inserted */
			hint[0] = '\0';
		cands_free(&c);
		rc = 0;
	}
	cmd_free_words(argv, argc);
	return rc;
}

/* A line of `?` as libcli writes it: the name in 20 columns, or alone on its line. */
static void help_line(char *out, size_t len, const char *name, const char *help)
{
	size_t l = strlen(out);

	if (strlen(name) <= 20)
		snprintf(out + l, len - l, "  %-20s %s\r\n", name, help);
	else
		snprintf(out + l, len - l, "  %s\r\n%23s%s\r\n", name, "", help);
}

int shell_help(struct cmd_ctx *ctx, const char *line, char *out, size_t len)
{
	char **argv = NULL, msg[256], syn[480], name[512], hint[512];
	int argc = 0, rc = -1;
	size_t l = strlen(line);
	struct cmd_match m;
	bool option;

	out[0] = '\0';
	if (strchr(line, '|') || strchr(line, '#') ||
	    cmd_split(line, &argv, &argc, msg, sizeof(msg)))
		return -1;
	/* the words before the one being typed (none after a space) */
	int done = l && line[l - 1] != ' ' ? argc - 1 : argc;
	if (done < 1 || !at_arguments(done, argv) || (done < argc && argv[done][0] == '-') ||
	    cmd_resolve(MODE_SHELL, done, argv, &m, msg, sizeof(msg)) || !m.entry)
		goto out;
	int given = done - m.consumed;
	const struct cmd_arg *a = args_next(m.entry, given, argv + m.consumed, &option);
	/* "help ?": an optional first argument is libcli's (its [COMMAND] and <cr>) */
	if (!a || (!given && !option && (a->flags & ARG_OPTIONAL)))
		goto out;
	if (!given) {	/* libcli's line for the command, then the argument's */
		args_synopsis(m.entry, syn, sizeof(syn));
		snprintf(name, sizeof(name), "<%s>", syn);
		help_line(out, len, name, m.entry->summary);
	}
	args_hint(ctx, a, option, hint, sizeof(hint));
	l = strlen(out);
	snprintf(out + l, len - l, "  %s\r\n", hint);
	rc = 0;
out:
	cmd_free_words(argv, argc);
	return rc;
}
