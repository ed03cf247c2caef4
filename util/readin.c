// SPDX-License-Identifier: MIT
/* Bounded reading: files that are what they should be, lines up to a limit (readin.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "readin.h"

int readin_check_fd(int fd, enum readin_kind kind)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return -errno;
	if (S_ISREG(sb.st_mode))
		return 0;
	if (S_ISDIR(sb.st_mode))
		return -EISDIR;
	if (kind == READIN_STREAM && S_ISFIFO(sb.st_mode))
		return 0;
	return -ENOTREG;
}

int readin_open(int dirfd, const char *path, int extra, enum readin_kind kind)
{
	int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | extra);
	int rc;

	if (fd < 0)
		return -errno;
	rc = readin_check_fd(fd, kind);
	if (rc == 0) {
		int fl = fcntl(fd, F_GETFL);

		/* a FIFO named by the user is read as cat would: waiting for its writer */
		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
			rc = -errno;
	}
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

const char *readin_strerror(int e)
{
	if (e < 0)
		e = -e;
	if (e == ENOTREG)
		return "not a regular file";
	if (e == EFBIG)
		return "larger than the limit";
	return strerror(e);
}

#ifdef READIN_FAULT_HOOKS
unsigned long readin_fail_alloc;
#endif

/* Room for one more byte in r->buf (and its NUL): 0 or -ENOMEM. */
static int room(struct readin_line *r)
{
	if (r->len + 2 > r->cap) {
		char *b;

#ifdef READIN_FAULT_HOOKS
		if (readin_fail_alloc && !--readin_fail_alloc)
			return -ENOMEM;
#endif
		b = array_grow(r->buf, &r->cap, r->len + 2, 1, 256);

		if (!b)
			return -ENOMEM;
		r->buf = b;
	}
	return 0;
}

int readin_next(struct readin_line *r, FILE *fp)
{
	bool nul = false;
	int c, rc = 0;

	r->len = 0;
	r->newline = false;
	errno = 0;
	flockfile(fp);
	while ((c = getc_unlocked(fp)) != EOF) {
		if (c == '\n') {
			r->newline = true;
			break;
		}
		if (r->len >= r->max) {
			rc = -E2BIG;
			break;
		}
		if ((rc = room(r)))
			break;
		nul |= c == '\0';
		r->buf[r->len++] = (char)c;
	}
	if (!rc && c == EOF && ferror_unlocked(fp))
		rc = errno ? -errno : -EIO;
	funlockfile(fp);
	if (!rc && c == EOF && !r->len)
		return 0;
	r->lineno++;	/* the line the error is on, too */
	if (!rc && room(r))
		rc = -ENOMEM;
	if (rc)
		return rc;
	r->buf[r->len] = '\0';
	if (r->max_lines && r->lineno > r->max_lines)
		return -EFBIG;
	return nul ? -EILSEQ : 1;
}

const char *readin_line_error(const struct readin_line *r, int rc, char *buf, size_t len)
{
	switch (rc) {
	case -E2BIG:
		snprintf(buf, len, "a line longer than %zu bytes (the limit)", r->max);
		break;
	case -EILSEQ:
		snprintf(buf, len, "a NUL byte in the line (text lines hold none)");
		break;
	case -EFBIG:
		snprintf(buf, len, "more than %lu lines (the limit)", r->max_lines);
		break;
	case -ENOMEM:
		snprintf(buf, len, "out of memory reading the line");
		break;
	default:
		snprintf(buf, len, "read error: %s", strerror(-rc));
		break;
	}
	return buf;
}

bool readin_bad_input(int rc)
{
	return rc == -E2BIG || rc == -EILSEQ || rc == -EFBIG;
}

void readin_free(struct readin_line *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = r->len = 0;
}
