/* SPDX-License-Identifier: MIT */
/*
 * The seam between the generic library and each source (patched kernel, simulator,
 * stock kernel).  Private to core/.
 *
 * The generic layer (control.c) validates everything against a snapshot before it
 * calls a source, so sources only apply already-valid requests; they still return
 * -errno with a message when the system refuses.
 */
#ifndef TP_CORE_SOURCE_H
#define TP_CORE_SOURCE_H

#include <thermpress/stock.h>
#include <thermpress/thermpress.h>

struct tp_source;

struct tp_source_ops {
	/* Fill snap (its buffers may be reused); the generic layer derives the rest. */
	int (*snapshot)(struct tp_source *src, struct tp_snapshot *snap, struct tp_error *err);
	/* Cap every CPU of cpus at khz, or clear their cap when khz is 0. */
	int (*inject)(struct tp_source *src, const struct tp_cpuset *cpus, uint64_t khz,
		      struct tp_error *err);
	int (*set_backend)(struct tp_source *src, const char *name, struct tp_error *err);
	int (*set_decay)(struct tp_source *src, uint32_t decay_ms, struct tp_error *err);
	/* The source's backend names in order, the active index, the decay in force. */
	int (*backends)(struct tp_source *src, char names[][TP_NAME_MAX], size_t max,
			size_t *count, int *active, int64_t *decay_ms, struct tp_error *err);
	/*
	 * Optional: what only the source knows about itself (abi_version, simulated,
	 * clock), over what the generic layer filled in first (kind, names, TP_NONE,
	 * not simulated, a real clock).
	 */
	int (*info)(const struct tp_source *src, struct tp_source_info *info, struct tp_error *err);
	/* Optional (NULL: -ENOTSUP). */
	int (*advance)(struct tp_source *src, uint64_t ns, struct tp_error *err);
	int (*serve)(struct tp_source *src, const char *mountpoint, volatile sig_atomic_t *stop,
		     struct tp_error *err);
	/*
	 * Optional: the limits of cpus in force now (opaque, freed with free()), and
	 * writing them back for the CPUs of only (NULL: all).  Without them the
	 * generic layer keeps each CPU's capped frequency from a snapshot.
	 */
	int (*limits_save)(struct tp_source *src, const struct tp_cpuset *cpus, void **saved,
			   struct tp_error *err);
	int (*limits_put_back)(struct tp_source *src, const void *saved,
			       const struct tp_cpuset *only, struct tp_error *err);
	/*
	 * Optional: a source whose kernel fixes the backend and its decay (a stock
	 * kernel) answers every backend or decay request itself, saying why it cannot,
	 * for the request as asked (name NULL: a decay for the backend in force).
	 * Without it the generic layer checks the request against the source's backends
	 * and plugins, then calls set_backend and set_decay.
	 */
	int (*fixed_backend)(struct tp_source *src, const char *name, uint32_t decay_ms,
			     struct tp_error *err);
	/* Optional (NULL: -ENOTSUP): what only a stock kernel tells or does (thermpress/stock.h). */
	int (*stock_describe)(struct tp_source *src, struct tp_stock_info *info,
			      struct tp_error *err);
	int (*stock_set_cap_method)(struct tp_source *src, enum tp_stock_cap_method method,
				    struct tp_error *err);
	/*
	 * Optional (NULL: -ENOTSUP): tp_thermal_read, the one reader of zones and cooling
	 * devices; out zeroed by the caller, its arrays malloc()ed (freed by the caller,
	 * also on failure).
	 */
	int (*thermal)(struct tp_source *src, struct tp_thermal *out, struct tp_error *err);
	/* Optional: the state file (state.h): record changes first, undo them, count them. */
	int (*journal)(struct tp_source *src, struct tp_error *err);
	int (*restore)(struct tp_source *src, struct tp_restore_report *rep, struct tp_error *err);
	int (*pending)(struct tp_source *src, struct tp_pending *out, struct tp_error *err);
	/* Optional (NULL: -ENOTSUP): nested holds, tp_hold_begin() and tp_hold_end(). */
	int (*hold_begin)(struct tp_source *src, struct tp_error *err);
	int (*hold_end)(struct tp_source *src, struct tp_cpuset *left, struct tp_error *err);
	void (*close)(struct tp_source *src);
};

struct tp_source {
	const struct tp_source_ops *ops;
	enum tp_source_kind kind;
	char description[256];
	struct tp_plugin_set *plugins;	/* owned; NULL when loading failed */
	char plugin_error[256];		/* why, when plugins is NULL */
	char root[4096];		/* a kernel's root prefix ("" for "/"); unset for --sim */
	void *priv;			/* the source's own state */
};

/* Each source's constructor; plugins is handed over to the source on success. */
int tp_source_patched_open(const char *root, struct tp_source *src, struct tp_error *err);
int tp_source_sim_open(const struct tp_open_options *opts, struct tp_source *src,
		       struct tp_error *err);
/* core/stock/: an unpatched kernel's cpufreq and thermal interfaces under root. */
int tp_source_stock_open(const char *root, struct tp_source *src, struct tp_error *err);

/* Fill the derived columns (capped_capacity) of every CPU. */
void tp_snapshot_derive(struct tp_snapshot *snap);
/* Make room for n CPUs and m domains, reusing earlier buffers. */
int tp_snapshot_reserve(struct tp_snapshot *snap, size_t ncpus, size_t ndomains);

#endif
