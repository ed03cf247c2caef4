/* SPDX-License-Identifier: MIT */
/*
 * What bench measures besides the time (docs/experiments.md, "Bench"): where the work
 * ran (each frequency domain's share of the CPU time busy during a run, from the
 * source root's /proc/stat) and how often the workload moved between CPUs (a
 * perf_event_open software counter inherited by its children).  Each figure may be
 * unavailable (a simulator, no perf events): it is then null, and one line says why.
 */
#ifndef THERMPRESS_CMD_BENCH_PROBE_H
#define THERMPRESS_CMD_BENCH_PROBE_H

#include <stdbool.h>
#include <sys/types.h>

#include <thermpress/cputime.h>

#include "commands.h"

struct json_object;

struct bench_probe {
	struct tp_source *src;
	size_t ncfg, runs;
	/* placement */
	struct tp_snapshot snap;	/* the domains, and each CPU's */
	int big;			/* the table's domain (largest max capacity), -1: none */
	char place_why[512];		/* why placement is not measured; "": it is */
	struct tp_cpu_ticks *before, *after;
	size_t nbefore, max_cpus;
	bool have_before;
	double *share;			/* [(cfg * runs + run) * nr_domains + d], < 0: none */
	/* migrations */
	char mig_why[512];		/* why they are not counted; "": they are */
	double *migr;			/* [cfg * runs + run], < 0: none */
};

/* Learn the domains and whether each figure can be measured; 0 or an exit status. */
int probe_init(struct cmd_ctx *ctx, struct bench_probe *p, size_t ncfg, size_t runs);
void probe_free(struct bench_probe *p);

/* The CPU times before a run. */
void probe_before(struct bench_probe *p);
/*
 * Start command with its standard output on /dev/null and, while migrations can be
 * counted, a counter on it from its exec on (*counter, else -1).  0 or -errno (the
 * command could not be run: nothing is left running).
 */
int probe_spawn(struct bench_probe *p, char **command, pid_t *pid, int *counter);
/* After the run ended: its shares and migrations (closes counter). */
void probe_after(struct bench_probe *p, int counter, size_t cfg, size_t run);

/* Once per bench, before the results: why a figure is missing, one line each. */
void probe_notes(struct cmd_ctx *ctx, const struct bench_probe *p);
/* The table's extra header cells, and configuration cfg's cells. */
void probe_table_header(const struct bench_probe *p, char *buf, size_t len);
void probe_table_cells(const struct bench_probe *p, size_t cfg, char *buf, size_t len);
/* The JSON fields of the document, and of configuration cfg. */
void probe_json_top(const struct bench_probe *p, struct json_object *o);
void probe_json_config(const struct bench_probe *p, size_t cfg, struct json_object *o);

/* Right-align text in width columns, counting UTF-8 characters (for "±"). */
void probe_cell(char *buf, size_t len, int width, const char *text);

#endif
