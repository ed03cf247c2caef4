/* SPDX-License-Identifier: MIT */
/*
 * Internals of the live view, one job per file:
 *   model.c   history ring buffers and the shadow curves (other backends' plugins)
 *   layout.c  the list of rows (domains, CPUs), compact mode, scrolling
 *   canvas.c  where drawing goes: a curses window or a text grid (--once)
 *   draw.c    header, rows and bars, status line, help
 *   plot.c    the history plot of the selection
 *   input.c   keys, the cap prompt, the backend menu, decay steps
 *   term.c    curses setup and restore, signals, colours, glyphs
 *   top.c     top_run: the loop
 * Values are computed apart from drawing (htop's rule); they are written as fmt.h
 * writes them for every command (a missing value, TP_NONE, as FMT_NONE, never as 0).
 */
#ifndef THERMPRESS_TUI_H
#define THERMPRESS_TUI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <thermpress/thermpress.h>

#include "columns.h"
#include "top.h"

/* ---- glyphs and roles ---------------------------------------------------- */

/* Heatmap levels: no averaged pressure, then quarters of the max capacity taken away. */
#define HEAT_LEVELS 5

struct glyphs {
	bool utf8;
	const char *full;		/* effective capacity */
	const char *part[8];		/* 1/8 .. 7/8 of a cell (UTF-8 only; [0] unused) */
	const char *lost;		/* between effective and max capacity */
	const char *mark;		/* the capped (instantaneous) capacity */
	const char *sel;		/* selected row */
	const char *hline;
	const char *p_inst, *p_avg;	/* plot: instantaneous and averaged pressure */
	const char *heat[HEAT_LEVELS];	/* heatmap cells, by heat_level() */
	const char *off, *unknown;	/* heatmap: an offline CPU, one of unknown capacity */
};
extern const struct glyphs glyphs_utf8, glyphs_ascii;

enum role {
	R_NORMAL,
	R_HEADER,
	R_TITLE,
	R_DIM,
	R_EFFECTIVE,
	R_LOST,
	R_MARK,
	R_SELECTED,
	R_DOMAIN,
	R_ERROR,
	R_GOOD,
	R_P_INST,
	R_P_AVG,
	R_SHADOW0,	/* R_SHADOW0 + k for the k-th shadow curve */
	R_SHADOW1,
	R_SHADOW2,
	R_SHADOW3,
	R_HEAT0,	/* R_HEAT0 + heat_level() */
	R_HEAT1,
	R_HEAT2,
	R_HEAT3,
	R_HEAT4,
	R_COUNT,
};

/* ---- canvas ---------------------------------------------------------------- */

struct canvas {
	int w, h;
	void *win;		/* WINDOW *, or NULL for the text grid */
	uint32_t *cells;	/* text grid: w * h code points */
	const struct glyphs *g;
};

void cv_put(struct canvas *cv, int y, int x, enum role r, const char *s);
void cv_printf(struct canvas *cv, int y, int x, enum role r, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Fill [x, x+n) of row y with spaces in role r. */
void cv_fill(struct canvas *cv, int y, int x, int n, enum role r);
int cv_text_init(struct canvas *cv, int w, int h, const struct glyphs *g);
void cv_text_free(struct canvas *cv);
/* Print the text grid, trailing spaces trimmed; 0 or -errno. */
int cv_text_print(const struct canvas *cv, FILE *out);
/* The number of glyphs of a UTF-8 string. */
int glyph_len(const char *s);

/*
 * One field of a line drawn by cv_fields: dropped whole, lowest priority first, except
 * that a field with an elidable tail (a path), when its turn comes, is first shortened
 * there, its middle replaced by "...", so that "at /a/long/root" still names the root's
 * last components.
 */
struct field {
	char text[512];
	enum role r;
	int prio;		/* higher: kept longer */
	bool right;		/* flush right */
	int elide_from;		/* byte from which the text may be shortened; 0: never */
	int len;		/* set by cv_fields */
	bool drop;		/* set by cv_fields */
};
#define MAX_FIELDS 16
/* The columns a line may take: the live view leaves the last one (scroll marks, and a line
 * that reaches it reads as cut); a printed frame takes them all. */
static inline int cv_room(const struct canvas *cv)
{
	return cv->win ? cv->w - 1 : cv->w;
}
int cv_fields(struct canvas *cv, int y, int x0, int maxw, struct field *f, int n);
/* Append a field to f[*n] (printf-like); ignored past MAX_FIELDS. */
void field_add(struct field *f, int *n, enum role r, int prio, bool right, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Let the last field added be shortened from byte `from` of its text (see struct field). */
void field_elidable(struct field *f, int n, int from);

/* ---- model ------------------------------------------------------------------ */

#define HIST_LEN 512
#define MAX_SHADOWS 4

struct shadow {
	const struct tp_backend_ops *ops;
	struct tp_avg avg;
	uint64_t last;		/* last output */
	int32_t out[HIST_LEN];	/* output at each history sample, -1: none */
};

/* What is selected: a CPU (index into snap->cpus) or a domain (index into domains). */
enum sel_kind { SEL_CPU, SEL_DOMAIN };

/* One domain's shown CPUs, summed up at each sample (the domain rows). */
struct dom_summary {
	int shown;			/* shown CPUs */
	int capped;			/* online ones whose capped capacity is below max */
	int64_t cap_min, cap_mean;	/* capacity the scheduler uses; TP_NONE when unknown */
	int64_t avg_mean;		/* mean averaged pressure; TP_NONE when unknown */
	bool avg_estimated;		/* one of the averages is an estimate */
	int64_t cap_sum, avg_sum;	/* while summing: the means' sums and counts */
	int ncap, navg;
	char cpus[128];			/* the shown CPUs, "0-3" */
};

struct model {
	struct tp_snapshot snap;	/* the last good snapshot, reused */
	bool have_snap;
	bool snap_failed;		/* the last attempt failed */
	char snap_err[256];
	size_t ncpus, ndomains;		/* topology the history was built for */
	unsigned gen;			/* bumped when the topology (re)appears */

	/* history: sample s is at ring index (head - len + s) mod HIST_LEN */
	size_t len, head;
	uint64_t t[HIST_LEN];
	int32_t *pres, *avg;		/* [HIST_LEN * ncpus]; -1 = none */
	size_t hist_cap;		/* allocated ncpus */

	/* shadow curves for the selection */
	enum sel_kind sel_kind;
	int sel;			/* index into snap.cpus or snap.domains */
	char active[TP_NAME_MAX];	/* the backend the shadows were built against */
	struct shadow sh[MAX_SHADOWS];
	size_t nsh;
	bool sh_started;
	uint64_t sh_t;			/* time of the last shadow feed */
	int64_t sh_p;			/* pressure fed then */
	int hz;
	/* decay periods last seen in force, per plugin backend (0: unknown) */
	char known_name[TP_MAX_BACKENDS][TP_NAME_MAX];
	uint32_t known_decay[TP_MAX_BACKENDS];
	size_t nknown;

	struct tp_thermal thermal;	/* zones and cooling states at the last sample */
	bool have_thermal;		/* the source has some */
	bool thermal_unsupported;	/* it has none to read: not asked again */

	struct dom_summary *dsum;	/* [ndomains] */
	size_t dsum_cap;

	const struct tp_cpuset *filter;	/* shown CPUs, NULL: all */
	const struct tp_plugin_set *plugins;
};

int model_init(struct model *m, struct tp_source *src, const struct tp_cpuset *filter);
void model_fini(struct model *m);
/*
 * Take a snapshot.  column: append it to the history (a regular sample); otherwise
 * it only refreshes the rows and feeds the shadows (right after a change).
 * Returns 0 or the library's error (kept in m->snap_err).
 */
int model_sample(struct model *m, struct tp_source *src, bool column);
/* The cooling devices that cap a frequency domain (top shows those, not fans). */
size_t model_nr_cpufreq_cooling(const struct model *m);
/* The rows the thermal zones take: one for the zones, one for the cooling devices. */
int model_thermal_rows(const struct model *m);
bool model_shown(const struct model *m, int cpu_index);
/* The selection's instantaneous and averaged pressure at history sample s (0 oldest). */
int64_t model_sel_pres(const struct model *m, size_t s);
int64_t model_sel_avg(const struct model *m, size_t s);
size_t model_ring(const struct model *m, size_t s);
/* Select, and rebuild the shadows when it changed. */
void model_select(struct model *m, enum sel_kind kind, int index);
/* The CPUs of the selection (shown ones only). */
void model_sel_cpus(const struct model *m, struct tp_cpuset *out);
/* 0 for no averaged pressure (or unknown), else 1..4 by quarters of the max capacity. */
int heat_level(const struct tp_cpu *c);

/* ---- layout ---------------------------------------------------------------- */

struct item {
	enum sel_kind kind;
	int index;		/* snap.cpus or snap.domains index */
};

struct layout {
	struct item *items;	/* domains headers and CPUs, in display order */
	size_t nitems, alloc;
	bool grouped;		/* domain header rows shown */
	int thermal_rows;	/* for zones, and cooling devices (set before layout_fit) */
	bool compact;
	bool heatmap;		/* compact, one cell per CPU coloured by heat_level() */
	int cols;		/* items per line in compact mode */
	int cell_w, bar_w;	/* compact cell and bar width, or the wide bar */
	int cell_digits;	/* width of the largest CPU number */
	int list_y, list_h;	/* rows given to the list */
	int plot_y, plot_h;	/* plot rows (legend and title included), 0: none */
	int status_y;
	int top;		/* first list line shown */
	size_t cur;		/* selected item */
	bool follow;		/* the user's mode: the selection follows the most pressured */
	bool pick;		/* the first frame: start on the most pressured, once */
	bool y_full;		/* the plot's y axis on the full scale, not fitted to the data */
	int heat_prefix;	/* heatmap: columns of a line's first CPU number and a space */
	/* per item: its line and column in the list (compact: cell index in its line) */
	int *line, *col;
	int nlines;
};

int layout_items(struct layout *l, const struct model *m);
void layout_fit(struct layout *l, int w, int h, bool once);
void layout_scroll(struct layout *l);
void layout_free(struct layout *l);
/* Move the selection: by items (dy lines in compact mode, dx cells). */
void layout_move(struct layout *l, int dy, int dx);
/*
 * In follow mode (the user's choice, f), and once for the first frame (pick), select the
 * most pressured domain: the highest mean averaged pressure over its shown CPUs, the
 * first on a tie (a CPU when no domain row is shown).  Otherwise the selection never
 * moves by itself.  Returns whether the selection changed.
 */
bool layout_follow_pressure(struct layout *l, const struct model *m);

/* ---- drawing ---------------------------------------------------------------- */

enum ui_mode { UI_NORMAL, UI_PROMPT, UI_MENU, UI_HELP };

struct ui {
	enum ui_mode mode;
	bool paused;
	bool quit;
	char status[320];
	bool status_err;
	char prompt[128];		/* the prompt's question */
	char input[64];
	size_t input_len;
	struct tp_backend_info backends[TP_MAX_BACKENDS];
	size_t nbackends, menu_cur;
	uint64_t interval_ns;
	uint64_t vclock_step_ns;
	const char *source_desc;
	bool dirty;			/* redraw needed */
};

void draw_frame(struct canvas *cv, const struct model *m, struct layout *l,
		const struct ui *ui);
/* The number of rows --once needs. */
int draw_once_height(const struct layout *l);
void plot_draw(struct canvas *cv, const struct model *m, const struct layout *l);

/* ---- input ---------------------------------------------------------------------- */

void input_key(int ch, struct tp_source *src, struct model *m, struct layout *l,
	       struct ui *ui);
void ui_status(struct ui *ui, bool err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- terminal --------------------------------------------------------------------- */

extern volatile sig_atomic_t tui_stop;
/* From the locale (setlocale done here); ASCII with no_unicode. */
const struct glyphs *term_glyphs(bool no_unicode);
int term_start(bool no_color);		/* curses on; 0 or -1 */
void term_stop(void);			/* idempotent; also registered with atexit */
int term_attr(enum role r);
void term_signals(bool on);

#endif
