/* SPDX-License-Identifier: ISC */
/*
 * workers.c - several worker processes on one machine (port.h): shared
 * memory, a lock that survives a holder's death, and the parent that
 * keeps the workers running.
 *
 * The parent does nothing but this: it holds the listening sockets (so
 * a restarted worker finds its connections still queued), forks, reaps,
 * and passes signals on.  It never touches a client.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/wait.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "port.h"

void *
port_shared(size_t len, const char **why)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		*why = strerror(errno);
		return NULL;
	}
	return p;
}

_Static_assert(sizeof(pthread_mutex_t) <= PORT_LOCK_SIZE, "PORT_LOCK_SIZE");

int
port_lock_init(void *m)
{
	pthread_mutexattr_t a;
	int rc;

	if (pthread_mutexattr_init(&a) != 0)
		return -1;
	rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) != 0 ||
	    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) != 0 ||
	    pthread_mutex_init(m, &a) != 0 ? -1 : 0;
	pthread_mutexattr_destroy(&a);
	return rc;
}

int
port_lock(void *m)
{
	if (pthread_mutex_lock(m) == EOWNERDEAD) {
		pthread_mutex_consistent(m);
		return 1;
	}
	return 0;
}

void
port_unlock(void *m)
{
	pthread_mutex_unlock(m);
}

static pid_t pid[64];
static time_t born[64];

/* Fork worker k; 1 if it runs. */
static int
spawn(unsigned k, int (*run)(unsigned))
{
	born[k] = time(NULL);
	pid[k] = fork();
	if (pid[k] == 0) {
#if defined(__linux__)
		/* A parent killed outright: drain and go, unsupervised. */
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(0);
#endif
		_exit(run(k));
	}
	return pid[k] > 0;
}

/* A signal that came is passed on to the workers, once each time. */
static void
pass(unsigned got, unsigned n, int sig)
{
	for (unsigned k = 0; got != 0 && k < n; k++)
		if (pid[k] > 0)
			kill(pid[k], sig);
}

/*
 * The workers inherit port_signals_init()'s blocked signals: one sent
 * to a worker before its loop runs waits for the loop.
 */
int
port_run_workers(unsigned n, int (*run)(unsigned k))
{
	unsigned live = 0, got, term = 0;

	if (n > 64)
		return 111;
	port_signals_init();
	for (unsigned k = 0; k < n; k++, live++)
		if (!spawn(k, run))
			return 111;
	for (;;) {
		pid_t dead;

		got = port_signals();
		term |= got & PORT_SIG_TERM;
		pass(got & PORT_SIG_HUP, n, SIGHUP);
		pass(got & PORT_SIG_USR1, n, SIGUSR1);
		pass(got & PORT_SIG_TERM, n, SIGTERM);
		while ((dead = waitpid(-1, NULL, WNOHANG)) > 0)
			for (unsigned k = 0; k < n; k++) {
				if (pid[k] != dead)
					continue;
				pid[k] = -1;
				live--;
				if (term)
					break;
				/* A crash loop forks no faster than once a second. */
				if (time(NULL) == born[k])
					sleep(1);
				live += (unsigned)spawn(k, run);
			}
		if (live == 0)
			return 0;
		/* A SIGCHLD, too, ends this wait. */
		(void)port_poll(NULL, 0, -1);
	}
}
