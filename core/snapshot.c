// SPDX-License-Identifier: MIT
/* Snapshot buffers: reused between takes so that a live view allocates nothing. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

/*
 * The buffers behind snap->cpus and snap->domains carry their size in front of
 * them, so that the public struct holds no bookkeeping of the library's.
 */
struct cpu_block {
	size_t alloc;
	struct tp_cpu cpus[];
};

struct domain_block {
	size_t alloc;
	struct tp_domain domains[];
};

static struct cpu_block *cpu_block_of(struct tp_cpu *cpus)
{
	return cpus ? (struct cpu_block *)((char *)cpus - offsetof(struct cpu_block, cpus)) : NULL;
}

static struct domain_block *domain_block_of(struct tp_domain *domains)
{
	return domains ?
		(struct domain_block *)((char *)domains - offsetof(struct domain_block, domains)) :
		NULL;
}

void tp_snapshot_init(struct tp_snapshot *snap)
{
	*snap = (struct tp_snapshot)TP_SNAPSHOT_INIT;
}

int tp_snapshot_reserve(struct tp_snapshot *snap, size_t ncpus, size_t ndomains)
{
	struct cpu_block *cb = cpu_block_of(snap->cpus);
	struct domain_block *db = domain_block_of(snap->domains);

	if (ncpus > (SIZE_MAX - sizeof(*cb)) / sizeof(cb->cpus[0]) ||
	    ndomains > (SIZE_MAX - sizeof(*db)) / sizeof(db->domains[0]))
		return -ENOMEM;
	if (ncpus > (cb ? cb->alloc : 0)) {
		cb = realloc(cb, sizeof(*cb) + ncpus * sizeof(cb->cpus[0]));
		if (!cb)
			return -ENOMEM;
		cb->alloc = ncpus;
		snap->cpus = cb->cpus;
	}
	if (ndomains > (db ? db->alloc : 0)) {
		db = realloc(db, sizeof(*db) + ndomains * sizeof(db->domains[0]));
		if (!db)
			return -ENOMEM;
		db->alloc = ndomains;
		snap->domains = db->domains;
	}
	return 0;
}

void tp_snapshot_release(struct tp_snapshot *snap)
{
	free(cpu_block_of(snap->cpus));
	free(domain_block_of(snap->domains));
	tp_snapshot_init(snap);
}

/* Here, not in source.c: the sources free what they read with it too. */
void tp_thermal_release(struct tp_thermal *th)
{
	free(th->zones);
	free(th->cooling);
	memset(th, 0, sizeof(*th));
}

int tp_snapshot_find_cpu(const struct tp_snapshot *snap, int cpu)
{
	/* CPUs are in order and usually dense: try the direct index first. */
	if (cpu >= 0 && (size_t)cpu < snap->nr_cpus && snap->cpus[cpu].cpu == cpu)
		return cpu;
	size_t lo = 0, hi = snap->nr_cpus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (snap->cpus[mid].cpu == cpu)
			return (int)mid;
		if (snap->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

const struct tp_domain *tp_snapshot_domain(const struct tp_snapshot *snap, const struct tp_cpu *c)
{
	if (!c || c->domain < 0 || (size_t)c->domain >= snap->nr_domains)
		return NULL;
	return &snap->domains[c->domain];
}

int tp_cpu_capped(const struct tp_cpu *c)
{
	if (c->max_freq_khz > 0 && c->capped_freq_khz >= 0)
		return c->capped_freq_khz < c->max_freq_khz;
	if (c->max_capacity > 0 && c->capped_capacity >= 0)
		return c->capped_capacity < c->max_capacity;
	return TP_NONE;
}

void tp_snapshot_derive(struct tp_snapshot *snap)
{
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		struct tp_cpu *c = &snap->cpus[i];

		if (c->capped_capacity == TP_NONE && c->max_capacity != TP_NONE &&
		    c->pressure != TP_NONE)
			c->capped_capacity = c->max_capacity - c->pressure;
	}
}
