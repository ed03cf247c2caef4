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
#include "rootfs.h"
#include "source.h"
#include "state.h"
#include "grow.h"
#include "readin.h"
#include "sim/sim.h"

struct patched {
	char dir[4096];		/* root + TP_ABI_DIR */
	int version;		/* of the interface, read when opened */
	char root[4096];	/* the root prefix: "" for "/" */
	char *buf;		/* read buffer, reused between snapshots */
	size_t cap;
	/* the state file (state.h), used once journal is on */
	bool journal;
	char root_canon[4096];
	char state_dir[4096];
	char state_name[64];
	int state_dirfd;	/* the state directory, kept from the first journal on: -1 before */
	/* a holder (tp_hold_begin): its caps are entered in the ledger as this process's */
	bool holder;
	int64_t self_pid, self_start;
	int64_t *held_before;	/* [cpu]: what it carried before this holder first capped it, -1 */
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

/*
 * Open an interface file for reading: never blocking (O_NONBLOCK), and only a regular
 * file (debugfs's, a fixture's or the simulator's), not a FIFO or a device planted there.
 */
static int open_interface(const char *path, struct tp_error *err)
{
	int fd = readin_open(AT_FDCWD, path, 0, READIN_REGULAR);

	if (fd < 0)
		return tp_error_set(err, fd, "cannot open %s: %s%s", path, readin_strerror(fd),
				    errno_hint(-fd));
	return fd;
}

/* Read a whole file (at most TP_ABI_MAX_FILE bytes) from one open into p->buf. */
static int read_file(struct patched *p, const char *name, size_t *len, struct tp_error *err)
{
	char path[4200];
	size_t used = 0;
	int fd;

	if (file_path(p, name, path, sizeof(path)) < 0)
		return tp_error_set(err, -ENAMETOOLONG, "path too long: %s/%s", p->dir, name);
	fd = open_interface(path, err);
	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t n;

		if (used >= TP_ABI_MAX_FILE) {
			close(fd);
			return tp_error_set(err, -EFBIG, "cannot read %s: larger than %d bytes "
					    "(the limit of an interface file)", path, TP_ABI_MAX_FILE);
		}

		char *b = array_grow(p->buf, &p->cap, used + 4096 + 1, 1, 65536);

		if (!b) {
			close(fd);
			return tp_error_set(err, -ENOMEM, "out of memory reading %s", path);
		}
		p->buf = b;
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
	int fd, rc;

	if (file_path(p, name, path, sizeof(path)) < 0)
		return tp_error_set(err, -ENAMETOOLONG, "path too long: %s/%s", p->dir, name);
	fd = tp_root_open_file(p->root, path + strlen(p->root), O_WRONLY);
	if (fd == -EXDEV || fd == -ELOOP)
		return tp_error_set(err, -EXDEV,
			"refusing to write %s: a symbolic link leads outside the root %s", path,
			p->root);
	if (fd < 0)
		return tp_error_set(err, fd, "cannot open %s for writing: %s%s", path,
				    readin_strerror(fd), errno_hint(-fd));
	rc = tp_write_value_fd(fd, value);
	if (rc == -EINVAL)	/* the value without its newline, which is no part of it */
		return tp_error_set(err, -EINVAL, "the kernel refused '%.*s' in %s",
				    (int)strcspn(value, "\n"), value, path);
	if (rc < 0)
		return tp_error_set(err, rc, "cannot write '%s' to %s: %s%s", value, path,
				    strerror(-rc), errno_hint(-rc));
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
	return 0;
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

/* ---- The state file: every change recorded before it is made ---------------------- */

/*
 * Open the state file: in the directory kept open since the journal was turned on (a
 * directory swapped for a link meanwhile changes nothing), else looked up by name.
 */
static int journal_open(struct patched *p, struct tp_state *st, bool create, struct tp_error *err)
{
	if (p->state_dirfd >= 0)
		return tp_state_open_at(st, p->state_dirfd, p->state_dir, p->state_name,
					p->root_canon, err);
	return tp_state_open(st, NULL, p->state_dir, p->state_name, p->root_canon, create, err);
}

/* The active backend and its decay period. */
static int active_backend(struct tp_source *src, char *name, int64_t *decay_ms, struct tp_error *err)
{
	char names[TP_MAX_BACKENDS][TP_NAME_MAX];
	size_t count = 0;
	int active = -1;
	int rc = patched_backends(src, names, TP_MAX_BACKENDS, &count, &active, decay_ms, err);

	if (rc < 0)
		return rc;
	if (active < 0)
		return tp_error_set(err, -EIO, "%s/backend names no active backend", ((struct patched *)src->priv)->dir);
	snprintf(name, TP_NAME_MAX, "%s", names[active]);
	return 0;
}

/*
 * Change one thing with its record kept right: entries added (and saved) before the
 * write, dropped again if it fails; entries whose limit is back at its original
 * dropped after it succeeds.  record fills st (adds, updates, marks drops in drop).
 */
static int journaled_write(struct patched *p, struct tp_state *st, const char *file,
			   const char *value, size_t first_added, bool *drop, struct tp_error *err)
{
	int rc;

	st->dirty = true;
	rc = tp_state_save(st, err);
	if (rc == 0)
		rc = write_file(p, file, value, err);
	if (rc < 0) {
		while (st->doc.n > first_added)
			tp_state_drop(&st->doc, &st->doc.v[st->doc.n - 1]);
		st->dirty = true;
		tp_state_save(st, NULL);
		return rc;
	}
	for (size_t i = first_added; i-- > 0;)
		if (drop[i]) {
			tp_state_drop(&st->doc, &st->doc.v[i]);
			st->dirty = true;
		}
	return tp_state_save(st, err);
}

static int inject_value(const struct tp_cpuset *cpus, uint64_t khz, char *value, size_t len,
			struct tp_error *err)
{
	char list[4000];
	size_t need = tp_cpuset_format(cpus, list, sizeof(list));

	if (need >= sizeof(list))
		return tp_error_set(err, -E2BIG, "cpu list too long for one write (%zu bytes)", need);
	if (khz)
		snprintf(value, len, "%s %llu\n", list, (unsigned long long)khz);
	else
		snprintf(value, len, "%s clear\n", list);
	return 0;
}

/* This process's hold on cpu, or NULL. */
static struct tp_state_entry *own_hold(const struct patched *p, struct tp_state_doc *doc, int cpu)
{
	for (size_t i = 0; i < doc->n; i++) {
		struct tp_state_entry *e = &doc->v[i];

		if (e->kind == TP_STATE_HOLD && e->held == TP_STATE_CAP && e->id == cpu &&
		    e->pid == p->self_pid && e->start == p->self_start)
			return e;
	}
	return NULL;
}

/*
 * Cap cpus at khz with the state file st open and locked, snap taken before: the cap
 * records updated (the first original kept), a holder's ledger entries too.
 */
static int inject_locked(struct patched *p, struct tp_state *st, const struct tp_snapshot *snap,
			 const struct tp_cpuset *cpus, uint64_t khz, bool hold, struct tp_error *err)
{
	char value[4096];
	size_t first_added = st->doc.n;
	bool *drop = calloc(st->doc.n + 1, sizeof(*drop));
	int rc = drop ? inject_value(cpus, khz, value, sizeof(value), err)
		      : tp_error_set(err, -ENOMEM, "out of memory");

	for (int cpu = tp_cpuset_next(cpus, 0); rc == 0 && cpu >= 0; cpu = tp_cpuset_next(cpus, cpu + 1)) {
		int i = tp_snapshot_find_cpu(snap, cpu);
		const struct tp_cpu *c = i >= 0 ? &snap->cpus[i] : NULL;
		int64_t now = c && c->capped_freq_khz > 0 && c->capped_freq_khz < c->max_freq_khz ?
			c->capped_freq_khz : 0;
		struct tp_state_entry *en = tp_state_find(&st->doc, TP_STATE_CAP, cpu, NULL), *h;

		if (!c)
			continue;
		if (!en) {
			struct tp_state_entry add = { .kind = TP_STATE_CAP, .id = cpu, .original = now,
						      .applied = (int64_t)khz };

			if ((int64_t)khz != now && tp_state_add(&st->doc, &add) < 0)
				rc = tp_error_set(err, -ENOMEM, "out of memory");
		} else if ((int64_t)khz == en->original &&
			   !tp_state_held(&st->doc, TP_STATE_CAP, cpu)) {
			drop[en - st->doc.v] = true;
		} else {
			/* held: the record stays for the last holder's end and cap restore */
			en->applied = (int64_t)khz;
		}
		if (!hold || rc < 0)
			continue;
		if (p->held_before && cpu < TP_MAX_CPUS && p->held_before[cpu] < 0)
			p->held_before[cpu] = now;
		h = own_hold(p, &st->doc, cpu);
		if (h) {
			h->applied = (int64_t)khz;
		} else {
			struct tp_state_entry add = { .kind = TP_STATE_HOLD, .held = TP_STATE_CAP, .id = cpu,
						      .pid = p->self_pid, .start = p->self_start,
						      .applied = (int64_t)khz };

			add.before = tp_state_hold_base(&st->doc, TP_STATE_CAP, cpu, now);

			if (tp_state_add(&st->doc, &add) < 0)
				rc = tp_error_set(err, -ENOMEM, "out of memory");
		}
	}
	if (rc == 0)
		rc = journaled_write(p, st, "inject", value, first_added, drop, err);
	free(drop);
	return rc;
}

static int patched_inject(struct tp_source *src, const struct tp_cpuset *cpus, uint64_t khz,
			  struct tp_error *err)
{
	struct patched *p = src->priv;
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_state st;
	char value[4096];
	int rc = inject_value(cpus, khz, value, sizeof(value), err);

	if (rc < 0 || !p->journal)
		return rc < 0 ? rc : write_file(p, "inject", value, err);
	rc = journal_open(p, &st, true, err);
	if (rc < 0)
		return rc;
	rc = patched_snapshot(src, &snap, err);
	if (rc == 0)
		rc = inject_locked(p, &st, &snap, cpus, khz, p->holder, err);
	tp_snapshot_release(&snap);
	tp_state_close(&st);
	return rc;
}

static int patched_set_backend(struct tp_source *src, const char *name, struct tp_error *err)
{
	struct patched *p = src->priv;
	char value[TP_NAME_MAX + 2], now[TP_NAME_MAX];
	struct tp_state st;
	struct tp_state_entry *en;
	bool *drop;
	size_t first_added;
	int64_t decay;
	int rc;

	snprintf(value, sizeof(value), "%s\n", name);
	if (!p->journal)
		return write_file(p, "backend", value, err);
	rc = journal_open(p, &st, true, err);
	if (rc < 0)
		return rc;
	first_added = st.doc.n;
	drop = calloc(st.doc.n + 1, sizeof(*drop));
	if (!drop)
		rc = tp_error_set(err, -ENOMEM, "out of memory");
	if (rc == 0)
		rc = active_backend(src, now, &decay, err);
	if (rc == 0 && !tp_state_name_valid(name))
		rc = tp_error_set(err, -EINVAL, "invalid backend name '%.32s'", name);
	en = rc == 0 ? tp_state_find(&st.doc, TP_STATE_BACKEND, 0, NULL) : NULL;
	if (rc == 0 && !en && strcmp(name, now) && tp_state_name_valid(now)) {
		struct tp_state_entry add = { .kind = TP_STATE_BACKEND };

		snprintf(add.name, sizeof(add.name), "%s", now);
		snprintf(add.applied_name, sizeof(add.applied_name), "%s", name);
		if (tp_state_add(&st.doc, &add) < 0)
			rc = tp_error_set(err, -ENOMEM, "out of memory");
	} else if (rc == 0 && en) {
		snprintf(en->applied_name, sizeof(en->applied_name), "%s", name);
		if (!strcmp(name, en->name))
			drop[en - st.doc.v] = true;
	}
	if (rc == 0)
		rc = journaled_write(p, &st, "backend", value, first_added, drop, err);
	free(drop);
	tp_state_close(&st);
	return rc;
}

static int patched_set_decay(struct tp_source *src, uint32_t decay_ms, struct tp_error *err)
{
	struct patched *p = src->priv;
	char value[16], now[TP_NAME_MAX];
	struct tp_state st;
	struct tp_state_entry *en;
	bool *drop = NULL;
	size_t first_added;
	int64_t decay;
	int rc;

	snprintf(value, sizeof(value), "%u\n", decay_ms);
	if (!p->journal)
		return write_file(p, "decay_ms", value, err);
	rc = journal_open(p, &st, true, err);
	if (rc < 0)
		return rc;
	rc = active_backend(src, now, &decay, err);
	first_added = st.doc.n;
	drop = calloc(st.doc.n + 1, sizeof(*drop));
	if (rc == 0 && !drop)
		rc = tp_error_set(err, -ENOMEM, "out of memory");
	en = rc == 0 ? tp_state_find(&st.doc, TP_STATE_DECAY, 0, now) : NULL;
	if (rc == 0 && !en && decay > 0 && decay != decay_ms && tp_state_name_valid(now)) {
		struct tp_state_entry add = { .kind = TP_STATE_DECAY, .original = decay,
					      .applied = decay_ms };

		snprintf(add.name, sizeof(add.name), "%s", now);
		if (tp_state_add(&st.doc, &add) < 0)
			rc = tp_error_set(err, -ENOMEM, "out of memory");
	} else if (rc == 0 && en) {
		en->applied = decay_ms;
		if (en->original == decay_ms)
			drop[en - st.doc.v] = true;
	}
	if (rc == 0)
		rc = journaled_write(p, &st, "decay_ms", value, first_added, drop, err);
	free(drop);
	tp_state_close(&st);
	return rc;
}

static int patched_journal(struct tp_source *src, struct tp_error *err)
{
	struct patched *p = src->priv;
	struct tp_state st;
	/* the state file must be usable before anything is changed */
	int rc = journal_open(p, &st, true, err);

	/* from now on the directory is this one, whatever its name comes to lead to */
	if (rc == 0 && p->state_dirfd < 0 && st.dirfd >= 0) {
		p->state_dirfd = fcntl(st.dirfd, F_DUPFD_CLOEXEC, 0);
		if (p->state_dirfd < 0)
			rc = tp_error_set(err, -errno, "cannot keep the state directory %s open: %s",
					  p->state_dir, strerror(errno));
	}
	tp_state_close(&st);
	if (rc == 0)
		p->journal = true;
	return rc;
}

static int patched_hold_begin(struct tp_source *src, struct tp_error *err)
{
	struct patched *p = src->priv;
	int rc = tp_state_self(&p->self_pid, &p->self_start);

	if (rc < 0)
		return tp_error_set(err, rc, "cannot tell this process's start time from /proc/self/stat: %s "
				    "(a hold is recorded by pid and start time)", strerror(-rc));
	if (!p->held_before) {
		p->held_before = malloc(TP_MAX_CPUS * sizeof(*p->held_before));
		if (!p->held_before)
			return tp_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < TP_MAX_CPUS; i++)
		p->held_before[i] = -1;
	rc = patched_journal(src, err);
	if (rc == 0)
		p->holder = true;
	return rc;
}

/*
 * The state file cannot be used at the end of a hold (its directory removed, the disk
 * full): put back, without it, what each CPU carried before this holder capped it.  1
 * (why in err) when that worked, else the write's error.
 */
static int hold_end_blind(struct patched *p, int why, struct tp_cpuset *left, struct tp_error *err)
{
	struct tp_cpuset *one = malloc(sizeof(*one));
	char value[4096], msg[sizeof(err->msg)];
	struct tp_error werr = { 0 };
	int first = 0;

	if (!one)
		return why;
	snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
	for (int cpu = 0; cpu < TP_MAX_CPUS; cpu++) {
		int rc;

		if (p->held_before[cpu] < 0)
			continue;
		tp_cpuset_zero(one);
		tp_cpuset_add(one, cpu);
		rc = inject_value(one, (uint64_t)p->held_before[cpu], value, sizeof(value), &werr);
		if (rc == 0)
			rc = write_file(p, "inject", value, &werr);
		if (rc < 0) {
			if (left)
				tp_cpuset_add(left, cpu);
			if (!first)
				first = rc;
		}
	}
	free(one);
	if (first)
		return tp_error_set(err, first, "%s; and without it: %s", msg, werr.msg);
	p->holder = false;
	return tp_error_set(err, 1, "%s: put back the caps from before this hold without the "
			    "state file (the other holders' caps, if any, are not kept)", msg);
}

/*
 * What cpu carries when this process's hold ends: the cap of the most recent live hold
 * left, else what it carried before the first hold (before, from this holder's line).
 */
static int64_t hold_target(struct tp_state_doc *doc, int cpu, int64_t before)
{
	struct tp_state_entry *h = tp_state_last_hold(doc, TP_STATE_CAP, cpu);

	return h ? h->applied : before;
}

/* Write the targets of the CPUs of todo, one write per value; the CPUs not done in left. */
static int write_targets(struct patched *p, struct tp_state *st, const struct tp_snapshot *snap,
			 struct tp_cpuset *todo, const int64_t *target, struct tp_cpuset *left,
			 struct tp_error *err)
{
	struct tp_cpuset *group = malloc(sizeof(*group));
	int first = 0;

	if (!group)
		return tp_error_set(err, -ENOMEM, "out of memory");
	while (tp_cpuset_count(todo)) {
		int lead = tp_cpuset_next(todo, 0), rc;

		tp_cpuset_zero(group);
		for (int cpu = lead; cpu >= 0; cpu = tp_cpuset_next(todo, cpu + 1))
			if (target[cpu] == target[lead])
				tp_cpuset_add(group, cpu);
		for (int cpu = tp_cpuset_next(group, 0); cpu >= 0; cpu = tp_cpuset_next(group, cpu + 1))
			todo->bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
		rc = inject_locked(p, st, snap, group, (uint64_t)target[lead], false,
				   first ? NULL : err);
		if (rc < 0) {
			if (!first)
				first = rc;
			for (size_t w = 0; left && w < TP_MAX_CPUS / 64; w++)
				left->bits[w] |= group->bits[w];
		}
	}
	free(group);
	return first;
}

static int patched_hold_end(struct tp_source *src, struct tp_cpuset *left, struct tp_error *err)
{
	struct patched *p = src->priv;
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_cpuset *mine = calloc(1, sizeof(*mine));
	int64_t *target = calloc(TP_MAX_CPUS, sizeof(*target));
	struct tp_state st;
	int rc;

	if (!p->holder) {
		free(mine);
		free(target);
		return 0;
	}
	if (!mine || !target) {
		free(mine);
		free(target);
		return tp_error_set(err, -ENOMEM, "out of memory");
	}
	rc = journal_open(p, &st, true, err);
	if (rc < 0) {
		free(mine);
		free(target);
		return hold_end_blind(p, rc, left, err);
	}
	rc = patched_snapshot(src, &snap, err);
	if (rc < 0)
		tp_state_close(&st);
	if (rc == 0) {
		/* this process's holds leave the ledger, and so do those of the dead */
		for (size_t i = 0; i < st.doc.n;) {
			struct tp_state_entry *e = &st.doc.v[i];

			if (e->kind == TP_STATE_HOLD && e->held == TP_STATE_CAP &&
			    e->pid == p->self_pid && e->start == p->self_start) {
				tp_cpuset_add(mine, e->id);
				target[e->id] = e->before;
				tp_state_drop(&st.doc, e);
				st.dirty = true;
			} else {
				i++;
			}
		}
		if (tp_state_prune_holds(&st.doc))
			st.dirty = true;
		for (int cpu = tp_cpuset_next(mine, 0); cpu >= 0; cpu = tp_cpuset_next(mine, cpu + 1))
			target[cpu] = hold_target(&st.doc, cpu, target[cpu]);
		if (left)
			*left = *mine;
		rc = write_targets(p, &st, &snap, mine, target, NULL, err);
		if (rc == 0 && left)
			tp_cpuset_zero(left);
		if (rc == 0)
			rc = tp_state_save(&st, err);
		tp_state_close(&st);
	}
	if (rc == 0)
		p->holder = false;
	tp_snapshot_release(&snap);
	free(mine);
	free(target);
	return rc;
}

static int patched_pending(struct tp_source *src, struct tp_pending *out, struct tp_error *err)
{
	struct patched *p = src->priv;
	struct tp_state st;
	int rc = journal_open(p, &st, false, err);

	snprintf(out->state_file, sizeof(out->state_file), "%s/%s", p->state_dir, p->state_name);
	if (rc == 0) {
		out->count = 0;
		for (size_t i = 0; i < st.doc.n; i++)
			out->count += st.doc.v[i].kind != TP_STATE_HOLD;	/* holds name no change */
		out->skipped = st.doc.nbad;
	}
	tp_state_close(&st);
	return rc;
}

/* Write back everything recorded: caps, then each backend's decay, then the backend. */
/* A stock kernel's limits have no place here (nothing to write them to): left out. */
static void drop_stock_limits(struct tp_state *st, struct tp_restore_report *rep)
{
	for (size_t i = 0; i < st->doc.n;) {
		if (st->doc.v[i].kind == TP_STATE_SCALING || st->doc.v[i].kind == TP_STATE_COOLING) {
			tp_state_drop(&st->doc, &st->doc.v[i]);
			rep->skipped++;
			st->dirty = true;
		} else {
			i++;
		}
	}
}

/* A record the interface refused (why: the write's message) counted as damaged in rep. */
static void refused_record(struct tp_restore_report *rep, const struct tp_error *why)
{
	size_t n = strlen(rep->skipped_text);

	rep->skipped++;
	snprintf(rep->skipped_text + n, sizeof(rep->skipped_text) - n, "%sa record was refused "
		 "and left out: %s", n ? "; " : "", why->msg);
}

/*
 * Write back one record of the state file: a CPU's cap (the most recent live holder's,
 * else the original) or a backend or decay period (a backend's decay period is set
 * while it is active: *active follows the backend written).  0, 1 when the cap written
 * is a live holder's (its record stays, updated), or -errno with one saying why.
 */
static int restore_entry(struct patched *p, struct tp_state *st, struct tp_state_entry *e,
			 char active[TP_NAME_MAX], struct tp_error *one)
{
	char value[4096];
	int rc = 0;

	if (e->kind == TP_STATE_CAP) {
		struct tp_state_entry *h = tp_state_last_hold(&st->doc, TP_STATE_CAP, e->id);
		int64_t khz = h ? h->applied : e->original;
		struct tp_cpuset one_cpu;

		tp_cpuset_zero(&one_cpu);
		tp_cpuset_add(&one_cpu, e->id);
		rc = inject_value(&one_cpu, (uint64_t)khz, value, sizeof(value), one);
		if (rc == 0)
			rc = write_file(p, "inject", value, one);
		if (rc == 0 && khz != e->original) {
			e->applied = khz;
			st->dirty = true;
			return 1;
		}
		return rc;
	}
	if (strcmp(active, e->name)) {
		snprintf(value, sizeof(value), "%s\n", e->name);
		rc = write_file(p, "backend", value, one);
		if (rc == 0)
			snprintf(active, TP_NAME_MAX, "%s", e->name);
	}
	if (rc == 0 && e->kind == TP_STATE_DECAY) {
		snprintf(value, sizeof(value), "%lld\n", (long long)e->original);
		rc = write_file(p, "decay_ms", value, one);
	}
	return rc;
}

static int patched_restore(struct tp_source *src, struct tp_restore_report *rep, struct tp_error *err)
{
	static const enum tp_state_kind order[] = { TP_STATE_CAP, TP_STATE_DECAY, TP_STATE_BACKEND };
	struct patched *p = src->priv;
	struct tp_state st;
	struct tp_error one;
	char value[4096], active[TP_NAME_MAX] = "", before[TP_NAME_MAX] = "";
	int64_t decay;
	int rc = journal_open(p, &st, false, err), first = 0;
	bool journal = p->journal, had_backend;

	if (rc < 0)
		return rc;
	tp_state_report_bad(&st, rep);
	drop_stock_limits(&st, rep);
	/* the holds of processes that are gone are over; a live holder keeps its cap */
	if (tp_state_prune_holds(&st.doc))
		st.dirty = true;
	if (st.doc.n && active_backend(src, active, &decay, NULL) == 0)
		snprintf(before, sizeof(before), "%s", active);
	had_backend = tp_state_find(&st.doc, TP_STATE_BACKEND, 0, NULL) != NULL;
	p->journal = false;	/* the writes below undo records; they make none */
	for (size_t k = 0; k < 3; k++) {
		for (size_t i = 0; i < st.doc.n;) {
			struct tp_state_entry *e = &st.doc.v[i];

			if (e->kind != order[k]) {
				i++;
				continue;
			}
			rc = restore_entry(p, &st, e, active, &one);
			if (rc == 1) {
				i++;	/* a live holder's cap: the record stays for its end */
				continue;
			}
			if (rc == -EINVAL) {
				/* the interface refuses the recorded value: it never can be written
				 * back, so the record is damaged, reported once and removed */
				refused_record(rep, &one);
				tp_state_drop(&st.doc, e);
				st.dirty = true;
				continue;
			}
			if (rc < 0) {
				tp_restore_failed(&first, rc, err, &one);
				i++;
				continue;
			}
			rep->restored++;
			tp_state_drop(&st.doc, e);
			st.dirty = true;
		}
	}
	/* no backend recorded: the one active before the decay periods were put back */
	if (!had_backend && before[0] && strcmp(before, active)) {
		snprintf(value, sizeof(value), "%s\n", before);
		rc = write_file(p, "backend", value, &one);
		tp_restore_failed(&first, rc, err, &one);
	}
	p->journal = journal;
	rc = tp_state_save(&st, first ? NULL : err);
	tp_state_close(&st);
	return first ? first : rc;
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
	if (tpsim_advance_check(ns, err))
		return -ERANGE;
	snprintf(value, sizeof(value), "%llu\n", (unsigned long long)ns);
	return write_file(p, "sim_clock", value, err);
}

/* A simulator served over FUSE has sim_clock ("virtual" or "real"); a kernel does not. */
static int patched_info(const struct tp_source *src, struct tp_source_info *info,
			struct tp_error *err)
{
	const struct patched *p = src->priv;
	char path[4200], value[16];
	ssize_t n;
	int fd;

	info->abi_version = p->version;
	file_path(p, "sim_clock", path, sizeof(path));
	fd = readin_open(AT_FDCWD, path, 0, READIN_REGULAR);
	if (fd == -ENOENT)
		return 0;
	info->simulated = true;
	if (fd < 0)
		return tp_error_set(err, fd, "cannot open %s: %s", path, readin_strerror(fd));
	n = read(fd, value, sizeof(value) - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return tp_error_set(err, -e, "cannot read %s: %s", path, strerror(e));
	}
	close(fd);
	value[n] = '\0';
	if (!strcmp(value, "virtual\n") || !strcmp(value, "virtual"))
		info->clock = TP_CLOCK_VIRTUAL;
	return 0;
}

static void patched_close(struct tp_source *src)
{
	struct patched *p = src->priv;

	if (p->state_dirfd >= 0)
		close(p->state_dirfd);
	free(p->held_before);
	free(p->buf);
	free(p);
}

static const struct tp_source_ops patched_ops = {
	.snapshot = patched_snapshot,
	.inject = patched_inject,
	.set_backend = patched_set_backend,
	.set_decay = patched_set_decay,
	.backends = patched_backends,
	.info = patched_info,
	.advance = patched_advance,
	.journal = patched_journal,
	.restore = patched_restore,
	.pending = patched_pending,
	.hold_begin = patched_hold_begin,
	.hold_end = patched_hold_end,
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
	snprintf(p->root, sizeof(p->root), "%s", root);
	p->state_dirfd = -1;
	/* the state file of this root: one per root, named by a hash of its real path */
	tp_state_canonical_root(root, p->root_canon, sizeof(p->root_canon));
	tp_state_default_dir(p->state_dir, sizeof(p->state_dir));
	{
		uint64_t h = 1469598103934665603ull;	/* FNV-1a */

		for (const char *c = p->root_canon; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		snprintf(p->state_name, sizeof(p->state_name), "patched-%016llx.state",
			 (unsigned long long)h);
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
		else
			p->version = (int)version;
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
