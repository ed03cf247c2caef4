// SPDX-License-Identifier: MIT
/* The shell's history file: parsing, formatting, a trusted directory, atomic updates
 * (thermpress/history.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thermpress/history.h>

#define MAGIC_LEN (sizeof(TP_HISTORY_MAGIC) - 1)
#define STR_(x) #x
#define STR(x) STR_(x)
#define HOPS_MAX 40

/* ---- the text ----------------------------------------------------------------- */

/* What is wrong with a command line of n bytes, or NULL. */
static const char *line_problem(const char *p, size_t n)
{
	if (n == 0)
		return "an empty line";
	if (n > TP_HISTORY_LINE_MAX)
		return "a line longer than " STR(TP_HISTORY_LINE_MAX) " bytes";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == 0)
			return "a NUL byte";
		if (c < 0x20 || c == 0x7f)
			return "a control character";
	}
	return NULL;
}

bool tp_history_line_valid(const char *line)
{
	return line && !line_problem(line, strlen(line));
}

/* Append a copy of n bytes at p (a valid line), the oldest dropped past the limit. */
static int add_copy(struct tp_history *h, const char *p, size_t n)
{
	char *copy = strndup(p, n);

	if (!copy)
		return -ENOMEM;
	if (h->n == TP_HISTORY_MAX_ENTRIES) {
		free(h->v[0]);
		memmove(h->v, h->v + 1, (h->n - 1) * sizeof(*h->v));
		h->n--;
	} else {
		char **v = realloc(h->v, (h->n + 1) * sizeof(*v));

		if (!v) {
			free(copy);
			return -ENOMEM;
		}
		h->v = v;
	}
	h->v[h->n++] = copy;
	return 0;
}

int tp_history_add(struct tp_history *h, const char *line)
{
	return tp_history_line_valid(line) ? add_copy(h, line, strlen(line)) : 0;
}

void tp_history_free(struct tp_history *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i]);
	free(h->v);
	h->v = NULL;
	h->n = 0;
}

/* What is wrong with line lineno (from 1) of n bytes at p; nl: it ended with a newline. */
static const char *file_line_problem(const char *p, size_t n, size_t lineno, bool nl)
{
	if (!nl)
		return "the last line has no newline (torn)";
	if (lineno == 1)
		return n == MAGIC_LEN && !memcmp(p, TP_HISTORY_MAGIC, n) ? NULL
			: "not the first line '" TP_HISTORY_MAGIC "'";
	if (lineno > TP_HISTORY_MAX_ENTRIES + 1)
		return "more than " STR(TP_HISTORY_MAX_ENTRIES) " command lines";
	return line_problem(p, n);
}

int tp_history_parse(const char *text, size_t len, const char *path, struct tp_history *h,
		     struct tp_error *err)
{
	size_t pos = 0, lineno = 0;

	memset(h, 0, sizeof(*h));
	if (len > TP_HISTORY_MAX_BYTES)
		return tp_error_set(err, -EPROTO, "%s is larger than %zu bytes", path,
				    (size_t)TP_HISTORY_MAX_BYTES);
	if (len == 0)
		return tp_error_set(err, -EPROTO, "%s is empty (no first line '%s')", path,
				    TP_HISTORY_MAGIC);
	while (pos < len) {
		const char *p = text + pos, *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;
		const char *why = file_line_problem(p, n, ++lineno, nl != NULL);
		int rc = why ? -EPROTO : lineno > 1 ? add_copy(h, p, n) : 0;

		if (rc < 0) {
			tp_history_free(h);
			if (rc == -ENOMEM)
				return tp_error_set(err, rc, "out of memory");
			return tp_error_set(err, rc, "line %zu of %s: %s", lineno, path, why);
		}
		pos += n + 1;
	}
	return 0;
}

char *tp_history_format(const struct tp_history *h, size_t *len)
{
	size_t first = h->n, kept = 0, total = MAGIC_LEN + 1;
	char *buf, *p;

	/* the last TP_HISTORY_MAX_ENTRIES valid lines */
	while (first > 0 && kept < TP_HISTORY_MAX_ENTRIES)
		kept += tp_history_line_valid(h->v[--first]);
	for (size_t i = first; i < h->n; i++)
		if (tp_history_line_valid(h->v[i]))
			total += strlen(h->v[i]) + 1;
	buf = malloc(total + 1);
	if (!buf)
		return NULL;
	p = buf;
	memcpy(p, TP_HISTORY_MAGIC "\n", MAGIC_LEN + 1);
	p += MAGIC_LEN + 1;
	for (size_t i = first; i < h->n; i++) {
		size_t n = strlen(h->v[i]);

		if (!tp_history_line_valid(h->v[i]))
			continue;
		memcpy(p, h->v[i], n);
		p += n;
		*p++ = '\n';
	}
	*p = '\0';
	*len = (size_t)(p - buf);
	return buf;
}

/* ---- the directory --------------------------------------------------------------- */

int tp_history_dir(char *buf, size_t len, struct tp_error *err)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int n;

	/* the XDG spec: a relative XDG_STATE_HOME is ignored */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/thermpress", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.local/state/thermpress", home);
	else
		return tp_error_set(err, -ENOENT, "no directory for the shell's history: neither "
				    "XDG_STATE_HOME nor HOME is an absolute path");
	if (n < 0 || (size_t)n >= len)
		return tp_error_set(err, -ENAMETOOLONG, "the shell's history directory has too long a name");
	return 0;
}

/* A directory walked through, one component at a time. */
struct walk {
	int fd;			/* the directory reached */
	char walked[PATH_MAX];	/* its path (links resolved), for messages */
	char todo[2 * PATH_MAX];	/* the components still to walk */
	int hops;		/* symbolic links followed */
	const char *dir;	/* the directory asked for */
};

/*
 * A directory on the way (last: the history directory itself) may be trusted: on the way
 * root's or the user's and writable by nobody else unless sticky; the last the user's
 * and writable by nobody else.
 */
static int check_dir(struct walk *w, bool last, struct tp_error *err)
{
	const char *shown = w->walked[0] ? w->walked : "/";
	uid_t me = geteuid();
	struct stat st;

	if (fstat(w->fd, &st) < 0)
		return tp_error_set(err, -errno, "cannot inspect %s: %s", shown, strerror(errno));
	if (last ? st.st_uid != me : st.st_uid != 0 && st.st_uid != me)
		return tp_error_set(err, -EPERM,
			"refusing the shell's history directory %s: %s is owned by uid %u, not by you%s",
			w->dir, shown, (unsigned)st.st_uid, last ? "" : " or root");
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (last || !(st.st_mode & S_ISVTX)))
		return tp_error_set(err, -EPERM,
			"refusing the shell's history directory %s: %s is writable by %s (mode %03o)",
			w->dir, shown, st.st_mode & S_IWOTH ? "others" : "its group",
			(unsigned)(st.st_mode & 0777));
	return 0;
}

/* Walk from / again: for the start and an absolute link. */
static int walk_root(struct walk *w, struct tp_error *err)
{
	if (w->fd >= 0)
		close(w->fd);
	w->walked[0] = '\0';
	w->fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->fd < 0)
		return tp_error_set(err, -errno, "cannot open /: %s", strerror(errno));
	return check_dir(w, false, err);
}

/* The next component of w->todo into comp (taken off todo): 1, 0 when none is left, -1
 * when it is longer than a name can be. */
static int next_component(struct walk *w, char *comp, size_t len)
{
	char *p = w->todo, *end;
	size_t n;

	while (*p == '/')
		p++;
	if (!*p)
		return 0;
	end = strchrnul(p, '/');
	n = (size_t)(end - p);
	if (n >= len)
		return -1;
	memcpy(comp, p, n);
	comp[n] = '\0';
	memmove(w->todo, end, strlen(end) + 1);
	return 1;
}

/* A symbolic link on the way: followed only when it is root's or the user's. */
static int walk_link(struct walk *w, const char *comp, const struct stat *ls,
		     struct tp_error *err)
{
	char target[PATH_MAX], rest[sizeof(w->todo)];
	ssize_t n;

	if (ls->st_uid != 0 && ls->st_uid != geteuid())
		return tp_error_set(err, -EPERM,
			"refusing the shell's history directory %s: %s/%s is a symbolic link of uid %u, "
			"neither yours nor root's", w->dir, w->walked, comp, (unsigned)ls->st_uid);
	if (++w->hops > HOPS_MAX)
		return tp_error_set(err, -ELOOP, "%s: too many symbolic links", w->dir);
	n = readlinkat(w->fd, comp, target, sizeof(target) - 1);
	if (n < 0)
		return tp_error_set(err, -errno, "cannot read the link %s/%s: %s", w->walked, comp,
				    strerror(errno));
	target[n] = '\0';
	snprintf(rest, sizeof(rest), "%s", w->todo);
	if ((size_t)snprintf(w->todo, sizeof(w->todo), "%s/%s", target, rest) >= sizeof(w->todo))
		return tp_error_set(err, -ENAMETOOLONG, "%s: the path is too long", w->dir);
	return target[0] == '/' ? walk_root(w, err) : 0;
}

/* One component: made when missing (create), a link followed, a directory entered. */
static int walk_step(struct walk *w, const char *comp, bool create, struct tp_error *err)
{
	struct stat ls, fs;
	int fd;

	if (fstatat(w->fd, comp, &ls, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return tp_error_set(err, -errno, "cannot inspect %s/%s: %s", w->walked, comp,
					    strerror(errno));
		if (!create)
			return 1;
		if ((mkdirat(w->fd, comp, 0700) < 0 && errno != EEXIST) ||
		    fstatat(w->fd, comp, &ls, AT_SYMLINK_NOFOLLOW) < 0)
			return tp_error_set(err, -errno, "cannot create %s/%s: %s", w->walked, comp,
					    strerror(errno));
	}
	if (S_ISLNK(ls.st_mode))
		return walk_link(w, comp, &ls, err);
	if (!S_ISDIR(ls.st_mode))
		return tp_error_set(err, -ENOTDIR, "refusing the shell's history directory %s: "
				    "%s/%s is not a directory", w->dir, w->walked, comp);
	fd = openat(w->fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return tp_error_set(err, -errno, "cannot open %s/%s: %s", w->walked, comp,
				    strerror(errno));
	/* the directory looked at is the one opened (not swapped in between) */
	if (fstat(fd, &fs) < 0 || fs.st_dev != ls.st_dev || fs.st_ino != ls.st_ino) {
		close(fd);
		return tp_error_set(err, -EAGAIN, "%s/%s changed while it was opened", w->walked, comp);
	}
	close(w->fd);
	w->fd = fd;
	if (!strcmp(comp, ".."))
		*strrchr(w->walked, '/') = '\0';	/* "" is / */
	else
		snprintf(w->walked + strlen(w->walked), sizeof(w->walked) - strlen(w->walked), "/%s",
			 comp);
	return check_dir(w, false, err);
}

/* Open the trusted directory dir into *out; 1 when it is missing (and not create). */
static int open_dir(const char *dir, bool create, int *out, struct tp_error *err)
{
	struct walk w = { .fd = -1, .dir = dir };
	char comp[NAME_MAX + 1];
	int rc, more;

	if (dir[0] != '/' || strlen(dir) >= sizeof(w.todo) / 2)
		return tp_error_set(err, -EINVAL, "the shell's history directory %s is not an "
				    "absolute path", dir);
	snprintf(w.todo, sizeof(w.todo), "%s", dir);
	rc = walk_root(&w, err);
	while (rc == 0 && (more = next_component(&w, comp, sizeof(comp))) != 0) {
		if (more < 0)
			rc = tp_error_set(err, -ENAMETOOLONG, "%s: a name on the way is too long", dir);
		else if (strcmp(comp, ".") && !(strcmp(comp, "..") == 0 && !w.walked[0]))
			rc = walk_step(&w, comp, create, err);
	}
	if (rc == 0)
		rc = check_dir(&w, true, err);
	if (rc == 0)
		*out = w.fd;
	else if (w.fd >= 0)
		close(w.fd);
	return rc;
}

/* ---- the file ---------------------------------------------------------------------- */

/* The open file into h: a regular file of the user, not larger than the limit. */
static int read_file(int fd, const char *path, struct tp_history *h, struct tp_error *err)
{
	struct stat st;
	size_t got = 0;
	char *text;
	int rc;

	if (fstat(fd, &st) < 0)
		return tp_error_set(err, -errno, "cannot inspect %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return tp_error_set(err, -EPROTO, "%s is not a regular file of yours", path);
	if ((size_t)st.st_size > TP_HISTORY_MAX_BYTES)
		return tp_error_set(err, -EPROTO, "%s is larger than %zu bytes", path,
				    (size_t)TP_HISTORY_MAX_BYTES);
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return tp_error_set(err, -ENOMEM, "out of memory");
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, text + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			free(text);
			return tp_error_set(err, rc, "cannot read %s: %s", path, strerror(-rc));
		}
		got += (size_t)n;
	}
	rc = tp_history_parse(text, got, path, h, err);
	free(text);
	return rc;
}

int tp_history_load(const char *dir, struct tp_history *h, struct tp_error *err)
{
	char path[PATH_MAX + 32];
	int dfd, fd, rc;

	memset(h, 0, sizeof(*h));
	snprintf(path, sizeof(path), "%s/%s", dir, TP_HISTORY_FILE);
	rc = open_dir(dir, false, &dfd, err);
	if (rc)
		return rc > 0 ? 0 : rc;
	fd = openat(dfd, TP_HISTORY_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == ELOOP)
		return tp_error_set(err, -EPROTO, "%s is a symbolic link", path);
	if (fd < 0)
		return tp_error_set(err, -errno, "cannot open %s: %s", path, strerror(errno));
	rc = read_file(fd, path, h, err);
	close(fd);
	return rc;
}

/* text into a new file tmp of dfd, synced; 0 or -errno. */
static int write_temp(int dfd, const char *tmp, const char *text, size_t len)
{
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t done = 0;
	int rc = 0;

	if (fd < 0)
		return -errno;
	while (done < len && !rc) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno != EINTR)
			rc = -errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

int tp_history_save(const char *dir, const struct tp_history *h, struct tp_error *err)
{
	char tmp[64];
	size_t len;
	char *text;
	int dfd, rc = open_dir(dir, true, &dfd, err);

	if (rc)
		return rc;
	text = tp_history_format(h, &len);
	if (!text) {
		close(dfd);
		return tp_error_set(err, -ENOMEM, "out of memory");
	}
	/* a name of this process's own: two shells ending at once each rename a whole file */
	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", TP_HISTORY_FILE, (long)getpid());
	unlinkat(dfd, tmp, 0);
	rc = write_temp(dfd, tmp, text, len);
	if (!rc && renameat(dfd, tmp, dfd, TP_HISTORY_FILE) < 0)
		rc = -errno;
	if (rc)
		unlinkat(dfd, tmp, 0);
	else if (fsync(dfd) < 0)
		rc = -errno;
	free(text);
	close(dfd);
	if (rc)
		return tp_error_set(err, rc, "cannot write %s/%s: %s", dir, TP_HISTORY_FILE,
				    strerror(-rc));
	return 0;
}
