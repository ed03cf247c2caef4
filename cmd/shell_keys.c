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
 *   TAB: when libcli answers with the bell alone (several candidates, nothing in
 *      common to insert), a second TAB is sent for it, so that one TAB lists them
 *      (libcli lists on a double TAB), as `?` does.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shell.h"

#define KEY_CTRL(c) ((c) & 0x1f)

static struct {
	int tty, peer;		/* the terminal; the end of the pair libcli does not have */
	pthread_t thread;
	bool started;
	bool drop_to_newline;	/* after a ^C: libcli's echo up to its redraw's "\r\n" */
	bool drop_newline;	/* after a ^L: the "\r\n" libcli's redraw starts with */
	bool last_was_eot;	/* the last key was ^D */
	bool tab_sent;		/* the last key passed on was a TAB: list instead of a bell */
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
static void from_libcli(char *buf, size_t len)
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

/* Keys from the terminal to libcli, acting on ^C, ^L and ^D. */
static void from_terminal(const char *buf, size_t len)
{
	char out[4096];
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		keys.last_was_eot = c == KEY_CTRL('D');
		if (c == KEY_CTRL('C') && command_running) {
			kill(getpid(), SIGINT);
			continue;
		}
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

int shell_keys_start(int tty)
{
	int sv[2];
	sigset_t all, old;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	keys.tty = tty;
	keys.peer = sv[1];
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
