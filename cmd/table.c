/* SPDX-License-Identifier: MIT */
/* The one command table: every entry once, in the order help lists them. */
#include "commands.h"

/* The experiment commands (cmd_record.c, cmd_replay.c, cmd_play.c, cmd_bench.c). */
extern const struct cmd_entry cmd_record_entry, cmd_replay_entry, cmd_cap_play_entry,
	cmd_bench_entry;
/* The live view (cmd_top.c), and the caps that always come undone (cmd_hold.c). */
extern const struct cmd_entry cmd_top_entry, cmd_cap_hold_entry, cmd_cap_restore_entry;
/* The Prometheus exporter (cmd_export.c). */
extern const struct cmd_entry cmd_export_entry;

const struct cmd_entry *const cmd_table[] = {
	&cmd_show_entry,
	&cmd_show_cpu_entry,
	&cmd_show_backends_entry,
	&cmd_show_status_entry,
	&cmd_top_entry,
	&cmd_export_entry,
	&cmd_cap_set_entry,
	&cmd_cap_clear_entry,
	&cmd_cap_hold_entry,
	&cmd_cap_restore_entry,
	&cmd_cap_play_entry,
	&cmd_backend_set_entry,
	&cmd_decay_set_entry,
	&cmd_sim_advance_entry,
	&cmd_sim_serve_entry,
	&cmd_record_entry,
	&cmd_replay_entry,
	&cmd_bench_entry,
	&cmd_shell_entry,
	&cmd_version_entry,
	&cmd_help_entry,
	&cmd_complete_entry,
	&cmd_man_entry,
	&cmd_commands_entry,
	NULL,
};

const struct cmd_group cmd_groups[] = {
	{ "cap", "cap or uncap CPUs' maximum frequency" },
	{ "backend", "choose the averaging backend" },
	{ "decay", "set the decay period of the active backend" },
	{ "sim", "drive or serve the simulator" },
	{ NULL, NULL },
};
