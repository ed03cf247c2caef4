/* SPDX-License-Identifier: MIT */
/*
 * The files of docs/abi.md as the simulator serves them: what a read shows and what a
 * write does, independent of FUSE.  Text is formatted and parsed with core/abi_text.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_text.h"
#include "sim/sim.h"

#define WRITE_MAX 4095

enum file_id { F_VERSION, F_BACKEND, F_DECAY, F_HZ, F_INJECT, F_STATS, F_LOG_CPU, F_LOG,
	       F_SIM_PRESET, F_SIM_CLOCK };

const struct tpsim_file tpsim_files[] = {
	[F_VERSION] = { "version", 0444, TPSIM_R },
	[F_BACKEND] = { "backend", 0644, TPSIM_R | TPSIM_W },
	[F_DECAY] = { "decay_ms", 0644, TPSIM_R | TPSIM_W },
	[F_HZ] = { "hz", 0444, TPSIM_R },
	[F_INJECT] = { "inject", 0200, TPSIM_W },
	[F_STATS] = { "stats", 0444, TPSIM_R },
	[F_LOG_CPU] = { "log_cpu", 0644, TPSIM_R | TPSIM_W },
	[F_LOG] = { "log", 0444, TPSIM_R },
	[F_SIM_PRESET] = { "sim_preset", 0444, TPSIM_R },
	[F_SIM_CLOCK] = { "sim_clock", 0644, TPSIM_R | TPSIM_W },
	{ NULL, 0, 0 },
};

const struct tpsim_file *tpsim_file_find(const char *name)
{
	for (const struct tpsim_file *f = tpsim_files; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static int dup_text(char **text, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int dup_text(char **text, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*text = NULL;
		return -ENOMEM;
	}
	*len = (size_t)n;
	return 0;
}

static int read_backends(struct tp_sim *sim, char **text, size_t *len)
{
	char names[TP_MAX_BACKENDS][TP_NAME_MAX];
	size_t need;

	for (size_t i = 0; i < sim->nr_backends; i++)
		snprintf(names[i], TP_NAME_MAX, "%s", tpsim_backend_name(sim, i));
	need = tp_abi_format_backends(names, sim->nr_backends, (int)sim->active, NULL, 0);
	*text = malloc(need + 1);
	if (!*text)
		return -ENOMEM;
	tp_abi_format_backends(names, sim->nr_backends, (int)sim->active, *text, need + 1);
	*len = need;
	return 0;
}

static int read_stats(struct tp_sim *sim, char **text, size_t *len)
{
	struct tp_snapshot snap;
	int r;

	tp_snapshot_init(&snap);
	r = tpsim_snapshot(sim, &snap, NULL);
	if (!r)
		r = tp_abi_format_stats(&snap, text, len);
	tp_snapshot_release(&snap);
	return r;
}

int tpsim_file_read(struct tp_sim *sim, const struct tpsim_file *file, char **text,
		    size_t *len)
{
	*text = NULL;
	*len = 0;
	tpsim_sync(sim);
	switch ((enum file_id)(file - tpsim_files)) {
	case F_VERSION:
		return dup_text(text, len, "%d\n", TP_ABI_VERSION);
	case F_BACKEND:
		return read_backends(sim, text, len);
	case F_DECAY:
		return dup_text(text, len, "%u\n", tpsim_decay_ms(sim));
	case F_HZ:
		return dup_text(text, len, "%d\n", sim->hz);
	case F_STATS:
		return read_stats(sim, text, len);
	case F_LOG_CPU:
		return dup_text(text, len, "%d\n", sim->log.cpu);
	case F_LOG:
		return tpsim_log_format(sim, text, len);
	case F_SIM_PRESET:
		return dup_text(text, len, "%s\n", sim->preset.name);
	case F_SIM_CLOCK:
		return dup_text(text, len, "%s\n", sim->virtual_clock ? "virtual" : "real");
	case F_INJECT:
	default:
		return -EINVAL;
	}
}

static int write_log_cpu(struct tp_sim *sim, const char *value, struct tp_error *err)
{
	uint64_t cpu;

	tpsim_sync(sim);	/* the log starts now */
	if (!strcmp(value, "-1"))
		return tpsim_log_set_cpu(sim, -1, err);
	if (tp_abi_parse_u64(value, &cpu) || cpu >= (uint64_t)sim->nr_cpus)
		return tp_error_set(err, -EINVAL, "log_cpu: '%.32s' is not a cpu (0-%d) or -1",
				    value, sim->nr_cpus - 1);
	return tpsim_log_set_cpu(sim, (int64_t)cpu, err);
}

static int write_inject(struct tp_sim *sim, const char *value, struct tp_error *err)
{
	struct tp_cpuset cpus;
	uint64_t khz;

	if (tp_abi_parse_inject(value, sim->nr_cpus, &cpus, &khz))
		return tp_error_set(err, -EINVAL,
				    "inject: '%.64s' is not 'CPULIST KHZ' or 'CPULIST clear'",
				    value);
	if (khz == 0 && strcmp(strchr(value, ' ') ? strchr(value, ' ') + 1 : "", "clear"))
		return tp_error_set(err, -EINVAL, "inject: a frequency of 0 kHz is invalid");
	return tpsim_inject(sim, &cpus, khz, err);
}

/* sim_clock's errno: EINVAL for a step out of range too, as for every bad value (docs/abi.md) */
static int advance_errno(int rc)
{
	return rc == -ERANGE ? -EINVAL : rc;
}

int tpsim_file_write(struct tp_sim *sim, const struct tpsim_file *file, const char *buf,
		     size_t len, uint64_t offset, struct tp_error *err)
{
	char value[WRITE_MAX + 1];
	uint64_t v;

	if (!(file->access & TPSIM_W))
		return tp_error_set(err, -EINVAL, "%s is read-only", file->name);
	if (offset != 0 || len > WRITE_MAX)
		return tp_error_set(err, -EINVAL, "%s: one write of at most %d bytes at offset 0",
				    file->name, WRITE_MAX);
	if (tp_abi_write_value(buf, len, value, sizeof(value)))
		return tp_error_set(err, -EINVAL, "%s: not a single value", file->name);
	switch ((enum file_id)(file - tpsim_files)) {
	case F_BACKEND:
		return tpsim_set_backend(sim, value, err);
	case F_DECAY:
		if (tp_abi_parse_u64(value, &v))
			return tp_error_set(err, -EINVAL, "decay_ms: '%.32s' is not a number",
					    value);
		return tpsim_set_decay(sim, v, err);
	case F_INJECT:
		return write_inject(sim, value, err);
	case F_LOG_CPU:
		return write_log_cpu(sim, value, err);
	case F_SIM_CLOCK:
		if (!sim->virtual_clock)
			return tp_error_set(err, -EINVAL, "sim_clock: the clock is real");
		if (tp_abi_parse_u64(value, &v))
			return tp_error_set(err, -EINVAL, "sim_clock: '%.32s' is not a number of ns",
					    value);
		return advance_errno(tpsim_advance(sim, v, err));
	default:
		return tp_error_set(err, -EINVAL, "%s is read-only", file->name);
	}
}
