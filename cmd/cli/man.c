/* SPDX-License-Identifier: MIT */
/* thermpress(1), generated from the command table (thermpress __man). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Text for troff: backslashes escaped, no line starting with a control character. */
static void man_text(const char *text, bool dashes)
{
	if (*text == '.' || *text == '\'')
		fputs("\\&", stdout);
	for (const char *p = text; *p; p++) {
		if (*p == '\\')
			fputs("\\e", stdout);
		else if (*p == '-' && dashes)
			fputs("\\-", stdout);
		else
			putchar(*p);
	}
}

/* The sections after COMMANDS: paragraphs separated by newlines. */
static const char *const sections[][2] = {
	{ "SOURCES",
	  "By default thermpress reads the patched kernel's interface "
	  "(/sys/kernel/debug/sched/thermal_pressure, see docs/abi.md) under the root "
	  "directory: / unless --root or THERMPRESS_ROOT says otherwise.  When it is not "
	  "there, thermpress reads the stock kernel instead (below); when that cannot be "
	  "read either, the error says what was found and how to use the simulator instead.\n"
	  "On a stock (unpatched) kernel thermpress reads cpufreq (each policy's "
	  "cpuinfo_max_freq, scaling_max_freq and available frequencies), "
	  "cpuN/cpu_capacity (1024 for every CPU without it), the thermal zones and "
	  "cpufreq cooling devices of /sys/class/thermal, the kernel release and "
	  "architecture, sched_thermal_decay_shift= on /proc/cmdline and CONFIG_HZ, and "
	  "works out what that kernel feeds the scheduler (kernels.md has a row per kernel "
	  "and architecture).  On x86 and before Linux 5.7: "
	  "nothing, so the pressure is 0, there is no average (- in tables, null in JSON) "
	  "and a cap does not change capacity; x86 gets the cpufreq pressure on 6.12.101 and "
	  "later 6.12 releases and on 7.2.  On arm and arm64 from 5.7 to 6.9: the "
	  "pressure the cpufreq cooling device's state sets (a scaling_max_freq cap sets "
	  "none), averaged by PELT with a half-life of 32 ms << sched_thermal_decay_shift.  "
	  "From 6.10: the pressure of the cpufreq limit, scaling_max_freq, against the "
	  "kernel's reference frequency (taken as cpuinfo_max_freq).  CPUs without "
	  "cpufreq have no frequency, pressure or frequency domain.\n"
	  "No stock kernel exposes the averaged pressure in a file.  As root on the running "
	  "system, with the kernel's BTF (/sys/kernel/btf/vmlinux), thermpress reads it from "
	  "the scheduler's runqueues with BPF.  Otherwise it estimates it: the pelt plugin "
	  "at the kernel's half-life, stepped at the kernel's tick between thermpress's own "
	  "samples, the pressure taken as steady before the first one; an estimate is "
	  "marked ~ in tables (avg_estimated in JSON), and the kernel average: line of show "
	  "status says which it is and why.  cap set writes a policy's scaling_max_freq, so it "
	  "caps the whole frequency domain (on 5.7..6.9 that creates no thermal pressure), "
	  "and records the limit it replaced first (cap restore); the "
	  "backend and decay period are the kernel's and cannot be changed.\n"
	  "With --sim, thermpress runs the built-in simulator in its own process.  A "
	  "one-shot command starts a fresh simulator every time, so state (caps, backend, "
	  "clock) only lasts within one process: a script (-f FILE or standard input) or "
	  "the shell.  For a simulator that persists between commands, run thermpress sim "
	  "serve MOUNTPOINT and point other commands at it with --root MOUNTPOINT." },
	{ "SCRIPTS",
	  "thermpress -f FILE, or commands on standard input when it is not a terminal, runs "
	  "one command per line, in order.  Blank lines and comments (from a # at the start "
	  "of a word to the end of the line) are skipped.  The first command that fails "
	  "stops the script with the message thermpress: FILE:LINE: message and that "
	  "command's exit status.  A line holds at most 65536 bytes and no NUL byte, a "
	  "script at most 10000000 lines: past that the script stops at that line with "
	  "exit status 2 before running it.  FILE is a regular file or a pipe." },
	{ "SHELL",
	  "thermpress shell reads commands from the terminal: ? lists what may come next, "
	  "TAB completes commands and the values of their arguments and options (CPU "
	  "lists, backends, file names: what the bash, zsh and fish completions offer), "
	  "the arrow keys recall history, and COMMAND | include WORD (also "
	  "exclude, begin, count) filters the output.  quit or exit leaves it.  The "
	  "source stays open for the whole session.  The history is kept across sessions "
	  "in XDG_STATE_HOME/thermpress/shell_history (see FILES)." },
	{ "EXIT STATUS",
	  "0 on success, 1 on a runtime failure (no interface, permission denied, the "
	  "kernel refused, a write error on standard output), 2 on a usage error (unknown "
	  "command, bad argument, bad CPU list or value).  A usage error of a command reads "
	  "thermpress: COMMAND: MESSAGE (usage: COMMAND SYNOPSIS), after FILE:LINE: in a "
	  "script; COMMAND --help explains the command.  A misspelled command or option "
	  "gets the nearest ones, as git does (unknown command 'shwo': did you mean "
	  "'show'?).  Bad input changes nothing.  "
	  "A command that changes caps, the backend or the decay period for a while (cap "
	  "hold, cap play, bench) and is ended by SIGINT, SIGTERM, SIGHUP, SIGQUIT or a "
	  "closed output pipe first puts back what it changed, then ends as the signal "
	  "would (status 128 + the signal's number); after SIGKILL, cap restore undoes "
	  "it (docs/state.md).  record ended by one of those signals keeps what it "
	  "recorded (the trace is complete and in place), says on standard error in one "
	  "line how many samples over how long went into which file, and also ends with "
	  "128 + the signal's number (130 after Ctrl-C)." },
	{ "ENVIRONMENT",
	  "THERMPRESS_ROOT: the root directory when --root is not given.  "
	  "THERMPRESS_PLUGIN_DIR: where the backend plugins are loaded from.  "
	  "THERMPRESS_STATE_DIR: a private directory (the user's own, mode 0700) for "
	  "the state files that cap restore reads.  "
	  "THERMPRESS_NO_BPF: when set (not 0), a stock kernel's averaged pressure is "
	  "estimated rather than read from the kernel with BPF.\n"
	  "XDG_RUNTIME_DIR: as a user on the real root without THERMPRESS_STATE_DIR, the "
	  "state files go in XDG_RUNTIME_DIR/thermpress (else /tmp/thermpress-UID).  "
	  "XDG_STATE_HOME (when absolute; else HOME/.local/state): the shell's history "
	  "goes in XDG_STATE_HOME/thermpress.  "
	  "PATH: sim serve, not run as root, looks for fusermount3 on it.\n"
	  "For top: NO_COLOR, when set and not empty, turns colours off (attributes such "
	  "as bold and reverse stay); the locale (LC_ALL, then LC_CTYPE, then LANG) chooses "
	  "the characters: Unicode bars and arrows when its character set is UTF-8, ASCII "
	  "otherwise, numbers always with a decimal point; TERM names the terminal for "
	  "ncurses; COLUMNS is the width of top --once (120 when unset or outside 40..1000)." },
	{ "FILES",
	  "XDG_STATE_HOME/thermpress/shell_history (~/.local/state/thermpress/shell_history "
	  "without an absolute XDG_STATE_HOME): the shell's history, the last 256 lines, "
	  "written at the end of a session in which a line was entered (a temporary file, "
	  "fsync, rename), never by a script or a shell whose standard input is not a "
	  "terminal.  A file that is damaged, larger than the limit, a symbolic link, or in "
	  "a directory another user owns or can write (or reached through another user's "
	  "symbolic link) is ignored with one warning and left as it is.  The state files "
	  "of cap restore: docs/state.md." },
};

static void man_header(void)
{
	printf(".TH THERMPRESS 1 \"\" \"thermpress %s\" \"User Commands\"\n", tp_version()->version);
	printf(".SH NAME\nthermpress \\- read and steer the scheduler's view of thermal pressure\n");
	printf(".SH SYNOPSIS\n.B thermpress\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n.br\n");
	printf(".B thermpress\n[\\fIOPTIONS\\fR] \\fB\\-f\\fR \\fIFILE\\fR\n.br\n");
	printf(".B thermpress\n[\\fIOPTIONS\\fR] \\fBshell\\fR\n");
	printf(".SH DESCRIPTION\n");
	printf("thermpress shows each CPU's capacity, its instantaneous thermal pressure and the "
	       "averaged pressure the scheduler uses, and steers them: it caps CPUs' maximum "
	       "frequency as the cpufreq cooling device would, switches the averaging backend "
	       "and sets its decay period.  It reads a patched kernel or runs a simulator.\n");
}

/* One option or argument: .TP, its label in bold, its help line. */
static void man_arg(const char *label, const char *help)
{
	printf(".TP\n\\fB");
	man_text(label, true);
	printf("\\fR\n");
	man_text(help, false);
	printf("\n");
}

static void man_options(void)
{
	char label[160];

	printf(".SH OPTIONS\nOptions come before the command.\n");
	for (size_t i = 0; global_options[i].name; i++) {
		args_option_label(&global_options[i], label, sizeof(label));
		man_arg(label, global_options[i].help);
	}
}

/* Every listed command: its synopsis, its help, its arguments and options. */
static void man_commands(void)
{
	const struct cmd_entry *const *entries = cmd_entries();
	const struct cmd_arg *a;
	char syn[512], label[160];

	printf(".SH COMMANDS\n");
	for (size_t i = 0; entries[i]; i++) {
		const struct cmd_entry *e = entries[i];
		if (e->flags & CMD_HIDDEN)
			continue;
		args_synopsis(e, syn, sizeof(syn));
		printf(".TP\n\\fB%s\\fR", e->path);
		if (*syn) {
			printf(" \\fI");
			man_text(syn, true);
			printf("\\fR");
		}
		printf("\n");
		man_text(e->help, false);
		printf("\n");
		if (!(e->pos && e->pos->name) && !args_option(e, 0))
			continue;
		printf(".RS\n");
		for (a = e->pos; a && a->name; a++)
			man_arg(a->name, a->help);
		for (size_t k = 0; (a = args_option(e, k)); k++) {
			args_option_label(a, label, sizeof(label));
			man_arg(label, a->help);
		}
		printf(".RE\n");
	}
}

static void man_sections(void)
{
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		printf(".SH %s\n", sections[i][0]);
		const char *p = sections[i][1];
		while (*p) {
			size_t l = strcspn(p, "\n");
			char para[2048];
			snprintf(para, sizeof(para), "%.*s", (int)l, p);
			man_text(para, false);
			printf("\n");
			p += l;
			if (*p == '\n') {
				printf(".PP\n");
				p++;
			}
		}
	}
}

int print_man(struct cmd_ctx *ctx)
{
	(void)ctx;
	man_header();
	man_options();
	man_commands();
	man_sections();
	printf(".SH EXAMPLES\n.nf\n");
	printf("thermpress \\-\\-sim show\n");
	printf("printf '%%s\\\\n' 'cap set big 60%%' 'sim advance 400ms' show |\n"
	       "    thermpress \\-\\-sim \\-\\-virtual\\-clock\n");
	printf("thermpress sim serve \\-\\-virtual\\-clock /tmp/tp &\n");
	printf("thermpress \\-\\-root /tmp/tp \\-\\-json show status\n");
	printf(".fi\n.SH SEE ALSO\n");
	printf("The documents installed in \\fI%s\\fR: README.md (overview, quick start), "
	       "json.md (the \\-\\-json documents), abi.md (the kernel interface), "
	       "algorithms.md (the averaging backends), kernels.md (what each kernel does with a "
	       "frequency cap), values.md (how values are written), "
	       "state.md (undoing changes: cap restore), experiments.md (record, replay, "
	       "cap play, bench), top.md (the live view), simulator.md, plugins.md, export.md "
	       "(Prometheus metrics).\n", THERMPRESS_DOC_DIR);
	return 0;
}

