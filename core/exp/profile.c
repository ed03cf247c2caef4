// SPDX-License-Identifier: MIT
/* Cap profiles (docs/experiments.md): `TIME, CPULIST, VALUE` lines. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/experiment.h>

#include "exp/exp.h"
#include "grow.h"
#include "readin.h"
#include "trim.h"

#define PROFILE_MAX_LINE 4096		/* bytes of a line (docs/experiments.md) */
#define PROFILE_MAX_LINES 10000000ul	/* lines of a profile */

/* "0" (any unit) is allowed here, unlike tp_parse_duration_ns. */
static int parse_time(const char *text, uint64_t *ns, struct tp_error *err)
{
	static const char *const zeros[] = { "0", "0s", "0ms", "0us", "0ns", "0min", "0.0s" };

	for (size_t i = 0; i < sizeof(zeros) / sizeof(zeros[0]); i++)
		if (!strcmp(text, zeros[i])) {
			*ns = 0;
			return 0;
		}
	return tp_parse_duration_ns(text, 0, ns, err);
}

static int parse_step(char *line, const struct tp_snapshot *topo, struct tp_profile_step *st,
		      struct tp_cpuset *set, struct tp_error *err)
{
	char *first = strchr(line, ','), *last = strrchr(line, ',');
	char *time_s, *cpus_s, *value_s;
	int rc;

	if (!first || first == last)
		return tp_error_set(err, -EINVAL,
				    "expected 'TIME, CPULIST, VALUE' (for example '1s, big, 60%%')");
	*first = '\0';
	*last = '\0';
	time_s = trim(line);
	cpus_s = trim(first + 1);
	value_s = trim(last + 1);
	if (!*time_s || !*cpus_s || !*value_s)
		return tp_error_set(err, -EINVAL, "empty field: expected 'TIME, CPULIST, VALUE'");
	rc = parse_time(time_s, &st->time_ns, err);
	if (rc)
		return rc;
	rc = tp_parse_cpulist(cpus_s, topo, set, err);
	if (rc)
		return rc;
	if (!strcmp(value_s, "clear")) {
		st->clear = true;
		return 0;
	}
	rc = tp_parse_cap_value(value_s, &st->value, err);
	if (rc)
		return rc;
	/* every CPU must be able to take the value */
	for (int c = tp_cpuset_next(set, 0); c >= 0; c = tp_cpuset_next(set, c + 1)) {
		int i = tp_snapshot_find_cpu(topo, c);
		uint64_t khz;

		if (i < 0)
			return tp_error_set(err, -EINVAL, "cpu %d does not exist", c);
		rc = tp_cap_resolve_khz(&st->value, &topo->cpus[i], &khz, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int cmp_step(const void *a, const void *b)
{
	const struct tp_profile_step *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * The distinct CPU sets of a profile being read: steps keep an index (idx) into sets,
 * found through an open-addressing hash table of SET_SLOTS slots (index + 1, 0 free).
 */
#define SET_SLOTS (2 * TP_PROFILE_MAX_SETS)
struct set_table {
	uint32_t slot[SET_SLOTS];
	size_t alloc, idx_alloc;
	uint32_t *idx;		/* per step */
};

static uint32_t set_hash(const struct tp_cpuset *set)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < sizeof(set->bits) / sizeof(set->bits[0]); i++)
		h = (h ^ set->bits[i]) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* The index of set in out->sets, added if new: >= 0, or -ENOMEM / -E2BIG (too many). */
static long intern_set(struct tp_profile *out, struct set_table *t, const struct tp_cpuset *set)
{
	uint32_t h = set_hash(set) % SET_SLOTS;

	for (; t->slot[h]; h = (h + 1) % SET_SLOTS)
		if (!memcmp(&out->sets[t->slot[h] - 1], set, sizeof(*set)))
			return t->slot[h] - 1;
	if (out->nr_sets == TP_PROFILE_MAX_SETS)
		return -E2BIG;
	struct tp_cpuset *v = array_grow(out->sets, &t->alloc, out->nr_sets + 1, sizeof(*v), 4);

	if (!v)
		return -ENOMEM;
	out->sets = v;
	out->sets[out->nr_sets] = *set;
	t->slot[h] = (uint32_t)++out->nr_sets;
	return (long)out->nr_sets - 1;
}

/* Add the step of line p (lineno) to out: 0, or -errno with "NAME:LINE: ..." in err. */
static int add_step(struct tp_profile *out, struct set_table *t, size_t *alloc, char *p,
		    unsigned lineno, const struct tp_snapshot *topo, const char *name,
		    struct tp_error *err)
{
	struct tp_profile_step *s = array_grow(out->steps, alloc, out->nr_steps + 1, sizeof(*s), 16);
	uint32_t *ix = s ? array_grow(t->idx, &t->idx_alloc, out->nr_steps + 1, sizeof(*ix), 16)
			 : NULL;
	struct tp_cpuset set;
	struct tp_error e = { 0 };
	long k;
	int rc;

	if (s)
		out->steps = s;
	if (!ix)
		return tp_error_set(err, -ENOMEM, "%s: out of memory", name);
	t->idx = ix;
	s = &out->steps[out->nr_steps];
	memset(s, 0, sizeof(*s));
	s->line = lineno;
	rc = parse_step(p, topo, s, &set, &e);
	if (rc)
		return tp_error_set(err, rc, "%s:%u: %s", name, lineno, e.msg);
	k = intern_set(out, t, &set);
	if (k == -E2BIG)
		return tp_error_set(err, -EINVAL, "%s:%u: more than %d different CPU lists (the limit)",
				    name, lineno, TP_PROFILE_MAX_SETS);
	if (k < 0)
		return tp_error_set(err, -ENOMEM, "%s: out of memory", name);
	t->idx[out->nr_steps++] = (uint32_t)k;
	return 0;
}

int tp_profile_read(FILE *fp, const char *name, const struct tp_snapshot *topo,
		    struct tp_profile *out, struct tp_error *err)
{
	struct readin_line in = { .max = PROFILE_MAX_LINE, .max_lines = PROFILE_MAX_LINES };
	struct set_table *t = calloc(1, sizeof(*t));
	size_t alloc = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!t)
		return tp_error_set(err, -ENOMEM, "%s: out of memory", name);
	for (;;) {
		char *p, *hash, msg[80];

		rc = readin_next(&in, fp);
		if (rc == 0)
			break;
		if (rc < 0) {
			readin_line_error(&in, rc, msg, sizeof(msg));
			rc = tp_error_set(err, readin_bad_input(rc) ? -EINVAL : rc,
					  "%s:%lu: %s", name, in.lineno, msg);
			goto done;
		}
		hash = strchr(in.buf, '#');
		if (hash)
			*hash = '\0';
		p = trim(in.buf);
		rc = *p ? add_step(out, t, &alloc, p, (unsigned)in.lineno, topo, name, err) : 0;
		if (rc)
			goto done;
	}
	if (!out->nr_steps) {
		rc = tp_error_set(err, -EINVAL, "%s: the profile has no steps "
				  "(lines of 'TIME, CPULIST, VALUE')", name);
		goto done;
	}
	for (size_t i = 0; i < out->nr_steps; i++)
		out->steps[i].cpus = &out->sets[t->idx[i]];
	qsort(out->steps, out->nr_steps, sizeof(*out->steps), cmp_step);
	out->end_ns = out->steps[out->nr_steps - 1].time_ns;
done:
	readin_free(&in);
	free(t->idx);
	free(t);
	if (rc)
		tp_profile_free(out);
	return rc;
}

void tp_profile_free(struct tp_profile *profile)
{
	free(profile->steps);
	free(profile->sets);
	memset(profile, 0, sizeof(*profile));
}

static int add_row(struct tp_trace *t, uint64_t time, const struct tp_cpu *c, uint64_t khz)
{
	struct tp_trace_row r = {
		.time_ns = time,
		.cpu = c->cpu,
		.max_capacity = c->max_capacity,
		.max_freq_khz = c->max_freq_khz,
		.capped_freq_khz = (int64_t)khz,
		.pressure = (int64_t)tp_pressure((uint64_t)c->max_capacity, khz,
						 (uint64_t)c->max_freq_khz),
		.avg_pressure = TP_NONE,
		.decay_ms = TP_NONE,
	};

	return exp_trace_push(t, &r);
}

int tp_profile_to_trace(const struct tp_profile *profile, const struct tp_snapshot *topo,
			uint64_t start_ns, uint64_t tail_ns, struct tp_trace *out,
			struct tp_error *err)
{
	struct tp_cpuset named;
	uint64_t *khz = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	/* every row's time_ns must stay in the trace's range (0..INT64_MAX) */
	if (start_ns > (uint64_t)INT64_MAX || tail_ns > (uint64_t)INT64_MAX - start_ns ||
	    profile->end_ns > (uint64_t)INT64_MAX - start_ns - tail_ns)
		return tp_error_set(err, -ERANGE, "the profile's last step (%" PRIu64 " s) is later "
				    "than a trace's times can reach", profile->end_ns / 1000000000u);
	tp_trace_meta_init(&out->meta);
	out->meta.hz = topo->hz;
	out->meta.state_start_ns = out->meta.first_tick_ns = (int64_t)start_ns;
	tp_cpuset_zero(&named);
	for (size_t s = 0; s < profile->nr_steps; s++)
		for (int c = tp_cpuset_next(profile->steps[s].cpus, 0); c >= 0;
		     c = tp_cpuset_next(profile->steps[s].cpus, c + 1))
			tp_cpuset_add(&named, c);
	khz = calloc(topo->nr_cpus ? topo->nr_cpus : 1, sizeof(*khz));
	if (!khz)
		return tp_error_set(err, -ENOMEM, "out of memory for a profile timeline");
	for (size_t i = 0; i < topo->nr_cpus && !rc; i++) {
		const struct tp_cpu *c = &topo->cpus[i];

		if (!tp_cpuset_has(&named, c->cpu))
			continue;
		if (c->max_freq_khz <= 0 || c->max_capacity <= 0)
			rc = tp_error_set(err, -ENODATA, "cpu %d has no known frequency", c->cpu);
		khz[i] = (uint64_t)c->max_freq_khz;
		if (!rc)
			rc = add_row(out, start_ns, c, khz[i]);
	}
	for (size_t s = 0; s < profile->nr_steps && !rc; s++) {
		const struct tp_profile_step *st = &profile->steps[s];

		for (int cpu = tp_cpuset_next(st->cpus, 0); cpu >= 0 && !rc;
		     cpu = tp_cpuset_next(st->cpus, cpu + 1)) {
			int i = tp_snapshot_find_cpu(topo, cpu);

			if (i < 0) {
				rc = tp_error_set(err, -EINVAL, "cpu %d does not exist", cpu);
				break;
			}
			if (st->clear)
				khz[i] = (uint64_t)topo->cpus[i].max_freq_khz;
			else
				rc = tp_cap_resolve_khz(&st->value, &topo->cpus[i], &khz[i], err);
			if (!rc)
				rc = add_row(out, start_ns + st->time_ns, &topo->cpus[i], khz[i]);
		}
	}
	for (size_t i = 0; i < topo->nr_cpus && !rc; i++)
		if (tp_cpuset_has(&named, topo->cpus[i].cpu))
			rc = add_row(out, start_ns + profile->end_ns + tail_ns, &topo->cpus[i],
				     khz[i]);
	free(khz);
	if (rc == -ENOMEM)
		tp_error_set(err, rc, "out of memory for a profile timeline");
	if (rc)
		tp_trace_free(out);
	return rc;
}
