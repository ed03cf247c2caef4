// SPDX-License-Identifier: MIT
/*
 * The parser of a command's words (cmd/cli/args.c) against the real command table.
 *
 * Input: byte 0 picks the command (every entry of cmd_table, hidden ones too), the rest
 * up to a NUL is the words, one a line.  Properties, besides the sanitizers:
 * - args_parse returns 0 or EXIT_USAGE; 0 prints nothing, EXIT_USAGE exactly one line:
 *   "thermpress: COMMAND: MESSAGE (usage: COMMAND SYNOPSIS)" with the entry's own
 *   synopsis, or the resolver's "unknown command 'COMMAND WORD'" for a word under a
 *   command with subcommands;
 * - on 0: every required argument and option was given, every value is one of the
 *   words (or the part after '=' of one), an integer is in its range and a duration
 *   at least its minimum, the repeatable positional's words are words of the input;
 * - completing the same words never fails and offers no empty candidate.
 */
#include <libcli.h>

#include "commands.h"
#include "fuzz_common.h"

static struct cli_def *cli;
static char lines[8][2048];
static int nlines;

static void capture(struct cli_def *c, const char *line)
{
	(void)c;
	if (nlines < 8)
		snprintf(lines[nlines], sizeof(lines[0]), "%s", line);
	nlines++;
}

/* Whether text is one of the words, or what follows '=' in one. */
static bool from_words(const char *text, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (text == argv[i] || (eq && text == eq + 1))
			return true;
	}
	return false;
}

static void check_usage_line(const struct cmd_entry *e, const char *line)
{
	char syn[512], prefix[160], tail[600];
	size_t ll = strlen(line), tl;

	args_synopsis(e, syn, sizeof(syn));
	snprintf(prefix, sizeof(prefix), "thermpress: %s: ", e->path);
	snprintf(tail, sizeof(tail), " (usage: %s%s%s)", e->path, *syn ? " " : "", syn);
	tl = strlen(tail);
	if (!strncmp(line, "thermpress: unknown command '", 29)) {
		FUZZ_CHECK(cmd_has_children(e->path), "%s: %s", e->path, line);
		return;
	}
	FUZZ_CHECK(!strncmp(line, prefix, strlen(prefix)), "%s: %s", e->path, line);
	FUZZ_CHECK(ll > tl && !strcmp(line + ll - tl, tail), "%s: %s", e->path, line);
}

static void check_parsed(const struct cmd_entry *e, const struct cmd_args *args, int argc,
			 char **argv)
{
	const struct cmd_arg *a;
	size_t i = 0;

	for (a = e->pos; a && a->name; a++, i++) {
		const struct cmd_parsed *p = &args->pos[i];

		FUZZ_CHECK(p->given || (a->flags & ARG_OPTIONAL), "%s: %s missing", e->path, a->name);
		FUZZ_CHECK(!p->given || from_words(p->text, argc, argv), "%s: %s", e->path, a->name);
	}
	for (i = 0; (a = args_option(e, i)); i++) {
		const struct cmd_parsed *p = &args->opt[i];

		FUZZ_CHECK(p->given || !(a->flags & ARG_REQUIRED), "%s: %s missing", e->path, a->name);
		if (!p->given || !a->kind)
			continue;
		FUZZ_CHECK(p->text ? from_words(p->text, argc, argv) : (a->flags & ARG_VALUE_INLINE),
			   "%s: %s", e->path, a->name);
		if (a->kind == &kind_int)
			FUZZ_CHECK(p->v.i >= a->min && p->v.i <= a->max, "%s: %s", e->path, a->name);
		if (a->kind == &kind_duration)
			FUZZ_CHECK(p->v.ns >= (uint64_t)a->min && p->v.ns > 0, "%s: %s", e->path,
				   a->name);
	}
	FUZZ_CHECK(args->nwords <= argc, "%s: %d words of %d", e->path, args->nwords, argc);
	for (int k = 0; k < args->nwords; k++)
		FUZZ_CHECK(from_words(args->words[k], argc, argv), "%s: word %d", e->path, k);
}

static void check_completion(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc,
			     char **argv)
{
	struct cmd_cands out = { 0 };

	args_complete(ctx, e, argc ? argc - 1 : 0, argv, argc ? argv[argc - 1] : "", &out);
	for (size_t k = 0; k < out.n; k++)
		FUZZ_CHECK(out.v[k][0], "%s: an empty candidate", e->path);
	cands_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmd_ctx ctx = { 0 };
	struct cmd_args args;
	char *text, *argv[CMD_MAX_WORDS + 1], *save = NULL;
	size_t n = 0;
	int argc = 0, rc;

	if (!cli) {
		cli = cli_init();
		if (!cli)
			abort();
		cli_print_callback(cli, capture);
		cmd_tree_set(cmd_table, cmd_groups);
	}
	if (size < 1)
		return 0;
	while (cmd_table[n])
		n++;
	const struct cmd_entry *e = cmd_table[data[0] % n];
	text = fuzz_cstring(data + 1, size - 1);
	for (char *w = strtok_r(text, "\n", &save); w && argc < CMD_MAX_WORDS;
	     w = strtok_r(NULL, "\n", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	/* the shell's output path: every message through libcli, captured */
	ctx.cli = cli;
	ctx.mode = MODE_SHELL;
	ctx.opts.plugin_dir = "/nonexistent";	/* no plugin loading while completing */
	ctx.entry = e;
	nlines = 0;
	rc = args_parse(&ctx, e, argc, argv, &args);
	FUZZ_CHECK(rc == 0 || rc == EXIT_USAGE, "%s: status %d", e->path, rc);
	FUZZ_CHECK(nlines == (rc ? 1 : 0), "%s: %d message lines for status %d", e->path, nlines,
		   rc);
	if (rc)
		check_usage_line(e, lines[0]);
	else
		check_parsed(e, &args, argc, argv);
	check_completion(&ctx, e, argc, argv);
	free(text);
	return 0;
}
