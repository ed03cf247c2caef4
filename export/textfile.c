// SPDX-License-Identifier: MIT
/*
 * --textfile DIR: the metrics written to DIR/thermpress.prom (the command repeats it every interval) for
 * node_exporter's textfile collector, through core/outfile.c: a temporary file
 * (".thermpress.prom.tmpXXXXXX", which the collector ignores) renamed over the old one,
 * so the collector never reads half a file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <thermpress/outfile.h>

#include "export.h"

int export_textfile_write(struct export_source *es, const char *dir, struct tp_error *err)
{
	struct export_buf b = { 0 };
	struct tp_outfile *of;
	char path[4200];
	struct stat st;
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, EXPORT_TEXTFILE_NAME) >= sizeof(path))
		return tp_error_set(err, -ENAMETOOLONG, "export: directory name too long: '%s'",
				    dir);
	/* the collector reads a regular file replaced whole: a FIFO or device there is a
	 * mistake, never written to in place (nor waited on for a reader) */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return tp_error_set(err, -EINVAL, "export: %s is not a regular file (the textfile "
				    "collector reads a regular file, which thermpress replaces)", path);
	if (export_scrape(es, &b, EXPORT_TEXT_004) == -ECANCELED) {
		export_buf_free(&b);
		return -ECANCELED;
	}
	rc = tp_outfile_open(path, &of, err);
	if (rc == 0) {
		fwrite(b.data, 1, b.len, tp_outfile_stream(of));
		rc = tp_outfile_commit(of, err);	/* checks the write too */
	}
	export_buf_free(&b);
	return rc;
}
