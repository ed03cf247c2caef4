// SPDX-License-Identifier: MIT
/*
 * One scrape: the source is opened when it is not, read, and closed again when reading
 * fails, so that a source that went away (a FUSE server killed, a --root removed, a
 * module unloaded) gives thermpress_up 0 with the reason, and the first scrape after it
 * is back opens it afresh.  Nothing here waits on more than the source's own reads.
 */
#include <errno.h>
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
};

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
	if (src && es->root) {
		struct stat st;
		if (stat(es->root, &st) == 0) {
			es->root_dev = st.st_dev;
			es->root_ino = st.st_ino;
		}
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

void export_source_free(struct export_source *es)
{
	if (!es)
		return;
	if (es->src)
		tp_source_close(es->src);
	tp_snapshot_release(&es->snap);
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

void export_scrape(struct export_source *es, struct export_buf *b, enum export_format fmt)
{
	struct export_scrape sc = { 0 };
	struct tp_stock_info stock;
	bool have_stock = false;
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
	if (es->src && tp_source_kind(es->src) == TP_SOURCE_STOCK) {
		/* the zones and cooling devices: a source that read its CPUs is up without them */
		have_stock = tp_stock_describe(es->src, &stock, &err) == 0;
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
		sc.stock = have_stock ? &stock : NULL;
	}
	sc.duration_s = now_s() - t0;
	export_render(b, &sc, fmt);
	if (have_stock)
		tp_stock_info_release(&stock);
}
