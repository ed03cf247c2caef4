/* SPDX-License-Identifier: MIT */
/*
 * The interactive shell: libcli over the command table.
 *
 * libcli traps handled here (GUIDE section 4): cli_loop needs one read-write fd and
 * closes it (it gets a dup of the terminal), only '\r' ends a line (the terminal is
 * put in raw mode and telnet negotiation is off), and prefixes are only checked for
 * ambiguity after the privilege has been toggled once.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/select.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <libcli.h>

#include "commands.h"

static int shell_callback(struct cli_def *cli, const char *command, char *argv[], int argc)
{
	struct cmd_ctx *ctx = cli_get_context(cli);
	const struct cmd_entry *e = cmd_find(command);

	if (!e) {
		cli_error(cli, "thermpress: unknown command '%s'", command);
		return CLI_OK;
	}
	cmd_run_entry(ctx, e, argc, argv);
	/* Our own messages were printed; libcli must not add its own. */
	return CLI_OK;
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
	const char *help = e ? e->summary : NULL;
	for (size_t g = 0; !e && cmd_groups[g].name; g++)
		if (!strcmp(cmd_groups[g].name, path))
			help = cmd_groups[g].summary;

	struct cli_command *c = cli_register_command(cli, parent, word,
		e ? shell_callback : NULL, PRIVILEGE_UNPRIVILEGED, MODE_EXEC, help);
	snprintf(nodes[*n].path, sizeof(nodes[*n].path), "%s", path);
	nodes[*n].c = c;
	(*n)++;
	return c;
}

static struct cli_def *shell_build(struct cmd_ctx *ctx)
{
	struct cli_def *cli = cli_init();
	struct node nodes[64];
	size_t n = 0;

	if (!cli)
		return NULL;
	cli_set_hostname(cli, "thermpress");
	cli_set_promptchar(cli, "> ");
	cli_set_banner(cli, "thermpress shell: ? lists commands, TAB completes, quit leaves.");
	cli_telnet_protocol(cli, 0);
	/* Ours replaces libcli's help; the privilege and config modes are not used. */
	cli_unregister_command(cli, "help");
	cli_unregister_command(cli, "enable");
	cli_unregister_command(cli, "disable");
	cli_unregister_command(cli, "configure");
	cli_unregister_command(cli, "logout");
	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];
		if (e->flags & (CMD_HIDDEN | CMD_NO_SHELL))
			continue;
		node_for(cli, nodes, &n, sizeof(nodes) / sizeof(nodes[0]), e->path);
	}
	cli_set_context(cli, ctx);
	/* Recompute the unique prefixes now that every command is registered. */
	cli_set_privilege(cli, PRIVILEGE_PRIVILEGED);
	cli_set_privilege(cli, PRIVILEGE_UNPRIVILEGED);
	return cli;
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
	bool have_termios = tcgetattr(tty, &saved) == 0;
	if (have_termios) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(tty, TCSANOW, &raw);
	}
	fflush(stdout);
	ctx->mode = MODE_SHELL;
	ctx->cli = cli;
	int fd = fcntl(tty, F_DUPFD_CLOEXEC, 0);	/* cli_loop closes the fd it is given */
	if (fd >= 0 && fd < FD_SETSIZE)
		cli_loop(cli, fd);
	else if (fd >= 0)
		close(fd);
	ctx->cli = NULL;
	ctx->mode = MODE_ONESHOT;
	if (have_termios)
		tcsetattr(tty, TCSANOW, &saved);
	close(tty);
	cli_done(cli);
	return 0;
}
