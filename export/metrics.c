// SPDX-License-Identifier: MIT
/*
 * One scrape's metrics in the Prometheus text format 0.0.4 or OpenMetrics 1.0
 * (docs/export.md lists them).  Conventions: base units (hertz, seconds, celsius),
 * one metric per fact with the CPU as a label, metadata in _info metrics, a missing
 * value (TP_NONE) is no sample rather than 0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/text.h>

#include "columns.h"
#include "export.h"

/* ---- the buffer ------------------------------------------------------------ */

static void buf_reserve(struct export_buf *b, size_t more)
{
	if (b->len + more + 1 <= b->alloc)
		return;
	size_t alloc = b->alloc ? b->alloc : 4096;
	while (alloc < b->len + more + 1)
		alloc *= 2;
	char *d = realloc(b->data, alloc);
	if (!d)
		abort();
	b->data = d;
	b->alloc = alloc;
}

void export_buf_add(struct export_buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void buf_str(struct export_buf *b, const char *s)
{
	export_buf_add(b, s, strlen(s));
}

void export_buf_printf(struct export_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void export_buf_free(struct export_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* ---- values ---------------------------------------------------------------- */

/* A decimal integer, without printf: a scrape of 4096 CPUs writes some 40,000. */
static void buf_int(struct export_buf *b, int64_t v)
{
	char tmp[24];
	size_t n = 0;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[sizeof(tmp) - 1 - n++] = '-';
	export_buf_add(b, tmp + sizeof(tmp) - n, n);
}

/* v / 1000 exactly: "45.5" for 45500, "-0.25" for -250, "3" for 3000. */
static void buf_milli(struct export_buf *b, int64_t v)
{
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char frac[5];
	unsigned f = (unsigned)(u % 1000);

	if (v < 0)
		buf_str(b, "-");
	buf_int(b, (int64_t)(u / 1000));
	if (!f)
		return;
	snprintf(frac, sizeof(frac), ".%03u", f);
	size_t n = 4;
	while (frac[n - 1] == '0')
		n--;
	export_buf_add(b, frac, n);
}

void export_label_value(struct export_buf *b, const char *s)
{
	size_t len = strlen(s), plain = 0;

	/* the common case, printable ASCII without a quote or backslash, as it is */
	while (plain < len && s[plain] >= 0x20 && s[plain] < 0x7f && s[plain] != '\\' &&
	       s[plain] != '"')
		plain++;
	if (plain == len) {
		export_buf_add(b, s, len);
		return;
	}
	size_t need = tp_text_terminal(NULL, 0, s, len, 0);

	buf_reserve(b, 2 * need);
	char *safe = malloc(need + 1);
	if (!safe)
		abort();
	tp_text_terminal(safe, need + 1, s, len, 0);
	/* no control character is left: only the two the formats escape in a label value */
	for (const char *p = safe; *p; p++) {
		if (*p == '\\' || *p == '"')
			export_buf_add(b, "\\", 1);
		export_buf_add(b, p, 1);
	}
	free(safe);
}

/* ---- families ---------------------------------------------------------------- */

struct family {
	const char *name;	/* the sample name: "thermpress_cpu_capacity" */
	const char *help;
	bool info;		/* an _info metric: type "info" in OpenMetrics */
	const char *unit;	/* OpenMetrics UNIT, or NULL */
};

static void family_head(struct export_buf *b, const struct family *f, enum export_format fmt)
{
	size_t n = strlen(f->name);

	/* OpenMetrics names an info family without its _info suffix */
	if (fmt == EXPORT_OPENMETRICS && f->info)
		n -= strlen("_info");
	buf_str(b, "# HELP ");
	export_buf_add(b, f->name, n);
	buf_str(b, " ");
	buf_str(b, f->help);
	buf_str(b, "\n# TYPE ");
	export_buf_add(b, f->name, n);
	buf_str(b, fmt == EXPORT_OPENMETRICS && f->info ? " info\n" : " gauge\n");
	if (fmt == EXPORT_OPENMETRICS && f->unit) {
		buf_str(b, "# UNIT ");
		export_buf_add(b, f->name, n);
		buf_str(b, " ");
		buf_str(b, f->unit);
		buf_str(b, "\n");
	}
}

/* name, help, an _info metric (type info in OpenMetrics), OpenMetrics unit or NULL */
#define FAMILY(n, h, i, u) { .name = n, .help = h, .info = i, .unit = u }

static const struct family
	fam_up = FAMILY("thermpress_up",
		"Whether the last scrape read the source (1) or not (0: see thermpress_last_error_info)",
		false, NULL),
	fam_error = FAMILY("thermpress_last_error_info",
		"Why the source could not be read, when thermpress_up is 0",
		true, NULL),
	fam_duration = FAMILY("thermpress_scrape_duration_seconds",
		"Time taken to read the source for this scrape",
		false, "seconds"),
	fam_source = FAMILY("thermpress_source_info",
		"The source read: kind (patched, sim, stock) and description",
		true, NULL),
	fam_backend = FAMILY("thermpress_backend_info",
		"The active averaging backend of the source",
		true, NULL),
	fam_decay = FAMILY("thermpress_decay_period_seconds",
		"Decay period of the active backend",
		false, "seconds"),
	fam_hz = FAMILY("thermpress_tick_rate_hertz",
		"The scheduler tick rate of the source",
		false, "hertz"),
	fam_avg_info = FAMILY("thermpress_cpu_average_info",
		"How thermpress_cpu_average_pressure was obtained: backend, and origin, who "
		"computed it: kernel (read from the kernel), simulator (thermpress's simulator, "
		"which reports it as a kernel would) or estimated (thermpress's own estimate: the source "
		"does not report it)",
		true, NULL),
	fam_build = FAMILY("thermpress_build_info",
		"thermpress's version and the kernel interface (ABI) version it reads, value 1",
		true, NULL),
	fam_zone_temp = FAMILY("thermpress_thermal_zone_temperature_celsius",
		"Temperature of a thermal zone",
		false, "celsius"),
	fam_trip_temp = FAMILY("thermpress_thermal_zone_trip_point_celsius",
		"Temperature of a thermal zone's trip point",
		false, "celsius"),
	fam_trip_hyst = FAMILY("thermpress_thermal_zone_trip_point_hysteresis_celsius",
		"Hysteresis of a thermal zone's trip point",
		false, "celsius"),
	fam_cool_cur = FAMILY("thermpress_cooling_device_state",
		"Current state of a cooling device (0: not cooling)",
		false, NULL),
	fam_cool_max = FAMILY("thermpress_cooling_device_max_state",
		"Highest state of a cooling device",
		false, NULL);

/* name{labels} value\n, labels already escaped ("" for none). */
static void sample_int(struct export_buf *b, const char *name, const char *labels, size_t llen,
		       int64_t v)
{
	buf_str(b, name);
	if (llen) {
		buf_str(b, "{");
		export_buf_add(b, labels, llen);
		buf_str(b, "}");
	}
	buf_str(b, " ");
	buf_int(b, v);
	buf_str(b, "\n");
}

/* ---- per CPU ----------------------------------------------------------------- */

/* The escaped labels of each CPU, built once per scrape: cpu="4",domain="big". */
struct cpu_labels {
	struct export_buf text;
	size_t *off;		/* nr_cpus + 1 offsets into text */
};

static void cpu_labels_build(struct cpu_labels *l, const struct tp_snapshot *snap)
{
	l->off = malloc((snap->nr_cpus + 1) * sizeof(*l->off));
	if (!l->off)
		abort();
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		const struct tp_cpu *c = &snap->cpus[i];
		const struct tp_domain *d = tp_snapshot_domain(snap, c);

		l->off[i] = l->text.len;
		buf_str(&l->text, "cpu=\"");
		buf_int(&l->text, c->cpu);
		buf_str(&l->text, "\",domain=\"");
		if (d)
			export_label_value(&l->text, d->name);
		buf_str(&l->text, "\"");
	}
	l->off[snap->nr_cpus] = l->text.len;
}

static void cpu_labels_free(struct cpu_labels *l)
{
	export_buf_free(&l->text);
	free(l->off);
}

/* A column's value (fmt/columns.c) in the metric's unit; negative: no sample. */
static int64_t metric_value(const struct column *col, const struct tp_snapshot *snap,
			    const struct tp_cpu *c)
{
	int64_t v = column_value(col, snap, c);

	return v >= 0 && col->metric.scale ? v * col->metric.scale : v;
}

/* A column's family, one sample per CPU that has the value; none when no CPU has it. */
static void render_cpu_column(struct export_buf *b, const struct tp_snapshot *snap,
			      const struct cpu_labels *l, const struct column *col,
			      enum export_format fmt)
{
	const struct family f = FAMILY(col->metric.name, col->metric.help, false, col->metric.unit);
	bool any = false;

	for (size_t i = 0; i < snap->nr_cpus && !any; i++)
		any = metric_value(col, snap, &snap->cpus[i]) >= 0;
	if (!any)
		return;
	family_head(b, &f, fmt);
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		int64_t v = metric_value(col, snap, &snap->cpus[i]);
		if (v >= 0)
			sample_int(b, f.name, l->text.data + l->off[i], l->off[i + 1] - l->off[i], v);
	}
}

const char *export_avg_origin(const struct tp_cpu *c, bool simulated)
{
	if (c->avg_estimated)
		return "estimated";
	return simulated ? "simulator" : "kernel";
}

/*
 * Where each average comes from: origin names who computed it (export_avg_origin), a
 * label with values rather than a boolean.
 */
static void render_avg_info(struct export_buf *b, const struct tp_snapshot *snap,
			    const struct cpu_labels *l, bool simulated, enum export_format fmt)
{
	bool any = false;

	for (size_t i = 0; i < snap->nr_cpus && !any; i++)
		any = snap->cpus[i].avg_pressure >= 0;
	if (!any)
		return;
	family_head(b, &fam_avg_info, fmt);
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		const struct tp_cpu *c = &snap->cpus[i];
		if (c->avg_pressure < 0)
			continue;
		buf_str(b, fam_avg_info.name);
		buf_str(b, "{");
		export_buf_add(b, l->text.data + l->off[i], l->off[i + 1] - l->off[i]);
		buf_str(b, ",backend=\"");
		export_label_value(b, snap->backend);
		buf_str(b, "\",origin=\"");
		buf_str(b, export_avg_origin(c, simulated));
		buf_str(b, "\"} 1\n");
	}
}

static void render_cpus(struct export_buf *b, const struct tp_snapshot *snap, bool simulated,
			enum export_format fmt)
{
	struct cpu_labels l = { 0 };
	const struct column *cols[COLUMNS_MAX];
	size_t n = columns_of(COL_METRIC, cols);

	cpu_labels_build(&l, snap);
	for (size_t k = 0; k < n; k++)
		render_cpu_column(b, snap, &l, cols[k], fmt);
	render_avg_info(b, snap, &l, simulated, fmt);
	cpu_labels_free(&l);
}

/* ---- the thermal zones and cooling devices (tp_thermal_read, any source) ---------- */

static void zone_labels(struct export_buf *b, const struct tp_thermal_zone *z)
{
	buf_str(b, "zone=\"");
	buf_int(b, z->id);
	buf_str(b, "\",type=\"");
	export_label_value(b, z->type);
	buf_str(b, "\"");
}

static void trip_sample(struct export_buf *b, const struct family *f,
			const struct tp_thermal_zone *z, size_t t, int64_t mc)
{
	buf_str(b, f->name);
	buf_str(b, "{");
	zone_labels(b, z);
	buf_str(b, ",trip=\"");
	buf_int(b, (int64_t)t);
	buf_str(b, "\",trip_type=\"");
	export_label_value(b, z->trips[t].type);
	buf_str(b, "\"} ");
	buf_milli(b, mc);
	buf_str(b, "\n");
}

static void render_zones(struct export_buf *b, const struct tp_thermal *st,
			 enum export_format fmt)
{
	bool temp = false, trip = false, hyst = false;

	for (size_t i = 0; i < st->nr_zones; i++) {
		const struct tp_thermal_zone *z = &st->zones[i];
		temp |= z->temp_mc != TP_NONE;
		for (size_t t = 0; t < z->nr_trips; t++) {
			trip |= z->trips[t].temp_mc != TP_NONE;
			hyst |= z->trips[t].hyst_mc != TP_NONE;
		}
	}
	if (temp) {
		family_head(b, &fam_zone_temp, fmt);
		for (size_t i = 0; i < st->nr_zones; i++) {
			const struct tp_thermal_zone *z = &st->zones[i];
			if (z->temp_mc == TP_NONE)
				continue;
			buf_str(b, fam_zone_temp.name);
			buf_str(b, "{");
			zone_labels(b, z);
			buf_str(b, "} ");
			buf_milli(b, z->temp_mc);
			buf_str(b, "\n");
		}
	}
	if (trip) {
		family_head(b, &fam_trip_temp, fmt);
		for (size_t i = 0; i < st->nr_zones; i++)
			for (size_t t = 0; t < st->zones[i].nr_trips; t++)
				if (st->zones[i].trips[t].temp_mc != TP_NONE)
					trip_sample(b, &fam_trip_temp, &st->zones[i], t,
						    st->zones[i].trips[t].temp_mc);
	}
	if (hyst) {
		family_head(b, &fam_trip_hyst, fmt);
		for (size_t i = 0; i < st->nr_zones; i++)
			for (size_t t = 0; t < st->zones[i].nr_trips; t++)
				if (st->zones[i].trips[t].hyst_mc != TP_NONE)
					trip_sample(b, &fam_trip_hyst, &st->zones[i], t,
						    st->zones[i].trips[t].hyst_mc);
	}
}

static void render_cooling_fact(struct export_buf *b, const struct tp_thermal *st,
				const struct family *f, bool max, enum export_format fmt)
{
	bool any = false;

	for (size_t i = 0; i < st->nr_cooling; i++)
		any |= (max ? st->cooling[i].max_state : st->cooling[i].cur_state) >= 0;
	if (!any)
		return;
	family_head(b, f, fmt);
	for (size_t i = 0; i < st->nr_cooling; i++) {
		const struct tp_thermal_cooling *cd = &st->cooling[i];
		int64_t v = max ? cd->max_state : cd->cur_state;
		if (v < 0)
			continue;
		buf_str(b, f->name);
		buf_str(b, "{device=\"");
		buf_int(b, cd->id);
		buf_str(b, "\",type=\"");
		export_label_value(b, cd->type);
		buf_str(b, "\"} ");
		buf_int(b, v);
		buf_str(b, "\n");
	}
}

/* ---- the whole scrape ----------------------------------------------------------- */

static void render_info(struct export_buf *b, const struct family *f, const char *label,
			const char *value, enum export_format fmt)
{
	family_head(b, f, fmt);
	buf_str(b, f->name);
	buf_str(b, "{");
	buf_str(b, label);
	buf_str(b, "=\"");
	export_label_value(b, value);
	buf_str(b, "\"} 1\n");
}

/* thermpress_build_info{version="0.1.0",abi_version="1"} 1, as Prometheus's own *_build_info. */
static void render_build_info(struct export_buf *b, enum export_format fmt)
{
	const struct tp_version_info *v = tp_version();

	family_head(b, &fam_build, fmt);
	buf_str(b, fam_build.name);
	buf_str(b, "{version=\"");
	export_label_value(b, v->version);
	buf_str(b, "\",abi_version=\"");
	buf_int(b, v->abi_version);
	buf_str(b, "\"} 1\n");
}

void export_render(struct export_buf *b, const struct export_scrape *sc, enum export_format fmt)
{
	const struct tp_snapshot *snap = sc->up ? sc->snap : NULL;

	render_build_info(b, fmt);
	family_head(b, &fam_up, fmt);
	sample_int(b, fam_up.name, "", 0, sc->up ? 1 : 0);
	if (!sc->up)
		render_info(b, &fam_error, "error", sc->error ? sc->error : "unknown error", fmt);
	if (sc->source_kind) {
		family_head(b, &fam_source, fmt);
		buf_str(b, fam_source.name);
		buf_str(b, "{kind=\"");
		export_label_value(b, sc->source_kind);
		buf_str(b, "\",description=\"");
		export_label_value(b, sc->source_description ? sc->source_description : "");
		buf_str(b, "\"} 1\n");
	}
	if (snap) {
		if (snap->backend[0])
			render_info(b, &fam_backend, "backend", snap->backend, fmt);
		if (snap->decay_ms >= 0) {
			family_head(b, &fam_decay, fmt);
			buf_str(b, fam_decay.name);
			buf_str(b, " ");
			buf_milli(b, snap->decay_ms);
			buf_str(b, "\n");
		}
		if (snap->hz > 0) {
			family_head(b, &fam_hz, fmt);
			sample_int(b, fam_hz.name, "", 0, snap->hz);
		}
		render_cpus(b, snap, sc->simulated, fmt);
	}
	if (snap && sc->thermal) {
		render_zones(b, sc->thermal, fmt);
		render_cooling_fact(b, sc->thermal, &fam_cool_cur, false, fmt);
		render_cooling_fact(b, sc->thermal, &fam_cool_max, true, fmt);
	}
	family_head(b, &fam_duration, fmt);
	export_buf_printf(b, "%s %.9f\n", fam_duration.name, sc->duration_s);
	if (fmt == EXPORT_OPENMETRICS)
		buf_str(b, "# EOF\n");
}
