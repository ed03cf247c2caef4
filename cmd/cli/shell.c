/* SPDX-License-Identifier: MIT */
/*
 * The interactive shell: libcli over the command table.
 *
 * libcli traps handled here: cli_loop needs one read-write fd and
 * closes it (it gets a dup of the terminal), only '\r' ends a line (the terminal is
 * put in raw mode and telnet negotiation is off), and prefixes are only checked for
 * ambiguity after the privilege has been toggled once.
 *
 * Every node, groups included, runs shell_callback, which hands the words back to
 * cmd_dispatch(): a group alone, a word libcli does not know under a group, a wrong
 * argument count get the one-shot messages.  libcli calls a node's callback with the
 * unmatched words when a child word fails.  A first word that matches nothing has no
 * such fallback (libcli 1.10.7 prints `Invalid command "x"` from inside cli_loop, with
 * no hook before the line is parsed); shell_print, the print callback, replaces that
 * message and libcli's other ones about a line with the one-shot style's.
 */
#include <ctype.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/select.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <libcli.h>

#include <thermpress/history.h>

#include "cli.h"
#include "shell_parts.h"
#include "signals.h"

static bool in_command;		/* shell_callback is running: the output is ours */

/*
 * The history kept across sessions (thermpress/history.h, docs/state.md).  libcli 1.10.7
 * keeps its list in cli->history and has no call to add to it: cli_loop empties it, then
 * prints the banner (through shell_print), where the saved lines are put in; libcli adds
 * each line it takes before running it, so every callback and every line printed copies
 * the list when it changed; at the end (cli_loop empties it again) the copy is saved.
 */
_Static_assert(TP_HISTORY_MAX_ENTRIES <= MAX_HISTORY, "libcli keeps the lines saved");
_Static_assert(TP_HISTORY_LINE_MAX < CLI_MAX_LINE_LENGTH, "libcli takes the lines saved");
static struct {
	struct tp_history h;		/* as loaded, then the session's */
	char dir[4096];
	bool keep;			/* loaded (or nothing to load): saved at the end */
	bool pending;			/* to put into libcli at the banner */
	bool changed;			/* a line was entered */
	char *seen[MAX_HISTORY];	/* libcli's list when last copied */
} hist;

/* Before the session: the saved history, or one warning and none kept. */
static void history_start(struct cmd_ctx *ctx)
{
	struct tp_error err = { 0 };
	int rc = tp_history_dir(hist.dir, sizeof(hist.dir), &err);

	if (rc == 0)
		rc = tp_history_load(hist.dir, &hist.h, &err);
	hist.keep = hist.pending = rc == 0;
	hist.changed = false;
	if (rc < 0)
		cmd_warning(ctx, "%s: the shell's history is left as it is and not kept this session",
			    err.msg);
}

/* The banner: libcli's list is empty; the saved lines go in, oldest first. */
static void history_put(struct cli_def *cli)
{
	hist.pending = false;
	for (size_t i = 0; i < hist.h.n && i < MAX_HISTORY; i++)
		cli->history[i] = strdup(hist.h.v[i]);
	memcpy(hist.seen, cli->history, sizeof(hist.seen));
}

/* libcli's list copied when it changed (a line was entered). */
static void history_follow(struct cli_def *cli)
{
	if (!hist.keep)
		return;
	if (hist.pending) {
		history_put(cli);
		return;
	}
	if (!memcmp(hist.seen, cli->history, sizeof(hist.seen)))
		return;
	memcpy(hist.seen, cli->history, sizeof(hist.seen));
	tp_history_free(&hist.h);
	for (int i = 0; i < MAX_HISTORY; i++)
		if (cli->history[i])
			tp_history_add(&hist.h, cli->history[i]);
	hist.changed = true;
}

/* After the session: saved when a line was entered. */
static void history_end(struct cmd_ctx *ctx)
{
	struct tp_error err = { 0 };

	if (hist.keep && hist.changed && tp_history_save(hist.dir, &hist.h, &err) < 0)
		cmd_warning(ctx, "%s: the shell's history of this session was not saved", err.msg);
	tp_history_free(&hist.h);
	hist.keep = hist.pending = false;
}

/*
 * `?` typed after a command that takes no argument: libcli runs the command with the
 * word "?" (a command with arguments lists them from its optarg instead).  It only
 * asks what may follow: nothing but the end of the line.
 */
static bool asks_help(struct cli_def *cli, char *argv[], int argc)
{
	if (!argc || strcmp(argv[argc - 1], "?"))
		return false;
	cli_error(cli, "  <cr>");
	return true;
}

static int shell_callback(struct cli_def *cli, const char *command, char *argv[], int argc)
{
	struct cmd_ctx *ctx = cli_get_context(cli);
	char **words;
	int n = 0;

	history_follow(cli);
	if (asks_help(cli, argv, argc))
		return CLI_OK;

	/* command is the full path libcli matched; the words after it follow. */
	words = calloc((size_t)argc + CMD_MAX_WORDS + 1, sizeof(*words));
	char *path = strdup(command);
	if (!words || !path)
		abort();
	for (char *save = NULL, *w = strtok_r(path, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (n < CMD_MAX_WORDS)
			words[n++] = w;
	for (int i = 0; i < argc; i++)
		words[n++] = argv[i];
	in_command = true;
	shell_keys_command(true);
	cmd_dispatch(ctx, n, words);
	shell_keys_command(false);
	in_command = false;
	free(path);
	free(words);
	/* Our own messages were printed; libcli must not add its own. */
	return CLI_OK;
}

/*
 * libcli's own messages for a line it could not take, in the one-shot style: each
 * libcli message this shell can meet is matched by its start (libcli 1.10.7's wording).
 * Returns false for a line that is not one.
 */
static bool translate_libcli(struct cli_def *cli, const char *line, char *msg, size_t len)
{
	struct cli_pipeline *p = cli->pipeline;
	struct cli_pipeline_stage *st = p ? p->current_stage : NULL;
	char names[128];
	const char *q;

	shell_filter_names(names, sizeof(names));
	if (!strncmp(line, "Invalid command \"", 17) && st && st->num_words > 0) {
		if (st->stage_num == 0 && !*st->words[0])
			snprintf(msg, len, "nothing before '|' (COMMAND | FILTER)");
		else if (st->stage_num == 0)
			cmd_unoffered_message(st->words[0], MODE_SHELL, msg, len);
		else
			snprintf(msg, len, "unknown filter '| %s' (%s)", st->words[0], names);
	} else if (!strcmp(line, "Empty command given")) {
		if (p && p->num_stages > 0 && p->stage[0].num_words == 0)
			snprintf(msg, len, "nothing before '|' (COMMAND | FILTER)");
		else
			snprintf(msg, len, "'|' needs a filter after it (%s)", names);
	} else if (!strncmp(line, "Incomplete command, missing required argument '", 47) &&
		   st && st->command && st->stage_num > 0) {	/* a filter's PATTERN */
		q = line + 47;
		snprintf(msg, len, "%s: missing %.*s (usage: COMMAND | %s %.*s)",
			 st->command->command, (int)strcspn(q, "'"), q, st->command->command,
			 (int)strcspn(q, "'"), q);
	} else if (!strncmp(line, "Extra arguments on command line", 31) && st && st->command) {
		snprintf(msg, len, "%s: too many arguments", st->command->command);
	} else if (!strncmp(line, "Ambiguous ", 10) || !strncmp(line, "Incomplete command", 18) ||
		   !strncmp(line, "Optional argument ", 18) || !strncmp(line, "Problem ", 8)) {
		snprintf(msg, len, "%c%s", tolower((unsigned char)line[0]), line + 1);
	} else {
		return false;
	}
	return true;
}

/* libcli's output and ours, written as libcli would (cli_loop sets cli->client). */
static void shell_print(struct cli_def *cli, const char *line)
{
	char msg[512];

	if (!cli->client)
		return;
	history_follow(cli);
	/* libcli's own message about a line (`?`'s lists are not): ours instead.  Not
	 * cli_error(): libcli's print buffer is in use. */
	if (!in_command && translate_libcli(cli, line, msg, sizeof(msg))) {
		struct cmd_ctx *ctx = cli_get_context(cli);
		fprintf(cli->client, "thermpress: %s\r\n", msg);
		ctx->status = EXIT_USAGE;
		return;
	}
	fprintf(cli->client, "%s\r\n", line);
}

/* quit, exit and history, with help written as ours (libcli's is capitalised). */
static int shell_quit(struct cli_def *cli, const char *command, char *argv[], int argc)
{
	(void)command;
	history_follow(cli);
	return asks_help(cli, argv, argc) ? CLI_OK : CLI_QUIT;
}

static int shell_history(struct cli_def *cli, const char *command, char *argv[], int argc)
{
	(void)command;
	history_follow(cli);
	if (asks_help(cli, argv, argc))
		return CLI_OK;
	if (argc) {
		shell_message(cli, "history: unexpected argument '%s' (usage: history)", argv[0]);
		return CLI_OK;
	}
	for (int i = 0, n = 1; i < MAX_HISTORY; i++)
		if (cli->history[i])
			cli_print(cli, "%4d  %s", n++, cli->history[i]);
	return CLI_OK;
}

static void register_builtins(struct cli_def *cli)
{
	static const char *const libcli_own[] = {
		"help", "enable", "disable", "configure", "logout", "quit", "exit", "history",
	};

	/* Ours replaces libcli's help; the privilege and config modes are not used. */
	for (size_t i = 0; i < sizeof(libcli_own) / sizeof(libcli_own[0]); i++)
		cli_unregister_command(cli, libcli_own[i]);
	cli_register_command(cli, NULL, "quit", shell_quit, PRIVILEGE_UNPRIVILEGED, MODE_ANY,
			     "leave the shell");
	cli_register_command(cli, NULL, "exit", shell_quit, PRIVILEGE_UNPRIVILEGED, MODE_ANY,
			     "leave the shell");
	cli_register_command(cli, NULL, "history", shell_history, PRIVILEGE_UNPRIVILEGED,
			     MODE_ANY, "show the commands entered");
	shell_register_filters(cli);
}

/* TAB after a command: no candidates from the synopsis (it is only shown by `?`). */
static int no_completions(struct cli_def *cli, const char *name, const char *word,
			  struct cli_comphelp *comphelp)
{
	(void)cli, (void)name, (void)word, (void)comphelp;
	return CLI_OK;
}

/*
 * `?` after a command shows its synopsis, through one optarg that only lends its name
 * to the help: it records nothing (CLI_CMD_DO_NOT_RECORD), so every word still reaches
 * the callback as an argument, and is never required.  libcli shows an argument as
 * <NAME> and an option as [NAME] (and then <cr>, the command being complete): a
 * synopsis that is all optional, "[A] [B]", is registered as the option "A] [B".
 */
static void add_synopsis(struct cli_command *c, const struct cmd_entry *e)
{
	char args[480], name[512];
	size_t len;
	int flags = CLI_CMD_DO_NOT_RECORD;

	args_synopsis(e, args, sizeof(args));
	len = strlen(args);
	if (!len)
		return;
	if (len > 2 && args[0] == '[' && args[len - 1] == ']') {
		snprintf(name, sizeof(name), "%.*s", (int)(len - 2), args + 1);
		flags |= CLI_CMD_HYPHENATED_OPTION;
	} else {
		snprintf(name, sizeof(name), "%s", args);
		flags |= CLI_CMD_ARGUMENT;
	}
	cli_register_optarg(c, name, flags, PRIVILEGE_UNPRIVILEGED, MODE_EXEC, e->summary,
			    no_completions, NULL, NULL);
}

/* The node for path, registering it (and its parents) on first use. */
struct node {
	char path[128];
	struct cli_command *c;
};

static struct cli_command *node_for(struct cli_def *cli, struct node *nodes, size_t *n,
				    size_t max, const char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(nodes[i].path, path))
			return nodes[i].c;
	if (*n == max)
		return NULL;

	const char *sp = strrchr(path, ' ');
	struct cli_command *parent = NULL;
	char ppath[128];
	if (sp) {
		snprintf(ppath, sizeof(ppath), "%.*s", (int)(sp - path), path);
		parent = node_for(cli, nodes, n, max, ppath);
	}
	const char *word = sp ? sp + 1 : path;
	const struct cmd_entry *e = cmd_find(path);
	const char *help = cmd_summary(path);

	struct cli_command *c = cli_register_command(cli, parent, word, shell_callback,
		PRIVILEGE_UNPRIVILEGED, MODE_EXEC, help);
	if (c && e)
		add_synopsis(c, e);
	snprintf(nodes[*n].path, sizeof(nodes[*n].path), "%s", path);
	nodes[*n].c = c;
	(*n)++;
	return c;
}

static struct cli_def *shell_build(struct cmd_ctx *ctx)
{
	const struct cmd_entry *const *entries = cmd_entries();
	struct cli_def *cli = cli_init();
	struct node nodes[64];
	size_t n = 0;

	if (!cli)
		return NULL;
	cli_set_hostname(cli, SHELL_HOSTNAME);
	cli_set_promptchar(cli, SHELL_PROMPTCHAR);
	cli_set_banner(cli, "thermpress shell: ? lists commands, TAB completes, quit leaves.");
	cli_telnet_protocol(cli, 0);
	register_builtins(cli);
	for (size_t i = 0; entries[i]; i++) {
		const struct cmd_entry *e = entries[i];
		if (e->flags & (CMD_HIDDEN | CMD_NO_SHELL))
			continue;
		node_for(cli, nodes, &n, sizeof(nodes) / sizeof(nodes[0]), e->path);
	}
	cli_set_context(cli, ctx);
	cli_print_callback(cli, shell_print);
	/* Recompute the unique prefixes now that every command is registered. */
	cli_set_privilege(cli, PRIVILEGE_PRIVILEGED);
	cli_set_privilege(cli, PRIVILEGE_UNPRIVILEGED);
	return cli;
}

static void on_interrupt(int sig)
{
	if (!exp_stop)
		exp_stop = sig;
}

int shell_run(struct cmd_ctx *ctx)
{
	struct termios saved, raw;
	int tty;

	if (!isatty(STDIN_FILENO))
		return cmd_error(ctx, EXIT_USAGE, "shell: standard input is not a terminal "
				 "(to run commands from a file: thermpress -f FILE)");
	tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (tty < 0)
		tty = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
	if (tty < 0 || tty >= FD_SETSIZE)
		return cmd_error(ctx, EXIT_RUNTIME, "shell: cannot open the terminal");
	struct cli_def *cli = shell_build(ctx);
	if (!cli) {
		close(tty);
		return cmd_error(ctx, EXIT_RUNTIME, "shell: cannot start libcli");
	}
	history_start(ctx);
	bool have_termios = tcgetattr(tty, &saved) == 0;
	if (have_termios) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(tty, TCSANOW, &raw);
	}
	fflush(stdout);
	ctx->mode = MODE_SHELL;
	ctx->cli = cli;
	/* ^C while a command runs only stops it (exp_stop); commands that change caps
	 * catch it themselves and put them back */
	struct sigaction sa = { .sa_handler = on_interrupt }, old_int;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	int fd = shell_keys_start(tty, ctx);	/* cli_loop closes the fd it is given */
	if (fd < 0)
		fd = fcntl(tty, F_DUPFD_CLOEXEC, 0);
	if (fd >= 0 && fd < FD_SETSIZE)
		cli_loop(cli, fd);
	else if (fd >= 0)
		close(fd);
	shell_keys_stop();
	sigaction(SIGINT, &old_int, NULL);
	ctx->cli = NULL;
	ctx->mode = MODE_ONESHOT;
	if (have_termios)
		tcsetattr(tty, TCSANOW, &saved);
	close(tty);
	cli_done(cli);
	history_end(ctx);
	return 0;
}
