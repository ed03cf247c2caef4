/* SPDX-License-Identifier: MIT */
/*
 * The keys libcli leaves undone: its cli_loop (1.10.7) rings the bell on ^C, ends
 * without a newline on ^D and redraws the line on ^L, and it reads and writes one fd.
 * It is given one end of a socket pair; a thread passes the bytes between the other
 * end and the terminal (still in raw mode) and acts on these keys, as a Cisco prompt
 * or bash does:
 *
 *   ^C while a line is typed: "^C", and the line is dropped for a fresh prompt: libcli
 *      is sent ^E ^U ^L (end of line, kill the line, redraw) and what it writes back
 *      up to the redraw's newline is not shown;
 *   ^C while a command runs: SIGINT to the process, which stops the command (its
 *      handler; commands that change caps put them back);
 *   ^L: the screen is cleared, then libcli redraws the line (its newline not shown);
 *   ^D: passed on; when it ends the session, a newline is printed after it;
 *   TAB: libcli completes only command words, and keeps the line to itself.  The line
 *      is asked for: libcli is sent ^L ^C, and its redraw up to the bell ^C rings is
 *      the prompt and the line (kept off the terminal; the keys typed meanwhile wait).
 *      After a command's words, shell_complete() gives what to insert, typed to libcli
 *      as keys (the unique candidate, or what the candidates have in common), or the
 *      candidates, listed here under the line.  Elsewhere the TAB goes to libcli: when
 *      it answers with the bell alone (several candidates, nothing in common to
 *      insert), a second TAB is sent for it, so that one TAB lists them (libcli lists
 *      on a double TAB), as `?` does.  The hint of the argument that comes next
 *      ("VALUE: 1800MHz, 2.36GHz, cap=600, 60%") is listed over the candidates.
 *   ?: asked for the line the same way; after a command's words, the argument that
 *      comes next and its examples are shown here (shell_help()), where libcli shows
 *      nothing past the first argument; elsewhere the '?' goes to libcli.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "shell_parts.h"

#define KEY_CTRL(c) ((c) & 0x1f)
#define PROMPT SHELL_HOSTNAME SHELL_PROMPTCHAR

static struct {
	int tty, peer;		/* the terminal; the end of the pair libcli does not have */
	pthread_t thread;
	bool started;
	bool drop_to_newline;	/* after a ^C: libcli's echo up to its redraw's "\r\n" */
	bool drop_newline;	/* after a ^L: the "\r\n" libcli's redraw starts with */
	bool last_was_eot;	/* the last key was ^D */
	bool tab_sent;		/* the last key passed on was a TAB: list instead of a bell */
	struct cmd_ctx *ctx;
	bool probing;		/* libcli was sent ^L ^C for its line: its output is held */
	bool tab_answer;	/* ... after a TAB of its own: what it did with it */
	char probe_key;		/* the key that asked: TAB or '?' */
	char probe[8192];
	size_t probe_len;
	char held[4096];	/* the keys typed while probing */
	size_t held_len;
} keys = { .tty = -1, .peer = -1 };

static volatile sig_atomic_t command_running;

void shell_keys_command(bool running)
{
	command_running = running;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* libcli's output to the terminal, less what a key asked not to show. */
static void to_terminal(char *buf, size_t len)
{
	/* libcli's answer to a TAB ends its output until the next key */
	if (keys.tab_sent && len && buf[len - 1] == '\a') {
		keys.tab_sent = false;
		len--;
		write_all(keys.peer, "\t", 1);
	}
	if (keys.drop_to_newline) {
		char *nl = memmem(buf, len, "\r\n", 2);
		if (!nl)
			return;
		len -= (size_t)(nl - buf);
		buf = nl;
		keys.drop_to_newline = false;
	} else if (keys.drop_newline) {
		if (len >= 2 && !memcmp(buf, "\r\n", 2))
			buf += 2, len -= 2;
		keys.drop_newline = false;
	}
	write_all(keys.tty, buf, len);
}

/* Ask libcli for its line: the redraw of ^L, ended by the bell of ^C. */
static void start_probe(void)
{
	keys.probing = true;
	keys.probe_len = 0;
	write_all(keys.peer, "\x0c\x03", 2);
}

/* The hint ("VALUE: 1800MHz, ...") and the candidates under the line, in columns, then
 * the prompt and the line again. */
static void list_candidates(const struct cmd_cands *list, const char *hint, const char *line)
{
	struct winsize ws;
	size_t width = 0, cols;

	if (hint[0]) {
		write_all(keys.tty, "\r\n  ", 4);
		write_all(keys.tty, hint, strlen(hint));
	}

	for (size_t i = 0; i < list->n; i++)
		if (strlen(list->v[i]) > width)
			width = strlen(list->v[i]);
	width += 2;
	cols = ioctl(keys.tty, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
	cols = cols / width ? cols / width : 1;
	for (size_t i = 0; i < list->n; i++) {
		char cell[512];
		bool last = (i + 1) % cols == 0 || i + 1 == list->n;
		int n = snprintf(cell, sizeof(cell), "%s%-*s", i % cols ? "" : "\r\n",
				 last ? 0 : (int)width, list->v[i]);
		write_all(keys.tty, cell, n < (int)sizeof(cell) ? (size_t)n : sizeof(cell) - 1);
	}
	/* as libcli ends its own list */
	write_all(keys.tty, "\r\n\r\n" PROMPT, strlen("\r\n\r\n" PROMPT));
	write_all(keys.tty, line, strlen(line));
}

/* TAB with the line libcli has (the cursor at its end). */
static void complete_line(const char *line)
{
	struct cmd_cands list = { 0 };
	char insert[512], hint[512];

	if (shell_complete(keys.ctx, line, insert, sizeof(insert), &list, hint, sizeof(hint)) < 0) {
		/* libcli's own completion, the keys held until it is done with it */
		keys.tab_sent = true;
		write_all(keys.peer, "\t", 1);
		start_probe();
		keys.tab_answer = true;
	} else if (insert[0]) {
		write_all(keys.peer, insert, strlen(insert));	/* libcli echoes it */
	} else if (list.n || hint[0]) {
		list_candidates(&list, hint, line);
	}
	cands_free(&list);
}

/* `?` with the line libcli has (the cursor at its end): the argument that comes next,
 * or libcli's own help. */
static void help_for_line(const char *line)
{
	char text[4096];

	if (shell_help(keys.ctx, line, text, sizeof(text)) < 0) {
		write_all(keys.peer, "?", 1);
		return;
	}
	/* as libcli ends its own help */
	write_all(keys.tty, "\r\n", 2);
	write_all(keys.tty, text, strlen(text));
	write_all(keys.tty, "\r\n" PROMPT, strlen("\r\n" PROMPT));
	write_all(keys.tty, line, strlen(line));
}

static void from_terminal(const char *buf, size_t len);

/* The probe's answer is in: complete, then pass on the keys held meanwhile. */
static void end_probe(void)
{
	char *line = keys.probe + strlen("\r\n" PROMPT), held[sizeof(keys.held)];
	size_t n = keys.held_len;

	keys.probing = false;
	keys.probe[keys.probe_len - 1] = '\0';	/* the bell */
	/* libcli completes nothing unless the cursor is at the end (no "\b" after the line) */
	if (keys.tab_answer)	/* libcli's answer to its TAB came before this one */
		keys.tab_answer = keys.tab_sent = false;
	else if (keys.probe_key == '?' && !strchr(line, '\b'))
		help_for_line(line);
	else if (keys.probe_key == '?')
		write_all(keys.peer, "?", 1);	/* within the line: libcli's */
	else if (!strchr(line, '\b'))
		complete_line(line);
	if (keys.probing)
		return;	/* libcli's TAB: the keys wait for its answer */
	memcpy(held, keys.held, n);
	keys.held_len = 0;
	from_terminal(held, n);
}

static void from_libcli(char *buf, size_t len);

/*
 * libcli's output while probing.  The answer is the last line, "\r\n" PROMPT LINE and
 * the bell (a line holds no "\r\n"): what comes before its line break is the output of
 * earlier keys (or of a command entered just before the TAB), shown at once.
 */
static void probe_output(char *buf, size_t len)
{
	size_t plen = strlen("\r\n" PROMPT);
	char *p = keys.probe;

	while (len && keys.probing) {
		size_t room = sizeof(keys.probe) - 1 - keys.probe_len;
		size_t n = len < room ? len : room;
		char *last = NULL, *bell = memchr(buf, '\a', n);

		/* up to a bell: libcli may have written more after the answer's (its answer
		 * to a second TAB sent for a bell of its own) */
		if (bell)
			n = (size_t)(bell - buf) + 1;

		memcpy(p + keys.probe_len, buf, n);
		keys.probe_len += n;
		buf += n;
		len -= n;
		for (char *q = p; (q = memmem(q, keys.probe_len - (size_t)(q - p), "\r\n", 2)); q += 2)
			last = q;
		if (!last && keys.probe_len == sizeof(keys.probe) - 1)
			last = p + keys.probe_len;	/* a full buffer without one: not the answer */
		if (last && last > p) {
			to_terminal(p, (size_t)(last - p));
			keys.probe_len -= (size_t)(last - p);
			memmove(p, last, keys.probe_len);
		}
		if (keys.probe_len > plen && !memcmp(p, "\r\n" PROMPT, plen) &&
		    p[keys.probe_len - 1] == '\a')
			end_probe();
	}
	if (len)	/* after the answer: the echo of the keys passed on since */
		from_libcli(buf, len);
}

static void from_libcli(char *buf, size_t len)
{
	if (keys.probing)
		probe_output(buf, len);
	else
		to_terminal(buf, len);
}

/* Keys from the terminal to libcli, acting on ^C, ^L, ^D and TAB. */
static void from_terminal(const char *buf, size_t len)
{
	char out[4096];
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (c == KEY_CTRL('C') && command_running) {
			kill(getpid(), SIGINT);
			continue;
		}
		if (keys.probing) {
			if (keys.held_len < sizeof(keys.held))
				keys.held[keys.held_len++] = c;
			continue;
		}
		keys.last_was_eot = c == KEY_CTRL('D');
		if ((c == '\t' || c == '?') && !command_running) {
			write_all(keys.peer, out, n);
			n = 0;
			keys.probe_key = c;
			start_probe();
			continue;
		}
		if (c == KEY_CTRL('G'))
			continue;	/* a bell in the line would end a probe's answer early */
		if (n + 3 > sizeof(out)) {
			write_all(keys.peer, out, n);
			n = 0;
		}
		if (c == KEY_CTRL('C')) {
			write_all(keys.peer, out, n);
			n = 0;
			write_all(keys.tty, "^C", 2);
			keys.drop_to_newline = true;
			out[n++] = KEY_CTRL('E');
			out[n++] = KEY_CTRL('U');
			out[n++] = KEY_CTRL('L');
		} else if (c == KEY_CTRL('L')) {
			write_all(keys.tty, "\033[H\033[2J", 7);
			keys.drop_newline = true;
			out[n++] = c;
		} else {
			out[n++] = c;
		}
	}
	keys.tab_sent = n && out[n - 1] == '\t';
	write_all(keys.peer, out, n);
}

static void *pass_bytes(void *arg)
{
	struct pollfd fds[2] = {
		{ .fd = keys.peer, .events = POLLIN },
		{ .fd = keys.tty, .events = POLLIN },
	};
	char buf[4096];

	(void)arg;
	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[0].revents) {
			ssize_t n = read(keys.peer, buf, sizeof(buf));
			if (n <= 0)
				break;	/* cli_loop has ended and closed its end */
			from_libcli(buf, (size_t)n);
		}
		if (fds[1].revents) {
			ssize_t n = read(keys.tty, buf, sizeof(buf));
			if (n <= 0) {
				/* the terminal has gone: cli_loop sees the end of its input */
				shutdown(keys.peer, SHUT_WR);
				fds[1].fd = -1;
				continue;
			}
			from_terminal(buf, (size_t)n);
		}
	}
	return NULL;
}

int shell_keys_start(int tty, struct cmd_ctx *ctx)
{
	int sv[2];
	sigset_t all, old;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	keys.tty = tty;
	keys.peer = sv[1];
	keys.ctx = ctx;
	/* the thread takes no signal: SIGINT reaches the command in the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	keys.started = pthread_create(&keys.thread, NULL, pass_bytes, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!keys.started) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	return sv[0];
}

void shell_keys_stop(void)
{
	if (!keys.started)
		return;
	pthread_join(keys.thread, NULL);	/* everything libcli wrote is on the terminal */
	if (keys.last_was_eot)
		write_all(keys.tty, "\r\n", 2);
	close(keys.peer);
	keys.peer = -1;
	keys.started = false;
}
