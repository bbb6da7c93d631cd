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
#include <sys/types.h>
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

static volatile sig_atomic_t got_term, got_hup, got_usr1;

static void
on_parent_signal(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else if (sig == SIGUSR1)
		got_usr1 = 1;
	else if (sig != SIGCHLD)
		got_term = 1;
}

static sigset_t unblocked;

static pid_t
spawn(unsigned k, int (*run)(unsigned))
{
	pid_t pid = fork();

	if (pid == 0) {
		(void)signal(SIGCHLD, SIG_DFL);
#if defined(__linux__)
		/* A parent killed outright: drain and go, unsupervised. */
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(0);
#endif
		sigprocmask(SIG_SETMASK, &unblocked, NULL);
		_exit(run(k));
	}
	return pid;
}

/* A signal that came (*got 1) is passed on to the workers once (2). */
static void
pass(volatile sig_atomic_t *got, const pid_t *pid, unsigned n, int sig)
{
	if (*got != 1)
		return;
	*got = 2;
	for (unsigned k = 0; k < n; k++)
		if (pid[k] > 0)
			kill(pid[k], sig);
}

int
port_run_workers(unsigned n, int (*run)(unsigned k))
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGCHLD };
	pid_t pid[64];
	time_t born[64];
	struct sigaction sa;
	sigset_t block;
	unsigned live = 0;

	if (n > 64)
		return 111;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sa.sa_handler = on_parent_signal;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	/* Signals wait while blocked; sigsuspend() lets them in, atomically. */
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	for (unsigned k = 0; k < n; k++) {
		pid[k] = spawn(k, run);
		born[k] = time(NULL);
		if (pid[k] < 0)
			return 111;
		live++;
	}
	for (;;) {
		pid_t dead;
		int st;

		pass(&got_hup, pid, n, SIGHUP);
		pass(&got_usr1, pid, n, SIGUSR1);
		pass(&got_term, pid, n, SIGTERM);
		while ((dead = waitpid(-1, &st, WNOHANG)) > 0)
			for (unsigned k = 0; k < n; k++) {
				if (pid[k] != dead)
					continue;
				pid[k] = -1;
				live--;
				if (got_term)
					break;
				/* A crash loop forks no faster than once a second. */
				if (time(NULL) == born[k])
					sleep(1);
				pid[k] = spawn(k, run);
				born[k] = time(NULL);
				if (pid[k] > 0)
					live++;
			}
		if (live == 0)
			return 0;
		sigsuspend(&unblocked);
	}
}
