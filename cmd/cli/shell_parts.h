/* SPDX-License-Identifier: MIT */
/* The interactive shell's parts, for shell.c and each other: the prompt, the filters
 * (shell_filters.c), the keys (shell_keys.c), TAB and ? (shell_complete.c). */
#ifndef THERMPRESS_CMD_CLI_SHELL_PARTS_H
#define THERMPRESS_CMD_CLI_SHELL_PARTS_H

#include <stdbool.h>
#include <stddef.h>

struct cli_def;
struct cmd_ctx;
struct cmd_cands;

/* The prompt, "thermpress> ": libcli's hostname and prompt character. */
#define SHELL_HOSTNAME "thermpress"
#define SHELL_PROMPTCHAR "> "

/* Replace libcli's filters with include, exclude, begin and count. */
void shell_register_filters(struct cli_def *cli);
/* "include, exclude, begin, count" */
void shell_filter_names(char *buf, size_t len);

/*
 * shell_keys.c: ^C, ^D, ^L and TAB between the terminal tty (in raw mode) and libcli.
 * Returns the fd to give cli_loop (which closes it), or -1; shell_keys_stop() after
 * cli_loop has returned.  shell_keys_command(true) while a command runs: ^C is SIGINT.
 * ctx: for the completion of arguments (used while libcli waits for a key).
 */
int shell_keys_start(int tty, struct cmd_ctx *ctx);
void shell_keys_stop(void);
void shell_keys_command(bool running);

/*
 * shell_complete.c: TAB at the end of line (the words typed so far).  -1: libcli
 * completes it (command words, filters); else 0, with the text to type in insert, or
 * when there is nothing to insert, the candidates to list in list and the argument that
 * comes next with its examples in hint ("VALUE: 1800MHz, ..."; each may be empty).
 */
int shell_complete(struct cmd_ctx *ctx, const char *line, char *insert, size_t len,
		   struct cmd_cands *list, char *hint, size_t hlen);
/*
 * `?` at the end of line: -1 when libcli answers it (command words, filters, a command
 * without arguments); else 0 with the lines to show, each "\r\n"-ended, in out: after a
 * command's words, the argument that comes next with its examples ("  VALUE: 1800MHz,
 * 2.36GHz, cap=600, 60%"), after the command's synopsis when no argument is typed yet.
 */
int shell_help(struct cmd_ctx *ctx, const char *line, char *out, size_t len);

#endif
