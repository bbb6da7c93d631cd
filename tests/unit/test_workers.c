/* SPDX-License-Identifier: ISC */
/*
 * test_workers.c - the cross-process lock of port/posix/workers.c: a
 * worker killed while holding it must not wedge the others.
 */
#define _DEFAULT_SOURCE
#include <sys/wait.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "port.h"

static int passed, failed;

static void
check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

static void
test_lock_taken_and_released_in_one_process(void *m)
{
	check(port_lock(m) == 0, "lock_taken_and_released_in_one_process");
	port_unlock(m);
}

static void
test_holder_killed_does_not_wedge_the_others(void *m)
{
	int *shared = (int *)((char *)m + PORT_LOCK_SIZE);
	pid_t pid;
	int st;

	*shared = 0;
	pid = fork();
	if (pid == 0) {
		(void)port_lock(m);
		*shared = 1;
		pause();	/* dies holding the lock */
		_exit(0);
	}
	while (*shared == 0)
		usleep(1000);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	check(port_lock(m) == 1, "holder_killed_reports_owner_died");
	port_unlock(m);
	check(port_lock(m) == 0, "lock_usable_again_after_owner_died");
	port_unlock(m);
}

static void
test_lock_excludes_another_process(void *m)
{
	int *shared = (int *)((char *)m + PORT_LOCK_SIZE);
	pid_t pid;
	int st;

	*shared = 0;
	(void)port_lock(m);
	pid = fork();
	if (pid == 0) {
		(void)port_lock(m);
		/* Only after the parent let go. */
		_exit(*shared == 2 ? 0 : 1);
	}
	usleep(50000);
	*shared = 2;
	port_unlock(m);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "lock_excludes_another_process");
}

int
main(void)
{
	const char *why;
	void *m = port_shared(4096, &why);

	if (m == NULL || port_lock_init(m) < 0) {
		printf("0 passed, 1 failed\n");
		return 1;
	}
	test_lock_taken_and_released_in_one_process(m);
	test_lock_excludes_another_process(m);
	test_holder_killed_does_not_wedge_the_others(m);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
