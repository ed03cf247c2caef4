/* SPDX-License-Identifier: MIT */
/* replay: a trace or a cap profile through several backends (docs/experiments.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <thermpress/experiment.h>
#include <thermpress/outfile.h>

#include "exp_util.h"

#define DEFAULT_BACKENDS "instant,pelt:32,pelt:128,decay:125,decay:250,decay:500"
#define PROFILE_START_NS 10000000000ull	/* the simulator's t0 */
#define PROFILE_TAIL_NS 1000000000ull
#define USAGE "replay FILE [--backends LIST] [--hz N] [-o OUT.csv] [--plot FILE.svg] " \
	      "[--plot-cpu N] [--json]"

struct series {
	size_t n, alloc;
	uint64_t *t;
	int64_t *v;
};

struct collect {
	struct tp_replay_csv csv;
	bool csv_on;
	int plot_cpu;
	struct series *s;	/* one per backend */
};

static int series_add(struct series *s, uint64_t t, int64_t v)
{
	if (s->n == s->alloc) {
		size_t na = s->alloc ? s->alloc * 2 : 1024;
		uint64_t *nt = realloc(s->t, na * sizeof(*nt));
		int64_t *nv;

		if (!nt)
			return -ENOMEM;
		s->t = nt;
		nv = realloc(s->v, na * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->alloc = na;
	}
	s->t[s->n] = t;
	s->v[s->n++] = v;
	return 0;
}

static int on_point(void *arg, size_t b, const struct tp_replay_point *pt)
{
	struct collect *c = arg;
	int rc;

	if (c->csv_on && (rc = tp_replay_csv_row(&c->csv, b, pt)))
		return rc;
	if (c->s && pt->cpu == c->plot_cpu)
		return series_add(&c->s[b], pt->time_ns, (int64_t)pt->avg_pressure);
	return 0;
}

/* The CPU to plot: the first whose pressure changes, else the first. */
static int pick_plot_cpu(const struct tp_trace *t)
{
	for (size_t i = 0; i < t->nr_rows; i++)
		for (size_t j = i + 1; j < t->nr_rows; j++)
			if (t->rows[j].cpu == t->rows[i].cpu) {
				if (t->rows[j].pressure != t->rows[i].pressure)
					return t->rows[i].cpu;
				break;
			}
	return t->nr_rows ? t->rows[0].cpu : 0;
}

static const char *exact_text(const struct tp_replay_summary *s, char *buf, size_t len)
{
	if (s->exact < 0)
		return "-";
	if (s->exact)
		return "yes";
	snprintf(buf, len, "no (cpu %d at %" PRIu64 ")", s->mismatch_cpu, s->mismatch_time_ns);
	return buf;
}

static void print_table(struct cmd_ctx *ctx, const char *file, const struct tp_trace *t,
			bool profile, int hz, const struct tp_replay_backend *b, size_t nb,
			const struct tp_replay_summary *s)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	char buf[96];

	for (size_t i = 0; i < t->nr_rows; i++) {
		if (t->rows[i].time_ns < t0)
			t0 = t->rows[i].time_ns;
		if (t->rows[i].time_ns > t1)
			t1 = t->rows[i].time_ns;
	}
	out_printf(ctx, "%s %s: %zu rows, %.3f s at %d Hz; pressure %.3f capacity-s\n",
		   profile ? "profile" : "trace", file, t->nr_rows, (double)(t1 - t0) / 1e9, hz,
		   s[0].pressure_s);
	out_printf(ctx, "%-12s %8s %6s %9s %9s %6s %12s  %s\n", "BACKEND", "MAD", "STEPS",
		   "T50(ms)", "T90(ms)", "NOT90", "CAP-S LOST", "EXACT");
	for (size_t i = 0; i < nb; i++) {
		char t50[32] = "-", t90[32] = "-";

		/* a mean over no step does not exist */
		if (s[i].reached50)
			snprintf(t50, sizeof(t50), "%.1f", s[i].t50_ms);
		if (s[i].reached90)
			snprintf(t90, sizeof(t90), "%.1f", s[i].t90_ms);
		out_printf(ctx, "%-12s %8.2f %6zu %9s %9s %6zu %12.3f  %s\n", b[i].label,
			   s[i].mad, s[i].steps, t50, t90, s[i].steps - s[i].reached90,
			   s[i].capacity_s_lost, exact_text(&s[i], buf, sizeof(buf)));
	}
}

static struct json_object *json_summary(const char *file, bool profile, int hz,
					const struct tp_trace *t,
					const struct tp_replay_backend *b, size_t nb,
					const struct tp_replay_summary *s)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, "schema_version", json_object_new_int(JSON_SCHEMA_VERSION));
	json_object_object_add(o, "input", json_object_new_string(file));
	json_object_object_add(o, "kind", json_object_new_string(profile ? "profile" : "trace"));
	json_object_object_add(o, "rows", json_object_new_uint64(t->nr_rows));
	json_object_object_add(o, "hz", json_object_new_int(hz));
	json_object_object_add(o, "pressure_capacity_s", json_object_new_double(s[0].pressure_s));
	for (size_t i = 0; i < nb; i++) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "backend", json_object_new_string(b[i].ops->name));
		json_object_object_add(j, "decay_ms", b[i].ops->decay_max_ms ?
				       json_object_new_int64(b[i].decay_ms) : NULL);
		json_object_object_add(j, "label", json_object_new_string(b[i].label));
		json_object_object_add(j, "updates", json_object_new_uint64(s[i].updates));
		json_object_object_add(j, "ticks", json_object_new_uint64(s[i].ticks));
		json_object_object_add(j, "mad", json_object_new_double(s[i].mad));
		json_object_object_add(j, "steps", json_object_new_uint64(s[i].steps));
		json_object_object_add(j, "reached50", json_object_new_uint64(s[i].reached50));
		json_object_object_add(j, "reached90", json_object_new_uint64(s[i].reached90));
		json_object_object_add(j, "t50_ms", s[i].reached50 ?
				       json_object_new_double(s[i].t50_ms) : NULL);
		json_object_object_add(j, "t90_ms", s[i].reached90 ?
				       json_object_new_double(s[i].t90_ms) : NULL);
		json_object_object_add(j, "t50_max_ms", s[i].reached50 ?
				       json_object_new_double(s[i].t50_max_ms) : NULL);
		json_object_object_add(j, "t90_max_ms", s[i].reached90 ?
				       json_object_new_double(s[i].t90_max_ms) : NULL);
		json_object_object_add(j, "capacity_s_lost",
				       json_object_new_double(s[i].capacity_s_lost));
		json_object_object_add(j, "exact", s[i].exact < 0 ? NULL :
				       json_object_new_boolean(s[i].exact));
		json_object_object_add(j, "compared", json_object_new_uint64(s[i].compared));
		json_object_array_add(arr, j);
	}
	json_object_object_add(o, "backends", arr);
	return o;
}

static int exec_replay(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *file = NULL, *list = DEFAULT_BACKENDS, *out = NULL, *plot = NULL, *v;
	struct tp_replay_backend b[TP_REPLAY_MAX_BACKENDS];
	struct tp_replay_summary sums[TP_REPLAY_MAX_BACKENDS];
	struct tp_replay_options ro = { 0 };
	struct tp_plugin_set *plugins = NULL;
	struct tp_error err = { 0 };
	struct tp_trace trace = { 0 };
	struct series *series = NULL;
	struct collect col = { 0 };
	struct tp_outfile *csv_of = NULL, *svg_of = NULL;
	FILE *csv = NULL;
	char *text = NULL;
	size_t len = 0, nb = 0;
	int status = 0, rc, plot_cpu = -1;
	bool profile = false;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (cmd_is_option(a, "--backends")) {
			if (!(list = cmd_option_value(ctx, "replay", argc, argv, &i, "--backends",
						      &status)))
				return status;
		} else if (cmd_is_option(a, "--hz")) {
			if (!(v = cmd_option_value(ctx, "replay", argc, argv, &i, "--hz", &status)))
				return status;
			if ((status = parse_sim_hz(ctx, v, &ro.hz)))
				return status;
		} else if (!strcmp(a, "-o") || cmd_is_option(a, "--output")) {
			if (!(out = cmd_option_value(ctx, "replay", argc, argv, &i,
						     a[1] == 'o' ? "-o" : "--output", &status)))
				return status;
		} else if (cmd_is_option(a, "--plot")) {
			if (!(plot = cmd_option_value(ctx, "replay", argc, argv, &i, "--plot",
						      &status)))
				return status;
		} else if (cmd_is_option(a, "--plot-cpu")) {
			int64_t n;

			if (!(v = cmd_option_value(ctx, "replay", argc, argv, &i, "--plot-cpu",
						   &status)))
				return status;
			if (!*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 4 ||
			    (n = atoll(v)) >= TP_MAX_CPUS)
				return cmd_error(ctx, EXIT_USAGE, "replay: invalid cpu '%s' for "
						 "--plot-cpu", v);
			plot_cpu = (int)n;
		} else if (a[0] == '-' && a[1]) {
			return cmd_error(ctx, EXIT_USAGE, "replay: unknown option '%s' (usage: %s)",
					 a, USAGE);
		} else if (file) {
			return cmd_error(ctx, EXIT_USAGE, "replay: unexpected argument '%s' (usage: %s)",
					 a, USAGE);
		} else {
			file = a;
		}
	}
	if (!file)
		return cmd_error(ctx, EXIT_USAGE, "replay: missing FILE (usage: %s)", USAGE);

	/* Everything is read and checked before any output file is created. */
	rc = tp_plugins_load(ctx->opts.plugin_dir, &plugins, &err);
	if (rc < 0)
		return cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg);
	rc = tp_replay_parse_backends(list, plugins, b, TP_REPLAY_MAX_BACKENDS, &nb, &err);
	if (rc < 0) {
		status = cmd_tp_error(ctx, rc, &err);
		goto done;
	}
	if ((status = exp_read_file(ctx, file, &text, &len)))
		goto done;
	profile = !exp_is_trace(text);
	{
		FILE *fp = fmemopen(text, len ? len : 1, "r");

		if (!fp) {
			status = cmd_error(ctx, EXIT_RUNTIME, "cannot read %s: %s", file,
					   strerror(errno));
			goto done;
		}
		if (profile) {
			struct tp_snapshot snap = { 0 };
			struct tp_profile prof;

			if ((status = ctx_snapshot(ctx, &snap))) {
				fclose(fp);
				tp_snapshot_release(&snap);
				goto done;
			}
			if (ro.hz)
				snap.hz = ro.hz;
			rc = tp_profile_read(fp, file, &snap, &prof, &err);
			if (!rc) {
				rc = tp_profile_to_trace(&prof, &snap, PROFILE_START_NS,
							 PROFILE_TAIL_NS, &trace, &err);
				tp_profile_free(&prof);
			}
			tp_snapshot_release(&snap);
		} else {
			rc = tp_trace_read(fp, file, &trace, &err);
		}
		fclose(fp);
	}
	if (rc < 0) {
		status = cmd_tp_error(ctx, rc, &err);
		goto done;
	}
	if (!trace.nr_rows) {
		status = cmd_error(ctx, EXIT_USAGE, "%s: the trace has no samples to replay", file);
		goto done;
	}
	if (!ro.hz)
		ro.hz = trace.meta.hz > 0 ? trace.meta.hz : 250;
	if (plot_cpu < 0)
		plot_cpu = pick_plot_cpu(&trace);
	else {
		bool found = false;

		for (size_t i = 0; i < trace.nr_rows && !found; i++)
			found = trace.rows[i].cpu == plot_cpu;
		if (!found) {
			status = cmd_error(ctx, EXIT_USAGE, "replay: cpu %d is not in %s", plot_cpu,
					   file);
			goto done;
		}
	}

	if (out) {
		if (tp_outfile_open(out, &csv_of, &err)) {
			status = cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg);
			goto done;
		}
		csv = tp_outfile_stream(csv_of);
		fputs(TP_REPLAY_CSV_HEADER "\n", csv);
		col.csv.fp = csv;
		col.csv.backends = b;
		col.csv_on = true;
	}
	if (plot) {
		series = calloc(nb + 1, sizeof(*series));
		if (!series) {
			status = cmd_error(ctx, EXIT_RUNTIME, "out of memory for the plot");
			goto done;
		}
		col.s = series + 1;
		col.plot_cpu = plot_cpu;
	}
	rc = tp_replay_run(&trace, b, nb, &ro, on_point, &col, sums, &err);
	if (rc) {
		status = cmd_error(ctx, EXIT_RUNTIME, "replay: %s", rc == -ENOMEM && !err.msg[0] ?
				   "out of memory" : err.msg);
		goto done;
	}
	if (plot) {
		struct tp_plot_series ps[TP_REPLAY_MAX_BACKENDS + 1];
		char title[128];

		for (size_t i = 0; i < trace.nr_rows; i++)
			if (trace.rows[i].cpu == plot_cpu &&
			    series_add(&series[0], trace.rows[i].time_ns, trace.rows[i].pressure)) {
				status = cmd_error(ctx, EXIT_RUNTIME, "out of memory for the plot");
				goto done;
			}
		ps[0] = (struct tp_plot_series){ "pressure", series[0].n, series[0].t, series[0].v };
		for (size_t i = 0; i < nb; i++)
			ps[i + 1] = (struct tp_plot_series){ b[i].label, series[i + 1].n,
							     series[i + 1].t, series[i + 1].v };
		snprintf(title, sizeof(title), "thermal pressure of cpu %d, replayed at %d Hz",
			 plot_cpu, ro.hz);
		if (tp_outfile_open(plot, &svg_of, &err)) {
			status = cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg);
			goto done;
		}
		rc = tp_plot_svg(tp_outfile_stream(svg_of), title, ps, nb + 1, &err);
		if (rc) {
			status = cmd_error(ctx, EXIT_RUNTIME, "write error on %s", plot);
			goto done;
		}
	}
	/* both outputs complete: put them into place */
	if (csv_of) {
		rc = tp_outfile_commit(csv_of, &err);
		csv_of = NULL;
		if (rc) {
			status = cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg);
			goto done;
		}
	}
	if (svg_of) {
		rc = tp_outfile_commit(svg_of, &err);
		svg_of = NULL;
		if (rc) {
			status = cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg);
			goto done;
		}
	}
	if (ctx->cmd_json)
		out_json(ctx, json_summary(file, profile, ro.hz, &trace, b, nb, sums));
	else if (csv != stdout)
		print_table(ctx, file, &trace, profile, ro.hz, b, nb, sums);
done:
	/* a failed run leaves the output paths as they were */
	tp_outfile_discard(csv_of);
	tp_outfile_discard(svg_of);
	if (series) {
		for (size_t i = 0; i <= nb; i++) {
			free(series[i].t);
			free(series[i].v);
		}
		free(series);
	}
	tp_trace_free(&trace);
	free(text);
	tp_plugins_free(plugins);
	return status;
}

static void complete_replay(struct cmd_ctx *ctx, int argc, char **argv, struct cmd_cands *out)
{
	(void)ctx;
	if (argc && !strcmp(argv[argc - 1], "--hz")) {
		cands_add(out, "100");
		cands_add(out, "250");
		cands_add(out, "1000");
		return;
	}
	if (argc && !strcmp(argv[argc - 1], "--backends")) {
		cands_add(out, DEFAULT_BACKENDS);
		return;
	}
	cands_add(out, "--backends");
	cands_add(out, "--hz");
	cands_add(out, "-o");
	cands_add(out, "--plot");
	cands_add(out, "--plot-cpu");
}

const struct cmd_entry cmd_replay_entry = {
	.path = "replay",
	.args = "FILE [--backends LIST] [--hz N] [-o OUT.csv] [--plot FILE.svg] [--plot-cpu N]",
	.summary = "replay a trace or a cap profile through several backends",
	.help = "Feeds the pressure timeline of FILE through each backend of LIST (default "
		DEFAULT_BACKENDS ") as the kernel tick would, at --hz (default: the trace's, "
		"else 250).  FILE is a trace written by record (CSV or JSON lines) or a cap "
		"profile (lines of TIME, CPULIST, VALUE, replayed on the current source's "
		"topology, from a fresh state, for 1 s after its last line).  Prints one line "
		"per backend: the mean absolute deviation from the instantaneous pressure at the "
		"ticks, the steps, the mean time to 50 % and 90 % of each step, the steps that "
		"never reached 90 %, the capacity-seconds lost, and whether the trace's own "
		"averages were reproduced exactly (for the trace's backend, when it records "
		"where its state starts).  -o writes every update as CSV (time_ns, cpu, backend, "
		"decay_ms, pressure, avg_pressure); --plot draws the pressure of one CPU "
		"(--plot-cpu, default the first whose pressure changes) and each backend's "
		"average as a self-contained SVG.  See docs/experiments.md.",
	.min_args = 1, .max_args = -1,
	.flags = CMD_JSON,
	.exec = exec_replay,
	.complete = complete_replay,
};
