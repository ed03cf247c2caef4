/* SPDX-License-Identifier: MIT */
/* version, help, shell, and the hidden __complete and __man. */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

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
	char args[480];

	args_synopsis(e, args, sizeof(args));
	snprintf(buf, len, "%s%s%s", e->path, *args ? " " : "", args);
}

void print_usage(struct cmd_ctx *ctx, bool brief)
{
	char syn[512];

	if (ctx->mode != MODE_SHELL) {
		out_printf(ctx, "usage: thermpress [OPTIONS] COMMAND [ARGS]\n");
		out_printf(ctx, "       thermpress [OPTIONS] -f FILE\n");
		out_printf(ctx, "       thermpress [OPTIONS] < FILE\n\n");
	}
	out_printf(ctx, "commands:\n");
	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];
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
	size_t pl = strlen(path);
	char syn[512];
	bool any = false;

	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];

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

static int exec_help(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct cmd_match m;
	char msg[512];

	if (!args->nwords) {
		print_usage(ctx, false);
		return 0;
	}
	if (cmd_resolve(ctx->mode, args->nwords, args->words, &m, msg, sizeof(msg))) {
		/* A group ("help cap"): list its commands. */
		if (m.consumed == args->nwords && *m.path && help_group(ctx, m.path))
			return 0;
		return cmd_error(ctx, EXIT_USAGE, "%s", msg);
	}
	if (m.consumed < args->nwords) {
		cmd_unknown_message(msg, sizeof(msg), ctx->mode, m.path, args->words[m.consumed]);
		return cmd_error(ctx, EXIT_USAGE, "%s", msg);
	}
	print_command_help(ctx, m.entry);
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

static int exec_complete(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	return complete_words(ctx, args->nwords, args->words);
}

static int exec_man(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	(void)args;
	return print_man(ctx);
}

/* "PATH: SYNOPSIS" for every listed command: for the tests, which loop over them. */
static int exec_commands(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	char syn[512];

	(void)args;
	for (size_t i = 0; cmd_table[i]; i++)
		if (!(cmd_table[i]->flags & CMD_HIDDEN)) {
			args_synopsis(cmd_table[i], syn, sizeof(syn));
			out_printf(ctx, "%s:%s%s\n", cmd_table[i]->path, *syn ? " " : "", syn);
		}
	return 0;
}

static int exec_version(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	/* the library's: the one loaded, whatever the command was built with */
	const struct tp_version_info *v = tp_version();

	if (ctx->cmd_json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "schema_version", json_object_new_int(1));
		json_object_object_add(o, "version", json_object_new_string(v->version));
		json_object_object_add(o, "abi_version", json_object_new_int(v->abi_version));
		json_object_object_add(o, "backend_abi_version",
				       json_object_new_int64(v->backend_abi_version));
		json_object_object_add(o, "trace_version", json_object_new_int(v->trace_version));
		out_json(ctx, o);
		return 0;
	}
	out_printf(ctx, "thermpress %s\n", v->version);
	return 0;
}

static int exec_shell(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	return shell_run(ctx);
}

const struct cmd_entry cmd_shell_entry = {
	.path = "shell",
	.summary = "read commands interactively",
	.help = "Starts an interactive shell on the terminal over the same commands (those "
		"that can run in it): ? lists what may come next, TAB completes commands and the "
		"values of their arguments and options (CPU lists, backends, file names); after "
		"a command's words both show the argument that comes next with examples (cap "
		"set big ?: VALUE: 1800MHz, 2.36GHz, cap=600, 60%), the arrow keys "
		"recall history, and COMMAND | include PATTERN filters the output, as do "
		"exclude PATTERN, begin PATTERN and count, each by any unique prefix (| inc, "
		"| exc, | beg, | co; PATTERN is an extended regular expression).  Ctrl-C drops "
		"the line being typed, or stops the running command (cap play then puts back "
		"the caps it changed); Ctrl-L clears the screen; quit, exit or Ctrl-D leaves.  "
		"The source stays open for the whole session, so with --sim the simulator's "
		"state lasts until the shell ends.  The history is kept across sessions, as bash "
		"and psql keep theirs: the last 256 lines go to $XDG_STATE_HOME/thermpress/"
		"shell_history (~/.local/state/thermpress/ without an absolute XDG_STATE_HOME) "
		"when a session in which a line was entered ends, replaced atomically; a file "
		"that is damaged, too large, a symbolic link or in a directory another user "
		"could change is ignored with one warning and left as it is (docs/state.md).  "
		"Scripts keep no history.",
	.flags = CMD_NO_SHELL | CMD_NO_SCRIPT,
	.exec = exec_shell,
};

const struct cmd_entry cmd_version_entry = {
	.path = "version",
	.summary = "show the version",
	.help = "Shows thermpress's version; with --json, an object with the version, the "
		"kernel interface it reads (abi_version, docs/abi.md), the backend plugin "
		"interface it loads (backend_abi_version) and the trace format it writes "
		"(trace_version).",
	.flags = CMD_JSON,
	.exec = exec_version,
};

const struct cmd_entry cmd_help_entry = {
	.path = "help",
	.pos = (const struct cmd_arg[]){
		/* a command is one or more words: shown as [COMMAND] */
		{ .name = "COMMAND", .kind = &kind_command, .value_name = "[COMMAND]",
		  .flags = ARG_OPTIONAL | ARG_REPEAT, .help = "the words of a command or group (cap set, cap)" },
		{ 0 },
	},
	.summary = "list the commands, or explain one",
	.help = "Without an argument, lists every command and option.  With the words of a "
		"command (help cap set), explains that command: its synopsis, its arguments and "
		"options; COMMAND --help does the same.",
	.exec = exec_help,
};

const struct cmd_entry cmd_complete_entry = {
	.path = "__complete",
	.pos = (const struct cmd_arg[]){
		{ .name = "WORDS", .kind = &kind_words, .flags = ARG_OPTIONAL | ARG_RAW,
		  .help = "the words typed so far, the partial one last" },
		{ 0 },
	},
	.summary = "print completion candidates for the last word",
	.help = "Used by the bash, zsh and fish completions: one candidate a line, its "
		"description after a tab; :files, :dirs and :commands ask the shell for file "
		"names, directories and command names; :hint's description is the argument that "
		"comes next with its examples, and each :example's one of those examples, for a "
		"shell that cannot show a message.",
	.flags = CMD_HIDDEN | CMD_NO_SHELL,
	.exec = exec_complete,
};

const struct cmd_entry cmd_man_entry = {
	.path = "__man",
	.summary = "print the man page",
	.help = "Prints thermpress(1) in troff, generated from the command table.",
	.flags = CMD_HIDDEN | CMD_NO_SHELL,
	.exec = exec_man,
};

const struct cmd_entry cmd_commands_entry = {
	.path = "__commands",
	.summary = "list every command with its synopsis",
	.help = "Prints PATH: SYNOPSIS for every listed command, for the tests.",
	.flags = CMD_HIDDEN | CMD_NO_SHELL,
	.exec = exec_commands,
};
