/* SPDX-License-Identifier: MIT */
/*
 * The per-CPU columns as data, in the manner of htop's Process_fields: one entry per
 * fact of a CPU (its word in docs/values.md, how to read it from a snapshot, how show and
 * top write it, its JSON key, its metric) drives show, top, --json and the exporter, so
 * that a new column is one entry in columns.c.  Nothing here prints or allocates.
 */
#ifndef THERMPRESS_COLUMNS_H
#define THERMPRESS_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <thermpress/thermpress.h>

/* The outputs a column can appear in. */
enum column_output {
	COL_SHOW,	/* show's table (cmd/cmd_show.c) */
	COL_TOP,	/* the numbers after a CPU's bar in top (tui/draw.c) */
	COL_JSON,	/* a key of each CPU in --json (cmd/json_out.c) */
	COL_METRIC,	/* a metric family of the exporter (export/metrics.c) */
	COL_OUTPUTS
};

/* How a column's value is written in JSON. */
enum column_kind {
	COL_INT,	/* a number (.value); TP_NONE is null */
	COL_BOOL,	/* true or false (.value, 0 or not); TP_NONE is null */
	COL_TEXT,	/* a string (.text); NULL or "" is null */
};

/* A column in a table of text (show, top). */
struct column_text {
	const char *header;
	int width;		/* at least: a longer value widens its row, never cut */
	bool left;		/* aligned left; right otherwise */
	bool fit;		/* as wide as its widest value, so that the column stays straight */
};

/* A column as an exporter metric family: one sample per CPU, labelled cpu and domain. */
struct column_metric {
	const char *name;	/* "thermpress_cpu_capacity" */
	const char *help;
	const char *unit;	/* OpenMetrics UNIT, or NULL */
	int64_t scale;		/* the value times scale is the metric's (kHz: 1000, to hertz) */
};

struct column {
	const char *word;	/* the concept's one word (docs/values.md) */
	enum column_kind kind;
	/* the value: what .value computes, else this int64_t field of struct tp_cpu */
	size_t field;
	int64_t (*value)(const struct tp_snapshot *snap, const struct tp_cpu *c);
	/* a COL_TEXT column's value */
	const char *(*text)(const struct tp_snapshot *snap, const struct tp_cpu *c);
	/* show's and top's form when it is not fmt_value's of the value (fmt.h); may
	 * return a string of its own instead of buf */
	const char *(*format)(char *buf, size_t len, const struct tp_snapshot *snap,
			      const struct tp_cpu *c);
	struct column_text show, top;
	const char *json_key;
	struct column_metric metric;
	/*
	 * Its place in each output, the least first; 0: not in that output.  One order
	 * cannot serve all four: show reads CPU, DOMAIN, ONLINE and JSON cpu, online, domain,
	 * and scripts depend on each.  The table's places go by tens, so that a new column
	 * goes between two others without renumbering them.
	 */
	uint16_t pos[COL_OUTPUTS];
};

/* The most columns an output has. */
#define COLUMNS_MAX 32

/* The columns output has, in its order, into cols[COLUMNS_MAX]; returns how many. */
size_t columns_of(enum column_output out, const struct column **cols);

/* A CPU's value of col (TP_NONE: missing). */
int64_t column_value(const struct column *col, const struct tp_snapshot *snap,
		     const struct tp_cpu *c);
/* The value as show and top write it (fmt.h), into buf or a string of the column's own. */
const char *column_format(const struct column *col, char *buf, size_t len,
			  const struct tp_snapshot *snap, const struct tp_cpu *c);

/* The width top's numbers take after a CPU's bar: a space before each column. */
int columns_top_width(void);

#endif
