/* SPDX-License-Identifier: MIT */
/* The interactive shell's parts (shell.c, shell_filters.c, shell_keys.c). */
#ifndef THERMPRESS_CMD_SHELL_H
#define THERMPRESS_CMD_SHELL_H

#include <stddef.h>

struct cli_def;

/* A usage error of the shell itself: "thermpress: MESSAGE", unfiltered; status 2. */
void shell_message(struct cli_def *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Replace libcli's filters with include, exclude, begin and count. */
void shell_register_filters(struct cli_def *cli);
/* "include, exclude, begin, count" */
void shell_filter_names(char *buf, size_t len);

#endif
