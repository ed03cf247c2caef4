/* SPDX-License-Identifier: MIT */
/* shell, and the hidden __complete the bash, zsh and fish completions ask. */
#include "commands.h"

static int exec_shell(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	return shell_run(ctx);
}

static int exec_complete(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	return complete_words(ctx, args->nwords, args->words);
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
