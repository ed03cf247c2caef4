// SPDX-License-Identifier: MIT
/*
 * The shell's history file (thermpress/history.h): the grammar (a damaged file is refused
 * as a whole, naming its line), the bounded list, format -> parse, and the file in its
 * directory: saved and loaded back, nothing made by a load, and a file or directory that
 * is not to be trusted refused.
 */
#include <errno.h>
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

#include <thermpress/history.h>

static int parse(const char *text, struct tp_history *h, struct tp_error *err)
{
	return tp_history_parse(text, strlen(text), "H", h, err);
}

static void refused(const char *text, const char *msg)
{
	struct tp_error err = { 0 };
	struct tp_history h;

	assert_int_equal(parse(text, &h, &err), -EPROTO);
	assert_int_equal(h.n, 0);
	assert_null(h.v);
	if (!strstr(err.msg, msg))
		fail_msg("'%s' does not say '%s'", err.msg, msg);
}

static void test_grammar(void **state)
{
	struct tp_error err = { 0 };
	struct tp_history h;

	(void)state;
	assert_int_equal(parse("thermpress-history 1\ncap set big 50%\n show \n", &h, &err), 0);
	assert_int_equal(h.n, 2);
	assert_string_equal(h.v[0], "cap set big 50%");
	assert_string_equal(h.v[1], " show ");
	tp_history_free(&h);
	assert_int_equal(parse("thermpress-history 1\n", &h, &err), 0);
	assert_int_equal(h.n, 0);
	refused("", "is empty");
	refused("thermpress-history 2\nshow\n", "line 1 of H: not the first line");
	refused("thermpress-history 1\nshow\n\nshow\n", "line 3 of H: an empty line");
	refused("thermpress-history 1\nshow\tcpu\n", "line 2 of H: a control character");
	refused("thermpress-history 1\nshow\x7f\n", "line 2 of H: a control character");
	refused("thermpress-history 1\nshow", "line 2 of H: the last line has no newline");
	refused("thermpress-history 1\r\nshow\n", "line 1 of H");
}

static void test_limits(void **state)
{
	struct tp_error err = { 0 };
	struct tp_history h = { 0 };
	char line[TP_HISTORY_LINE_MAX + 2], *text;
	size_t len;

	(void)state;
	for (int i = 0; i < TP_HISTORY_MAX_ENTRIES + 10; i++) {
		snprintf(line, sizeof(line), "show cpu %d", i);
		assert_int_equal(tp_history_add(&h, line), 0);
	}
	assert_int_equal(tp_history_add(&h, "bad\x01"), 0);	/* left out */
	assert_int_equal(tp_history_add(&h, ""), 0);
	assert_int_equal(h.n, TP_HISTORY_MAX_ENTRIES);
	assert_string_equal(h.v[0], "show cpu 10");	/* the oldest went first */
	text = tp_history_format(&h, &len);
	assert_non_null(text);
	tp_history_free(&h);
	assert_int_equal(tp_history_parse(text, len, "H", &h, &err), 0);
	assert_int_equal(h.n, TP_HISTORY_MAX_ENTRIES);
	assert_string_equal(h.v[TP_HISTORY_MAX_ENTRIES - 1], "show cpu 265");
	tp_history_free(&h);
	/* one line more than is kept: damaged */
	text = realloc(text, len + 16);
	assert_non_null(text);
	memcpy(text + len, "show cpu 0\n", 12);
	assert_int_equal(tp_history_parse(text, len + 11, "H", &h, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "line 258 of H: more than 256 command lines"));
	free(text);
	/* the longest line is kept, one byte more is not */
	memset(line, 'x', TP_HISTORY_LINE_MAX + 1);
	line[TP_HISTORY_LINE_MAX + 1] = '\0';
	assert_false(tp_history_line_valid(line));
	line[TP_HISTORY_LINE_MAX] = '\0';
	assert_true(tp_history_line_valid(line));
}

/* A private directory for the files of one test. */
static char *scratch(void)
{
	char *d = strdup("/tmp/tp-history-XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static void cleanup(const char *top)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "chmod -R u+w %s; rm -rf %s", top, top);
	assert_int_equal(system(cmd), 0);
}

static void test_save_load(void **state)
{
	struct tp_error err = { 0 };
	struct tp_history h = { 0 }, back;
	char *top = scratch(), dir[256], file[300];
	struct stat st;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/state/thermpress", top);
	snprintf(file, sizeof(file), "%s/shell_history", dir);
	/* nothing yet: empty, and a load makes nothing */
	assert_int_equal(tp_history_load(dir, &back, &err), 0);
	assert_int_equal(back.n, 0);
	assert_int_equal(stat(dir, &st), -1);
	assert_int_equal(tp_history_add(&h, "cap set big 50%"), 0);
	assert_int_equal(tp_history_add(&h, "show"), 0);
	assert_int_equal(tp_history_save(dir, &h, &err), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(tp_history_load(dir, &back, &err), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.v[1], "show");
	tp_history_free(&back);
	tp_history_free(&h);
	cleanup(top);
	free(top);
}

static void test_untrusted(void **state)
{
	struct tp_error err = { 0 };
	struct tp_history h = { 0 }, back;
	char *top = scratch(), dir[256], file[300], link[300], other[300];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/thermpress", top);
	snprintf(file, sizeof(file), "%s/shell_history", dir);
	assert_int_equal(tp_history_add(&h, "show"), 0);
	assert_int_equal(tp_history_save(dir, &h, &err), 0);
	/* a directory its group can write: refused, for reading and writing */
	assert_int_equal(chmod(dir, 0770), 0);
	assert_int_equal(tp_history_load(dir, &back, &err), -EPERM);
	assert_non_null(strstr(err.msg, "writable by its group"));
	assert_int_equal(tp_history_save(dir, &h, &err), -EPERM);
	/* a parent others can write (not sticky): refused too */
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(chmod(top, 0777), 0);
	assert_int_equal(tp_history_load(dir, &back, &err), -EPERM);
	assert_non_null(strstr(err.msg, "writable by others"));
	assert_int_equal(chmod(top, 0700), 0);
	/* the user's own link to the directory is followed */
	snprintf(link, sizeof(link), "%s/link", top);
	assert_int_equal(symlink("thermpress", link), 0);
	assert_int_equal(tp_history_load(link, &back, &err), 0);
	assert_int_equal(back.n, 1);
	tp_history_free(&back);
	/* the file a symbolic link: refused, its target untouched */
	snprintf(other, sizeof(other), "%s/other", top);
	assert_int_equal(rename(file, other), 0);
	assert_int_equal(symlink(other, file), 0);
	assert_int_equal(tp_history_load(dir, &back, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "is a symbolic link"));
	/* a relative path is no directory */
	assert_int_equal(tp_history_load("rel/thermpress", &back, &err), -EINVAL);
	tp_history_free(&h);
	cleanup(top);
	free(top);
}

static void test_dir(void **state)
{
	char buf[512];
	struct tp_error err = { 0 };

	(void)state;
	setenv("XDG_STATE_HOME", "/x/state", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(tp_history_dir(buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "/x/state/thermpress");
	setenv("XDG_STATE_HOME", "relative", 1);	/* ignored, as the XDG spec says */
	assert_int_equal(tp_history_dir(buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "/home/u/.local/state/thermpress");
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	assert_int_equal(tp_history_dir(buf, sizeof(buf), &err), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_untrusted),
		cmocka_unit_test(test_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
