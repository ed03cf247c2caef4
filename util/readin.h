/* SPDX-License-Identifier: MIT */
/*
 * Reading what thermpress reads, bounded (util/README.md): opening a file without
 * blocking on something that is not a file, and reading one line at a time up to a
 * limit, with an error never taken for the end.
 */
#ifndef THERMPRESS_UTIL_READIN_H
#define THERMPRESS_UTIL_READIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What readin_open() accepts: a regular file, or also a pipe or FIFO (named by the user). */
enum readin_kind {
	READIN_REGULAR = 1,
	READIN_STREAM = 2,	/* a regular file, a pipe or a FIFO */
};

/*
 * Open path (relative to dirfd as for openat(2)) for reading with O_NONBLOCK, so that
 * neither a FIFO nor a device blocks the open, and check with fstat() that it is of
 * the kind asked for; a pipe or FIFO is then made blocking again (the user named it).
 * extra: more open flags (O_NOFOLLOW).  A descriptor, or -errno: -EISDIR for a
 * directory, -ENOTREG (see below) for anything else that is not of the kind.
 */
int readin_open(int dirfd, const char *path, int extra, enum readin_kind kind);

/* The same check on an open descriptor (0 or -EISDIR / -ENOTREG). */
int readin_check_fd(int fd, enum readin_kind kind);

/* The errno standing for "not a regular file" (Linux has no EFTYPE). */
#define ENOTREG EBADFD

/* strerror(), but "not a regular file" for ENOTREG and "larger than the limit" for EFBIG. */
const char *readin_strerror(int e);

/* A line reader: the line and its buffer, the limit and where the reader is. */
struct readin_line {
	char *buf;		/* the current line without its newline, NUL-terminated */
	size_t cap;
	size_t len;
	size_t max;		/* the longest line taken, newline excluded */
	unsigned long lineno;	/* of the current line, from 1 */
	unsigned long max_lines;	/* 0: no limit */
	bool newline;		/* the line ended with a newline (false: the last, torn) */
};

/*
 * The next line of fp into r->buf: 1, 0 at the end of the file, or -errno:
 * -E2BIG the line is longer than r->max (nothing more is read), -EILSEQ it holds a
 * NUL byte, -EFBIG more than r->max_lines lines, -ENOMEM, or the read error (-EIO
 * when errno says nothing).  An error is never the end.
 */
int readin_next(struct readin_line *r, FILE *fp);

/* One message for the errors of readin_next(): "a line longer than N bytes", ... */
const char *readin_line_error(const struct readin_line *r, int rc, char *buf, size_t len);

/* Whether rc of readin_next() is the input's fault (too long, a NUL, too many lines):
 * a usage error, where a read or allocation failure is a runtime one. */
bool readin_bad_input(int rc);

void readin_free(struct readin_line *r);

#ifdef READIN_FAULT_HOOKS
/* Test builds (the fuzz targets): the Nth growth of a line buffer from now fails with
 * -ENOMEM (0: none), to check that an allocation failure is never taken for the end. */
extern unsigned long readin_fail_alloc;
#endif

#endif
