/* SPDX-License-Identifier: MIT */
/* version, help, shell, and the hidden __complete and __man. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

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
	snprintf(buf, len, "%s%s%s", e->path, e->args ? " " : "", e->args ? e->args : "");
}

void print_usage(struct cmd_ctx *ctx, bool brief)
{
	char syn[160];

	if (ctx->mode != MODE_SHELL) {
		out_printf(ctx, "usage: thermpress [OPTIONS] COMMAND [ARGS]\n");
		out_printf(ctx, "       thermpress [OPTIONS] -f FILE\n");
		out_printf(ctx, "       thermpress [OPTIONS] < FILE\n\n");
	}
	out_printf(ctx, "commands:\n");
	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];
		if (e->flags & CMD_HIDDEN)
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
		out_printf(ctx, "\n? lists what may come next, TAB completes, | include WORD filters.\n");
		return;
	}
	if (brief)
		return;
	out_printf(ctx, "\noptions:\n");
	for (size_t i = 0; global_options[i].name; i++) {
		const struct global_option *o = &global_options[i];
		char name[48];
		if (!o->arg)
			snprintf(name, sizeof(name), "%s", o->name);
		else if (o->arg_optional)
			snprintf(name, sizeof(name), "%s[=%s]", o->name, o->arg);
		else
			snprintf(name, sizeof(name), "%s %s", o->name, o->arg);
		out_printf(ctx, "  %s\n", name);
		out_wrapped(ctx, 6, o->help);
	}
	out_printf(ctx, "\nexit status: 0 success, 1 failure, 2 usage error, 128+N ended by signal N "
		   "(after putting back what it changed).\n");
	out_printf(ctx, "See 'thermpress help COMMAND' and thermpress(1).\n");
}

static int exec_help(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_match m;
	char msg[512], syn[160];

	if (!argc) {
		print_usage(ctx, false);
		return 0;
	}
	if (cmd_resolve(argc, argv, &m, msg, sizeof(msg))) {
		/* A group ("help cap"): list its commands. */
		if (m.consumed == argc && *m.path) {
			bool any = false;
			for (size_t i = 0; cmd_table[i]; i++) {
				const struct cmd_entry *e = cmd_table[i];
				size_t pl = strlen(m.path);
				if ((e->flags & CMD_HIDDEN) || strncmp(e->path, m.path, pl) ||
				    e->path[pl] != ' ')
					continue;
				synopsis(e, syn, sizeof(syn));
				out_printf(ctx, "%s%s\n", ctx->mode == MODE_SHELL ? "" : "thermpress ", syn);
				out_wrapped(ctx, 4, e->summary);
				any = true;
			}
			if (any)
				return 0;
		}
		return cmd_error(ctx, EXIT_USAGE, "%s", msg);
	}
	if (m.consumed < argc)
		return cmd_error(ctx, EXIT_USAGE, "unknown command '%s %s' (see 'thermpress help')",
				 m.path, argv[m.consumed]);
	synopsis(m.entry, syn, sizeof(syn));
	out_printf(ctx, "usage: %s%s\n\n", ctx->mode == MODE_SHELL ? "" : "thermpress [OPTIONS] ",
		   syn);
	out_wrapped(ctx, 2, m.entry->summary);
	out_printf(ctx, "\n");
	out_wrapped(ctx, 2, m.entry->help);
	return 0;
}

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

static void complete_help(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	char path[160];
	int used;

	walk(argc, argv, path, sizeof(path), &used);
	if (used == argc)
		cmd_children(path, false, out);
}

static const struct global_option *find_global(const char *arg)
{
	for (size_t i = 0; global_options[i].name; i++) {
		size_t nl = strlen(global_options[i].name);
		if (!strncmp(arg, global_options[i].name, nl) && (arg[nl] == '\0' || arg[nl] == '='))
			return &global_options[i];
	}
	return NULL;
}

int complete_words(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_cands out = { 0 };
	const char *partial = argc ? argv[argc - 1] : "";
	char path[160];
	int i = 0, used;

	if (argc)
		argc--;	/* argv[0..argc) are complete words now */
	while (i < argc && argv[i][0] == '-') {
		const struct global_option *o = find_global(argv[i]);
		if (o && !strcmp(o->name, "-f"))
			return 0;	/* a script takes no command */
		if (o && o->arg && !o->arg_optional && !strchr(argv[i], '='))
			i++;
		i++;
	}
	if (i > argc) {
		/* The partial word is the value of an option: let the shell complete files. */
		return 0;
	}
	if (i == argc && partial[0] == '-') {
		for (size_t k = 0; global_options[k].name; k++)
			cands_add(&out, global_options[k].name);
	} else {
		walk(argc - i, argv + i, path, sizeof(path), &used);
		int nargs = argc - i - used;
		char **args = argv + i + used;
		const struct cmd_entry *e = cmd_find(path);
		if (!nargs)
			cmd_children(path, false, &out);
		if (e && !(e->flags & CMD_HIDDEN)) {
			char *rest[CMD_MAX_WORDS + 1];
			int n = 0;
			for (int k = 0; k < nargs && n < CMD_MAX_WORDS; k++)
				if (strcmp(args[k], "--json"))
					rest[n++] = args[k];
			rest[n] = NULL;
			if (e->complete)
				e->complete(ctx, n, rest, &out);
			if (e->flags & CMD_JSON)
				cands_add(&out, "--json");
		}
	}
	for (size_t k = 0; k < out.n; k++)
		if (!strncmp(out.v[k], partial, strlen(partial)))
			out_printf(ctx, "%s\n", out.v[k]);
	cands_free(&out);
	return 0;
}

static int exec_complete(struct cmd_ctx *ctx, int argc, char **argv)
{
	return complete_words(ctx, argc, argv);
}

/* Text for troff: backslashes escaped, no line starting with a control character. */
static void man_text(const char *text, bool dashes)
{
	if (*text == '.' || *text == '\'')
		fputs("\\&", stdout);
	for (const char *p = text; *p; p++) {
		if (*p == '\\')
			fputs("\\e", stdout);
		else if (*p == '-' && dashes)
			fputs("\\-", stdout);
		else
			putchar(*p);
	}
}

int print_man(struct cmd_ctx *ctx)
{
	static const char *const sections[][2] = {
		{ "SOURCES",
		  "By default thermpress reads the patched kernel's interface "
		  "(/sys/kernel/debug/sched/thermal_pressure, see docs/abi.md) under the root "
		  "directory: / unless --root or THERMPRESS_ROOT says otherwise.  When it is not "
		  "there, the error says what was found and how to use the simulator instead.\n"
		  "With --sim, thermpress runs the built-in simulator in its own process.  A "
		  "one-shot command starts a fresh simulator every time, so state (caps, backend, "
		  "clock) only lasts within one process: a script (-f FILE or standard input) or "
		  "the shell.  For a simulator that persists between commands, run thermpress sim "
		  "serve MOUNTPOINT and point other commands at it with --root MOUNTPOINT." },
		{ "SCRIPTS",
		  "thermpress -f FILE, or commands on standard input when it is not a terminal, runs "
		  "one command per line, in order.  Blank lines and comments (from a # at the start "
		  "of a word to the end of the line) are skipped.  The first command that fails "
		  "stops the script with the message thermpress: FILE:LINE: message and that "
		  "command's exit status." },
		{ "SHELL",
		  "thermpress shell reads commands from the terminal: ? lists what may come next, "
		  "TAB completes, the arrow keys recall history, and COMMAND | include WORD (also "
		  "exclude, begin, count) filters the output.  quit or exit leaves it.  The "
		  "source stays open for the whole session." },
		{ "EXIT STATUS",
		  "0 on success, 1 on a runtime failure (no interface, permission denied, the "
		  "kernel refused, a write error on standard output), 2 on a usage error (unknown "
		  "command, bad argument, bad CPU list or value).  Bad input changes nothing.  "
		  "A command that changes caps, the backend or the decay period for a while (cap "
		  "hold, cap play, bench) and is ended by SIGINT, SIGTERM, SIGHUP, SIGQUIT or a "
		  "closed output pipe first puts back what it changed, then ends as the signal "
		  "would (status 128 + the signal's number); after SIGKILL, cap restore undoes "
		  "it (docs/state.md)." },
		{ "ENVIRONMENT",
		  "THERMPRESS_ROOT: the root directory when --root is not given.  "
		  "THERMPRESS_PLUGIN_DIR: where the backend plugins are loaded from.  "
		  "THERMPRESS_STATE_DIR: a private directory (the user's own, mode 0700) for "
		  "the state files that cap restore reads." },
	};

	printf(".TH THERMPRESS 1 \"\" \"thermpress %s\" \"User Commands\"\n", tp_version()->version);
	printf(".SH NAME\nthermpress \\- read and steer the scheduler's view of thermal pressure\n");
	printf(".SH SYNOPSIS\n.B thermpress\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n.br\n");
	printf(".B thermpress\n[\\fIOPTIONS\\fR] \\fB\\-f\\fR \\fIFILE\\fR\n.br\n");
	printf(".B thermpress\n[\\fIOPTIONS\\fR] \\fBshell\\fR\n");
	printf(".SH DESCRIPTION\n");
	printf("thermpress shows each CPU's capacity, its instantaneous thermal pressure and the "
	       "averaged pressure the scheduler uses, and steers them: it caps CPUs' maximum "
	       "frequency as the cpufreq cooling device would, switches the averaging backend "
	       "and sets its decay period.  It reads a patched kernel or runs a simulator.\n");
	printf(".SH OPTIONS\nOptions come before the command.\n");
	for (size_t i = 0; global_options[i].name; i++) {
		const struct global_option *o = &global_options[i];
		printf(".TP\n\\fB");
		man_text(o->name, true);
		printf("\\fR");
		if (o->arg)
			printf("%s\\fI%s\\fR%s", o->arg_optional ? "[=" : " ", o->arg,
			       o->arg_optional ? "]" : "");
		printf("\n");
		man_text(o->help, false);
		printf("\n");
	}
	printf(".SH COMMANDS\n");
	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];
		if (e->flags & CMD_HIDDEN)
			continue;
		printf(".TP\n\\fB%s\\fR", e->path);
		if (e->args) {
			printf(" \\fI");
			man_text(e->args, true);
			printf("\\fR");
		}
		printf("\n");
		man_text(e->help, false);
		printf("\n");
	}
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		printf(".SH %s\n", sections[i][0]);
		const char *p = sections[i][1];
		while (*p) {
			size_t l = strcspn(p, "\n");
			char para[2048];
			snprintf(para, sizeof(para), "%.*s", (int)l, p);
			man_text(para, false);
			printf("\n");
			p += l;
			if (*p == '\n') {
				printf(".PP\n");
				p++;
			}
		}
	}
	printf(".SH EXAMPLES\n.nf\n");
	printf("thermpress \\-\\-sim show\n");
	printf("printf 'cap set big 60%%\\\\nsim advance 400ms\\\\nshow\\\\n' |\n"
	       "    thermpress \\-\\-sim \\-\\-virtual\\-clock\n");
	printf("thermpress sim serve \\-\\-virtual\\-clock /tmp/tp &\n");
	printf("thermpress \\-\\-root /tmp/tp \\-\\-json show status\n");
	printf(".fi\n.SH SEE ALSO\n");
	printf("docs/json.md (the \\-\\-json documents), docs/abi.md (the kernel interface).\n");
	return 0;
}

static int exec_man(struct cmd_ctx *ctx, int argc, char **argv)
{
	return print_man(ctx);
}

static int exec_version(struct cmd_ctx *ctx, int argc, char **argv)
{
	/* the library's: the one loaded, whatever the command was built with */
	out_printf(ctx, "thermpress %s\n", tp_version()->version);
	return 0;
}

static int exec_shell(struct cmd_ctx *ctx, int argc, char **argv)
{
	return shell_run(ctx);
}

const struct cmd_entry cmd_shell_entry = {
	.path = "shell",
	.summary = "read commands interactively",
	.help = "Starts an interactive shell on the terminal over the same commands: ? lists "
		"what may come next, TAB completes, the arrow keys recall history, and "
		"COMMAND | include WORD filters the output.  quit or exit leaves it.  The source "
		"stays open for the whole session, so with --sim the simulator's state lasts "
		"until the shell ends.",
	.min_args = 0, .max_args = 0,
	.flags = CMD_NO_SHELL | CMD_NO_SCRIPT,
	.exec = exec_shell,
};

const struct cmd_entry cmd_version_entry = {
	.path = "version",
	.summary = "show the version",
	.help = "Shows thermpress's version.",
	.min_args = 0, .max_args = 0,
	.exec = exec_version,
};

const struct cmd_entry cmd_help_entry = {
	.path = "help",
	.args = "[COMMAND]",
	.summary = "list the commands, or explain one",
	.help = "Without an argument, lists every command and option.  With the words of a "
		"command (help cap set), explains that command.",
	.min_args = 0, .max_args = -1,
	.exec = exec_help,
	.complete = complete_help,
};

const struct cmd_entry cmd_complete_entry = {
	.path = "__complete",
	.args = "WORDS...",
	.summary = "print completion candidates for the last word",
	.help = "Used by the bash and zsh completions.",
	.min_args = 0, .max_args = -1,
	.flags = CMD_HIDDEN | CMD_NO_SHELL,
	.exec = exec_complete,
};

const struct cmd_entry cmd_man_entry = {
	.path = "__man",
	.summary = "print the man page",
	.help = "Prints thermpress(1) in troff, generated from the command table.",
	.min_args = 0, .max_args = 0,
	.flags = CMD_HIDDEN | CMD_NO_SHELL,
	.exec = exec_man,
};
