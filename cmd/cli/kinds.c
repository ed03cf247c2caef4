/* SPDX-License-Identifier: MIT */
/*
 * The kinds of values a command's arguments take: how each is read and checked (its
 * errors are usage errors, in the command's usage shape: args.c sets it), what is
 * offered to complete it, and the examples that `?`, TAB and the bash, zsh and fish
 * completions show for it (args_hint(): "VALUE: 1800MHz, 2.36GHz, cap=600, 60%"): the
 * one place they are written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/experiment.h>
#include <thermpress/stock.h>

#include "cli.h"
#include "intparse.h"

static void complete_values(struct cmd_ctx *ctx, const struct cmd_arg *a, int argc, char **argv,
			    struct cmd_cands *out)
{
	(void)ctx, (void)argc, (void)argv;
	for (const char *const *v = a->values; v && *v; v++)
		cands_add(out, *v);
}

static void complete_files(struct cmd_ctx *ctx, const struct cmd_arg *a, int argc, char **argv,
			   struct cmd_cands *out)
{
	(void)ctx, (void)a, (void)argc, (void)argv;
	cands_add(out, CMD_COMPLETE_FILES);
}

static void complete_dirs(struct cmd_ctx *ctx, const struct cmd_arg *a, int argc, char **argv,
			  struct cmd_cands *out)
{
	(void)ctx, (void)a, (void)argc, (void)argv;
	cands_add(out, CMD_COMPLETE_DIRS);
}

const struct cmd_kind kind_text = { "text", NULL, complete_values, NULL };
const struct cmd_kind kind_file = { "file", NULL, complete_files,
	"t.csv, traces/run1.jsonl, /tmp/profile" };
const struct cmd_kind kind_dir = { "directory", NULL, complete_dirs,
	"/mnt/tp, ./tree" };
const struct cmd_kind kind_words = { "words", NULL, NULL, NULL };
const struct cmd_kind kind_preset = { "preset", NULL, complete_values, NULL };

/* "10ms" for 10000000: the largest unit that divides ns. */
static void format_ns(uint64_t ns, char *buf, size_t len)
{
	static const struct { uint64_t ns; const char *unit; } units[] = {
		{ 1000000000ull, "s" }, { 1000000ull, "ms" }, { 1000ull, "us" }, { 1, "ns" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns % units[i].ns == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", ns / units[i].ns, units[i].unit);
			return;
		}
}

static int parse_duration(struct cmd_ctx *ctx, const struct cmd_arg *a, const char *text,
			  union cmd_value *out)
{
	struct tp_error err = { 0 };
	char least[32];
	int rc = tp_parse_duration_ns(text, a->unit_ns, &out->ns, &err);

	/* the only duration with a unit for a bare number: top -d, htop's tenths */
	if (rc < 0 && a->unit_ns == 100000000ull)
		return cmd_error(ctx, EXIT_USAGE, "invalid value '%s' for %s (tenths of a second, "
				 "as htop -d: 5 is 0.5s; or a duration with a unit: 500ms)", text,
				 a->short_name ? a->short_name : a->name);
	if (rc < 0 && a->name[0] == '-')
		return cmd_error(ctx, EXIT_USAGE, "%s: %s", a->name, err.msg);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &err);
	if (a->min > 0 && out->ns < (uint64_t)a->min) {
		format_ns((uint64_t)a->min, least, sizeof(least));
		return cmd_error(ctx, EXIT_USAGE, "%s '%s' is too short (at least %s)",
				 a->name + strspn(a->name, "-"), text, least);
	}
	return 0;
}
const struct cmd_kind kind_duration = { "duration", parse_duration, NULL,
	"500ms, 2s, 1.5s, 250us" };

static int parse_int(struct cmd_ctx *ctx, const struct cmd_arg *a, const char *text,
		     union cmd_value *out)
{
	if (parse_i64(text, &out->i) < 0 || out->i < a->min || out->i > a->max)
		return cmd_error(ctx, EXIT_USAGE, "invalid value '%s' for %s (an integer from "
				 "%" PRId64 " to %" PRId64 ")", text, a->name, a->min, a->max);
	return 0;
}
const struct cmd_kind kind_int = { "integer", parse_int, NULL, NULL };

/* --hz N: the tick rates the simulator offers. */
int parse_sim_hz(struct cmd_ctx *ctx, const char *text, int *hz)
{
	char canon[24];
	long v = strtol(text, NULL, 10);

	/* exactly as written: not "0250", "+250" or " 250" */
	snprintf(canon, sizeof(canon), "%ld", v);
	if (!strcmp(canon, text) && v > 0 && v <= 100000 && tp_sim_hz_valid((int)v)) {
		*hz = (int)v;
		return 0;
	}
	return cmd_error(ctx, EXIT_USAGE, "invalid tick rate '%s' (expected %s)", text,
			 tp_sim_hz_rates_text());
}

static int parse_hz(struct cmd_ctx *ctx, const struct cmd_arg *a, const char *text,
		    union cmd_value *out)
{
	int hz = 0, status = parse_sim_hz(ctx, text, &hz);

	(void)a;
	out->i = hz;
	return status;
}
static void complete_hz(struct cmd_ctx *ctx, const struct cmd_arg *a, int argc, char **argv,
			struct cmd_cands *out)
{
	const int *rates;
	size_t n = tp_sim_hz_rates(&rates);
	char word[16];

	(void)ctx, (void)a, (void)argc, (void)argv;
	for (size_t i = 0; i < n; i++) {
		snprintf(word, sizeof(word), "%d", rates[i]);
		cands_add(out, word);
	}
}
const struct cmd_kind kind_hz = { "tick rate", parse_hz, complete_hz, NULL };

static int parse_cap_value(struct cmd_ctx *ctx, const struct cmd_arg *a, const char *text,
			   union cmd_value *out)
{
	struct tp_error err = { 0 };
	int rc = tp_parse_cap_value(text, &out->cap, &err);

	(void)a;
	return rc < 0 ? cmd_tp_error(ctx, rc, &err) : 0;
}
const struct cmd_kind kind_cap_value = { "cap value", parse_cap_value, NULL,
	"1800MHz, 2.36GHz, cap=600, 60%" };

static int parse_cap_method(struct cmd_ctx *ctx, const struct cmd_arg *a, const char *text,
			    union cmd_value *out)
{
	struct tp_error err = { 0 };
	enum tp_stock_cap_method method;
	int rc = tp_stock_cap_method_parse(text, &method, &err);

	(void)a;
	out->i = method;
	return rc < 0 ? cmd_tp_error(ctx, rc, &err) : 0;
}
const struct cmd_kind kind_cap_method = { "method", parse_cap_method, complete_values, NULL };

static int parse_decay(struct cmd_ctx *ctx, const struct cmd_arg *a, const char *text,
		       union cmd_value *out)
{
	struct tp_error err = { 0 };
	int rc = tp_parse_decay_ms(text, &out->ms, &err);

	(void)a;
	return rc < 0 ? cmd_tp_error(ctx, rc, &err) : 0;
}
const struct cmd_kind kind_decay = { "decay period", parse_decay, NULL,
	"250ms, 1s, 128" };

static int parse_trace_format(struct cmd_ctx *ctx, const struct cmd_arg *a, const char *text,
			      union cmd_value *out)
{
	struct tp_error err = { 0 };
	enum tp_trace_format format;
	int rc = tp_trace_format_parse(text, &format, &err);

	(void)a;
	out->i = format;
	return rc < 0 ? cmd_tp_error(ctx, rc, &err) : 0;
}
const struct cmd_kind kind_trace_format = { "format", parse_trace_format, complete_values,
	NULL };

/*
 * all, and the frequency domains' names: of the shell's source when it is open (the
 * live one), else of the source the words name (--sim, --root), opened quietly; without
 * one, no machine is probed while a word is being typed.
 */
static void complete_cpulist(struct cmd_ctx *ctx, const struct cmd_arg *a, int argc, char **argv,
			     struct cmd_cands *out)
{
	struct tp_source *src = ctx->src;
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;

	(void)a, (void)argc, (void)argv;
	cands_add(out, "all");
	if (!src) {
		/*
		 * A TAB must stay cheap: on a stock kernel the averaged pressure is not read
		 * (no BPF program is loaded) for the domain names, and the shell's own source,
		 * opened later, must not inherit that.
		 */
		bool no_bpf = ctx->opts.kind != TP_SOURCE_SIM && !getenv("THERMPRESS_NO_BPF");
		if (no_bpf)
			setenv("THERMPRESS_NO_BPF", "1", 1);
		int rc = tp_source_open(&ctx->opts, &src, NULL);
		if (no_bpf)
			unsetenv("THERMPRESS_NO_BPF");
		if (rc < 0)
			return;
	}
	if (tp_snapshot_take(src, &snap, NULL) == 0)
		for (size_t i = 0; i < snap.nr_domains; i++)
			if (snap.domains[i].name[0])
				cands_add(out, snap.domains[i].name);
	tp_snapshot_release(&snap);
	if (src != ctx->src)
		tp_source_close(src);
}
/* Checked against the topology by the command (ctx_parse_cpus), not here. */
const struct cmd_kind kind_cpulist = { "cpu list", NULL, complete_cpulist,
	"0-3, 0,2,4-7, big, all" };

/* The installed plugins, without opening a source. */
static void complete_backend(struct cmd_ctx *ctx, const struct cmd_arg *a, int argc, char **argv,
			     struct cmd_cands *out)
{
	struct tp_plugin_set *set = NULL;

	(void)a, (void)argc, (void)argv;
	if (tp_plugins_load(ctx->opts.plugin_dir, &set, NULL) < 0)
		return;
	for (size_t i = 0; i < tp_plugins_count(set); i++)
		cands_add(out, tp_plugins_get(set, i)->name);
	tp_plugins_free(set);
}
const struct cmd_kind kind_backend = { "backend", NULL, complete_backend, NULL };
/* NAME[:MS],...: checked against the plugins by the command. */
const struct cmd_kind kind_backend_list = { "backend list", NULL, complete_values,
	"instant,pelt:32,decay:250" };

/* --scenario NAME: one the simulator knows. */
int parse_sim_scenario(struct cmd_ctx *ctx, const char *name)
{
	char names[128] = "";

	for (const char *const *s = tp_sim_scenarios(); *s; s++) {
		size_t l = strlen(names);

		if (!strcmp(name, *s))
			return 0;
		snprintf(names + l, sizeof(names) - l, "%s%s", l ? ", " : "", *s);
	}
	return cmd_error(ctx, EXIT_USAGE, "unknown scenario '%.64s' (expected %s)", name, names);
}

static void complete_scenario(struct cmd_ctx *ctx, const struct cmd_arg *a, int argc,
			      char **argv, struct cmd_cands *out)
{
	(void)ctx, (void)a, (void)argc, (void)argv;
	for (const char *const *s = tp_sim_scenarios(); *s; s++)
		cands_add(out, *s);
}
static int parse_scenario(struct cmd_ctx *ctx, const struct cmd_arg *a, const char *text,
			  union cmd_value *out)
{
	(void)a, (void)out;
	return parse_sim_scenario(ctx, text);
}
const struct cmd_kind kind_scenario = { "scenario", parse_scenario, complete_scenario, NULL };
