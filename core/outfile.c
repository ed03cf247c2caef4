// SPDX-License-Identifier: MIT
/*
 * Output files named by the user, replaced atomically or written in place
 * (thermpress/outfile.h has the rules, docs/experiments.md "Output files" the why).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <thermpress/outfile.h>

#include "readin.h"

struct tp_outfile {
	FILE *fp;
	bool is_stdout;
	char *path;	/* as given, for messages */
	char *target;	/* atomic: the regular file replaced on commit */
	char *tmp;	/* atomic: our temporary file, NULL once renamed or removed */
};

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* A link that lives in /proc (/dev/stdout -> /proc/self/fd/1, /dev/fd/N) names an
 * open file, not a path to replace. */
static bool in_proc(const char *link)
{
	char *dir = dir_of(link), real[PATH_MAX];
	bool yes = dir && realpath(dir, real) && (!strncmp(real, "/proc/", 6) ||
						 !strcmp(real, "/proc"));

	free(dir);
	return yes;
}

/*
 * The kernel's fs.protected_symlinks rule, which thermpress must keep since it resolves
 * links itself: a link in a sticky, world-writable directory is followed only when
 * its owner is the user or the directory's owner.  -EACCES when refused.
 */
#define PROTECTED_LINK "a symbolic link in a sticky, world-writable directory owned by neither " \
	"you nor the directory's owner (the kernel's fs.protected_symlinks rule)"
static int protected_link(const char *link, const struct stat *lst)
{
	char *dir = dir_of(link);
	struct stat ds;
	int rc = 0;

	if (!dir)
		return -ENOMEM;
	if (stat(dir, &ds) == 0 && (ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH) &&
	    lst->st_uid != geteuid() && lst->st_uid != ds.st_uid)
		rc = -EACCES;
	free(dir);
	return rc;
}

/*
 * Follow the symbolic links of path.  *resolved gets the final path (malloc'ed),
 * *links whether there was a link, *magic whether one was in /proc (then resolved
 * is NULL).  0 or -errno.
 */
static int follow_links(const char *path, char **resolved, bool *links, bool *magic)
{
	char *cur = strdup(path);

	*links = *magic = false;
	*resolved = NULL;
	for (int hops = 0; cur; hops++) {
		char target[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (hops > 40) {
			free(cur);
			return -ELOOP;
		}
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode)) {
			*resolved = cur;
			return 0;
		}
		*links = true;
		if (protected_link(cur, &st)) {
			free(cur);
			return -EPERM;	/* told apart from EACCES by the caller's message */
		}
		if (in_proc(cur)) {
			*magic = true;
			free(cur);
			return 0;
		}
		n = readlink(cur, target, sizeof(target) - 1);
		if (n < 0) {
			int e = errno;

			free(cur);
			return -e;
		}
		target[n] = '\0';
		if (target[0] == '/') {
			free(cur);
			cur = strdup(target);
		} else {
			char *dir = dir_of(cur), *next = NULL;

			if (dir && asprintf(&next, "%s/%s", dir, target) < 0)
				next = NULL;
			free(dir);
			free(cur);
			cur = next;
		}
	}
	return -ENOMEM;
}

/* A new file next to target, created by us alone (O_EXCL), mode 0666 less the umask. */
static int create_temp(struct tp_outfile *of, int *fd)
{
	char *dir = dir_of(of->target);
	const char *base = strrchr(of->target, '/');
	struct timespec ts;

	base = base ? base + 1 : of->target;
	if (!dir)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &ts);
	for (unsigned i = 0; i < 100; i++) {
		unsigned long r = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^
				  (i * 2654435761ul);
		char *name;

		if (asprintf(&name, "%s/.%s.tmp%06lx", dir, base, r & 0xffffff) < 0) {
			free(dir);
			return -ENOMEM;
		}
		*fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (*fd >= 0) {
			of->tmp = name;
			free(dir);
			return 0;
		}
		free(name);
		if (errno != EEXIST) {
			int e = errno;

			free(dir);
			return -e;
		}
	}
	free(dir);
	return -EEXIST;
}

/*
 * A device or FIFO opened to be written in place, never blocking in open(): a FIFO
 * without a reader is waited for FIFO_WAIT_MS at most (ENXIO after), by retrying a
 * non-blocking open; then blocking as any stream.  fd or -1 with errno.
 */
#define FIFO_WAIT_MS 10000
static int open_in_place(const char *path)
{
	int fd = -1, fl;

	for (int waited = 0; fd < 0; waited += 20) {
		fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 && (errno != ENXIO || waited >= FIFO_WAIT_MS))
			return -1;
		if (fd < 0)
			nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000000 }, NULL);
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void outfile_free(struct tp_outfile *of)
{
	free(of->path);
	free(of->target);
	free(of->tmp);
	free(of);
}

/*
 * A temporary file to replace the regular file resolved (st: its stat; resolved becomes
 * of->target, or is freed on error).  0 or -errno with the message.
 */
static int temp_for_regular(struct tp_outfile *of, char *resolved, const struct stat *st,
			    int *fd, struct tp_error *err)
{
	/* may we write it?  Opening without O_TRUNC changes nothing */
	int probe = open(resolved, O_WRONLY | O_NOCTTY | O_CLOEXEC), rc;

	if (probe < 0) {
		rc = -errno;
		free(resolved);
		return tp_error_set(err, rc, "cannot write %s: %s", of->path, strerror(-rc));
	}
	close(probe);
	of->target = resolved;
	rc = create_temp(of, fd);
	if (rc)
		return tp_error_set(err, rc, "cannot create a temporary file next to %s: %s",
				    of->path, strerror(-rc));
	/* the replacement keeps the file's permissions */
	(void)fchmod(*fd, st->st_mode & 07777);
	return 0;
}

int tp_outfile_open(const char *path, struct tp_outfile **out, struct tp_error *err)
{
	struct tp_outfile *of = calloc(1, sizeof(*of));
	bool links = false, magic = false;
	char *resolved = NULL;
	struct stat st;
	int fd = -1, rc;

	*out = NULL;
	if (!of || !(of->path = strdup(path))) {
		free(of);
		return tp_error_set(err, -ENOMEM, "out of memory opening %s", path);
	}
	if (!strcmp(path, "-")) {
		of->fp = stdout;
		of->is_stdout = true;
		*out = of;
		return 0;
	}
	rc = follow_links(path, &resolved, &links, &magic);
	if (rc) {
		outfile_free(of);
		return tp_error_set(err, rc == -EPERM ? -EACCES : rc, "%s %s: %s",
				    rc == -EPERM ? "refusing to write" : "cannot write", path,
				    rc == -EPERM ? PROTECTED_LINK : strerror(-rc));
	}
	if (magic) {
		/* an open file of this process: add to it as its owner would */
		fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
	} else if (stat(resolved, &st) < 0) {
		if (errno != ENOENT || links) {
			rc = errno == ENOENT ? -ENOENT : -errno;
			free(resolved);
			outfile_free(of);
			return tp_error_set(err, rc, "cannot write %s: %s", path,
					    rc == -ENOENT ? "a symbolic link to nothing"
							  : strerror(-rc));
		}
		of->target = resolved;
		resolved = NULL;
		rc = create_temp(of, &fd);
		if (rc) {
			outfile_free(of);
			return tp_error_set(err, rc, "cannot create %s: %s", path, strerror(-rc));
		}
	} else if (S_ISREG(st.st_mode)) {
		rc = temp_for_regular(of, resolved, &st, &fd, err);
		if (rc) {
			outfile_free(of);
			return rc;
		}
		resolved = NULL;	/* of->target */
	} else if (S_ISDIR(st.st_mode)) {
		free(resolved);
		outfile_free(of);
		return tp_error_set(err, -EISDIR, "cannot write %s: it is a directory", path);
	} else {
		/* a device, FIFO or socket: written in place, never truncated or removed */
		fd = open_in_place(resolved);
	}
	free(resolved);
	if (fd < 0) {
		rc = -errno;
		outfile_free(of);
		return tp_error_set(err, rc, "cannot write %s: %s", path,
				    rc == -ENXIO ? "a FIFO that nobody read for 10 s" : strerror(-rc));
	}
	of->fp = fdopen(fd, "w");
	if (!of->fp) {
		rc = -errno;
		close(fd);
		tp_outfile_discard(of);
		return tp_error_set(err, rc, "cannot write %s: %s", path, strerror(-rc));
	}
	*out = of;
	return 0;
}

FILE *tp_outfile_stream(struct tp_outfile *of)
{
	return of->fp;
}

int tp_outfile_is_atomic(const struct tp_outfile *of)
{
	return of->tmp != NULL;
}

static int fsync_dir_of(const char *path)
{
	char *dir = dir_of(path);
	int fd, rc = 0;

	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		rc = -errno;
	close(fd);
	return rc;
}

/* Whether what is at path is a regular file (not following a link): 0, -ENOTREG, -errno. */
static int regular_at(const char *path)
{
	struct stat st;

	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : -ENOTREG;
}

/*
 * Rename the temporary file over the target, which must be a regular file or absent at
 * that very moment, whatever appeared there since the open: an absent path with
 * RENAME_NOREPLACE; an existing file with RENAME_EXCHANGE, then what came out is
 * checked and removed if it is a regular file, else swapped back.  Without those flags
 * (EINVAL: some file systems) a last fstatat() before rename().  0 or -errno.
 */
static int put_in_place(struct tp_outfile *of)
{
	for (int tries = 0; tries < 8; tries++) {
		int rc = regular_at(of->target);

		if (rc == -ENOENT) {
			if (renameat2(AT_FDCWD, of->tmp, AT_FDCWD, of->target, RENAME_NOREPLACE) == 0)
				return 0;
			if (errno == EEXIST)
				continue;	/* something appeared there: look again */
			break;
		}
		if (rc)
			return rc;
		if (renameat2(AT_FDCWD, of->tmp, AT_FDCWD, of->target, RENAME_EXCHANGE) == 0) {
			rc = regular_at(of->tmp);	/* what was at the target a moment ago */
			if (!rc)
				return unlink(of->tmp) < 0 ? -errno : 0;
			if (renameat2(AT_FDCWD, of->tmp, AT_FDCWD, of->target, RENAME_EXCHANGE) < 0) {
				rc = -errno;
				free(of->tmp);	/* not ours at that name any more: never remove it */
				of->tmp = NULL;
			}
			return rc;
		}
		if (errno != ENOENT)
			break;
	}
	if (errno != EINVAL)
		return -errno;
	/* no renameat2() flags on this file system: the check just made, then rename() */
	return rename(of->tmp, of->target) < 0 ? -errno : 0;
}

int tp_outfile_commit(struct tp_outfile *of, struct tp_error *err)
{
	int rc = 0;

	errno = 0;
	if (fflush(of->fp) || ferror(of->fp))
		rc = -(errno ? errno : EIO);
	else if (of->tmp && fsync(fileno(of->fp)) < 0)
		rc = -errno;
	if (rc) {
		tp_error_set(err, rc, "write error on %s: %s", of->path, strerror(-rc));
		tp_outfile_discard(of);
		return rc;
	}
	if (of->is_stdout) {
		outfile_free(of);
		return 0;
	}
	if (fclose(of->fp)) {
		of->fp = NULL;
		rc = -(errno ? errno : EIO);
		tp_error_set(err, rc, "write error on %s: %s", of->path, strerror(-rc));
		tp_outfile_discard(of);
		return rc;
	}
	of->fp = NULL;
	if (of->tmp) {
		rc = put_in_place(of);
		if (rc) {
			tp_error_set(err, rc, "cannot put %s into place: %s", of->path,
				     rc == -ENOTREG ? "something that is not a regular file is there now"
						    : strerror(-rc));
			tp_outfile_discard(of);
			return rc;
		}
		free(of->tmp);
		of->tmp = NULL;
		rc = fsync_dir_of(of->target);
		if (rc)
			tp_error_set(err, rc, "cannot sync the directory of %s: %s", of->path,
				     strerror(-rc));
	}
	outfile_free(of);
	return rc;
}

void tp_outfile_discard(struct tp_outfile *of)
{
	if (!of)
		return;
	if (of->fp && !of->is_stdout)
		fclose(of->fp);
	if (of->tmp)
		unlink(of->tmp);	/* ours alone: created with O_EXCL */
	outfile_free(of);
}
