/* SPDX-License-Identifier: MIT */
/* The interactive shell's parts (shell.c, shell_filters.c, shell_keys.c). */
#ifndef THERMPRESS_CMD_SHELL_H
#define THERMPRESS_CMD_SHELL_H

#include <stdbool.h>
#include <stddef.h>

struct cli_def;

/* A usage error of the shell itself: "thermpress: MESSAGE", unfiltered; status 2. */
void shell_message(struct cli_def *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Replace libcli's filters with include, exclude, begin and count. */
void shell_register_filters(struct cli_def *cli);
/* "include, exclude, begin, count" */
void shell_filter_names(char *buf, size_t len);

/*
 * shell_keys.c: ^C, ^D and ^L between the terminal tty (in raw mode) and libcli.
 * Returns the fd to give cli_loop (which closes it), or -1; shell_keys_stop() after
 * cli_loop has returned.  shell_keys_command(true) while a command runs: ^C is SIGINT.
 */
int shell_keys_start(int tty);
void shell_keys_stop(void);
void shell_keys_command(bool running);

#endif
