// SPDX-License-Identifier: MIT
/*
 * One scrape: the source is opened when it is not, read, and closed again when reading
 * fails, so that a source that went away (a FUSE server killed, a --root removed, a
 * module unloaded) gives thermpress_up 0 with the reason, and the first scrape after it
 * is back opens it afresh.
 *
 * The source is read by one worker thread of its own, never by the caller: a read can
 * block for ever (a FUSE server stopped with SIGSTOP, a FIFO under --root), and neither
 * the HTTP server nor a stop signal may wait on it.  export_scrape() waits for the
 * worker at most EXPORT_SCRAPE_DEADLINE_MS, then answers thermpress_up 0 with the
 * reason; a worker still stuck in a read when the next scrape comes makes that scrape
 * answer the same at once.  When the read ends at last, the worker is free again and the
 * scrape after it reads the source as usual.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <thermpress/stock.h>

#include "export.h"

struct export_source {
	struct tp_open_options opts;
	struct tp_source *src;		/* NULL: closed, opened by the next scrape */
	struct tp_snapshot snap;	/* kept between scrapes for its buffers */
	/* the root directory the open source reads (not the in-process simulator): a source
	 * keeps reading what it opened, so a root removed or replaced is noticed here */
	const char *root;
	dev_t root_dev;
	ino_t root_ino;
	char error[sizeof(((struct tp_error *)0)->msg)];

	/* the worker: everything below is under lock */
	pthread_t worker;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t asked, done;		/* scrapes asked for and done, counted */
	uint64_t claim;			/* the scrape whose caller still waits for out, or 0 */
	const volatile sig_atomic_t *stop_flag;	/* export_source_watch */
	const sigset_t *stop_mask;
	bool busy;			/* the worker is reading the source */
	bool quit;			/* export_source_free: the worker ends */
	bool stopping;			/* export_source_stop: no scrape waits any more */
	struct timespec busy_since;	/* CLOCK_MONOTONIC: when the read in progress began */
	enum export_format fmt;		/* the format asked for */
	struct export_buf out;		/* the last scrape done, rendered */
	/* the worker's own: rendered into, then swapped with out.  Both are kept and reused,
	 * and a caller copies out in its own thread: memory allocated in one thread and
	 * freed in another would pile up in every thread's allocator cache (ASan's, 1 MB a
	 * thread and more) */
	struct export_buf work;
};

/* An export_source whose worker never came back from a read: kept, not freed (the worker
 * still uses it), and reachable so that a leak checker does not count it. */
static struct export_source *abandoned;

static void *worker_main(void *arg);

/* The worker, with every signal blocked: signals are for the thread that waits for them. */
static int start_worker(struct export_source *es)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&es->worker, NULL, worker_main, es);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	return 0;
}

struct export_source *export_source_new(const struct tp_open_options *opts,
					struct tp_source *src)
{
	struct export_source *es = calloc(1, sizeof(*es));

	if (!es)
		return NULL;
	es->opts = *opts;
	if (opts->kind != TP_SOURCE_SIM) {
		es->root = opts->root ? opts->root : getenv(TP_ENV_ROOT);
		if (!es->root || !*es->root)
			es->root = "/";
	}
	es->src = src;
	pthread_mutex_init(&es->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&es->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (src && es->root) {
		struct stat st;
		if (stat(es->root, &st) == 0) {
			es->root_dev = st.st_dev;
			es->root_ino = st.st_ino;
		}
	}
	if (start_worker(es) < 0) {
		es->src = NULL;		/* the caller's still */
		pthread_cond_destroy(&es->cond);
		pthread_mutex_destroy(&es->lock);
		free(es);
		return NULL;
	}
	return es;
}

/* Whether the root is still the directory the source was opened on (fills err if not). */
static int root_check(struct export_source *es, bool opening, struct tp_error *err)
{
	struct stat st;

	if (!es->root)
		return 0;
	if (stat(es->root, &st) < 0)
		return tp_error_set(err, -errno, "the source's root %s is gone: %s", es->root,
				    strerror(errno));
	if (opening) {
		es->root_dev = st.st_dev;
		es->root_ino = st.st_ino;
	} else if (st.st_dev != es->root_dev || st.st_ino != es->root_ino) {
		return tp_error_set(err, -ESTALE, "the source's root %s was replaced: reading it "
				    "again", es->root);
	}
	return 0;
}

void export_source_stop(struct export_source *es)
{
	if (!es)
		return;
	pthread_mutex_lock(&es->lock);
	es->stopping = true;
	pthread_cond_broadcast(&es->cond);
	pthread_mutex_unlock(&es->lock);
}

void export_source_free(struct export_source *es)
{
	bool stuck;

	if (!es)
		return;
	pthread_mutex_lock(&es->lock);
	es->quit = es->stopping = true;
	stuck = es->busy;
	pthread_cond_broadcast(&es->cond);
	pthread_mutex_unlock(&es->lock);
	if (stuck) {
		/* the worker is in a read that may never end: it ends with the process */
		pthread_detach(es->worker);
		abandoned = es;
		return;
	}
	pthread_join(es->worker, NULL);
	if (es->src)
		tp_source_close(es->src);
	tp_snapshot_release(&es->snap);
	export_buf_free(&es->out);
	export_buf_free(&es->work);
	pthread_cond_destroy(&es->cond);
	pthread_mutex_destroy(&es->lock);
	free(es);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fail(struct export_source *es, const struct tp_error *err, int rc)
{
	snprintf(es->error, sizeof(es->error), "%s", err->msg[0] ? err->msg : strerror(-rc));
	if (es->src)
		tp_source_close(es->src);
	es->src = NULL;
}

/* The scrape itself, in the worker: reads the source and renders into b. */
static void scrape_now(struct export_source *es, struct export_buf *b, enum export_format fmt)
{
	struct export_scrape sc = { 0 };
	struct tp_thermal th = { 0 };
	struct tp_source_info info;
	bool have_th = false;
	struct tp_error err = { 0 };
	double t0 = now_s();
	int rc = 0;

	if (!es->src) {
		rc = root_check(es, true, &err);
		if (rc == 0)
			rc = tp_source_open(&es->opts, &es->src, &err);
		if (rc < 0) {
			es->src = NULL;
			fail(es, &err, rc);
		}
	} else if ((rc = root_check(es, false, &err)) < 0) {
		fail(es, &err, rc);
	}
	if (es->src) {
		rc = tp_snapshot_take(es->src, &es->snap, &err);
		if (rc < 0)
			fail(es, &err, rc);
	}
	if (es->src) {
		/* the zones and cooling devices: a source that read its CPUs is up without them */
		have_th = tp_thermal_read(es->src, &th, &err) == 0;
		tp_source_info(es->src, &info, NULL);
		sc.simulated = info.simulated;
	}
	sc.up = es->src != NULL;
	sc.error = es->error;
	if (es->src) {
		switch (tp_source_kind(es->src)) {
		case TP_SOURCE_PATCHED: sc.source_kind = "patched"; break;
		case TP_SOURCE_SIM: sc.source_kind = "sim"; break;
		case TP_SOURCE_STOCK: sc.source_kind = "stock"; break;
		default: sc.source_kind = "auto"; break;
		}
		sc.source_description = tp_source_describe(es->src);
		sc.snap = &es->snap;
		sc.thermal = have_th ? &th : NULL;
	}
	sc.duration_s = now_s() - t0;
	export_render(b, &sc, fmt);
	tp_thermal_release(&th);
}

/* ---- the worker and the deadline ---------------------------------------------------- */

static void *worker_main(void *arg)
{
	struct export_source *es = arg;

	pthread_mutex_lock(&es->lock);
	for (;;) {
		while (!es->quit && es->done == es->asked)
			pthread_cond_wait(&es->cond, &es->lock);
		if (es->quit)
			break;

		uint64_t n = es->asked;
		enum export_format fmt = es->fmt;
		struct export_buf b;

		es->busy = true;
		clock_gettime(CLOCK_MONOTONIC, &es->busy_since);
		pthread_mutex_unlock(&es->lock);
		es->work.len = 0;
		scrape_now(es, &es->work, fmt);
		pthread_mutex_lock(&es->lock);
		es->busy = false;
		b = es->out;
		es->out = es->work;
		es->work = b;
		es->done = n;
		pthread_cond_broadcast(&es->cond);
	}
	pthread_mutex_unlock(&es->lock);
	return NULL;
}

static double elapsed_s(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) + (double)(now.tv_nsec - since->tv_nsec) / 1e9;
}

static void add_ms(struct timespec *t, long ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* thermpress_up 0 with why, when the worker did not answer. */
static void render_down(struct export_buf *b, enum export_format fmt, const char *why,
			double duration_s)
{
	struct export_scrape sc = { .up = false, .error = why, .duration_s = duration_s };

	export_render(b, &sc, fmt);
}

void export_source_watch(struct export_source *es, const volatile sig_atomic_t *flag,
			 const sigset_t *mask)
{
	es->stop_flag = flag;
	es->stop_mask = mask;
}

/*
 * Waits on es->cond until the absolute deadline; false when it passed.  Under lock.
 * Watched (export_source_watch): in slices of 50 ms with the stop signals let in, and a
 * stop flag set is es->stopping.
 */
static bool wait_until(struct export_source *es, const struct timespec *deadline)
{
	struct timespec slice;
	sigset_t old;
	int rc;

	if (!es->stop_flag)
		return pthread_cond_timedwait(&es->cond, &es->lock, deadline) != ETIMEDOUT;
	clock_gettime(CLOCK_MONOTONIC, &slice);
	add_ms(&slice, 50);
	if (slice.tv_sec > deadline->tv_sec ||
	    (slice.tv_sec == deadline->tv_sec && slice.tv_nsec > deadline->tv_nsec))
		slice = *deadline;
	pthread_sigmask(SIG_SETMASK, es->stop_mask, &old);
	rc = pthread_cond_timedwait(&es->cond, &es->lock, &slice);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (*es->stop_flag)
		es->stopping = true;
	/* a slice that ended before the deadline is not the end: the caller looks again */
	return !(rc == ETIMEDOUT && slice.tv_sec == deadline->tv_sec &&
		 slice.tv_nsec == deadline->tv_nsec);
}

int export_scrape(struct export_source *es, struct export_buf *b, enum export_format fmt)
{
	struct timespec start, deadline;
	char why[200];
	uint64_t mine;

	clock_gettime(CLOCK_MONOTONIC, &start);
	deadline = start;
	add_ms(&deadline, EXPORT_SCRAPE_DEADLINE_MS);
	pthread_mutex_lock(&es->lock);
	/* another scrape first (one read at a time), unless the read in progress has been
	 * waiting on the source for longer than a deadline already */
	if (es->stop_flag && *es->stop_flag)
		es->stopping = true;
	while (!es->stopping && (es->asked != es->done || es->claim)) {
		if (es->busy && elapsed_s(&es->busy_since) * 1000 >= EXPORT_SCRAPE_DEADLINE_MS)
			break;
		if (!wait_until(es, &deadline))
			break;
	}
	if (es->stopping)
		goto stopping;
	if (es->asked != es->done || es->claim) {
		snprintf(why, sizeof(why), "the source has not answered a read for %.1f s (the "
			 "deadline is %.1f s): it is stuck or stopped",
			 es->busy ? elapsed_s(&es->busy_since) : elapsed_s(&start),
			 EXPORT_SCRAPE_DEADLINE_MS / 1000.0);
		pthread_mutex_unlock(&es->lock);
		render_down(b, fmt, why, elapsed_s(&start));
		return -ETIMEDOUT;
	}
	mine = ++es->asked;
	es->claim = mine;
	es->fmt = fmt;
	pthread_cond_broadcast(&es->cond);
	while (!es->stopping && es->done < mine && wait_until(es, &deadline))
		;
	es->claim = 0;		/* ours or given up: the next scrape may ask */
	pthread_cond_broadcast(&es->cond);
	if (es->done >= mine) {
		/* ours: its text copied for the caller, in the caller's thread */
		export_buf_add(b, es->out.data, es->out.len);
		pthread_mutex_unlock(&es->lock);
		return 0;
	}
	if (es->stopping)
		goto stopping;
	pthread_mutex_unlock(&es->lock);
	snprintf(why, sizeof(why), "the source did not answer within the scrape's deadline "
		 "of %.1f s: it is stuck or stopped", EXPORT_SCRAPE_DEADLINE_MS / 1000.0);
	render_down(b, fmt, why, elapsed_s(&start));
	return -ETIMEDOUT;
stopping:
	pthread_mutex_unlock(&es->lock);
	render_down(b, fmt, "the exporter is stopping", elapsed_s(&start));
	return -ECANCELED;
}
