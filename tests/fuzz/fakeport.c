/* SPDX-License-Identifier: ISC */
/*
 * fakeport.c - port/port.h for tests: in-memory sockets, a fake clock,
 * deterministic entropy and a compiled-in certificate.
 *
 * Owns every fake descriptor: what its peer sent toward tlsgate (read
 * by port_read), everything tlsgate wrote to it (kept whole, so a test
 * can re-check the stream), how many bytes a write may still take, EOF,
 * reset and connect outcomes.  Descriptors are numbered from FD_BASE
 * and never reused within a run, so a double close or a use after close
 * is caught at once (abort) instead of hitting another connection.
 *
 * Never touches the operating system's sockets, clock or files.  Only
 * the functions src/ calls outside main.c and loop.c are provided.
 *
 * The control surface for the harness is the fake_* functions; their
 * prototypes are repeated at the top of fuzz_slot.c.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port.h"

#define FD_BASE		1000
#define NFD		32
#define STREAM_MAX	65536	/* bytes each way per descriptor */
#define CAP_INF		((size_t)-1)

enum { C_OK, C_FAIL, C_REFUSED, C_HANG };	/* connect outcomes */

struct fake_sock {
	int		 used, open, backend, owner;
	int		 connecting, cmode;
	int		 peer_eof, peer_reset, shut_wr, aborted;
	size_t		 cap;			/* write room left */
	unsigned char	 in[STREAM_MAX];	/* peer -> tlsgate */
	size_t		 in_len, in_off;
	unsigned char	 out[STREAM_MAX];	/* tlsgate -> peer */
	size_t		 out_len;
};

static struct fake_sock socks[NFD];
static int nsocks, next_cmode, next_owner = -1;
static unsigned long calls;		/* I/O calls (not poll) */
uint64_t fake_now;
char fake_last_log[512];
int fake_verbose;		/* copy log lines to stderr */

/* The server's P-256 certificate and key, and the certificate's point. */
static const char cert_pem[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBhDCCASugAwIBAgIUWM0KaFtW7EW+fNI3eEmVeWNRZr8wCgYIKoZIzj0EAwIw\n"
    "FzEVMBMGA1UEAwwMdGxzZ2F0ZS50ZXN0MCAXDTI2MTIwMjE0MjUyMVoYDzIxMjYx\n"
    "MTA4MTQyNTIxWjAXMRUwEwYDVQQDDAx0bHNnYXRlLnRlc3QwWTATBgcqhkjOPQIB\n"
    "BggqhkjOPQMBBwNCAAQYPQPxdfu//AKA5AgxliwFwbr9aPEE/enPGGjm70mROhsD\n"
    "JXEUgRaJ85slSZfgytaHYFx0Tb3988GntVoVMVVQo1MwUTAdBgNVHQ4EFgQUwKxX\n"
    "1YDMVH1uoJkrsE7Bxfo25x8wHwYDVR0jBBgwFoAUwKxX1YDMVH1uoJkrsE7Bxfo2\n"
    "5x8wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiAmdW86ZT+83dth\n"
    "i9VjArCINgT45p43R9+ZNPADiwDjdAIgMjVJzmz7drkreRiSXyq0qhyQd9WZHbTc\n"
    "nC4DjC7w318=\n"
    "-----END CERTIFICATE-----\n";
static const char key_pem[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHqXUVtRr/L+MTvOG\n"
    "Lj6sX6Hf7FCnkipqv43Sflm5XKmhRANCAAQYPQPxdfu//AKA5AgxliwFwbr9aPEE\n"
    "/enPGGjm70mROhsDJXEUgRaJ85slSZfgytaHYFx0Tb3988GntVoVMVVQ\n"
    "-----END PRIVATE KEY-----\n";
const unsigned char fake_ec_pub[65] = {
	0x04, 0x18, 0x3d, 0x03, 0xf1, 0x75, 0xfb, 0xbf, 0xfc, 0x02, 0x80, 0xe4,
	0x08, 0x31, 0x96, 0x2c, 0x05, 0xc1, 0xba, 0xfd, 0x68, 0xf1, 0x04, 0xfd,
	0xe9, 0xcf, 0x18, 0x68, 0xe6, 0xef, 0x49, 0x91, 0x3a, 0x1b, 0x03, 0x25,
	0x71, 0x14, 0x81, 0x16, 0x89, 0xf3, 0x9b, 0x25, 0x49, 0x97, 0xe0, 0xca,
	0xd6, 0x87, 0x60, 0x5c, 0x74, 0x4d, 0xbd, 0xfd, 0xf3, 0xc1, 0xa7, 0xb5,
	0x5a, 0x15, 0x31, 0x55, 0x50
};

static void
die(const char *what, int fd)
{
	fprintf(stderr, "fakeport: %s (fd %d)\n", what, fd);
	abort();
}

/* The open descriptor fd, or abort: src/ must never use any other. */
static struct fake_sock *
sock(int fd, const char *what)
{
	if (fd < FD_BASE || fd >= FD_BASE + nsocks || !socks[fd - FD_BASE].open)
		die(what, fd);
	return &socks[fd - FD_BASE];
}

/* Harness side. */

void
fake_reset(void)
{
	nsocks = 0;
	next_cmode = C_OK;
	next_owner = -1;
}

int
fake_socket(int backend, int owner)
{
	struct fake_sock *k;

	if (nsocks == NFD)
		return -1;
	k = &socks[nsocks];
	memset(k, 0, offsetof(struct fake_sock, in));
	k->used = k->open = 1;
	k->backend = backend;
	k->owner = owner;
	k->cap = CAP_INF;
	k->in_len = k->in_off = k->out_len = 0;
	return FD_BASE + nsocks++;
}

int
fake_is_open(int fd)
{
	return fd >= FD_BASE && fd < FD_BASE + nsocks && socks[fd - FD_BASE].open;
}

/* Descriptors still open (0 when every one was closed exactly once). */
int
fake_open_count(void)
{
	int n = 0;

	for (int i = 0; i < nsocks; i++)
		n += socks[i].open;
	return n;
}

/* The peer sends: bytes for tlsgate to read.  Returns bytes queued. */
size_t
fake_push(int fd, const void *buf, size_t len)
{
	struct fake_sock *k = sock(fd, "push to a closed fd");

	if (len > STREAM_MAX - k->in_len)
		len = STREAM_MAX - k->in_len;
	memcpy(k->in + k->in_len, buf, len);
	k->in_len += len;
	return len;
}

void
fake_peer_eof(int fd)
{
	sock(fd, "eof on a closed fd")->peer_eof = 1;
}

void
fake_peer_reset(int fd)
{
	sock(fd, "reset on a closed fd")->peer_reset = 1;
}

void
fake_set_cap(int fd, size_t cap)
{
	sock(fd, "cap on a closed fd")->cap = cap;
}

/* Everything tlsgate wrote to fd (also after close). */
const unsigned char *
fake_written(int fd, size_t *len)
{
	struct fake_sock *k = &socks[fd - FD_BASE];

	*len = k->out_len;
	return k->out;
}

/* Everything fd's peer sent, and how much of it tlsgate has read. */
const unsigned char *
fake_sent(int fd, size_t *len, size_t *nread)
{
	struct fake_sock *k = &socks[fd - FD_BASE];

	*len = k->in_len;
	*nread = k->in_off;
	return k->in;
}

/* The n-th backend descriptor connected for client fd owner, or -1. */
int
fake_backend_of(int owner, int n)
{
	for (int i = 0; i < nsocks; i++)
		if (socks[i].backend && socks[i].owner == owner && n-- == 0)
			return FD_BASE + i;
	return -1;
}

/* Whose slot runs next: port_connect tags new backends with it. */
void
fake_set_owner(int cfd)
{
	next_owner = cfd;
}

/* Outcome of the next connects: 0 ok, 1 fail at once, 2 refused, 3 hang. */
void
fake_connect_mode(int mode)
{
	next_cmode = mode & 3;
}

/* The network moves: pending connects finish (except hanging ones). */
void
fake_connects_finish(void)
{
	for (int i = 0; i < nsocks; i++)
		if (socks[i].connecting && socks[i].cmode != C_HANG)
			socks[i].connecting = 0;
}

unsigned long
fake_calls(void)
{
	return calls;
}

/* port.h */

int
port_addr_parse(struct port_addr *a, const char *s, size_t len,
    const char **why)
{
	char host[64];
	const char *colon = NULL;
	unsigned long port = 0;
	size_t hlen;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < len; i++)
		if (s[i] == ':')
			colon = s + i;
	*why = "bad address";
	if (colon == NULL || colon + 1 == s + len || colon + 7 < s + len)
		return -1;
	for (const char *p = colon + 1; p < s + len; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		port = port * 10 + (unsigned long)(*p - '0');
	}
	hlen = (size_t)(colon - s);
	if (hlen >= 2 && s[0] == '[' && s[hlen - 1] == ']') {
		s++;
		hlen -= 2;
	}
	if (port > 65535 || hlen == 0 || hlen >= sizeof(host))
		return -1;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	/* raw: family (4 or 6), port (2 bytes), pad, then the address. */
	if (inet_pton(AF_INET, host, a->raw + 4) == 1)
		a->raw[0] = 4;
	else if (inet_pton(AF_INET6, host, a->raw + 4) == 1)
		a->raw[0] = 6;
	else
		return -1;
	a->raw[1] = (uint8_t)(port >> 8);
	a->raw[2] = (uint8_t)port;
	a->len = 20;
	return 0;
}

size_t
port_addr_raw(const struct port_addr *a, uint8_t out[16])
{
	size_t n = a->raw[0] == 6 ? 16 : 4;

	memcpy(out, a->raw + 4, n);
	return n;
}

void
port_addr_make(struct port_addr *a, const uint8_t *ip, size_t iplen,
    unsigned port)
{
	memset(a, 0, sizeof(*a));
	a->raw[0] = iplen == 16 ? 6 : 4;
	a->raw[1] = (uint8_t)(port >> 8);
	a->raw[2] = (uint8_t)port;
	memcpy(a->raw + 4, ip, iplen == 16 ? 16 : 4);
	a->len = 20;
}

unsigned
port_addr_port(const struct port_addr *a)
{
	return (unsigned)a->raw[1] << 8 | a->raw[2];
}

int
port_addr_same_ip(const struct port_addr *a, const struct port_addr *b)
{
	return a->raw[0] == b->raw[0] && memcmp(a->raw + 4, b->raw + 4, 16) == 0;
}

void
port_addr_ip(const struct port_addr *a, char *buf, size_t cap)
{
	if (inet_ntop(a->raw[0] == 6 ? AF_INET6 : AF_INET, a->raw + 4, buf,
	    (socklen_t)cap) == NULL)
		snprintf(buf, cap, "unknown");
}

void
port_addr_str(const struct port_addr *a, char *buf, size_t cap)
{
	char ip[64];

	port_addr_ip(a, ip, sizeof(ip));
	snprintf(buf, cap, a->raw[0] == 6 ? "[%s]:%u" : "%s:%u", ip,
	    port_addr_port(a));
}

int
port_connect(const struct port_addr *a, const char **why)
{
	int fd;

	(void)a;
	calls++;
	*why = "connection refused";
	if (next_cmode == C_FAIL)
		return PORT_ERR;
	fd = fake_socket(1, next_owner);
	if (fd < 0) {
		*why = "too many open files";
		return PORT_ERR;
	}
	socks[fd - FD_BASE].connecting = 1;
	socks[fd - FD_BASE].cmode = next_cmode;
	return fd;
}

const char *
port_connect_result(int fd)
{
	struct fake_sock *k = sock(fd, "connect result of a closed fd");

	if (!k->backend || (k->connecting && !k->peer_reset))
		die("connect result asked before poll reported it", fd);
	return k->cmode == C_REFUSED || k->peer_reset ? "connection refused" :
	    NULL;
}

long
port_read(int fd, void *buf, size_t len)
{
	struct fake_sock *k = sock(fd, "read from a closed fd");
	size_t n;

	calls++;
	/* A zero-length read returns 0, which the caller would take for EOF. */
	if (len == 0)
		die("read of 0 bytes", fd);
	if (k->peer_reset || (k->backend && !k->connecting &&
	    k->cmode == C_REFUSED))
		return PORT_ERR;
	if (k->in_off == k->in_len)
		return k->peer_eof ? 0 : PORT_AGAIN;
	n = k->in_len - k->in_off < len ? k->in_len - k->in_off : len;
	memcpy(buf, k->in + k->in_off, n);
	k->in_off += n;
	return (long)n;
}

/* port_read() that leaves what it copies to be read again. */
long
port_peek(int fd, void *buf, size_t len)
{
	struct fake_sock *k = sock(fd, "peek at a closed fd");
	size_t off = k->in_off;
	long n = port_read(fd, buf, len);

	k->in_off = off;
	return n;
}

long
port_write(int fd, const void *buf, size_t len)
{
	struct fake_sock *k = sock(fd, "write to a closed fd");
	size_t n = len;

	calls++;
	if (len == 0)
		die("write of 0 bytes", fd);
	if (k->shut_wr)
		die("write after shutdown", fd);
	if (k->peer_reset || (k->backend && !k->connecting &&
	    k->cmode == C_REFUSED))
		return PORT_ERR;
	if (k->connecting)
		return PORT_AGAIN;
	if (n > k->cap)
		n = k->cap;
	if (n > STREAM_MAX - k->out_len)
		n = STREAM_MAX - k->out_len;
	if (n == 0)
		return PORT_AGAIN;
	memcpy(k->out + k->out_len, buf, n);
	k->out_len += n;
	if (k->cap != CAP_INF)
		k->cap -= n;
	return (long)n;
}

void
port_shutdown_wr(int fd)
{
	calls++;
	sock(fd, "shutdown of a closed fd")->shut_wr = 1;
}

void
port_close(int fd, int abort)
{
	struct fake_sock *k = sock(fd, "close of a closed fd");

	calls++;
	k->open = 0;
	k->aborted = abort;
}

/*
 * Readiness from queue state, as a kernel would report it: readable
 * with bytes, EOF or reset queued; writable with room; a reset also
 * reports errors, and so does a refused connect once it finished.
 */
int
port_poll(struct port_pfd *p, size_t n, int timeout_ms)
{
	int ready = 0;

	(void)timeout_ms;
	for (size_t i = 0; i < n; i++) {
		struct fake_sock *k = sock(p[i].fd, "poll of a closed fd");
		int failed = k->peer_reset || (k->backend && !k->connecting &&
		    k->cmode == C_REFUSED);

		p[i].revents = 0;
		if (p[i].events == 0)
			die("polled for nothing", p[i].fd);
		if (failed)
			p[i].revents = (short)(PORT_ERRS & 0x018) | PORT_IN;
		else if (k->connecting)
			continue;
		if ((p[i].events & PORT_IN) &&
		    (k->in_off < k->in_len || k->peer_eof))
			p[i].revents |= PORT_IN;
		if ((p[i].events & PORT_OUT) &&
		    ((k->cap > 0 && k->out_len < STREAM_MAX) || k->shut_wr))
			p[i].revents |= PORT_OUT;
		if (k->peer_eof && k->shut_wr)
			p[i].revents |= 0x010;	/* POLLHUP */
		ready += p[i].revents != 0;
	}
	return ready;
}

/*
 * One process: shared memory is plain memory, a lock is a flag.  The
 * same block every time, which fake_shared() shows the harness (it
 * keeps a copy of the session caches there from one run to the next).
 */
static unsigned char shared[1 << 20];
static size_t shared_len;

void *
port_shared(size_t len, const char **why)
{
	if (len > sizeof(shared)) {
		*why = "more than the fake port's shared block";
		return NULL;
	}
	shared_len = len;
	return shared;
}

void *
fake_shared(size_t *len)
{
	*len = shared_len;
	return shared;
}

int
port_lock_init(void *l)
{
	*(int *)l = 0;
	return 0;
}

int
port_lock(void *l)
{
	if (*(int *)l)
		die("lock taken twice", 0);
	*(int *)l = 1;
	return 0;
}

void
port_unlock(void *l)
{
	*(int *)l = 0;
}

uint64_t
port_now_ms(void)
{
	return fake_now;
}

/* A fixed date: the same input must take the same path every time. */
int64_t
port_time(void)
{
	return 1764756000;
}

/* port.c's grammar: proxyin reads PROXY headers and proxy_from with it. */
size_t
port_ip_parse(const char *s, size_t len, uint8_t out[16])
{
	char b[INET6_ADDRSTRLEN];

	if (len == 0 || len >= sizeof(b))
		return 0;
	memcpy(b, s, len);
	b[len] = '\0';
	return inet_pton(AF_INET, b, out) == 1 ? 4 :
	    inet_pton(AF_INET6, b, out) == 1 ? 16 : 0;
}

/* Fixed bytes: the same input must take the same path every time. */
int
port_entropy(void *buf, size_t len)
{
	unsigned char *b = buf;

	for (size_t i = 0; i < len; i++)
		b[i] = (unsigned char)(i * 167 + 13);
	return 0;
}

long
port_read_file(const char *path, void *buf, size_t cap, const char **why)
{
	const char *s = strcmp(path, "cert") == 0 ? cert_pem :
	    strcmp(path, "key") == 0 ? key_pem : NULL;
	size_t len;

	if (s == NULL) {
		*why = "no such file";
		return -1;
	}
	len = strlen(s);
	if (len > cap) {
		*why = "larger than the buffer";
		return -1;
	}
	memcpy(buf, s, len);
	return (long)len;
}

long
port_read_secret(const char *path, void *buf, size_t cap, const char **why)
{
	return port_read_file(path, buf, cap, why);
}

/* config.c asks at seccomp = on: a filter is there. */
const char *
port_sandbox_missing(void)
{
	return NULL;
}

int
port_log_write(int level, const char *line, size_t len)
{
	(void)level;
	if (len >= sizeof(fake_last_log))
		len = sizeof(fake_last_log) - 1;
	memcpy(fake_last_log, line, len);
	fake_last_log[len] = '\0';
	if (fake_verbose)
		fprintf(stderr, "%s\n", fake_last_log);
	return 0;
}
