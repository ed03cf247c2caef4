// SPDX-License-Identifier: MIT
/*
 * The patched kernel's interface (docs/abi.md) under a root directory: the real
 * debugfs, a fixture tree, or a simulator served over FUSE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi_text.h"
#include "source.h"

struct patched {
	char dir[4096];		/* root + TP_ABI_DIR */
	char *buf;		/* read buffer, reused between snapshots */
	size_t cap;
};

static int file_path(const struct patched *p, const char *name, char *path, size_t len)
{
	if ((size_t)snprintf(path, len, "%s/%s", p->dir, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static const char *errno_hint(int e)
{
	return e == EACCES || e == EPERM ? " (debugfs needs root)" : "";
}

/* Read a whole file from one open into p->buf; NUL-terminated. */
static int read_file(struct patched *p, const char *name, size_t *len, struct tp_error *err)
{
	char path[4200];
	size_t used = 0;
	int fd;

	if (file_path(p, name, path, sizeof(path)) < 0)
		return tp_error_set(err, -ENAMETOOLONG, "path too long: %s/%s", p->dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tp_error_set(err, -errno, "cannot open %s: %s%s", path, strerror(errno),
				    errno_hint(errno));
	for (;;) {
		ssize_t n;

		if (p->cap - used < 4096 + 1) {
			size_t cap = p->cap ? p->cap * 2 : 65536;
			char *b = realloc(p->buf, cap);

			if (!b) {
				close(fd);
				return tp_error_set(err, -ENOMEM, "out of memory reading %s", path);
			}
			p->buf = b;
			p->cap = cap;
		}
		n = read(fd, p->buf + used, p->cap - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return tp_error_set(err, -e, "cannot read %s: %s", path, strerror(e));
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	p->buf[used] = '\0';
	*len = used;
	return 0;
}

/* One value in one write(), as docs/abi.md requires. */
static int write_file(struct patched *p, const char *name, const char *value, struct tp_error *err)
{
	char path[4200];
	size_t len = strlen(value);
	ssize_t n;
	int fd, e;

	if (file_path(p, name, path, sizeof(path)) < 0)
		return tp_error_set(err, -ENAMETOOLONG, "path too long: %s/%s", p->dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return tp_error_set(err, -errno, "cannot open %s for writing: %s%s", path,
				    strerror(errno), errno_hint(errno));
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	e = errno;
	if (close(fd) < 0 && n >= 0) {
		e = errno;
		n = -1;
	}
	if (n < 0) {
		if (e == EINVAL)
			return tp_error_set(err, -EINVAL, "the kernel refused '%s' in %s", value, path);
		return tp_error_set(err, -e, "cannot write '%s' to %s: %s%s", value, path,
				    strerror(e), errno_hint(e));
	}
	if ((size_t)n != len)
		return tp_error_set(err, -EIO, "short write of '%s' to %s", value, path);
	return 0;
}

static int patched_snapshot(struct tp_source *src, struct tp_snapshot *snap, struct tp_error *err)
{
	struct patched *p = src->priv;
	size_t len;
	int rc = read_file(p, "stats", &len, err);

	if (rc < 0)
		return rc;
	rc = tp_abi_parse_stats(p->buf, len, snap, err);
	if (rc < 0)
		return rc;
	snprintf(snap->source, sizeof(snap->source), "patched");
	return 0;
}

static int patched_inject(struct tp_source *src, const struct tp_cpuset *cpus, uint64_t khz,
			  struct tp_error *err)
{
	char value[4096], list[4000];
	size_t need = tp_cpuset_format(cpus, list, sizeof(list));

	if (need >= sizeof(list))
		return tp_error_set(err, -E2BIG, "cpu list too long for one write (%zu bytes)", need);
	if (khz)
		snprintf(value, sizeof(value), "%s %llu\n", list, (unsigned long long)khz);
	else
		snprintf(value, sizeof(value), "%s clear\n", list);
	return write_file(src->priv, "inject", value, err);
}

static int patched_set_backend(struct tp_source *src, const char *name, struct tp_error *err)
{
	char value[TP_NAME_MAX + 2];

	snprintf(value, sizeof(value), "%s\n", name);
	return write_file(src->priv, "backend", value, err);
}

static int patched_set_decay(struct tp_source *src, uint32_t decay_ms, struct tp_error *err)
{
	char value[16];

	snprintf(value, sizeof(value), "%u\n", decay_ms);
	return write_file(src->priv, "decay_ms", value, err);
}

static int patched_backends(struct tp_source *src, char names[][TP_NAME_MAX], size_t max,
			    size_t *count, int *active, int64_t *decay_ms, struct tp_error *err)
{
	struct patched *p = src->priv;
	uint64_t v;
	size_t len;
	int rc = read_file(p, "backend", &len, err);

	if (rc < 0)
		return rc;
	rc = tp_abi_parse_backends(p->buf, len, names, max, count, active, err);
	if (rc < 0)
		return rc;
	rc = read_file(p, "decay_ms", &len, err);
	if (rc < 0)
		return rc;
	if (len && p->buf[len - 1] == '\n')
		p->buf[--len] = '\0';
	if (tp_abi_parse_u64(p->buf, &v) < 0)
		return tp_error_set(err, -EPROTO, "malformed decay_ms '%s'", p->buf);
	*decay_ms = (int64_t)v;
	return 0;
}

/* A simulator served over FUSE has sim_clock; a kernel does not. */
static int patched_advance(struct tp_source *src, uint64_t ns, struct tp_error *err)
{
	struct patched *p = src->priv;
	char path[4200], value[32];

	file_path(p, "sim_clock", path, sizeof(path));
	if (access(path, F_OK) != 0)
		return tp_error_set(err, -ENOTSUP, "%s is not a simulator: it has no clock to advance",
				    src->description);
	snprintf(value, sizeof(value), "%llu\n", (unsigned long long)ns);
	return write_file(p, "sim_clock", value, err);
}

static void patched_close(struct tp_source *src)
{
	struct patched *p = src->priv;

	free(p->buf);
	free(p);
}

static const struct tp_source_ops patched_ops = {
	.snapshot = patched_snapshot,
	.inject = patched_inject,
	.set_backend = patched_set_backend,
	.set_decay = patched_set_decay,
	.backends = patched_backends,
	.advance = patched_advance,
	.close = patched_close,
};

int tp_source_patched_open(const char *root, struct tp_source *src, struct tp_error *err)
{
	struct patched *p = calloc(1, sizeof(*p));
	uint64_t version;
	size_t len;
	int rc;

	if (!p)
		return tp_error_set(err, -ENOMEM, "out of memory");
	/* root is a prefix without a trailing slash: "" for "/" */
	if ((size_t)snprintf(p->dir, sizeof(p->dir), "%s/%s", root, TP_ABI_DIR) >= sizeof(p->dir)) {
		free(p);
		return tp_error_set(err, -ENAMETOOLONG, "root path too long");
	}
	src->priv = p;
	rc = read_file(p, "version", &len, err);
	if (rc == 0) {
		if (len && p->buf[len - 1] == '\n')
			p->buf[--len] = '\0';
		if (tp_abi_parse_u64(p->buf, &version) < 0)
			rc = tp_error_set(err, -EPROTO, "%s/version: malformed '%.32s'", p->dir, p->buf);
		else if (version != TP_ABI_VERSION)
			rc = tp_error_set(err, -EPROTO,
				"%s: interface version %llu is not supported (this thermpress reads version %d)",
				p->dir, (unsigned long long)version, TP_ABI_VERSION);
	}
	if (rc < 0) {
		patched_close(src);
		src->priv = NULL;
		return rc;
	}
	src->ops = &patched_ops;
	snprintf(src->description, sizeof(src->description), "patched kernel at %s", *root ? root : "/");
	return 0;
}
