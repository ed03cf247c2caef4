/* SPDX-License-Identifier: MIT */
/* thermpress: global options, the choice of one-shot, script or shell, the exit status. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

/* The value of an option that needs one: --root DIR or --root=DIR. */
static const char *need_value(struct cmd_ctx *ctx, int argc, char **argv, int *i,
			      const char *name, const char *inline_value)
{
	if (inline_value)
		return inline_value;
	if (*i + 1 >= argc) {
		cmd_error(ctx, EXIT_USAGE, "option %s needs a value (see 'thermpress --help')", name);
		return NULL;
	}
	return argv[++*i];
}

/* What the global options ask for besides ctx's source options. */
struct globals {
	const char *script;
	bool help, version;
};

/* Global option opt with its value v; 0 or EXIT_USAGE (reported). */
static int apply_global(struct cmd_ctx *ctx, struct globals *g, int opt, const char *v)
{
	switch (opt) {
	case GOPT_ROOT:
		ctx->opts.root = v;
		break;
	case GOPT_SIM:
		if (v && !*v)
			return cmd_error(ctx, EXIT_USAGE, "option --sim= needs a preset");
		ctx->opts.kind = TP_SOURCE_SIM;
		ctx->opts.sim_preset = v;
		break;
	case GOPT_HZ:
		if (parse_sim_hz(ctx, v, &ctx->opts.sim_hz))
			return EXIT_USAGE;
		break;
	case GOPT_VIRTUAL_CLOCK:
		ctx->opts.sim_virtual_clock = true;
		break;
	case GOPT_SCENARIO:
		if (parse_sim_scenario(ctx, v))
			return EXIT_USAGE;
		ctx->opts.sim_scenario = v;
		break;
	case GOPT_JSON:
		ctx->json = true;
		break;
	case GOPT_FILE:
		g->script = v;
		break;
	case GOPT_HELP:
		g->help = true;
		break;
	case GOPT_VERSION:
		g->version = true;
		break;
	}
	return 0;
}

/* "unknown option '--shim': did you mean '--sim'?" among the global options. */
static void unknown_global(struct cmd_ctx *ctx, const char *a)
{
	struct cmd_cands names = { 0 };
	char near[160], word[64];

	snprintf(word, sizeof(word), "%.*s", (int)strcspn(a, "="), a);
	for (int k = 0; global_options[k].name; k++) {
		cands_add(&names, global_options[k].name);
		if (global_options[k].short_name)
			cands_add(&names, global_options[k].short_name);
	}
	cmd_suggest(word, &names, "", near, sizeof(near));
	cands_free(&names);
	if (near[0])
		cmd_error(ctx, EXIT_USAGE, "unknown option '%s': did you mean %s? (see 'thermpress "
			  "--help')", a, near);
	else
		cmd_error(ctx, EXIT_USAGE, "unknown option '%s' (see 'thermpress --help')", a);
}

/* The global options before the command: the index of the first word after them, or
 * -1 after a usage error (reported). */
static int parse_globals(struct cmd_ctx *ctx, struct globals *g, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int opt = -1;

		if (!strcmp(a, "--"))
			return i + 1;
		if (a[0] != '-' || !a[1])
			break;
		for (int k = 0; global_options[k].name && opt < 0; k++)
			if (args_match(&global_options[k], a, &v) >= 0)
				opt = k;
		if (opt < 0 || (!global_options[opt].kind && v)) {
			unknown_global(ctx, a);
			return -1;
		}
		if (global_options[opt].kind && !(global_options[opt].flags & ARG_VALUE_INLINE) &&
		    !(v = need_value(ctx, argc, argv, &i, global_options[opt].name, v)))
			return -1;
		if (apply_global(ctx, g, opt, v))
			return -1;
	}
	return i;
}

/* A preset's name (hikey960, smp:64): after "--sim ", it was meant as --sim=PRESET. */
static bool is_preset_word(const char *w)
{
	for (const char *const *v = global_options[GOPT_SIM].values; *v; v++) {
		size_t l = strlen(*v);

		if ((*v)[l - 1] == ':' ? !strncmp(w, *v, l) : !strcmp(w, *v))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	struct cmd_ctx ctx = { 0 };
	struct globals g = { 0 };
	int i, status;

	/* A closed pipe ends us quietly, as it does cat or git. */
	signal(SIGPIPE, SIG_DFL);
	cmd_tree_set(cmd_table, cmd_groups);	/* the machinery's tree: this program's commands */
	ctx.opts.kind = TP_SOURCE_AUTO;
	ctx.mode = MODE_ONESHOT;
	i = parse_globals(&ctx, &g, argc, argv);
	if (i < 0)
		return EXIT_USAGE;
	if (i > 1 && i < argc && !strcmp(argv[i - 1], "--sim") && is_preset_word(argv[i]))
		return cmd_error(&ctx, EXIT_USAGE, "unknown command '%s': a preset is given as "
				 "--sim=%s (thermpress --sim=%s %s)", argv[i], argv[i], argv[i],
				 i + 1 < argc ? argv[i + 1] : "show");
	if (ctx.opts.root && ctx.opts.kind == TP_SOURCE_SIM)
		return cmd_error(&ctx, EXIT_USAGE, "--root and --sim exclude each other");
	/* --root keeps AUTO: the patched interface there, else that root's stock kernel */

	if (g.help) {
		print_usage(&ctx, false);
		status = 0;
	} else if (g.version) {
		status = cmd_dispatch(&ctx, 1, (char *[]){ "version", NULL });
	} else if (g.script && i < argc) {
		status = cmd_error(&ctx, EXIT_USAGE, "-f FILE takes no command ('%s')", argv[i]);
	} else if (g.script) {
		status = script_run_file(&ctx, g.script);
	} else if (i < argc) {
		status = cmd_dispatch(&ctx, argc - i, argv + i);
	} else if (!isatty(STDIN_FILENO)) {
		status = script_run_stream(&ctx, stdin, "<stdin>");
	} else {
		fflush(stdout);
		fprintf(stderr, "thermpress: no command given\n\n");
		/* The usage goes to stderr: redirect stdout into it for this once. */
		fflush(stdout);
		int saved = dup(STDOUT_FILENO);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		print_usage(&ctx, true);
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		close(saved);
		status = EXIT_USAGE;
	}

	ctx_close(&ctx);
	int out = out_check_stdout(true);
	if (out > 0 && !status)
		status = out;
	return status;
}
