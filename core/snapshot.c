// SPDX-License-Identifier: MIT
/* Snapshot buffers: reused between takes so that a live view allocates nothing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

int tp_snapshot_reserve(struct tp_snapshot *snap, size_t ncpus, size_t ndomains)
{
	if (ncpus > snap->cpus_alloc) {
		struct tp_cpu *cpus = realloc(snap->cpus, ncpus * sizeof(*cpus));

		if (!cpus)
			return -ENOMEM;
		snap->cpus = cpus;
		snap->cpus_alloc = ncpus;
	}
	if (ndomains > snap->domains_alloc) {
		struct tp_domain *domains = realloc(snap->domains, ndomains * sizeof(*domains));

		if (!domains)
			return -ENOMEM;
		snap->domains = domains;
		snap->domains_alloc = ndomains;
	}
	return 0;
}

void tp_snapshot_release(struct tp_snapshot *snap)
{
	free(snap->cpus);
	free(snap->domains);
	memset(snap, 0, sizeof(*snap));
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

void tp_snapshot_derive(struct tp_snapshot *snap)
{
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		struct tp_cpu *c = &snap->cpus[i];

		if (c->capped_capacity == TP_NONE && c->max_capacity != TP_NONE &&
		    c->pressure != TP_NONE)
			c->capped_capacity = c->max_capacity - c->pressure;
	}
}
