/* SPDX-License-Identifier: MIT */
/* Helpers shared by the stock-source tests: fixture copies and small file reads. */
#ifndef THERMPRESS_TESTS_STOCK_COMMON_H
#define THERMPRESS_TESTS_STOCK_COMMON_H

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/*
 * In a child process: open the stock source on root, cap CPUs 0..last to khz through
 * scaling_max_freq, then CPUs 4-5 through their cooling device; _exit(2), (3) or (4)
 * when a step fails.  The source, left open.
 */
static inline struct tp_source *child_cap_both_ways(const char *root, int last, uint64_t khz)
{
	struct tp_source *src;
	struct tp_cpuset set;
	struct tp_cap_value v = { TP_CAP_KHZ, khz };

	if (open_stock(root, TP_SOURCE_STOCK, &src, NULL) != 0)
		_exit(2);
	cpus_of(&set, 0, last);
	if (tp_cap_set(src, &set, &v, NULL) != 0)
		_exit(3);
	tp_stock_set_cap_method(src, TP_STOCK_CAP_COOLING_DEVICE, NULL);
	cpus_of(&set, 4, 5);
	if (tp_cap_set(src, &set, &v, NULL) != 0)
		_exit(4);
	return src;
}

/*
 * Run as user pw (root only) with its own private state directory tree/userstate (a
 * shared one would be refused before the write): open the stock source on root, take
 * a snapshot (reading works as a user), and cap CPUs 0-3 to khz, which must fail with
 * -EACCES and a message holding each of msg1 and msg2.  The exit status of that child:
 * 0 when all went so, else the step that did not (10 to 14).
 */
static inline int cap_refused_as_user(const struct passwd *pw, const char *tree, const char *root,
				      uint64_t khz, const char *msg1, const char *msg2,
				      int (*also_check)(struct tp_source *src))
{
	char dir[PATH_MAX], cmd[3 * PATH_MAX + 128];
	int status;
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "chmod -R a+rX '%s' && mkdir -m 700 '%s/userstate' && chown %u '%s/userstate'",
		 tree, tree, (unsigned)pw->pw_uid, tree);
	if (system(cmd) != 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/userstate", tree);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct tp_source *src;
		struct tp_cpuset set;
		struct tp_cap_value v = { TP_CAP_KHZ, khz };
		struct tp_error err = { 0 };
		struct tp_snapshot snap = TP_SNAPSHOT_INIT;

		setenv("THERMPRESS_STATE_DIR", dir, 1);
		if (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
			_exit(10);
		if (open_stock(root, TP_SOURCE_STOCK, &src, &err) != 0)
			_exit(11);
		if (tp_snapshot_take(src, &snap, &err) != 0)
			_exit(12);
		tp_snapshot_release(&snap);
		if (also_check && also_check(src) != 0)
			_exit(15);
		cpus_of(&set, 0, 3);
		if (tp_cap_set(src, &set, &v, &err) != -EACCES)
			_exit(13);
		if (!strstr(err.msg, msg1) || !strstr(err.msg, msg2)) {
			fprintf(stderr, "message: %s\n", err.msg);
			_exit(14);
		}
		tp_source_close(src);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif
