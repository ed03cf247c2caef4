/* SPDX-License-Identifier: MIT */
/*
 * Small fixture trees for unit tests: a file under a root, with the directories above
 * it made as needed, and its removal.  Shared by the stock tests that build a kernel's
 * files by hand (test_stock_parse.c, test_kernels.c).
 */
#ifndef THERMPRESS_TESTS_FIXTURE_TREE_H
#define THERMPRESS_TESTS_FIXTURE_TREE_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* root/rel holds text afterwards: 0, or -1 when it cannot be written. */
static inline int fixture_put(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
		return -1;
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	rc = fputs(text, f) < 0 ? -1 : 0;
	return fclose(f) == 0 ? rc : -1;
}

/* root/rel is gone afterwards (it may not have been there). */
static inline void fixture_drop(const char *root, const char *rel)
{
	char path[512];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) < sizeof(path))
		unlink(path);
}

#endif
