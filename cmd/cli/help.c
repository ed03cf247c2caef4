/* SPDX-License-Identifier: MIT */
/* Help written from the command tree: the usage, a command's help, a group's commands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Print text wrapped at 78 columns, every line indented by indent. */
static void out_wrapped(struct cmd_ctx *ctx, int indent, const char *text)
{
	const int width = 78;
	char line[256];
	int len = 0;

	while (*text) {
		while (*text == ' ')
			text++;
		size_t wl = strcspn(text, " ");
		if (!wl)
			break;
		if (len && indent + len + 1 + (int)wl > width) {
			out_printf(ctx, "%*s%.*s\n", indent, "", len, line);
			len = 0;
		}
		if (len + 1 + wl >= sizeof(line))
			wl = sizeof(line) - len - 2;
		len += snprintf(line + len, sizeof(line) - len, "%s%.*s", len ? " " : "", (int)wl, text);
		text += wl;
	}
	if (len)
		out_printf(ctx, "%*s%.*s\n", indent, "", len, line);
}

static void synopsis(const struct cmd_entry *e, char *buf, size_t len)
{
	char args[480];

	args_synopsis(e, args, sizeof(args));
	snprintf(buf, len, "%s%s%s", e->path, *args ? " " : "", args);
}

void print_usage(struct cmd_ctx *ctx, bool brief)
{
	const struct cmd_entry *const *entries = cmd_entries();
	char syn[512];

	if (ctx->mode != MODE_SHELL) {
		out_printf(ctx, "usage: thermpress [OPTIONS] COMMAND [ARGS]\n");
		out_printf(ctx, "       thermpress [OPTIONS] -f FILE\n");
		out_printf(ctx, "       thermpress [OPTIONS] < FILE\n\n");
	}
	out_printf(ctx, "commands:\n");
	for (size_t i = 0; entries[i]; i++) {
		const struct cmd_entry *e = entries[i];
		/* the shell lists only what it runs */
		if (!cmd_offered(e, ctx->mode == MODE_SHELL ? MODE_SHELL : MODE_ONESHOT))
			continue;
		synopsis(e, syn, sizeof(syn));
		if (strlen(syn) > 30) {
			out_printf(ctx, "  %s\n", syn);
			out_printf(ctx, "  %-30s  %s\n", "", e->summary);
		} else {
			out_printf(ctx, "  %-30s  %s\n", syn, e->summary);
		}
	}
	if (ctx->mode == MODE_SHELL) {
		out_printf(ctx, "  %-30s  %s\n", "quit, exit", "leave the shell");
		out_printf(ctx, "  %-30s  %s\n", "history", "show the commands entered");
		out_printf(ctx, "\n? lists what may come next, TAB completes; COMMAND | include "
			   "PATTERN (or exclude, begin, count) filters its output.\n");
		return;
	}
	if (brief)
		return;
	out_printf(ctx, "\noptions:\n");
	for (size_t i = 0; global_options[i].name; i++) {
		char name[128];

		args_option_label(&global_options[i], name, sizeof(name));
		out_printf(ctx, "  %s\n", name);
		out_wrapped(ctx, 6, global_options[i].help);
	}
	out_printf(ctx, "\nexit status: 0 success, 1 failure, 2 usage error, 128+N ended by signal N "
		   "(after putting back what it changed).\n");
	out_printf(ctx, "See 'thermpress help COMMAND' and thermpress(1).\n");
}

/* "help cap": the commands of a group; false if there are none. */
static bool help_group(struct cmd_ctx *ctx, const char *path)
{
	const struct cmd_entry *const *entries = cmd_entries();
	size_t pl = strlen(path);
	char syn[512];
	bool any = false;

	for (size_t i = 0; entries[i]; i++) {
		const struct cmd_entry *e = entries[i];

		if (!cmd_offered(e, ctx->mode == MODE_SHELL ? MODE_SHELL : MODE_ONESHOT) ||
		    strncmp(e->path, path, pl) || e->path[pl] != ' ')
			continue;
		synopsis(e, syn, sizeof(syn));
		out_printf(ctx, "%s%s\n", ctx->mode == MODE_SHELL ? "" : "thermpress ", syn);
		out_wrapped(ctx, 4, e->summary);
		any = true;
	}
	return any;
}

/* The arguments and options of e, one label and help line each. */
static void help_arguments(struct cmd_ctx *ctx, const struct cmd_entry *e)
{
	const struct cmd_arg *a;
	char label[160];

	if (e->pos && e->pos->name)
		out_printf(ctx, "\narguments:\n");
	for (a = e->pos; a && a->name; a++) {
		out_printf(ctx, "  %s%s\n", (a->flags & ARG_AFTER_DASHES) ? "-- " : "", a->name);
		out_wrapped(ctx, 6, a->help);
	}
	if (args_option(e, 0))
		out_printf(ctx, "\noptions:\n");
	for (size_t i = 0; (a = args_option(e, i)); i++) {
		args_option_label(a, label, sizeof(label));
		out_printf(ctx, "  %s\n", label);
		out_wrapped(ctx, 6, a->help);
	}
}

void print_command_help(struct cmd_ctx *ctx, const struct cmd_entry *e)
{
	char syn[512];

	synopsis(e, syn, sizeof(syn));
	out_printf(ctx, "usage: %s%s\n\n", ctx->mode == MODE_SHELL ? "" : "thermpress [OPTIONS] ",
		   syn);
	out_wrapped(ctx, 2, e->summary);
	out_printf(ctx, "\n");
	out_wrapped(ctx, 2, e->help);
	help_arguments(ctx, e);
}

int print_help(struct cmd_ctx *ctx, int nwords, char **words)
{
	struct cmd_match m;
	char msg[512];

	if (!nwords) {
		print_usage(ctx, false);
		return 0;
	}
	if (cmd_resolve(ctx->mode, nwords, words, &m, msg, sizeof(msg))) {
		/* A group ("help cap"): list its commands. */
		if (m.consumed == nwords && *m.path && help_group(ctx, m.path))
			return 0;
		return cmd_error(ctx, EXIT_USAGE, "%s", msg);
	}
	if (m.consumed < nwords) {
		cmd_unknown_message(msg, sizeof(msg), ctx->mode, m.path, words[m.consumed]);
		return cmd_error(ctx, EXIT_USAGE, "%s", msg);
	}
	print_command_help(ctx, m.entry);
	return 0;
}

/* "PATH: SYNOPSIS" for every listed command: for the tests, which loop over them. */
void print_command_list(struct cmd_ctx *ctx)
{
	const struct cmd_entry *const *entries = cmd_entries();
	char syn[512];

	for (size_t i = 0; entries[i]; i++)
		if (!(entries[i]->flags & CMD_HIDDEN)) {
			args_synopsis(entries[i], syn, sizeof(syn));
			out_printf(ctx, "%s:%s%s\n", entries[i]->path, *syn ? " " : "", syn);
		}
}

