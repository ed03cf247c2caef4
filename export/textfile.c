// SPDX-License-Identifier: MIT
/*
 * --textfile DIR: the metrics written to DIR/thermpress.prom every interval for
 * node_exporter's textfile collector, through core/outfile.c: a temporary file
 * (".thermpress.prom.tmpXXXXXX", which the collector ignores) renamed over the old one,
 * so the collector never reads half a file.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <thermpress/outfile.h>

#include "export.h"

int export_textfile_write(struct export_source *es, const char *dir, struct tp_error *err)
{
	struct export_buf b = { 0 };
	struct tp_outfile *of;
	char path[4200];
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, EXPORT_TEXTFILE_NAME) >= sizeof(path))
		return tp_error_set(err, -ENAMETOOLONG, "export: directory name too long: '%s'",
				    dir);
	export_scrape(es, &b, EXPORT_TEXT_004);
	rc = tp_outfile_open(path, &of, err);
	if (rc == 0) {
		fwrite(b.data, 1, b.len, tp_outfile_stream(of));
		rc = tp_outfile_commit(of, err);	/* checks the write too */
	}
	export_buf_free(&b);
	return rc;
}

int export_textfile_run(struct export_source *es, const struct export_config *cfg,
			volatile int *stop, const sigset_t *wait_mask)
{
	char last[sizeof(((struct tp_error *)0)->msg)] = "";
	struct tp_error err = { 0 };

	/* a directory that cannot be written at start is a mistake to say at once */
	if (export_textfile_write(es, cfg->textfile_dir, &err) < 0) {
		fprintf(stderr, "thermpress: export: %s\n", err.msg);
		return 1;
	}
	fprintf(stderr, "thermpress: export: writing %s/%s every %.3gs (interrupt to stop)\n",
		cfg->textfile_dir, EXPORT_TEXTFILE_NAME, (double)cfg->interval_ns / 1e9);
	while (!*stop) {
		struct timespec wait = {
			.tv_sec = (time_t)(cfg->interval_ns / 1000000000ull),
			.tv_nsec = (long)(cfg->interval_ns % 1000000000ull),
		};

		ppoll(NULL, 0, &wait, wait_mask);	/* a signal ends the wait at once */
		if (*stop)
			break;
		/* a failed write is said once, and again when it changes or recovers */
		if (export_textfile_write(es, cfg->textfile_dir, &err) < 0) {
			if (strcmp(err.msg, last))
				fprintf(stderr, "thermpress: export: %s (trying again every interval)\n",
					err.msg);
			snprintf(last, sizeof(last), "%s", err.msg);
		} else if (last[0]) {
			fprintf(stderr, "thermpress: export: writing %s/%s again\n",
				cfg->textfile_dir, EXPORT_TEXTFILE_NAME);
			last[0] = '\0';
		}
	}
	return 0;
}
