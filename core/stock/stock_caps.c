// SPDX-License-Identifier: MIT
/*
 * Caps on a stock kernel, and the state file that makes them undoable.
 *
 * A cap is written either to the policy's scaling_max_freq (the default) or to its
 * cpufreq cooling device's cur_state.  Before anything is written, the limit in
 * force is recorded in the state file (core/state.h: atomically replaced, under a
 * lock); a failed write drops the record it just added.  A limit written back to its
 * recorded original drops the record (the limit is no longer thermpress's doing).
 * Clearing a cap writes the recorded original back (or, with no record, removes
 * the cap: cpuinfo_max_freq, or cooling state 0); tp_restore() writes back
 * everything the file records, which also undoes what a killed process left.
 *
 * The state file (core/stock/README.md):
 *   $THERMPRESS_STATE_DIR/caps.state        when set, else
 *   ROOT/run/thermpress/caps.state          under a root other than "/" (tests stay inside their tree)
 *   /run/thermpress/caps.state              as root on "/"
 *   $XDG_RUNTIME_DIR/thermpress/caps.state  as a user on "/", else /tmp/thermpress-UID/caps.state
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "stock.h"

#define STATE_NAME "caps.state"

enum entry_kind { ENTRY_SCALING = TP_STATE_SCALING, ENTRY_COOLING = TP_STATE_COOLING };

void stock_state_path(struct stock *s)
{
	const char *env = getenv(STOCK_ENV_STATE_DIR);

	tp_state_canonical_root(s->root, s->root_canon, sizeof(s->root_canon));
	s->state_in_root = false;
	if (env && *env) {
		snprintf(s->state_dir, sizeof(s->state_dir), "%s", env);
	} else if (!s->real_root) {
		snprintf(s->state_dir, sizeof(s->state_dir), "run/thermpress");
		s->state_in_root = true;
	} else {
		tp_state_default_dir(s->state_dir, sizeof(s->state_dir));
	}
	if (s->state_in_root)
		snprintf(s->state_path, sizeof(s->state_path), "%.2000s/%.2000s/%s", s->root,
			 s->state_dir, STATE_NAME);
	else
		snprintf(s->state_path, sizeof(s->state_path), "%.4000s/%s", s->state_dir, STATE_NAME);
}

/*
 * Open (create = make it if missing), lock and read the state file: in the directory a
 * holder keeps open from its start (swapping it for a link changes nothing), else by name.
 */
static int state_open(const struct stock *s, struct tp_state *st, bool create, struct tp_error *err)
{
	char shown[2 * STOCK_PATH_MAX + 64];
	int rc;

	if (s->state_dirfd >= 0) {
		if (s->state_in_root)
			snprintf(shown, sizeof(shown), "%s/%s", s->root, s->state_dir);
		else
			snprintf(shown, sizeof(shown), "%s", s->state_dir);
		rc = tp_state_open_at(st, s->state_dirfd, shown, STATE_NAME, s->root_canon, err);
	} else {
		rc = tp_state_open(st, s->state_in_root ? s->root : NULL, s->state_dir, STATE_NAME,
				   s->root_canon, create, err);
	}

	if (rc < 0 && err && (rc == -EACCES || rc == -EROFS) &&
	    strlen(err->msg) + strlen(stock_write_hint(rc)) < sizeof(err->msg))
		strcat(err->msg, stock_write_hint(rc));
	return rc;
}

static struct tp_state_entry *state_find(struct tp_state *st, enum entry_kind kind, int id)
{
	return tp_state_find(&st->doc, (enum tp_state_kind)kind, id, NULL);
}

static void state_drop(struct tp_state *st, struct tp_state_entry *e)
{
	tp_state_drop(&st->doc, e);
	st->dirty = true;
}

int stock_pending(const struct stock *s, struct tp_pending *out, size_t *scaling,
		  size_t *cooling, struct tp_error *err)
{
	struct tp_state st;
	int rc = state_open(s, &st, false, err);

	snprintf(out->state_file, sizeof(out->state_file), "%s", s->state_path);
	*scaling = *cooling = 0;
	if (rc == 0) {
		out->count = 0;
		for (size_t i = 0; i < st.doc.n; i++)
			out->count += st.doc.v[i].kind != TP_STATE_HOLD;	/* holds name no change */
		out->skipped = st.doc.nbad;
		/* how the caps in force were written, which need not be today's method */
		for (size_t i = 0; i < st.doc.n; i++) {
			if (st.doc.v[i].kind == TP_STATE_SCALING)
				(*scaling)++;
			else if (st.doc.v[i].kind == TP_STATE_COOLING)
				(*cooling)++;
		}
	}
	tp_state_close(&st);
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
	int rc;

	stock_path(s, path, sizeof(path), "sys/class/thermal/cooling_device%d/cur_state", c->id);
	snprintf(value, sizeof(value), "%lld", (long long)state);
	rc = stock_write_text(s, path, value);
	if (!rc)
		return 0;
	if (rc == -EINVAL)
		return tp_error_set(err, -EINVAL, "the kernel refused state %s in %s", value, path);
	if (rc == -EXDEV)
		return tp_error_set(err, -EXDEV,
			"refusing to write %s: a symbolic link leads outside the root %s", path, s->root);
	return tp_error_set(err, rc, "cannot write %s to %s: %s%s", value, path, strerror(-rc),
			    stock_write_hint(rc));
}

static struct stock_cooling *cooling_by_id(struct stock *s, int id)
{
	for (size_t i = 0; i < s->nr_cooling; i++)
		if (s->cooling[i].id == id)
			return &s->cooling[i];
	return NULL;
}

/* Write one limit. */
static int write_limit(struct stock *s, enum entry_kind kind, int id, int64_t value,
		       struct tp_error *err)
{
	struct stock_cooling *c;
	int rc;

	if (kind == ENTRY_SCALING) {
		rc = stock_freq_set_max(s, id, (uint64_t)value, err);
		for (size_t i = 0; rc == 0 && i < s->nr_policies; i++)
			if (s->policies[i].id == id)
				s->policies[i].scaling_writes++;
		return rc;
	}
	c = cooling_by_id(s, id);
	if (c) {
		rc = write_cooling(s, c, value, err);
		if (rc == 0)
			c->writes++;
		return rc;
	}
	/* a device that is gone now: write it by number anyway */
	struct stock_cooling gone = { .id = id, .policy = -1, .max_state = TP_NONE };

	return write_cooling(s, &gone, value, err);
}

/* The value of one limit in force now. */
static int read_limit(struct stock *s, enum entry_kind kind, int id, int64_t *value)
{
	struct stock_cooling *c;

	if (kind == ENTRY_SCALING) {
		for (size_t i = 0; i < s->nr_policies; i++)
			if (s->policies[i].id == id)
				return stock_policy_scaling_max(s, &s->policies[i], value);
		return -ENODEV;
	}
	c = cooling_by_id(s, id);
	return c ? stock_cooling_state(s, c, value) : -ENODEV;
}

/*
 * Set one limit to value with its record kept right: recorded (and on disk) before
 * it changes, dropped once it is back at the recorded original.
 */
static int set_limit(struct stock *s, struct tp_state *st, enum entry_kind kind, int id,
		     int64_t current, int64_t value, struct tp_error *err)
{
	struct tp_state_entry *en = state_find(st, kind, id);
	int rc;

	if (!en) {
		struct tp_state_entry add = { .kind = (enum tp_state_kind)kind, .id = id,
					      .original = current, .applied = value };

		if (value == current)
			return write_limit(s, kind, id, value, err);
		if (tp_state_add(&st->doc, &add) < 0)
			return tp_error_set(err, -ENOMEM, "out of memory");
		st->dirty = true;
		rc = tp_state_save(st, err);	/* recorded on disk before the limit changes */
		if (rc == 0)
			rc = write_limit(s, kind, id, value, err);
		if (rc < 0) {
			state_drop(st, state_find(st, kind, id));
			tp_state_save(st, NULL);
		}
		return rc;
	}
	if (value == en->original && !tp_state_held(&st->doc, (enum tp_state_kind)kind, id)) {
		rc = write_limit(s, kind, id, value, err);
		if (rc == 0)
			state_drop(st, en);
		return rc;
	}
	en->applied = value;
	st->dirty = true;
	rc = tp_state_save(st, err);
	return rc < 0 ? rc : write_limit(s, kind, id, value, err);
}

/* ---- The ledger of holds ---------------------------------------------------------- */

static struct tp_state_entry *own_hold(const struct stock *s, struct tp_state *st,
				       enum entry_kind kind, int id)
{
	for (size_t i = 0; i < st->doc.n; i++) {
		struct tp_state_entry *e = &st->doc.v[i];

		if (e->kind == TP_STATE_HOLD && e->held == (enum tp_state_kind)kind && e->id == id &&
		    e->pid == s->self_pid && e->start == s->self_start)
			return e;
	}
	return NULL;
}

/* This holder's line for the limit: its value now (saved with the limit's record). */
static int hold_record(const struct stock *s, struct tp_state *st, enum entry_kind kind, int id,
		       int64_t current, int64_t value, struct tp_error *err)
{
	struct tp_state_entry *h = own_hold(s, st, kind, id);
	struct tp_state_entry add = { .kind = TP_STATE_HOLD, .held = (enum tp_state_kind)kind,
				      .id = id, .pid = s->self_pid, .start = s->self_start,
				      .applied = value };

	add.before = tp_state_hold_base(&st->doc, (enum tp_state_kind)kind, id, current);

	st->dirty = true;
	if (h) {
		h->applied = value;
		return 0;
	}
	if (!tp_state_entry_valid(&add))
		return tp_error_set(err, -ERANGE, "limit %lld of %s %d cannot be recorded",
				    (long long)value, kind == ENTRY_SCALING ? "policy" : "cooling_device", id);
	return tp_state_add(&st->doc, &add) < 0 ? tp_error_set(err, -ENOMEM, "out of memory") : 0;
}

int stock_hold_begin(struct stock *s, struct tp_error *err)
{
	struct tp_state st;
	int rc = tp_state_self(&s->self_pid, &s->self_start);

	if (rc < 0)
		return tp_error_set(err, rc, "cannot tell this process's start time from /proc/self/stat: %s "
				    "(a hold is recorded by pid and start time)", strerror(-rc));
	rc = state_open(s, &st, true, err);
	/* from now on the directory is this one, whatever its name comes to lead to */
	if (rc == 0 && s->state_dirfd < 0 && st.dirfd >= 0) {
		s->state_dirfd = fcntl(st.dirfd, F_DUPFD_CLOEXEC, 0);
		if (s->state_dirfd < 0)
			rc = tp_error_set(err, -errno, "cannot keep the state directory of %s open: %s",
					  s->state_path, strerror(errno));
	}
	tp_state_close(&st);
	if (rc == 0)
		s->holder = true;
	return rc;
}

/*
 * What a limit this holder held gets at its end: the value of the most recent live hold
 * left, else what it had before the first hold (before, from this holder's line).
 */
static int64_t hold_target(struct tp_state *st, enum entry_kind kind, int id, int64_t before)
{
	struct tp_state_entry *h = tp_state_last_hold(&st->doc, (enum tp_state_kind)kind, id);

	return h ? h->applied : before;
}

/* The CPUs of the policy a limit belongs to, into left. */
static void limit_cpus(const struct stock *s, enum entry_kind kind, int id, struct tp_cpuset *left)
{
	for (size_t i = 0; left && i < s->nr_policies; i++) {
		const struct stock_policy *p = &s->policies[i];

		if (kind == ENTRY_SCALING ? p->id != id
					  : p->cooling < 0 || s->cooling[p->cooling].id != id)
			continue;
		for (size_t c = 0; c < p->nr_cpus; c++)
			tp_cpuset_add(left, p->cpus[c]);
	}
}

int stock_hold_end(struct stock *s, struct tp_cpuset *left, struct tp_error *err)
{
	struct tp_state_entry *mine = NULL;
	struct tp_state st;
	size_t n = 0;
	int rc, first = 0;

	if (!s->holder)
		return 0;
	rc = state_open(s, &st, true, err);
	if (rc < 0)
		return rc;
	/* this process's holds leave the ledger, and so do those of the dead */
	mine = calloc(st.doc.n + 1, sizeof(*mine));
	if (!mine) {
		tp_state_close(&st);
		return tp_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < st.doc.n;) {
		struct tp_state_entry *e = &st.doc.v[i];

		if (e->kind == TP_STATE_HOLD && e->pid == s->self_pid && e->start == s->self_start) {
			mine[n++] = *e;
			state_drop(&st, e);
		} else {
			i++;
		}
	}
	if (tp_state_prune_holds(&st.doc))
		st.dirty = true;
	/* the cooling states first: scaling_max_freq then reads without their caps */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			enum entry_kind kind = (enum entry_kind)mine[i].held;
			int64_t target, current;
			struct tp_error one;

			if ((kind == ENTRY_COOLING) != (pass == 0))
				continue;
			target = hold_target(&st, kind, mine[i].id, mine[i].before);
			if (read_limit(s, kind, mine[i].id, &current) < 0)
				current = TP_NONE;
			rc = set_limit(s, &st, kind, mine[i].id, current, target, &one);
			if (rc < 0) {
				limit_cpus(s, kind, mine[i].id, left);
				tp_restore_failed(&first, rc, err, &one);
			}
		}
	}
	free(mine);
	rc = tp_state_save(&st, first ? NULL : err);
	tp_state_close(&st);
	if (!first && rc == 0)
		s->holder = false;
	return first ? first : rc;
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

static int cap_policy(struct stock *s, struct tp_state *st, struct stock_policy *p, uint64_t khz,
		      struct tp_error *err)
{
	enum entry_kind kind = s->method == TP_STOCK_CAP_SCALING_MAX_FREQ ? ENTRY_SCALING : ENTRY_COOLING;
	struct stock_cooling *c = p->cooling >= 0 ? &s->cooling[p->cooling] : NULL;
	int64_t current, value;
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
	if (s->holder) {
		rc = hold_record(s, st, kind, id, current, value, err);
		if (rc < 0)
			return rc;
	}
	return set_limit(s, st, kind, id, current, value, err);
}

/* Clear a policy: the recorded originals back, or no cap when nothing is recorded. */
static int clear_policy(struct stock *s, struct tp_state *st, struct stock_policy *p,
			struct tp_error *err)
{
	struct tp_state_entry *en;
	bool restored = false;
	int rc;

	en = state_find(st, ENTRY_SCALING, p->id);
	if (en) {
		rc = write_limit(s, ENTRY_SCALING, en->id, en->original, err);
		if (rc < 0)
			return rc;
		state_drop(st, en);
		restored = true;
	}
	if (p->cooling >= 0 && (en = state_find(st, ENTRY_COOLING, s->cooling[p->cooling].id))) {
		rc = write_limit(s, ENTRY_COOLING, en->id, en->original, err);
		if (rc < 0)
			return rc;
		state_drop(st, en);
		restored = true;
	}
	if (restored)
		return tp_state_save(st, err);
	/* nothing recorded: no cap, recorded like any other change (cap restore undoes it) */
	if (s->method == TP_STOCK_CAP_COOLING_DEVICE && p->cooling >= 0) {
		struct stock_cooling *c = &s->cooling[p->cooling];
		int64_t current;

		rc = stock_cooling_state(s, c, &current);
		if (rc < 0)
			return tp_error_set(err, rc, "cannot read cur_state of cooling_device%d: %s",
					    c->id, strerror(-rc));
		return set_limit(s, st, ENTRY_COOLING, c->id, current, 0, err);
	}
	int64_t current;

	rc = stock_policy_scaling_max(s, p, &current);
	if (rc < 0)
		return tp_error_set(err, rc, "cannot read scaling_max_freq of cpu %d: %s", p->id,
				    strerror(-rc));
	return set_limit(s, st, ENTRY_SCALING, p->id, current, p->hw_max_khz, err);
}

int stock_inject(struct stock *s, const struct tp_cpuset *cpus, uint64_t khz, struct tp_error *err)
{
	bool *touched = calloc(s->nr_policies ? s->nr_policies : 1, sizeof(*touched));
	struct tp_state st;
	int rc;

	if (!touched)
		return tp_error_set(err, -ENOMEM, "out of memory");
	rc = touched_policies(s, cpus, touched, err);
	if (rc < 0) {
		free(touched);
		return rc;
	}
	rc = state_open(s, &st, khz != 0 || s->holder, err);
	if (rc < 0) {
		free(touched);
		return rc;
	}
	for (size_t i = 0; i < s->nr_policies && rc == 0; i++) {
		if (!touched[i])
			continue;
		struct stock_policy *p = &s->policies[i];

		/* a holder's clear is a hold at the top frequency: in the ledger like any other */
		if (!khz && s->holder && p->hw_max_khz > 0)
			rc = cap_policy(s, &st, p, (uint64_t)p->hw_max_khz, err);
		else if (khz)
			rc = cap_policy(s, &st, p, khz, err);
		else
			rc = clear_policy(s, &st, p, err);
	}
	if (rc == 0)
		rc = tp_state_save(&st, err);
	else
		tp_state_save(&st, NULL);
	tp_state_close(&st);
	free(touched);
	return rc;
}

/* ---- Putting limits back ------------------------------------------------------- */

struct saved_policy {
	int policy;			/* index into s->policies */
	int64_t scaling;		/* scaling_max_freq, TP_NONE: unreadable */
	int64_t cooling;		/* cur_state, TP_NONE: no device */
	unsigned scaling_writes, cooling_writes;	/* the write counts when saved */
};

struct saved_limits {
	size_t n;
	struct saved_policy v[];
};

int stock_limits_save(struct stock *s, const struct tp_cpuset *cpus, void **saved,
		      struct tp_error *err)
{
	bool *touched = calloc(s->nr_policies ? s->nr_policies : 1, sizeof(*touched));
	struct saved_limits *l = calloc(1, sizeof(*l) + s->nr_policies * sizeof(l->v[0]));
	int rc = touched && l ? 0 : tp_error_set(err, -ENOMEM, "out of memory");

	if (rc == 0)
		rc = touched_policies(s, cpus, touched, err);
	for (size_t i = 0; rc == 0 && i < s->nr_policies; i++) {
		struct stock_policy *p = &s->policies[i];
		struct saved_policy *sp;

		if (!touched[i])
			continue;
		sp = &l->v[l->n++];
		sp->policy = (int)i;
		if (stock_policy_scaling_max(s, p, &sp->scaling) < 0)
			sp->scaling = TP_NONE;
		if (p->cooling < 0 || stock_cooling_state(s, &s->cooling[p->cooling], &sp->cooling) < 0)
			sp->cooling = TP_NONE;
		sp->scaling_writes = p->scaling_writes;
		sp->cooling_writes = p->cooling >= 0 ? s->cooling[p->cooling].writes : 0;
	}
	free(touched);
	if (rc < 0) {
		free(l);
		return rc;
	}
	*saved = l;
	return 0;
}

static bool policy_in(const struct stock *s, const struct stock_policy *p, const struct tp_cpuset *only)
{
	if (!only)
		return true;
	for (size_t i = 0; i < p->nr_cpus; i++)
		if (tp_cpuset_has(only, p->cpus[i]))
			return true;
	return false;
}

/*
 * Write one saved limit back unless it is in force already.  Only a limit this process
 * wrote since it was saved is put back: any other is left alone, because what a real
 * kernel shows in scaling_max_freq is the policy's effective limit (a cooling device
 * lowers it too), not the value once written there, and writing that back would turn
 * a passing thermal cap into a lasting one.
 */
static int put_back(struct stock *s, struct tp_state *st, enum entry_kind kind, int id,
		    int64_t value, bool written, struct tp_error *err)
{
	int64_t current;

	if (value == TP_NONE || !written)
		return 0;
	if (read_limit(s, kind, id, &current) < 0)
		current = TP_NONE;
	if (current == value && !state_find(st, kind, id))
		return 0;
	return set_limit(s, st, kind, id, current, value, err);
}

int stock_limits_put_back(struct stock *s, const void *saved, const struct tp_cpuset *only,
			  struct tp_error *err)
{
	const struct saved_limits *l = saved;
	struct tp_state st;
	int rc = state_open(s, &st, true, err), first = 0;

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < l->n; i++) {
		struct stock_policy *p = &s->policies[l->v[i].policy];

		if (!policy_in(s, p, only))
			continue;
		/* the cooling state first: scaling_max_freq then reads without its cap */
		if (p->cooling >= 0) {
			struct stock_cooling *c = &s->cooling[p->cooling];

			rc = put_back(s, &st, ENTRY_COOLING, c->id, l->v[i].cooling,
				      c->writes != l->v[i].cooling_writes, first ? NULL : err);
			if (rc < 0 && !first)
				first = rc;
		}
		rc = put_back(s, &st, ENTRY_SCALING, p->id, l->v[i].scaling,
			      p->scaling_writes != l->v[i].scaling_writes, first ? NULL : err);
		if (rc < 0 && !first)
			first = rc;
	}
	rc = tp_state_save(&st, first ? NULL : err);
	tp_state_close(&st);
	return first ? first : rc;
}

/* ---- Restore ------------------------------------------------------------------- */

/* A record the kernel refuses (why: the message), counted as damaged in rep. */
static void refused_record(struct tp_restore_report *rep, const struct tp_error *why)
{
	size_t n = strlen(rep->skipped_text);

	rep->skipped++;
	snprintf(rep->skipped_text + n, sizeof(rep->skipped_text) - n, "%sa record was refused "
		 "and left out: %s", n ? "; " : "", why->msg);
}

/*
 * A recorded original the kernel would refuse, said in why: a cooling state above the
 * device's max_state (the kernel's cur_state takes 0..max_state; a root that is a copy
 * of sysfs would take anything).  scaling_max_freq is not checked: the kernel clamps it.
 */
static bool original_out_of_range(struct stock *s, const struct tp_state_entry *e,
				  struct tp_error *why)
{
	const struct stock_cooling *c;

	if (e->kind != TP_STATE_COOLING)
		return false;
	c = cooling_by_id(s, e->id);
	if (!c || c->max_state == TP_NONE || e->original <= c->max_state)
		return false;
	tp_error_set(why, -EINVAL, "cooling_device%d's state %lld is above its max_state %lld",
		     e->id, (long long)e->original, (long long)c->max_state);
	return true;
}

int stock_restore_all(struct stock *s, struct tp_restore_report *rep, struct tp_error *err)
{
	struct tp_state st;
	size_t done = 0;
	int rc = state_open(s, &st, false, err), first = 0;
	struct tp_error one;

	if (rc < 0)
		return rc;
	tp_state_report_bad(&st, rep);
	/* the holds of processes that are gone are over; a live holder keeps its limit */
	if (tp_state_prune_holds(&st.doc))
		st.dirty = true;
	for (size_t i = 0; i < st.doc.n;) {
		struct tp_state_entry *e = &st.doc.v[i], *h;
		int64_t value;

		if (e->kind == TP_STATE_HOLD) {
			i++;
			continue;
		}
		if (e->kind != TP_STATE_SCALING && e->kind != TP_STATE_COOLING) {
			rep->skipped++;		/* not a stock kernel's limit: nothing to write */
			state_drop(&st, e);
			continue;
		}
		h = tp_state_last_hold(&st.doc, e->kind, e->id);
		value = h ? h->applied : e->original;
		rc = !h && original_out_of_range(s, e, &one) ? -EINVAL
			: write_limit(s, (enum entry_kind)e->kind, e->id, value, &one);
		if (rc == -EINVAL && !h) {
			/* the kernel refuses the recorded value: it never can be written back, so
			 * the record is damaged, reported once and removed; the rest goes on */
			refused_record(rep, &one);
			state_drop(&st, e);
			continue;
		}
		if (rc < 0) {
			tp_restore_failed(&first, rc, err, &one);
			i++;
			continue;
		}
		if (value != e->original) {
			/* a live holder's limit: its original stays for the holder's end */
			e->applied = value;
			st.dirty = true;
			i++;
			continue;
		}
		state_drop(&st, e);
		done++;
	}
	rc = tp_state_save(&st, first ? NULL : err);
	tp_state_close(&st);
	rep->restored = done;
	return first ? first : rc;
}
