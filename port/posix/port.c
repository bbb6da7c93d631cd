/* SPDX-License-Identifier: ISC */
/*
 * port/posix/port.c - the port.h interface on Linux and the BSDs.
 *
 * Sockets, poll, time, entropy, signals and the log sink.  Never
 * allocates: addresses are numeric (inet_pton, no resolver), logs go out
 * with one write(2) per line.
 */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

#include "port.h"

_Static_assert(sizeof(struct port_pfd) == sizeof(struct pollfd), "pfd size");
_Static_assert(offsetof(struct port_pfd, revents) ==
    offsetof(struct pollfd, revents), "pfd layout");
_Static_assert(PORT_IN == POLLIN && PORT_OUT == POLLOUT, "poll bits");
_Static_assert(PORT_ERRS == (POLLERR | POLLHUP | POLLNVAL), "poll bits");
_Static_assert(sizeof(((struct port_addr *)0)->raw) >=
    sizeof(struct sockaddr_un), "addr size");

int
port_addr_parse(struct port_addr *a, const char *s, size_t len,
    const char **why)
{
	const char *colon = NULL, *host = s, *d;
	size_t hlen, iplen;
	unsigned long port = 0;
	uint8_t ip[16];

	memset(a, 0, sizeof(*a));
	if (len > 5 && memcmp(s, "unix:", 5) == 0) {
		struct sockaddr_un *un = (struct sockaddr_un *)(void *)a->raw;

		if (s[5] != '/' || len - 5 >= sizeof(un->sun_path) ||
		    memchr(s, '\0', len) != NULL) {
			*why = "expected unix:/absolute/path (shorter than 108)";
			return -1;
		}
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path, s + 5, len - 5);
		a->len = (uint32_t)(offsetof(struct sockaddr_un, sun_path) +
		    len - 5 + 1);
		return 0;
	}
	for (size_t i = len; i > 0 && colon == NULL; i--)
		if (s[i - 1] == ':')
			colon = s + i - 1;
	if (colon == NULL) {
		*why = "expected host:port";
		return -1;
	}
	hlen = (size_t)(colon - s);
	if (hlen >= 2 && s[0] == '[' && s[hlen - 1] == ']') {
		host++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= 64) {
		*why = "bad host";
		return -1;
	}
	/* 1 to 7 digits (leading zeros too), at most 65535. */
	for (d = colon + 1; d < s + len && *d >= '0' && *d <= '9' &&
	    port <= 65535; d++)
		port = port * 10 + (unsigned long)(*d - '0');
	if (d == colon + 1 || d != s + len || d - colon > 8 || port > 65535) {
		*why = "bad port";
		return -1;
	}
	if ((iplen = port_ip_parse(host, hlen, ip)) == 0) {
		*why = "not a numeric IPv4 or IPv6 address";
		return -1;
	}
	port_addr_make(a, ip, iplen, (unsigned)port);
	return 0;
}

static int
family(const struct port_addr *a)
{
	return ((const struct sockaddr *)(const void *)a->raw)->sa_family;
}

size_t
port_addr_raw(const struct port_addr *a, uint8_t out[16])
{
	const struct sockaddr_in *v4 = (const void *)a->raw;
	const struct sockaddr_in6 *v6 = (const void *)a->raw;

	if (family(a) == AF_INET6) {
		memcpy(out, &v6->sin6_addr, 16);
		return 16;
	}
	if (family(a) != AF_INET)
		return 0;
	memcpy(out, &v4->sin_addr, 4);
	return 4;
}

void
port_addr_make(struct port_addr *a, const uint8_t *ip, size_t iplen,
    unsigned port)
{
	struct sockaddr_in *v4 = (void *)a->raw;
	struct sockaddr_in6 *v6 = (void *)a->raw;

	memset(a, 0, sizeof(*a));
	if (iplen == 16) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		memcpy(&v6->sin6_addr, ip, 16);
		a->len = sizeof(*v6);
	} else {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		memcpy(&v4->sin_addr, ip, 4);
		a->len = sizeof(*v4);
	}
}

int
port_addr_same_ip(const struct port_addr *a, const struct port_addr *b)
{
	uint8_t x[16], y[16];
	size_t n = port_addr_raw(a, x);

	return n == port_addr_raw(b, y) && memcmp(x, y, n) == 0;
}

unsigned
port_addr_port(const struct port_addr *a)
{
	const struct sockaddr_in *v4 = (const void *)a->raw;
	const struct sockaddr_in6 *v6 = (const void *)a->raw;

	return family(a) == AF_INET6 ? ntohs(v6->sin6_port) : ntohs(v4->sin_port);
}

void
port_addr_ip(const struct port_addr *a, char *buf, size_t cap)
{
	uint8_t ip[16];
	size_t n = port_addr_raw(a, ip);

	if (n == 0 || inet_ntop(n == 16 ? AF_INET6 : AF_INET, ip, buf,
	    (socklen_t)cap) == NULL)
		snprintf(buf, cap, "unknown");
}

void
port_addr_str(const struct port_addr *a, char *buf, size_t cap)
{
	char ip[INET6_ADDRSTRLEN];

	if (family(a) == AF_UNIX) {
		snprintf(buf, cap, "unix:%s", ((const struct sockaddr_un *)
		    (const void *)a->raw)->sun_path);
		return;
	}
	port_addr_ip(a, ip, sizeof(ip));
	snprintf(buf, cap, family(a) == AF_INET6 ? "[%s]:%u" : "%s:%u", ip,
	    port_addr_port(a));
}

/* A non-blocking, close-on-exec stream socket for a, or -1 with *why. */
static int
stream_socket(const struct port_addr *a, const char **why)
{
	int fd = socket(family(a), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);

	if (fd < 0)
		*why = strerror(errno);
	return fd;
}

static void
set_nodelay(int fd)
{
	int one = 1;

	/*
	 * tlsgate writes whole TLS records; Nagle would hold back the
	 * last record of a handshake flight or a response for an ACK.
	 */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int
port_listen(const struct port_addr *a, int backlog, int shared,
    const char **why)
{
	int fd, one = 1;

	if ((fd = stream_socket(a, why)) < 0)
		return -1;
	if (family(a) == AF_UNIX) {
		struct stat st;
		const char *path = ((const struct sockaddr_un *)(const void *)
		    a->raw)->sun_path;

		/* A socket left by an earlier run; never any other file. */
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			(void)unlink(path);
	} else
		/* A restart binds while the old sockets sit in TIME_WAIT. */
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof(one));
	/*
	 * Workers each bind their own socket to the address and the kernel
	 * spreads connections over them, rather than all of them waking on
	 * one socket for each connection (the thundering herd).
	 */
#if defined(SO_REUSEPORT)
	if (shared && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one,
	    sizeof(one)) < 0) {
		*why = strerror(errno);
		close(fd);
		return -1;
	}
#else
	(void)shared;	/* one socket; every worker accepts from it */
#endif
	/*
	 * [::] means IPv6 only, whatever the system's default: with v4
	 * mapped in, a service listening on both 0.0.0.0 and [::] would
	 * find the second bind in use on one system and not on another.
	 */
	if (family(a) == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
		    sizeof(one));
	if (bind(fd, (const struct sockaddr *)(const void *)a->raw,
	    (socklen_t)a->len) < 0 || listen(fd, backlog) < 0) {
		*why = strerror(errno);
		close(fd);
		return -1;
	}
	return fd;
}

int
port_accept(int lfd, struct port_addr *peer, struct port_addr *local,
    int *emfile)
{
	socklen_t sl = sizeof(peer->raw);
	int fd;

	*emfile = 0;
	fd = accept4(lfd, (struct sockaddr *)(void *)peer->raw, &sl,
	    SOCK_NONBLOCK | SOCK_CLOEXEC);
	/*
	 * A client that reset before we took it (ECONNABORTED) is no error
	 * of ours; running out of descriptors or memory is, and the loop
	 * stops accepting for a while instead of spinning on it.
	 */
	if (fd < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		    errno == ECONNABORTED)
			return PORT_AGAIN;
		*emfile = (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM);
		return PORT_ERR;
	}
	peer->len = sl;
	if (family(peer) == AF_UNIX)
		return fd;	/* the stats socket: no address to keep */
	if (local != NULL)
		port_local(fd, local);
	set_nodelay(fd);
	return fd;
}

void
port_local(int fd, struct port_addr *local)
{
	socklen_t sl = sizeof(local->raw);

	if (getsockname(fd, (struct sockaddr *)(void *)local->raw, &sl) == 0)
		local->len = sl;
	else
		memset(local, 0, sizeof(*local));
}

int
port_connect(const struct port_addr *a, const char **why)
{
	int fd;

	if ((fd = stream_socket(a, why)) < 0)
		return PORT_ERR;
	if (family(a) != AF_UNIX)
		set_nodelay(fd);
	/* Non-blocking: EINPROGRESS, then POLLOUT and port_connect_result. */
	if (connect(fd, (const struct sockaddr *)(const void *)a->raw,
	    (socklen_t)a->len) < 0 && errno != EINPROGRESS) {
		*why = strerror(errno);
		close(fd);
		return PORT_ERR;
	}
	return fd;
}

const char *
port_connect_result(int fd)
{
	int err = 0;
	socklen_t sl = sizeof(err);

	/* SO_ERROR is how a non-blocking connect tells its outcome. */
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
		err = errno;
	return err == 0 ? NULL : strerror(err);
}

/* A read's or write's result: bytes moved, PORT_AGAIN or PORT_ERR. */
static long
io_result(ssize_t n)
{
	if (n >= 0)
		return (long)n;
	return (errno == EAGAIN || errno == EWOULDBLOCK) ? PORT_AGAIN : PORT_ERR;
}

long
port_read(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return io_result(n);
}

long
port_peek(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = recv(fd, buf, len, MSG_PEEK);
	while (n < 0 && errno == EINTR);
	return io_result(n);
}

void
port_rcvlowat(int fd, unsigned n)
{
	int v = (int)n;

	(void)setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof(v));
}

void
port_rcvbuf(int fd, unsigned n)
{
	int v = (int)n, cur = 0;
	socklen_t len = sizeof(cur);

	/*
	 * Linux doubles what it is given (for its bookkeeping) and reports
	 * the doubled size; the BSDs count bytes: n is then at least n.
	 */
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cur, &len) == 0 &&
	    cur >= v)
		return;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

long
port_write(int fd, const void *buf, size_t len)
{
	ssize_t n;

	/* send(2), not write(2): MSG_NOSIGNAL even if SIGPIPE were caught. */
	do
		n = send(fd, buf, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return io_result(n);
}

void
port_shutdown_wr(int fd)
{
	(void)shutdown(fd, SHUT_WR);
}

void
port_close(int fd, int abort)
{
	if (abort) {
		struct linger l = { 1, 0 };

		(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	(void)close(fd);
}

/* The mask while waiting: the signals port_signals_init() blocks. */
static sigset_t wait_mask;
static int signals_blocked;

int
port_poll(struct port_pfd *p, size_t n, int timeout_ms)
{
	struct timespec ts, *tp = NULL;
	int r;

	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000;
		tp = &ts;
	}
	/*
	 * Signals are blocked everywhere but in here, so one that arrives
	 * between the loop's look at the flags and this wait is not lost:
	 * it ends this wait instead.
	 */
	r = ppoll((struct pollfd *)(void *)p, (nfds_t)n, tp,
	    signals_blocked ? &wait_mask : NULL);
	return r < 0 && errno == EINTR ? 0 : r;
}

uint64_t
port_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t
port_now_ms(void)
{
	return port_now_us() / 1000;
}

int64_t
port_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec;
}

int
port_entropy(void *buf, size_t len)
{
	unsigned char *p = buf;
	int fd;
	ssize_t n;

#if defined(__linux__)
	static const char waiting[] = "warn: waiting for the kernel's entropy";
	int flags = GRND_NONBLOCK;

	/* Early in boot the pool may not be ready: say why we stop. */
	while (len > 0) {
		n = getrandom(p, len, flags);
		if (n < 0 && errno == EAGAIN && flags != 0) {
			(void)port_log_write(1, waiting, sizeof(waiting) - 1);
			flags = 0;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		len -= (size_t)n;
	}
	if (len == 0)
		return 0;
#endif
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (len > 0) {
		n = read(fd, p, len);
		if (n <= 0)
			break;
		p += n;
		len -= (size_t)n;
	}
	close(fd);
	return len == 0 ? 0 : -1;
}

size_t
port_ip_parse(const char *s, size_t len, uint8_t out[16])
{
	char buf[INET6_ADDRSTRLEN];

	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_pton(AF_INET, buf, out) == 1 ? 4 :
	    inet_pton(AF_INET6, buf, out) == 1 ? 16 : 0;
}

int
port_hostname(char *buf, size_t cap)
{
	if (cap == 0 || gethostname(buf, cap) < 0)
		return -1;
	buf[cap - 1] = '\0';
	return 0;
}

static volatile sig_atomic_t sigflags;

static void
on_signal(int sig)
{
	sigflags |= sig == SIGHUP ? PORT_SIG_HUP : sig == SIGUSR1 ?
	    PORT_SIG_USR1 : sig == SIGCHLD ? 0 : PORT_SIG_TERM;
}

void
port_signals_init(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1,
	    SIGCHLD };
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	(void)signal(SIGPIPE, SIG_IGN);
	sa.sa_handler = on_signal;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigdelset(&wait_mask, sigs[i]);
	signals_blocked = 1;
}

/* Safe without atomics: the handlers only run inside ppoll(). */
unsigned
port_signals(void)
{
	unsigned f = (unsigned)sigflags;

	sigflags = 0;
	return f;
}

static int syslog_fd = -1, syslog_facility;
static long syslog_pid;

int
port_syslog_open(const char *path, int facility, const char **why)
{
	struct sockaddr_un un;

	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(un.sun_path)) {
		*why = "path too long";
		return -1;
	}
	memcpy(un.sun_path, path, strlen(path));
	syslog_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (syslog_fd < 0 || connect(syslog_fd, (struct sockaddr *)&un,
	    sizeof(un)) < 0) {
		*why = strerror(errno);
		if (syslog_fd >= 0)
			close(syslog_fd);
		syslog_fd = -1;
		return -1;
	}
	syslog_facility = facility;
	syslog_pid = (long)getpid();
	return 0;
}

/*
 * Does stderr take a line now?  It is often a pipe (a supervisor's, a
 * shell's) or a terminal shared with other processes, so it cannot be
 * made non-blocking; poll() without a timeout asks instead.  A pipe
 * that polls writable has a page free, more than a line (PIPE_BUF
 * bytes are written at once or not at all), and a stream socket (the
 * journal's) room in its send buffer; a file always does.
 */
static int
stderr_ready(void)
{
	struct pollfd p = { .fd = STDERR_FILENO, .events = POLLOUT };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLOUT);
}

int
port_log_write(int level, const char *line, size_t len)
{
	static const int severity[] = { 3, 4, 6, 7 };
	char buf[2048];
	size_t n;

	if (len > sizeof(buf) - 64)
		len = sizeof(buf) - 64;
	if (syslog_fd >= 0) {
		n = (size_t)snprintf(buf, sizeof(buf), "<%d>tlsgate[%ld]: ",
		    syslog_facility * 8 + severity[level & 3], syslog_pid);
		memcpy(buf + n, line, len);
		/* Never blocks: a full or gone syslog sends it to stderr. */
		if (send(syslog_fd, buf, n + len, MSG_DONTWAIT |
		    MSG_NOSIGNAL) == (ssize_t)(n + len))
			return 0;
	}
	/* A reader that stops reading must not stop the loop. */
	if (!stderr_ready())
		return -1;
	n = (size_t)snprintf(buf, sizeof(buf), "tlsgate: ");
	memcpy(buf + n, line, len);
	buf[n + len] = '\n';
	return write(STDERR_FILENO, buf, n + len + 1) ==
	    (ssize_t)(n + len + 1) ? 0 : -1;
}
