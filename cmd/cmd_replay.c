/* SPDX-License-Identifier: MIT */
/* replay: a trace or a cap profile through several backends (docs/experiments.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <thermpress/experiment.h>
#include <thermpress/outfile.h>

#include "exp_util.h"
#include "fmt.h"

#define DEFAULT_BACKENDS "instant,pelt:32,pelt:128,decay:125,decay:250,decay:500"
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

/*
 * What the first pass over the rows learns: the span, the CPUs present, and the CPU to
 * plot by default: the first (in file order) whose pressure changes at its next row,
 * else the first.
 */
struct scan {
	struct tp_trace_span span;
	bool *present;		/* TP_MAX_CPUS */
	int64_t *last_p;	/* per CPU: the last row's pressure and index */
	size_t *last_i;
	size_t plot_i;		/* the row of the best candidate so far, SIZE_MAX none */
	int plot_cpu, first_cpu;
};

static int scan_init(struct scan *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->present = calloc(TP_MAX_CPUS, sizeof(*sc->present));
	sc->last_p = calloc(TP_MAX_CPUS, sizeof(*sc->last_p));
	sc->last_i = calloc(TP_MAX_CPUS, sizeof(*sc->last_i));
	sc->plot_i = SIZE_MAX;
	return sc->present && sc->last_p && sc->last_i ? 0 : -ENOMEM;
}

static void scan_free(struct scan *sc)
{
	free(sc->present);
	free(sc->last_p);
	free(sc->last_i);
}

static void scan_row(struct scan *sc, const struct tp_trace_row *r)
{
	size_t i = sc->span.rows;

	if (!i)
		sc->first_cpu = r->cpu;
	if (sc->present[r->cpu] && sc->last_p[r->cpu] != r->pressure &&
	    sc->last_i[r->cpu] < sc->plot_i) {
		sc->plot_i = sc->last_i[r->cpu];
		sc->plot_cpu = r->cpu;
	}
	sc->present[r->cpu] = true;
	sc->last_p[r->cpu] = r->pressure;
	sc->last_i[r->cpu] = i;
	tp_trace_span_add(&sc->span, r);
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
	struct scan *scan;		/* first pass */
	int plot_cpu;			/* second pass: the plotted CPU's pressure series */
	struct series *pressure;
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
	if (r->scan)
		scan_row(r->scan, row);
	if (r->pressure && row->cpu == r->plot_cpu &&
	    series_add(r->pressure, row->time_ns, row->pressure))
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
	FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin, *tmp;
	char buf[65536];
	size_t n;

	if (!in)
		return cmd_error(ctx, EXIT_RUNTIME, "cannot open %s: %s", path, strerror(errno));
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

/* Whether fp starts like a trace (CSV header or JSON lines) rather than a cap profile. */
static bool input_is_trace(FILE *fp)
{
	char head[4096];
	enum tp_trace_format format;
	size_t n = fread(head, 1, sizeof(head) - 1, fp);

	rewind(fp);
	return tp_trace_detect(head, n, &format) == 1;
}

static const char *exact_text(const struct tp_replay_summary *s, char *buf, size_t len)
{
	if (s->exact < 0)
		return FMT_NONE;
	if (s->exact)
		return "yes";
	snprintf(buf, len, "no (cpu %d at %" PRIu64 ")", s->mismatch_cpu, s->mismatch_time_ns);
	return buf;
}

static void print_table(struct cmd_ctx *ctx, const char *file, const struct tp_trace_span *t,
			bool profile, int hz, const struct tp_replay_backend *b, size_t nb,
			const struct tp_replay_summary *s)
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
			   s[i].capacity_s_lost, exact_text(&s[i], buf, sizeof(buf)));
	}
}

static struct json_object *json_summary(const char *file, bool profile, int hz,
					const struct tp_trace_span *t,
					const struct tp_replay_backend *b, size_t nb,
					const struct tp_replay_summary *s)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, "schema_version", json_object_new_int(JSON_SCHEMA_VERSION));
	json_object_object_add(o, "input", json_object_new_string(file));
	json_object_object_add(o, "kind", json_object_new_string(profile ? "profile" : "trace"));
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

/*
 * The first pass: every row read and checked, the span and the CPUs learnt, the span
 * checked against the tick limit.  0 or an exit status (reported).
 */
static int first_pass(struct cmd_ctx *ctx, FILE *in, const char *file, struct rows *pass,
		      struct scan *sc, const struct tp_trace_meta *meta, int hz,
		      struct tp_error *err)
{
	struct tp_trace_row row;
	int rc;

	scan_free(sc);
	if (scan_init(sc))
		return cmd_error(ctx, EXIT_RUNTIME, "out of memory");
	if (!pass->mem && !pass->rd) {
		rewind(in);
		rc = tp_trace_reader_open(in, file, &pass->rd, err);
		if (rc < 0)
			return cmd_tp_error(ctx, rc, err);
	}
	pass->what = "reading";
	pass->scan = sc;
	pass->pressure = NULL;
	pass->i = 0;
	pass->total = 0;
	while ((rc = rows_next(pass, &row, err)) == 1)
		;
	progress_done(pass);
	tp_trace_reader_close(pass->rd);
	pass->rd = NULL;
	if (rc < 0)
		return cmd_tp_error(ctx, rc, err);
	if (!sc->span.rows)
		return cmd_error(ctx, EXIT_USAGE, "%s: the trace has no samples to replay", file);
	if (tp_replay_ticks(meta, &sc->span, hz) > TP_REPLAY_MAX_TICKS)
		return cmd_error(ctx, EXIT_USAGE, "%s: the trace spans %.3f s, %" PRIu64 " ticks "
				 "per CPU at %d Hz: more than the limit of %llu", file,
				 (double)(sc->span.last_ns - sc->span.first_ns) / 1e9,
				 tp_replay_ticks(meta, &sc->span, hz), hz,
				 (unsigned long long)TP_REPLAY_MAX_TICKS);
	return 0;
}

static int exec_replay(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *file = NULL, *list = DEFAULT_BACKENDS, *out = NULL, *plot = NULL, *v;
	struct tp_replay_backend b[TP_REPLAY_MAX_BACKENDS];
	struct tp_replay_summary sums[TP_REPLAY_MAX_BACKENDS];
	struct tp_replay_options ro = { 0 };
	struct tp_plugin_set *plugins = NULL;
	struct tp_error err = { 0 };
	struct tp_trace ptrace = { 0 };	/* a profile's trace */
	struct tp_trace_meta meta;
	struct scan sc = { 0 };
	struct rows pass = { 0 };
	FILE *in = NULL;
	struct series *series = NULL;
	struct collect col = { 0 };
	struct tp_outfile *csv_of = NULL, *svg_of = NULL;
	FILE *csv = NULL;
	size_t nb = 0;
	int status = 0, rc, plot_cpu = -1;
	bool profile = false, two_pass;

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

	/* The input is streamed; nothing is written before every row was read and checked
	 * (docs/experiments.md, "Streaming, limits and progress"). */
	rc = tp_plugins_load(ctx->opts.plugin_dir, &plugins, &err);
	if (rc < 0)
		return cmd_error(ctx, EXIT_RUNTIME, "%s", err.msg);
	rc = tp_replay_parse_backends(list, plugins, b, TP_REPLAY_MAX_BACKENDS, &nb, &err);
	if (rc < 0) {
		status = cmd_tp_error(ctx, rc, &err);
		goto done;
	}
	if ((status = open_input(ctx, file, &in)))
		goto done;
	profile = !input_is_trace(in);
	pass.ctx = ctx;
	pass.progress = exp_progress_enabled(ctx);
	if (!profile && pass.progress) {
		struct stat st;

		pass.in = in;
		pass.size = fstat(fileno(in), &st) ? 0 : st.st_size;
	}
	if (profile) {
		struct tp_snapshot snap = TP_SNAPSHOT_INIT;
		struct tp_profile prof;

		if ((status = ctx_snapshot(ctx, &snap))) {
			tp_snapshot_release(&snap);
			goto done;
		}
		if (ro.hz)
			snap.hz = ro.hz;
		rc = tp_profile_read(in, file, &snap, &prof, &err);
		if (!rc) {
			rc = tp_profile_to_trace(&prof, &snap, TP_SIM_START_NS, PROFILE_TAIL_NS,
						 &ptrace, &err);
			tp_profile_free(&prof);
		}
		tp_snapshot_release(&snap);
		if (rc < 0) {
			status = cmd_tp_error(ctx, rc, &err);
			goto done;
		}
		meta = ptrace.meta;
		pass.mem = &ptrace;
	} else {
		rc = tp_trace_reader_open(in, file, &pass.rd, &err);
		if (rc < 0) {
			status = cmd_tp_error(ctx, rc, &err);
			goto done;
		}
		meta = *tp_trace_reader_meta(pass.rd);
	}
	if (!ro.hz)
		ro.hz = meta.hz > 0 ? meta.hz : TP_HZ_DEFAULT;
	/*
	 * One pass normally: the replay learns the span on the way and writes nothing until
	 * every row was read and checked.  A first pass over the rows is needed to choose
	 * the CPU to plot, or when a trace without a state start has a row earlier than its
	 * first (the state starts at the earliest time).
	 */
	two_pass = plot && plot_cpu < 0;
	if (two_pass && (status = first_pass(ctx, in, file, &pass, &sc, &meta, ro.hz, &err)))
		goto done;
	if (plot_cpu < 0)
		plot_cpu = sc.plot_i != SIZE_MAX ? sc.plot_cpu : sc.first_cpu;

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
		pass.plot_cpu = plot_cpu;
	}
	for (;;) {
		if (series) {
			series[0].n = 0;
			pass.pressure = &series[0];
		}
		pass.scan = two_pass ? NULL : &sc;
		pass.i = 0;
		pass.total = two_pass ? sc.span.rows : 0;
		pass.what = "replaying";
		if (!profile && !pass.rd) {
			rewind(in);
			rc = tp_trace_reader_open(in, file, &pass.rd, &err);
			if (rc < 0) {
				status = cmd_tp_error(ctx, rc, &err);
				goto done;
			}
		}
		if (!two_pass && scan_init(&sc)) {
			status = cmd_error(ctx, EXIT_RUNTIME, "out of memory");
			goto done;
		}
		rc = tp_replay_stream(&meta, two_pass ? &sc.span : NULL, rows_next, &pass, b, nb,
				      &ro, out || plot ? on_point : NULL, &col, sums, &err);
		progress_done(&pass);
		tp_trace_reader_close(pass.rd);
		pass.rd = NULL;
		if (rc != -EAGAIN || two_pass)
			break;
		two_pass = true;
		if ((status = first_pass(ctx, in, file, &pass, &sc, &meta, ro.hz, &err)))
			goto done;
	}
	if (rc == -ENODATA || rc == -E2BIG) {
		status = cmd_error(ctx, EXIT_USAGE, "%s: %s", file, err.msg);
		goto done;
	}
	if (rc) {
		status = cmd_error(ctx, rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME, "%s%s",
				   rc == -EINVAL ? "" : "replay: ",
				   rc == -ENOMEM && !err.msg[0] ? "out of memory" : err.msg);
		goto done;
	}
	if (plot && !sc.present[plot_cpu]) {
		status = cmd_error(ctx, EXIT_USAGE, "replay: cpu %d is not in %s", plot_cpu, file);
		goto done;
	}
	if (plot) {
		struct tp_plot_series ps[TP_REPLAY_MAX_BACKENDS + 1];
		char title[128];

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
		out_json(ctx, json_summary(file, profile, ro.hz, &sc.span, b, nb, sums));
	else if (csv != stdout)
		print_table(ctx, file, &sc.span, profile, ro.hz, b, nb, sums);
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
	tp_trace_reader_close(pass.rd);
	if (in && in != stdin)
		fclose(in);
	scan_free(&sc);
	tp_trace_free(&ptrace);
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
		"average as a self-contained SVG.  The trace is streamed (memory does not grow with its "
		"length; - reads standard input) and may span at most 100000000 ticks per CPU; "
		"nothing is written unless every row is valid, and an existing output file is "
		"replaced only when complete.  See docs/experiments.md.",
	.min_args = 1, .max_args = -1,
	.flags = CMD_JSON,
	.exec = exec_replay,
	.complete = complete_replay,
};
