/* SPDX-License-Identifier: MIT */
/*
 * The shell's output filters, `COMMAND | include big`, as Cisco users type them: any
 * unique prefix works (`| i`, `| in`, `| inc`, `| exc`, `| beg`, `| co`).
 *
 * libcli 1.10.7's own filters tell include from exclude by comparing the word typed with
 * the full name, so an abbreviation falls through to its regex branch with no pattern
 * compiled as the one it later matches with; they are replaced here.  Each filter is told
 * apart by the function libcli calls, never by the word typed.  A PATTERN is a POSIX
 * extended regular expression, as IOS takes one (a plain word matches itself).
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libcli.h>

#include "cli.h"
#include "shell_parts.h"

struct match_state {
	regex_t re;
	bool invert;		/* exclude */
	bool begun;		/* begin: a line has matched, every line from it on is shown */
	bool begin;
};

/* The full name of the filter libcli is setting up (whatever prefix was typed). */
static const char *filter_name(struct cli_def *cli)
{
	return cli->pipeline->current_stage->command->command;
}

static int match_filter(struct cli_def *cli, const char *line, void *data);

static int match_init(struct cli_def *cli, struct cli_filter *filt, bool invert, bool begin)
{
	const char *pattern = cli_get_optarg_value(cli, "PATTERN", NULL);
	struct match_state *st = calloc(1, sizeof(*st));

	if (!st)
		abort();
	if (!pattern || regcomp(&st->re, pattern, REG_EXTENDED | REG_NOSUB)) {
		shell_message(cli, "%s: bad PATTERN '%s' (a regular expression, such as big or "
			      "'cpu|big')", filter_name(cli), pattern ? pattern : "");
		free(st);
		return CLI_ERROR;
	}
	st->invert = invert;
	st->begin = begin;
	filt->filter = match_filter;	/* libcli leaves it to init */
	filt->data = st;
	return CLI_OK;
}

/* CLI_OK: the line is shown.  A NULL line: the command is done. */
static int match_filter(struct cli_def *cli, const char *line, void *data)
{
	struct match_state *st = data;

	(void)cli;
	if (!line) {
		regfree(&st->re);
		free(st);
		return CLI_OK;
	}
	if (st->begin && st->begun)
		return CLI_OK;
	bool hit = regexec(&st->re, line, 0, NULL, 0) == 0;
	if (st->begin) {
		st->begun = hit;
		return hit ? CLI_OK : CLI_ERROR;
	}
	return hit != st->invert ? CLI_OK : CLI_ERROR;
}

static int include_init(struct cli_def *cli, int argc, char **argv, struct cli_filter *filt)
{
	(void)argc, (void)argv;
	return match_init(cli, filt, false, false);
}

static int exclude_init(struct cli_def *cli, int argc, char **argv, struct cli_filter *filt)
{
	(void)argc, (void)argv;
	return match_init(cli, filt, true, false);
}

static int begin_init(struct cli_def *cli, int argc, char **argv, struct cli_filter *filt)
{
	(void)argc, (void)argv;
	return match_init(cli, filt, false, true);
}

/* count: no line is shown; the number of non-blank lines is, at the end. */
static int count_filter(struct cli_def *cli, const char *line, void *data)
{
	unsigned long *n = data;

	if (!line) {
		cli_error(cli, "%lu", *n);	/* unfiltered */
		free(n);
		return CLI_OK;
	}
	if (line[strspn(line, " \t")])
		(*n)++;
	return CLI_ERROR;
}

static int count_init(struct cli_def *cli, int argc, char **argv, struct cli_filter *filt)
{
	if (argc > 1) {
		shell_message(cli, "count: unexpected argument '%s' (usage: COMMAND | count)",
			      argv[1]);
		return CLI_ERROR;
	}
	filt->filter = count_filter;
	filt->data = calloc(1, sizeof(unsigned long));
	if (!filt->data)
		abort();
	return CLI_OK;
}

static const struct shell_filter {
	const char *name;
	int (*init)(struct cli_def *, int, char **, struct cli_filter *);
	int (*filter)(struct cli_def *, const char *, void *);
	const char *help;
} filters[] = {
	{ "include", include_init, match_filter, "show only the lines that match PATTERN" },
	{ "exclude", exclude_init, match_filter, "show only the lines that do not match PATTERN" },
	{ "begin", begin_init, match_filter, "show the lines from the first that matches PATTERN" },
	{ "count", count_init, count_filter, "show the number of lines instead" },
	{ 0 },
};

void shell_register_filters(struct cli_def *cli)
{
	cli_unregister_all_filters(cli);
	for (const struct shell_filter *f = filters; f->name; f++) {
		struct cli_command *c = cli_register_filter(cli, f->name, f->init, f->filter,
			PRIVILEGE_UNPRIVILEGED, MODE_ANY, f->help);
		if (c && f->init != count_init)
			cli_register_optarg(c, "PATTERN", CLI_CMD_ARGUMENT | CLI_CMD_REMAINDER_OF_LINE,
					    PRIVILEGE_UNPRIVILEGED, MODE_ANY,
					    "a regular expression (a word matches itself)",
					    NULL, NULL, NULL);
	}
}

void shell_filter_names(char *buf, size_t len)
{
	buf[0] = '\0';
	for (const struct shell_filter *f = filters; f->name; f++) {
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s", l ? ", " : "", f->name);
	}
}
