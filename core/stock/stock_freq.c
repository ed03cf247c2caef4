// SPDX-License-Identifier: MIT
/*
 * cpufreq: the one place that touches it.
 *
 * On the real root ("/") every read and write goes through libcpupower, as the
 * issue asks.  libcpupower's sysfs paths are hard-coded (/sys/devices/system/cpu),
 * so under any other root (fixture trees, a copied tree) the same files are read
 * and written directly, relative to the root, with the same meaning:
 *
 *   libcpupower call                       file under cpuN/cpufreq/
 *   cpufreq_get_hardware_limits()          cpuinfo_min_freq, cpuinfo_max_freq
 *   cpufreq_get_policy()->max              scaling_max_freq (also reads min, governor)
 *   cpufreq_get_related_cpus()             related_cpus
 *   cpufreq_get_available_frequencies()    scaling_available_frequencies
 *   cpufreq_modify_policy_max()            scaling_max_freq (write)
 *
 * Tests reach the libcpupower path by bind-mounting a fixture over
 * /sys/devices/system/cpu in a private mount namespace (tests/stock/).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cpufreq.h>

#include "stock.h"
#include "grow.h"

static int cpufreq_file(const struct stock *s, int cpu, const char *name, char *buf, size_t len)
{
	return stock_path(s, buf, len, "sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, name);
}

bool stock_freq_present(const struct stock *s, int cpu)
{
	char path[STOCK_PATH_MAX];
	struct stat st;

	if (stock_path(s, path, sizeof(path), "sys/devices/system/cpu/cpu%d/cpufreq", cpu) < 0)
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int direct_i64(const struct stock *s, int cpu, const char *name, int64_t *out)
{
	char path[STOCK_PATH_MAX];
	int rc = cpufreq_file(s, cpu, name, path, sizeof(path));

	if (rc < 0)
		return rc;
	rc = stock_read_i64(path, out);
	if (rc == 0 && *out <= 0)
		return -EPROTO;
	return rc;
}

int stock_freq_hw_max(const struct stock *s, int cpu, int64_t *khz)
{
	if (s->real_root) {
		unsigned long min = 0, max = 0;

		if (cpufreq_get_hardware_limits((unsigned)cpu, &min, &max) != 0 || max == 0)
			return -ENODATA;
		*khz = (int64_t)max;
		return 0;
	}
	return direct_i64(s, cpu, "cpuinfo_max_freq", khz);
}

int stock_freq_hw_min(const struct stock *s, int cpu, int64_t *khz)
{
	if (s->real_root) {
		unsigned long min = 0, max = 0;

		if (cpufreq_get_hardware_limits((unsigned)cpu, &min, &max) != 0 || min == 0)
			return -ENODATA;
		*khz = (int64_t)min;
		return 0;
	}
	return direct_i64(s, cpu, "cpuinfo_min_freq", khz);
}

int stock_freq_scaling_max(const struct stock *s, int cpu, int64_t *khz)
{
	if (s->real_root) {
		struct cpufreq_policy *pol = cpufreq_get_policy((unsigned)cpu);

		if (!pol)
			return -ENODATA;
		*khz = (int64_t)pol->max;
		cpufreq_put_policy(pol);
		return *khz > 0 ? 0 : -ENODATA;
	}
	return direct_i64(s, cpu, "scaling_max_freq", khz);
}

int stock_freq_related(const struct stock *s, int cpu, int **cpus, size_t *n)
{
	if (s->real_root) {
		struct cpufreq_affected_cpus *list = cpufreq_get_related_cpus((unsigned)cpu);
		size_t count = 0, i = 0;
		int *v;

		if (!list)
			return -ENODATA;
		for (struct cpufreq_affected_cpus *c = list->first; c; c = c->next)
			count++;
		v = malloc((count ? count : 1) * sizeof(*v));
		if (!v) {
			cpufreq_put_related_cpus(list->first);
			return -ENOMEM;
		}
		for (struct cpufreq_affected_cpus *c = list->first; c; c = c->next)
			v[i++] = (int)c->cpu;
		cpufreq_put_related_cpus(list->first);
		/* libcpupower keeps the file's order; the kernel writes ascending */
		for (size_t a = 1; a < count; a++)
			for (size_t b = a; b > 0 && v[b - 1] > v[b]; b--) {
				int t = v[b];

				v[b] = v[b - 1];
				v[b - 1] = t;
			}
		*cpus = v;
		*n = count;
		return count ? 0 : -ENODATA;
	} else {
		char path[STOCK_PATH_MAX], buf[16384];
		int rc = cpufreq_file(s, cpu, "related_cpus", path, sizeof(path));

		if (rc == 0)
			rc = stock_read_text(path, buf, sizeof(buf));
		if (rc == 0)
			rc = stock_parse_cpus(buf, cpus, n);
		if (rc == 0 && *n == 0) {
			free(*cpus);
			*cpus = NULL;
			return -ENODATA;
		}
		return rc;
	}
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

/* Frequencies descending, duplicates dropped: index = cooling state. */
int stock_freq_available(const struct stock *s, int cpu, uint64_t **freqs, size_t *n)
{
	size_t count = 0, alloc = 0;
	uint64_t *v = NULL;

	*freqs = NULL;
	*n = 0;
	if (s->real_root) {
		struct cpufreq_available_frequencies *list = cpufreq_get_available_frequencies((unsigned)cpu);

		if (!list)
			return -ENODATA;
		for (struct cpufreq_available_frequencies *f = list->first; f; f = f->next)
			count++;
		v = malloc((count ? count : 1) * sizeof(*v));
		if (!v) {
			cpufreq_put_available_frequencies(list->first);
			return -ENOMEM;
		}
		count = 0;
		for (struct cpufreq_available_frequencies *f = list->first; f; f = f->next)
			v[count++] = f->frequency;
		cpufreq_put_available_frequencies(list->first);
	} else {
		char path[STOCK_PATH_MAX], *buf = malloc(65536), *p, *save = NULL;
		int rc;

		if (!buf)
			return -ENOMEM;
		rc = cpufreq_file(s, cpu, "scaling_available_frequencies", path, sizeof(path));
		if (rc == 0)
			rc = stock_read_text(path, buf, 65536);
		if (rc < 0) {
			free(buf);
			return rc;
		}
		for (p = strtok_r(buf, " \t\n", &save); p; p = strtok_r(NULL, " \t\n", &save)) {
			int64_t f;

			if (stock_parse_i64(p, &f) < 0 || f <= 0) {
				free(buf);
				free(v);
				return -EPROTO;
			}
			uint64_t *nv = array_grow(v, &alloc, count + 1, sizeof(*v), 32);

			if (!nv) {
				free(buf);
				free(v);
				return -ENOMEM;
			}
			v = nv;
			v[count++] = (uint64_t)f;
		}
		free(buf);
	}
	if (!count) {
		free(v);
		return -ENODATA;
	}
	qsort(v, count, sizeof(*v), cmp_desc);
	size_t w = 0;

	for (size_t i = 0; i < count; i++)
		if (w == 0 || v[w - 1] != v[i])
			v[w++] = v[i];
	*freqs = v;
	*n = w;
	return 0;
}

int stock_policy_scaling_max(const struct stock *s, const struct stock_policy *p, int64_t *khz)
{
	int rc = -ENODATA;

	for (size_t i = 0; i < p->nr_cpus; i++) {
		rc = stock_freq_scaling_max(s, p->cpus[i], khz);
		if (rc == 0)
			return 0;
	}
	return rc;
}

int stock_freq_set_max(const struct stock *s, int cpu, uint64_t khz, struct tp_error *err)
{
	char path[STOCK_PATH_MAX], value[32];
	int rc;

	cpufreq_file(s, cpu, "scaling_max_freq", path, sizeof(path));
	snprintf(value, sizeof(value), "%llu", (unsigned long long)khz);
	if (s->real_root) {
		/* -ENODEV for every failure: errno says which (libcpupower's setters) */
		errno = 0;
		if (cpufreq_modify_policy_max((unsigned)cpu, (unsigned long)khz) == 0)
			return 0;
		rc = errno ? -errno : -EIO;
	} else {
		rc = stock_write_text(s, path, value);
		if (!rc)
			return 0;
		if (rc == -EXDEV)
			return tp_error_set(err, -EXDEV,
				"refusing to write %s: a symbolic link leads outside the root %s", path,
				s->root);
	}
	if (rc == -EINVAL)
		return tp_error_set(err, -EINVAL, "the kernel refused %s kHz in %s", value, path);
	return tp_error_set(err, rc, "cannot write %s to %s: %s%s", value, path, strerror(-rc),
			    stock_write_hint(rc));
}
