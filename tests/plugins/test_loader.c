// SPDX-License-Identifier: MIT
/*
 * The plugin loader: the real plugin directory, one directory per kind of broken
 * plugin (built from testplugin.c into tests/plugins/cases/CASE/), an empty and
 * a missing directory.  Also checks that each real plugin exports one symbol.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <thermpress/thermpress.h>

static const char *case_dir(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", TESTPLUGIN_CASES_DIR, name);
	return path;
}

/* Load a case that must still give the good test plugin, with nwarn warnings. */
static struct tp_plugin_set *load_case(const char *name, size_t nwarn)
{
	struct tp_error err = { 0 };
	struct tp_plugin_set *set = NULL;

	assert_int_equal(tp_plugins_load(case_dir(name), &set, &err), 0);
	assert_int_equal(tp_plugins_count(set), 1);
	assert_string_equal(tp_plugins_get(set, 0)->name, "good");
	assert_int_equal(tp_plugins_warning_count(set), nwarn);
	return set;
}

/* Some warning reads "skipping plugin CASES/dir/file...why...". */
static void assert_warning(const struct tp_plugin_set *set, const char *dir, const char *file,
			   const char *why)
{
	char prefix[4200];

	snprintf(prefix, sizeof(prefix), "skipping plugin %s/%s/%s", TESTPLUGIN_CASES_DIR, dir, file);
	for (size_t i = 0; i < tp_plugins_warning_count(set); i++) {
		const char *w = tp_plugins_warning(set, i);

		if (strstr(w, prefix) == w && strstr(w, why))
			return;
	}
	for (size_t i = 0; i < tp_plugins_warning_count(set); i++)
		print_error("warning: %s\n", tp_plugins_warning(set, i));
	fail_msg("no warning \"%s...%s\"", prefix, why);
}

static void test_good_dir(void **unused)
{
	const char *names[] = { "instant", "pelt", "decay", "none" };
	struct tp_error err = { 0 };
	struct tp_plugin_set *set, *again;

	assert_int_equal(tp_plugins_load(NULL, &set, &err), 0);
	assert_int_equal(tp_plugins_count(set), 4);
	assert_int_equal(tp_plugins_warning_count(set), 0);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(tp_plugins_get(set, i)->name, names[i]);
		assert_ptr_equal(tp_plugins_find(set, names[i]), tp_plugins_get(set, i));
	}
	assert_null(tp_plugins_get(set, 4));
	assert_null(tp_plugins_find(set, "nope"));
	assert_null(tp_plugins_find(set, NULL));
	assert_null(tp_plugins_warning(set, 0));

	/* the same directory given explicitly; loading twice is fine */
	assert_int_equal(tp_plugins_load(getenv(TP_ENV_PLUGIN_DIR), &again, &err), 0);
	assert_int_equal(tp_plugins_count(again), 4);
	tp_plugins_free(again);
	tp_plugins_free(set);
	tp_plugins_free(NULL);
	assert_int_equal(tp_plugins_count(NULL), 0);
}

/* Without a directory or the environment variable: the installed directory. */
static void test_default_dir(void **unused)
{
	char *saved = strdup(getenv(TP_ENV_PLUGIN_DIR));
	struct tp_error err = { 0 };
	struct tp_plugin_set *set = NULL;
	int ret;

	unsetenv(TP_ENV_PLUGIN_DIR);
	ret = tp_plugins_load(NULL, &set, &err);
	if (ret == 0)
		tp_plugins_free(set);	/* thermpress is installed here */
	else
		assert_non_null(strstr(err.msg, TESTPLUGIN_PLUGIN_INSTALL_DIR));
	setenv(TP_ENV_PLUGIN_DIR, "", 1);	/* empty counts as unset */
	ret = tp_plugins_load(NULL, &set, &err);
	if (ret == 0)
		tp_plugins_free(set);
	else
		assert_non_null(strstr(err.msg, TESTPLUGIN_PLUGIN_INSTALL_DIR));
	setenv(TP_ENV_PLUGIN_DIR, saved, 1);
	free(saved);
}

static void test_missing_symbol(void **unused)
{
	struct tp_plugin_set *set = load_case("nosym", 1);

	assert_warning(set, "nosym", "nosym.so", ": no symbol thermpress_backend_entry");
	tp_plugins_free(set);
}

static void test_wrong_abi(void **unused)
{
	struct tp_plugin_set *set = load_case("abi", 2);

	assert_warning(set, "abi", "abi.so", "wrong abi_version");
	assert_warning(set, "abi", "nullret.so", "does not speak plugin ABI version 1");
	tp_plugins_free(set);
}

static void test_null_callback(void **unused)
{
	struct tp_plugin_set *set = load_case("nullcb", 1);

	assert_warning(set, "nullcb", "nullcb.so", "callback is NULL");
	tp_plugins_free(set);
}

static void test_bad_name(void **unused)
{
	struct tp_plugin_set *set = load_case("badname", 1);

	assert_warning(set, "badname", "badname.so", "bad name");
	tp_plugins_free(set);
}

static void test_duplicate(void **unused)
{
	struct tp_plugin_set *set = load_case("dup", 1);

	/* sorted by file name, good.so comes first and wins */
	assert_warning(set, "dup", "good2.so", "same name");
	tp_plugins_free(set);
}

static void test_bad_fields(void **unused)
{
	struct tp_plugin_set *set = load_case("misc", 3);

	assert_warning(set, "misc", "smallstruct.so", "struct_size");
	assert_warning(set, "misc", "badalign.so", "state_align");
	assert_warning(set, "misc", "badrange.so", "inconsistent decay range");
	tp_plugins_free(set);
}

static void test_not_elf(void **unused)
{
	/* README is not a candidate at all: one warning, for x.so */
	struct tp_plugin_set *set = load_case("notelf", 1);

	assert_warning(set, "notelf", "x.so", ": ");
	tp_plugins_free(set);
}

static void test_no_usable_plugin(void **unused)
{
	struct tp_error err = { 0 };
	struct tp_plugin_set *set = (void *)1;

	assert_int_equal(tp_plugins_load(case_dir("allbad"), &set, &err), -ENOENT);
	assert_null(set);
	assert_int_equal(err.code, -ENOENT);
	assert_non_null(strstr(err.msg, case_dir("allbad")));
	assert_non_null(strstr(err.msg, "no symbol"));
}

static void test_empty_dir(void **unused)
{
	char dir[] = "/tmp/thermpress-empty-XXXXXX";
	struct tp_error err = { 0 };
	struct tp_plugin_set *set;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(tp_plugins_load(dir, &set, &err), -ENOENT);
	assert_null(set);
	assert_non_null(strstr(err.msg, dir));
	rmdir(dir);
}

/*
 * The kernel's backends come first in its order, none included, then the others by name:
 * "good" sorts before "none" and "pelt" by name, yet comes after them.
 */
static void test_kernel_order_first(void **unused)
{
	static const char *const files[] = { "none", "pelt", "good" };
	static const char *const order[] = { "pelt", "none", "good" };
	char dir[] = "/tmp/thermpress-order-XXXXXX", from[4096], to[4096];
	struct tp_error err = { 0 };
	struct tp_plugin_set *set;

	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < 3; i++) {
		if (strcmp(files[i], "good"))
			snprintf(from, sizeof(from), "%s/%s.so", getenv(TP_ENV_PLUGIN_DIR), files[i]);
		else
			snprintf(from, sizeof(from), "%s/good.so", case_dir("dup"));
		snprintf(to, sizeof(to), "%s/%s.so", dir, files[i]);
		assert_int_equal(symlink(from, to), 0);
	}
	assert_int_equal(tp_plugins_load(dir, &set, &err), 0);
	assert_int_equal(tp_plugins_count(set), 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(tp_plugins_get(set, i)->name, order[i]);
	tp_plugins_free(set);
	for (size_t i = 0; i < 3; i++) {
		snprintf(to, sizeof(to), "%s/%s.so", dir, files[i]);
		unlink(to);
	}
	rmdir(dir);
}

static void test_missing_dir(void **unused)
{
	struct tp_error err = { 0 };
	struct tp_plugin_set *set;

	assert_int_equal(tp_plugins_load("/nonexistent/thermpress/plugins", &set, &err), -ENOENT);
	assert_null(set);
	assert_string_equal(err.msg, "cannot open plugin directory /nonexistent/thermpress/plugins: "
			    "No such file or directory");
	/* a file is not a directory */
	assert_int_equal(tp_plugins_load("/dev/null", &set, &err), -ENOTDIR);
	assert_non_null(strstr(err.msg, "/dev/null"));
}

/* The defined global symbols in a shared object's dynamic symbol table. */
static int exported_symbols(const char *path, char names[][64], int max)
{
	struct stat st;
	unsigned char *img;
	int fd, n = 0;

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	img = malloc(st.st_size);
	assert_non_null(img);
	assert_int_equal(read(fd, img, st.st_size), st.st_size);
	close(fd);

	const Elf64_Ehdr *eh = (const void *)img;
	assert_memory_equal(eh->e_ident, ELFMAG, SELFMAG);
	assert_int_equal(eh->e_ident[EI_CLASS], ELFCLASS64);
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		const Elf64_Sym *sym = (const void *)(img + sh[i].sh_offset);
		const char *strtab = (const char *)img + sh[sh[i].sh_link].sh_offset;
		size_t count = sh[i].sh_size / sizeof(*sym);

		for (size_t k = 0; k < count; k++) {
			int bind = ELF64_ST_BIND(sym[k].st_info);

			if (sym[k].st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK))
				continue;
			if (n < max)
				snprintf(names[n], 64, "%s", strtab + sym[k].st_name);
			n++;
		}
	}
	free(img);
	return n;
}

static void test_one_exported_symbol(void **unused)
{
	const char *plugins[] = { "instant", "pelt", "decay", "none" };

	for (size_t i = 0; i < 4; i++) {
		char path[4096], names[8][64];

		snprintf(path, sizeof(path), "%s/%s.so", getenv(TP_ENV_PLUGIN_DIR), plugins[i]);
		assert_int_equal(exported_symbols(path, names, 8), 1);
		assert_string_equal(names[0], TP_BACKEND_ENTRY_SYMBOL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_dir),
		cmocka_unit_test(test_kernel_order_first),
		cmocka_unit_test(test_default_dir),
		cmocka_unit_test(test_missing_symbol),
		cmocka_unit_test(test_wrong_abi),
		cmocka_unit_test(test_null_callback),
		cmocka_unit_test(test_bad_name),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_no_usable_plugin),
		cmocka_unit_test(test_empty_dir),
		cmocka_unit_test(test_missing_dir),
		cmocka_unit_test(test_one_exported_symbol),
	};

	if (!getenv(TP_ENV_PLUGIN_DIR)) {
		fprintf(stderr, "%s must point at the built plugins\n", TP_ENV_PLUGIN_DIR);
		return 1;
	}
	return cmocka_run_group_tests_name("plugin loader", tests, NULL, NULL);
}
