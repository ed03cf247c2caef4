/* SPDX-License-Identifier: MIT */
/* The backend update log of docs/abi.md (log_cpu / log), as the kernel keeps it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/sim.h"

static struct tpsim_log_entry *next_entry(struct tp_sim *sim)
{
	struct tpsim_log *log = &sim->log;

	if (log->cpu < 0 || log->overflow || !log->entries)
		return NULL;
	if (log->count >= TPSIM_LOG_MAX) {
		log->overflow = true;
		return NULL;
	}
	return &log->entries[log->count++];
}

void tpsim_log_reset_line(struct tp_sim *sim, uint64_t t)
{
	struct tpsim_log_entry *e = next_entry(sim);

	if (!e)
		return;
	e->kind = TPSIM_LOG_RESET;
	e->time_ns = t;
	e->a = sim->active;
	e->b = tpsim_decay_ms(sim);
}

void tpsim_log_update_line(struct tp_sim *sim, uint64_t t, uint64_t pressure, uint64_t avg)
{
	struct tpsim_log_entry *e = next_entry(sim);

	if (!e)
		return;
	e->kind = TPSIM_LOG_UPDATE;
	e->time_ns = t;
	e->a = pressure;
	e->b = avg;
}

int tpsim_log_set_cpu(struct tp_sim *sim, int64_t cpu, struct tp_error *err)
{
	struct tpsim_log *log = &sim->log;

	if (cpu == -1) {
		log->cpu = -1;
		return 0;
	}
	if (cpu < 0 || cpu >= sim->nr_cpus)
		return tp_error_set(err, -EINVAL, "cpu %lld does not exist (cpus: 0-%d)",
				    (long long)cpu, sim->nr_cpus - 1);
	if (!log->entries) {
		log->entries = malloc(TPSIM_LOG_MAX * sizeof(*log->entries));
		if (!log->entries)
			return tp_error_set(err, -ENOMEM, "out of memory for the update log");
	}
	/*
	 * A log must be replayable from its first line: the logged CPU's backend starts
	 * again from its documented starting state now, which the reset line records.
	 */
	log->cpu = (int)cpu;
	log->count = 0;
	log->overflow = false;
	tp_avg_reset(&sim->avgs[cpu], sim->now_ns);
	sim->avg[cpu] = 0;
	tpsim_log_reset_line(sim, sim->now_ns);
	return 0;
}

int tpsim_log_format(const struct tp_sim *sim, char **text, size_t *len)
{
	const struct tpsim_log *log = &sim->log;
	/* "update " + 2 x 20 digits + a value + spaces + newline fits in 96 */
	size_t cap = log->count * 96 + 16, n = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	buf[0] = '\0';
	for (size_t i = 0; i < log->count; i++) {
		const struct tpsim_log_entry *e = &log->entries[i];

		if (e->kind == TPSIM_LOG_RESET)
			n += (size_t)snprintf(buf + n, cap - n, "reset %llu %s %llu\n",
					      (unsigned long long)e->time_ns,
					      tpsim_backend_name(sim, e->a),
					      (unsigned long long)e->b);
		else
			n += (size_t)snprintf(buf + n, cap - n, "update %llu %llu %llu\n",
					      (unsigned long long)e->time_ns,
					      (unsigned long long)e->a,
					      (unsigned long long)e->b);
	}
	if (log->overflow)
		n += (size_t)snprintf(buf + n, cap - n, "overflow\n");
	*text = buf;
	*len = n;
	return 0;
}

void tpsim_log_free(struct tp_sim *sim)
{
	free(sim->log.entries);
	sim->log.entries = NULL;
	sim->log.count = 0;
}
