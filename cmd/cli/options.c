/* SPDX-License-Identifier: MIT */
/* The global options, as data: main.c parses them, help, completion and man list them. */
#include "cli.h"

const struct cmd_arg global_options[] = {
	[GOPT_ROOT] = { .name = "--root", .kind = &kind_dir, .value_name = "DIR",
		.help = "read the patched kernel's interface under DIR instead of / (default: "
			"$THERMPRESS_ROOT, else /); DIR may be a tree served by sim serve" },
	[GOPT_SIM] = { .name = "--sim", .kind = &kind_preset, .value_name = "PRESET",
		.values = (const char *const[]){ "hikey960", "db410c", "smp:", NULL },
		.flags = ARG_VALUE_INLINE,
		.help = "use the built-in simulator instead of the kernel: hikey960 (the default), "
			"db410c or smp:N.  Each thermpress process starts a fresh simulator; its "
			"state lasts for one script or shell (use sim serve for a simulator that "
			"persists)" },
	[GOPT_HZ] = CMD_OPT_HZ,
	[GOPT_VIRTUAL_CLOCK] = { .name = "--virtual-clock",
		.help = "run the simulator on a virtual clock that only sim advance moves" },
	[GOPT_SCENARIO] = { .name = "--scenario", .kind = &kind_scenario, .value_name = "NAME",
		.help = "run the simulator with a thermal scenario, for every command: heat (a "
			"heat model under a busy/light load cycle caps the big cluster as a "
			"thermal governor would; docs/simulator.md)" },
	[GOPT_JSON] = { .name = "--json", .help = "print show commands as JSON (docs/json.md)" },
	[GOPT_FILE] = { .name = "-f", .kind = &kind_file, .value_name = "FILE",
		.help = "run the commands of FILE in order, stopping at the first failure (- for "
			"stdin)" },
	[GOPT_HELP] = { .name = "--help", .short_name = "-h",
		.help = "show the commands and options, then exit" },
	[GOPT_VERSION] = { .name = "--version", .short_name = "-V", .help = "show the version, then exit" },
	{ 0 },
};
