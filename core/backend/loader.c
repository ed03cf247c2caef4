// SPDX-License-Identifier: MIT
/*
 * The backend plugin loader: every *.so of one directory, checked against the
 * plugin ABI (core/include/thermpress/backend.h) before anything calls into it.
 * A broken plugin never stops the others: it is skipped with a warning string
 * that the caller may show.  The library itself never prints.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thermpress/thermpress.h>

#ifndef TP_PLUGIN_INSTALL_DIR
#error "TP_PLUGIN_INSTALL_DIR must be defined by the build"
#endif

#define NAME_MAX_LEN 15

struct tp_plugin {
	void *handle;
	const struct tp_backend_ops *ops;
};

struct tp_plugin_set {
	struct tp_plugin plugins[TP_MAX_BACKENDS];
	size_t count;
	char **warnings;
	size_t nr_warnings;
};

/* The backends every kernel knows come first, in the kernel's order. */
static const char *const canonical_order[] = { "instant", "pelt", "decay", "none" };

static int add_warning(struct tp_plugin_set *set, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_warning(struct tp_plugin_set *set, const char *fmt, ...)
{
	char **grown;
	char *text;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	grown = realloc(set->warnings, (set->nr_warnings + 1) * sizeof(*grown));
	if (!grown) {
		free(text);
		return -ENOMEM;
	}
	set->warnings = grown;
	set->warnings[set->nr_warnings++] = text;
	return 0;
}

static bool valid_name(const char *name)
{
	size_t len;

	if (!name)
		return false;
	for (len = 0; name[len]; len++) {
		char c = name[len];

		if (len >= NAME_MAX_LEN)
			return false;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return len > 0;
}

/* NULL when ops is usable, else why not (for the warning). */
static const char *check_ops(const struct tp_backend_ops *ops)
{
	uint32_t in_force;

	if (ops->abi_version != TP_BACKEND_ABI_VERSION)
		return "wrong abi_version";
	if (ops->struct_size < sizeof(struct tp_backend_ops))
		return "struct_size smaller than the host's ops table";
	if (!ops->normalize_decay || !ops->reset || !ops->update || !ops->update_batch)
		return "a callback is NULL";
	if (!valid_name(ops->name))
		return "bad name (must be 1 to 15 of [a-z0-9_])";
	if (!ops->summary)
		return "no summary";
	if (ops->state_align == 0 || ops->state_align > 64 ||
	    (ops->state_align & (ops->state_align - 1)))
		return "state_align is not a power of two up to 64";
	if (ops->decay_min_ms == 0 && ops->decay_max_ms == 0 && ops->decay_default_ms == 0) {
		if (ops->normalize_decay(0, &in_force) != 0 || in_force != 0)
			return "no decay parameter, but normalize_decay refuses 0";
		return NULL;
	}
	if (ops->decay_min_ms == 0 || ops->decay_min_ms > ops->decay_max_ms ||
	    ops->decay_default_ms < ops->decay_min_ms ||
	    ops->decay_default_ms > ops->decay_max_ms)
		return "inconsistent decay range";
	if (ops->normalize_decay(ops->decay_default_ms, &in_force) != 0 ||
	    in_force != ops->decay_default_ms)
		return "normalize_decay does not keep the default decay period";
	return NULL;
}

size_t tp_backend_kernel_order(const char *const **names)
{
	*names = canonical_order;
	return sizeof(canonical_order) / sizeof(canonical_order[0]);
}

static int canonical_rank(const char *name)
{
	for (size_t i = 0; i < sizeof(canonical_order) / sizeof(canonical_order[0]); i++)
		if (!strcmp(name, canonical_order[i]))
			return (int)i;
	return (int)(sizeof(canonical_order) / sizeof(canonical_order[0]));
}

static int compare_plugins(const void *a, const void *b)
{
	const struct tp_plugin *pa = a, *pb = b;
	int ra = canonical_rank(pa->ops->name), rb = canonical_rank(pb->ops->name);

	if (ra != rb)
		return ra - rb;
	return strcmp(pa->ops->name, pb->ops->name);
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_plugin_file(const char *name)
{
	size_t len = strlen(name);

	/* like the shell's *.so: hidden files are not candidates */
	return name[0] != '.' && len > 3 && !strcmp(name + len - 3, ".so");
}

/* The file names of dir that look like plugins, sorted. */
static int list_dir(const char *dir, char ***names_out, size_t *count_out,
		    struct tp_error *err)
{
	char **names = NULL, **grown;
	size_t count = 0;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d)
		return tp_error_set(err, -errno, "cannot open plugin directory %s: %s", dir,
				    strerror(errno));
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				ret = tp_error_set(err, -errno, "cannot read plugin directory %s: %s",
						   dir, strerror(errno));
			break;
		}
		if (!is_plugin_file(de->d_name))
			continue;
		grown = realloc(names, (count + 1) * sizeof(*names));
		if (!grown || !(grown[count] = strdup(de->d_name))) {
			names = grown ? grown : names;
			ret = tp_error_set(err, -ENOMEM, "out of memory listing %s", dir);
			break;
		}
		names = grown;
		count++;
	}
	closedir(d);
	if (ret) {
		for (size_t i = 0; i < count; i++)
			free(names[i]);
		free(names);
		return ret;
	}
	if (count)
		qsort(names, count, sizeof(*names), compare_strings);
	*names_out = names;
	*count_out = count;
	return 0;
}

static const struct tp_plugin *find_plugin(const struct tp_plugin_set *set, const char *name)
{
	for (size_t i = 0; i < set->count; i++)
		if (!strcmp(set->plugins[i].ops->name, name))
			return &set->plugins[i];
	return NULL;
}

/* Try one file; any refusal becomes a warning, only -ENOMEM is returned. */
static int load_one(struct tp_plugin_set *set, const char *path)
{
	tp_backend_entry_fn entry;
	const struct tp_backend_ops *ops;
	const char *why, *dlmsg;
	size_t pathlen = strlen(path);
	void *handle;
	void *sym;

	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		dlmsg = dlerror();
		if (!dlmsg)
			dlmsg = "cannot load";
		/* dlerror() usually starts with the path itself: say it once */
		if (!strncmp(dlmsg, path, pathlen) && !strncmp(dlmsg + pathlen, ": ", 2))
			dlmsg += pathlen + 2;
		return add_warning(set, "skipping plugin %s: %s", path, dlmsg);
	}
	sym = dlsym(handle, TP_BACKEND_ENTRY_SYMBOL);
	if (!sym) {
		dlclose(handle);
		return add_warning(set, "skipping plugin %s: no symbol %s", path,
				   TP_BACKEND_ENTRY_SYMBOL);
	}
	/* POSIX guarantees that a dlsym() result converts to a function pointer */
	*(void **)&entry = sym;
	ops = entry(TP_BACKEND_ABI_VERSION);
	if (!ops)
		why = "it does not speak plugin ABI version 1";
	else
		why = check_ops(ops);
	if (!why && find_plugin(set, ops->name))
		why = "a plugin of the same name was loaded before";
	if (!why && set->count == TP_MAX_BACKENDS)
		why = "too many plugins";
	if (why) {
		int ret;

		if (ops && valid_name(ops->name))
			ret = add_warning(set, "skipping plugin %s (%s): %s", path, ops->name, why);
		else
			ret = add_warning(set, "skipping plugin %s: %s", path, why);
		dlclose(handle);
		return ret;
	}
	set->plugins[set->count].handle = handle;
	set->plugins[set->count].ops = ops;
	set->count++;
	return 0;
}

/* Every plugin of dir, or the error (an unreadable directory, no usable plugin). */
static int load_dir(const char *dir, struct tp_plugin_set **out, struct tp_error *err)
{
	struct tp_plugin_set *set;
	char **names = NULL;
	size_t count = 0;
	int ret;

	ret = list_dir(dir, &names, &count, err);
	if (ret)
		return ret;
	set = calloc(1, sizeof(*set));
	if (!set) {
		ret = tp_error_set(err, -ENOMEM, "out of memory loading plugins from %s", dir);
		goto out;
	}
	for (size_t i = 0; i < count; i++) {
		char *path;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			ret = -ENOMEM;
		} else {
			ret = load_one(set, path);
			free(path);
		}
		if (ret) {
			ret = tp_error_set(err, ret, "out of memory loading plugins from %s", dir);
			goto out;
		}
	}
	if (set->count == 0) {
		if (set->nr_warnings)
			ret = tp_error_set(err, -ENOENT, "no usable backend plugin in %s (%s)", dir,
					   set->warnings[0]);
		else
			ret = tp_error_set(err, -ENOENT, "no backend plugin in %s", dir);
		goto out;
	}
	qsort(set->plugins, set->count, sizeof(set->plugins[0]), compare_plugins);
	*out = set;
	set = NULL;
out:
	tp_plugins_free(set);
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return ret;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The plugins of the build tree the running program sits in, into buf; false when it
 * does not run from one.  A meson build directory holds meson-private/; the programs
 * are at most three levels below it (cmd/thermpress, tests/bench/...).  Found from
 * /proc/self/exe, not a path compiled in, so that a moved build tree still works and
 * an installed program never looks into the tree it was built in.
 */
static bool build_tree_dir(char *buf, size_t len)
{
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	for (int up = 0; up < 3 && (slash = strrchr(exe, '/')) && slash != exe; up++) {
		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/meson-private", exe);
		if (!is_dir(probe))
			continue;
		if (snprintf(buf, len, "%s/plugins", exe) >= (int)len)
			return false;
		return is_dir(buf);
	}
	return false;
}

/* Why dir gave no plugin, in a few words for a message that lists several. */
static const char *short_reason(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return strerror(errno);
	return S_ISDIR(st.st_mode) ? "no usable plugin" : "not a directory";
}

/*
 * No directory named by the caller: $THERMPRESS_PLUGIN_DIR when set (and only it),
 * else the plugins of the build tree the program runs from, else the installed
 * directory.  When none works, the message says what was tried, briefly: it has to
 * fit struct tp_error with two paths in it.
 */
static int load_default(struct tp_plugin_set **out, struct tp_error *err)
{
	const char *env = getenv(TP_ENV_PLUGIN_DIR);
	char build[PATH_MAX], tried[PATH_MAX + 64] = "";
	struct tp_error one = { 0 };
	int ret;

	if (env && *env) {
		ret = load_dir(env, out, &one);
		if (ret)
			tp_error_set(err, ret, "%s (from %s)", one.msg, TP_ENV_PLUGIN_DIR);
		return ret;
	}
	if (build_tree_dir(build, sizeof(build))) {
		if (!load_dir(build, out, &one))
			return 0;
		snprintf(tried, sizeof(tried), "%s (build tree: %s), ", build,
			 short_reason(build));
	}
	ret = load_dir(TP_PLUGIN_INSTALL_DIR, out, &one);
	if (!ret)
		return 0;
	return tp_error_set(err, ret, "no backend plugins: tried %s%s (installed: %s); set %s to their directory",
			    tried, TP_PLUGIN_INSTALL_DIR, short_reason(TP_PLUGIN_INSTALL_DIR),
			    TP_ENV_PLUGIN_DIR);
}

int tp_plugins_load(const char *dir, struct tp_plugin_set **out, struct tp_error *err)
{
	*out = NULL;
	return dir ? load_dir(dir, out, err) : load_default(out, err);
}

void tp_plugins_free(struct tp_plugin_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->count; i++)
		dlclose(set->plugins[i].handle);
	for (size_t i = 0; i < set->nr_warnings; i++)
		free(set->warnings[i]);
	free(set->warnings);
	free(set);
}

size_t tp_plugins_count(const struct tp_plugin_set *set)
{
	return set ? set->count : 0;
}

const struct tp_backend_ops *tp_plugins_get(const struct tp_plugin_set *set, size_t i)
{
	return set && i < set->count ? set->plugins[i].ops : NULL;
}

const struct tp_backend_ops *tp_plugins_find(const struct tp_plugin_set *set, const char *name)
{
	const struct tp_plugin *p;

	if (!set || !name)
		return NULL;
	p = find_plugin(set, name);
	return p ? p->ops : NULL;
}

size_t tp_plugins_warning_count(const struct tp_plugin_set *set)
{
	return set ? set->nr_warnings : 0;
}

const char *tp_plugins_warning(const struct tp_plugin_set *set, size_t i)
{
	return set && i < set->nr_warnings ? set->warnings[i] : NULL;
}
