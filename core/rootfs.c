// SPDX-License-Identifier: MIT
/* Opening files under a --root without leaving it (rootfs.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "readin.h"
#include "rootfs.h"

#define MAX_LINKS 40
#define MAX_DEPTH 256

static int open_flags(int flags)
{
	return flags | O_CLOEXEC;
}

/* The directory dirfd itself, opened with flags (never created). */
static int open_dir_itself(int dirfd, int flags, mode_t mode)
{
	int fd = openat(dirfd, ".", open_flags(flags & ~(O_CREAT | O_EXCL)), mode);

	return fd < 0 ? -errno : fd;
}

/*
 * The next component of *p into name, *p moved past it and its slashes, *last when it
 * was the last one.  0, 1 when none is left ("" or a trailing slash: the directory
 * itself), or -ENAMETOOLONG.
 */
static int next_component(char **p, char name[NAME_MAX + 1], bool *last)
{
	size_t len;

	while (**p == '/')
		(*p)++;
	if (!**p)
		return 1;
	len = strcspn(*p, "/");
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, *p, len);
	name[len] = '\0';
	*p += len;
	while (**p == '/')
		(*p)++;
	*last = !**p;
	return 0;
}

/*
 * name in dirfd is a symbolic link: what is left to resolve becomes TARGET/rest (*rest
 * replaced, *p at its start).  -ELOOP past MAX_LINKS links, -EXDEV for an absolute
 * target (it leaves the root).
 */
static int expand_link(int dirfd, const char *name, bool last, int *links, char **rest, char **p)
{
	char target[PATH_MAX], *grown;
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	size_t tl, rl;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (++*links > MAX_LINKS)
		return -ELOOP;
	if (target[0] == '/')
		return -EXDEV;
	tl = (size_t)n;
	rl = strlen(*p);
	grown = malloc(tl + 1 + rl + 1);
	if (!grown)
		return -ENOMEM;
	memcpy(grown, target, tl);
	grown[tl] = '/';
	memcpy(grown + tl + 1, *p, rl + 1);
	if (last)
		grown[tl] = '\0';
	free(*rest);
	*rest = *p = grown;
	return 0;
}

int tp_open_beneath_walk(int rootfd, const char *rel, int flags, mode_t mode)
{
	/* rest: what is left to resolve; it grows when a symlink is expanded */
	size_t cap = strlen(rel) + 1;
	char *rest = malloc(cap), *p;
	int fds[MAX_DEPTH], depth = 0, links = 0, rc = -EINVAL;

	if (!rest)
		return -ENOMEM;
	memcpy(rest, rel, cap);
	fds[0] = rootfd;
	p = rest;
	for (;;) {
		char name[NAME_MAX + 1];
		bool last = false;
		struct stat sb;

		rc = next_component(&p, name, &last);
		if (rc)	/* 1: nothing left, the directory itself */
			rc = rc > 0 ? open_dir_itself(fds[depth], flags, mode) : rc;
		else if (!strcmp(name, ".") && last)
			rc = open_dir_itself(fds[depth], flags, mode);
		else if (!strcmp(name, "."))
			continue;
		else if (!strcmp(name, "..") && depth == 0)
			rc = -EXDEV;	/* above the root */
		else if (!strcmp(name, "..")) {
			close(fds[depth--]);
			if (!last)
				continue;
			rc = open_dir_itself(fds[depth], flags, mode);
		} else if (fstatat(fds[depth], name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
			   S_ISLNK(sb.st_mode)) {
			rc = expand_link(fds[depth], name, last, &links, &rest, &p);
			if (rc == 0)
				continue;
		} else if (last) {
			/* O_NOFOLLOW: a link planted since the check above fails (ELOOP) */
			rc = openat(fds[depth], name, open_flags(flags | O_NOFOLLOW), mode);
			rc = rc < 0 ? -errno : rc;
		} else if (depth + 1 == MAX_DEPTH) {
			rc = -ENAMETOOLONG;
		} else {
			rc = openat(fds[depth], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (rc >= 0) {
				fds[++depth] = rc;
				continue;
			}
			rc = errno == ELOOP ? -EXDEV : -errno;
		}
		break;
	}
	while (depth > 0)
		close(fds[depth--]);
	free(rest);
	return rc;
}

int tp_open_beneath(int rootfd, const char *rel, int flags, mode_t mode)
{
#ifdef SYS_openat2
	static int no_openat2;
	struct open_how how = {
		.flags = (unsigned long long)open_flags(flags),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};

	if (!no_openat2) {
		long fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));

		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
		no_openat2 = 1;	/* older kernel (< 5.6): walk by hand from now on */
	}
#endif
	return tp_open_beneath_walk(rootfd, rel, flags, mode);
}

int tp_root_open(const char *root, const char *rel, int flags, mode_t mode)
{
	int rootfd, fd;

	while (*rel == '/')
		rel++;
	if (!root[0]) {
		char path[PATH_MAX];

		if ((size_t)snprintf(path, sizeof(path), "/%s", rel) >= sizeof(path))
			return -ENAMETOOLONG;
		fd = open(path, open_flags(flags), mode);
		return fd < 0 ? -errno : fd;
	}
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	fd = tp_open_beneath(rootfd, rel, flags, mode);
	close(rootfd);
	return fd;
}

int tp_root_open_file(const char *root, const char *rel, int flags)
{
	int fd = tp_root_open(root, rel, flags | O_NONBLOCK | O_NOCTTY, 0), rc, fl;

	if (fd < 0)
		return fd;
	rc = readin_check_fd(fd, READIN_REGULAR);
	fl = rc ? 0 : fcntl(fd, F_GETFL);
	if (!rc && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
		rc = -errno;
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

int tp_write_value_fd(int fd, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int e;

	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	e = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) < 0 && !e)
		e = -errno;
	return e;
}

int tp_root_write_value(const char *root, const char *rel, int flags, const char *value)
{
	int fd = tp_root_open_file(root, rel, flags);

	return fd < 0 ? fd : tp_write_value_fd(fd, value);
}
