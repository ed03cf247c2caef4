/* SPDX-License-Identifier: MIT */
/* replay: a trace or a cap profile through several backends (docs/experiments.md). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <thermpress/experiment.h>
#include <thermpress/outfile.h>

#include "readin.h"
#include "exp_clock.h"
#include "grow.h"
#include "fmt.h"

#define DEFAULT_BACKENDS "instant,pelt:32,pelt:128,decay:125,decay:250,decay:500"
#define PROFILE_TAIL_NS 1000000000ull

enum { OPT_BACKENDS, OPT_HZ, OPT_OUTPUT, OPT_PLOT, OPT_PLOT_CPU };
static const struct cmd_arg replay_opts[] = {
	[OPT_BACKENDS] = { .name = "--backends", .kind = &kind_backend_list, .value_name = "LIST",
			   .values = (const char *const[]){ DEFAULT_BACKENDS, NULL },
			   .flags = ARG_REPEAT,
			   .help = "the backends to replay through (NAME or NAME:MS, comma separated)" },
	[OPT_HZ] = CMD_OPT_HZ,
	[OPT_OUTPUT] = { .name = "--output", .short_name = "-o", .kind = &kind_file,
			 .value_name = "OUT.csv", .flags = ARG_REPEAT,
			 .help = "write every update as CSV" },
	[OPT_PLOT] = { .name = "--plot", .kind = &kind_file, .value_name = "FILE.svg",
		       .flags = ARG_REPEAT, .help = "draw one CPU's pressure and averages as SVG" },
	[OPT_PLOT_CPU] = { .name = "--plot-cpu", .kind = &kind_int, .value_name = "N", .min = 0,
			   .max = TP_MAX_CPUS - 1, .flags = ARG_REPEAT,
			   .help = "the CPU to plot (default: the first whose pressure changes)" },
	{ 0 },
};
static const struct cmd_arg replay_pos[] = {
	{ .name = "FILE", .kind = &kind_file,
	  .help = "a trace written by record, or a cap profile (- for standard input)" },
	{ 0 },
};

struct collect {
	struct tp_replay_csv csv;
	bool csv_on;
	int plot_cpu;
	struct tp_plot_buf *s;	/* one per backend */
};

static int on_point(void *arg, size_t b, const struct tp_replay_point *pt)
{
	struct collect *c = arg;
	int rc;

	if (c->csv_on && (rc = tp_replay_csv_row(&c->csv, b, pt)))
		return rc;
	if (c->s && pt->cpu == c->plot_cpu)
		return tp_plot_buf_add(&c->s[b], pt->time_ns, (int64_t)pt->avg_pressure);
	return 0;
}

/* The rows of a trace file or of a profile's trace, for either pass. */
struct rows {
	struct cmd_ctx *ctx;
	struct tp_trace_reader *rd;	/* a trace file */
	const struct tp_trace *mem;	/* or a profile's trace */
	size_t i, total;
	FILE *in;			/* for progress without a first pass: the file position */
	off_t size;
	const char *what;		/* "reading" or "replaying", for progress */
	bool progress;
	struct tp_plot_pick *pick;	/* first pass: the CPU to plot, and the span */
	struct tp_trace_span *span;
	int plot_cpu;			/* second pass: the plotted CPU's pressure series */
	struct tp_plot_buf *pressure;
	int error;
};

static int rows_next(void *arg, struct tp_trace_row *row, struct tp_error *err)
{
	struct rows *r = arg;
	int rc;

	if (r->rd) {
		rc = tp_trace_reader_next(r->rd, row, err);
		if (rc <= 0)
			return rc;
	} else {
		if (r->i == r->mem->nr_rows)
			return 0;
		*row = r->mem->rows[r->i];
	}
	r->i++;
	if (r->progress && !(r->i & 0xfffff)) {
		if (r->total)
			fprintf(stderr, "\r%s: %.0f %% (%zu of %zu rows)", r->what,
				100.0 * (double)r->i / (double)r->total, r->i, r->total);
		else if (r->in && r->size > 0)
			fprintf(stderr, "\r%s: %.0f %% (%zu rows)", r->what,
				100.0 * (double)ftello(r->in) / (double)r->size, r->i);
		else
			fprintf(stderr, "\r%s: %zu rows", r->what, r->i);
	}
	if (r->pick) {
		tp_plot_pick_row(r->pick, row);
		tp_trace_span_add(r->span, row);
	}
	if (r->pressure && row->cpu == r->plot_cpu &&
	    tp_plot_buf_add(r->pressure, row->time_ns, row->pressure))
		return tp_error_set(err, -ENOMEM, "out of memory for the plot");
	return 1;
}

static void progress_done(struct rows *r)
{
	if (r->progress)
		fprintf(stderr, "\r\033[K");
}

/*
 * The input as a seekable stream (two passes): a regular file as it is, anything else
 * (standard input, a pipe) copied to an unlinked temporary file first.  0 or an exit
 * status (reported).
 */
static int open_input(struct cmd_ctx *ctx, const char *path, FILE **out)
{
	/* a regular file or a pipe, opened without blocking on anything else (readin.h) */
	bool std = !strcmp(path, "-");
	int fd = std ? -1 : readin_open(AT_FDCWD, path, 0, READIN_STREAM);
	FILE *in = std ? stdin : fd < 0 ? NULL : fdopen(fd, "r"), *tmp;
	char buf[65536];
	size_t n;

	if (!in) {
		if (fd >= 0)
			close(fd);
		return cmd_error(ctx, EXIT_RUNTIME, "cannot open %s: %s", path,
				 readin_strerror(fd < 0 ? fd : -errno));
	}
	if (in != stdin && fseeko(in, 0, SEEK_SET) == 0) {
		*out = in;
		return 0;
	}
	tmp = tmpfile();
	if (!tmp) {
		int e = errno;

		if (in != stdin)
			fclose(in);
		return cmd_error(ctx, EXIT_RUNTIME, "cannot create a temporary copy of %s: %s",
				 path, strerror(e));
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, tmp) != n)
			break;
	if (ferror(in) || ferror(tmp) || fflush(tmp)) {
		int e = errno;

		if (in != stdin)
			fclose(in);
		fclose(tmp);
		return cmd_error(ctx, EXIT_RUNTIME, "cannot read %s: %s", path, strerror(e));
	}
	if (in != stdin)
		fclose(in);
	rewind(tmp);
	*out = tmp;
	return 0;
}

/* --plot writes SVG: a name with another extension (x.png) is refused, not misnamed. */
static int check_plot_name(struct cmd_ctx *ctx, const char *plot)
{
	const char *base = strrchr(plot, '/'), *dot;

	base = base ? base + 1 : plot;
	dot = strrchr(base, '.');
	if (!dot || dot == base || !strcasecmp(dot, ".svg"))
		return 0;
	return cmd_usage_error(ctx, "--plot writes SVG only: '%s' names another format (%s); "
			       "give a name ending in .svg", plot, dot);
}

/* Whether fp starts like a trace (1, *format set) or a cap profile (0); rewound. */
static int input_format(FILE *fp, enum tp_trace_format *format)
{
	char head[4096];
	size_t n = fread(head, 1, sizeof(head), fp);

	rewind(fp);
	return tp_trace_detect(head, n, format);
}

/*
 * "yes", "-" (not compared), or "no (cpu 4 at 12.000 s)" at the first difference, with
 * the reason where exactness cannot hold: a simulator scenario (heat) caps from inside
 * a tick, which a trace sampled between ticks cannot place (docs/experiments.md).
 */
static const char *exact_text(const struct tp_replay_summary *s, const struct tp_trace_meta *meta,
			      char *buf, size_t len)
{
	char at[32];

	if (s->exact < 0)
		return FMT_NONE;
	if (s->exact)
		return "yes";
	fmt_time(at, sizeof(at), s->mismatch_time_ns);
	if (strstr(meta->source, "scenario "))
		snprintf(buf, len, "no: scenario caps inside a tick (cpu %d at %s)",
			 s->mismatch_cpu, at);
	else
		snprintf(buf, len, "no (cpu %d at %s)", s->mismatch_cpu, at);
	return buf;
}

static void print_table(struct cmd_ctx *ctx, const char *file, const struct tp_trace_span *t,
			const struct tp_trace_meta *meta, bool profile, int hz,
			const struct tp_replay_backend *b, size_t nb, const struct tp_replay_summary *s)
{
	char buf[96], span[32];

	out_printf(ctx, "%s %s: %zu rows, %s at %d Hz; pressure %.3f capacity-s\n",
		   profile ? "profile" : "trace", file, t->rows,
		   fmt_time(span, sizeof(span), t->last_ns - t->first_ns), hz, s[0].pressure_s);
	out_printf(ctx, "%-12s %8s %6s %9s %9s %6s %12s  %s\n", "BACKEND", "MAD", "STEPS",
		   "T50(ms)", "T90(ms)", "NOT90", "CAP-S LOST", "EXACT");
	for (size_t i = 0; i < nb; i++) {
		char t50[32] = FMT_NONE, t90[32] = FMT_NONE;

		/* a mean over no step does not exist */
		if (s[i].reached50)
			snprintf(t50, sizeof(t50), "%.1f", s[i].t50_ms);
		if (s[i].reached90)
			snprintf(t90, sizeof(t90), "%.1f", s[i].t90_ms);
		out_printf(ctx, "%-12s %8.2f %6zu %9s %9s %6zu %12.3f  %s\n", b[i].label,
			   s[i].mad, s[i].steps, t50, t90, s[i].steps - s[i].reached90,
			   s[i].capacity_s_lost, exact_text(&s[i], meta, buf, sizeof(buf)));
	}
}

static struct json_object *json_summary(const char *file, bool profile,
					const struct tp_trace_meta *meta, int hz,
					const struct tp_trace_span *t,
					const struct tp_replay_backend *b, size_t nb,
					const struct tp_replay_summary *s)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, "schema_version", json_object_new_int(JSON_SCHEMA_VERSION));
	json_object_object_add(o, "input", json_object_new_string(file));
	json_object_object_add(o, "kind", json_object_new_string(profile ? "profile" : "trace"));
	/* the source the trace was recorded from; a cap profile has none */
	json_object_object_add(o, "source", profile ? NULL : json_source_recorded(meta));
	json_object_object_add(o, "rows", json_object_new_uint64(t->rows));
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

/* One replay: its input, backends, outputs and results. */
struct replay {
	const char *file, *out, *plot;
	struct tp_replay_backend b[TP_REPLAY_MAX_BACKENDS];
	struct tp_replay_summary sums[TP_REPLAY_MAX_BACKENDS];
	size_t nb;
	struct tp_replay_options ro;
	struct tp_plugin_set *plugins;
	struct tp_trace ptrace;		/* a profile's trace */
	struct tp_trace_meta meta;
	struct tp_plot_pick *pick;
	struct tp_trace_span span;
	struct rows pass;
	FILE *in;
	struct tp_plot_buf *series;	/* the pressure, then one per backend */
	struct collect col;
	struct tp_outfile *csv_of, *svg_of;
	FILE *csv;
	int plot_cpu;
	bool profile;
	struct tp_error err;
};

/* A profile read against the current topology into its trace; 0 or an exit status. */
static int read_profile(struct cmd_ctx *ctx, struct replay *r)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_profile prof;
	int status, rc;

	if ((status = ctx_snapshot(ctx, &snap))) {
		tp_snapshot_release(&snap);
		return status;
	}
	if (r->ro.hz)
		snap.hz = r->ro.hz;
	rc = tp_profile_read(r->in, r->file, &snap, &prof, &r->err);
	if (!rc) {
		rc = tp_profile_to_trace(&prof, &snap, TP_SIM_START_NS, PROFILE_TAIL_NS,
					 &r->ptrace, &r->err);
		tp_profile_free(&prof);
	}
	tp_snapshot_release(&snap);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &r->err);
	r->meta = r->ptrace.meta;
	r->pass.mem = &r->ptrace;
	return 0;
}

/*
 * The backends and the input: a profile read whole, a trace opened for streaming (its
 * rows are read and checked before anything is written: docs/experiments.md,
 * "Streaming, limits and progress").  0 or an exit status (reported).
 */
static int replay_open(struct cmd_ctx *ctx, struct replay *r, const char *list)
{
	enum tp_trace_format format;
	int status, rc = tp_plugins_load(ctx->opts.plugin_dir, &r->plugins, &r->err);

	if (rc < 0)
		return cmd_error(ctx, EXIT_RUNTIME, "%s", r->err.msg);
	rc = tp_replay_parse_backends(list, r->plugins, r->b, TP_REPLAY_MAX_BACKENDS, &r->nb,
				      &r->err);
	if (rc < 0)
		return cmd_tp_error(ctx, rc, &r->err);
	warn_decays_in_force(ctx, r->b, r->nb);
	if ((status = open_input(ctx, r->file, &r->in)))
		return status;
	r->profile = !input_format(r->in, &format);
	if (!r->profile && format == TP_TRACE_PERFETTO)
		return cmd_usage_error(ctx, "%s is a Perfetto trace (record --format perfetto), an "
				       "output format for ui.perfetto.dev: replay reads a trace "
				       "recorded as csv or jsonl (record --format csv|jsonl) or a "
				       "cap profile", r->file);
	r->pass.ctx = ctx;
	r->pass.progress = exp_progress_enabled(ctx);
	if (!r->profile && r->pass.progress) {
		struct stat st;

		r->pass.in = r->in;
		r->pass.size = fstat(fileno(r->in), &st) ? 0 : st.st_size;
	}
	if (r->profile) {
		if ((status = read_profile(ctx, r)))
			return status;
	} else {
		rc = tp_trace_reader_open(r->in, r->file, &r->pass.rd, &r->err);
		if (rc < 0)
			return cmd_tp_error(ctx, rc, &r->err);
		r->meta = *tp_trace_reader_meta(r->pass.rd);
	}
	r->ro.hz = tp_replay_hz(&r->meta, r->ro.hz);
	return 0;
}

/* The CSV output opened and the plot's series allocated; 0 or an exit status. */
static int replay_outputs(struct cmd_ctx *ctx, struct replay *r)
{
	if (r->out) {
		if (tp_outfile_open(r->out, &r->csv_of, &r->err))
			return cmd_error(ctx, EXIT_RUNTIME, "%s", r->err.msg);
		r->csv = tp_outfile_stream(r->csv_of);
		fputs(TP_REPLAY_CSV_HEADER "\n", r->csv);
		r->col.csv.fp = r->csv;
		r->col.csv.backends = r->b;
		r->col.csv_on = true;
	}
	if (r->plot) {
		r->series = calloc(r->nb + 1, sizeof(*r->series));
		if (!r->series)
			return cmd_error(ctx, EXIT_RUNTIME, "out of memory for the plot");
		r->col.s = r->series + 1;
		r->pass.pressure = &r->series[0];
	}
	r->col.plot_cpu = r->pass.plot_cpu = r->plot_cpu;
	return 0;
}

/* The rows from their start again: the trace reopened, or the profile's trace. */
static int rows_restart(struct replay *r, struct tp_error *err)
{
	struct rows *pass = &r->pass;

	pass->i = 0;
	if (r->profile)
		return 0;
	tp_trace_reader_close(pass->rd);
	pass->rd = NULL;
	rewind(r->in);
	return tp_trace_reader_open(r->in, r->file, &pass->rd, err);
}

/*
 * The library reads the rows again (struct tp_replay_options): for their span (span
 * NULL), with the CPUs scanned afresh; then for the replay (span), where the progress
 * knows the total, the CPU to plot is chosen and the pressure plotted from the start.
 */
static int rows_rewind(void *arg, const struct tp_trace_span *span, struct tp_error *err)
{
	struct replay *r = arg;
	struct rows *pass = &r->pass;

	progress_done(pass);
	if (!span) {
		tp_plot_pick_free(r->pick);
		r->pick = NULL;
		if (tp_plot_pick_new(&r->pick))
			return tp_error_set(err, -ENOMEM, "out of memory");
		pass->pick = r->pick;
		r->span = (struct tp_trace_span){ 0 };
		pass->what = "reading";
		pass->total = 0;
		pass->pressure = NULL;
		return rows_restart(r, err);
	}
	pass->pick = NULL;
	pass->what = "replaying";
	pass->total = span->rows;
	if (r->plot_cpu < 0)
		r->plot_cpu = tp_plot_pick_cpu(r->pick);
	r->col.plot_cpu = pass->plot_cpu = r->plot_cpu;
	if (r->series) {
		r->series[0].n = 0;
		pass->pressure = &r->series[0];
	}
	return rows_restart(r, err);
}

static int replay_next(void *arg, struct tp_trace_row *row, struct tp_error *err)
{
	return rows_next(&((struct replay *)arg)->pass, row, err);
}

/*
 * The replay; the library decides whether to read the rows twice (rows_rewind), and
 * does when the CPU to plot must be chosen from all of them.  0 or an exit status.
 */
static int replay_run(struct cmd_ctx *ctx, struct replay *r)
{
	int status, rc;

	if (tp_plot_pick_new(&r->pick))
		return cmd_error(ctx, EXIT_RUNTIME, "out of memory");
	r->pass.pick = r->pick;
	r->pass.span = &r->span;
	r->pass.what = "replaying";
	r->ro.rewind = rows_rewind;
	r->ro.span_first = r->plot && r->plot_cpu < 0;
	if ((status = replay_outputs(ctx, r)))
		return status;
	rc = tp_replay_stream(&r->meta, NULL, replay_next, r, r->b, r->nb, &r->ro,
			      r->out || r->plot ? on_point : NULL, &r->col, r->sums, &r->err);
	progress_done(&r->pass);
	tp_trace_reader_close(r->pass.rd);
	r->pass.rd = NULL;
	if (rc == -ENODATA || rc == -E2BIG)
		return cmd_error(ctx, EXIT_USAGE, "%s: %s", r->file, r->err.msg);
	if (rc)
		return cmd_error(ctx, rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME, "%s%s",
				 rc == -EINVAL ? "" : "replay: ",
				 rc == -ENOMEM && !r->err.msg[0] ? "out of memory" : r->err.msg);
	if (r->plot && !tp_plot_pick_has(r->pick, r->plot_cpu))
		return cmd_usage_error(ctx, "cpu %d is not in %s", r->plot_cpu, r->file);
	return 0;
}

/* The SVG plot, into its temporary file; 0 or an exit status. */
static int replay_plot(struct cmd_ctx *ctx, struct replay *r)
{
	struct tp_plot_series ps[TP_REPLAY_MAX_BACKENDS + 1];
	char title[128];

	ps[0] = (struct tp_plot_series){ "pressure", r->series[0].n, r->series[0].t,
					 r->series[0].v };
	for (size_t i = 0; i < r->nb; i++)
		ps[i + 1] = (struct tp_plot_series){ r->b[i].label, r->series[i + 1].n,
						     r->series[i + 1].t, r->series[i + 1].v };
	snprintf(title, sizeof(title), "thermal pressure of cpu %d, replayed at %d Hz",
		 r->plot_cpu, r->ro.hz);
	if (tp_outfile_open(r->plot, &r->svg_of, &r->err))
		return cmd_error(ctx, EXIT_RUNTIME, "%s", r->err.msg);
	if (tp_plot_svg(tp_outfile_stream(r->svg_of), title, ps, r->nb + 1, &r->err))
		return cmd_error(ctx, EXIT_RUNTIME, "write error on %s", r->plot);
	return 0;
}

/* Both outputs complete: put them into place.  0 or an exit status. */
static int replay_commit(struct cmd_ctx *ctx, struct replay *r)
{
	struct tp_outfile **ofs[] = { &r->csv_of, &r->svg_of };

	for (size_t i = 0; i < 2; i++) {
		int rc;

		if (!*ofs[i])
			continue;
		rc = tp_outfile_commit(*ofs[i], &r->err);
		*ofs[i] = NULL;
		if (rc)
			return cmd_error(ctx, EXIT_RUNTIME, "%s", r->err.msg);
	}
	return 0;
}

static void replay_free(struct replay *r)
{
	/* a failed run leaves the output paths as they were */
	tp_outfile_discard(r->csv_of);
	tp_outfile_discard(r->svg_of);
	if (r->series) {
		for (size_t i = 0; i <= r->nb; i++)
			tp_plot_buf_free(&r->series[i]);
		free(r->series);
	}
	tp_trace_reader_close(r->pass.rd);
	if (r->in && r->in != stdin)
		fclose(r->in);
	tp_plot_pick_free(r->pick);
	tp_trace_free(&r->ptrace);
	tp_plugins_free(r->plugins);
	free(r);
}

static int exec_replay(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	const struct cmd_parsed *o = args->opt;
	struct replay *r = calloc(1, sizeof(*r));
	int status;

	if (!r)
		return cmd_error(ctx, EXIT_RUNTIME, "out of memory");
	r->file = args->pos[0].text;
	r->out = o[OPT_OUTPUT].text;
	r->plot = o[OPT_PLOT].text;
	r->plot_cpu = o[OPT_PLOT_CPU].given ? (int)o[OPT_PLOT_CPU].v.i : -1;
	r->ro.hz = o[OPT_HZ].given ? (int)o[OPT_HZ].v.i : 0;
	status = r->plot ? check_plot_name(ctx, r->plot) : 0;
	if (!status)
		status = replay_open(ctx, r, o[OPT_BACKENDS].given ? o[OPT_BACKENDS].text
							   : DEFAULT_BACKENDS);
	if (!status)
		status = replay_run(ctx, r);
	if (!status && r->plot)
		status = replay_plot(ctx, r);
	if (!status)
		status = replay_commit(ctx, r);
	if (!status && ctx->cmd_json)
		out_json(ctx, json_summary(r->file, r->profile, &r->meta, r->ro.hz, &r->span, r->b, r->nb,
					   r->sums));
	else if (!status && r->csv != stdout)
		print_table(ctx, r->file, &r->span, &r->meta, r->profile, r->ro.hz, r->b, r->nb,
			    r->sums);
	replay_free(r);
	return status;
}

const struct cmd_entry cmd_replay_entry = {
	.path = "replay",
	.pos = replay_pos,
	.opts = replay_opts,
	.summary = "replay a trace or a cap profile through several backends",
	.help = "Feeds the pressure timeline of FILE through each backend of LIST (default "
		DEFAULT_BACKENDS ") as the kernel tick would, at --hz (default: the trace's, "
		"else 250).  FILE is a trace written by record (CSV or JSON lines) or a cap "
		"profile (lines of TIME, CPULIST, VALUE, replayed on the current source's "
		"topology, from a fresh state, for 1 s after its last line).  Prints one line "
		"per backend: the mean absolute deviation from the instantaneous pressure at the "
		"ticks, the steps, the mean time to 50 % and 90 % of each step, the steps that "
		"never reached 90 %, the capacity-seconds lost, and EXACT: whether the trace's own "
		"averages were reproduced exactly, yes, or no (cpu C at T s) at the first "
		"difference; - where the comparison does not apply (another backend or decay "
		"period than the trace's, or a trace that does not record where its state "
		"starts).  A simulator scenario (--scenario heat) caps from inside a tick, "
		"which the trace cannot place: there it reads no: scenario caps inside a tick.  "
		"-o writes every update as CSV (time_ns, cpu, backend, "
		"decay_ms, pressure, avg_pressure); --plot draws the pressure of one CPU "
		"(--plot-cpu, default the first whose pressure changes) and each backend's "
		"average as a self-contained SVG.  The trace is streamed (memory does not grow with its "
		"length; - reads standard input) and may span at most 100000000 ticks per CPU; "
		"nothing is written unless every row is valid, and an existing output file is "
		"replaced only when complete.  See docs/experiments.md.",
	.flags = CMD_JSON,
	.exec = exec_replay,
};
