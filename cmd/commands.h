/* SPDX-License-Identifier: MIT */
/*
 * The command table of the `thermpress` command.
 *
 * Every command is one const entry (cli/cli.h, struct cmd_entry), exported by the file of
 * its group (cmd_show.c, cmd_cap.c, ...) and listed once in table.c, which main.c hands
 * to the machinery of cli/.  What several commands share is declared here.
 */
#ifndef THERMPRESS_CMD_COMMANDS_H
#define THERMPRESS_CMD_COMMANDS_H

#include "cli.h"

/* The positional arguments of the cap commands and show cpu, spelled once. */
#define CMD_POS_CPULIST { .name = "CPULIST", .kind = &kind_cpulist, \
	.help = "CPUs: 0-3,6, all, or a frequency domain name such as big" }
#define CMD_POS_CAP_VALUE { .name = "VALUE", .kind = &kind_cap_value, \
	.help = "a frequency (1800MHz), a capped capacity (cap=600) or a percentage (60%)" }

/* table.c */
extern const struct cmd_entry *const cmd_table[];	/* NULL-terminated, in help order */
extern const struct cmd_group cmd_groups[];		/* NULL name terminates */

/* json_out.c */
struct json_object;
struct json_object *json_snapshot(const struct tp_source *src, const struct tp_snapshot *snap,
				  const struct tp_cpuset *only);
struct json_object *json_backends(const struct tp_backend_info *b, size_t n);
struct json_object *json_status(const struct tp_source *src, const struct tp_snapshot *snap);
/* The shared "source" object, {"kind", "description"}: the one shape in every document. */
struct json_object *json_source(const struct tp_source *src);
/* The same object for the source a trace names (kind null in a version 1 trace). */
struct tp_trace_meta;
struct json_object *json_source_recorded(const struct tp_trace_meta *meta);
void out_json(struct cmd_ctx *ctx, struct json_object *obj);
/* out_json() after adding "stock" (docs/json.md) on a stock source; 0 or an exit status. */
int out_json_stock(struct cmd_ctx *ctx, struct json_object *obj);
#define JSON_SCHEMA_VERSION 1
/* bench's document: 2 since its "source" is the shared object (1: the description string) */
#define JSON_BENCH_SCHEMA_VERSION 2

/* cmd_cap.c: --via METHOD, shared by cap set, cap clear and cap hold. */
#define CMD_OPT_VIA { .name = "--via", .kind = &kind_cap_method, \
	.values = (const char *const[]){ "scaling_max_freq", "cooling", NULL }, \
	.help = "on a stock kernel, cap through scaling_max_freq (the default) or the " \
		"cpufreq cooling device" }
/* A warning for each backend of a --backends list whose decay period was rounded, in
 * the words of decay set's ("pelt has no decay period of 33 ms: 32 ms in force"). */
void warn_decays_in_force(struct cmd_ctx *ctx, const struct tp_replay_backend *b, size_t n);
/* tp_cap_check_bare() of the VALUE text on each CPU of set, against snap (NULL: a
 * snapshot of its own): 0 (with a warning to show after capping in warn, or "") or an
 * exit status (reported). */
int cap_check_bare(struct cmd_ctx *ctx, const struct tp_snapshot *snap,
		   const struct tp_cpuset *set, const char *text, char *warn, size_t len);
/* Choose the cap method given with --via (not given: nothing); refused on a source that
 * is not a stock kernel.  0 or an exit status (reported). */
int cap_apply_via(struct cmd_ctx *ctx, const struct cmd_parsed *via);

/* cmd_play.c: read PROFILE against the source's topology (cap play, bench --profile); 0 or
 * an exit status (reported). */
struct tp_profile;
int exp_load_profile(struct cmd_ctx *ctx, const char *path, struct tp_profile *prof);

/* The entries, one per command. */
extern const struct cmd_entry cmd_show_entry, cmd_show_cpu_entry, cmd_show_backends_entry,
	cmd_show_status_entry;
extern const struct cmd_entry cmd_cap_set_entry, cmd_cap_clear_entry;
extern const struct cmd_entry cmd_backend_set_entry, cmd_decay_set_entry;
extern const struct cmd_entry cmd_sim_advance_entry, cmd_sim_serve_entry;
extern const struct cmd_entry cmd_shell_entry, cmd_version_entry, cmd_help_entry,
	cmd_complete_entry, cmd_man_entry, cmd_commands_entry;

#endif
