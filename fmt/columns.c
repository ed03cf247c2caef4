/* SPDX-License-Identifier: MIT */
/* The per-CPU column table: each fact of a CPU, and the outputs that show it (columns.h). */
#include <stddef.h>
#include <string.h>

#include "columns.h"
#include "fmt.h"

/* ---- reading a fact from the snapshot (the int64_t fields need no function) ------ */

static int64_t cpu_number(const struct tp_snapshot *s, const struct tp_cpu *c)
{
	(void)s;
	return c->cpu;
}

static int64_t online(const struct tp_snapshot *s, const struct tp_cpu *c)
{
	(void)s;
	return c->online;
}

static const char *domain_name(const struct tp_snapshot *s, const struct tp_cpu *c)
{
	const struct tp_domain *d = tp_snapshot_domain(s, c);

	return d ? d->name : NULL;
}

static int64_t domain_id(const struct tp_snapshot *s, const struct tp_cpu *c)
{
	const struct tp_domain *d = tp_snapshot_domain(s, c);

	return d ? d->id : TP_NONE;
}

static int64_t capped(const struct tp_snapshot *s, const struct tp_cpu *c)
{
	(void)s;
	return tp_cpu_capped(c);
}

static int64_t avg_estimated(const struct tp_snapshot *s, const struct tp_cpu *c)
{
	(void)s;
	return c->avg_estimated;
}

/* The library gives 0 or TP_NONE where the source does not know it. */
static int64_t min_freq(const struct tp_snapshot *s, const struct tp_cpu *c)
{
	(void)s;
	return c->min_freq_khz > 0 ? c->min_freq_khz : TP_NONE;
}

/* ---- writing it for people (fmt.h), where fmt_value of the value is not the form ---- */

static const char *domain_text(char *buf, size_t len, const struct tp_snapshot *s,
			       const struct tp_cpu *c)
{
	const char *name = domain_name(s, c);

	(void)buf;
	(void)len;
	return name && name[0] ? name : FMT_NONE;
}

static const char *online_text(char *buf, size_t len, const struct tp_snapshot *s,
			       const struct tp_cpu *c)
{
	(void)buf;
	(void)len;
	(void)s;
	return c->online == 1 ? "yes" : c->online == 0 ? "no" : FMT_NONE;
}

static const char *freq_pair_text(char *buf, size_t len, const struct tp_snapshot *s,
				  const struct tp_cpu *c)
{
	(void)s;
	return fmt_mhz_pair(buf, len, c->capped_freq_khz, c->max_freq_khz);
}

static const char *min_freq_text(char *buf, size_t len, const struct tp_snapshot *s,
				 const struct tp_cpu *c)
{
	return fmt_mhz(buf, len, min_freq(s, c));
}

static const char *avg_pressure_text(char *buf, size_t len, const struct tp_snapshot *s,
				     const struct tp_cpu *c)
{
	(void)s;
	return fmt_estimated(buf, len, c->avg_pressure, c->avg_estimated);
}

/* A column that is an int64_t field of struct tp_cpu. */
#define FIELD(f) .field = offsetof(struct tp_cpu, f)

/* ---- the table ------------------------------------------------------------------ */

/* Each output's order is in .pos, not the table's. */
static const struct column columns[] = {
	{ .word = "cpu", .kind = COL_INT, .value = cpu_number,
	  .pos = { [COL_SHOW] = 10, [COL_JSON] = 10 },
	  .show = { "CPU", 4 }, .json_key = "cpu" },
	{ .word = "domain", .kind = COL_TEXT, .text = domain_name, .format = domain_text,
	  .pos = { [COL_SHOW] = 20, [COL_JSON] = 30 },
	  .show = { "DOMAIN", 6, .left = true, .fit = true }, .json_key = "domain" },
	{ .word = "domain id", .kind = COL_INT, .value = domain_id,
	  .pos = { [COL_JSON] = 40 }, .json_key = "domain_id" },
	{ .word = "online", .kind = COL_BOOL, .value = online, .format = online_text,
	  .pos = { [COL_SHOW] = 30, [COL_JSON] = 20, [COL_METRIC] = 10 },
	  .show = { "ONLINE", 6, .left = true }, .json_key = "online",
	  .metric = { "thermpress_cpu_online", "Whether the CPU is online (1) or not (0)" } },
	/* top's header is wider than its numbers: it takes 3 of the bar's columns */
	{ .word = "capacity", .kind = COL_INT, FIELD(capacity),
	  .pos = { [COL_SHOW] = 40, [COL_TOP] = 10, [COL_JSON] = 60, [COL_METRIC] = 40 },
	  .show = { "CAPACITY", 8 }, .top = { "capacity", 5 }, .json_key = "capacity",
	  .metric = { "thermpress_cpu_capacity",
		      "Capacity the scheduler uses: max capacity minus the averaged pressure" } },
	{ .word = "max capacity", .kind = COL_INT, FIELD(max_capacity),
	  .pos = { [COL_SHOW] = 50, [COL_JSON] = 50, [COL_METRIC] = 20 },
	  .show = { "MAX_CAPACITY", 12 }, .json_key = "max_capacity",
	  .metric = { "thermpress_cpu_max_capacity",
		      "Capacity of the CPU at its maximum frequency (1024: the biggest CPU)" } },
	/* show and top write the capped and the top frequency as one column, here */
	{ .word = "capped/max", .kind = COL_INT, FIELD(capped_freq_khz), .format = freq_pair_text,
	  .pos = { [COL_SHOW] = 60, [COL_TOP] = 20, [COL_JSON] = 80, [COL_METRIC] = 60 },
	  .show = { "MHZ_CAPPED/MAX", 17 }, .top = { "MHz capped/max", 17 },
	  .json_key = "capped_freq_khz",
	  .metric = { "thermpress_cpu_capped_frequency_hertz",
		      "Frequency the CPU is capped at (its maximum when not capped)", "hertz", 1000 } },
	{ .word = "min frequency", .kind = COL_INT, .value = min_freq, .format = min_freq_text,
	  .pos = { [COL_SHOW] = 65, [COL_TOP] = 25, [COL_JSON] = 75, [COL_METRIC] = 55 },
	  .show = { "MIN_MHZ", 7 }, .top = { "min MHz", 7 }, .json_key = "min_freq_khz",
	  .metric = { "thermpress_cpu_min_frequency_hertz",
		      "Lowest frequency the CPU runs at, where the source knows it", "hertz", 1000 } },
	{ .word = "max frequency", .kind = COL_INT, FIELD(max_freq_khz),
	  .pos = { [COL_JSON] = 70, [COL_METRIC] = 50 }, .json_key = "max_freq_khz",
	  .metric = { "thermpress_cpu_max_frequency_hertz", "Maximum frequency of the CPU",
		      "hertz", 1000 } },
	{ .word = "capped", .kind = COL_BOOL, .value = capped,
	  .pos = { [COL_JSON] = 90 }, .json_key = "capped" },
	{ .word = "capped capacity", .kind = COL_INT, FIELD(capped_capacity),
	  .pos = { [COL_JSON] = 100, [COL_METRIC] = 30 }, .json_key = "capped_capacity",
	  .metric = { "thermpress_cpu_capped_capacity",
		      "Capacity of the CPU at its capped frequency: max capacity minus the pressure" } },
	{ .word = "averaged pressure", .kind = COL_INT, FIELD(avg_pressure),
	  .format = avg_pressure_text,
	  .pos = { [COL_SHOW] = 80, [COL_TOP] = 40, [COL_JSON] = 120, [COL_METRIC] = 80 },
	  .show = { "AVG_PRESSURE", 12 }, .top = { "avg", 5 }, .json_key = "avg_pressure",
	  .metric = { "thermpress_cpu_average_pressure",
		      "Thermal pressure averaged by the backend (see thermpress_cpu_average_info)" } },
	{ .word = "pressure", .kind = COL_INT, FIELD(pressure),
	  .pos = { [COL_SHOW] = 70, [COL_TOP] = 30, [COL_JSON] = 110, [COL_METRIC] = 70 },
	  .show = { "PRESSURE", 8 }, .top = { "pres", 5 }, .json_key = "pressure",
	  .metric = { "thermpress_cpu_pressure",
		      "Instantaneous thermal pressure: capacity lost to the frequency cap" } },
	{ .word = "estimate", .kind = COL_BOOL, .value = avg_estimated,
	  .pos = { [COL_JSON] = 130 }, .json_key = "avg_estimated" },
};

#define NR_COLUMNS (sizeof(columns) / sizeof(columns[0]))
_Static_assert(NR_COLUMNS <= COLUMNS_MAX, "COLUMNS_MAX is too small for the table");

size_t columns_of(enum column_output out, const struct column **cols)
{
	size_t n = 0;

	/* by place, and a place given twice in the table's order: an insertion sort */
	for (size_t i = 0; i < NR_COLUMNS; i++) {
		size_t k = n;
		if (!columns[i].pos[out])
			continue;
		n++;
		for (; k > 0 && cols[k - 1]->pos[out] > columns[i].pos[out]; k--)
			cols[k] = cols[k - 1];
		cols[k] = &columns[i];
	}
	return n;
}

int columns_top_width(void)
{
	const struct column *cols[COLUMNS_MAX];
	size_t n = columns_of(COL_TOP, cols);
	int w = 0;

	for (size_t i = 0; i < n; i++)
		w += 1 + cols[i]->top.width;
	return w;
}

int64_t column_value(const struct column *col, const struct tp_snapshot *snap,
		     const struct tp_cpu *c)
{
	int64_t v;

	if (col->value)
		return col->value(snap, c);
	if (col->kind == COL_TEXT)
		return TP_NONE;		/* its value is its text */
	memcpy(&v, (const char *)c + col->field, sizeof(v));
	return v;
}

const char *column_format(const struct column *col, char *buf, size_t len,
			  const struct tp_snapshot *snap, const struct tp_cpu *c)
{
	if (col->format)
		return col->format(buf, len, snap, c);
	return fmt_value(buf, len, column_value(col, snap, c));
}
