/* SPDX-License-Identifier: MIT */
/* help, and the hidden __man and __commands: the command table described. */
#include "commands.h"

static int exec_help(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	return print_help(ctx, args->nwords, args->words);
}

static int exec_man(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	(void)args;
	return print_man(ctx);
}

/* "PATH: SYNOPSIS" for every listed command: for the tests, which loop over them. */
static int exec_commands(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	(void)args;
	print_command_list(ctx);
	return 0;
}

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
