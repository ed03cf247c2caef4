/* SPDX-License-Identifier: MIT */
/*
 * Thermal scenarios: the simulator caps CPUs on its own, as a thermal governor would.
 *
 * "heat": a first-order thermal model per frequency domain under a load profile,
 * polled every TPSIM_HEAT_POLL_MS.  Integer arithmetic only, so a run on the virtual
 * clock is deterministic.  See docs/simulator.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

#define HEAT_POLL_NS (250ull * 1000000ull)	/* the governor's polling interval */
#define HEAT_TAU_MS 1000			/* thermal time constant */
#define HEAT_AMBIENT_MC 25000			/* millidegrees C */
#define HEAT_RISE_MC 60000			/* full load at max freq, capacity 1024 */
#define HEAT_TRIP_MC 70000
#define HEAT_HYST_MC 5000
#define HEAT_CYCLE_NS (60ull * 1000000000ull)	/* load profile: 30 s busy, 30 s light */
#define HEAT_BUSY_NS (30ull * 1000000000ull)
#define HEAT_BUSY_PCT 100
#define HEAT_LIGHT_PCT 10

struct heat_domain {
	int64_t temp_mc;
	size_t level;		/* OPP index in force; nr_opps - 1 is uncapped */
};

struct tpsim_scenario {
	const char *name;
	size_t capped;		/* the domain the governor caps: the biggest */
	size_t nr_domains;
	struct heat_domain dom[TPSIM_MAX_DOMAINS];
};

static const char *const scenario_names[] = { "heat", NULL };

const char *const *tp_sim_scenarios(void)
{
	return scenario_names;
}

int tpsim_scenario_create(const char *name, const struct tp_sim *sim,
			  struct tpsim_scenario **out, struct tp_error *err)
{
	struct tpsim_scenario *sc;

	*out = NULL;
	if (!name || !*name || !strcmp(name, "none"))
		return 0;
	if (strcmp(name, "heat"))
		return tp_error_set(err, -EINVAL, "unknown scenario '%.64s' (expected %s)", name,
				    "heat");
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return tp_error_set(err, -ENOMEM, "out of memory for the scenario");
	sc->name = scenario_names[0];
	sc->nr_domains = sim->preset.nr_domains;
	for (size_t d = 0; d < sc->nr_domains; d++) {
		const struct tpsim_domain_desc *dd = &sim->preset.domains[d];

		sc->dom[d].temp_mc = HEAT_AMBIENT_MC;
		sc->dom[d].level = dd->nr_opps - 1;
		if (dd->max_capacity >= sim->preset.domains[sc->capped].max_capacity)
			sc->capped = d;
	}
	*out = sc;
	return 0;
}

void tpsim_scenario_destroy(struct tpsim_scenario *sc)
{
	free(sc);
}

const char *tpsim_scenario_name(const struct tpsim_scenario *sc)
{
	return sc ? sc->name : "none";
}

int64_t tpsim_scenario_temp_mc(const struct tpsim_scenario *sc, size_t d)
{
	return sc && d < sc->nr_domains ? sc->dom[d].temp_mc : TP_NONE;
}

int tpsim_scenario_thermal(const struct tpsim_scenario *sc, const struct tp_sim *sim,
			   struct tp_thermal *out)
{
	if (!sc || !sc->nr_domains)
		return 0;
	out->zones = calloc(sc->nr_domains, sizeof(*out->zones));
	out->cooling = calloc(1, sizeof(*out->cooling));
	if (!out->zones || !out->cooling)
		return -ENOMEM;
	for (size_t d = 0; d < sc->nr_domains; d++) {
		const struct tpsim_domain_desc *dd = &sim->preset.domains[d];
		struct tp_thermal_zone *z = &out->zones[out->nr_zones++];

		z->id = (int)d;
		snprintf(z->type, sizeof(z->type), "%.20s-thermal", dd->name);
		z->temp_mc = sc->dom[d].temp_mc;
		if (d != sc->capped)
			continue;
		/* only the governed domain has a trip point, and a cooling device */
		snprintf(z->trips[0].type, sizeof(z->trips[0].type), "passive");
		z->trips[0].temp_mc = HEAT_TRIP_MC;
		z->trips[0].hyst_mc = HEAT_HYST_MC;
		z->nr_trips = 1;

		struct tp_thermal_cooling *c = &out->cooling[out->nr_cooling++];

		c->id = 0;
		snprintf(c->type, sizeof(c->type), "cpufreq-cpu%d", dd->first_cpu);
		c->domain = dd->first_cpu;
		c->max_state = (int64_t)dd->nr_opps - 1;
		c->cur_state = (int64_t)(dd->nr_opps - 1 - sc->dom[d].level);
		c->cap_khz = (int64_t)dd->opps_khz[sc->dom[d].level];
	}
	return 0;
}

static unsigned load_pct(uint64_t t)
{
	return (t - TPSIM_T0_NS) % HEAT_CYCLE_NS < HEAT_BUSY_NS ? HEAT_BUSY_PCT : HEAT_LIGHT_PCT;
}

bool tpsim_scenario_tick(struct tpsim_scenario *sc, const struct tp_sim *sim, uint64_t t,
			 size_t *domain, uint64_t *khz)
{
	bool changed = false;

	if ((t - TPSIM_T0_NS) % HEAT_POLL_NS)
		return false;
	unsigned load = load_pct(t);

	for (size_t d = 0; d < sc->nr_domains; d++) {
		const struct tpsim_domain_desc *dd = &sim->preset.domains[d];
		struct heat_domain *h = &sc->dom[d];
		/* steady state: ambient + load * rise * (f / fmax)^2, scaled by capacity */
		int64_t f = (int64_t)dd->opps_khz[h->level], fmax = (int64_t)dd->max_khz;
		int64_t rise = (int64_t)HEAT_RISE_MC * dd->max_capacity / TP_CAPACITY_SCALE;
		int64_t ss = HEAT_AMBIENT_MC + rise * load / 100 * f / fmax * f / fmax;
		size_t level = h->level;

		h->temp_mc += (ss - h->temp_mc) * (int64_t)(HEAT_POLL_NS / 1000000) / HEAT_TAU_MS;
		if (d != sc->capped)
			continue;
		/* step_wise: one OPP down per poll above the trip, up below trip - hyst */
		if (h->temp_mc > HEAT_TRIP_MC && level > 0)
			level--;
		else if (h->temp_mc < HEAT_TRIP_MC - HEAT_HYST_MC && level + 1 < dd->nr_opps)
			level++;
		if (level == h->level)
			continue;
		h->level = level;
		*domain = d;
		*khz = dd->opps_khz[level];
		changed = true;
	}
	return changed;
}
