// SPDX-License-Identifier: MIT
/* Ending on a signal without leaving a change behind (signals.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "signals.h"

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
#define NR_STOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

volatile sig_atomic_t exp_stop;
static struct sigaction old_actions[NR_STOP];
static bool installed;

/* the output watcher */
static pthread_t watcher;
static bool watching;
static int wake_pipe[2] = { -1, -1 };

static void on_stop_signal(int sig)
{
	if (!exp_stop)
		exp_stop = sig;
}

void exp_signals_block_here(void)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NR_STOP; i++)
		sigaddset(&set, stop_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* Standard output's reader went away (POLLERR on a pipe, POLLHUP on a socket): SIGPIPE. */
static void *watch_output(void *arg)
{
	struct pollfd fds[2] = {
		{ .fd = STDOUT_FILENO, .events = 0 },
		{ .fd = wake_pipe[0], .events = POLLIN },
	};

	(void)arg;
	for (;;) {
		int n = poll(fds, 2, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || fds[1].revents)
			return NULL;
		if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			kill(getpid(), SIGPIPE);	/* reaches the main thread's handler */
			return NULL;
		}
	}
}

static void start_watcher(void)
{
	struct stat sb;
	sigset_t all, old;

	if (fstat(STDOUT_FILENO, &sb) < 0 || !(S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)))
		return;
	if (pipe2(wake_pipe, O_CLOEXEC) < 0)
		return;
	/* the thread starts with every stop signal blocked: they go to the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	watching = pthread_create(&watcher, NULL, watch_output, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!watching) {
		close(wake_pipe[0]);
		close(wake_pipe[1]);
		wake_pipe[0] = wake_pipe[1] = -1;
	}
}

static void stop_watcher(void)
{
	if (!watching)
		return;
	(void)!write(wake_pipe[1], "", 1);
	pthread_join(watcher, NULL);
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	wake_pipe[0] = wake_pipe[1] = -1;
	watching = false;
}

void exp_signals_install(void)
{
	struct sigaction sa = { 0 };

	/* exp_stop is not cleared: a stop that came first (^C in the shell while the
	 * command was starting) still counts; cmd_run_entry() clears it */
	sa.sa_handler = on_stop_signal;	/* no SA_RESTART: sleeps and waits end early */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NR_STOP; i++)
		sigaction(stop_signals[i], &sa, &old_actions[i]);
	installed = true;
	start_watcher();
}

void exp_signals_restore(void)
{
	if (!installed)
		return;
	stop_watcher();
	for (size_t i = 0; i < NR_STOP; i++)
		sigaction(stop_signals[i], &old_actions[i], NULL);
	installed = false;
}

void exp_signals_finish(void)
{
	int sig = exp_stop;
	sigset_t set;

	if (!sig)
		return;
	if (sig != SIGPIPE) {
		fflush(stdout);
		fflush(stderr);
	}
	if (sig == SIGQUIT) {
		struct rlimit none = { 0, 0 };

		setrlimit(RLIMIT_CORE, &none);	/* the caps are back: nothing to debug */
	}
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);	/* not reached */
}
