/* SPDX-License-Identifier: ISC */
/*
 * forbidden.c - an LD_PRELOAD shim that injects faults into a running
 * tlsgate, for the hardening tests (tests/integration/test_privileges.py,
 * test_faults.py).  It is never part of tlsgate.
 *
 * TLSGATE_FORBIDDEN=N  on the Nth call of poll(), make one system call
 *                      that the seccomp filter does not allow (getppid),
 *                      announced on stderr before and after, so a test
 *                      can tell "killed by the filter" from "never ran".
 * TLSGATE_LEAK=1       lose one heap block at start-up, so that a test
 *                      can check that a memory checker's verdict reaches
 *                      the test harness.
 * TLSGATE_SLOW_POLL=MS before a poll that would wait forever, sleep MS
 *                      first: the scheduler may always stop a process
 *                      between its last look at a signal flag and poll(),
 *                      and this makes that moment long enough to hit.
 *
 * poll() and ppoll() are both wrapped, so the tests keep their meaning
 * whichever tlsgate uses.  Owns nothing of tlsgate's; never changes what
 * they return.  The real functions are looked up at load time: dlsym
 * may allocate, which the loop must not do once it serves.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef int (*poll_fn)(struct pollfd *, nfds_t, int);
typedef int (*ppoll_fn)(struct pollfd *, nfds_t, const struct timespec *,
    const sigset_t *);

static poll_fn real_poll;
static ppoll_fn real_ppoll;
static long trigger, slow_ms;
static long calls;
static void *volatile lost;

static void
say(const char *msg, size_t len)
{
	/* Nothing to do if stderr is gone: the test then sees no marker. */
	if (write(2, msg, len) < 0)
		return;
}

__attribute__((constructor)) static void
shim_init(void)
{
	const char *v;

	/* POSIX's way to store dlsym's object pointer as a function. */
	*(void **)&real_poll = dlsym(RTLD_NEXT, "poll");
	*(void **)&real_ppoll = dlsym(RTLD_NEXT, "ppoll");
	if ((v = getenv("TLSGATE_FORBIDDEN")) != NULL)
		trigger = strtol(v, NULL, 10);
	if ((v = getenv("TLSGATE_SLOW_POLL")) != NULL)
		slow_ms = strtol(v, NULL, 10);
	if ((v = getenv("TLSGATE_LEAK")) != NULL && strcmp(v, "1") == 0) {
		lost = malloc(64);
		lost = NULL;
	}
}

/* Runs before each wrapped call; forever: the call has no timeout. */
static void
before_poll(int forever)
{
	static const char before[] = "forbidden: calling getppid\n";
	static const char after[] = "forbidden: getppid returned\n";
	struct timespec end, now, left;

	if (trigger > 0 && ++calls == trigger) {
		say(before, sizeof(before) - 1);
		(void)syscall(SYS_getppid);
		say(after, sizeof(after) - 1);
	}
	if (!forever || slow_ms <= 0)
		return;
	/* The whole delay, even if a signal cuts a sleep short. */
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += slow_ms / 1000;
	end.tv_nsec += slow_ms % 1000 * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (int i = 0; i < 1000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0 || nanosleep(&left, NULL) == 0)
			return;
	}
}

int
poll(struct pollfd *fds, nfds_t n, int timeout)
{
	before_poll(timeout < 0);
	return real_poll(fds, n, timeout);
}

int
ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
    const sigset_t *mask)
{
	before_poll(ts == NULL);
	return real_ppoll(fds, n, ts, mask);
}
