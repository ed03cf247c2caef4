/* SPDX-License-Identifier: MIT */
/*
 * The command-line machinery of the `thermpress` command, below the commands.
 *
 * A command is one const entry (struct cmd_entry, tmux style); the program hands its
 * table over once (cmd_tree_set), and the machinery runs it for one-shot commands,
 * scripts and the libcli shell, and writes `help`, the completions (`thermpress
 * __complete`) and the man page (`thermpress __man`) from it.  Each entry declares its
 * positional arguments and options as data (struct cmd_arg); one parser (args.c) reads
 * the words with it before exec runs, and the synopsis, help, `?`, completion and the
 * man page are written from the same data.  Nothing here names a command.
 */
#ifndef THERMPRESS_CMD_CLI_H
#define THERMPRESS_CMD_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <thermpress/experiment.h>
#include <thermpress/thermpress.h>

#define EXIT_RUNTIME 1		/* no interface, permission denied, kernel refused */
#define EXIT_USAGE 2		/* unknown command, bad argument */
#define CMD_MAX_WORDS 64	/* words on one command line */

/* Entry flags. */
#define CMD_HIDDEN	(1u << 0)	/* not listed, not completed, matched only in full */
#define CMD_JSON	(1u << 1)	/* accepts --json */
#define CMD_NO_SHELL	(1u << 2)	/* refused inside the shell */
#define CMD_NO_SCRIPT	(1u << 3)	/* refused inside a script */
#define CMD_CHANGES	(1u << 4)	/* changes the source's state for good (cap set): a
					   one-shot --sim says that the change ends with it */

struct cmd_ctx;
struct cli_def;

/* A list of completion candidates, each with a description or NULL (both copied). */
struct cmd_cands {
	char **v;
	char **desc;
	size_t n, alloc;
};
void cands_add(struct cmd_cands *c, const char *word);
void cands_add_desc(struct cmd_cands *c, const char *word, const char *desc);
void cands_free(struct cmd_cands *c);

/* suggest.c: the Damerau-Levenshtein distance of a and b ((size_t)-1: too long), and
 * the candidates nearest word when it reads as a slip ("'show'", "'--interval'"; with
 * prefix, "'cap set'"), else "" (git's "did you mean"). */
size_t cmd_edit_distance(const char *a, const char *b);
void cmd_suggest(const char *word, const struct cmd_cands *cands, const char *prefix, char *out,
		 size_t len);

/*
 * How a value is read, checked and completed (kinds.c): an option's value or a
 * positional argument.  parse fills out from text, or reports the error (the caller
 * has set the usage shape) and returns its exit status; NULL: the text as it is.
 * complete adds the candidates for a value, or a directive (CMD_COMPLETE_FILES, ...).
 */
struct cmd_arg;
union cmd_value {
	int64_t i;		/* integers, tick rates, enum methods and formats, flags (1, 0) */
	uint64_t ns;		/* durations */
	uint32_t ms;		/* decay periods */
	struct tp_cap_value cap;
};
struct cmd_kind {
	const char *name;	/* "duration": for messages and the man page */
	int (*parse)(struct cmd_ctx *ctx, const struct cmd_arg *a, const char *text,
		     union cmd_value *out);
	/* argv: the words already given to a repeatable positional (else none). */
	void (*complete)(struct cmd_ctx *ctx, const struct cmd_arg *a, int argc, char **argv,
			 struct cmd_cands *out);
	/* "1800MHz, 2.36GHz, cap=600, 60%": what `?`, TAB and the completions show for a
	 * value (args_hint()), and offer as words when complete has none; NULL: the
	 * candidates complete gives are the examples. */
	const char *examples;
};
extern const struct cmd_kind kind_text, kind_file, kind_dir, kind_words, kind_duration,
	kind_int, kind_hz, kind_cpulist, kind_cap_value, kind_cap_method, kind_decay,
	kind_backend, kind_backend_list, kind_trace_format, kind_preset, kind_scenario,
	kind_command;

/* Completion directives, printed as candidates: the shell scripts act on them. */
#define CMD_COMPLETE_FILES ":files"
#define CMD_COMPLETE_DIRS ":dirs"
#define CMD_COMPLETE_COMMANDS ":commands"
/* ":hint", its description "VALUE: 1800MHz, 2.36GHz, cap=600, 60%": the argument that
 * comes next and its examples (zsh's _message; the shell's TAB and ?).  ":example", its
 * description a word: one of those examples, for the completions that cannot show a
 * message (bash, fish), given when the argument's kind has no candidates of its own. */
#define CMD_COMPLETE_HINT ":hint"
#define CMD_COMPLETE_EXAMPLE ":example"

/* cmd_arg flags */
#define ARG_OPTIONAL	(1u << 0)	/* positional: may be left out */
#define ARG_REPEAT	(1u << 1)	/* positional: takes every word left; option: may be
					   given again, the last one counts */
#define ARG_REQUIRED	(1u << 2)	/* option: must be given */
#define ARG_AFTER_DASHES (1u << 3)	/* positional: the words after "--" (-- COMMAND ...) */
#define ARG_RAW		(1u << 4)	/* positional: every word left, options included */
#define ARG_VALUE_INLINE (1u << 5)	/* option: a value only as NAME=VALUE (--sim[=PRESET]) */

/*
 * One option or positional argument of a command, as data (tmux's args template):
 * the one parser (args.c) reads the words with it, and the synopsis, help, man page,
 * the shell's `?` and the completions are written from it.
 */
struct cmd_arg {
	const char *name;	/* option: "--interval", or a keyword such as "decay";
				   positional: "CPULIST" */
	const char *short_name;	/* option: "-o", or NULL */
	const char *no_name;	/* flag: the negative form ("--no-reset"): value 0 */
	const struct cmd_kind *kind;	/* option: NULL for a flag (value 1) */
	const char *value_name;	/* option: the value in synopses ("DURATION"); NULL: the
				   values joined by | for an enum, else the kind's name;
				   positional: its synopsis, when not NAME or [NAME...] */
	const char *const *values;	/* enum-like kinds: the words accepted and completed */
	int64_t min, max;	/* kind_int: the range; kind_duration: min ns (0: none) */
	uint64_t unit_ns;	/* kind_duration: the unit of a bare number (0: a bare number
				 * is refused, the rule of every duration but top -d's tenths) */
	unsigned flags;		/* ARG_* */
	const char *help;	/* one line: help COMMAND, the man page */
};

#define CMD_MAX_OPTS 12		/* options of one command, --json included */
#define CMD_MAX_POS 4		/* positional arguments of one command */

/* What the dispatcher parsed (args.c), by the index of the option or positional. */
struct cmd_parsed {
	bool given;
	const char *text;	/* the word given (the value of an option; NULL for a flag) */
	union cmd_value v;
};
struct cmd_args {
	struct cmd_parsed opt[CMD_MAX_OPTS];	/* entry->opts[i]; the last one: --json */
	struct cmd_parsed pos[CMD_MAX_POS];	/* entry->pos[i]; a repeatable one: first word */
	char **words;		/* a repeatable positional's words, NULL-terminated (or NULL) */
	int nwords;
	char *word_store[CMD_MAX_WORDS + 1];
	bool json;		/* --json (CMD_JSON entries) */
};

struct cmd_entry {
	const char *path;	/* words of the command: "cap set" */
	const struct cmd_arg *pos;	/* positional arguments, NULL name ends (or NULL) */
	const struct cmd_arg *opts;	/* options, NULL name ends (or NULL) */
	const char *summary;	/* one line, for lists, `?` and completion */
	const char *help;	/* paragraphs for `help COMMAND` and the man page */
	unsigned flags;		/* CMD_* */
	/* Runs with the words parsed and checked (args.c): reads typed values from args. */
	int (*exec)(struct cmd_ctx *ctx, const struct cmd_args *args);
};

/* --hz, spelled once: a global option and sim serve's. */
/* the rates the simulator takes complete from the library (tp_sim_hz_rates) */
#define CMD_OPT_HZ { .name = "--hz", .kind = &kind_hz, .value_name = "N", .flags = ARG_REPEAT, \
	.help = "the tick rate: " TP_HZ_RATES_TEXT }

/* A word that groups commands ("cap") without being one itself. */
struct cmd_group {
	const char *name;
	const char *summary;
};

/* The global options (options.c): for parsing, --help, completion and the man page. */
enum global_option_index {
	GOPT_ROOT, GOPT_SIM, GOPT_HZ, GOPT_VIRTUAL_CLOCK, GOPT_SCENARIO, GOPT_JSON, GOPT_FILE,
	GOPT_HELP, GOPT_VERSION,
};
extern const struct cmd_arg global_options[];	/* NULL name terminates */

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
	const struct cmd_entry *entry;	/* the command running */
	const struct cmd_entry *usage_of;	/* set: usage errors in its usage shape */
	struct tp_source *src;		/* opened on first use */
	bool warned;			/* plugin warnings printed */
	int status;			/* exit status of the last command run */
};

/*
 * tree.c: the command tree.  The program hands its table over (cmd_tree_set) before
 * any words are resolved; the machinery reads it only through these.
 */
void cmd_tree_set(const struct cmd_entry *const *entries, const struct cmd_group *groups);
/* The entries handed over, NULL-terminated, in help order. */
const struct cmd_entry *const *cmd_entries(void);
struct cmd_match {
	const struct cmd_entry *entry;	/* NULL when the words name a group or nothing */
	int consumed;			/* words that named the command */
	char path[128];			/* the full words matched so far */
};
/*
 * Resolve words to a command.  Returns 0, or EXIT_USAGE with msg filled when a word
 * is ambiguous or unknown, or the words stop at a group.  A prefix only matches, and a
 * group only lists, commands offered in mode (a command named in full always matches:
 * running it then says why mode refuses it).
 */
int cmd_resolve(enum cmd_mode mode, int argc, char **argv, struct cmd_match *m, char *msg,
		size_t msglen);
/* Why e cannot run in mode ("'shell' cannot be run inside the shell"), into msg; false
 * if it can. */
bool cmd_mode_refuses(const struct cmd_entry *e, enum cmd_mode mode, char *msg, size_t msglen);
/* Whether e is listed and may run in mode (not hidden, not refused there). */
bool cmd_offered(const struct cmd_entry *e, enum cmd_mode mode);
/* The entry whose path is exactly path (hidden ones included), or NULL. */
const struct cmd_entry *cmd_find(const char *path);
/*
 * The message (no "thermpress: ") for a first word the caller does not offer in mode
 * (the shell registers no hidden or CMD_NO_SHELL commands): the resolver's message for
 * an unknown or ambiguous word, the mode's refusal, or "unknown command".
 */
void cmd_unoffered_message(const char *word, enum cmd_mode mode, char *msg, size_t msglen);
/* "unknown command 'PATH WORD' (see 'thermpress help PATH')", in the shell
 * "(PATH ? lists the commands)"; path may be "". */
void cmd_unknown_message(char *msg, size_t msglen, enum cmd_mode mode, const char *path,
			 const char *word);
/* Whether commands sit below path ("show" has "show cpu"). */
bool cmd_has_children(const char *path);
/* The summary of the command or group path ("cap"), or NULL. */
const char *cmd_summary(const char *path);
/* The child words of the node named by the first depth words of prefix (with their
 * summaries as descriptions). */
void cmd_children(const char *prefix, bool hidden, struct cmd_cands *out);
/* dispatch.c: running what the words name. */
/* Run one command line given as words; records and returns its exit status. */
int cmd_dispatch(struct cmd_ctx *ctx, int argc, char **argv);
/* Run a resolved entry with its arguments (parsed by args_parse(), the mode checked). */
int cmd_run_entry(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv);

/* words.c: Split a line into words (quotes '' and "" and backslash escapes; # starts a comment). */
int cmd_split(const char *line, char ***argv, int *argc, char *msg, size_t msglen);
void cmd_free_words(char **argv, int argc);

/* synopsis.c: what an entry's argument data says, written out. */
/* The synopsis of e's arguments: "CPULIST VALUE [--via scaling_max_freq|cooling]". */
void args_synopsis(const struct cmd_entry *e, char *buf, size_t len);
/* One option as help lists it: "-o, --output FILE", "--reset, --no-reset". */
void args_option_label(const struct cmd_arg *a, char *buf, size_t len);
/* One option as the synopsis shows it: "[--via scaling_max_freq|cooling]", "-o FILE". */
void args_synopsis_option(const struct cmd_arg *a, char *buf, size_t len);
/* Option i of e, --json last for CMD_JSON entries; NULL past the end. */
const struct cmd_arg *args_option(const struct cmd_entry *e, size_t i);
/* --json, as CMD_JSON entries take it: one spelling for all. */
extern const struct cmd_arg args_opt_json;
/* The arguments of a list that a NULL name ends (NULL: none). */
size_t args_count(const struct cmd_arg *a);
/* The positional taking the words after "--" (*index: its index), or NULL. */
const struct cmd_arg *args_after_dashes(const struct cmd_entry *e, size_t *index);
/* snprintf at the end of the text in buf (nothing when buf is full). */
void args_append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* args.c: the one parser of a command's words, and their completion from the same data. */
/* Parse argv (the words after the command's path); 0 or EXIT_USAGE (reported). */
int args_parse(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv,
	       struct cmd_args *out);
/* Whether word is option a: 1 its name (or short name), 0 its negative form, -1 not;
 * *value gets the text after '=' (else NULL). */
int args_match(const struct cmd_arg *a, const char *word, const char **value);
/* The argument the complete words argv of e leave next: the value of the option they end
 * with (*option set), or a positional taking a value; NULL: none (all given, or the words
 * of a command). */
const struct cmd_arg *args_next(const struct cmd_entry *e, int argc, char **argv, bool *option);
/* "VALUE: 1800MHz, 2.36GHz, cap=600, 60%", "--via METHOD: scaling_max_freq, cooling": a's
 * name and its kind's examples (else its candidates, else its help). */
void args_hint(struct cmd_ctx *ctx, const struct cmd_arg *a, bool option, char *buf, size_t len);
/* Completion candidates for the word partial after the complete words argv of e. */
void args_complete(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv,
		   const char *partial, struct cmd_cands *out);
/* A usage error of the running command: "COMMAND: MESSAGE (usage: COMMAND SYNOPSIS)". */
int cmd_usage_error(struct cmd_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* cmd_tp_error() for a word of the running command: a usage error gets the shape. */
int cmd_usage_tp_error(struct cmd_ctx *ctx, int rc, const struct tp_error *err);

/* output.c */
void out_printf(struct cmd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report an error (one line, "thermpress: ...") and return status. */
int cmd_error(struct cmd_ctx *ctx, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cmd_warning(struct cmd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "thermpress: note: ...": information on stderr, not a problem. */
void cmd_note(struct cmd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report a library error: parse failures (-EINVAL, -ERANGE) are usage errors. */
int cmd_tp_error(struct cmd_ctx *ctx, int rc, const struct tp_error *err);
/* Check stdout after writing; returns 0 or EXIT_RUNTIME (message printed). */
int out_check_stdout(bool closing);
/* A usage error of the shell itself (history, | include): "thermpress: MESSAGE",
 * unfiltered, on its terminal; status 2. */
void shell_message(struct cli_def *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* context.c */
/* The source, opened on first use; NULL after reporting the error (status in ctx). */
struct tp_source *ctx_source(struct cmd_ctx *ctx);
int ctx_snapshot(struct cmd_ctx *ctx, struct tp_snapshot *snap);
/* Parse a CPU list against the current topology; 0 or an exit status (reported). */
int ctx_parse_cpus(struct cmd_ctx *ctx, const char *text, struct tp_cpuset *set);
/* The same against a snapshot the command took (one read of the source per command). */
int ctx_parse_cpus_in(struct cmd_ctx *ctx, const struct tp_snapshot *snap, const char *text,
		      struct tp_cpuset *set);
void ctx_close(struct cmd_ctx *ctx);

/* shell.c, script.c */
int shell_run(struct cmd_ctx *ctx);
int script_run_file(struct cmd_ctx *ctx, const char *path);
int script_run_stream(struct cmd_ctx *ctx, void *fp, const char *name);

/* help.c: help written from the command tree. */
void print_usage(struct cmd_ctx *ctx, bool brief);
/* help COMMAND: the usage line, the help, the arguments and options. */
void print_command_help(struct cmd_ctx *ctx, const struct cmd_entry *e);
/* help WORDS: the usage (no words), a group's commands or a command's help; 0 or
 * EXIT_USAGE (reported). */
int print_help(struct cmd_ctx *ctx, int nwords, char **words);
/* "PATH: SYNOPSIS" for every listed command. */
void print_command_list(struct cmd_ctx *ctx);

/* complete.c: completion of whole command lines. */
/* __complete WORDS: the candidates for the last word, one a line. */
int complete_words(struct cmd_ctx *ctx, int argc, char **argv);
/* The same candidates (the shell's TAB): those the partial last word starts, and the
 * directives (CMD_COMPLETE_FILES, ...). */
void complete_candidates(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out);
/* The command words that may follow the words argv (help's argument), those mode
 * offers. */
void complete_command_words(enum cmd_mode mode, int argc, char **argv, struct cmd_cands *out);
/* man.c */
int print_man(struct cmd_ctx *ctx);

/* kinds.c: --hz N (TP_HZ_RATES); 0 or EXIT_USAGE (reported). */
int parse_sim_hz(struct cmd_ctx *ctx, const char *text, int *hz);
/* --scenario NAME: one of tp_sim_scenarios(); 0 or EXIT_USAGE (reported). */
int parse_sim_scenario(struct cmd_ctx *ctx, const char *name);

#endif
