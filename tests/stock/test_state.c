// SPDX-License-Identifier: MIT
/*
 * The state file and writes under a root, below the commands: rootfs.c (never
 * leaving the root, with openat2 and with the O_NOFOLLOW walk), state.c (parsing
 * damaged files, the round trip, a planted or shared directory, concurrent writers
 * that never lose a record) and the patched interface refusing an inject that leads
 * outside its root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <thermpress/thermpress.h>

#include "rootfs.h"
#include "state.h"

static char top[64];		/* a temporary directory: top/root is the root, top/out outside */
static char rootdir[128], outdir[128];

static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static int setup(void **state)
{
	snprintf(top, sizeof(top), "/tmp/tp-state-XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(rootdir, sizeof(rootdir), "%s/root", top);
	snprintf(outdir, sizeof(outdir), "%s/out", top);
	sh("mkdir -p %s/a/b %s && echo inside >%s/a/b/f && echo precious >%s/f", rootdir, outdir,
	   rootdir, outdir);
	sh("ln -s b/f %s/a/in && ln -s %s/f %s/a/abs && ln -s ../../out/f %s/a/up",
	   rootdir, outdir, rootdir, rootdir);
	sh("ln -s %s %s/outdir && ln -s loop2 %s/loop1 && ln -s loop1 %s/loop2", outdir, rootdir,
	   rootdir, rootdir);
	sh("ln -s %s/new %s/dangling", outdir, rootdir);
	(void)state;
	return 0;
}

static int teardown(void **state)
{
	sh("rm -rf %s", top);
	(void)state;
	return 0;
}

typedef int (*open_fn)(int, const char *, int, mode_t);

static void check_beneath(open_fn fn)
{
	int rootfd = open(rootdir, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;
	char buf[64] = "";

	assert_true(rootfd >= 0);
	/* inside: plain, through a relative link, through ".." that stays inside */
	fd = fn(rootfd, "a/b/f", O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	fd = fn(rootfd, "a/in", O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	assert_non_null(strstr(buf, "inside"));
	close(fd);
	fd = fn(rootfd, "a/b/../b/f", O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	/* outside: an absolute link, a relative one climbing out, a directory link, ".." */
	assert_int_equal(fn(rootfd, "a/abs", O_WRONLY | O_TRUNC, 0), -EXDEV);
	assert_int_equal(fn(rootfd, "a/up", O_WRONLY | O_TRUNC, 0), -EXDEV);
	assert_int_equal(fn(rootfd, "outdir/f", O_WRONLY | O_TRUNC, 0), -EXDEV);
	assert_int_equal(fn(rootfd, "../out/f", O_WRONLY | O_TRUNC, 0), -EXDEV);
	assert_int_equal(fn(rootfd, "dangling", O_WRONLY | O_CREAT, 0644), -EXDEV);
	fd = fn(rootfd, "loop1", O_RDONLY, 0);
	assert_true(fd == -ELOOP || fd == -EXDEV);
	slurp("/dev/null", buf, sizeof(buf));
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/f", outdir);
		slurp(path, buf, sizeof(buf));
		assert_string_equal(buf, "precious\n");
		snprintf(path, sizeof(path), "%s/new", outdir);
		assert_int_equal(access(path, F_OK), -1);
	}
	close(rootfd);
}

static void test_open_beneath(void **state)
{
	check_beneath(tp_open_beneath);
	(void)state;
}

/* The fallback for kernels without openat2 gives the same answers. */
static void test_open_beneath_walk(void **state)
{
	check_beneath(tp_open_beneath_walk);
	(void)state;
}

/* ---- parsing ------------------------------------------------------------------------ */

static void test_parse_damaged(void **state)
{
	static const char text[] =
		"thermpress-caps 2\n"
		"root /x\n"
		"scaling_max_freq 4 1416000 1008000\n"
		"scaling_max_freq 4 1 1\n"		/* a repeat: the first original wins */
		"cap 3 0 900000\n"
		"cap -1 0 1\n"				/* out of range */
		"backend pelt decay\n"
		"decay decay 250 125\n"
		"decay decay 1 1\n"			/* a repeat */
		"cur_state 1  2 4\n"			/* two spaces */
		"cap 2 0 90";				/* torn */
	struct tp_state_doc doc;
	struct tp_error err = { 0 };
	char lines[64];

	assert_int_equal(tp_state_parse(text, sizeof(text) - 1, "f", &doc, &err), 0);
	assert_string_equal(doc.root, "/x");
	assert_int_equal(doc.n, 4);
	assert_int_equal(doc.v[0].original, 1416000);
	assert_int_equal(doc.v[1].kind, TP_STATE_CAP);
	assert_string_equal(doc.v[2].applied_name, "decay");
	assert_int_equal(doc.v[3].applied, 125);
	tp_state_bad_lines(&doc, lines, sizeof(lines));
	assert_string_equal(lines, "lines 4, 6, 9, 10, 11");
	tp_state_doc_free(&doc);

	static const char V1[] = "thermpress-caps 1\nroot /\ncap 1 0 5\n";
	static const char NOROOT[] = "thermpress-caps 2\ncap 1 0 5\n";

	/* version 1 knows only the stock lines */
	assert_int_equal(tp_state_parse(V1, strlen(V1), "f", &doc, &err), 0);
	assert_int_equal(doc.n, 0);
	assert_int_equal(doc.nbad, 1);
	tp_state_doc_free(&doc);
	/* without a root line or the magic line the file is refused as a whole */
	assert_int_equal(tp_state_parse(NOROOT, strlen(NOROOT), "f", &doc, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "no root line"));
	assert_int_equal(tp_state_parse("garbage\n", 8, "f", &doc, &err), -EPROTO);
	assert_int_equal(tp_state_parse("", 0, "f", &doc, &err), -EPROTO);
	(void)state;
}

static void test_round_trip(void **state)
{
	struct tp_state_doc a = { 0 }, b;
	struct tp_state_entry e[] = {
		{ .kind = TP_STATE_SCALING, .id = 0, .original = 1416000, .applied = 1 },
		{ .kind = TP_STATE_COOLING, .id = 7, .original = 0, .applied = 4 },
		{ .kind = TP_STATE_CAP, .id = 4095, .original = 0, .applied = 1181000 },
		{ .kind = TP_STATE_BACKEND, .name = "pelt", .applied_name = "decay" },
		{ .kind = TP_STATE_DECAY, .name = "decay", .original = 250, .applied = 10000 },
	};
	size_t len;
	char *text;

	snprintf(a.root, sizeof(a.root), "/a root/with spaces");
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(tp_state_add(&a, &e[i]), 0);
	text = tp_state_format(&a, true, &len);
	assert_non_null(text);
	assert_int_equal(tp_state_parse(text, len, "f", &b, NULL), 0);
	assert_string_equal(b.root, a.root);
	assert_int_equal(b.n, 5);
	assert_int_equal(b.nbad, 0);
	assert_memory_equal(b.v, a.v, 5 * sizeof(a.v[0]));
	free(text);
	tp_state_doc_free(&a);
	tp_state_doc_free(&b);
	(void)state;
}

/*
 * The ledger of holds: hold lines parse, repeat only per CPU and holder, keep their
 * order (the last is the most recent), format back; a holder is alive while its pid
 * runs with the start time recorded, dead once it has ended (also unreaped) or when the
 * start time differs (a reused pid).
 */
static void test_holds(void **state)
{
	static const char text[] =
		"thermpress-caps 2\n"
		"root /x\n"
		"cap 4 0 900000\n"
		"hold 4 100 5000 500000 0\n"
		"hold 4 200 6000 900000 0\n"
		"hold 5 100 5000 500000 0\n"
		"hold 4 100 5000 1 0\n"		/* a repeat of CPU 4's holder 100 */
		"hold 4 0 5000 1 0\n"			/* pid 0: out of range */
		"hold 4 100 5000 1\n"			/* a field short */
		"hold scaling_max_freq 4 100 5000 1008000 1416000\n"	/* a stock limit's */
		"hold scaling_max_freq 4 100 5000 0 1416000\n";	/* scaling_max_freq 0 */
	struct tp_state_doc doc;
	struct tp_error err = { 0 };
	char lines[64], *out;
	int64_t pid, start;
	size_t len;
	pid_t child;
	int ws;

	assert_int_equal(tp_state_parse(text, sizeof(text) - 1, "f", &doc, &err), 0);
	assert_int_equal(doc.n, 5);
	tp_state_bad_lines(&doc, lines, sizeof(lines));
	assert_string_equal(lines, "lines 7, 8, 9, 11");
	assert_int_equal(tp_state_last_hold(&doc, TP_STATE_SCALING, 4)->before, 1416000);
	assert_int_equal(tp_state_hold_base(&doc, TP_STATE_SCALING, 4, 7), 1416000);
	assert_int_equal(tp_state_hold_base(&doc, TP_STATE_SCALING, 0, 7), 7);
	assert_int_equal(doc.v[1].kind, TP_STATE_HOLD);
	assert_int_equal(tp_state_last_hold(&doc, TP_STATE_CAP, 4)->pid, 200);
	assert_int_equal(tp_state_last_hold(&doc, TP_STATE_CAP, 5)->applied, 500000);
	assert_null(tp_state_last_hold(&doc, TP_STATE_CAP, 6));
	/* a hold is not the CPU's cap record */
	assert_int_equal(tp_state_find(&doc, TP_STATE_CAP, 4, NULL)->applied, 900000);
	assert_null(tp_state_find(&doc, TP_STATE_HOLD, 5, NULL));
	out = tp_state_format(&doc, false, &len);
	assert_non_null(out);
	assert_non_null(strstr(out, "hold 4 100 5000 500000 0\nhold 4 200 6000 900000 0\n"
				    "hold 5 100 5000 500000 0\n"
				    "hold scaling_max_freq 4 100 5000 1008000 1416000\n"));
	free(out);
	/* pids 100 and 200 with those start times are not running: all four are dead */
	assert_int_equal(tp_state_prune_holds(&doc), 4);
	assert_int_equal(doc.n, 1);
	tp_state_doc_free(&doc);

	/* this process is alive with its own start time, not with another */
	assert_int_equal(tp_state_self(&pid, &start), 0);
	assert_int_equal(pid, getpid());
	assert_true(tp_state_holder_alive(pid, start));
	assert_false(tp_state_holder_alive(pid, start + 1));
	/* a child: alive while it runs, dead once it has ended, reaped or not */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	{
		char path[64], buf[1024], *p;
		FILE *f;
		int64_t cstart = -1;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		p = strrchr(buf, ')') + 2;
		for (int field = 3; field < 22; field++)
			p = strchr(p, ' ') + 1;
		cstart = strtoll(p, NULL, 10);
		assert_true(tp_state_holder_alive(child, cstart));
		kill(child, SIGKILL);
		/* a zombie until reaped: already dead */
		for (int i = 0; i < 200 && tp_state_holder_alive(child, cstart); i++)
			usleep(10000);
		assert_false(tp_state_holder_alive(child, cstart));
		assert_int_equal(waitpid(child, &ws, 0), child);
		assert_false(tp_state_holder_alive(child, cstart));
	}
	(void)state;
}

/* ---- the directory ------------------------------------------------------------------ */

static int open_in(const char *dir, bool create, struct tp_error *err)
{
	struct tp_state st;
	int rc = tp_state_open(&st, NULL, dir, "caps.state", "/", create, err);

	if (rc == 0) {
		struct tp_state_entry e = { .kind = TP_STATE_CAP, .id = 1, .original = 0, .applied = 5 };

		tp_state_add(&st.doc, &e);
		st.dirty = true;
		rc = tp_state_save(&st, err);
	}
	tp_state_close(&st);
	return rc;
}

/* Someone else's directory, a shared one, a symlink: refused, with what to do. */
static void test_planted_directory(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	struct tp_error err = { 0 };
	char dir[256], file[300];

	if (geteuid() != 0 || !pw) {
		skip();
		return;
	}
	snprintf(dir, sizeof(dir), "%s/planted", top);
	snprintf(file, sizeof(file), "%s/caps.state", dir);
	sh("mkdir -m 700 %s && chown nobody %s", dir, dir);
	assert_int_equal(open_in(dir, true, &err), -EPERM);
	assert_non_null(strstr(err.msg, "owned by uid"));
	assert_non_null(strstr(err.msg, "THERMPRESS_STATE_DIR"));
	assert_int_equal(access(file, F_OK), -1);
	sh("chown root %s && chmod 777 %s", dir, dir);
	assert_int_equal(open_in(dir, true, &err), -EPERM);
	assert_non_null(strstr(err.msg, "writable by others"));
	sh("chmod 770 %s", dir);
	assert_int_equal(open_in(dir, true, &err), -EPERM);
	assert_non_null(strstr(err.msg, "writable by its group"));
	sh("rmdir %s && mkdir -m 700 %s/real && ln -s %s/real %s", dir, top, top, dir);
	assert_int_equal(open_in(dir, true, &err), -ELOOP);
	assert_non_null(strstr(err.msg, "symbolic link"));
	snprintf(file, sizeof(file), "%s/real/caps.state", top);
	assert_int_equal(access(file, F_OK), -1);
	/* without create, a refused directory is still an error, never "nothing recorded" */
	assert_int_equal(open_in(dir, false, &err), -ELOOP);
	sh("rm %s", dir);
	assert_int_equal(open_in(dir, true, &err), 0);	/* made 0700, ours */
	{
		struct stat sb;

		assert_int_equal(stat(dir, &sb), 0);
		assert_int_equal(sb.st_mode & 0777, 0700);
	}
	(void)state;
}

/* As a user without XDG_RUNTIME_DIR: /tmp/thermpress-UID, planted by someone else. */
static void test_planted_tmp(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	char dir[64];
	int status;
	pid_t pid;

	if (geteuid() != 0 || !pw) {
		skip();
		return;
	}
	snprintf(dir, sizeof(dir), "/tmp/thermpress-%u", (unsigned)pw->pw_uid);
	if (access(dir, F_OK) == 0) {
		skip();		/* the real one of that user: not ours to replace */
		return;
	}
	for (int round = 0; round < 2; round++) {
		if (round == 0)
			sh("mkdir -m 755 %s", dir);		/* root's, not nobody's */
		else
			sh("mkdir -m 700 %s/nobodys && chown nobody %s/nobodys && ln -s %s/nobodys %s",
			   top, top, top, dir);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			char got[256];
			struct tp_error err = { 0 };
			int rc;

			unsetenv("XDG_RUNTIME_DIR");
			unsetenv("THERMPRESS_STATE_DIR");
			if (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
				_exit(10);
			tp_state_default_dir(got, sizeof(got));
			if (strcmp(got, dir))
				_exit(11);
			rc = open_in(got, true, &err);
			if (rc != (round == 0 ? -EPERM : -ELOOP)) {
				fprintf(stderr, "round %d: %d %s\n", round, rc, err.msg);
				_exit(12);
			}
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		sh("rm -rf %s", dir);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	(void)state;
}

/* A relative XDG_RUNTIME_DIR is ignored (the XDG spec), never taken from the cwd. */
static void test_relative_xdg(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	int status;
	pid_t pid;

	if (geteuid() != 0 || !pw) {
		skip();
		return;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char got[256], want[64];

		setenv("XDG_RUNTIME_DIR", "run/user", 1);
		unsetenv("THERMPRESS_STATE_DIR");
		if (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
			_exit(10);
		tp_state_default_dir(got, sizeof(got));
		snprintf(want, sizeof(want), "/tmp/thermpress-%u", (unsigned)pw->pw_uid);
		if (strcmp(got, want)) {
			fprintf(stderr, "relative XDG_RUNTIME_DIR gave %s\n", got);
			_exit(11);
		}
		setenv("XDG_RUNTIME_DIR", "/run/user/x", 1);
		tp_state_default_dir(got, sizeof(got));
		_exit(strcmp(got, "/run/user/x/thermpress") ? 12 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	(void)state;
}

/* Writers in parallel, each adding its own records: none is lost across the renames. */
static void test_concurrent_writers(void **state)
{
	enum { WRITERS = 4, EACH = 40 };
	char dir[256];
	pid_t pids[WRITERS];
	struct tp_state st;

	snprintf(dir, sizeof(dir), "%s/shared", top);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			for (int i = 0; i < EACH; i++) {
				struct tp_state_entry e = { .kind = TP_STATE_CAP, .id = w * EACH + i,
							    .original = 0, .applied = 1 + i };

				if (tp_state_open(&st, NULL, dir, "caps.state", "/", true, NULL) != 0)
					_exit(1);
				tp_state_add(&st.doc, &e);
				st.dirty = true;
				if (tp_state_save(&st, NULL) != 0)
					_exit(2);
				tp_state_close(&st);
			}
			_exit(0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int status;

		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(tp_state_open(&st, NULL, dir, "caps.state", "/", false, NULL), 0);
	assert_int_equal(st.doc.n, WRITERS * EACH);
	tp_state_close(&st);
	(void)state;
}

/* ---- the patched interface ------------------------------------------------------------ */

static void test_patched_inject_outside(void **state)
{
	struct tp_open_options opts = { .kind = TP_SOURCE_PATCHED, .root = rootdir };
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };
	struct tp_cpuset set;
	struct tp_cap_value v = { TP_CAP_KHZ, 1000000 };
	char abi[256], buf[64];

	snprintf(abi, sizeof(abi), "%s/sys/kernel/debug/sched/thermal_pressure", rootdir);
	sh("mkdir -p %s && cd %s && echo 1 >version && echo 'instant [pelt] decay' >backend && "
	   "echo 32 >decay_ms && echo 250 >hz", abi, abi);
	sh("printf 'version 1\\ntime_ns 1\\nbackend pelt\\ndecay_ms 32\\nhz 250\\nnr_cpus 1\\n"
	   "cpu online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure capacity\\n"
	   "0 1 0 1024 2000000 2000000 0 0 1024\\n' >%s/stats", abi);
	sh("echo untouched >%s/inject && ln -s %s/inject %s/inject", outdir, outdir, abi);
	sh("echo 32 >%s/decay_out && rm %s/decay_ms && ln -s ../../../../../../out/decay_out %s/decay_ms",
	   outdir, abi, abi);
	assert_int_equal(tp_source_open(&opts, &src, &err), 0);
	tp_cpuset_zero(&set);
	tp_cpuset_add(&set, 0);
	assert_int_equal(tp_cap_set(src, &set, &v, &err), -EXDEV);
	assert_non_null(strstr(err.msg, "outside the root"));
	snprintf(abi, sizeof(abi), "%s/inject", outdir);
	slurp(abi, buf, sizeof(buf));
	assert_string_equal(buf, "untouched\n");
	assert_int_equal(tp_decay_set(src, 64, &err), -EXDEV);
	snprintf(abi, sizeof(abi), "%s/decay_out", outdir);
	slurp(abi, buf, sizeof(buf));
	assert_string_equal(buf, "32\n");
	tp_source_close(src);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_beneath),
		cmocka_unit_test(test_open_beneath_walk),
		cmocka_unit_test(test_parse_damaged),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_holds),
		cmocka_unit_test(test_planted_directory),
		cmocka_unit_test(test_planted_tmp),
		cmocka_unit_test(test_relative_xdg),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_patched_inject_outside),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
