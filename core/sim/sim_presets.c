/* SPDX-License-Identifier: MIT */
/* The simulator's presets: the topology of a few real and synthetic machines. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim.h"

static void add_domain(struct tpsim_preset *p, const char *name, int nr_cpus,
		       uint32_t max_capacity, const uint64_t *opps, size_t nr_opps)
{
	struct tpsim_domain_desc *d = &p->domains[p->nr_domains++];

	snprintf(d->name, sizeof(d->name), "%s", name);
	d->first_cpu = p->nr_cpus;
	d->nr_cpus = nr_cpus;
	d->max_capacity = max_capacity;
	d->nr_opps = nr_opps;
	memcpy(d->opps_khz, opps, nr_opps * sizeof(*opps));
	d->max_khz = opps[nr_opps - 1];
	p->nr_cpus += nr_cpus;
}

/* Hikey960 (Kirin 960): 4 x A53 and 4 x A73, OPPs from its device tree. */
static const uint64_t hikey960_little[] = { 533000, 999000, 1402000, 1709000, 1844000 };
static const uint64_t hikey960_big[] = { 903000, 1421000, 1805000, 2112000, 2362000 };
/* DragonBoard 410c (Snapdragon 410): 4 x A53. */
static const uint64_t db410c_opps[] = { 200000, 400000, 533333, 800000, 998400, 1094400,
					1152000, 1209600 };
/* smp:N, a synthetic machine of equal CPUs. */
static const uint64_t smp_opps[] = { 800000, 1200000, 1600000, 2000000 };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int parse_smp(const char *arg, int *n)
{
	long v = 0;

	if (!*arg || *arg == '0')
		return -EINVAL;
	for (const char *c = arg; *c; c++) {
		if (*c < '0' || *c > '9')
			return -EINVAL;
		v = v * 10 + (*c - '0');
		if (v > TPSIM_MAX_CPUS)
			return -EINVAL;
	}
	*n = (int)v;
	return 0;
}

int tpsim_preset_get(const char *name, struct tpsim_preset *out, struct tp_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!name)
		name = "hikey960";
	if (!strcmp(name, "hikey960")) {
		add_domain(out, "little", 4, 462, hikey960_little, N_OF(hikey960_little));
		add_domain(out, "big", 4, TP_CAPACITY_SCALE, hikey960_big, N_OF(hikey960_big));
	} else if (!strcmp(name, "db410c")) {
		add_domain(out, "cluster0", 4, TP_CAPACITY_SCALE, db410c_opps, N_OF(db410c_opps));
	} else if (!strncmp(name, "smp:", 4)) {
		int n;

		if (parse_smp(name + 4, &n))
			return tp_error_set(err, -EINVAL,
					    "invalid simulator preset '%.64s': N in smp:N must be "
					    "a whole number from 1 to %d", name, TPSIM_MAX_CPUS);
		add_domain(out, "cluster0", n, TP_CAPACITY_SCALE, smp_opps, N_OF(smp_opps));
	} else {
		return tp_error_set(err, -EINVAL,
				    "unknown simulator preset '%.64s' (hikey960, db410c, smp:N)",
				    name);
	}
	snprintf(out->name, sizeof(out->name), "%s", name);
	return 0;
}
