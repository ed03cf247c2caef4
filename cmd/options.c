/* SPDX-License-Identifier: MIT */
/* The global options, as data: main.c parses them, help, completion and man list them. */
#include "commands.h"

const struct global_option global_options[] = {
	{ "--root", "DIR", false,
	  "read the patched kernel's interface under DIR instead of / (default: $THERMPRESS_ROOT, "
	  "else /); DIR may be a tree served by sim serve" },
	{ "--sim", "PRESET", true,
	  "use the built-in simulator instead of the kernel: hikey960 (the default), db410c or "
	  "smp:N.  Each thermpress process starts a fresh simulator; its state lasts for one "
	  "script or shell (use sim serve for a simulator that persists)" },
	{ "--hz", "N", false, "the simulator's tick rate: 100, 250 (the default) or 1000" },
	{ "--virtual-clock", NULL, false,
	  "run the simulator on a virtual clock that only sim advance moves" },
	{ "--json", NULL, false, "print show commands as JSON (docs/json.md)" },
	{ "-f", "FILE", false,
	  "run the commands of FILE in order, stopping at the first failure (- for stdin)" },
	{ "--help", NULL, false, "show the commands and options, then exit" },
	{ "--version", NULL, false, "show the version, then exit" },
	{ NULL, NULL, false, NULL },
};
