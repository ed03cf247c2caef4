/* SPDX-License-Identifier: MIT */
/* Helpers shared by the stock-source tests: fixture copies and small file reads. */
#ifndef THERMPRESS_TESTS_STOCK_COMMON_H
#define THERMPRESS_TESTS_STOCK_COMMON_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <thermpress/stock.h>
#include <thermpress/thermpress.h>

/* The fixtures directory, from argv[1]. */
static const char *fixtures;

/* Copy fixture name into a fresh temporary directory; returns its path (malloc). */
static inline char *copy_fixture(const char *name)
{
	char tmpl[] = "/tmp/tp-stock-XXXXXX", cmd[PATH_MAX * 2 + 64], *root;

	if (!mkdtemp(tmpl))
		return NULL;
	snprintf(cmd, sizeof(cmd), "cp -a '%s/%s/.' '%s/'", fixtures, name, tmpl);
	if (system(cmd) != 0)
		return NULL;
	root = strdup(tmpl);
	return root;
}

static inline void remove_tree(char *root)
{
	char cmd[PATH_MAX + 32];

	if (!root)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
	free(root);
}

/* A decimal file under root; LLONG_MIN when missing. */
static inline long long read_num(const char *root, const char *rel)
{
	char path[PATH_MAX];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return LLONG_MIN;
	if (fscanf(f, "%lld", &v) != 1)
		v = LLONG_MIN;
	fclose(f);
	return v;
}

static inline int exists(const char *root, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return access(path, F_OK) == 0;
}

static inline int open_stock(const char *root, enum tp_source_kind kind, struct tp_source **src,
		      struct tp_error *err)
{
	struct tp_open_options o = { .kind = kind, .root = root };

	return tp_source_open(&o, src, err);
}

static inline void cpus_of(struct tp_cpuset *set, int from, int to)
{
	tp_cpuset_zero(set);
	for (int c = from; c <= to; c++)
		tp_cpuset_add(set, c);
}

#endif
