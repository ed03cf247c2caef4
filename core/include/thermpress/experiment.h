/* SPDX-License-Identifier: MIT */
/*
 * libthermpress experiments: record traces, read traces and cap profiles, replay a
 * pressure timeline through backend plugins, summarise and plot the result, play a
 * cap profile on a source.  docs/experiments.md describes every format and rule.
 *
 * Like the rest of the library these functions never print and never exit: they
 * write to the FILE * the caller gives and return 0 or a negative errno, with a
 * message in struct tp_error.  Messages about input name the file and the line:
 * "prof.txt:3: unknown cap value 'fast' (...)".
 */
#ifndef THERMPRESS_EXPERIMENT_H
#define THERMPRESS_EXPERIMENT_H

#include <stdio.h>

#include <thermpress/thermpress.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the public API: exported from libthermpress, built with hidden visibility */
#pragma GCC visibility push(default)

/*
 * The trace format version written; the reader reads TP_TRACE_VERSION_MIN up to it and
 * refuses any other.  1: source is its description only; 2: source is the object
 * {kind, description} (docs/experiments.md, "Versions").
 */
#define TP_TRACE_VERSION 2
#define TP_TRACE_VERSION_MIN 1

/* ---- Traces --------------------------------------------------------------- */

enum tp_trace_format {
	TP_TRACE_CSV,		/* columns of TP_TRACE_CSV_HEADER, '#' metadata lines first */
	TP_TRACE_JSONL,		/* one metadata object, then one object per row */
	TP_TRACE_PERFETTO,	/* Chrome/Perfetto JSON: one counter track per CPU and signal */
};

#define TP_TRACE_CSV_HEADER \
	"time_ns,cpu,max_capacity,max_freq_khz,capped_freq_khz,pressure,avg_pressure,backend,decay_ms"

/* "csv", "jsonl", "perfetto". */
int tp_trace_format_parse(const char *name, enum tp_trace_format *out, struct tp_error *err);

/* The first line of a CSV trace written by thermpress (then " VERSION"). */
#define TP_TRACE_CSV_MAGIC "# thermpress trace"

/*
 * Whether a file starting with the len bytes at head (need not end in NUL) is a
 * trace rather than a cap profile: after blank space, a JSON object (JSON lines, or
 * a Perfetto trace when the bytes given hold its "displayTimeUnit" or "traceEvents"
 * key), TP_TRACE_CSV_MAGIC or a CSV header starting "time_ns,".  1 with *format set,
 * or 0.  tp_trace_read reads CSV and JSON lines; a Perfetto trace is for its viewers.
 */
int tp_trace_detect(const char *head, size_t len, enum tp_trace_format *format);

/*
 * What a trace says about itself.  state_start_ns is the time every CPU's averaging
 * state was last reset before the first row (TP_NONE: unknown), first_tick_ns the
 * first scheduler tick that updated that state (TP_NONE: unknown).  Replay starts
 * its state there; see docs/experiments.md, "Where replay state starts".
 */
struct tp_trace_meta {
	int version;			/* as read (absent: TP_TRACE_VERSION); written: always that */
	enum tp_source_kind source_kind;	/* TP_SOURCE_AUTO: unknown (a version 1 trace) */
	char source[160];		/* the description, tp_source_describe(); "" unknown */
	char backend[TP_NAME_MAX];	/* at the start of the trace, "" unknown */
	int64_t decay_ms;		/* TP_NONE unknown */
	int hz;				/* TP_NONE unknown */
	int64_t state_start_ns;
	int64_t first_tick_ns;
};

void tp_trace_meta_init(struct tp_trace_meta *meta);

struct tp_trace_row {
	uint64_t time_ns;
	int cpu;
	int64_t max_capacity, max_freq_khz, capped_freq_khz;	/* TP_NONE when missing */
	int64_t pressure;					/* always present */
	int64_t avg_pressure;					/* TP_NONE when missing */
	char backend[TP_NAME_MAX];
	int64_t decay_ms;
};

struct tp_trace_writer;

/* Start a trace on fp (the caller keeps fp and closes it). */
int tp_trace_writer_open(FILE *fp, enum tp_trace_format fmt, const struct tp_trace_meta *meta,
			 struct tp_trace_writer **out, struct tp_error *err);
/* One row per CPU of snap, at snap->time_ns. */
int tp_trace_write_snapshot(struct tp_trace_writer *w, const struct tp_snapshot *snap,
			    struct tp_error *err);
int tp_trace_write_row(struct tp_trace_writer *w, const struct tp_trace_row *row,
		       struct tp_error *err);
/* Finish the file (the Perfetto trace's closing brackets), flush, check for write
 * errors, free w.  Always frees w. */
int tp_trace_writer_close(struct tp_trace_writer *w, struct tp_error *err);
size_t tp_trace_writer_rows(const struct tp_trace_writer *w);

/* A trace read back: rows in file order (per CPU, times never go back). */
struct tp_trace {
	struct tp_trace_meta meta;
	size_t nr_rows;
	struct tp_trace_row *rows;
	size_t rows_alloc;
};

/*
 * Read a CSV or JSON-lines trace (told apart by the first non-blank character).
 * name is used in messages.  An empty trace (no rows) is not an error: nr_rows 0.
 * A row whose time is before an earlier row of the same CPU is an error naming both
 * lines.  Free with tp_trace_free (also after an error).
 */
int tp_trace_read(FILE *fp, const char *name, struct tp_trace *out, struct tp_error *err);
void tp_trace_free(struct tp_trace *trace);

/*
 * The same reader one row at a time, in constant memory: open reads the metadata (up
 * to the first row), next gives 1 and a row, 0 at the end, or an error naming the line.
 * Every value is checked against its documented range (docs/experiments.md).
 */
struct tp_trace_reader;
int tp_trace_reader_open(FILE *fp, const char *name, struct tp_trace_reader **out,
			 struct tp_error *err);
const struct tp_trace_meta *tp_trace_reader_meta(const struct tp_trace_reader *rd);
int tp_trace_reader_next(struct tp_trace_reader *rd, struct tp_trace_row *row,
			 struct tp_error *err);
/* The line of the last record read. */
unsigned tp_trace_reader_line(const struct tp_trace_reader *rd);
void tp_trace_reader_close(struct tp_trace_reader *rd);

/* ---- Cap profiles ------------------------------------------------------------- */

/* One line of a profile: `TIME, CPULIST, VALUE` (VALUE as `cap set` takes, or clear). */
struct tp_profile_step {
	uint64_t time_ns;		/* from the start of the profile */
	const struct tp_cpuset *cpus;	/* one of the profile's sets */
	bool clear;
	struct tp_cap_value value;	/* unless clear */
	unsigned line;
};

/* The most distinct CPU lists of one profile (each set is 1 KB; steps share them). */
#define TP_PROFILE_MAX_SETS 4096

struct tp_profile {
	size_t nr_steps;
	struct tp_profile_step *steps;	/* stably sorted by time */
	uint64_t end_ns;		/* the last step's time */
	size_t nr_sets;
	struct tp_cpuset *sets;		/* the distinct CPU sets the steps point to */
};

/*
 * Parse a profile against topo (CPU lists are checked against it, and every value
 * must be realisable on every CPU it names).  The first problem fails the whole
 * profile with "NAME:LINE: ...".  A profile without steps is an error.
 */
int tp_profile_read(FILE *fp, const char *name, const struct tp_snapshot *topo,
		    struct tp_profile *out, struct tp_error *err);
void tp_profile_free(struct tp_profile *profile);

/*
 * The pressure timeline a profile produces on topo, as a trace starting at start_ns
 * with every CPU the profile names uncapped, and ending tail_ns after its last step.
 * meta.state_start_ns = meta.first_tick_ns = start_ns (a fresh simulator).
 */
int tp_profile_to_trace(const struct tp_profile *profile, const struct tp_snapshot *topo,
			uint64_t start_ns, uint64_t tail_ns, struct tp_trace *out,
			struct tp_error *err);

/* ---- Replay ----------------------------------------------------------------- */

#define TP_REPLAY_MAX_BACKENDS 32

struct tp_replay_backend {
	char label[48];			/* "pelt:32", "instant" */
	const struct tp_backend_ops *ops;
	uint32_t decay_ms;		/* in force (normalised), 0 without a parameter */
	uint32_t asked_ms;		/* as written in the list (its default when not) */
};

/* "instant,pelt:32,decay:250" ("pelt" alone: its default decay). */
int tp_replay_parse_backends(const char *list, const struct tp_plugin_set *plugins,
			     struct tp_replay_backend *out, size_t max, size_t *count,
			     struct tp_error *err);

struct tp_trace_span;
struct tp_replay_options {
	int hz;				/* 0: the trace's hz, else 250 (tp_replay_hz) */
	/*
	 * tp_replay_stream without a span: set, the library may read the rows twice, and
	 * calls rewind to start them again, once before the pass that learns their span
	 * (span NULL) and once before the replay (span: what that pass learned).  0 or
	 * -errno with its message.  The metadata given stays in use across a rewind:
	 * pass a copy, not tp_trace_reader_meta() of a reader the rewind closes.
	 */
	int (*rewind)(void *src, const struct tp_trace_span *span, struct tp_error *err);
	bool span_first;		/* with rewind: always learn the span first */
};

/* The tick rate a replay runs at: hz when given (not 0), else the trace's, else 250. */
int tp_replay_hz(const struct tp_trace_meta *meta, int hz);

/* One backend update: a tick, or a cap change for backends updated on change. */
struct tp_replay_point {
	uint64_t time_ns;
	int cpu;
	uint64_t pressure;
	uint64_t avg_pressure;
	bool tick;			/* false: an update on change */
};

/* Called for every update, backend by backend, CPU by CPU, in time order.  A
 * nonzero return stops the replay and is returned. */
typedef int (*tp_replay_fn)(void *arg, size_t backend, const struct tp_replay_point *pt);

struct tp_replay_summary {
	uint64_t updates, ticks;
	double mad;			/* mean |avg - pressure| over ticks */
	size_t steps;			/* pressure changes */
	size_t reached50, reached90;	/* steps whose average got there before the next */
	double t50_ms, t90_ms;		/* mean time to get there, over those that did */
	double t50_max_ms, t90_max_ms;
	double capacity_s_lost;		/* sum over CPUs of the integral of avg, capacity x s */
	double pressure_s;		/* the same for the instantaneous pressure */
	/*
	 * Comparison with the trace's own avg_pressure, done when this backend and decay
	 * are the trace's and the trace says where its state starts: 1 every row matched,
	 * 0 a mismatch (the first one below), -1 not compared.
	 */
	int exact;
	size_t compared;
	uint64_t mismatch_time_ns;
	int mismatch_cpu;
	int64_t mismatch_recorded, mismatch_replayed;
};

/*
 * Replay trace through each of the nb backends (see docs/experiments.md for the
 * rules).  fn may be NULL.  sums has nb entries.  -ENODATA for a trace without rows,
 * -E2BIG for one longer than TP_REPLAY_MAX_TICKS ticks.
 */
int tp_replay_run(const struct tp_trace *trace, const struct tp_replay_backend *b, size_t nb,
		  const struct tp_replay_options *opts, tp_replay_fn fn, void *arg,
		  struct tp_replay_summary *sums, struct tp_error *err);

/*
 * Streaming replay: the rows come from next (1 a row, 0 the end, <0 an error with its
 * message), in the order a trace reader gives them; memory stays bounded by the number
 * of CPUs and backends.  The state start and the ticks depend on the earliest and
 * latest times of the whole trace: give span from a first pass over the rows
 * (tp_trace_span_add on each), or NULL to learn it on the way in one pass; then a
 * trace without state_start_ns whose first row is not its earliest needs the span
 * first: with opts->rewind the library reads the rows again for it, without it the
 * replay gives -EAGAIN; the tick limit is checked row by row.  fn sees
 * the same points in the same order as with tp_replay_run: they are spooled to an
 * unlinked temporary file and given at the end, so a failed replay gives fn nothing.
 */
#define TP_REPLAY_MAX_TICKS 100000000ull	/* per CPU: 4.6 days at 250 Hz */
struct tp_trace_span {
	size_t rows;
	uint64_t first_ns, last_ns;	/* the earliest and latest times of any row */
};
void tp_trace_span_add(struct tp_trace_span *span, const struct tp_trace_row *row);
/* The ticks per CPU a replay of the span at hz runs (checked against the limit). */
uint64_t tp_replay_ticks(const struct tp_trace_meta *meta, const struct tp_trace_span *span,
			 int hz);
typedef int (*tp_replay_next_fn)(void *src, struct tp_trace_row *row, struct tp_error *err);
int tp_replay_stream(const struct tp_trace_meta *meta, const struct tp_trace_span *span,
		     tp_replay_next_fn next, void *src, const struct tp_replay_backend *b,
		     size_t nb, const struct tp_replay_options *opts, tp_replay_fn fn, void *arg,
		     struct tp_replay_summary *sums, struct tp_error *err);

/* The replay output CSV: header, and a tp_replay_fn that writes rows to a
 * struct tp_replay_csv. */
#define TP_REPLAY_CSV_HEADER "time_ns,cpu,backend,decay_ms,pressure,avg_pressure"
struct tp_replay_csv {
	FILE *fp;
	const struct tp_replay_backend *backends;
};
int tp_replay_csv_row(void *arg, size_t backend, const struct tp_replay_point *pt);

/* ---- Plots -------------------------------------------------------------------- */

/* A step series: the value v[i] holds from t[i] until t[i + 1]. */
struct tp_plot_series {
	const char *label;
	size_t n;
	const uint64_t *t;
	const int64_t *v;
};

/* A step series grown one point at a time (read as a tp_plot_series); zeroed to start. */
struct tp_plot_buf {
	size_t n, alloc;
	uint64_t *t;
	int64_t *v;
};
/* 0 or -ENOMEM (b unchanged). */
int tp_plot_buf_add(struct tp_plot_buf *b, uint64_t t_ns, int64_t v);
void tp_plot_buf_free(struct tp_plot_buf *b);

/*
 * The CPU a plot of a trace shows by default, learned from its rows in file order
 * (tp_plot_pick_row on each): the first CPU whose pressure changes at its next row,
 * else the first row's CPU; -1 without rows.  tp_plot_pick_has: whether a row named cpu.
 */
struct tp_plot_pick;
int tp_plot_pick_new(struct tp_plot_pick **out);	/* 0 or -ENOMEM */
void tp_plot_pick_row(struct tp_plot_pick *p, const struct tp_trace_row *row);
int tp_plot_pick_cpu(const struct tp_plot_pick *p);
bool tp_plot_pick_has(const struct tp_plot_pick *p, int cpu);
void tp_plot_pick_free(struct tp_plot_pick *p);

/* A self-contained SVG (no script, no external reference). */
int tp_plot_svg(FILE *fp, const char *title, const struct tp_plot_series *series, size_t n,
		struct tp_error *err);

/* ---- Driving a source ------------------------------------------------------- */

/*
 * Restart every CPU's averaging state now, as the interface allows: switch to another
 * backend and back (decay periods are kept).  Gives the source's clock right after,
 * the state start a trace records.
 */
int tp_exp_restart_state(struct tp_source *src, uint64_t *start_ns, struct tp_error *err);

struct tp_recorder;

struct tp_record_options {
	enum tp_trace_format format;
	uint64_t interval_ns;		/* > 0 */
	bool restart_state;		/* tp_exp_restart_state() first: replay is exact */
};

/* Takes the first snapshot and writes the metadata and the first sample. */
int tp_recorder_open(struct tp_source *src, FILE *fp, const struct tp_record_options *opts,
		     struct tp_recorder **out, struct tp_error *err);
/* Real clock: take a snapshot now and write it. */
int tp_recorder_sample(struct tp_recorder *rec, struct tp_error *err);
/*
 * Virtual clock: advance the source by ns, tick by tick, writing a sample at every
 * interval and at every tick where a CPU's capped frequency changed.
 */
int tp_recorder_advance(struct tp_recorder *rec, uint64_t ns, struct tp_error *err);
uint64_t tp_recorder_elapsed_ns(const struct tp_recorder *rec);
size_t tp_recorder_rows(const struct tp_recorder *rec);
/* The highest pressure or averaged pressure of any CPU sampled so far; 0: the recording
 * is flat; TP_NONE: the source gave no pressure at all. */
int64_t tp_recorder_peak_pressure(const struct tp_recorder *rec);
/* Snapshots written (each is one row per CPU). */
size_t tp_recorder_samples(const struct tp_recorder *rec);
/* Finish the trace and free rec (always). */
int tp_recorder_close(struct tp_recorder *rec, struct tp_error *err);

struct tp_play_options {
	bool virtual_clock;		/* advance the source's clock instead of sleeping */
	volatile sig_atomic_t *stop;	/* nonzero: stop early (and restore); may be NULL */
	/* May be NULL.  Else, after the last step, keep the caps until *hold is nonzero
	 * (or *stop), polling in real time, then restore; *hold does not cut steps short. */
	volatile sig_atomic_t *hold;
	/* Called after each step is applied (may be NULL). */
	void (*on_step)(void *arg, const struct tp_profile_step *step);
	void *arg;
};

/*
 * Apply profile to src over time (steps at their times from now), then restore
 * every CPU's cap as it was before, also when stopped or when a step fails.  Where
 * the source keeps a ledger of holds (tp_hold_begin()), the player is a holder: a hold
 * that ends while it plays leaves its caps, and its end gives each CPU what the ledger
 * says (the cap of a holder still holding, or what it had before the first).
 * Returns the first error; a failure to restore is reported over any other; 1 (err
 * says why) when the caps were put back without the state file (tp_hold_end()).
 */
int tp_profile_play(struct tp_source *src, const struct tp_profile *profile,
		    const struct tp_play_options *opts, struct tp_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
