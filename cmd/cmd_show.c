/* SPDX-License-Identifier: MIT */
/* show, show cpu, show backends, show status. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <thermpress/stock.h>

#include "columns.h"
#include "commands.h"
#include "fmt.h"

static void print_header(struct cmd_ctx *ctx, const struct tp_snapshot *snap)
{
	char decay[32], hz[32], t[48];

	out_printf(ctx, "source: %s  backend: %s  decay: %s  hz: %s  time: %s\n",
		   tp_source_describe(ctx->src), snap->backend[0] ? snap->backend : FMT_NONE,
		   fmt_decay(decay, sizeof(decay), snap->decay_ms),
		   fmt_value(hz, sizeof(hz), snap->hz), fmt_time(t, sizeof(t), snap->time_ns));
}

/* Each column's width: its own, or for a column that fits, its widest value's. */
static void column_widths(const struct column **cols, size_t n, int *width,
			  const struct tp_snapshot *snap)
{
	char buf[64];

	for (size_t k = 0; k < n; k++) {
		width[k] = cols[k]->show.width;
		for (size_t i = 0; cols[k]->show.fit && i < snap->nr_cpus; i++) {
			int l = (int)strlen(column_format(cols[k], buf, sizeof(buf), snap, &snap->cpus[i]));
			if (l > width[k])
				width[k] = l;
		}
	}
}

/*
 * One line of the table: the cells two spaces apart, each padded as its column aligns,
 * printed whole (the shell's filters, | include, take what one call prints as a line).
 */
static void print_cells(struct cmd_ctx *ctx, const struct column **cols, size_t n,
			const int *width, const char *const *cell)
{
	char line[COLUMNS_MAX * 80];
	size_t at = 0;

	for (size_t k = 0; k < n && at < sizeof(line); k++) {
		int len = snprintf(line + at, sizeof(line) - at, "%s%*s", k ? "  " : "",
				   cols[k]->show.left ? -width[k] : width[k], cell[k]);
		at += len > 0 ? (size_t)len : 0;
	}
	out_printf(ctx, "%s\n", line);
}

/* One line per CPU, its columns as the column table has them (fmt/columns.c). */
static void print_table(struct cmd_ctx *ctx, const struct tp_snapshot *snap,
			const struct tp_cpuset *only)
{
	const struct column *cols[COLUMNS_MAX];
	size_t n = columns_of(COL_SHOW, cols);
	int width[COLUMNS_MAX];
	const char *cell[COLUMNS_MAX];
	char buf[COLUMNS_MAX][64];
	bool estimated = false;

	column_widths(cols, n, width, snap);
	print_header(ctx, snap);
	/* one word per column, as docs/values.md names it: awk sees as many fields as in a row */
	for (size_t k = 0; k < n; k++)
		cell[k] = cols[k]->show.header;
	print_cells(ctx, cols, n, width, cell);
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		const struct tp_cpu *c = &snap->cpus[i];
		if (only && !tp_cpuset_has(only, c->cpu))
			continue;
		estimated |= c->avg_estimated && c->avg_pressure != TP_NONE;
		for (size_t k = 0; k < n; k++)
			cell[k] = column_format(cols[k], buf[k], sizeof(buf[k]), snap, c);
		print_cells(ctx, cols, n, width, cell);
	}
	if (estimated)
		out_printf(ctx, "%s\n", FMT_ESTIMATE_NOTE);
}

static const char *trace_word(int v)
{
	return v == 1 ? "present" : v == 0 ? "absent" : "unknown";
}

/*
 * Describe a stock source (*have false on another source, which has no such
 * description); 0, or an exit status (reported).
 */
static int stock_describe(struct cmd_ctx *ctx, struct tp_stock_info *info, bool *have)
{
	struct tp_error err = { 0 };
	int rc = tp_stock_describe(ctx->src, info, &err);

	*have = rc != -ENOTSUP;
	if (rc == -ENOTSUP)
		return 0;
	if (rc < 0) {
		tp_stock_info_release(info);
		return cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg[0] ? err.msg : strerror(-rc));
	}
	return 0;
}

/* After the table on a stock source: what is missing, and what the kernel does. */
static int print_stock_notes(struct cmd_ctx *ctx)
{
	struct tp_stock_info info;
	bool have;
	int rc = stock_describe(ctx, &info, &have);

	if (rc || !have)
		return rc;
	for (size_t i = 0; i < info.nr_notes; i++)
		out_printf(ctx, "note: %s\n", info.notes[i]);
	if (info.kernel_avg[0])
		out_printf(ctx, "kernel average: %s\n", info.kernel_avg);
	if (info.model_text[0])
		out_printf(ctx, "kernel: %s\n", info.model_text);
	tp_stock_info_release(&info);
	return 0;
}

/*
 * The method of the caps in force (the state file's records), which a process that
 * capped with --via cooling leaves behind; the default for the next cap otherwise.
 */
static void print_cap_method(struct cmd_ctx *ctx, const struct tp_stock_info *info)
{
	const char *next = tp_stock_cap_method_name(info->cap_method);

	if (info->nr_pending_scaling && info->nr_pending_cooling)
		out_printf(ctx, "cap method:        scaling_max_freq (%zu) and cooling (%zu) in force; next cap: %s\n",
			   info->nr_pending_scaling, info->nr_pending_cooling, next);
	else if (info->nr_pending_scaling || info->nr_pending_cooling)
		out_printf(ctx, "cap method:        %s in force (%zu); next cap: %s\n",
			   info->nr_pending_cooling ? "cooling" : "scaling_max_freq",
			   info->nr_pending_scaling + info->nr_pending_cooling, next);
	else
		out_printf(ctx, "cap method:        %s (no cap in force)\n", next);
}

/*
 * The pending line of show status.  Damaged records were left out of nr: say how many,
 * and that the caps they held are unknown, never "none" (docs/state.md).
 */
static void print_pending(struct cmd_ctx *ctx, size_t nr)
{
	struct tp_pending pend = { 0 };
	char damaged[200] = "";

	if (tp_pending(ctx->src, &pend, NULL) == 0 && pend.skipped)
		snprintf(damaged, sizeof(damaged), "%s%zu damaged record%s left out: the caps %s "
			 "held are unknown (check them by hand; 'thermpress cap restore' removes %s)",
			 nr ? "; " : "", pend.skipped, pend.skipped == 1 ? " was" : "s were",
			 pend.skipped == 1 ? "it" : "they", pend.skipped == 1 ? "it" : "them");
	if (nr)
		out_printf(ctx, "pending:           %zu limit%s pending (run 'thermpress cap restore')%s\n",
			   nr, nr == 1 ? "" : "s", damaged);
	else
		out_printf(ctx, "pending:           %s\n", damaged[0] ? damaged : "none");
}

/* One line per zone and per cpufreq cooling device (tp_thermal_read), as show status has them. */
static void print_thermal(struct cmd_ctx *ctx, const struct tp_thermal *th)
{
	char t[32], buf[64], cur[24], max[24];
	size_t ncool = 0;

	if (!th->nr_zones)
		out_printf(ctx, "thermal zones:     none\n");
	for (size_t i = 0; i < th->nr_zones; i++) {
		const struct tp_thermal_zone *z = &th->zones[i];
		out_printf(ctx, "thermal zone:      thermal_zone%d %s %s, trips:", z->id,
			   z->type[0] ? z->type : FMT_NONE, fmt_temp(t, sizeof(t), z->temp_mc));
		if (!z->nr_trips)
			out_printf(ctx, " none");
		for (size_t j = 0; j < z->nr_trips; j++)
			out_printf(ctx, "%s %s %s", j ? "," : "",
				   z->trips[j].type[0] ? z->trips[j].type : FMT_NONE,
				   fmt_temp(t, sizeof(t), z->trips[j].temp_mc));
		if (z->trips_left_out)
			out_printf(ctx, ", and more not read (at most %d)", TP_THERMAL_MAX_TRIPS);
		out_printf(ctx, "\n");
	}
	for (size_t i = 0; i < th->nr_cooling; i++) {
		const struct tp_thermal_cooling *c = &th->cooling[i];
		if (c->domain == TP_NONE)
			continue;
		ncool++;
		out_printf(ctx, "cooling device:    cooling_device%d %s (policy%d) state %s/%s -> cap %s MHz\n",
			   c->id, c->type[0] ? c->type : FMT_NONE, c->domain,
			   fmt_value(cur, sizeof(cur), c->cur_state),
			   fmt_value(max, sizeof(max), c->max_state),
			   fmt_mhz(buf, sizeof(buf), c->cap_khz));
	}
	if (!ncool)
		out_printf(ctx, "cooling device:    none (no cpufreq cooling device)\n");
}

/* The stock-kernel part of show status, th (the zones) in it. */
static int print_stock_status(struct cmd_ctx *ctx, const struct tp_thermal *th)
{
	struct tp_stock_info info;
	bool have;
	int rc = stock_describe(ctx, &info, &have);

	if (rc || !have)
		return rc;
	out_printf(ctx, "kernel:            %s (%s)\n", info.release[0] ? info.release : FMT_NONE,
		   info.arch[0] ? info.arch : FMT_NONE);
	out_printf(ctx, "kernel model:      %s\n", info.model_text[0] ? info.model_text : FMT_NONE);
	out_printf(ctx, "reference freq:    kernel: %s; thermpress: %s\n",
		   info.reference_rule[0] ? info.reference_rule : FMT_NONE,
		   info.reference[0] ? info.reference : FMT_NONE);
	out_printf(ctx, "kernel config:     %s\n", info.config_file[0] ? info.config_file : FMT_NONE);
	if (info.decay_shift == TP_NONE)
		out_printf(ctx, "decay shift:       %s (not used by this kernel%s)\n", FMT_NONE,
			   info.decay_shift_from_cmdline ?
			   "; sched_thermal_decay_shift= on /proc/cmdline is ignored" : "");
	else
		out_printf(ctx, "decay shift:       %d (%s)\n", info.decay_shift,
			   info.decay_shift_from_cmdline ?
			   "sched_thermal_decay_shift= on /proc/cmdline" : "default, not on /proc/cmdline");
	print_thermal(ctx, th);
	out_printf(ctx, "tracefs:           thermal_pressure_update %s, hw_pressure_update %s%s%s\n",
		   trace_word(info.trace_thermal_pressure), trace_word(info.trace_hw_pressure),
		   info.tracefs[0] ? " in " : " (tracefs not readable)", info.tracefs);
	out_printf(ctx, "kernel average:    %s\n", info.kernel_avg[0] ? info.kernel_avg : FMT_NONE);
	print_cap_method(ctx, &info);
	out_printf(ctx, "state file:        %s\n", info.state_file[0] ? info.state_file : FMT_NONE);
	print_pending(ctx, info.nr_pending);
	for (size_t i = 0; i < info.nr_notes; i++)
		out_printf(ctx, "note:              %s\n", info.notes[i]);
	tp_stock_info_release(&info);
	return 0;
}

static int exec_show(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	int rc = ctx_snapshot(ctx, &snap);

	if (!rc) {
		if (ctx->cmd_json) {
			rc = out_json_stock(ctx, json_snapshot(ctx->src, &snap, NULL));
		} else {
			print_table(ctx, &snap, NULL);
			rc = print_stock_notes(ctx);
		}
	}
	tp_snapshot_release(&snap);
	return rc;
}

static int exec_show_cpu(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_error err = { 0 };
	static struct tp_cpuset set;
	int rc = ctx_snapshot(ctx, &snap);

	if (rc)
		goto out;
	rc = tp_parse_cpulist(args->pos[0].text, &snap, &set, &err);
	if (rc < 0) {
		rc = cmd_usage_tp_error(ctx, rc, &err);
		goto out;
	}
	if (ctx->cmd_json) {
		rc = out_json_stock(ctx, json_snapshot(ctx->src, &snap, &set));
	} else {
		print_table(ctx, &snap, &set);
		rc = print_stock_notes(ctx);
	}
out:
	tp_snapshot_release(&snap);
	return rc;
}

static int exec_show_backends(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_backend_info b[TP_MAX_BACKENDS];
	struct tp_error err = { 0 };
	struct tp_source *src = ctx_source(ctx);
	size_t n = 0;
	int rc;

	if (!src)
		return ctx->status;
	memset(b, 0, sizeof(b));
	rc = tp_backend_list(src, b, TP_MAX_BACKENDS, &n, &err);
	if (rc < 0)
		return cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg[0] ? err.msg : strerror(-rc));
	if (ctx->cmd_json) {
		out_json(ctx, json_backends(b, n));
		return 0;
	}
	out_printf(ctx, "%-10s  %-6s  %-8s  %-14s  %-6s  %s\n", "BACKEND", "ACTIVE", "DECAY",
		   "RANGE", "PLUGIN", "SUMMARY");
	for (size_t i = 0; i < n; i++) {
		char decay[32], range[48];
		/* a plugin without a decay range says the backend has no decay period */
		bool param = !b[i].has_plugin || b[i].decay_max_ms > 0;
		if (b[i].decay_max_ms)
			snprintf(range, sizeof(range), "%u-%u ms", b[i].decay_min_ms, b[i].decay_max_ms);
		else
			snprintf(range, sizeof(range), "%s", FMT_NONE);
		out_printf(ctx, "%-10s  %-6s  %-8s  %-14s  %-6s  %s\n", b[i].name,
			   b[i].active ? "yes" : "no",
			   fmt_decay(decay, sizeof(decay), param ? b[i].decay_ms : 0), range,
			   b[i].has_plugin ? "yes" : "no", b[i].summary[0] ? b[i].summary : FMT_NONE);
	}
	return 0;
}

/*
 * The zones and cooling devices, for every source that has some: inside the stock
 * kernel's part, else after the rest.  0, or an exit status (reported).
 */
static int print_status_thermal(struct cmd_ctx *ctx)
{
	struct tp_thermal th;
	struct tp_error err = { 0 };
	int rc = tp_thermal_read(ctx->src, &th, &err);

	if (rc < 0 && rc != -ENOTSUP) {
		tp_thermal_release(&th);
		return cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg[0] ? err.msg : strerror(-rc));
	}
	if (tp_source_kind(ctx->src) == TP_SOURCE_STOCK)
		rc = print_stock_status(ctx, &th);
	else if (rc == 0 && (th.nr_zones || th.nr_cooling))
		print_thermal(ctx, &th);
	tp_thermal_release(&th);
	return rc < 0 ? 0 : rc;
}

static int exec_show_status(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	static struct tp_cpuset online, capped;
	char decay[32], hz[32], t[48], iv[24], on[256], cp[256];
	int rc = ctx_snapshot(ctx, &snap);

	if (rc)
		goto out;
	if (ctx->cmd_json) {
		rc = out_json_stock(ctx, json_status(ctx->src, &snap));
		goto out;
	}
	tp_cpuset_zero(&online);
	tp_cpuset_zero(&capped);
	for (size_t i = 0; i < snap.nr_cpus; i++) {
		const struct tp_cpu *c = &snap.cpus[i];
		if (c->online == 1)
			tp_cpuset_add(&online, c->cpu);
		if (tp_cpu_capped(c) == 1)
			tp_cpuset_add(&capped, c->cpu);
	}
	tp_cpuset_format(&online, on, sizeof(on));
	tp_cpuset_format(&capped, cp, sizeof(cp));
	struct tp_source_info info;
	tp_source_info(ctx->src, &info, NULL);	/* the interface version never fails */
	out_printf(ctx, "source:            %s\n", info.description);
	out_printf(ctx, "interface version: %s\n", fmt_value(iv, sizeof(iv), info.abi_version));
	out_printf(ctx, "backend:           %s\n", snap.backend[0] ? snap.backend : FMT_NONE);
	out_printf(ctx, "decay:             %s\n", fmt_decay(decay, sizeof(decay), snap.decay_ms));
	out_printf(ctx, "hz:                %s\n", fmt_value(hz, sizeof(hz), snap.hz));
	out_printf(ctx, "time:              %s\n", fmt_time(t, sizeof(t), snap.time_ns));
	out_printf(ctx, "cpus:              %zu (online: %s)\n", snap.nr_cpus, on[0] ? on : "none");
	out_printf(ctx, "capped cpus:       %s\n", cp[0] ? cp : "none");
	const struct tp_plugin_set *set = tp_source_plugins(ctx->src);
	size_t nw = set ? tp_plugins_warning_count(set) : 0;
	if (!nw)
		out_printf(ctx, "plugin warnings:   none\n");
	for (size_t i = 0; i < nw; i++)
		out_printf(ctx, "plugin warning:    %s\n", tp_plugins_warning(set, i));
	rc = print_status_thermal(ctx);
out:
	tp_snapshot_release(&snap);
	return rc;
}

static const struct cmd_arg show_cpu_pos[] = {
	CMD_POS_CPULIST,
	{ 0 },
};

const struct cmd_entry cmd_show_entry = {
	.path = "show",
	.summary = "show every CPU's capacity and thermal pressure",
	.help = "Shows one line per CPU: its number, frequency domain, online state, the capacity "
		"the scheduler uses, its capacity at the top frequency, the capped and the top "
		"frequency in MHz to the kHz (1844, 1209.6, 1197.403), the lowest frequency it "
		"runs at where the source knows it, the instantaneous thermal "
		"pressure and the averaged pressure the active backend gives (marked ~ when "
		"thermpress estimated it because the source does not report it).  A header line "
		"gives the source, the backend, its decay period (none for a backend without one, "
		"such as instant), the tick rate and the source's clock in seconds.  A value that "
		"does not exist is shown as -.  top writes every value the same way "
		"(docs/values.md).",
	.flags = CMD_JSON,
	.exec = exec_show,
};

const struct cmd_entry cmd_show_cpu_entry = {
	.path = "show cpu",
	.pos = show_cpu_pos,
	.summary = "show the listed CPUs only",
	.help = "Like show, for the CPUs of CPULIST only: a list such as 0-3,6, all, or a "
		"frequency domain name such as big where the topology has names.",
	.flags = CMD_JSON,
	.exec = exec_show_cpu,
};

const struct cmd_entry cmd_show_backends_entry = {
	.path = "show backends",
	.summary = "list the averaging backends",
	.help = "Lists the averaging backends the source offers: name, whether it is active, the "
		"decay period in force, the range of decay periods it accepts, whether a "
		"thermpress plugin implements it, and its summary.",
	.flags = CMD_JSON,
	.exec = exec_show_backends,
};

const struct cmd_entry cmd_show_status_entry = {
	.path = "show status",
	.summary = "show the source, backend, decay period and capped CPUs",
	.help = "Shows the source thermpress reads, the interface version, the active backend and "
		"its decay period, the tick rate, the clock, the online and capped CPUs, and any "
		"warnings from loading the backend plugins.",
	.flags = CMD_JSON,
	.exec = exec_show_status,
};
