/* SPDX-License-Identifier: ISC */
/*
 * file.c - files (port.h): read whole, a secret checked first, written
 * atomically and durably; and the descriptor limit.  Each failure has
 * its reason, in one static buffer where strerror() cannot say it.
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/resource.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "port.h"

/* The message of a failure that strerror() cannot say. */
static char msg[128];
/* The run user (port_run_user()), if one was named. */
static uid_t run_uid;
static gid_t run_gid;
static int run_set;

int
port_run_user(const char *user, const char *group, const char **why)
{
	struct passwd *pw = NULL;
	struct group *gr = NULL;

	run_set = 0;
	if (*user != '\0' && (pw = getpwnam(user)) == NULL) {
		*why = "no such user";
		return -1;
	}
	if (*group != '\0' && (gr = getgrnam(group)) == NULL) {
		*why = "no such group";
		return -1;
	}
	if (pw == NULL)
		return 0;
	run_uid = pw->pw_uid;
	run_gid = *group != '\0' ? gr->gr_gid : pw->pw_gid;
	run_set = 1;
	return 0;
}

size_t
port_static_bytes(void)
{
	return sizeof(msg);
}

/* Read all of fd (closed after) into buf, as port_read_file() says. */
static long
read_all(int fd, void *buf, size_t cap, const char **why)
{
	size_t have = 0;
	ssize_t n;

	for (;;) {
		if (have == cap) {
			char c;

			if (read(fd, &c, 1) == 0)
				break;
			close(fd);
			snprintf(msg, sizeof(msg), "larger than %zu bytes",
			    cap);
			*why = msg;
			return -1;
		}
		n = read(fd, (char *)buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*why = strerror(errno);
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	return (long)have;
}

long
port_read_file(const char *path, void *buf, size_t cap, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	return read_all(fd, buf, cap, why);
}

long
port_read_secret(const char *path, void *buf, size_t cap, const char **why)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	/* The file checked is the one read: by its descriptor. */
	if (fd < 0 || fstat(fd, &st) < 0) {
		*why = strerror(errno);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if ((st.st_mode & 077) != 0) {
		snprintf(msg, sizeof(msg), "mode %03o: group or others may "
		    "use it (chmod 600)", (unsigned)(st.st_mode & 0777));
		*why = msg;
	} else if (st.st_uid != 0 && st.st_uid != geteuid() &&
	    !(run_set && st.st_uid == run_uid)) {
		snprintf(msg, sizeof(msg), "owned by uid %u, neither root "
		    "nor this process's %u nor the run user's", (unsigned)st.st_uid,
		    (unsigned)geteuid());
		*why = msg;
	} else
		return read_all(fd, buf, cap, why);
	close(fd);
	return -1;
}

int
port_exists(const char *path, const char **why)
{
	struct stat st;

	if (stat(path, &st) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	*why = strerror(errno);
	return -1;
}

/* *why = "step: errno text"; returns -1. */
static int
step_failed(const char *step, const char **why)
{
	snprintf(msg, sizeof(msg), "%s: %s", step, strerror(errno));
	*why = msg;
	return -1;
}

int
port_write_file(const char *path, const void *buf, size_t len, int secret,
    const char **why)
{
	char tmp[4096], dir[4096];
	const char *slash = strrchr(path, '/');
	size_t done = 0;
	ssize_t n;
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		*why = "path too long";
		return -1;
	}
	/* Left by a crash: O_EXCL below must not follow what is there. */
	if (unlink(tmp) < 0 && errno != ENOENT)
		return step_failed("remove the old temporary file", why);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    secret ? 0600 : 0644);
	if (fd < 0)
		return step_failed("create a temporary file", why);
	/* The umask may only take bits away; make the mode exact. */
	if (fchmod(fd, secret ? 0600 : 0644) < 0)
		goto fail;
	/* Root writes for the run user: its reloads read the key again. */
	if (run_set && geteuid() == 0 && fchown(fd, run_uid, run_gid) < 0)
		goto fail;
	while (done < len) {
		n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		done += (size_t)n;
	}
	if (fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		step_failed("rename", why);
		(void)unlink(tmp);
		return -1;
	}
	/* The rename itself is durable only once the directory is. */
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 :
		    (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0) {
		step_failed("fsync the directory", why);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
fail:
	step_failed("write the temporary file", why);
	if (fd >= 0)
		close(fd);
	(void)unlink(tmp);
	return -1;
}

int
port_fd_limit(unsigned nfds, const char **why)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (rl.rlim_cur >= nfds)
		return 0;
	if (rl.rlim_max >= nfds || rl.rlim_max == RLIM_INFINITY) {
		rl.rlim_cur = nfds;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			return 0;
	}
	snprintf(msg, sizeof(msg), "RLIMIT_NOFILE is %llu, need %u "
	    "(2 per slot + pending + backend_pool + listeners + margin)",
	    (unsigned long long)rl.rlim_max, nfds);
	*why = msg;
	return -1;
}
