// SPDX-License-Identifier: MIT
/*
 * Replay a thermal pressure update log taken in the patched kernel
 * (/sys/kernel/debug/sched/thermal_pressure/log, docs/abi.md) and check that
 * every AVG_PRESSURE comes out identical:
 *
 *  - through the thermpress backend plugins, loaded with the library's plugin
 *    loader (tp_plugins_load, tp_avg_*), when built with -DTP_WITH_LIBRARY;
 *  - always through the test reference of docs/algorithms.md,
 *    tests/support/reference_avg.h.
 *
 * usage: tp-replay [--plugins DIR] LOG...
 *        tp-replay --selftest
 * Exit status: 0 every update matched, 1 a mismatch, 2 a bad log or setup.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TP_WITH_LIBRARY
#include <thermpress/thermpress.h>
#endif

#include "reference_avg.h"

/* ---- reference: docs/algorithms.md (tests/support/reference_avg.h) --------- */

enum { B_INSTANT, B_PELT, B_DECAY, B_NONE };

struct ref {
	int backend;
	struct ref_pelt pelt;
	struct ref_decay decay;
};

static int ref_reset(struct ref *r, const char *backend, uint64_t decay_ms, uint64_t now)
{
	memset(r, 0, sizeof(*r));
	if (!strcmp(backend, "instant")) {
		r->backend = B_INSTANT;
		return decay_ms == 0 ? 0 : -1;
	}
	if (!strcmp(backend, "none")) {	/* the scheduler sees no pressure: 0 */
		r->backend = B_NONE;
		return decay_ms == 0 ? 0 : -1;
	}
	if (!strcmp(backend, "pelt")) {
		r->backend = B_PELT;
		return ref_pelt_reset(&r->pelt, decay_ms, now);
	}
	if (!strcmp(backend, "decay")) {
		r->backend = B_DECAY;
		if (decay_ms < 1 || decay_ms > 10000)
			return -1;
		ref_decay_reset(&r->decay, decay_ms);
		return 0;
	}
	return -1;
}

static uint64_t ref_update(struct ref *r, uint64_t now, uint64_t p)
{
	switch (r->backend) {
	case B_PELT:
		return ref_pelt_update(&r->pelt, now, p);
	case B_DECAY:
		return ref_decay_update(&r->decay, now, p);
	case B_NONE:
		return 0;
	default:
		return p;
	}
}

/* ---- replay --------------------------------------------------------------- */

#ifdef TP_WITH_LIBRARY
static struct tp_plugin_set *plugins;
#endif

static int replay(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256], backend[32] = "", first_backend[32] = "";
	unsigned long long n_upd = 0, n_reset = 0, ref_bad = 0, lib_bad = 0;
	unsigned long long decay_ms = 0;
	bool have_state = false, overflow = false;
	struct ref ref;
	unsigned long lineno = 0;
#ifdef TP_WITH_LIBRARY
	struct tp_avg avg = { 0 };
	bool have_avg = false;
	struct tp_error err;
#endif
	int ret = 0;

	if (!f) {
		fprintf(stderr, "tp-replay: cannot open %s: %s\n", path, strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long t, p, a;
		char name[32];

		lineno++;
		if (sscanf(line, "reset %llu %31s %llu", &t, name, &decay_ms) == 3) {
			n_reset++;
			snprintf(backend, sizeof(backend), "%s", name);
			if (!first_backend[0])
				snprintf(first_backend, sizeof(first_backend), "%s", name);
			if (ref_reset(&ref, name, decay_ms, t)) {
				fprintf(stderr, "%s:%lu: bad reset line: %s", path, lineno, line);
				ret = 2;
				break;
			}
			have_state = true;
#ifdef TP_WITH_LIBRARY
			{
				const struct tp_backend_ops *ops = tp_plugins_find(plugins, name);

				if (have_avg)
					tp_avg_fini(&avg);
				have_avg = false;
				if (!ops) {
					fprintf(stderr, "%s:%lu: no plugin for backend %s\n", path,
						lineno, name);
					ret = 2;
					break;
				}
				/* instant has no parameter: 0 is its only value */
				if (tp_avg_init(&avg, ops, (uint32_t)decay_ms, t, &err)) {
					fprintf(stderr, "%s:%lu: plugin %s refused decay %llu: %s\n",
						path, lineno, name, decay_ms, err.msg);
					ret = 2;
					break;
				}
				if (avg.decay_ms != decay_ms) {
					fprintf(stderr, "%s:%lu: plugin %s puts decay %u in force, kernel %llu\n",
						path, lineno, name, avg.decay_ms, decay_ms);
					ret = 2;
					break;
				}
				have_avg = true;
			}
#endif
		} else if (sscanf(line, "update %llu %llu %llu", &t, &p, &a) == 3) {
			uint64_t r;

			if (!have_state) {
				fprintf(stderr, "%s:%lu: update before the first reset\n", path, lineno);
				ret = 2;
				break;
			}
			n_upd++;
			r = ref_update(&ref, t, p);
			if (r != a && ref_bad++ < 5)
				fprintf(stderr, "%s:%lu: reference gives %" PRIu64 ", kernel %llu\n",
					path, lineno, r, a);
#ifdef TP_WITH_LIBRARY
			r = tp_avg_update(&avg, t, p);
			if (r != a && lib_bad++ < 5)
				fprintf(stderr, "%s:%lu: plugin %s gives %" PRIu64 ", kernel %llu\n",
					path, lineno, backend, r, a);
#endif
		} else if (!strcmp(line, "overflow\n")) {
			overflow = true;
		} else if (line[0] != '\n') {
			fprintf(stderr, "%s:%lu: unknown line: %s", path, lineno, line);
			ret = 2;
			break;
		}
	}
	fclose(f);
#ifdef TP_WITH_LIBRARY
	if (have_avg)
		tp_avg_fini(&avg);
#endif
	if (!ret && (n_upd == 0 || n_reset == 0)) {
		fprintf(stderr, "%s: no updates to replay\n", path);
		ret = 2;
	}
	if (!ret && (ref_bad || lib_bad))
		ret = 1;
	printf("  %s replay %s: last %s %llu: %llu updates, %llu resets%s: reference %s, plugins %s\n",
	       ret ? "FAIL" : "ok", strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
	       backend, decay_ms, n_upd, n_reset, overflow ? " (overflow)" : "",
	       ref_bad ? "MISMATCH" : "identical",
#ifdef TP_WITH_LIBRARY
	       lib_bad ? "MISMATCH" : "identical"
#else
	       "not built"
#endif
	       );
	return ret;
}

/* The reference against the check values of docs/algorithms.md */
static int selftest(void)
{
	static const struct { unsigned int ms; uint64_t avg; } check[] = {
		{ 32, 247 }, { 64, 375 }, { 128, 475 }, { 400, 511 },
		{ 432, 264 }, { 464, 136 }, { 528, 36 },
	};
	const uint64_t t0 = 10000000000ull;
	unsigned int k, i = 0, bad = 0;
	struct ref r;

	ref_reset(&r, "pelt", 32, t0);
	for (k = 1; k * 4 <= 528; k++) {
		uint64_t avg = ref_update(&r, t0 + k * 4000000ull, k * 4 <= 400 ? 512 : 0);

		if (i < sizeof(check) / sizeof(check[0]) && check[i].ms == k * 4) {
			if (avg != check[i].avg) {
				fprintf(stderr, "selftest: pelt at %u ms gives %" PRIu64 ", expected %" PRIu64 "\n",
					k * 4, avg, check[i].avg);
				bad++;
			}
			i++;
		}
	}
	printf("  %s replay selftest: reference pelt against the check values of docs/algorithms.md\n",
	       bad ? "FAIL" : "ok");
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	int i = 1, ret = 0;

	if (argc == 2 && !strcmp(argv[1], "--selftest"))
		return selftest();

	if (argc > 2 && !strcmp(argv[1], "--plugins")) {
		dir = argv[2];
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: tp-replay [--plugins DIR] LOG...\n");
		return 2;
	}
#ifdef TP_WITH_LIBRARY
	{
		struct tp_error err;

		if (tp_plugins_load(dir, &plugins, &err)) {
			fprintf(stderr, "tp-replay: cannot load the plugins: %s\n", err.msg);
			return 2;
		}
	}
#else
	(void)dir;
#endif
	for (; i < argc; i++) {
		int r = replay(argv[i]);

		if (r > ret)
			ret = r;
	}
#ifdef TP_WITH_LIBRARY
	tp_plugins_free(plugins);
#endif
	return ret;
}
