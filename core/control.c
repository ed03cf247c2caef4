// SPDX-License-Identifier: MIT
/*
 * Changes: caps, backend, decay.  Everything is validated against a fresh
 * snapshot before the source is touched, so a bad request changes nothing; a
 * refusal part-way through a multi-step cap is rolled back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

static int take_topology(struct tp_source *src, struct tp_snapshot *snap, struct tp_error *err)
{
	tp_snapshot_init(snap);
	return tp_snapshot_take(src, snap, err);
}

/* Every CPU of cpus must exist in snap. */
static int check_cpus(const struct tp_snapshot *snap, const struct tp_cpuset *cpus,
		      struct tp_error *err)
{
	if (tp_cpuset_count(cpus) == 0)
		return tp_error_set(err, -EINVAL, "no cpus given");
	for (int cpu = tp_cpuset_next(cpus, 0); cpu >= 0; cpu = tp_cpuset_next(cpus, cpu + 1))
		if (tp_snapshot_find_cpu(snap, cpu) < 0)
			return tp_error_set(err, -EINVAL, "cpu %d does not exist", cpu);
	return 0;
}

/* Put the caps of the CPUs in done back to what snap recorded. */
static void roll_back(struct tp_source *src, const struct tp_snapshot *snap,
		      const struct tp_cpuset *done)
{
	struct tp_cpuset *one = malloc(sizeof(*one));

	if (!one)
		return;
	for (int cpu = tp_cpuset_next(done, 0); cpu >= 0; cpu = tp_cpuset_next(done, cpu + 1)) {
		const struct tp_cpu *c = &snap->cpus[tp_snapshot_find_cpu(snap, cpu)];
		uint64_t khz = c->capped_freq_khz >= 0 && c->capped_freq_khz < c->max_freq_khz ?
			(uint64_t)c->capped_freq_khz : 0;

		tp_cpuset_zero(one);
		tp_cpuset_add(one, cpu);
		src->ops->inject(src, one, khz, NULL);
	}
	free(one);
}

int tp_cap_set(struct tp_source *src, const struct tp_cpuset *cpus,
	       const struct tp_cap_value *value, struct tp_error *err)
{
	struct tp_snapshot snap;
	int rc = take_topology(src, &snap, err);

	if (rc == 0)
		rc = tp_cap_set_in(src, &snap, cpus, value, err);
	tp_snapshot_release(&snap);
	return rc;
}

int tp_cap_set_in(struct tp_source *src, const struct tp_snapshot *snap,
		  const struct tp_cpuset *cpus, const struct tp_cap_value *value,
		  struct tp_error *err)
{
	struct tp_cpuset *sets = calloc(3, sizeof(*sets));	/* pending, group, done */
	uint64_t *khz = NULL;
	int rc;

	if (!sets)
		return tp_error_set(err, -ENOMEM, "out of memory");
	rc = check_cpus(snap, cpus, err);
	if (rc < 0)
		goto out;
	khz = calloc(snap->nr_cpus ? snap->nr_cpus : 1, sizeof(*khz));
	if (!khz) {
		rc = tp_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* Resolve every CPU first: one bad CPU means nothing is written. */
	for (int cpu = tp_cpuset_next(cpus, 0); cpu >= 0; cpu = tp_cpuset_next(cpus, cpu + 1)) {
		int i = tp_snapshot_find_cpu(snap, cpu);

		rc = tp_cap_resolve_khz(value, &snap->cpus[i], &khz[i], err);
		if (rc < 0)
			goto out;
		if ((int64_t)khz[i] == snap->cpus[i].max_freq_khz)
			khz[i] = 0;	/* a cap at the maximum is no cap */
	}
	/* One write per distinct frequency: CPUs of one cluster share one. */
	sets[0] = *cpus;
	while (tp_cpuset_count(&sets[0])) {
		int first = tp_cpuset_next(&sets[0], 0);
		uint64_t want = khz[tp_snapshot_find_cpu(snap, first)];

		tp_cpuset_zero(&sets[1]);
		for (int cpu = first; cpu >= 0; cpu = tp_cpuset_next(&sets[0], cpu + 1)) {
			if (khz[tp_snapshot_find_cpu(snap, cpu)] == want) {
				tp_cpuset_add(&sets[1], cpu);
				sets[0].bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
			}
		}
		rc = src->ops->inject(src, &sets[1], want, err);
		if (rc < 0) {
			roll_back(src, snap, &sets[2]);
			goto out;
		}
		for (size_t w = 0; w < TP_MAX_CPUS / 64; w++)
			sets[2].bits[w] |= sets[1].bits[w];
	}
	rc = 0;
out:
	free(khz);
	free(sets);
	return rc;
}

int tp_cap_clear(struct tp_source *src, const struct tp_cpuset *cpus, struct tp_error *err)
{
	struct tp_snapshot snap;
	int rc = take_topology(src, &snap, err);

	if (rc == 0)
		rc = tp_cap_clear_in(src, &snap, cpus, err);
	tp_snapshot_release(&snap);
	return rc;
}

int tp_cap_clear_in(struct tp_source *src, const struct tp_snapshot *snap,
		    const struct tp_cpuset *cpus, struct tp_error *err)
{
	int rc = check_cpus(snap, cpus, err);

	return rc < 0 ? rc : src->ops->inject(src, cpus, 0, err);
}

struct backend_state {
	char names[TP_MAX_BACKENDS][TP_NAME_MAX];
	size_t count;
	int active;
	int64_t decay_ms;
};

static int read_backends(struct tp_source *src, struct backend_state *st, struct tp_error *err)
{
	return src->ops->backends(src, st->names, TP_MAX_BACKENDS, &st->count, &st->active,
				  &st->decay_ms, err);
}

static void list_names(const struct backend_state *st, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < st->count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", st->names[i]);
}

/* Check decay_ms against the backend's plugin, for a message with the range. */
static int check_decay(struct tp_source *src, const char *backend, uint32_t decay_ms,
		       struct tp_error *err)
{
	const struct tp_backend_ops *ops = tp_plugins_find(src->plugins, backend);
	uint32_t in_force;

	if (!ops)
		return 0;	/* the source will judge */
	if (ops->decay_max_ms == 0)
		return tp_error_set(err, -EINVAL, "backend %s has no decay period", backend);
	if (ops->normalize_decay(decay_ms, &in_force) < 0)
		return tp_error_set(err, -EINVAL,
			"decay period %u ms is out of range for %s (%u..%u ms)", decay_ms, backend,
			ops->decay_min_ms, ops->decay_max_ms);
	return 0;
}

int tp_backend_set(struct tp_source *src, const char *name, uint32_t decay_ms,
		   struct tp_error *err)
{
	struct backend_state st;
	char avail[256];
	int rc;
	size_t i;

	if (src->ops->fixed_backend)
		return src->ops->fixed_backend(src, name, decay_ms, err);
	rc = read_backends(src, &st, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < st.count; i++)
		if (strcmp(st.names[i], name) == 0)
			break;
	if (i == st.count) {
		list_names(&st, avail, sizeof(avail));
		return tp_error_set(err, -EINVAL, "unknown backend '%s' (available: %s)", name, avail);
	}
	if (decay_ms) {
		rc = check_decay(src, name, decay_ms, err);
		if (rc < 0)
			return rc;
	}
	if ((int)i != st.active) {
		rc = src->ops->set_backend(src, name, err);
		if (rc < 0)
			return rc;
	}
	if (decay_ms) {
		rc = src->ops->set_decay(src, decay_ms, err);
		if (rc < 0 && (int)i != st.active && st.active >= 0)
			src->ops->set_backend(src, st.names[st.active], NULL);
	}
	return rc;
}

int tp_decay_set(struct tp_source *src, uint32_t decay_ms, struct tp_error *err)
{
	struct backend_state st;
	int rc;

	if (src->ops->fixed_backend)
		return src->ops->fixed_backend(src, NULL, decay_ms, err);
	rc = read_backends(src, &st, err);
	if (rc < 0)
		return rc;
	if (st.active < 0)
		return tp_error_set(err, -EIO, "no active backend");
	rc = check_decay(src, st.names[st.active], decay_ms, err);
	if (rc < 0)
		return rc;
	return src->ops->set_decay(src, decay_ms, err);
}

int tp_backend_list(struct tp_source *src, struct tp_backend_info *out, size_t max,
		    size_t *count, struct tp_error *err)
{
	struct backend_state st;
	int rc = read_backends(src, &st, err);

	if (rc < 0)
		return rc;
	*count = 0;
	for (size_t i = 0; i < st.count && i < max; i++) {
		const struct tp_backend_ops *ops = tp_plugins_find(src->plugins, st.names[i]);
		struct tp_backend_info *b = &out[i];

		memset(b, 0, sizeof(*b));
		snprintf(b->name, sizeof(b->name), "%s", st.names[i]);
		b->active = (int)i == st.active;
		b->decay_ms = b->active ? st.decay_ms : TP_NONE;
		if (ops) {
			b->has_plugin = true;
			snprintf(b->summary, sizeof(b->summary), "%s", ops->summary);
			b->decay_min_ms = ops->decay_min_ms;
			b->decay_max_ms = ops->decay_max_ms;
			b->decay_default_ms = ops->decay_default_ms;
		}
		(*count)++;
	}
	return 0;
}

/* ---- Putting caps back ------------------------------------------------------------- */

struct tp_limits {
	struct tp_cpuset cpus;
	size_t n;
	int *cpu;
	uint64_t *khz;		/* 0: no cap */
	void *saved;		/* the source's own, when it keeps them itself */
};

void tp_limits_free(struct tp_limits *l)
{
	if (!l)
		return;
	free(l->cpu);
	free(l->khz);
	free(l->saved);
	free(l);
}

int tp_limits_save(struct tp_source *src, const struct tp_cpuset *cpus, struct tp_limits **out,
		   struct tp_error *err)
{
	struct tp_limits *l = calloc(1, sizeof(*l));
	struct tp_snapshot snap;
	int rc;

	if (!l)
		return tp_error_set(err, -ENOMEM, "out of memory");
	l->cpus = *cpus;
	if (src->ops->limits_save) {
		rc = src->ops->limits_save(src, cpus, &l->saved, err);
		if (rc < 0) {
			tp_limits_free(l);
			return rc;
		}
		*out = l;
		return 0;
	}
	rc = take_topology(src, &snap, err);
	if (rc == 0)
		rc = check_cpus(&snap, cpus, err);
	if (rc == 0) {
		int n = tp_cpuset_count(cpus);

		l->cpu = calloc((size_t)n, sizeof(*l->cpu));
		l->khz = calloc((size_t)n, sizeof(*l->khz));
		if (!l->cpu || !l->khz)
			rc = tp_error_set(err, -ENOMEM, "out of memory");
	}
	for (int cpu = tp_cpuset_next(cpus, 0); rc == 0 && cpu >= 0; cpu = tp_cpuset_next(cpus, cpu + 1)) {
		const struct tp_cpu *c = &snap.cpus[tp_snapshot_find_cpu(&snap, cpu)];

		l->cpu[l->n] = cpu;
		l->khz[l->n++] = c->capped_freq_khz > 0 && c->capped_freq_khz < c->max_freq_khz ?
			(uint64_t)c->capped_freq_khz : 0;
	}
	tp_snapshot_release(&snap);
	if (rc < 0) {
		tp_limits_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

int tp_limits_put_back(struct tp_source *src, const struct tp_limits *l,
		       const struct tp_cpuset *only, struct tp_error *err)
{
	struct tp_cpuset *group;
	bool *done;
	int first = 0;

	if (src->ops->limits_put_back)
		return src->ops->limits_put_back(src, l->saved, only, err);
	group = malloc(sizeof(*group));
	done = calloc(l->n ? l->n : 1, sizeof(*done));
	if (!group || !done) {
		free(group);
		free(done);
		return tp_error_set(err, -ENOMEM, "out of memory");
	}
	/* one write per distinct value, as tp_cap_set() does */
	for (size_t i = 0; i < l->n; i++) {
		int rc;

		if (done[i] || (only && !tp_cpuset_has(only, l->cpu[i])))
			continue;
		tp_cpuset_zero(group);
		for (size_t j = i; j < l->n; j++) {
			if (!done[j] && l->khz[j] == l->khz[i] &&
			    (!only || tp_cpuset_has(only, l->cpu[j]))) {
				tp_cpuset_add(group, l->cpu[j]);
				done[j] = true;
			}
		}
		if (l->khz[i]) {
			struct tp_cap_value v = { TP_CAP_KHZ, l->khz[i] };

			rc = tp_cap_set(src, group, &v, first ? NULL : err);
		} else {
			rc = tp_cap_clear(src, group, first ? NULL : err);
		}
		if (rc < 0 && !first)
			first = rc;
	}
	free(group);
	free(done);
	return first;
}

/* ---- The state file ---------------------------------------------------------------- */

int tp_source_journal(struct tp_source *src, struct tp_error *err)
{
	return src->ops->journal ? src->ops->journal(src, err) : 0;
}

int tp_hold_begin(struct tp_source *src, struct tp_error *err)
{
	if (!src->ops->hold_begin)
		return tp_error_set(err, -ENOTSUP, "%s keeps no ledger of holds", src->description);
	return src->ops->hold_begin(src, err);
}

int tp_hold_end(struct tp_source *src, struct tp_cpuset *left, struct tp_error *err)
{
	if (left)
		tp_cpuset_zero(left);
	if (!src->ops->hold_end)
		return tp_error_set(err, -ENOTSUP, "%s keeps no ledger of holds", src->description);
	return src->ops->hold_end(src, left, err);
}

int tp_restore(struct tp_source *src, struct tp_restore_report *rep, struct tp_error *err)
{
	memset(rep, 0, sizeof(*rep));
	if (!src->ops->restore)
		return tp_error_set(err, -ENOTSUP,
			"%s keeps no state file: nothing it changed outlives the process", src->description);
	return src->ops->restore(src, rep, err);
}

int tp_pending(struct tp_source *src, struct tp_pending *out, struct tp_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!src->ops->pending)
		return 0;
	return src->ops->pending(src, out, err);
}
