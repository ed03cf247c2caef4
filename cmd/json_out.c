/* SPDX-License-Identifier: MIT */
/*
 * The --json documents (docs/json.md): built with json-c.  A missing value is null,
 * never 0; every document carries "schema_version".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <json-c/printbuf.h>
#include <thermpress/experiment.h>
#include <thermpress/stock.h>
#include <thermpress/text.h>

#include "columns.h"
#include "commands.h"

/* Only TP_NONE is missing (null): a negative value is a value, as in the text. */
static struct json_object *jint(int64_t v)
{
	return v == TP_NONE ? NULL : json_object_new_int64(v);
}

static struct json_object *jstr(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static struct json_object *jbool3(int v)
{
	return v == TP_NONE ? NULL : json_object_new_boolean(v != 0);
}

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *json_doc(void)
{
	struct json_object *o = json_object_new_object();
	add(o, "schema_version", json_object_new_int(JSON_SCHEMA_VERSION));
	return o;
}

struct json_object *json_source(const struct tp_source *src)
{
	struct json_object *o = json_object_new_object();
	struct tp_source_info info;

	tp_source_info(src, &info, NULL);	/* kind and description never fail */
	add(o, "kind", json_object_new_string(info.kind_name));
	add(o, "description", jstr(info.description));
	return o;
}

struct json_object *json_source_recorded(const struct tp_trace_meta *meta)
{
	struct json_object *o = json_object_new_object();

	/* a version 1 trace records the description only: kind unknown */
	add(o, "kind", jstr(tp_source_kind_name(meta->source_kind)));
	add(o, "description", jstr(meta->source));
	return o;
}

static void add_header(struct json_object *o, const struct tp_source *src,
		       const struct tp_snapshot *snap)
{
	add(o, "source", json_source(src));
	add(o, "backend", jstr(snap->backend));
	add(o, "decay_ms", jint(snap->decay_ms));
	add(o, "hz", jint(snap->hz));
	add(o, "time_ns", json_object_new_uint64(snap->time_ns));
}

/* A CPU's value of a column (fmt/columns.c), as its kind is written. */
static struct json_object *json_column(const struct column *col, const struct tp_snapshot *snap,
				       const struct tp_cpu *c)
{
	switch (col->kind) {
	case COL_TEXT:
		return jstr(col->text(snap, c));
	case COL_BOOL:
		return jbool3((int)column_value(col, snap, c));
	case COL_INT:
		break;
	}
	return jint(column_value(col, snap, c));
}

/* The snapshot's header, domains and CPUs; only: those CPUs (NULL: all). */
struct json_object *json_snapshot(const struct tp_source *src, const struct tp_snapshot *snap,
				  const struct tp_cpuset *only)
{
	struct json_object *o = json_doc();
	struct json_object *domains = json_object_new_array();
	struct json_object *cpus = json_object_new_array();
	const struct column *cols[COLUMNS_MAX];
	size_t n = columns_of(COL_JSON, cols);

	add_header(o, src, snap);
	for (size_t i = 0; i < snap->nr_domains; i++) {
		struct json_object *d = json_object_new_object();
		add(d, "id", json_object_new_int(snap->domains[i].id));
		add(d, "name", jstr(snap->domains[i].name));
		json_object_array_add(domains, d);
	}
	add(o, "domains", domains);
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		const struct tp_cpu *c = &snap->cpus[i];
		if (only && !tp_cpuset_has(only, c->cpu))
			continue;
		struct json_object *j = json_object_new_object();
		for (size_t k = 0; k < n; k++)
			add(j, cols[k]->json_key, json_column(cols[k], snap, c));
		json_object_array_add(cpus, j);
	}
	add(o, "cpus", cpus);
	return o;
}

struct json_object *json_backends(const struct tp_backend_info *b, size_t n)
{
	struct json_object *o = json_doc();
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *j = json_object_new_object();
		/* A backend whose plugin says it has no parameter has no decay, not 0 ms. */
		bool param = !b[i].has_plugin || b[i].decay_max_ms > 0;
		add(j, "name", json_object_new_string(b[i].name));
		add(j, "active", json_object_new_boolean(b[i].active));
		add(j, "has_plugin", json_object_new_boolean(b[i].has_plugin));
		add(j, "summary", jstr(b[i].summary));
		add(j, "decay_ms", param ? jint(b[i].decay_ms) : NULL);
		add(j, "decay_min_ms", b[i].decay_max_ms ? json_object_new_int64(b[i].decay_min_ms) : NULL);
		add(j, "decay_max_ms", b[i].decay_max_ms ? json_object_new_int64(b[i].decay_max_ms) : NULL);
		add(j, "decay_default_ms",
		    b[i].decay_max_ms ? json_object_new_int64(b[i].decay_default_ms) : NULL);
		json_object_array_add(arr, j);
	}
	add(o, "backends", arr);
	return o;
}

struct json_object *json_status(const struct tp_source *src, const struct tp_snapshot *snap)
{
	struct json_object *o = json_doc();
	struct json_object *capped = json_object_new_array();
	struct json_object *online = json_object_new_array();
	struct json_object *warnings = json_object_new_array();
	const struct tp_plugin_set *set = tp_source_plugins(src);
	struct tp_source_info info;

	tp_source_info(src, &info, NULL);	/* the interface version never fails */
	add_header(o, src, snap);
	add(o, "interface_version", jint(info.abi_version));
	add(o, "nr_cpus", json_object_new_int64((int64_t)snap->nr_cpus));
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		if (snap->cpus[i].online == 1)
			json_object_array_add(online, json_object_new_int(snap->cpus[i].cpu));
		if (tp_cpu_capped(&snap->cpus[i]) == 1)
			json_object_array_add(capped, json_object_new_int(snap->cpus[i].cpu));
	}
	add(o, "online_cpus", online);
	add(o, "capped_cpus", capped);
	for (size_t i = 0; set && i < tp_plugins_warning_count(set); i++)
		json_object_array_add(warnings, json_object_new_string(tp_plugins_warning(set, i)));
	add(o, "plugin_warnings", warnings);
	return o;
}

static const char *model_name(enum tp_stock_model m)
{
	switch (m) {
	case TP_STOCK_MODEL_THERMAL_PELT:
		return "thermal_pelt";
	case TP_STOCK_MODEL_CPUFREQ_HW:
		return "cpufreq_hw";
	case TP_STOCK_MODEL_CPUFREQ:
		return "cpufreq";
	default:
		return "none";
	}
}

static struct json_object *jtrace(int v)
{
	return jbool3(v);
}

/* A thermal zone: its temperature and trip points (tp_thermal_read). */
static struct json_object *json_zone(const struct tp_thermal_zone *z)
{
	struct json_object *j = json_object_new_object();
	struct json_object *trips = json_object_new_array();

	add(j, "id", json_object_new_int(z->id));
	add(j, "type", jstr(z->type));
	add(j, "temp_mc", jint(z->temp_mc));
	for (size_t k = 0; k < z->nr_trips; k++) {
		struct json_object *t = json_object_new_object();
		add(t, "type", jstr(z->trips[k].type));
		add(t, "temp_mc", jint(z->trips[k].temp_mc));
		add(t, "hyst_mc", jint(z->trips[k].hyst_mc));
		json_object_array_add(trips, t);
	}
	add(j, "trips", trips);
	add(j, "trips_left_out", json_object_new_boolean(z->trips_left_out));
	return j;
}

/* A cooling device: its state, and the frequency it caps its domain to. */
static struct json_object *json_cooling_device(const struct tp_thermal_cooling *c)
{
	struct json_object *j = json_object_new_object();

	add(j, "id", json_object_new_int(c->id));
	add(j, "type", jstr(c->type));
	add(j, "domain_id", jint(c->domain));
	add(j, "cur_state", jint(c->cur_state));
	add(j, "max_state", jint(c->max_state));
	add(j, "cap_khz", jint(c->cap_khz));
	return j;
}

/*
 * th's zones and cooling devices as o's thermal_zones and cooling_devices, the same
 * objects at the top level and in stock, which lists only the cooling devices that cap a
 * domain (cpufreq_only).  th NULL: none, two empty arrays.
 */
static void add_thermal(struct json_object *o, const struct tp_thermal *th, bool cpufreq_only)
{
	static const struct tp_thermal none;
	struct json_object *zones = json_object_new_array();
	struct json_object *cooling = json_object_new_array();

	if (!th)
		th = &none;
	for (size_t i = 0; i < th->nr_zones; i++)
		json_object_array_add(zones, json_zone(&th->zones[i]));
	for (size_t i = 0; i < th->nr_cooling; i++)
		if (!cpufreq_only || th->cooling[i].domain != TP_NONE)
			json_object_array_add(cooling, json_cooling_device(&th->cooling[i]));
	add(o, "thermal_zones", zones);
	add(o, "cooling_devices", cooling);
}

static struct json_object *json_stock(const struct tp_stock_info *info, const struct tp_thermal *th)
{
	struct json_object *o = json_object_new_object();
	struct json_object *notes = json_object_new_array();
	struct json_object *trace = json_object_new_object();

	add(o, "release", jstr(info->release));
	add(o, "arch", jstr(info->arch));
	add(o, "model", json_object_new_string(model_name(info->model)));
	add(o, "model_text", jstr(info->model_text));
	add(o, "version_sublevel", info->version_sublevel == TP_NONE ? NULL :
	    json_object_new_int(info->version_sublevel));
	add(o, "config_file", jstr(info->config_file));
	add(o, "reference_rule", jstr(info->reference_rule));
	add(o, "reference", jstr(info->reference));
	add(o, "reference_assumed", json_object_new_boolean(info->reference_assumed));
	add(o, "decay_shift", info->decay_shift == TP_NONE ? NULL : json_object_new_int(info->decay_shift));
	add(o, "decay_shift_from_cmdline", json_object_new_boolean(info->decay_shift_from_cmdline));
	add(o, "has_cpufreq", json_object_new_boolean(info->has_cpufreq));
	add(o, "has_cpu_capacity", json_object_new_boolean(info->has_cpu_capacity));
	add(o, "uses_libcpupower", json_object_new_boolean(info->uses_libcpupower));
	add_thermal(o, th, true);
	add(trace, "thermal_pressure_update", jtrace(info->trace_thermal_pressure));
	add(trace, "hw_pressure_update", jtrace(info->trace_hw_pressure));
	add(trace, "events_dir", jstr(info->tracefs));
	add(o, "trace_events", trace);
	add(o, "kernel_avg_read", json_object_new_boolean(info->kernel_avg_read));
	add(o, "kernel_avg", jstr(info->kernel_avg));
	add(o, "cap_method", json_object_new_string(tp_stock_cap_method_name(info->cap_method)));
	add(o, "state_file", jstr(info->state_file));
	add(o, "nr_pending", json_object_new_int64((int64_t)info->nr_pending));
	add(o, "nr_pending_scaling", json_object_new_int64((int64_t)info->nr_pending_scaling));
	add(o, "nr_pending_cooling", json_object_new_int64((int64_t)info->nr_pending_cooling));
	for (size_t i = 0; i < info->nr_notes; i++)
		json_object_array_add(notes, json_object_new_string(info->notes[i]));
	add(o, "notes", notes);
	return o;
}

/*
 * The source's thermal zones and cooling devices (tp_thermal_read, for every source
 * that has some) and a stock kernel's description, added to obj, which is printed.
 */
int out_json_stock(struct cmd_ctx *ctx, struct json_object *obj)
{
	struct tp_stock_info info;
	struct tp_thermal th;
	struct tp_error err = { 0 };
	int rc = tp_thermal_read(ctx->src, &th, &err);
	bool have_th = rc == 0;

	if (rc < 0 && rc != -ENOTSUP)
		goto fail;
	if (have_th && (th.nr_zones || th.nr_cooling))
		add_thermal(obj, &th, false);
	/* a stock kernel's description; other sources have none (-ENOTSUP) */
	rc = tp_stock_describe(ctx->src, &info, &err);
	if (rc != -ENOTSUP) {
		if (rc < 0)
			goto fail;
		add(obj, "stock", json_stock(&info, have_th ? &th : NULL));
		tp_stock_info_release(&info);
	}
	tp_thermal_release(&th);
	out_json(ctx, obj);
	return 0;
fail:
	tp_thermal_release(&th);
	json_object_put(obj);
	return cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg[0] ? err.msg : strerror(-rc));
}

/* json-c writes the bytes of a string as they are; every string is written by tp_text_json. */
static int json_text_serializer(struct json_object *jso, struct printbuf *pb, int level,
				int flags)
{
	size_t n;
	char *text = tp_text_json_dup(json_object_get_string(jso),
				      (size_t)json_object_get_string_len(jso), &n);

	if (!text)
		return -1;
	printbuf_memappend(pb, text, (int)n);
	free(text);
	return 0;
}

static void json_text_strings(struct json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_string:
		json_object_set_serializer(o, json_text_serializer, NULL, NULL);
		break;
	case json_type_object: {
		json_object_object_foreach(o, key, val) {
			(void)key;
			json_text_strings(val);
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			json_text_strings(json_object_array_get_idx(o, i));
		break;
	default:
		break;
	}
}

/*
 * Strings come from sysfs, plugins and files and may hold any bytes: the document
 * is valid UTF-8 with no raw control character (docs/json.md, "Strings").  Keys are
 * ours (ASCII).
 */
void out_json(struct cmd_ctx *ctx, struct json_object *obj)
{
	json_text_strings(obj);
	const char *text = json_object_to_json_string_ext(obj,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	out_printf(ctx, "%s\n", text ? text : "null");
	json_object_put(obj);
}
