/* SPDX-License-Identifier: ISC */
/*
 * privs.c - privilege drop and the system-call filter (port.h).
 *
 * Called once, after the listener is bound, the keys are loaded and
 * every TLS context is seeded: from then on tlsgate needs no file, no
 * new privilege and only the handful of system calls listed below.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/utsname.h>
#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "port.h"

int
port_drop_privileges(const char *user, const char *group, const char *dir,
    const char **why)
{
	struct passwd *pw = NULL;
	struct group *gr = NULL;
	gid_t gid;

	/* Look the names up before chroot: the files are outside it. */
	if (*user != '\0' && (pw = getpwnam(user)) == NULL) {
		*why = "no such user";
		return -1;
	}
	if (*group != '\0' && (gr = getgrnam(group)) == NULL) {
		*why = "no such group";
		return -1;
	}
	if (*dir != '\0' && (chroot(dir) < 0 || chdir("/") < 0)) {
		*why = strerror(errno);
		return -1;
	}
	if (pw == NULL && gr == NULL)
		return 0;
	gid = gr != NULL ? gr->gr_gid : pw != NULL ? pw->pw_gid : getgid();
	if (setgroups(1, &gid) < 0 || setgid(gid) < 0 ||
	    (pw != NULL && setuid(pw->pw_uid) < 0)) {
		*why = strerror(errno);
		return -1;
	}
	if (pw != NULL && pw->pw_uid != 0 && (setuid(0) == 0 ||
	    geteuid() == 0)) {
		*why = "root privileges could be regained";
		return -1;
	}
	if (getegid() != gid) {
		*why = "group did not change";
		return -1;
	}
	return 0;
}

/* A sanitizer's own system calls are not the loop's: no filter there. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED	1
#endif
#endif

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__) || \
    defined(__arm__)) && !defined(SANITIZED)

#if defined(__x86_64__)
#define ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH	AUDIT_ARCH_AARCH64
#else
#define ARCH	AUDIT_ARCH_ARM
#endif

/*
 * What the loop calls once it serves.  No mmap, no brk; open only to
 * read (a reload reads the config and certificates again).
 */
static const int allowed[] = {
	SYS_read, SYS_write, SYS_sendto, SYS_recvfrom, SYS_accept4,
	SYS_socket, SYS_connect, SYS_getsockopt, SYS_setsockopt,
	SYS_getsockname, SYS_shutdown, SYS_close, SYS_clock_gettime,
	SYS_rt_sigreturn, SYS_restart_syscall, SYS_exit, SYS_exit_group,
#if defined(SYS_poll)
	SYS_poll,
#endif
	SYS_ppoll,
#if defined(SYS_clock_gettime64)
	SYS_clock_gettime64,
#endif
#if defined(SYS_ppoll_time64)
	SYS_ppoll_time64,
#endif
#if defined(SYS_send)
	SYS_send,
#endif
	/* A reload checks each key file's mode and owner: fstat(), which
	 * C libraries make one of these, */
#if defined(SYS_fstat)
	SYS_fstat,
#endif
#if defined(SYS_fstat64)
	SYS_fstat64,
#endif
#if defined(SYS_newfstatat)
	SYS_newfstatat,
#endif
#if defined(SYS_fstatat64)
	SYS_fstatat64,
#endif
#if defined(SYS_statx)
	SYS_statx,
#endif
	SYS_geteuid,		/* ... and whose it may be */
#if defined(SYS_geteuid32)
	SYS_geteuid32,
#endif
	SYS_futex,		/* the shared session cache's lock */
#if defined(SYS_set_robust_list)
	SYS_set_robust_list,	/* musl registers it at the first robust lock */
#endif
#if defined(SYS_sigreturn)
	SYS_sigreturn,		/* 32-bit ARM returns from handlers so */
#endif
};
#define NALLOWED	(sizeof(allowed) / sizeof(allowed[0]))

/*
 * Allow system call nr when its argument arg, masked, equals value;
 * leaves the accumulator holding that argument.
 */
static size_t
allow_arg(struct sock_filter *f, size_t n, int nr, unsigned arg,
    unsigned mask, unsigned value)
{
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    (unsigned)nr, 0, 4);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, args) + arg * sizeof(uint64_t));
	f[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, mask);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value,
	    0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	return n;
}

int
port_sandbox(const char **why)
{
	struct sock_filter f[4 + 2 * NALLOWED + 6 + 6 + 12 + 1];
	struct sock_fprog prog;
	size_t n = 0;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH,
	    1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < NALLOWED; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (unsigned)allowed[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		    SECCOMP_RET_ALLOW);
	}
	/* openat(dirfd, path, flags): read-only, no create, no truncate. */
	n = allow_arg(f, n, SYS_openat, 2, O_ACCMODE | O_CREAT | O_TRUNC |
	    O_APPEND, 0);
	/* open(path, flags), the same rule: musl's open() calls it where the
	 * kernel has it. */
#if defined(SYS_open)
	n = allow_arg(f, n, SYS_open, 1, O_ACCMODE | O_CREAT | O_TRUNC |
	    O_APPEND, 0);
#endif
	/* fcntl(fd, F_SETFD): musl's open() sets O_CLOEXEC again so. */
	n = allow_arg(f, n, SYS_fcntl, 1, ~0u, F_SETFD);
#if defined(SYS_fcntl64)
	n = allow_arg(f, n, SYS_fcntl64, 1, ~0u, F_SETFD);
#endif
	/* x32 and every other number fall through to here. */
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_KILL_PROCESS);
	prog.len = (unsigned short)n;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		*why = strerror(errno);
		return -1;
	}
	return 0;
}

const char *
port_sandbox_missing(void)
{
	return NULL;
}

#else

const char *
port_sandbox_missing(void)
{
	static char why[96];
	struct utsname u;

#if defined(SANITIZED)
	(void)u;
	snprintf(why, sizeof(why), "no system-call filter in a sanitizer "
	    "build");
#else
	/* The CPU the kernel reports: qemu-user's too. */
	snprintf(why, sizeof(why), "no system-call filter for %s",
	    uname(&u) == 0 ? u.machine : "this CPU");
#endif
	return why;
}

int
port_sandbox(const char **why)
{
	*why = port_sandbox_missing();
	return -1;
}

#endif
