/* SPDX-License-Identifier: MIT */
/*
 * Experiments: trace writers and readers, cap profiles, replay (bit for bit against the
 * simulator on its virtual clock), summaries, plots, playing a profile.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <thermpress/experiment.h>

#define MS 1000000ull

static struct tp_source *open_sim(int hz)
{
	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_hz = hz,
				     .sim_virtual_clock = true };
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };

	if (tp_source_open(&o, &src, &err))
		fail_msg("opening the simulator: %s", err.msg);
	return src;
}

static void take(struct tp_source *src, struct tp_snapshot *snap)
{
	struct tp_error err = { 0 };

	if (tp_snapshot_take(src, snap, &err))
		fail_msg("snapshot: %s", err.msg);
}

static void cap(struct tp_source *src, const char *cpus, const char *value)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_cpuset set;
	struct tp_cap_value v;
	struct tp_error err = { 0 };

	take(src, &snap);
	if (tp_parse_cpulist(cpus, &snap, &set, &err))
		fail_msg("cpulist %s: %s", cpus, err.msg);
	tp_snapshot_release(&snap);
	if (!strcmp(value, "clear")) {
		if (tp_cap_clear(src, &set, &err))
			fail_msg("clear: %s", err.msg);
		return;
	}
	if (tp_parse_cap_value(value, &v, &err) || tp_cap_set(src, &set, &v, &err))
		fail_msg("cap %s %s: %s", cpus, value, err.msg);
}

static FILE *text_file(const char *text)
{
	FILE *fp = tmpfile();

	assert_non_null(fp);
	fputs(text, fp);
	rewind(fp);
	return fp;
}

/*
 * Record a run of the simulator with caps changing off and on tick times, then replay
 * the trace through the same backend: every recorded average must come out exactly.
 */
static void record_and_replay(const char *backend, uint32_t decay, int hz,
			      enum tp_trace_format fmt)
{
	struct tp_source *src = open_sim(hz);
	struct tp_error err = { 0 };
	struct tp_record_options ro = { .format = fmt, .interval_ns = 10 * MS,
					.restart_state = true };
	struct tp_recorder *rec = NULL;
	FILE *fp = tmpfile();
	struct tp_trace trace;
	struct tp_replay_backend b[2];
	struct tp_replay_summary sum[2];
	size_t nb = 0;
	char spec[64];

	assert_non_null(fp);
	if (tp_backend_set(src, backend, decay, &err))
		fail_msg("backend %s %u: %s", backend, decay, err.msg);
	/* the clock away from t0 first, so that the state start is not the first tick */
	assert_int_equal(tp_sim_advance(src, 6 * MS, &err), 0);
	assert_int_equal(tp_recorder_open(src, fp, &ro, &rec, &err), 0);

	static const struct { uint64_t after_ms; const char *cpus, *value; } steps[] = {
		{ 37, "big", "1.2GHz" },	/* off a tick */
		{ 3, "0-1", "60%" },		/* onto a tick time (after it ran) */
		{ 250, "big", "cap=600" },
		{ 1, "all", "clear" },
		{ 700, "4,6", "903MHz" },
		{ 1300, "little", "50%" },
		{ 2, "big", "clear" },
		{ 611, "all", "clear" },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (tp_recorder_advance(rec, steps[i].after_ms * MS, &err))
			fail_msg("advance: %s", err.msg);
		cap(src, steps[i].cpus, steps[i].value);
		if (tp_recorder_sample(rec, &err))
			fail_msg("sample: %s", err.msg);
	}
	assert_int_equal(tp_recorder_advance(rec, 1500 * MS, &err), 0);
	assert_int_equal(tp_recorder_close(rec, &err), 0);
	tp_source_close(src);

	if (fmt == TP_TRACE_PERFETTO) {
		fclose(fp);
		return;
	}
	rewind(fp);
	if (tp_trace_read(fp, "rec", &trace, &err))
		fail_msg("reading the trace back: %s", err.msg);
	fclose(fp);
	assert_true(trace.nr_rows > 1000);
	assert_string_equal(trace.meta.backend, backend);
	assert_int_equal(trace.meta.hz, hz);
	assert_true(trace.meta.state_start_ns >= 10000000000ll + 6 * (int64_t)MS);

	struct tp_open_options o = { .kind = TP_SOURCE_SIM, .sim_virtual_clock = true };
	assert_int_equal(tp_source_open(&o, &src, &err), 0);
	if (decay)
		snprintf(spec, sizeof(spec), "%s:%u,instant", backend, decay);
	else
		snprintf(spec, sizeof(spec), "%s,pelt", backend);
	if (tp_replay_parse_backends(spec, tp_source_plugins(src), b, 2, &nb, &err))
		fail_msg("backends %s: %s", spec, err.msg);
	assert_int_equal(nb, 2);
	if (tp_replay_run(&trace, b, nb, NULL, NULL, NULL, sum, &err))
		fail_msg("replay: %s", err.msg);
	if (sum[0].exact != 1)
		fail_msg("%s: replay differs at %llu cpu %d: recorded %lld, replayed %lld "
			 "(exact %d, %zu compared)", spec,
			 (unsigned long long)sum[0].mismatch_time_ns, sum[0].mismatch_cpu,
			 (long long)sum[0].mismatch_recorded, (long long)sum[0].mismatch_replayed,
			 sum[0].exact, sum[0].compared);
	assert_int_equal(sum[0].compared, trace.nr_rows);
	assert_int_equal(sum[1].exact, -1);	/* another backend: not compared */
	assert_true(sum[0].steps > 0);
	if (strcmp(backend, "none"))
		assert_true(sum[0].capacity_s_lost > 0);
	else	/* the scheduler saw no pressure */
		assert_true(sum[0].capacity_s_lost == 0);
	tp_source_close(src);
	tp_trace_free(&trace);
}

static void test_exact_instant(void **s) { (void)s; record_and_replay("instant", 0, 250, TP_TRACE_CSV); }
static void test_exact_none(void **s) { (void)s; record_and_replay("none", 0, 250, TP_TRACE_JSONL); }
static void test_exact_pelt32(void **s) { (void)s; record_and_replay("pelt", 32, 250, TP_TRACE_CSV); }
static void test_exact_pelt128(void **s) { (void)s; record_and_replay("pelt", 128, 250, TP_TRACE_JSONL); }
static void test_exact_decay125(void **s) { (void)s; record_and_replay("decay", 125, 250, TP_TRACE_CSV); }
static void test_exact_decay500(void **s) { (void)s; record_and_replay("decay", 500, 250, TP_TRACE_JSONL); }
static void test_exact_hz1000(void **s)
{
	(void)s;
	record_and_replay("decay", 250, 1000, TP_TRACE_CSV);
	record_and_replay("pelt", 64, 100, TP_TRACE_CSV);
}
static void test_perfetto_records(void **s) { (void)s; record_and_replay("pelt", 32, 250, TP_TRACE_PERFETTO); }

static void test_perfetto_format(void **state)
{
	struct tp_source *src = open_sim(250);
	struct tp_error err = { 0 };
	struct tp_record_options ro = { .format = TP_TRACE_PERFETTO, .interval_ns = 10 * MS };
	struct tp_recorder *rec;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(tp_recorder_open(src, fp, &ro, &rec, &err), 0);
	cap(src, "big", "50%");
	assert_int_equal(tp_recorder_advance(rec, 100 * MS, &err), 0);
	assert_int_equal(tp_recorder_close(rec, &err), 0);
	fclose(fp);
	assert_non_null(strstr(buf, "\"traceEvents\":["));
	assert_non_null(strstr(buf, "\"name\":\"cpu4 pressure\",\"ph\":\"C\""));
	assert_non_null(strstr(buf, "\"name\":\"cpu0 avg_pressure\""));
	assert_non_null(strstr(buf, "\"ts\":10000000.000"));
	assert_string_equal(buf + len - 4, "\n]}\n");
	free(buf);
	tp_source_close(src);
}

static int read_trace_text(const char *text, struct tp_trace *t, struct tp_error *err)
{
	FILE *fp = text_file(text);
	int rc = tp_trace_read(fp, "t.csv", t, err);

	fclose(fp);
	return rc;
}

#define HDR TP_TRACE_CSV_HEADER "\n"

static void test_trace_malformed(void **state)
{
	struct tp_trace t;
	struct tp_error err = { 0 };

	(void)state;
	assert_int_equal(read_trace_text(HDR "10,0,1024,2000,2000,0,0,pelt,32\n"
					 "20,0,1024,2000,1000,x,0,pelt,32\n", &t, &err), -EINVAL);
	assert_string_equal(err.msg, "t.csv:3: pressure 'x' is not a number");
	tp_trace_free(&t);

	assert_int_equal(read_trace_text(HDR "10,0,1024\n", &t, &err), -EINVAL);
	assert_string_equal(err.msg, "t.csv:2: 3 fields where the header has 9");
	tp_trace_free(&t);

	assert_int_equal(read_trace_text("time,cpu\n1,2\n", &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "t.csv:1: expected a header line"));
	tp_trace_free(&t);

	assert_int_equal(read_trace_text(HDR "10,0,1024,2000,2000,2000,0,pelt,32\n", &t, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t.csv:2: pressure 2000 is out of range (0..1024)");
	tp_trace_free(&t);

	assert_int_equal(read_trace_text("{\"time_ns\":1,\"cpu\":0,\"pressure\":3\n", &t, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t.csv:1: expected one JSON object on the line");
	tp_trace_free(&t);

	assert_int_equal(read_trace_text("# thermpress trace 7\n" HDR, &t, &err), -EINVAL);
	assert_string_equal(err.msg, "t.csv:1: trace version 7 is not supported (this thermpress "
			    "reads versions 1 and 2)");
	tp_trace_free(&t);
}

static void test_trace_unsorted(void **state)
{
	struct tp_trace t;
	struct tp_error err = { 0 };

	(void)state;
	/* other CPUs may interleave in any order; one CPU must not go back */
	assert_int_equal(read_trace_text(HDR "20,1,-,-,-,5,-,-,-\n10,0,-,-,-,0,-,-,-\n"
					 "30,1,-,-,-,5,-,-,-\n", &t, &err), 0);
	assert_int_equal(t.nr_rows, 3);
	tp_trace_free(&t);
	assert_int_equal(read_trace_text(HDR "20,1,-,-,-,5,-,-,-\n10,0,-,-,-,0,-,-,-\n"
					 "15,1,-,-,-,5,-,-,-\n", &t, &err), -EINVAL);
	assert_string_equal(err.msg, "t.csv:4: time 15 of cpu 1 is before 20 on line 2: "
			    "the rows of a cpu must not go back in time");
	tp_trace_free(&t);
}

static void test_trace_empty(void **state)
{
	struct tp_trace t;
	struct tp_error err = { 0 };
	struct tp_replay_summary sum;
	struct tp_source *src = open_sim(250);
	struct tp_replay_backend b[1];
	size_t nb;

	(void)state;
	assert_int_equal(read_trace_text("", &t, &err), 0);
	assert_int_equal(t.nr_rows, 0);
	tp_trace_free(&t);
	assert_int_equal(read_trace_text("# thermpress trace 1\n\n" HDR, &t, &err), 0);
	assert_int_equal(t.nr_rows, 0);
	assert_int_equal(tp_replay_parse_backends("pelt", tp_source_plugins(src), b, 1, &nb, &err),
			 0);
	assert_int_equal(tp_replay_run(&t, b, nb, NULL, NULL, NULL, &sum, &err), -ENODATA);
	assert_string_equal(err.msg, "the trace has no samples to replay");
	tp_trace_free(&t);
	tp_source_close(src);
}

/* A trace file streamed by a reader, as replay reads it, counting the rewinds asked for. */
struct rewind_src {
	FILE *fp;
	struct tp_trace_reader *rd;
	int rewinds, with_span;
};

static int rewind_next(void *arg, struct tp_trace_row *row, struct tp_error *err)
{
	return tp_trace_reader_next(((struct rewind_src *)arg)->rd, row, err);
}

static int rewind_rows(void *arg, const struct tp_trace_span *span, struct tp_error *err)
{
	struct rewind_src *c = arg;

	c->rewinds++;
	c->with_span += span != NULL;
	tp_trace_reader_close(c->rd);
	rewind(c->fp);
	return tp_trace_reader_open(c->fp, "t.csv", &c->rd, err);
}

/* tp_replay_stream over text, the rewinds counted in *c; its return value. */
static int stream_text(const char *text, const struct tp_replay_backend *b, size_t nb,
		       const struct tp_replay_options *ro, struct rewind_src *c,
		       struct tp_replay_summary *sum, struct tp_error *err)
{
	struct tp_trace_meta meta;	/* a copy: a rewind closes the reader */
	int rc;

	*c = (struct rewind_src){ .fp = text_file(text) };
	rc = tp_trace_reader_open(c->fp, "t.csv", &c->rd, err);
	if (!rc) {
		meta = *tp_trace_reader_meta(c->rd);
		rc = tp_replay_stream(&meta, NULL, rewind_next, c, b, nb, ro, NULL, NULL, sum, err);
	}
	tp_trace_reader_close(c->rd);
	fclose(c->fp);
	return rc;
}


/* The plot's default CPU: the first, in file order, whose pressure changes at its next row. */
static void test_plot_pick(void **state)
{
	static const struct { int cpu; int64_t p; } rows[][5] = {
		/* cpu 0 stays, cpu 4 changes at its next row: 4 */
		{ { 0, 0 }, { 4, 0 }, { 4, 100 }, { 0, 0 }, { -1, 0 } },
		/* both change; cpu 0's changing row follows the earlier row, though it
		 * comes later in the file: 0 */
		{ { 0, 0 }, { 4, 0 }, { 4, 100 }, { 0, 100 }, { -1, 0 } },
		/* nothing changes: the first row's CPU */
		{ { 2, 5 }, { 1, 5 }, { 2, 5 }, { 1, 5 }, { -1, 0 } },
		/* no rows */
		{ { -1, 0 } },
	};
	static const int want[] = { 4, 0, 2, -1 };

	for (size_t t = 0; t < sizeof(want) / sizeof(want[0]); t++) {
		struct tp_plot_pick *p;

		assert_int_equal(tp_plot_pick_new(&p), 0);
		for (size_t i = 0; rows[t][i].cpu >= 0; i++) {
			struct tp_trace_row r = { .time_ns = i, .cpu = rows[t][i].cpu,
						  .pressure = rows[t][i].p };

			tp_plot_pick_row(p, &r);
		}
		assert_int_equal(tp_plot_pick_cpu(p), want[t]);
		assert_int_equal(tp_plot_pick_has(p, want[t]), want[t] >= 0);
		assert_false(tp_plot_pick_has(p, 3));
		assert_false(tp_plot_pick_has(p, TP_MAX_CPUS));
		tp_plot_pick_free(p);
	}
	(void)state;
}

/* A plot buffer grows past its first allocation and keeps every point in order. */
static void test_plot_buf(void **state)
{
	struct tp_plot_buf b = { 0 };

	for (int64_t i = 0; i < 5000; i++)
		assert_int_equal(tp_plot_buf_add(&b, (uint64_t)i * 10, -i), 0);
	assert_int_equal(b.n, 5000);
	assert_true(b.alloc >= 5000);
	assert_int_equal(b.t[4999], 49990);
	assert_int_equal(b.v[1234], -1234);
	tp_plot_buf_free(&b);
	assert_int_equal(b.n, 0);
	assert_null(b.t);
	(void)state;
}
/*
 * The library decides on one pass or two: a row earlier than the first (no state start)
 * gives -EAGAIN without a rewind, and with one the same result as the whole trace in
 * memory (rewound for the span, then for the replay); span_first asks for two passes.
 */
static void test_replay_passes(void **state)
{
	static const char early[] = "time_ns,cpu,pressure\n20000000,1,5\n10000000,0,0\n"
				    "30000000,1,500\n45000000,0,800\n";
	static const char sorted[] = "time_ns,cpu,pressure\n10000000,0,0\n20000000,1,5\n";
	struct tp_trace t;
	struct tp_error err = { 0 };
	struct tp_replay_summary whole, streamed;
	struct tp_source *src = open_sim(250);
	struct tp_replay_backend b[1];
	struct tp_replay_options ro = { .hz = 0 };
	struct rewind_src c;
	size_t nb;

	(void)state;
	assert_int_equal(read_trace_text(early, &t, &err), 0);
	assert_int_equal(tp_replay_parse_backends("pelt:32", tp_source_plugins(src), b, 1, &nb,
						  &err), 0);
	assert_int_equal(tp_replay_run(&t, b, nb, NULL, NULL, NULL, &whole, &err), 0);
	assert_int_equal(stream_text(early, b, nb, &ro, &c, &streamed, &err), -EAGAIN);
	ro.rewind = rewind_rows;
	assert_int_equal(stream_text(early, b, nb, &ro, &c, &streamed, &err), 0);
	assert_int_equal(c.rewinds, 2);
	assert_int_equal(c.with_span, 1);
	assert_int_equal(streamed.ticks, whole.ticks);
	assert_int_equal(streamed.updates, whole.updates);
	assert_true(streamed.mad == whole.mad);
	/* a trace in order: one pass, unless the caller asks for the span first */
	assert_int_equal(stream_text(sorted, b, nb, &ro, &c, &streamed, &err), 0);
	assert_int_equal(c.rewinds, 0);
	ro.span_first = true;
	assert_int_equal(stream_text(sorted, b, nb, &ro, &c, &streamed, &err), 0);
	assert_int_equal(c.rewinds, 2);
	assert_int_equal(tp_replay_hz(&t.meta, 0), TP_HZ_DEFAULT);
	assert_int_equal(tp_replay_hz(&t.meta, 1000), 1000);
	tp_trace_free(&t);
	tp_source_close(src);
}

static void test_parse_backends(void **state)
{
	struct tp_source *src = open_sim(250);
	struct tp_replay_backend b[8];
	struct tp_error err = { 0 };
	size_t nb = 0;

	(void)state;
	assert_int_equal(tp_replay_parse_backends("instant,pelt:32,pelt:100,decay:1s,decay",
						  tp_source_plugins(src), b, 8, &nb, &err), 0);
	assert_int_equal(nb, 5);
	assert_string_equal(b[0].label, "instant");
	assert_string_equal(b[2].label, "pelt:128");	/* 100 rounds to 128 */
	assert_string_equal(b[3].label, "decay:1000");
	assert_string_equal(b[4].label, "decay:250");
	assert_int_equal(tp_replay_parse_backends("fast", tp_source_plugins(src), b, 8, &nb, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "unknown backend 'fast'"));
	assert_int_equal(tp_replay_parse_backends("instant:3", tp_source_plugins(src), b, 8, &nb,
						  &err), -EINVAL);
	/* none has no decay period either */
	assert_int_equal(tp_replay_parse_backends("none,instant", tp_source_plugins(src), b, 8,
						  &nb, &err), 0);
	assert_int_equal(nb, 2);
	assert_string_equal(b[0].label, "none");
	assert_int_equal(tp_replay_parse_backends("none:32", tp_source_plugins(src), b, 8, &nb,
						  &err), -EINVAL);
	assert_non_null(strstr(err.msg, "backend none has no decay period"));
	assert_int_equal(tp_replay_parse_backends("decay:20000", tp_source_plugins(src), b, 8,
						  &nb, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "out of range"));
	tp_source_close(src);
}

static int read_profile_text(struct tp_source *src, const char *text, struct tp_profile *p,
			     struct tp_error *err)
{
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	FILE *fp = text_file(text);
	int rc;

	take(src, &snap);
	rc = tp_profile_read(fp, "p.txt", &snap, p, err);
	fclose(fp);
	tp_snapshot_release(&snap);
	return rc;
}

static void test_profile_malformed(void **state)
{
	struct tp_source *src = open_sim(250);
	struct tp_profile p;
	struct tp_error err = { 0 };

	(void)state;
	assert_int_equal(read_profile_text(src, "# comment\n0, big, 60%\nfoo\n", &p, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "p.txt:3: expected 'TIME, CPULIST, VALUE'"));
	assert_int_equal(read_profile_text(src, "0, big, 60%\n1s, big, fast\n", &p, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "p.txt:2: "));
	assert_non_null(strstr(err.msg, "fast"));
	assert_int_equal(read_profile_text(src, "0, 9, 60%\n", &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "p.txt:1: "));
	assert_non_null(strstr(err.msg, "9"));
	assert_int_equal(read_profile_text(src, "soon, big, 60%\n", &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "p.txt:1: "));
	assert_int_equal(read_profile_text(src, "1s, big, 9GHz\n", &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "p.txt:1: "));
	assert_int_equal(read_profile_text(src, "1s, , 50%\n", &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "p.txt:1: empty field"));
	assert_int_equal(read_profile_text(src, "# nothing\n\n", &p, &err), -EINVAL);
	assert_string_equal(err.msg, "p.txt: the profile has no steps "
			    "(lines of 'TIME, CPULIST, VALUE')");
	tp_source_close(src);
}

/* A step later than a trace's times can reach (INT64_MAX ns, with the start and tail)
 * is refused, not wrapped into negative times (found by fuzz_profile). */
static void test_profile_beyond_trace_range(void **state)
{
	struct tp_source *src = open_sim(250);
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_profile p;
	struct tp_trace t;
	struct tp_error err = { 0 };

	(void)state;
	assert_int_equal(read_profile_text(src, "0, big, 60%\n223666666min, big, clear\n", &p,
					   &err), 0);
	take(src, &snap);
	assert_int_equal(tp_profile_to_trace(&p, &snap, 10000000000ull, 1000 * MS, &t, &err),
			 -ERANGE);
	assert_non_null(strstr(err.msg, "later than a trace's times can reach"));
	tp_profile_free(&p);
	tp_snapshot_release(&snap);
	tp_source_close(src);
}

static void test_profile_sorted_and_replayed(void **state)
{
	struct tp_source *src = open_sim(250);
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_profile p;
	struct tp_trace t;
	struct tp_error err = { 0 };
	struct tp_replay_backend b[4];
	struct tp_replay_summary sum[4];
	size_t nb;

	(void)state;
	/* unsorted lines are sorted by time, lines at the same time keep their order */
	assert_int_equal(read_profile_text(src, "2s, big, clear\n0, 0-3,6, 50%\n"
					   "500ms, big, cap=512\n500ms, 4, 2362000\n", &p, &err), 0);
	assert_int_equal(p.nr_steps, 4);
	assert_int_equal(p.steps[0].line, 2);
	assert_int_equal(p.steps[1].line, 3);
	assert_int_equal(p.steps[2].line, 4);
	assert_int_equal(p.steps[3].line, 1);
	assert_int_equal(p.end_ns, 2000 * MS);
	assert_int_equal(tp_cpuset_count(p.steps[0].cpus), 5);
	take(src, &snap);
	assert_int_equal(tp_profile_to_trace(&p, &snap, 10000000000ull, 1000 * MS, &t, &err), 0);
	assert_int_equal(tp_replay_parse_backends("instant,pelt,decay:125,none",
						  tp_source_plugins(src), b, 4, &nb, &err), 0);
	assert_int_equal(tp_replay_run(&t, b, nb, NULL, NULL, NULL, sum, &err), 0);
	/* instant follows at once: no deviation at the ticks, steps reached at 0 ms */
	assert_true(sum[0].mad == 0);
	assert_int_equal(sum[0].reached50, sum[0].steps);
	assert_true(sum[0].t90_ms == 0);
	assert_true(sum[0].capacity_s_lost > 0);
	/* pelt lags: 50 % of a step in about one half-life (32 ms) */
	assert_true(sum[1].mad > 0);
	assert_true(sum[1].t50_ms >= 28 && sum[1].t50_ms <= 40);
	assert_true(sum[1].pressure_s == sum[0].pressure_s);
	assert_int_equal(sum[1].exact, -1);
	/* none never moves: further from the pressure than pelt, only the steps down to 0
	 * reached (at its next tick), no capacity lost */
	assert_true(sum[3].mad > sum[1].mad);
	assert_true(sum[3].reached50 > 0 && sum[3].reached50 < sum[3].steps);
	assert_true(sum[3].capacity_s_lost == 0);
	assert_true(sum[3].pressure_s == sum[0].pressure_s);
	tp_trace_free(&t);
	tp_profile_free(&p);
	tp_snapshot_release(&snap);
	tp_source_close(src);
}

static void test_play_restores(void **state)
{
	struct tp_source *src = open_sim(250);
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_profile p;
	struct tp_error err = { 0 };
	struct tp_play_options o = { .virtual_clock = true };

	(void)state;
	cap(src, "5", "1.5GHz");
	assert_int_equal(read_profile_text(src, "0, big, 50%\n100ms, 0, 60%\n300ms, 5, clear\n",
					   &p, &err), 0);
	assert_int_equal(tp_profile_play(src, &p, &o, &err), 0);
	take(src, &snap);
	assert_int_equal(snap.time_ns, 10000000000ull + 300 * MS);
	assert_int_equal(snap.cpus[0].capped_freq_khz, snap.cpus[0].max_freq_khz);
	assert_int_equal(snap.cpus[4].capped_freq_khz, snap.cpus[4].max_freq_khz);
	assert_int_equal(snap.cpus[5].capped_freq_khz, 1500000);
	assert_true(snap.cpus[4].avg_pressure > 0);	/* it was capped for a while */
	tp_snapshot_release(&snap);

	volatile sig_atomic_t stop = 1;
	o.stop = &stop;
	assert_int_equal(tp_profile_play(src, &p, &o, &err), 0);
	take(src, &snap);
	assert_int_equal(snap.cpus[4].capped_freq_khz, snap.cpus[4].max_freq_khz);
	tp_snapshot_release(&snap);
	tp_profile_free(&p);
	tp_source_close(src);
}

static void test_svg(void **state)
{
	uint64_t t[] = { 0, 1000000, 2000000 };
	int64_t v1[] = { 0, 512, 0 }, v2[] = { 0, 200, 300 };
	struct tp_plot_series s[] = { { "pressure", 3, t, v1 }, { "pelt:32 <avg>", 3, t, v2 } };
	struct tp_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(tp_plot_svg(fp, "cpu 4 & friends", s, 2, &err), 0);
	fclose(fp);
	assert_non_null(strstr(buf, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(buf, "pelt:32 &lt;avg&gt;"));
	assert_non_null(strstr(buf, "cpu 4 &amp; friends"));
	assert_null(strstr(buf, "<script"));
	assert_string_equal(buf + len - 7, "</svg>\n");
	free(buf);
}

/* A series the same as the pressure (instant) stays visible: dashed and wider, and said so. */
static void test_svg_same_curve_visible(void **state)
{
	uint64_t t[] = { 0, 1000000, 2000000 };
	int64_t v1[] = { 0, 512, 0 }, v2[] = { 0, 200, 300 };
	struct tp_plot_series s[] = {
		{ "pressure", 3, t, v1 }, { "instant", 3, t, v1 }, { "pelt:32", 3, t, v2 },
	};
	struct tp_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	const char *p;

	(void)state;
	assert_int_equal(tp_plot_svg(fp, "same", s, 3, &err), 0);
	fclose(fp);
	p = strstr(buf, "class=\"series\" data-series=\"1\"");
	assert_non_null(p);
	assert_non_null(strstr(p, "stroke-dasharray"));
	assert_true(strstr(p, "stroke-dasharray") < strchr(p, '>'));
	assert_non_null(strstr(p, "stroke-width=\"4.5\""));
	p = strstr(buf, "<g class=\"legend\" data-series=\"1\"");
	assert_non_null(p);
	assert_non_null(strstr(p, "dashed: same as pressure"));
	/* a series unlike the others keeps its plain stroke and has no note */
	p = strstr(buf, "<g class=\"legend\" data-series=\"2\"");
	assert_non_null(p);
	assert_true(strstr(p, "</g>") < (strstr(p, "same as") ? strstr(p, "same as") : p + strlen(p)));
	free(buf);
}

/* The text of each element of class cls, in order, joined by spaces. */
static void svg_texts(const char *svg, const char *cls, char *out, size_t size)
{
	char key[64];
	size_t used = 0;

	snprintf(key, sizeof(key), "class=\"%s\"", cls);
	out[0] = '\0';
	for (const char *p = strstr(svg, key); p; p = strstr(p + 1, key)) {
		const char *b = strchr(p, '>') + 1, *e = strchr(b, '<');

		used += (size_t)snprintf(out + used, size - used, "%s%.*s", used ? " " : "",
					 (int)(e - b), b);
	}
}

/* Round ticks (1-2-5 steps, axes ending on a tick), the pressure on top, every series named. */
#define PRESSURE_PATH "class=\"series\" data-series=\"0\" "
static void test_svg_ticks_order_legend(void **state)
{
	enum { NS = 20 };
	uint64_t t[] = { 1000000000, 4000000000, 8990000000 };	/* 7.99 s */
	int64_t v[] = { 0, 409, 100 };
	struct tp_plot_series s[NS];
	char labels[NS][16], texts[512], *buf = NULL;
	struct tp_error err = { 0 };
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	const char *last, *p;
	int height = 0;

	(void)state;
	for (int i = 0; i < NS; i++) {
		snprintf(labels[i], sizeof(labels[i]), i ? "decay:%d" : "pressure", 100 * i);
		s[i] = (struct tp_plot_series){ labels[i], 3, t, v };
	}
	assert_int_equal(tp_plot_svg(fp, "t", s, NS, &err), 0);
	fclose(fp);
	svg_texts(buf, "xtick", texts, sizeof(texts));
	assert_string_equal(texts, "0 2 4 6 8");
	svg_texts(buf, "ytick", texts, sizeof(texts));
	assert_string_equal(texts, "0 100 200 300 400 500");
	/* the pressure's curve is the last one drawn */
	for (last = p = strstr(buf, "class=\"series\""); p; p = strstr(p + 1, "class=\"series\""))
		last = p;
	assert_non_null(last);
	assert_int_equal(strncmp(last, PRESSURE_PATH, strlen(PRESSURE_PATH)), 0);
	/* all 20 named, the last legend line inside the image, the 11th unlike the 1st average */
	assert_int_equal(sscanf(strstr(buf, "height=\""), "height=\"%d\"", &height), 1);
	p = strstr(buf, "<g class=\"legend\" data-series=\"19\"");
	assert_non_null(p);
	assert_non_null(strstr(p, ">decay:1900<"));
	{
		double y = 0;

		assert_int_equal(sscanf(strstr(p, "y1=\""), "y1=\"%lf\"", &y), 1);
		assert_true(y + 4 < height);
	}
	p = strstr(buf, "<g class=\"legend\" data-series=\"11\"");
	assert_non_null(strstr(p, "stroke-dasharray"));
	free(buf);
}

/* A long series is drawn in buckets: a one-sample spike still reaches its height. */
static void test_svg_spike_kept(void **state)
{
	enum { N = 10000 };
	uint64_t *t = calloc(N, sizeof(*t));
	int64_t *v = calloc(N, sizeof(*v));
	struct tp_plot_series s = { "pressure", N, t, v };
	struct tp_error err = { 0 };
	char *buf = NULL, *path;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(t);
	assert_non_null(v);
	for (size_t i = 0; i < N; i++)
		t[i] = i * 1000000ull;
	v[5003] = 800;	/* the axis ends at 800: the spike's top is the plot's top, y = 40 */
	assert_int_equal(tp_plot_svg(fp, "spike", &s, 1, &err), 0);
	fclose(fp);
	path = strstr(buf, "class=\"series\"");
	assert_non_null(path);
	*strchr(path, '\n') = '\0';
	assert_non_null(strstr(path, "V40.0"));
	free(buf);
	free(t);
	free(v);
}

static void test_csv_roundtrip(void **state)
{
	struct tp_trace_meta m;
	struct tp_trace_writer *w;
	struct tp_trace t;
	struct tp_error err = { 0 };
	struct tp_trace_row r = { .time_ns = 5, .cpu = 3, .max_capacity = 462,
				  .max_freq_khz = TP_NONE, .capped_freq_khz = TP_NONE,
				  .pressure = 7, .avg_pressure = TP_NONE, .backend = "decay",
				  .decay_ms = 250 };
	FILE *fp = tmpfile();

	(void)state;
	tp_trace_meta_init(&m);
	m.hz = 1000;
	snprintf(m.source, sizeof(m.source), "a \"quoted\" source");
	for (int f = 0; f < 2; f++) {
		rewind(fp);
		assert_int_equal(ftruncate(fileno(fp), 0), 0);
		assert_int_equal(tp_trace_writer_open(fp, f ? TP_TRACE_JSONL : TP_TRACE_CSV, &m, &w,
						      &err), 0);
		assert_int_equal(tp_trace_write_row(w, &r, &err), 0);
		assert_int_equal(tp_trace_writer_close(w, &err), 0);
		rewind(fp);
		assert_int_equal(tp_trace_read(fp, "x", &t, &err), 0);
		assert_int_equal(t.nr_rows, 1);
		assert_int_equal(t.meta.hz, 1000);
		assert_int_equal(t.meta.state_start_ns, TP_NONE);
		assert_string_equal(t.meta.source, "a \"quoted\" source");
		assert_int_equal(t.rows[0].time_ns, 5);
		assert_int_equal(t.rows[0].cpu, 3);
		assert_int_equal(t.rows[0].max_capacity, 462);
		assert_int_equal(t.rows[0].max_freq_khz, TP_NONE);
		assert_int_equal(t.rows[0].pressure, 7);
		assert_int_equal(t.rows[0].avg_pressure, TP_NONE);
		assert_string_equal(t.rows[0].backend, "decay");
		assert_int_equal(t.rows[0].decay_ms, 250);
		tp_trace_free(&t);
	}
	fclose(fp);
}

/* Every column has a range (docs/experiments.md); -1 is not "missing" where none may be. */
static void test_trace_ranges(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ HDR "10,-1,-,-,-,5,-,-,-\n", "t.csv:2: cpu -1 is out of range (0..8191)" },
		{ HDR "10,8192,-,-,-,5,-,-,-\n", "t.csv:2: cpu 8192 is out of range (0..8191)" },
		{ HDR "-1,0,-,-,-,5,-,-,-\n",
		  "t.csv:2: time_ns -1 is out of range (0..9223372036854775807)" },
		{ HDR "9223372036854775808,0,-,-,-,5,-,-,-\n",
		  "t.csv:2: time_ns 9223372036854775808 is out of range (0..9223372036854775807)" },
		{ HDR "10,0,-,-,-,-1,-,-,-\n", "t.csv:2: pressure -1 is out of range (0..1024)" },
		{ HDR "10,0,-,-,-,-,-,-,-\n", "t.csv:2: pressure is missing (0..1024)" },
		{ HDR "10,-,-,-,-,5,-,-,-\n", "t.csv:2: cpu is missing (0..8191)" },
		{ HDR "10,0,0,-,-,5,-,-,-\n", "t.csv:2: max_capacity 0 is out of range (1..1024, or -)" },
		{ HDR "10,0,-1,-,-,5,-,-,-\n",
		  "t.csv:2: max_capacity -1 is out of range (1..1024, or -)" },
		{ HDR "10,0,-,-,-,5,1025,-,-\n",
		  "t.csv:2: avg_pressure 1025 is out of range (0..1024, or -)" },
		{ HDR "10,0,-,-,-,5,-1,-,-\n",
		  "t.csv:2: avg_pressure -1 is out of range (0..1024, or -)" },
		{ HDR "10,0,-,-,-,5,-,-,-1\n",
		  "t.csv:2: decay_ms -1 is out of range (0..4294967295, or -)" },
		{ HDR "10,0,-,-1,-,5,-,-,-\n",
		  "t.csv:2: max_freq_khz -1 is out of range (1..4294967295, or -)" },
		{ "# hz 0\n" HDR, "t.csv:1: hz 0 is out of range (1..100000)" },
		{ "# state_start_ns -1\n" HDR,
		  "t.csv:1: state_start_ns -1 is out of range (0..9223372036854775807)" },
		{ "{\"time_ns\":1,\"cpu\":-1,\"pressure\":3}\n",
		  "t.csv:1: cpu -1 is out of range (0..8191)" },
		{ "{\"time_ns\":1,\"cpu\":0,\"pressure\":null}\n", "t.csv:1: pressure is missing (0..1024)" },
		{ "{\"time_ns\":1,\"cpu\":0,\"pressure\":\"3\"}\n", "t.csv:1: pressure must be a number" },
		{ "{\"time_ns\":1.5,\"cpu\":0,\"pressure\":3}\n", "t.csv:1: time_ns '1.5' is not a number" },
		{ "{\"time_ns\":1,\"cpu\":0,\"pressure\":3,\"backend\":\"\\ud800\"}\n",
		  "t.csv:1: a lone UTF-16 surrogate in a string" },
		{ HDR "10,0,-,-,-,5,-,\"pelt,-\n", "t.csv:2: a quoted field is not closed" },
		/* found by fuzz_trace: a key at the end of the line was read past */
		{ "{\"time_ns\"", "t.csv:1: expected one JSON object on the line" },
	};
	struct tp_trace t;
	struct tp_error err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(read_trace_text(bad[i].text, &t, &err), -EINVAL);
		assert_string_equal(err.msg, bad[i].msg);
		tp_trace_free(&t);
	}
	/* the ends of every range are fine */
	assert_int_equal(read_trace_text(HDR "0,0,1,1,0,0,0,-,0\n"
					 "9223372036854775807,8191,1024,4294967295,4294967295,1024,"
					 "1024,x,4294967295\n", &t, &err), 0);
	assert_int_equal(t.nr_rows, 2);
	assert_int_equal(t.rows[1].time_ns, INT64_MAX);
	assert_int_equal(t.rows[1].cpu, 8191);
	tp_trace_free(&t);
}

/* JSON escapes are decoded, surrogate pairs included. */
static void test_jsonl_escapes(void **state)
{
	struct tp_trace t;
	struct tp_error err = { 0 };

	(void)state;
	assert_int_equal(read_trace_text("{\"thermpress_trace\":1,\"source\":\"a\\\"b\\\\c\\/d\\n"
					 "\\u00e9\\ud83d\\ude00\\t\",\"backend\":\"\\u0064ecay\"}\n"
					 "{\"time_ns\":1,\"cpu\":0,\"pressure\":3,\"backend\":"
					 "\"p\\u0065lt\"}\n", &t, &err), 0);
	assert_string_equal(t.meta.source, "a\"b\\c/d\n\xc3\xa9\xf0\x9f\x98\x80\t");
	assert_string_equal(t.meta.backend, "decay");
	assert_int_equal(t.nr_rows, 1);
	assert_string_equal(t.rows[0].backend, "pelt");
	tp_trace_free(&t);
	/* a backend is a backend name, escaped or not; JSON strings are well-formed UTF-8 */
	assert_int_equal(read_trace_text("{\"time_ns\":1,\"cpu\":0,\"pressure\":3,\"backend\":"
					 "\"p\\u00e9lt\\r\"}\n", &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "is not a backend name"));
	tp_trace_free(&t);
	assert_int_equal(read_trace_text("{\"thermpress_trace\":1,\"source\":\"a\xc3\"}\n",
					 &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not valid UTF-8"));
	tp_trace_free(&t);
}

/*
 * CSV metadata strings are UTF-8 as JSON's are: ill-formed bytes in the source description,
 * quoted or not, in version 1 or 2, are refused at their line; what is well formed is read.
 */
static void test_csv_meta_utf8(void **state)
{
	static const char *const bad[] = {
		"# thermpress trace 2\n# source.description root /tmp/\xff\n",
		"# thermpress trace 2\n# source.description \"root \xc3\"\n",
		"# thermpress trace 2\n# source.description a\xed\xa0\x80" "b\n",	/* a surrogate */
		"# thermpress trace 2\n# source.description \xc0\xafoverlong\n",
		"# thermpress trace 1\n# source a\xf4\x90\x80\x80\n",	/* above U+10FFFF */
	};
	struct tp_trace t;
	struct tp_error err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256];

		snprintf(text, sizeof(text), "%s%s0,0,1,1,0,0,0,-,0\n", bad[i],
			 "time_ns,cpu,max_capacity,max_freq_khz,capped_freq_khz,pressure,"
			 "avg_pressure,backend,decay_ms\n");
		assert_int_equal(read_trace_text(text, &t, &err), -EINVAL);
		if (!strstr(err.msg, ":2: ") || !strstr(err.msg, "not valid UTF-8"))
			fail_msg("case %zu: '%s'", i, err.msg);
		tp_trace_free(&t);
	}
	assert_int_equal(read_trace_text("# thermpress trace 2\n# source.description caf\xc3\xa9 "
					 "\xf0\x9f\x98\x80\n" HDR, &t, &err), 0);
	assert_string_equal(t.meta.source, "caf\xc3\xa9 \xf0\x9f\x98\x80");
	tp_trace_free(&t);
}

/*
 * Whatever the writer writes, the reader reads back the same, in CSV and JSON lines;
 * traces carry only UTF-8, so ill-formed bytes of the source are written as U+FFFD in
 * both.
 * A backend is a backend name: the names that are not are refused in both formats.
 */
static void test_string_roundtrip(void **state)
{
	static const char *const names[] = {
		"plain", "with,comma", "with \"quotes\"", "two\nlines", "cr\rhere", "-", "\"", " pad ",
		"\t", "caf\xc3\xa9 \xf0\x9f\x98\x80", "ctl\x01\x1f\x7f", ",", "a,\"b\"\n,c", "#x",
		"\xff\xfe not utf-8",
	};
	static const char not_utf8_in_json[] = "\xef\xbf\xbd\xef\xbf\xbd not utf-8";
	struct tp_trace_writer *w;
	struct tp_error err = { 0 };
	struct tp_trace t;

	(void)state;
	for (int f = 0; f < 2; f++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			struct tp_trace_meta m;
			struct tp_trace_row r = { .time_ns = 5, .cpu = 1, .max_capacity = TP_NONE,
						  .max_freq_khz = 2000, .capped_freq_khz = 1000,
						  .pressure = 7, .avg_pressure = 3, .decay_ms = TP_NONE };
			FILE *fp = tmpfile();

			tp_trace_meta_init(&m);
			snprintf(m.source, sizeof(m.source), "root /tmp/%s/x", names[i]);
			snprintf(m.backend, sizeof(m.backend), "%s", i ? "none" : names[i]);
			snprintf(r.backend, sizeof(r.backend), "%s", i ? "none" : names[i]);
			assert_int_equal(tp_trace_writer_open(fp, f ? TP_TRACE_JSONL : TP_TRACE_CSV,
							      &m, &w, &err), 0);
			assert_int_equal(tp_trace_write_row(w, &r, &err), 0);
			r.time_ns = 6;
			assert_int_equal(tp_trace_write_row(w, &r, &err), 0);
			assert_int_equal(tp_trace_writer_close(w, &err), 0);
			rewind(fp);
			if (tp_trace_read(fp, "x", &t, &err))
				fail_msg("%s '%s': %s", f ? "jsonl" : "csv", names[i], err.msg);
			const char *want = names[i][0] == '\xff' ? not_utf8_in_json : names[i];
			char source[sizeof(m.source)];

			snprintf(source, sizeof(source), "root /tmp/%s/x", want);
			assert_string_equal(t.meta.source, source);
			assert_string_equal(t.meta.backend, i ? "none" : want);
			assert_int_equal(t.nr_rows, 2);
			for (int k = 0; k < 2; k++) {
				assert_string_equal(t.rows[k].backend, i ? "none" : want);
				assert_int_equal(t.rows[k].max_capacity, TP_NONE);
				assert_int_equal(t.rows[k].max_freq_khz, 2000);
				assert_int_equal(t.rows[k].avg_pressure, 3);
				assert_int_equal(t.rows[k].decay_ms, TP_NONE);
			}
			assert_int_equal(t.rows[1].time_ns, 6);
			tp_trace_free(&t);
			fclose(fp);
		}
}

/* Write meta and one row in fmt to a memory buffer (free it). */
static char *write_trace_text(enum tp_trace_format fmt, const struct tp_trace_meta *m)
{
	struct tp_trace_row r = { .time_ns = 5, .cpu = 1, .max_capacity = TP_NONE,
				  .max_freq_khz = TP_NONE, .capped_freq_khz = TP_NONE,
				  .pressure = 7, .avg_pressure = TP_NONE, .decay_ms = TP_NONE };
	struct tp_trace_writer *w;
	struct tp_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(tp_trace_writer_open(fp, fmt, m, &w, &err), 0);
	assert_int_equal(tp_trace_write_row(w, &r, &err), 0);
	assert_int_equal(tp_trace_writer_close(w, &err), 0);
	fclose(fp);
	return buf;
}

/* The source object (version 2): kind and description written, read back the same. */
static void test_source_roundtrip(void **state)
{
	static const enum tp_source_kind kinds[] = {
		TP_SOURCE_PATCHED, TP_SOURCE_SIM, TP_SOURCE_STOCK, TP_SOURCE_AUTO,
	};
	static const char *const descs[] = {
		"patched kernel at /", "simulator hikey960 (virtual clock)",
		"stock kernel 6.1.0, kernel average read with BPF", "",
	};

	(void)state;
	for (int f = 0; f < 2; f++)
		for (size_t i = 0; i < 4; i++) {
			struct tp_trace_meta m;
			struct tp_error err = { 0 };
			struct tp_trace t;
			char *text;

			tp_trace_meta_init(&m);
			m.source_kind = kinds[i];
			snprintf(m.source, sizeof(m.source), "%s", descs[i]);
			text = write_trace_text(f ? TP_TRACE_JSONL : TP_TRACE_CSV, &m);
			if (read_trace_text(text, &t, &err))
				fail_msg("%s: %s\n%s", f ? "jsonl" : "csv", err.msg, text);
			assert_int_equal(t.meta.version, TP_TRACE_VERSION);
			assert_int_equal(t.meta.source_kind, kinds[i]);
			assert_string_equal(t.meta.source, descs[i]);
			assert_int_equal(t.nr_rows, 1);
			tp_trace_free(&t);
			free(text);
		}
	/* the written shape, as docs/experiments.md shows it */
	{
		struct tp_trace_meta m;
		char *text;

		tp_trace_meta_init(&m);
		m.source_kind = TP_SOURCE_STOCK;
		snprintf(m.source, sizeof(m.source), "stock kernel");
		text = write_trace_text(TP_TRACE_CSV, &m);
		assert_non_null(strstr(text, "# thermpress trace 2\n# source.kind stock\n"
					     "# source.description stock kernel\n"));
		free(text);
		text = write_trace_text(TP_TRACE_JSONL, &m);
		assert_non_null(strstr(text, "{\"thermpress_trace\":2,\"source\":{\"kind\":\"stock\","
					     "\"description\":\"stock kernel\"},"));
		free(text);
		text = write_trace_text(TP_TRACE_PERFETTO, &m);
		assert_non_null(strstr(text, "\"metadata\":{\"thermpress_trace\":2,\"source\":"
					     "{\"kind\":\"stock\",\"description\":\"stock kernel\"},"));
		free(text);
		m.source_kind = TP_SOURCE_AUTO;
		m.source[0] = '\0';
		text = write_trace_text(TP_TRACE_JSONL, &m);
		assert_non_null(strstr(text, "\"source\":{\"kind\":null,\"description\":null},"));
		free(text);
	}
}

/* Version 1 traces (source a string: the description, kind unknown) still read. */
static void test_source_version1(void **state)
{
	static const char *const v1[] = {
		"# thermpress trace 1\n# source simulator hikey960 (virtual clock)\n# hz 250\n"
		HDR "10,0,-,-,-,5,-,-,-\n",
		"{\"thermpress_trace\":1,\"source\":\"simulator hikey960 (virtual clock)\","
		"\"backend\":\"decay\",\"hz\":250}\n{\"time_ns\":10,\"cpu\":0,\"pressure\":5}\n",
		/* hand-written: no version line */
		"# source simulator hikey960 (virtual clock)\n# hz 250\n" HDR "10,0,-,-,-,5,-,-,-\n",
	};
	static const int version[] = { 1, 1, TP_TRACE_VERSION };

	(void)state;
	for (size_t i = 0; i < sizeof(v1) / sizeof(v1[0]); i++) {
		struct tp_error err = { 0 };
		struct tp_trace t;

		if (read_trace_text(v1[i], &t, &err))
			fail_msg("%s\n%s", err.msg, v1[i]);
		assert_int_equal(t.meta.version, version[i]);
		assert_int_equal(t.meta.source_kind, TP_SOURCE_AUTO);
		assert_string_equal(t.meta.source, "simulator hikey960 (virtual clock)");
		assert_int_equal(t.meta.hz, 250);
		assert_int_equal(t.nr_rows, 1);
		tp_trace_free(&t);
	}
}

/* Unknown versions, unknown kinds and a malformed source are refused, naming the line. */
static void test_source_refused(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "# thermpress trace 3\n" HDR,
		  "t.csv:1: trace version 3 is not supported (this thermpress reads versions 1 and 2)" },
		{ "# thermpress trace 0\n" HDR,
		  "t.csv:1: trace version 0 is not supported (this thermpress reads versions 1 and 2)" },
		{ "{\"thermpress_trace\":3,\"source\":{\"kind\":\"sim\"}}\n",
		  "t.csv:1: trace version 3 is not supported (this thermpress reads versions 1 and 2)" },
		{ "{\"thermpress_trace\":null}\n",
		  "t.csv:1: the trace version is missing (this thermpress reads versions 1 and 2)" },
		{ "\n# thermpress trace 2\n# source.kind bpf\n" HDR,
		  "t.csv:3: source kind 'bpf' is not known (patched, sim, stock, or null)" },
		{ "{\"thermpress_trace\":2,\"source\":{\"kind\":\"auto\"}}\n",
		  "t.csv:1: source kind 'auto' is not known (patched, sim, stock, or null)" },
		{ "{\"thermpress_trace\":2,\"source\":{\"kind\":1}}\n",
		  "t.csv:1: source.kind must be a string or null" },
		{ "{\"thermpress_trace\":2,\"source\":{\"description\":{}}}\n",
		  "t.csv:1: nested values are not part of a trace" },
		{ "{\"thermpress_trace\":2,\"source\":3}\n",
		  "t.csv:1: source must be an object {kind, description} or a string" },
		{ "{\"thermpress_trace\":2,\"source\":{\"kind\":\"sim\"\n",
		  "t.csv:1: expected one JSON object on the line" },
		{ "{\"thermpress_trace\":2,\"source\":{\"kind\":\"sim\"}\n",
		  "t.csv:1: expected one JSON object on the line" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tp_error err = { 0 };
		struct tp_trace t;

		assert_int_equal(read_trace_text(bad[i].text, &t, &err), -EINVAL);
		assert_string_equal(err.msg, bad[i].msg);
		tp_trace_free(&t);
	}
}

/* A source value replaces the whole source; source.kind and source.description one part. */
static void test_source_parts(void **state)
{
	struct tp_error err = { 0 };
	struct tp_trace t;

	(void)state;
	assert_int_equal(read_trace_text("# thermpress trace 2\n# source.kind sim\n"
					 "# source old text\n" HDR, &t, &err), 0);
	assert_int_equal(t.meta.source_kind, TP_SOURCE_AUTO);
	assert_string_equal(t.meta.source, "old text");
	tp_trace_free(&t);
	assert_int_equal(read_trace_text("# thermpress trace 2\n# source old text\n"
					 "# source.kind \"patched\"\n" HDR, &t, &err), 0);
	assert_int_equal(t.meta.source_kind, TP_SOURCE_PATCHED);
	assert_string_equal(t.meta.source, "old text");
	tp_trace_free(&t);
	assert_int_equal(read_trace_text("{\"thermpress_trace\":2,\"source\":\"x\",\"source\":"
					 "{ \"extra\" : [1], \"kind\" : \"stock\" }}\n", &t, &err),
			 -EINVAL);	/* nested values stay out, inside source too */
	tp_trace_free(&t);
	assert_int_equal(read_trace_text("{\"thermpress_trace\":2,\"source\":\"x\",\"source\":"
					 "{ \"extra\" : true, \"kind\" : \"stock\" }}\n", &t, &err),
			 0);
	assert_int_equal(t.meta.source_kind, TP_SOURCE_STOCK);
	assert_string_equal(t.meta.source, "");
	tp_trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_instant),
		cmocka_unit_test(test_exact_none),
		cmocka_unit_test(test_exact_pelt32),
		cmocka_unit_test(test_exact_pelt128),
		cmocka_unit_test(test_exact_decay125),
		cmocka_unit_test(test_exact_decay500),
		cmocka_unit_test(test_exact_hz1000),
		cmocka_unit_test(test_perfetto_records),
		cmocka_unit_test(test_perfetto_format),
		cmocka_unit_test(test_trace_malformed),
		cmocka_unit_test(test_trace_unsorted),
		cmocka_unit_test(test_trace_empty),
		cmocka_unit_test(test_parse_backends),
		cmocka_unit_test(test_profile_malformed),
		cmocka_unit_test(test_profile_sorted_and_replayed),
		cmocka_unit_test(test_profile_beyond_trace_range),
		cmocka_unit_test(test_play_restores),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_svg_same_curve_visible),
		cmocka_unit_test(test_svg_ticks_order_legend),
		cmocka_unit_test(test_svg_spike_kept),
		cmocka_unit_test(test_csv_roundtrip),
		cmocka_unit_test(test_trace_ranges),
		cmocka_unit_test(test_jsonl_escapes),
		cmocka_unit_test(test_csv_meta_utf8),
		cmocka_unit_test(test_string_roundtrip),
		cmocka_unit_test(test_source_roundtrip),
		cmocka_unit_test(test_source_version1),
		cmocka_unit_test(test_source_refused),
		cmocka_unit_test(test_source_parts),
		cmocka_unit_test(test_replay_passes),
		cmocka_unit_test(test_plot_pick),
		cmocka_unit_test(test_plot_buf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
