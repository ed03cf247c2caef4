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
		size_t len;
		bool last;
		struct stat sb;

		while (*p == '/')
			p++;
		if (!*p) {	/* "" or a trailing slash: the directory itself */
			rc = openat(fds[depth], ".", open_flags(flags & ~(O_CREAT | O_EXCL)), mode);
			rc = rc < 0 ? -errno : rc;
			break;
		}
		len = strcspn(p, "/");
		if (len > NAME_MAX) {
			rc = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		while (*p == '/')
			p++;
		last = !*p;
		if (!strcmp(name, ".")) {
			if (last) {
				rc = openat(fds[depth], ".", open_flags(flags & ~(O_CREAT | O_EXCL)), mode);
				rc = rc < 0 ? -errno : rc;
				break;
			}
			continue;
		}
		if (!strcmp(name, "..")) {
			if (depth == 0) {
				rc = -EXDEV;	/* above the root */
				break;
			}
			close(fds[depth--]);
			if (last) {
				rc = openat(fds[depth], ".", open_flags(flags & ~(O_CREAT | O_EXCL)), mode);
				rc = rc < 0 ? -errno : rc;
				break;
			}
			continue;
		}
		if (fstatat(fds[depth], name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(fds[depth], name, target, sizeof(target) - 1);
			size_t tl, rl;
			char *grown;

			if (n < 0) {
				rc = -errno;
				break;
			}
			target[n] = '\0';
			if (++links > MAX_LINKS) {
				rc = -ELOOP;
				break;
			}
			if (target[0] == '/') {
				rc = -EXDEV;	/* an absolute link leaves the root */
				break;
			}
			/* rest becomes TARGET/rest */
			tl = (size_t)n;
			rl = strlen(p);
			grown = malloc(tl + 1 + rl + 1);
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			memcpy(grown, target, tl);
			grown[tl] = '/';
			memcpy(grown + tl + 1, p, rl + 1);
			if (last)
				grown[tl] = '\0';
			free(rest);
			rest = p = grown;
			continue;
		}
		if (last) {
			/* O_NOFOLLOW: a link planted since the check above fails (ELOOP) */
			rc = openat(fds[depth], name, open_flags(flags | O_NOFOLLOW), mode);
			rc = rc < 0 ? -errno : rc;
			break;
		}
		if (depth + 1 == MAX_DEPTH) {
			rc = -ENAMETOOLONG;
			break;
		}
		rc = openat(fds[depth], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (rc < 0) {
			rc = errno == ELOOP ? -EXDEV : -errno;
			break;
		}
		fds[++depth] = rc;
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
