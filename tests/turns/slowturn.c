/* SPDX-License-Identifier: ISC */
/*
 * slowturn.c - LD_PRELOAD shim for tests/integration/test_turns.py: the
 * first accept4() that returns a client then waits $SLOWTURN_MS, so the
 * loop's turn that accepts it is that much longer.  tlsgate itself has
 * no way to make a turn sleep; a test stalls one from outside.
 *
 * accept4 is looked up at load, before tlsgate's seccomp filter; the
 * wait is a poll() with no descriptors, a call the filter lets through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>

typedef int accept4_fn(int, struct sockaddr *, socklen_t *, int);

static accept4_fn *real_accept4;
static int wait_ms;

__attribute__((constructor)) static void
init(void)
{
	const char *ms = getenv("SLOWTURN_MS");

	real_accept4 = (accept4_fn *)dlsym(RTLD_NEXT, "accept4");
	wait_ms = ms != NULL ? atoi(ms) : 0;
}

int
accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	int c = real_accept4(fd, sa, len, flags);

	if (c >= 0 && wait_ms > 0) {
		(void)poll(NULL, 0, wait_ms);
		wait_ms = 0;
	}
	return c;
}
