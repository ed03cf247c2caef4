/* SPDX-License-Identifier: MIT */
/*
 * The one parser of a command's words (tmux's args template): every entry declares
 * its positional arguments and options as data (cli.h, struct cmd_arg); this
 * file reads the words with that data, and writes the completion candidates from it
 * (the synopsis: synopsis.c), so that they cannot disagree.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static bool is_keyword(const struct cmd_arg *a)
{
	return a->name[0] != '-';
}

int args_match(const struct cmd_arg *a, const char *word, const char **value)
{
	const char *names[] = { a->name, a->short_name, a->no_name };

	*value = NULL;
	for (int k = 0; k < 3; k++) {
		size_t nl = names[k] ? strlen(names[k]) : 0;

		if (!nl || strncmp(word, names[k], nl))
			continue;
		/* "=VALUE" only after a long name: "-ofile" is not "-o file" */
		if (word[nl] == '=' && names[k][1] == '-' && k < 2)
			*value = word + nl + 1;
		else if (word[nl])
			continue;
		return k == 2 ? 0 : 1;
	}
	return -1;
}

/* A word that can only be an option: "--x", "-x" (not "-", "--", "-1"). */
static bool looks_like_option(const char *w)
{
	return w[0] == '-' && ((w[1] == '-' && w[2]) || isalpha((unsigned char)w[1]));
}

/* The option word w names (keywords only once the required positionals are given). */
static const struct cmd_arg *find_option(const struct cmd_entry *e, const char *w,
					 bool keywords, size_t *index, int *match,
					 const char **value)
{
	const struct cmd_arg *a;

	for (size_t i = 0; (a = args_option(e, i)); i++) {
		if (is_keyword(a) && !keywords)
			continue;
		*match = args_match(a, w, value);
		if (*match >= 0) {
			*index = i;
			return a;
		}
	}
	return NULL;
}

/* "unknown option '--interva': did you mean '--interval'?" (the options e takes). */
static int unknown_option(const struct cmd_entry *e, struct cmd_ctx *ctx, const char *w)
{
	struct cmd_cands names = { 0 };
	const struct cmd_arg *a;
	char near[160] = "", word[64];

	/* "--interva=1s": the name before '=' */
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(w, "="), w);
	for (size_t i = 0; (a = args_option(e, i)); i++) {
		if (a->name[0] == '-')
			cands_add(&names, a->name);
		if (a->short_name)
			cands_add(&names, a->short_name);
	}
	cmd_suggest(word, &names, "", near, sizeof(near));
	cands_free(&names);
	if (near[0])
		return cmd_usage_error(ctx, "unknown option '%s': did you mean %s?", w, near);
	return cmd_usage_error(ctx, "unknown option '%s'", w);
}

static size_t required_positionals(const struct cmd_entry *e)
{
	size_t n = 0;

	for (const struct cmd_arg *p = e->pos; p && p->name; p++)
		if (!(p->flags & (ARG_OPTIONAL | ARG_AFTER_DASHES)))
			n++;
	return n;
}

/* The positional taking words before "--" at position i (a repeatable one stays). */
static const struct cmd_arg *positional_at(const struct cmd_entry *e, size_t i, size_t *index)
{
	size_t k = 0;

	for (const struct cmd_arg *p = e->pos; p && p->name; p++, k++) {
		if (p->flags & ARG_AFTER_DASHES)
			break;
		if (k == i || (p->flags & (ARG_REPEAT | ARG_RAW))) {
			*index = k;
			return p;
		}
	}
	return NULL;
}

/* ---- parsing ------------------------------------------------------------------------ */

struct parse_state {
	struct cmd_ctx *ctx;
	const struct cmd_entry *e;
	struct cmd_args *out;
	size_t filled;		/* positionals given so far (before "--") */
	int argc;		/* the words, for messages that suggest a reordering */
	char **argv;
	int at;			/* the word being read */
};

/* The words of a command line as thermpress would take them: "cpu 0 --json". */
static void join_words(char *buf, size_t len, int argc, char **argv)
{
	buf[0] = '\0';
	for (int k = 0; k < argc; k++)
		args_append(buf, len, "%s%s", *buf ? " " : "", argv[k]);
}

/*
 * "show --json cpu 0": a subcommand's word after an option of its parent.  The words
 * name a command once the options move after them: say so, with the reordered line.
 */
static int misplaced_subcommand(struct parse_state *st, const char *w)
{
	char path[160], words[512], opts[512];

	snprintf(path, sizeof(path), "%s %s", st->e->path, w);
	if (!cmd_find(path))
		return 0;
	join_words(words, sizeof(words), st->argc - st->at, st->argv + st->at);
	join_words(opts, sizeof(opts), st->at, st->argv);
	return cmd_error(st->ctx, EXIT_USAGE, "'%s' after an option: the command's words come "
			 "first, then its options (%s %s %s)", w, st->e->path, words, opts);
}

/* "show --sim": an option of thermpress itself, given after the command. */
static int misplaced_global(struct parse_state *st, const char *w)
{
	const char *value;

	for (const struct cmd_arg *g = global_options; g->name; g++) {
		if (args_match(g, w, &value) < 0)
			continue;
		if (st->ctx->mode != MODE_ONESHOT)
			return cmd_usage_error(st->ctx, "'%s' is an option of thermpress itself, "
					       "given when starting it", w);
		bool needs = g->kind && !value && !(g->flags & ARG_VALUE_INLINE);
		return cmd_usage_error(st->ctx, "'%s' is a global option: it goes before the "
				       "command (thermpress %s%s%s %s ...)", w, w, needs ? " " : "",
				       needs ? g->value_name : "", st->e->path);
	}
	return 0;
}

static int parse_value(struct parse_state *st, const struct cmd_arg *a, const char *text,
		       struct cmd_parsed *p)
{
	p->given = true;
	p->text = text;
	if (!a->kind || !a->kind->parse)
		return 0;
	return a->kind->parse(st->ctx, a, text, &p->v);
}

static void add_word(struct cmd_args *out, char *w)
{
	if (out->nwords < CMD_MAX_WORDS) {
		out->word_store[out->nwords++] = w;
		out->word_store[out->nwords] = NULL;
		out->words = out->word_store;
	}
}

/* The option at argv[*i]; 0 or EXIT_USAGE (reported). */
static int parse_option(struct parse_state *st, const struct cmd_arg *a, size_t index, int match,
			const char *value, int argc, char **argv, int *i)
{
	struct cmd_parsed *p = &st->out->opt[index];
	const char *shown = a->name;

	if (p->given && !(a->flags & ARG_REPEAT))
		return cmd_usage_error(st->ctx, "%s given twice", shown);
	if (!a->kind) {
		if (value)
			return cmd_usage_error(st->ctx, "option %s takes no value", shown);
		p->given = true;
		p->v.i = match;
		return 0;
	}
	if (!value && !(a->flags & ARG_VALUE_INLINE)) {
		if (*i + 1 >= argc)
			return is_keyword(a) ? cmd_usage_error(st->ctx, "'%s' needs a value", shown)
					     : cmd_usage_error(st->ctx, "option %s needs a value",
							       argv[*i]);
		value = argv[++*i];
	}
	if (!value) {	/* --sim alone: given, no value */
		p->given = true;
		return 0;
	}
	return parse_value(st, a, value, p);
}

/* A word that is not an option: the next positional's; 0 or EXIT_USAGE (reported). */
static int parse_positional(struct parse_state *st, char *w)
{
	size_t index;
	const struct cmd_arg *p = positional_at(st->e, st->filled, &index);
	char msg[512];

	if (!p) {
		/* "show foo": a word under a command that has subcommands */
		if (!st->e->pos && cmd_has_children(st->e->path) && w[0] != '-') {
			const struct cmd_entry *saved = st->ctx->usage_of;
			int status;

			st->ctx->usage_of = NULL;
			status = st->at ? misplaced_subcommand(st, w) : 0;
			st->ctx->usage_of = saved;
			if (status)
				return status;

			cmd_unknown_message(msg, sizeof(msg), st->ctx->mode, st->e->path, w);
			st->ctx->usage_of = NULL;	/* the resolver's message, as for "cap frob" */
			status = cmd_error(st->ctx, EXIT_USAGE, "%s", msg);
			st->ctx->usage_of = saved;
			return status;
		}
		return cmd_usage_error(st->ctx, "unexpected argument '%s'", w);
	}
	st->filled++;
	if (p->flags & (ARG_REPEAT | ARG_RAW)) {
		add_word(st->out, w);
		if (st->out->nwords > 1)
			return 0;
	}
	return parse_value(st, p, w, &st->out->pos[index]);
}

/* "--": the words after it go to the -- COMMAND positional (or are positionals). */
static int parse_dashes(struct parse_state *st, int argc, char **argv, int i, bool *plain)
{
	size_t index;
	const struct cmd_arg *p = args_after_dashes(st->e, &index);

	if (!p) {
		*plain = true;
		return 0;
	}
	if (i + 1 >= argc)
		return cmd_usage_error(st->ctx, "missing %s after --", p->name);
	for (int k = i + 1; k < argc; k++)
		add_word(st->out, argv[k]);
	st->out->pos[index].given = true;
	st->out->pos[index].text = argv[i + 1];
	return 0;
}

/* Everything required was given; 0 or EXIT_USAGE (reported). */
static int check_required(struct parse_state *st)
{
	const struct cmd_arg *a;
	char label[160];
	size_t k = 0;

	for (a = st->e->pos; a && a->name; a++, k++)
		if (!(a->flags & ARG_OPTIONAL) && !st->out->pos[k].given)
			return (a->flags & ARG_AFTER_DASHES) ?
				cmd_usage_error(st->ctx, "missing -- %s ...", a->name) :
				cmd_usage_error(st->ctx, "missing %s", a->name);
	for (size_t i = 0; (a = args_option(st->e, i)); i++)
		if ((a->flags & ARG_REQUIRED) && !st->out->opt[i].given) {
			args_synopsis_option(a, label, sizeof(label));
			return cmd_usage_error(st->ctx, "missing %s", label);
		}
	return 0;
}

static int parse_words(struct parse_state *st, int argc, char **argv)
{
	bool plain = false;	/* after a "--" of a command without -- COMMAND */
	int status = 0;

	for (int i = 0; i < argc && !status; i++) {
		const struct cmd_arg *p, *a;
		const char *value;
		size_t index;
		int match;
		char *w = argv[i];

		st->at = i;
		p = positional_at(st->e, st->filled, &index);
		if (!plain && p && (p->flags & ARG_RAW)) {
			status = parse_positional(st, w);
			continue;
		}
		if (!plain && !strcmp(w, "--")) {
			status = parse_dashes(st, argc, argv, i, &plain);
			if (!plain)
				break;
			continue;
		}
		a = plain ? NULL : find_option(st->e, w, st->filled >= required_positionals(st->e),
					       &index, &match, &value);
		if (a)
			status = parse_option(st, a, index, match, value, argc, argv, &i);
		else if (!plain && looks_like_option(w))
			status = misplaced_global(st, w) ?: unknown_option(st->e, st->ctx, w);
		else
			status = parse_positional(st, w);
	}
	return status ? status : check_required(st);
}

int args_parse(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv,
	       struct cmd_args *out)
{
	struct parse_state st = { ctx, e, out, 0, argc, argv, 0 };
	const struct cmd_entry *saved = ctx->usage_of;
	size_t json = args_count(e->opts);
	int status;

	memset(out, 0, sizeof(*out));
	ctx->usage_of = e;
	status = parse_words(&st, argc, argv);
	ctx->usage_of = saved;
	out->json = (e->flags & CMD_JSON) && out->opt[json].given;
	return status;
}

/* ---- completion --------------------------------------------------------------------- */

/* Where the complete words leave the command line (as the parser would read it). */
struct scan {
	const struct cmd_arg *pending;	/* an option waiting for its value */
	bool given[CMD_MAX_OPTS];
	size_t filled;
	int dashes;			/* -1: no "--" yet; else words after it */
	int first_word;			/* of the repeatable positional */
};

static void scan_words(const struct cmd_entry *e, int argc, char **argv, struct scan *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->dashes = -1;
	sc->first_word = -1;
	for (int i = 0; i < argc; i++) {
		const struct cmd_arg *a, *p;
		const char *value;
		size_t index;
		int match;

		if (sc->dashes >= 0) {
			sc->dashes++;
			continue;
		}
		sc->pending = NULL;
		if (!strcmp(argv[i], "--") && args_after_dashes(e, &index)) {
			sc->dashes = 0;
			continue;
		}
		a = find_option(e, argv[i], sc->filled >= required_positionals(e), &index, &match,
				&value);
		if (a) {
			sc->given[index] = true;
			if (a->kind && !value && !(a->flags & ARG_VALUE_INLINE)) {
				sc->pending = a;
				if (i + 1 < argc)
					i++, sc->pending = NULL;
			}
			continue;
		}
		p = positional_at(e, sc->filled, &index);
		if (p && (p->flags & ARG_REPEAT) && sc->first_word < 0)
			sc->first_word = i;
		sc->filled++;
	}
}

/* A value's argument (a positional or an option's) takes words of its kind only. */
static bool takes_value(const struct cmd_arg *a)
{
	return a && a->kind && a->kind != &kind_words && !(a->flags & (ARG_RAW | ARG_AFTER_DASHES));
}

const struct cmd_arg *args_next(const struct cmd_entry *e, int argc, char **argv, bool *option)
{
	struct scan sc;
	size_t index;
	const struct cmd_arg *p;

	scan_words(e, argc, argv, &sc);
	*option = sc.pending != NULL;
	if (sc.pending)
		return sc.pending;
	if (sc.dashes >= 0)
		return NULL;
	p = positional_at(e, sc.filled, &index);
	return takes_value(p) ? p : NULL;
}

void args_hint(struct cmd_ctx *ctx, const struct cmd_arg *a, bool option, char *buf, size_t len)
{
	struct cmd_cands c = { 0 };
	size_t shown = 0;

	/* "--interval DURATION", "--via" (its values follow), "VALUE" */
	snprintf(buf, len, "%s%s%s:", a->name, option && a->value_name ? " " : "",
		 option && a->value_name ? a->value_name : "");
	if (a->kind->examples) {
		args_append(buf, len, " %s", a->kind->examples);
		return;
	}
	if (a->kind->complete)
		a->kind->complete(ctx, a, 0, NULL, &c);
	for (size_t k = 0; k < c.n && shown < 8; k++)
		if (c.v[k][0] != ':')
			args_append(buf, len, "%s %s", shown++ ? "," : "", c.v[k]);
	if (shown == 8 && c.n > 8)
		args_append(buf, len, ", ...");
	if (!shown)
		args_append(buf, len, " %s", a->help ? a->help : a->kind->name);
	cands_free(&c);
}

/*
 * The candidates for a's value: its kind's, the hint (CMD_COMPLETE_HINT), and when the
 * kind has none, its examples as words (CMD_COMPLETE_EXAMPLE) for bash and fish.
 */
static void value_candidates(struct cmd_ctx *ctx, const struct cmd_arg *a, bool option,
			     int argc, char **argv, struct cmd_cands *out)
{
	char hint[512], word[128];
	size_t before;

	/* first: fish describes the words after it with its name */
	args_hint(ctx, a, option, hint, sizeof(hint));
	cands_add_desc(out, CMD_COMPLETE_HINT, hint);
	before = out->n;
	if (a->kind->complete)
		a->kind->complete(ctx, a, argc, argv, out);
	bool own = out->n > before;
	for (const char *x = a->kind->examples; !own && x && *x; x += strspn(x, ", ")) {
		size_t n = strcspn(x, " ");
		snprintf(word, sizeof(word), "%.*s", (int)(n && x[n - 1] == ',' ? n - 1 : n), x);
		cands_add_desc(out, CMD_COMPLETE_EXAMPLE, word);
		x += n;
	}
}

void args_complete(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv,
		   const char *partial, struct cmd_cands *out)
{
	const struct cmd_arg *a, *p;
	struct scan sc;
	size_t index, before;

	scan_words(e, argc, argv, &sc);
	if (sc.pending) {
		value_candidates(ctx, sc.pending, true, 0, NULL, out);
		return;
	}
	if (sc.dashes >= 0) {
		cands_add(out, sc.dashes ? CMD_COMPLETE_FILES : CMD_COMPLETE_COMMANDS);
		return;
	}
	p = positional_at(e, sc.filled, &index);
	if (p && (p->flags & ARG_RAW))
		return;
	before = out->n;
	if (takes_value(p))
		value_candidates(ctx, p, false, sc.first_word < 0 ? 0 : argc - sc.first_word,
				 sc.first_word < 0 ? NULL : argv + sc.first_word, out);
	else if (p && p->kind && p->kind->complete)
		p->kind->complete(ctx, p, sc.first_word < 0 ? 0 : argc - sc.first_word,
				  sc.first_word < 0 ? NULL : argv + sc.first_word, out);
	/* the options come after a positional's own words, or when a dash is typed; not
	 * while a required positional is still to come (cap set big: VALUE, not --via) */
	bool words = false;
	for (size_t k = before; k < out->n; k++)
		words |= out->v[k][0] != ':';
	bool keywords = sc.filled >= required_positionals(e);
	for (size_t i = 0; (a = args_option(e, i)); i++) {
		if (sc.given[i] || (is_keyword(a) && !keywords))
			continue;
		if (partial[0] != '-' && (!keywords || (words && a != &args_opt_json)))
			continue;
		cands_add_desc(out, a->short_name ? a->short_name : a->name, a->help);
		if (a->no_name)
			cands_add_desc(out, a->no_name, a->help);
	}
}

/* ---- the usage shape -------------------------------------------------------------------- */

int cmd_usage_error(struct cmd_ctx *ctx, const char *fmt, ...)
{
	const struct cmd_entry *saved = ctx->usage_of;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ctx->entry)
		ctx->usage_of = ctx->entry;
	cmd_error(ctx, EXIT_USAGE, "%s", msg);
	ctx->usage_of = saved;
	return EXIT_USAGE;
}

int cmd_usage_tp_error(struct cmd_ctx *ctx, int rc, const struct tp_error *err)
{
	const struct cmd_entry *saved = ctx->usage_of;
	int status;

	if (ctx->entry)
		ctx->usage_of = ctx->entry;
	status = cmd_tp_error(ctx, rc, err);
	ctx->usage_of = saved;
	return status;
}
