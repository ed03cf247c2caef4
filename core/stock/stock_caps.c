// SPDX-License-Identifier: MIT
/*
 * Caps on a stock kernel, and the state file that makes them undoable.
 *
 * A cap is written either to the policy's scaling_max_freq (the default) or to its
 * cpufreq cooling device's cur_state.  Before anything is written, the limit in
 * force is recorded in the state file and the file is fsync'ed; a failed write
 * drops the record it just added.  Clearing a cap writes the recorded original back
 * (or, with no record, removes the cap: cpuinfo_max_freq, or cooling state 0);
 * tp_stock_restore() writes back everything the file records, which also undoes
 * what a killed process left behind.
 *
 * The state file (core/stock/README.md):
 *   $THERMPRESS_STATE_DIR/caps.state        when set, else
 *   ROOT/run/thermpress/caps.state          under a root other than "/" (tests stay inside their tree)
 *   /run/thermpress/caps.state              as root on "/"
 *   $XDG_RUNTIME_DIR/thermpress/caps.state  as a user on "/", else /tmp/thermpress-UID/caps.state
 *
 *   thermpress-caps 1
 *   root /
 *   scaling_max_freq POLICY ORIGINAL_KHZ APPLIED_KHZ
 *   cur_state COOLING_DEVICE ORIGINAL_STATE APPLIED_STATE
 *
 * Every change to it happens under flock(LOCK_EX), so concurrent thermpress
 * processes never lose each other's records; the first original of a limit is
 * kept however many times it is capped again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stock.h"

#define STATE_MAGIC "thermpress-caps 1"

enum entry_kind { ENTRY_SCALING, ENTRY_COOLING };

struct entry {
	enum entry_kind kind;
	int id;			/* policy id (first CPU) or cooling device id */
	int64_t original, applied;
};

struct state {
	int fd;
	struct entry *v;
	size_t n, alloc;
	bool dirty;
};

const char *stock_write_hint(int e)
{
	if (e == EACCES || e == EPERM)
		return " (changing cpufreq and thermal limits needs root)";
	if (e == EROFS)
		return " (the filesystem is read-only)";
	return "";
}

void stock_state_path(struct stock *s)
{
	const char *env = getenv(STOCK_ENV_STATE_DIR);
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (env && *env)
		snprintf(s->state_path, sizeof(s->state_path), "%s/caps.state", env);
	else if (!s->real_root)
		snprintf(s->state_path, sizeof(s->state_path), "%s/run/thermpress/caps.state", s->root);
	else if (geteuid() == 0)
		snprintf(s->state_path, sizeof(s->state_path), "/run/thermpress/caps.state");
	else if (xdg && *xdg)
		snprintf(s->state_path, sizeof(s->state_path), "%s/thermpress/caps.state", xdg);
	else
		snprintf(s->state_path, sizeof(s->state_path), "/tmp/thermpress-%u/caps.state",
			 (unsigned)geteuid());
}

static int mkdirs(const char *file)
{
	char dir[STOCK_PATH_MAX + 64];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", file);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static const char *root_name(const struct stock *s)
{
	return s->root[0] ? s->root : "/";
}

static int state_add(struct state *st, enum entry_kind kind, int id, int64_t original, int64_t applied)
{
	if (st->n == st->alloc) {
		size_t alloc = st->alloc ? st->alloc * 2 : 16;
		struct entry *v = realloc(st->v, alloc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		st->v = v;
		st->alloc = alloc;
	}
	st->v[st->n++] = (struct entry){ kind, id, original, applied };
	st->dirty = true;
	return 0;
}

static struct entry *state_find(struct state *st, enum entry_kind kind, int id)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->v[i].kind == kind && st->v[i].id == id)
			return &st->v[i];
	return NULL;
}

static void state_drop(struct state *st, struct entry *e)
{
	size_t i = (size_t)(e - st->v);

	memmove(&st->v[i], &st->v[i + 1], (st->n - i - 1) * sizeof(*e));
	st->n--;
	st->dirty = true;
}

static int state_parse(const struct stock *s, struct state *st, char *text, struct tp_error *err)
{
	char *save = NULL, *line;
	int lineno = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind[32];
		int id, n;
		long long orig, applied;

		lineno++;
		if (lineno == 1) {
			if (strcmp(line, STATE_MAGIC) != 0)
				return tp_error_set(err, -EPROTO,
					"%s is not a thermpress caps state file (line 1: '%.40s')",
					s->state_path, line);
			continue;
		}
		if (strncmp(line, "root ", 5) == 0) {
			if (strcmp(line + 5, root_name(s)) != 0)
				return tp_error_set(err, -EXDEV,
					"%s records caps under root %s, not %s: set THERMPRESS_STATE_DIR apart for each root",
					s->state_path, line + 5, root_name(s));
			continue;
		}
		if (sscanf(line, "%31s %d %lld %lld%n", kind, &id, &orig, &applied, &n) != 4 ||
		    line[n] != '\0' || id < 0)
			return tp_error_set(err, -EPROTO, "%s:%d: malformed line '%.60s'",
					    s->state_path, lineno, line);
		if (strcmp(kind, "scaling_max_freq") == 0)
			n = state_add(st, ENTRY_SCALING, id, orig, applied);
		else if (strcmp(kind, "cur_state") == 0)
			n = state_add(st, ENTRY_COOLING, id, orig, applied);
		else
			return tp_error_set(err, -EPROTO, "%s:%d: unknown limit '%s'", s->state_path,
					    lineno, kind);
		if (n < 0)
			return tp_error_set(err, -ENOMEM, "out of memory");
	}
	st->dirty = false;
	return 0;
}

/* Open (create = make it if missing), lock and read the state file. */
static int state_open(const struct stock *s, struct state *st, bool create, struct tp_error *err)
{
	memset(st, 0, sizeof(*st));
	st->fd = -1;
	for (int attempt = 0; attempt < 16; attempt++) {
		struct stat a, b;
		int fd;

		if (create) {
			int rc = mkdirs(s->state_path);

			if (rc < 0)
				return tp_error_set(err, rc,
					"cannot create the directory of %s to record the original limits: %s%s",
					s->state_path, strerror(-rc), stock_write_hint(-rc));
		}
		fd = open(s->state_path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
		if (fd < 0) {
			int e = errno;

			if (e == ENOENT && !create)
				return 0;	/* nothing recorded */
			return tp_error_set(err, -e, "cannot open %s to record the original limits: %s%s",
					    s->state_path, strerror(e), stock_write_hint(e));
		}
		if (flock(fd, LOCK_EX) < 0) {
			int e = errno;

			close(fd);
			return tp_error_set(err, -e, "cannot lock %s: %s", s->state_path, strerror(e));
		}
		/* whoever held the lock may have removed the file: start again */
		if (fstat(fd, &a) == 0 && stat(s->state_path, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev) {
			st->fd = fd;
			break;
		}
		close(fd);
	}
	if (st->fd < 0)
		return tp_error_set(err, -EAGAIN, "%s keeps changing under thermpress", s->state_path);

	struct stat sb;
	char *text;
	ssize_t n;

	if (fstat(st->fd, &sb) < 0 || sb.st_size > (1 << 24)) {
		close(st->fd);
		st->fd = -1;
		return tp_error_set(err, -EFBIG, "%s is not a thermpress caps state file", s->state_path);
	}
	text = malloc((size_t)sb.st_size + 1);
	if (!text) {
		close(st->fd);
		st->fd = -1;
		return tp_error_set(err, -ENOMEM, "out of memory");
	}
	n = pread(st->fd, text, (size_t)sb.st_size, 0);
	if (n < 0) {
		int e = errno;

		free(text);
		close(st->fd);
		st->fd = -1;
		return tp_error_set(err, -e, "cannot read %s: %s", s->state_path, strerror(e));
	}
	text[n] = '\0';
	int rc = n ? state_parse(s, st, text, err) : 0;

	free(text);
	if (rc < 0) {
		free(st->v);
		close(st->fd);
		st->fd = -1;
		st->v = NULL;
	}
	return rc;
}

/* Write the entries back (or remove the file when there are none); fsync. */
static int state_save(const struct stock *s, struct state *st, struct tp_error *err)
{
	size_t len = 0, cap = 64 + st->n * 80 + strlen(root_name(s));
	char *buf;
	int e = 0;

	if (st->fd < 0 || !st->dirty)
		return 0;
	if (st->n == 0) {
		if (unlink(s->state_path) < 0 && errno != ENOENT)
			e = errno;
		if (e)
			return tp_error_set(err, -e, "cannot remove %s: %s", s->state_path, strerror(e));
		st->dirty = false;
		return 0;
	}
	buf = malloc(cap);
	if (!buf)
		return tp_error_set(err, -ENOMEM, "out of memory");
	len += (size_t)snprintf(buf + len, cap - len, "%s\nroot %s\n", STATE_MAGIC, root_name(s));
	for (size_t i = 0; i < st->n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s %d %lld %lld\n",
					st->v[i].kind == ENTRY_SCALING ? "scaling_max_freq" : "cur_state",
					st->v[i].id, (long long)st->v[i].original,
					(long long)st->v[i].applied);
	if (ftruncate(st->fd, 0) < 0 || pwrite(st->fd, buf, len, 0) != (ssize_t)len ||
	    fsync(st->fd) < 0)
		e = errno ? errno : EIO;
	free(buf);
	if (e)
		return tp_error_set(err, -e, "cannot write %s: %s", s->state_path, strerror(e));
	st->dirty = false;
	return 0;
}

static void state_close(struct state *st)
{
	if (st->fd >= 0)
		close(st->fd);	/* drops the lock */
	free(st->v);
	memset(st, 0, sizeof(*st));
	st->fd = -1;
}

int stock_pending(const struct stock *s, size_t *count)
{
	struct state st;
	int rc = state_open(s, &st, false, NULL);

	*count = rc == 0 ? st.n : 0;
	state_close(&st);
	return rc;
}

/* ---- Cooling devices ------------------------------------------------------- */

int stock_cooling_state(const struct stock *s, const struct stock_cooling *c, int64_t *state)
{
	char path[STOCK_PATH_MAX];

	if (stock_path(s, path, sizeof(path), "sys/class/thermal/cooling_device%d/cur_state", c->id) < 0)
		return -ENAMETOOLONG;
	return stock_read_i64(path, state);
}

/* cpufreq_cooling: state 0 is the top frequency, state k the k-th below it. */
int64_t stock_state_khz(const struct stock_policy *p, int64_t state)
{
	if (state < 0 || !p->nr_freqs)
		return TP_NONE;
	if ((uint64_t)state >= p->nr_freqs)
		return (int64_t)p->freqs[p->nr_freqs - 1];
	return (int64_t)p->freqs[state];
}

/* The smallest state whose frequency is at most khz (the cap never exceeds khz). */
static int64_t khz_state(const struct stock_policy *p, const struct stock_cooling *c, uint64_t khz)
{
	int64_t last = (int64_t)p->nr_freqs - 1;

	if (c->max_state >= 0 && c->max_state < last)
		last = c->max_state;
	for (int64_t st = 0; st <= last; st++)
		if (p->freqs[st] <= khz)
			return st;
	return last;
}

static int write_cooling(const struct stock *s, const struct stock_cooling *c, int64_t state,
			 struct tp_error *err)
{
	char path[STOCK_PATH_MAX], value[32];
	int e;

	stock_path(s, path, sizeof(path), "sys/class/thermal/cooling_device%d/cur_state", c->id);
	snprintf(value, sizeof(value), "%lld", (long long)state);
	e = stock_write_text(path, value);
	if (!e)
		return 0;
	if (e == EINVAL)
		return tp_error_set(err, -EINVAL, "the kernel refused state %s in %s", value, path);
	return tp_error_set(err, -e, "cannot write %s to %s: %s%s", value, path, strerror(e),
			    stock_write_hint(e));
}

/* Write one limit back; the entry says which. */
static int write_entry(struct stock *s, const struct entry *en, int64_t value, struct tp_error *err)
{
	if (en->kind == ENTRY_SCALING)
		return stock_freq_set_max(s, en->id, (uint64_t)value, err);
	for (size_t i = 0; i < s->nr_cooling; i++)
		if (s->cooling[i].id == en->id)
			return write_cooling(s, &s->cooling[i], value, err);
	/* a device that is gone now: write it by number anyway */
	struct stock_cooling c = { .id = en->id, .policy = -1, .max_state = TP_NONE };

	return write_cooling(s, &c, value, err);
}

/* ---- Inject -------------------------------------------------------------------- */

/* The policies the CPUs of cpus belong to (a cap on one CPU caps its whole policy). */
static int touched_policies(struct stock *s, const struct tp_cpuset *cpus, bool *touched,
			    struct tp_error *err)
{
	for (int cpu = tp_cpuset_next(cpus, 0); cpu >= 0; cpu = tp_cpuset_next(cpus, cpu + 1)) {
		size_t i;

		for (i = 0; i < s->nr_cpus && s->cpus[i].cpu != cpu; i++)
			;
		if (i == s->nr_cpus)
			return tp_error_set(err, -EINVAL, "cpu %d does not exist", cpu);
		if (s->cpus[i].policy < 0)
			return tp_error_set(err, -ENODEV,
				"cpu %d has no cpufreq policy: a stock kernel cannot cap it", cpu);
		touched[s->cpus[i].policy] = true;
	}
	return 0;
}

static int cap_policy(struct stock *s, struct state *st, struct stock_policy *p, uint64_t khz,
		      struct tp_error *err)
{
	enum entry_kind kind = s->method == TP_STOCK_CAP_SCALING_MAX_FREQ ? ENTRY_SCALING : ENTRY_COOLING;
	struct stock_cooling *c = p->cooling >= 0 ? &s->cooling[p->cooling] : NULL;
	int64_t current, value;
	struct entry *en;
	bool added = false;
	int id, rc;

	if (kind == ENTRY_SCALING) {
		id = p->id;
		rc = stock_policy_scaling_max(s, p, &current);
		if (rc < 0)
			return tp_error_set(err, rc, "cannot read scaling_max_freq of cpu %d: %s", p->id,
					    strerror(-rc));
		value = (int64_t)khz;
	} else {
		if (!c)
			return tp_error_set(err, -ENODEV,
				"cpu %d's frequency domain has no cpufreq cooling device (cap through scaling_max_freq instead)",
				p->id);
		if (!p->nr_freqs)
			return tp_error_set(err, -ENODATA,
				"cpu %d has no scaling_available_frequencies: the states of %s cannot be matched to frequencies",
				p->id, c->type);
		id = c->id;
		rc = stock_cooling_state(s, c, &current);
		if (rc < 0)
			return tp_error_set(err, rc, "cannot read cur_state of cooling_device%d: %s", c->id,
					    strerror(-rc));
		value = khz_state(p, c, khz);
	}
	en = state_find(st, kind, id);
	if (!en) {
		rc = state_add(st, kind, id, current, value);
		if (rc < 0)
			return tp_error_set(err, rc, "out of memory");
		en = &st->v[st->n - 1];
		added = true;
	} else {
		en->applied = value;
		st->dirty = true;
	}
	/* recorded on disk before the limit changes */
	rc = state_save(s, st, err);
	if (rc < 0)
		goto undo;
	rc = write_entry(s, en, value, err);
	if (rc < 0)
		goto undo;
	return 0;
undo:
	if (added) {
		state_drop(st, &st->v[st->n - 1]);
		state_save(s, st, NULL);
	}
	return rc;
}

/* Clear a policy: the recorded originals back, or no cap when nothing is recorded. */
static int clear_policy(struct stock *s, struct state *st, struct stock_policy *p,
			struct tp_error *err)
{
	struct entry *en;
	bool restored = false;
	int rc;

	en = state_find(st, ENTRY_SCALING, p->id);
	if (en) {
		rc = write_entry(s, en, en->original, err);
		if (rc < 0)
			return rc;
		state_drop(st, en);
		restored = true;
	}
	if (p->cooling >= 0 && (en = state_find(st, ENTRY_COOLING, s->cooling[p->cooling].id))) {
		rc = write_entry(s, en, en->original, err);
		if (rc < 0)
			return rc;
		state_drop(st, en);
		restored = true;
	}
	if (restored)
		return state_save(s, st, err);
	if (s->method == TP_STOCK_CAP_COOLING_DEVICE && p->cooling >= 0)
		return write_cooling(s, &s->cooling[p->cooling], 0, err);
	return stock_freq_set_max(s, p->id, (uint64_t)p->hw_max_khz, err);
}

int stock_inject(struct stock *s, const struct tp_cpuset *cpus, uint64_t khz, struct tp_error *err)
{
	bool *touched = calloc(s->nr_policies ? s->nr_policies : 1, sizeof(*touched));
	struct state st;
	int rc;

	if (!touched)
		return tp_error_set(err, -ENOMEM, "out of memory");
	rc = touched_policies(s, cpus, touched, err);
	if (rc < 0) {
		free(touched);
		return rc;
	}
	rc = state_open(s, &st, khz != 0, err);
	if (rc < 0) {
		free(touched);
		return rc;
	}
	for (size_t i = 0; i < s->nr_policies && rc == 0; i++) {
		if (!touched[i])
			continue;
		if (khz)
			rc = cap_policy(s, &st, &s->policies[i], khz, err);
		else
			rc = clear_policy(s, &st, &s->policies[i], err);
	}
	if (rc == 0)
		rc = state_save(s, &st, err);
	else
		state_save(s, &st, NULL);
	state_close(&st);
	free(touched);
	if (rc == 0)
		stock_sample(s);
	return rc;
}

int stock_restore_all(struct stock *s, size_t *restored, struct tp_error *err)
{
	struct state st;
	size_t done = 0;
	int rc = state_open(s, &st, false, err), first = 0;
	struct tp_error one;

	if (restored)
		*restored = 0;
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < st.n;) {
		rc = write_entry(s, &st.v[i], st.v[i].original, &one);
		if (rc < 0) {
			if (!first) {
				first = rc;
				if (err)
					*err = one;
			}
			i++;
			continue;
		}
		state_drop(&st, &st.v[i]);
		done++;
	}
	rc = state_save(s, &st, first ? NULL : err);
	state_close(&st);
	if (restored)
		*restored = done;
	if (first)
		return first;
	if (rc == 0 && done)
		stock_sample(s);
	return rc;
}
