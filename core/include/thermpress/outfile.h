/* SPDX-License-Identifier: MIT */
/*
 * Output files named by the user (record -o, replay -o, replay --plot): a failed
 * run leaves every pre-existing path exactly as it was.  docs/experiments.md,
 * "Output files", gives the rules:
 *
 *  - a regular file, or a path that does not exist yet: the data goes to a new
 *    temporary file in the same directory (mode 0666 less the umask, or the old
 *    file's permission bits); tp_outfile_commit() flushes, fsyncs, renames it over
 *    the path and fsyncs the directory; tp_outfile_discard() removes the temporary
 *    file only;
 *  - a symbolic link to a regular file: the same for the file it points to (the link
 *    stays); a link to nothing is refused;
 *  - "-": standard output;
 *  - anything else that exists (a device, a FIFO, a terminal, /dev/stdout and the
 *    other /proc/self/fd links): written directly, never created, unlinked or
 *    truncated.
 *
 * Like the rest of the library this never prints: 0 or -errno with a message.
 */
#ifndef THERMPRESS_OUTFILE_H
#define THERMPRESS_OUTFILE_H

#include <stdio.h>

#include <thermpress/thermpress.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the public API: exported from libthermpress, built with hidden visibility */
#pragma GCC visibility push(default)

struct tp_outfile;

/* Open path for writing as above.  Nothing is created on error. */
int tp_outfile_open(const char *path, struct tp_outfile **out, struct tp_error *err);
/* The stream to write to (owned by the outfile). */
FILE *tp_outfile_stream(struct tp_outfile *of);
/* Whether the data goes to a temporary file renamed into place on commit. */
int tp_outfile_is_atomic(const struct tp_outfile *of);
/* Flush and check every write; put a temporary file into place.  Always frees of; on
 * error the path is as it was (for a direct write: what was written stays written). */
int tp_outfile_commit(struct tp_outfile *of, struct tp_error *err);
/* Give up: close, remove the temporary file if there is one, free of.  NULL is fine. */
void tp_outfile_discard(struct tp_outfile *of);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
