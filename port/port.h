/* SPDX-License-Identifier: ISC */
/*
 * port.h - everything tlsgate needs from the platform, and nothing more.
 *
 * src/ is portable C11 that knows BearSSL and this interface only.  An
 * implementation (port/posix/ for Linux and the BSDs) provides sockets,
 * poll, time, entropy, files, signals, privileges and the log sink.
 *
 * Rules for implementations: never allocate after start-up; every socket
 * returned is non-blocking and close-on-exec; no call blocks except
 * port_poll() (and the start-up helpers, before the loop runs).
 */
#ifndef TLSGATE_PORT_H
#define TLSGATE_PORT_H

#include <stddef.h>
#include <stdint.h>

/* A socket address, opaque to src/ (IPv4, IPv6 or a Unix path). */
struct port_addr {
	uint8_t		raw[112];
	uint32_t	len;
};

/* Result codes of the I/O calls. */
#define PORT_AGAIN	(-1)	/* would block */
#define PORT_ERR	(-2)	/* failed: the connection is dead */

/*
 * Parse "host:port", "[v6]:port" (numeric only: no resolver, which
 * would allocate and block), or "unix:/path".  Returns 0, or -1 with
 * *why set.
 */
int	port_addr_parse(struct port_addr *, const char *, size_t, const char **why);
/* Format as "ip:port" / "[ip]:port" into buf (NUL-terminated). */
void	port_addr_str(const struct port_addr *, char *buf, size_t cap);
/* The bare IP (no port, no brackets) and the port number. */
void	port_addr_ip(const struct port_addr *, char *buf, size_t cap);
unsigned port_addr_port(const struct port_addr *);
/* The IP address as 4 or 16 bytes in network order: 4, 16, 0 (unix:). */
size_t	port_addr_raw(const struct port_addr *, uint8_t out[16]);
/* Same IP address (ports ignored)? */
int	port_addr_same_ip(const struct port_addr *, const struct port_addr *);
/* An IPv4 (iplen 4) or IPv6 (16) address in network order and a port. */
void	port_addr_make(struct port_addr *, const uint8_t *ip, size_t iplen,
	    unsigned port);

/*
 * Listen on addr; with shared, as one of several sockets on the same
 * address (SO_REUSEPORT: the kernel spreads connections over them).
 * Returns the fd, or -1 with *why set (errno text).
 */
int	port_listen(const struct port_addr *, int backlog, int shared,
	    const char **why);
/*
 * Accept one client.  Returns the fd, PORT_AGAIN when none is waiting,
 * or PORT_ERR (*emfile set to 1 when out of descriptors, so the caller
 * can back off instead of spinning).  *local receives the address the
 * client connected to, unless local is NULL (port_local() then).
 */
int	port_accept(int lfd, struct port_addr *peer, struct port_addr *local,
	    int *emfile);
/* The address a client connected to (as port_accept()'s *local). */
void	port_local(int fd, struct port_addr *local);
/*
 * Start a non-blocking connect.  Returns the fd (connection may still
 * be in progress) or PORT_ERR with *why set.
 */
int	port_connect(const struct port_addr *, const char **why);
/* After POLLOUT on a connecting fd: 0 if connected, else errno text. */
const char *port_connect_result(int fd);

/* Read/write: bytes moved (read: 0 = EOF), PORT_AGAIN or PORT_ERR. */
long	port_read(int fd, void *, size_t);
/* As port_read(), but what it returns stays to be read. */
long	port_peek(int fd, void *, size_t);
/*
 * Readable for poll() only once n bytes wait (or at EOF, or an error):
 * a peeked partial message does not wake the loop again and again.
 * Back to 1 before the bytes are read for real.
 */
void	port_rcvlowat(int fd, unsigned n);
/*
 * Let fd queue at least n bytes unread (SO_RCVBUF; never shrinks it).
 * The kernel opens its receive window as its application reads, so a
 * message that is only peeked at stops at the first window.  On Linux
 * this also ends the buffer's autotuning for the connection.
 */
void	port_rcvbuf(int fd, unsigned n);
long	port_write(int fd, const void *, size_t);
void	port_shutdown_wr(int fd);
/* Close; with abort, send RST (no lingering in TIME_WAIT for dead peers). */
void	port_close(int fd, int abort);

/* poll(): same layout as struct pollfd, checked by the implementation. */
struct port_pfd {
	int	fd;
	short	events;
	short	revents;
};
#define PORT_IN		0x001
#define PORT_OUT	0x004
#define PORT_ERRS	0x038	/* POLLERR | POLLHUP | POLLNVAL */
int	port_poll(struct port_pfd *, size_t n, int timeout_ms);

/* A monotonic clock in milliseconds, and in microseconds. */
uint64_t port_now_ms(void);
uint64_t port_now_us(void);
/* Wall-clock seconds since 1970-01-01 UTC (certificate dates). */
int64_t	port_time(void);
/*
 * Fill buf from the OS CSPRNG.  Returns 0, or -1 if entropy is missing.
 * Blocks until the kernel's pool is ready, and logs that it waits.
 */
int	port_entropy(void *buf, size_t len);
/* A numeric IPv4 or IPv6 address (no port) into out; returns 4, 16 or 0. */
size_t	port_ip_parse(const char *s, size_t len, uint8_t out[16]);
/* The host name into buf (NUL-terminated); 0, or -1. */
int	port_hostname(char *buf, size_t cap);

/*
 * Read a whole file into buf.  Returns the length, or -1 with *why set
 * (including "larger than N bytes").
 */
long	port_read_file(const char *path, void *buf, size_t cap, const char **why);
/*
 * port_read_file() for a secret: the file must be a regular file that
 * only its owner may read or write (no group or other permission bits)
 * and owned by root, this process's user or the run user
 * (port_run_user()); else -1 with *why.
 */
long	port_read_secret(const char *path, void *buf, size_t cap,
	    const char **why);
/*
 * The user (and group: "" for the user's) tlsgate runs as once it drops
 * privileges ("": the one it started as): the files port_write_file()
 * makes as root become theirs, so that a reload after the drop reads
 * them, and their secrets are accepted.  Start-up only, before any
 * chroot.  0, or -1 with *why set.
 */
int	port_run_user(const char *user, const char *group, const char **why);
/* Does path exist?  1, 0, or -1 with *why set (it cannot be told). */
int	port_exists(const char *path, const char **why);
/*
 * Replace the file at path with len bytes of buf, atomically: a
 * temporary file in the same directory, fsync, rename over path, fsync
 * of the directory, so that a crash leaves the old file or the new one.
 * Mode 0600 if secret, else 0644; the run user's.  Start-up only.  0, or -1 with *why
 * set (the step that failed and why).
 */
int	port_write_file(const char *path, const void *buf, size_t len,
	    int secret, const char **why);
/* Static bytes the port layer keeps (a message buffer), for tlsgate -t. */
size_t	port_static_bytes(void);

/* Signals: handlers only set flags; port_signals() returns and clears them. */
#define PORT_SIG_TERM	1
#define PORT_SIG_HUP	2
#define PORT_SIG_USR1	4
void	port_signals_init(void);
unsigned port_signals(void);

/*
 * Write one complete log line (the caller adds no newline nor the
 * program's name): to stderr, or to syslog once port_syslog_open()
 * succeeded.  level: 0 error, 1 warning, 2 info, 3 debug.  Never
 * blocks: a line that the sink cannot take at once (a full syslog
 * socket and then stderr, a pipe or terminal whose reader has stopped)
 * is dropped.  Returns 0, or -1 if the line was dropped.
 */
int	port_log_write(int level, const char *line, size_t len);
/*
 * Send log lines to the syslog socket at path (a datagram socket, e.g.
 * /dev/log) with this facility code (LOG_DAEMON is 3).  Connects now,
 * before any chroot.  Returns 0, or -1 with *why set.
 */
int	port_syslog_open(const char *path, int facility, const char **why);

/*
 * Start-up checks and limits: make sure nfds descriptors can be open.
 * Returns 0, or -1 with *why set.
 */
int	port_fd_limit(unsigned nfds, const char **why);

/*
 * After binding and loading keys: chroot to dir (if not empty), then
 * drop to user and group (if not empty): setgroups, setgid, setuid, and
 * verify that root cannot be regained.  Returns 0, or -1 with *why set.
 */
int	port_drop_privileges(const char *user, const char *group,
	    const char *dir, const char **why);
/*
 * Confine the process to the system calls the loop makes (Linux
 * seccomp; anything else kills the process).  Returns 0, or -1 with
 * *why set (also where the platform has no such filter).
 */
int	port_sandbox(const char **why);
/*
 * NULL where port_sandbox() has a filter for this CPU; else why not,
 * naming the CPU ("no system-call filter for mips").
 */
const char *port_sandbox_missing(void);

/*
 * Memory shared by the processes forked after this call (workers), or
 * NULL with *why set.  Start-up only.
 */
void	*port_shared(size_t len, const char **why);
/*
 * A lock usable across those processes, in PORT_LOCK_SIZE bytes of
 * caller memory aligned as a pointer (e.g. from port_shared()).
 * port_lock() returns 1 when the previous holder died holding it: what it
 * guarded may be half-updated and must be rebuilt; else 0.
 */
#define PORT_LOCK_SIZE	64
int	port_lock_init(void *);
int	port_lock(void *);
void	port_unlock(void *);

/*
 * Run n workers: fork each as run(k), k = 0..n-1, and keep them
 * running: a worker that dies is forked again (at most once a second);
 * SIGHUP and SIGUSR1 are passed on; SIGTERM/SIGINT are passed on and
 * waited for.  Returns when every worker is gone after a SIGTERM: 0,
 * or 111 if workers cannot be forked.
 */
int	port_run_workers(unsigned n, int (*run)(unsigned k));

#endif
