/* SPDX-License-Identifier: MIT */
/*
 * The command table of the `thermpress` command.
 *
 * Every command is one const entry (tmux style), exported by the file of its group
 * (cmd_show.c, cmd_cap.c, ...) and listed once in table.c.  That one table drives
 * one-shot commands, scripts, the libcli shell, `help`, the completions
 * (`thermpress __complete`) and the man page (`thermpress __man`).
 */
#ifndef THERMPRESS_CMD_COMMANDS_H
#define THERMPRESS_CMD_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include <thermpress/thermpress.h>

#define EXIT_RUNTIME 1		/* no interface, permission denied, kernel refused */
#define EXIT_USAGE 2		/* unknown command, bad argument */
#define CMD_MAX_WORDS 64	/* words on one command line */

/* Entry flags. */
#define CMD_HIDDEN	(1u << 0)	/* not listed, not completed, matched only in full */
#define CMD_JSON	(1u << 1)	/* accepts --json */
#define CMD_NO_SHELL	(1u << 2)	/* refused inside the shell */
#define CMD_NO_SCRIPT	(1u << 3)	/* refused inside a script */

struct cmd_ctx;
struct cli_def;

/* A list of completion candidates. */
struct cmd_cands {
	char **v;
	size_t n, alloc;
};
void cands_add(struct cmd_cands *c, const char *word);
void cands_free(struct cmd_cands *c);

struct cmd_entry {
	const char *path;	/* words of the command: "cap set" */
	const char *args;	/* synopsis of the arguments: "CPULIST VALUE", or NULL */
	const char *summary;	/* one line, for lists, `?` and completion */
	const char *help;	/* paragraphs for `help COMMAND` and the man page */
	int min_args, max_args;	/* positional words after the path (max -1: any) */
	unsigned flags;		/* CMD_* */
	int (*exec)(struct cmd_ctx *ctx, int argc, char **argv);
	/* Candidates for the next argument, after the argc arguments already given. */
	void (*complete)(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out);
};

/* A word that groups commands ("cap") without being one itself. */
struct cmd_group {
	const char *name;
	const char *summary;
};

/* table.c */
extern const struct cmd_entry *const cmd_table[];	/* NULL-terminated, in help order */
extern const struct cmd_group cmd_groups[];		/* NULL name terminates */

/* The global options (options.c): for parsing, --help, completion and the man page. */
struct global_option {
	const char *name;	/* "--root" */
	const char *arg;	/* "DIR", or NULL */
	bool arg_optional;	/* --sim[=PRESET] */
	const char *help;
};
extern const struct global_option global_options[];	/* NULL name terminates */

/* Where the command being run comes from. */
enum cmd_mode {
	MODE_ONESHOT,
	MODE_SCRIPT,
	MODE_SHELL,
};

struct cmd_ctx {
	struct tp_open_options opts;
	const char *root;
	char *sim_preset;
	bool json;			/* --json given globally */
	bool cmd_json;			/* json output for the command being run */
	enum cmd_mode mode;
	struct cli_def *cli;		/* in the shell */
	const char *script_name;	/* in a script: "FILE" or "<stdin>" */
	unsigned script_line;
	struct tp_source *src;		/* opened on first use */
	bool warned;			/* plugin warnings printed */
	int status;			/* exit status of the last command run */
};

/* dispatch.c: resolving words against the table. */
struct cmd_match {
	const struct cmd_entry *entry;	/* NULL when the words name a group or nothing */
	int consumed;			/* words that named the command */
	char path[128];			/* the full words matched so far */
};
/*
 * Resolve words to a command.  Returns 0, or EXIT_USAGE with msg filled when a word
 * is ambiguous or unknown, or the words stop at a group.
 */
int cmd_resolve(int argc, char **argv, struct cmd_match *m, char *msg, size_t msglen);
/* The entry whose path is exactly path (hidden ones included), or NULL. */
const struct cmd_entry *cmd_find(const char *path);
/* Run one command line given as words; records and returns its exit status. */
int cmd_dispatch(struct cmd_ctx *ctx, int argc, char **argv);
/* argv[*i] is NAME or NAME=VALUE. */
bool cmd_is_option(const char *arg, const char *name);
/* The value of option NAME at argv[*i] (NAME=V or NAME V); NULL after reporting. */
const char *cmd_option_value(struct cmd_ctx *ctx, const char *cmd, int argc, char **argv,
			     int *i, const char *name, int *status);
/*
 * The message (no "thermpress: ") for a first word the caller does not offer in mode
 * (the shell registers no hidden or CMD_NO_SHELL commands): the resolver's message for
 * an unknown or ambiguous word, the mode's refusal, or "unknown command".
 */
void cmd_unoffered_message(const char *word, enum cmd_mode mode, char *msg, size_t msglen);
/* Run a resolved entry with its arguments (checks counts, --json, the mode). */
int cmd_run_entry(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv);
/* The child words of the node named by the first depth words of prefix. */
void cmd_children(const char *prefix, bool hidden, struct cmd_cands *out);
/* Split a line into words (quotes '' and "" and backslash escapes; # starts a comment). */
int cmd_split(const char *line, char ***argv, int *argc, char *msg, size_t msglen);
void cmd_free_words(char **argv, int argc);

/* output.c */
void out_printf(struct cmd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report an error (one line, "thermpress: ...") and return status. */
int cmd_error(struct cmd_ctx *ctx, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cmd_warning(struct cmd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report a library error: parse failures (-EINVAL, -ERANGE) are usage errors. */
int cmd_tp_error(struct cmd_ctx *ctx, int rc, const struct tp_error *err);
/* Check stdout after writing; returns 0 or EXIT_RUNTIME (message printed). */
int out_check_stdout(bool closing);

/* json_out.c */
struct json_object;
struct json_object *json_snapshot(const struct tp_source *src, const struct tp_snapshot *snap,
				  const struct tp_cpuset *only);
struct json_object *json_backends(const struct tp_backend_info *b, size_t n);
struct json_object *json_status(const struct tp_source *src, const struct tp_snapshot *snap);
void out_json(struct cmd_ctx *ctx, struct json_object *obj);
/* out_json() after adding "stock" (docs/json.md) on a stock source; 0 or an exit status. */
int out_json_stock(struct cmd_ctx *ctx, struct json_object *obj);
#define JSON_SCHEMA_VERSION 1

/* context.c */
/* The source, opened on first use; NULL after reporting the error (status in ctx). */
struct tp_source *ctx_source(struct cmd_ctx *ctx);
int ctx_snapshot(struct cmd_ctx *ctx, struct tp_snapshot *snap);
/* Parse a CPU list against the current topology; 0 or an exit status (reported). */
int ctx_parse_cpus(struct cmd_ctx *ctx, const char *text, struct tp_cpuset *set);
void ctx_close(struct cmd_ctx *ctx);

/* shell.c, script.c */
int shell_run(struct cmd_ctx *ctx);
int script_run_file(struct cmd_ctx *ctx, const char *path);
int script_run_stream(struct cmd_ctx *ctx, void *fp, const char *name);

/* cmd_misc.c */
void print_usage(struct cmd_ctx *ctx, bool brief);
int print_man(struct cmd_ctx *ctx);
int complete_words(struct cmd_ctx *ctx, int argc, char **argv);

/* cmd_sim.c: --hz N (100, 250, 1000); 0 or EXIT_USAGE (reported). */
int parse_sim_hz(struct cmd_ctx *ctx, const char *text, int *hz);

/* The entries, one per command. */
extern const struct cmd_entry cmd_show_entry, cmd_show_cpu_entry, cmd_show_backends_entry,
	cmd_show_status_entry;
extern const struct cmd_entry cmd_cap_set_entry, cmd_cap_clear_entry;
extern const struct cmd_entry cmd_backend_set_entry, cmd_decay_set_entry;
extern const struct cmd_entry cmd_sim_advance_entry, cmd_sim_serve_entry;
extern const struct cmd_entry cmd_shell_entry, cmd_version_entry, cmd_help_entry,
	cmd_complete_entry, cmd_man_entry;

#endif
