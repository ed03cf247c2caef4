// SPDX-License-Identifier: MIT
/* The state file: parsing, formatting, a safe directory, atomic updates (state.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs.h"
#include "state.h"
#include "intparse.h"
#include "grow.h"

#define ENV_STATE_DIR "THERMPRESS_STATE_DIR"

static const char *const kind_words[] = {
	[TP_STATE_SCALING] = "scaling_max_freq",
	[TP_STATE_COOLING] = "cur_state",
	[TP_STATE_CAP] = "cap",
	[TP_STATE_BACKEND] = "backend",
	[TP_STATE_DECAY] = "decay",
	[TP_STATE_HOLD] = "hold",
};

#define HOLD_PID_MAX 4194304	/* PID_MAX_LIMIT */

/* ---- entries ------------------------------------------------------------------- */

bool tp_state_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= TP_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

bool tp_state_entry_valid(const struct tp_state_entry *e)
{
	switch (e->kind) {
	case TP_STATE_SCALING:
		return e->id >= 0 && e->id <= TP_STATE_ID_MAX && e->original >= 1 &&
		       e->original <= TP_STATE_VALUE_MAX && e->applied >= 1 &&
		       e->applied <= TP_STATE_VALUE_MAX;
	case TP_STATE_COOLING:
	case TP_STATE_CAP:
		return e->id >= 0 && e->id <= TP_STATE_ID_MAX && e->original >= 0 &&
		       e->original <= TP_STATE_VALUE_MAX && e->applied >= 0 &&
		       e->applied <= TP_STATE_VALUE_MAX;
	case TP_STATE_BACKEND:
		return e->id == 0 && tp_state_name_valid(e->name) &&
		       tp_state_name_valid(e->applied_name);
	case TP_STATE_DECAY:
		return e->id == 0 && tp_state_name_valid(e->name) && e->original >= 1 &&
		       e->original <= TP_STATE_VALUE_MAX && e->applied >= 1 &&
		       e->applied <= TP_STATE_VALUE_MAX;
	case TP_STATE_HOLD:
		return e->id >= 0 && e->id <= TP_STATE_ID_MAX && e->pid >= 1 &&
		       e->pid <= HOLD_PID_MAX && e->start >= 0 &&
		       (e->held == TP_STATE_CAP || e->held == TP_STATE_COOLING ||
			(e->held == TP_STATE_SCALING && e->applied >= 1)) &&
		       e->applied >= 0 && e->applied <= TP_STATE_VALUE_MAX &&
		       e->before >= (e->held == TP_STATE_SCALING) && e->before <= TP_STATE_VALUE_MAX;
	}
	return false;
}

struct tp_state_entry *tp_state_find(struct tp_state_doc *doc, enum tp_state_kind kind, int id,
				     const char *name)
{
	for (size_t i = 0; i < doc->n; i++) {
		struct tp_state_entry *e = &doc->v[i];

		if (e->kind != kind || kind == TP_STATE_HOLD)
			continue;
		if (kind == TP_STATE_BACKEND)
			return e;
		if (kind == TP_STATE_DECAY ? !strcmp(e->name, name ? name : "") : e->id == id)
			return e;
	}
	return NULL;
}

int tp_state_add(struct tp_state_doc *doc, const struct tp_state_entry *e)
{
	struct tp_state_entry *v = array_grow(doc->v, &doc->alloc, doc->n + 1, sizeof(*v), 16);

	if (!v)
		return -ENOMEM;
	doc->v = v;
	doc->v[doc->n++] = *e;
	return 0;
}

void tp_state_drop(struct tp_state_doc *doc, struct tp_state_entry *e)
{
	size_t i = (size_t)(e - doc->v);

	memmove(&doc->v[i], &doc->v[i + 1], (doc->n - i - 1) * sizeof(*e));
	doc->n--;
}

/* ---- the ledger of holds ------------------------------------------------------ */

/* The start time (field 22) and state (field 3) of /proc/PID/stat; -errno. */
static int proc_stat(const char *which, int64_t *start, char *state)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%s/stat", which);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the command name may hold spaces and parentheses */
	if (!p || p[1] != ' ')
		return -EPROTO;
	p += 2;
	*state = *p;
	/* p is at field 3; field 22 is 19 spaces further */
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return -EPROTO;
	*start = strtoll(p, NULL, 10);
	return 0;
}

int tp_state_self(int64_t *pid, int64_t *start)
{
	char state;

	*pid = getpid();
	return proc_stat("self", start, &state);
}

bool tp_state_holder_alive(int64_t pid, int64_t start)
{
	char which[32], state = 0;
	int64_t t = -1;

	snprintf(which, sizeof(which), "%lld", (long long)pid);
	if (proc_stat(which, &t, &state) < 0)
		return false;
	return t == start && state != 'Z' && state != 'X' && state != 'x';
}

size_t tp_state_prune_holds(struct tp_state_doc *doc)
{
	size_t dropped = 0;

	for (size_t i = 0; i < doc->n;) {
		struct tp_state_entry *e = &doc->v[i];

		if (e->kind == TP_STATE_HOLD && !tp_state_holder_alive(e->pid, e->start)) {
			tp_state_drop(doc, e);
			dropped++;
		} else {
			i++;
		}
	}
	return dropped;
}

struct tp_state_entry *tp_state_last_hold(struct tp_state_doc *doc, enum tp_state_kind held, int id)
{
	for (size_t i = doc->n; i-- > 0;)
		if (doc->v[i].kind == TP_STATE_HOLD && doc->v[i].held == held && doc->v[i].id == id)
			return &doc->v[i];
	return NULL;
}

int64_t tp_state_hold_base(struct tp_state_doc *doc, enum tp_state_kind held, int id, int64_t now)
{
	struct tp_state_entry *h = tp_state_last_hold(doc, held, id);

	return h ? h->before : now;
}

bool tp_state_held(struct tp_state_doc *doc, enum tp_state_kind held, int id)
{
	return tp_state_last_hold(doc, held, id) != NULL;
}

static bool hold_repeated(const struct tp_state_doc *doc, const struct tp_state_entry *e)
{
	for (size_t i = 0; i < doc->n; i++)
		if (doc->v[i].kind == TP_STATE_HOLD && doc->v[i].held == e->held &&
		    doc->v[i].id == e->id && doc->v[i].pid == e->pid && doc->v[i].start == e->start)
			return true;
	return false;
}

static int add_bad(struct tp_state_doc *doc, unsigned line, const char *text, size_t len)
{
	unsigned *l = realloc(doc->bad_line, (doc->nbad + 1) * sizeof(*l));
	char **t;

	if (!l)
		return -ENOMEM;
	doc->bad_line = l;
	t = realloc(doc->bad_text, (doc->nbad + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	doc->bad_text = t;
	t[doc->nbad] = strndup(text, len);
	if (!t[doc->nbad])
		return -ENOMEM;
	l[doc->nbad++] = line;
	return 0;
}

void tp_state_doc_free(struct tp_state_doc *doc)
{
	for (size_t i = 0; i < doc->nbad; i++)
		free(doc->bad_text[i]);
	free(doc->bad_text);
	free(doc->bad_line);
	free(doc->v);
	memset(doc, 0, sizeof(*doc));
}

void tp_state_bad_lines(const struct tp_state_doc *doc, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < doc->nbad && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u",
					 i == 0 ? (doc->nbad == 1 ? "line " : "lines ") : ", ",
					 doc->bad_line[i]);
}

/* ---- parsing ------------------------------------------------------------------- */

/* A whole decimal token: digits only (no sign, no spaces), at most 18 of them. */
static bool parse_num(const char *tok, int64_t *out)
{
	uint64_t v;

	if (strlen(tok) > 18 || parse_u64(tok, &v) < 0)
		return false;
	*out = (int64_t)v;
	return true;
}

/* One entry line (NUL-terminated, no newline); false when it is not one. */
static bool parse_entry(char *line, int version, struct tp_state_entry *e)
{
	char *tok[8], *save = NULL;
	int n = 0;
	int64_t id = 0;

	/* single spaces only: the formatter writes nothing else */
	for (char *p = line; *p; p++)
		if (*p == ' ' && (p == line || p[1] == ' ' || p[1] == '\0'))
			return false;
	for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == 8)
			return false;
		tok[n++] = t;
	}
	if (n == 0)
		return false;
	memset(e, 0, sizeof(*e));
	if (!strcmp(tok[0], "scaling_max_freq") || !strcmp(tok[0], "cur_state") ||
	    (version >= 2 && !strcmp(tok[0], "cap"))) {
		e->kind = tok[0][0] == 's' ? TP_STATE_SCALING : tok[0][1] == 'u' ? TP_STATE_COOLING
										: TP_STATE_CAP;
		if (n != 4 || !parse_num(tok[1], &id) || id > TP_STATE_ID_MAX ||
		    !parse_num(tok[2], &e->original) || !parse_num(tok[3], &e->applied))
			return false;
		e->id = (int)id;
	} else if (version >= 2 && !strcmp(tok[0], "backend")) {
		e->kind = TP_STATE_BACKEND;
		if (n != 3 || strlen(tok[1]) >= TP_NAME_MAX || strlen(tok[2]) >= TP_NAME_MAX)
			return false;
		strcpy(e->name, tok[1]);
		strcpy(e->applied_name, tok[2]);
	} else if (version >= 2 && !strcmp(tok[0], "hold")) {
		int k = 1;

		e->kind = TP_STATE_HOLD;
		e->held = TP_STATE_CAP;
		if (n == 7 && !strcmp(tok[1], "scaling_max_freq"))
			e->held = TP_STATE_SCALING;
		else if (n == 7 && !strcmp(tok[1], "cur_state"))
			e->held = TP_STATE_COOLING;
		else if (n != 6)
			return false;
		k += n == 7;
		if (!parse_num(tok[k], &id) || id > TP_STATE_ID_MAX ||
		    !parse_num(tok[k + 1], &e->pid) || !parse_num(tok[k + 2], &e->start) ||
		    !parse_num(tok[k + 3], &e->applied) || !parse_num(tok[k + 4], &e->before))
			return false;
		e->id = (int)id;
	} else if (version >= 2 && !strcmp(tok[0], "decay")) {
		e->kind = TP_STATE_DECAY;
		if (n != 4 || strlen(tok[1]) >= TP_NAME_MAX || !parse_num(tok[2], &e->original) ||
		    !parse_num(tok[3], &e->applied))
			return false;
		strcpy(e->name, tok[1]);
	} else {
		return false;
	}
	return tp_state_entry_valid(e);
}

int tp_state_parse(const char *text, size_t len, const char *path, struct tp_state_doc *doc,
		   struct tp_error *err)
{
	char line[4200];
	size_t pos = 0;
	unsigned lineno = 0;
	int version = 0, rc = 0;
	bool have_root = false;

	memset(doc, 0, sizeof(*doc));
	while (pos < len) {
		const char *start = text + pos, *nl = memchr(start, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - start) : len - pos;
		bool torn = !nl, bad = false;
		struct tp_state_entry e;

		pos += l + (nl ? 1 : 0);
		lineno++;
		if (l >= sizeof(line) || memchr(start, '\0', l)) {
			bad = true;
		} else {
			memcpy(line, start, l);
			line[l] = '\0';
		}
		if (lineno == 1) {
			if (bad || torn || (strcmp(line, TP_STATE_MAGIC) && strcmp(line, TP_STATE_MAGIC_V1))) {
				rc = tp_error_set(err, -EPROTO,
					"%s is not a thermpress caps state file (line 1 is not '%s'): check the limits by hand and remove it",
					path, TP_STATE_MAGIC);
				goto fail;
			}
			version = line[strlen(line) - 1] - '0';
			continue;
		}
		if (!bad && !strncmp(line, "root ", 5)) {
			if (have_root || torn || line[5] != '/' || strlen(line + 5) >= sizeof(doc->root)) {
				rc = tp_error_set(err, -EPROTO,
					"%s:%u: damaged root line: the root these limits belong to is unknown; check them by hand and remove the file",
					path, lineno);
				goto fail;
			}
			snprintf(doc->root, sizeof(doc->root), "%.4095s", line + 5);
			have_root = true;
			continue;
		}
		if (!bad && !torn && parse_entry(line, version, &e)) {
			const char *name = e.kind == TP_STATE_DECAY ? e.name : NULL;

			if (e.kind == TP_STATE_HOLD ? !hold_repeated(doc, &e)
						    : !tp_state_find(doc, e.kind, e.id, name)) {
				if (tp_state_add(doc, &e) < 0)
					goto oom;
				continue;
			}
		}
		if (add_bad(doc, lineno, start, l) < 0)
			goto oom;
	}
	if (!lineno) {
		rc = tp_error_set(err, -EPROTO, "%s is empty: not a thermpress caps state file", path);
		goto fail;
	}
	if (!have_root) {
		rc = tp_error_set(err, -EPROTO,
			"%s has no root line: the root these limits belong to is unknown; check them by hand and remove the file",
			path);
		goto fail;
	}
	return 0;
oom:
	rc = tp_error_set(err, -ENOMEM, "out of memory");
fail:
	tp_state_doc_free(doc);
	return rc;
}

char *tp_state_format(const struct tp_state_doc *doc, bool keep_bad, size_t *len)
{
	size_t cap = 64 + strlen(doc->root) + doc->n * (2 * TP_NAME_MAX + 64), used = 0;
	char *buf;

	if (keep_bad)
		for (size_t i = 0; i < doc->nbad; i++)
			cap += strlen(doc->bad_text[i]) + 1;
	buf = malloc(cap);
	if (!buf)
		return NULL;
	used += (size_t)snprintf(buf + used, cap - used, "%s\nroot %s\n", TP_STATE_MAGIC, doc->root);
	for (size_t i = 0; i < doc->n; i++) {
		const struct tp_state_entry *e = &doc->v[i];
		const char *w = kind_words[e->kind];

		if (e->kind == TP_STATE_BACKEND)
			used += (size_t)snprintf(buf + used, cap - used, "%s %s %s\n", w, e->name,
						 e->applied_name);
		else if (e->kind == TP_STATE_DECAY)
			used += (size_t)snprintf(buf + used, cap - used, "%s %s %lld %lld\n", w, e->name,
						 (long long)e->original, (long long)e->applied);
		else if (e->kind == TP_STATE_HOLD)
			used += (size_t)snprintf(buf + used, cap - used, "%s %s%s%d %lld %lld %lld %lld\n",
						 w, e->held == TP_STATE_CAP ? "" : kind_words[e->held],
						 e->held == TP_STATE_CAP ? "" : " ", e->id,
						 (long long)e->pid, (long long)e->start,
						 (long long)e->applied, (long long)e->before);
		else
			used += (size_t)snprintf(buf + used, cap - used, "%s %d %lld %lld\n", w, e->id,
						 (long long)e->original, (long long)e->applied);
	}
	for (size_t i = 0; keep_bad && i < doc->nbad; i++)
		used += (size_t)snprintf(buf + used, cap - used, "%s\n", doc->bad_text[i]);
	*len = used;
	return buf;
}

/* ---- where ------------------------------------------------------------------------ */

void tp_state_default_dir(char *buf, size_t len)
{
	const char *env = getenv(ENV_STATE_DIR), *xdg = getenv("XDG_RUNTIME_DIR");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (geteuid() == 0)
		snprintf(buf, len, "/run/thermpress");
	else if (xdg && *xdg == '/')	/* the XDG spec: a relative path is ignored */
		snprintf(buf, len, "%s/thermpress", xdg);
	else
		snprintf(buf, len, "/tmp/thermpress-%u", (unsigned)geteuid());
}

void tp_state_canonical_root(const char *root, char *buf, size_t len)
{
	char *real = realpath(root[0] ? root : "/", NULL);

	snprintf(buf, len, "%s", real ? real : root[0] ? root : "/");
	free(real);
}

/* ---- the directory ------------------------------------------------------------- */

/* The directory fd is one thermpress may trust: a directory of ours nobody else can write. */
static int check_dir(int fd, const char *dir, struct tp_error *err)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return tp_error_set(err, -errno, "cannot inspect the state directory %s: %s", dir,
				    strerror(errno));
	if (sb.st_uid != geteuid())
		return tp_error_set(err, -EPERM,
			"refusing the state directory %s: it is owned by uid %u, not by you (uid %u); someone may have planted it: remove it or set THERMPRESS_STATE_DIR to a directory of yours",
			dir, (unsigned)sb.st_uid, (unsigned)geteuid());
	if (sb.st_mode & (S_IWGRP | S_IWOTH))
		return tp_error_set(err, -EPERM,
			"refusing the state directory %s: it is writable by %s (mode %03o); make it private (chmod 700 %s) or remove it",
			dir, sb.st_mode & S_IWOTH ? "others" : "its group", (unsigned)(sb.st_mode & 0777),
			dir);
	return 0;
}

static int refuse_link(const char *dir, struct tp_error *err)
{
	return tp_error_set(err, -ELOOP,
		"refusing the state directory %s: it is a symbolic link (someone may have planted it); remove it or set THERMPRESS_STATE_DIR to a directory of yours",
		dir);
}

/* An absolute (or cwd-relative) directory: parents made 0755, the last 0700. */
static int open_dir_plain(const char *dir, bool create, int *out, struct tp_error *err)
{
	char buf[TP_STATE_PATH_MAX];
	struct stat ls, fs;
	int fd;

	if (create) {
		snprintf(buf, sizeof(buf), "%s", dir);
		for (char *p = buf + 1; *p; p++) {
			if (*p != '/')
				continue;
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return tp_error_set(err, -errno,
					"cannot create %s for the state file: %s", buf, strerror(errno));
			*p = '/';
		}
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return tp_error_set(err, -errno, "cannot create the state directory %s: %s", dir,
					    strerror(errno));
	}
	if (lstat(dir, &ls) < 0) {
		if (errno == ENOENT && !create)
			return 1;
		return tp_error_set(err, -errno, "cannot inspect the state directory %s: %s", dir,
				    strerror(errno));
	}
	if (S_ISLNK(ls.st_mode))
		return refuse_link(dir, err);
	if (!S_ISDIR(ls.st_mode))
		return tp_error_set(err, -ENOTDIR, "refusing the state directory %s: it is not a directory; remove it",
				    dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			return refuse_link(dir, err);
		return tp_error_set(err, -errno, "cannot open the state directory %s: %s", dir,
				    strerror(errno));
	}
	/* the directory looked at is the one opened (not swapped in between) */
	if (fstat(fd, &fs) < 0 || fs.st_dev != ls.st_dev || fs.st_ino != ls.st_ino) {
		close(fd);
		return tp_error_set(err, -EAGAIN, "the state directory %s changed while it was opened",
				    dir);
	}
	*out = fd;
	return 0;
}

/* A directory below root, never resolved outside it; made 0700 like above. */
static int open_dir_beneath(const char *root, const char *dir, bool create, int *out,
			    struct tp_error *err)
{
	char full[TP_STATE_PATH_MAX], part[TP_STATE_PATH_MAX];
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;
	size_t n = strlen(dir);

	snprintf(full, sizeof(full), "%s/%s", root, dir);
	if (rootfd < 0)
		return tp_error_set(err, -errno, "cannot open the root %s: %s", root, strerror(errno));
	/* each component in turn, created when missing */
	for (size_t i = 0; i <= n; i++) {
		if (dir[i] != '/' && dir[i] != '\0')
			continue;
		memcpy(part, dir, i);
		part[i] = '\0';
		fd = tp_open_beneath(rootfd, part, O_PATH | O_DIRECTORY, 0);
		if (fd == -ENOENT && create) {
			char *slash = strrchr(part, '/');
			int parent = slash ? (*slash = '\0', tp_open_beneath(rootfd, part, O_PATH | O_DIRECTORY, 0))
					   : dup(rootfd);

			if (parent < 0) {
				close(rootfd);
				return tp_error_set(err, parent, "cannot open %s: %s", full, strerror(-parent));
			}
			if (mkdirat(parent, slash ? slash + 1 : part, dir[i] ? 0755 : 0700) < 0 &&
			    errno != EEXIST) {
				int e = errno;

				close(parent);
				close(rootfd);
				return tp_error_set(err, -e, "cannot create the state directory %s: %s", full,
						    strerror(e));
			}
			close(parent);
			if (slash)
				*slash = '/';
			fd = tp_open_beneath(rootfd, part, O_PATH | O_DIRECTORY, 0);
		}
		if (fd == -ENOENT && !create) {
			close(rootfd);
			return 1;
		}
		if (fd < 0) {
			close(rootfd);
			if (fd == -EXDEV || fd == -ELOOP)
				return tp_error_set(err, -EXDEV,
					"refusing the state directory %s: it leads outside the root %s through a symbolic link",
					full, root);
			return tp_error_set(err, fd, "cannot open the state directory %s: %s", full,
					    strerror(-fd));
		}
		close(fd);
	}
	fd = tp_open_beneath(rootfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	close(rootfd);
	if (fd == -ELOOP)
		return refuse_link(full, err);
	if (fd < 0)
		return tp_error_set(err, fd, "cannot open the state directory %s: %s", full,
				    strerror(-fd));
	*out = fd;
	return 0;
}

/* ---- open, save, close ------------------------------------------------------------- */

static bool same_root(const char *a, const char *b)
{
	char ca[4096], cb[4096];

	if (!strcmp(a, b))
		return true;
	tp_state_canonical_root(a, ca, sizeof(ca));
	tp_state_canonical_root(b, cb, sizeof(cb));
	return !strcmp(ca, cb);
}

static int read_state(struct tp_state *st, const char *root_canon, struct tp_error *err)
{
	int fd = openat(st->dirfd, st->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	char *text;
	ssize_t n;
	size_t got = 0;
	int rc;

	if (fd < 0 && errno == ENOENT) {
		snprintf(st->doc.root, sizeof(st->doc.root), "%s", root_canon);
		return 0;
	}
	if (fd < 0) {
		int e = errno;

		if (e == ELOOP)
			return tp_error_set(err, -ELOOP,
				"refusing the state file %s: it is a symbolic link; remove it", st->path);
		return tp_error_set(err, -e, "cannot read the state file %s: %s", st->path, strerror(e));
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size > TP_STATE_MAX_BYTES) {
		close(fd);
		return tp_error_set(err, -EPROTO,
			"refusing the state file %s: not a regular file of at most %d bytes; remove it",
			st->path, TP_STATE_MAX_BYTES);
	}
	text = malloc((size_t)sb.st_size + 1);
	if (!text) {
		close(fd);
		return tp_error_set(err, -ENOMEM, "out of memory");
	}
	while (got < (size_t)sb.st_size) {
		n = pread(fd, text + got, (size_t)sb.st_size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(text);
			close(fd);
			return tp_error_set(err, -e, "cannot read the state file %s: %s", st->path,
					    strerror(e));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	rc = tp_state_parse(text, got, st->path, &st->doc, err);
	free(text);
	if (rc < 0)
		return rc;
	if (!same_root(st->doc.root, root_canon)) {
		rc = tp_error_set(err, -EXDEV,
			"%s records changes under root %s, not %s: set THERMPRESS_STATE_DIR apart for each root",
			st->path, st->doc.root, root_canon);
		tp_state_doc_free(&st->doc);
		return rc;
	}
	snprintf(st->doc.root, sizeof(st->doc.root), "%s", root_canon);
	return 0;
}

/* With st->dirfd open: check it, take the lock, read the file. */
static int lock_and_read(struct tp_state *st, const char *shown, const char *root_canon,
			 struct tp_error *err)
{
	char lock[300];
	int rc = check_dir(st->dirfd, shown, err);

	if (rc < 0)
		return rc;
	snprintf(lock, sizeof(lock), "%s.lock", st->name);
	st->lockfd = openat(st->dirfd, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (st->lockfd < 0)
		return tp_error_set(err, -errno, "cannot open the lock file %s.lock: %s%s", st->path,
				    strerror(errno), errno == ELOOP ? " (a symbolic link: remove it)" : "");
	while (flock(st->lockfd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		return tp_error_set(err, -errno, "cannot lock %s.lock: %s", st->path, strerror(errno));
	}
	return read_state(st, root_canon, err);
}

int tp_state_open(struct tp_state *st, const char *root, const char *dir, const char *name,
		  const char *root_canon, bool create, struct tp_error *err)
{
	char shown[TP_STATE_PATH_MAX];
	int rc;

	memset(st, 0, sizeof(*st));
	st->dirfd = st->lockfd = -1;
	if (root && root[0])
		snprintf(st->path, sizeof(st->path), "%s/%s/%s", root, dir, name);
	else
		snprintf(st->path, sizeof(st->path), "%s/%s", dir, name);
	snprintf(st->name, sizeof(st->name), "%s", name);
	if (strchr(root_canon, '\n'))
		return tp_error_set(err, -EINVAL, "the root %s has a newline in its name", root_canon);
	rc = root && root[0] ? open_dir_beneath(root, dir, create, &st->dirfd, err)
			     : open_dir_plain(dir, create, &st->dirfd, err);
	if (rc == 1) {		/* no directory: nothing recorded */
		snprintf(st->doc.root, sizeof(st->doc.root), "%s", root_canon);
		return 0;
	}
	if (rc < 0)
		return rc;
	if (root && root[0])
		snprintf(shown, sizeof(shown), "%.2000s/%.2000s", root, dir);
	else
		snprintf(shown, sizeof(shown), "%.4000s", dir);
	rc = lock_and_read(st, shown, root_canon, err);
	if (rc < 0)
		tp_state_close(st);
	return rc;
}

int tp_state_open_at(struct tp_state *st, int dirfd, const char *shown, const char *name,
		     const char *root_canon, struct tp_error *err)
{
	int rc;

	memset(st, 0, sizeof(*st));
	st->lockfd = -1;
	snprintf(st->path, sizeof(st->path), "%.4000s/%s", shown, name);
	snprintf(st->name, sizeof(st->name), "%s", name);
	st->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (st->dirfd < 0)
		return tp_error_set(err, -errno, "cannot use the state directory %s: %s", shown,
				    strerror(errno));
	rc = lock_and_read(st, shown, root_canon, err);
	if (rc < 0)
		tp_state_close(st);
	return rc;
}

int tp_state_save(struct tp_state *st, struct tp_error *err)
{
	char tmp[300];
	size_t len;
	char *text;
	int fd, e = 0;

	if (!st->dirty)
		return 0;
	if (st->dirfd < 0 || st->lockfd < 0)
		return tp_error_set(err, -EBADF, "the state file %s is not open", st->path);
	if (st->doc.n == 0 && (st->drop_bad || st->doc.nbad == 0)) {
		if (unlinkat(st->dirfd, st->name, 0) < 0 && errno != ENOENT)
			return tp_error_set(err, -errno, "cannot remove %s: %s", st->path, strerror(errno));
		fsync(st->dirfd);
		st->dirty = false;
		return 0;
	}
	text = tp_state_format(&st->doc, !st->drop_bad, &len);
	if (!text)
		return tp_error_set(err, -ENOMEM, "out of memory");
	snprintf(tmp, sizeof(tmp), "%s.tmp", st->name);
	/* a leftover of a killed writer: we hold the lock, so it is nobody's now */
	unlinkat(st->dirfd, tmp, 0);
	fd = openat(st->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
	} else {
		size_t done = 0;

		while (done < len && !e) {
			ssize_t n = write(fd, text + done, len - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				e = errno;
			else
				done += (size_t)n;
		}
		if (!e && fsync(fd) < 0)
			e = errno;
		if (close(fd) < 0 && !e)
			e = errno;
		if (!e && renameat(st->dirfd, tmp, st->dirfd, st->name) < 0)
			e = errno;
		if (e)
			unlinkat(st->dirfd, tmp, 0);
		else if (fsync(st->dirfd) < 0)
			e = errno;
	}
	free(text);
	if (e)
		return tp_error_set(err, -e, "cannot write the state file %s: %s", st->path,
				    strerror(e));
	st->dirty = false;
	return 0;
}

void tp_state_close(struct tp_state *st)
{
	if (st->lockfd >= 0)
		close(st->lockfd);	/* drops the lock */
	if (st->dirfd >= 0)
		close(st->dirfd);
	tp_state_doc_free(&st->doc);
	st->dirfd = st->lockfd = -1;
}

void tp_state_report_bad(struct tp_state *st, struct tp_restore_report *rep)
{
	char lines[200];
	size_t n = st->doc.nbad;

	if (!n)
		return;
	tp_state_bad_lines(&st->doc, lines, sizeof(lines));
	rep->skipped = n;
	snprintf(rep->skipped_text, sizeof(rep->skipped_text),
		 "%.100s of %.151s %s damaged and %s left out", lines, st->path,
		 n == 1 ? "was" : "were", n == 1 ? "was" : "were");
	st->drop_bad = true;
	st->dirty = true;
}

void tp_restore_failed(int *first, int rc, struct tp_error *err, const struct tp_error *one)
{
	if (rc >= 0 || *first)
		return;
	*first = rc;
	if (err)
		*err = *one;
}
