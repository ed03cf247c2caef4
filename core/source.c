// SPDX-License-Identifier: MIT
/* Opening a source: which one, where, and what to say when there is none. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source.h"

/*
 * The root as a prefix for paths: without trailing slashes, so that "/" gives ""
 * and paths read "/sys/...", not "//sys/...".
 */
static void root_prefix(const struct tp_open_options *opts, char *buf, size_t len)
{
	const char *env = getenv(TP_ENV_ROOT);
	const char *root = opts->root && *opts->root ? opts->root : env && *env ? env : "/";
	size_t n;

	snprintf(buf, len, "%s", root);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '/')
		buf[--n] = '\0';
}

/*
 * No patched interface under root: say what is there instead, so the user knows
 * whether to mount debugfs, become root, boot the patched kernel, or use --sim.
 */
static int explain_missing_interface(const char *root, struct tp_error *err)
{
	char debugfs[4200], dir[4300];
	struct stat st;
	const char *hint = "use --sim for the built-in simulator";

	snprintf(debugfs, sizeof(debugfs), "%s/sys/kernel/debug", root);
	snprintf(dir, sizeof(dir), "%s/%s", root, TP_ABI_DIR);
	if (stat(dir, &st) == 0)
		return tp_error_set(err, -ENOENT, "%s has no readable 'version' file; %s", dir, hint);
	if (errno == EACCES)
		return tp_error_set(err, -EACCES,
			"permission denied looking into %s (debugfs is root-only: run as root); %s",
			debugfs, hint);
	if (stat(debugfs, &st) != 0 || !S_ISDIR(st.st_mode))
		return tp_error_set(err, -ENOENT, "no debugfs directory at %s; %s", debugfs, hint);
	snprintf(dir, sizeof(dir), "%s/sched", debugfs);
	if (stat(dir, &st) != 0)
		return tp_error_set(err, -ENOENT,
			"debugfs is not mounted at %s (mount -t debugfs none %s), or the kernel has no scheduler debugfs; %s",
			debugfs, debugfs, hint);
	return tp_error_set(err, -ENOENT,
		"this kernel has no thermal pressure interface (%s/%s is missing: not a thermpress-patched kernel); %s",
		root, TP_ABI_DIR, hint);
}

int tp_source_open(const struct tp_open_options *opts, struct tp_source **out,
		   struct tp_error *err)
{
	static const struct tp_open_options defaults;
	struct tp_source *src;
	struct tp_error plugin_err;
	int rc;

	if (!opts)
		opts = &defaults;
	src = calloc(1, sizeof(*src));
	if (!src)
		return tp_error_set(err, -ENOMEM, "out of memory");
	/* Plugins describe backends for every source; the simulator cannot run without. */
	rc = tp_plugins_load(opts->plugin_dir, &src->plugins, &plugin_err);
	if (rc < 0 && opts->kind == TP_SOURCE_SIM) {
		free(src);
		return tp_error_set(err, rc, "simulator: %s", plugin_err.msg);
	}
	if (rc < 0)
		snprintf(src->plugin_error, sizeof(src->plugin_error), "%s", plugin_err.msg);

	switch (opts->kind) {
	case TP_SOURCE_SIM:
		src->kind = TP_SOURCE_SIM;
		rc = tp_source_sim_open(opts, src, err);
		break;
	case TP_SOURCE_AUTO:
	case TP_SOURCE_PATCHED: {
		char root[4096], version[4200];

		root_prefix(opts, root, sizeof(root));
		snprintf(src->root, sizeof(src->root), "%s", root);
		snprintf(version, sizeof(version), "%s/%s/version", root, TP_ABI_DIR);
		if (access(version, R_OK) != 0) {
			rc = explain_missing_interface(root, err);
			/* AUTO: no patched interface, so the stock kernel's view */
			if (opts->kind == TP_SOURCE_AUTO &&
			    tp_source_stock_open(root, src, NULL) == 0)
				rc = 0;
			break;
		}
		src->kind = TP_SOURCE_PATCHED;
		rc = tp_source_patched_open(root, src, err);
		break;
	}
	case TP_SOURCE_STOCK: {
		char root[4096];

		root_prefix(opts, root, sizeof(root));
		snprintf(src->root, sizeof(src->root), "%s", root);
		src->kind = TP_SOURCE_STOCK;
		rc = tp_source_stock_open(root, src, err);
		break;
	}
	default:
		rc = tp_error_set(err, -EINVAL, "unknown source kind %d", (int)opts->kind);
		break;
	}
	if (rc < 0) {
		tp_plugins_free(src->plugins);
		free(src);
		return rc;
	}
	*out = src;
	return 0;
}

void tp_source_close(struct tp_source *src)
{
	if (!src)
		return;
	if (src->ops && src->ops->close)
		src->ops->close(src);
	tp_plugins_free(src->plugins);
	free(src);
}

const char *tp_source_plugin_error(const struct tp_source *src)
{
	return src->plugin_error[0] ? src->plugin_error : NULL;
}

enum tp_source_kind tp_source_kind(const struct tp_source *src)
{
	return src->kind;
}

const char *tp_source_describe(const struct tp_source *src)
{
	return src->description;
}

const char *tp_source_kind_name(enum tp_source_kind kind)
{
	switch (kind) {
	case TP_SOURCE_PATCHED:
		return "patched";
	case TP_SOURCE_SIM:
		return "sim";
	case TP_SOURCE_STOCK:
		return "stock";
	default:
		return NULL;
	}
}

int tp_source_kind_parse(const char *name, enum tp_source_kind *out)
{
	static const enum tp_source_kind kinds[] = {
		TP_SOURCE_PATCHED, TP_SOURCE_SIM, TP_SOURCE_STOCK,
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(name, tp_source_kind_name(kinds[i]))) {
			*out = kinds[i];
			return 0;
		}
	return -EINVAL;
}

/* an open source's kind is never TP_SOURCE_AUTO */
static const char *kind_name(enum tp_source_kind kind)
{
	const char *name = tp_source_kind_name(kind);

	return name ? name : "auto";
}

int tp_source_info(const struct tp_source *src, struct tp_source_info *info, struct tp_error *err)
{
	*info = (struct tp_source_info){
		.kind = src->kind,
		.kind_name = kind_name(src->kind),
		.description = src->description,
		.abi_version = TP_NONE,
		.simulated = false,
		.clock = TP_CLOCK_REAL,
	};
	return src->ops->info ? src->ops->info(src, info, err) : 0;
}

const struct tp_plugin_set *tp_source_plugins(const struct tp_source *src)
{
	return src->plugins;
}

int tp_snapshot_take(struct tp_source *src, struct tp_snapshot *snap, struct tp_error *err)
{
	int rc = src->ops->snapshot(src, snap, err);

	if (rc == 0) {
		/* the kind's name, from the one place that names kinds */
		snprintf(snap->source, sizeof(snap->source), "%s", kind_name(src->kind));
		tp_snapshot_derive(snap);
	}
	return rc;
}

int tp_sim_advance(struct tp_source *src, uint64_t ns, struct tp_error *err)
{
	if (!src->ops->advance)
		return tp_error_set(err, -ENOTSUP, "%s is not a simulator: it has no clock to advance",
				    src->description);
	return src->ops->advance(src, ns, err);
}

int tp_thermal_read(struct tp_source *src, struct tp_thermal *out, struct tp_error *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (!src->ops->thermal)
		return tp_error_set(err, -ENOTSUP, "%s has no thermal zones to read",
				    src->description);
	rc = src->ops->thermal(src, out, err);
	if (rc < 0)
		tp_thermal_release(out);
	return rc;
}

/* The stock calls on a source without the stock operations. */
static int not_stock(const struct tp_source *src, struct tp_error *err)
{
	return tp_error_set(err, -ENOTSUP, "%s is not a stock kernel: this needs the stock-kernel source",
			    src->description);
}

int tp_stock_describe(struct tp_source *src, struct tp_stock_info *info, struct tp_error *err)
{
	memset(info, 0, sizeof(*info));
	if (!src->ops->stock_describe)
		return not_stock(src, err);
	return src->ops->stock_describe(src, info, err);
}

int tp_stock_set_cap_method(struct tp_source *src, enum tp_stock_cap_method method,
			    struct tp_error *err)
{
	if (!src->ops->stock_set_cap_method)
		return not_stock(src, err);
	return src->ops->stock_set_cap_method(src, method, err);
}

/* A stock kernel's state file records limits only: its restore, counted. */
int tp_stock_restore(struct tp_source *src, size_t *restored, struct tp_error *err)
{
	struct tp_restore_report rep = { 0 };
	int rc;

	if (restored)
		*restored = 0;
	if (!src->ops->stock_describe || !src->ops->restore)
		return not_stock(src, err);
	rc = src->ops->restore(src, &rep, err);
	if (restored)
		*restored = rep.restored;
	return rc;
}

int tp_sim_serve(struct tp_source *src, const char *mountpoint, volatile sig_atomic_t *stop,
		 struct tp_error *err)
{
	if (!src->ops->serve)
		return tp_error_set(err, -ENOTSUP, "only the built-in simulator can be served");
	return src->ops->serve(src, mountpoint, stop, err);
}
