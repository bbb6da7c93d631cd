/* SPDX-License-Identifier: ISC */
/*
 * pend.c - see pend.h.
 */
#include <string.h>

#include "http.h"
#include "log.h"
#include "pend.h"
#include "proxyin.h"
#include "hello.h"

static struct pend tab[TLSGATE_MAX_PENDING];
static struct conn *live[TLSGATE_MAX_PENDING];
static uint32_t freel[TLSGATE_MAX_PENDING];
struct connset pend_set = CONNSET(tab, live, freel);
static const struct conn_class pend_class;
static unsigned nready[2];	/* TLS, plain */

/*
 * A hello over one record (5 + 2^14 bytes) is rare, a usual one under
 * 2 KiB: only the long ones pay port_rcvbuf()'s system calls.
 */
#define LONG_HELLO	(5 + 16384)

void
pend_init(unsigned size)
{
	nready[0] = nready[1] = 0;
	connset_init(&pend_set, &pend_class, size);
}

unsigned
pend_ready(int plain)
{
	return nready[plain != 0];
}

static void
ready(struct pend *e)
{
	e->t_ready = conn_now;
	nready[e->plain]++;
}

static void
drop(struct pend *e)
{
	if (e->t_ready != 0)
		nready[e->plain]--;
	connset_delete(&pend_set, &e->c);
}

void
pend_close(struct pend *e, const char *outcome, int abort)
{
	struct port_addr peer;
	char head[CONN_LOG_HEAD];

	pend_peer(e, &peer);
	conn_log_head(head, &e->c, e->plain ? "plain" : "conn", 0,
	    &conn_cfg->svc[e->svc], &peer, NULL);
	/* The fields of slot.c's and plain.c's lines: one parser for all. */
	log_msg(LOG_INFO, "%s in=0 out=0 %s outcome=%s", head, e->plain ?
	    "status=0" : "requests=0 resumed=no version=none suite=none "
	    "group=none sni=- status=0 alert=0", outcome);
	port_close(e->c.cfd, abort);
	stats.closed++;
	drop(e);
}

void
pend_add(int fd, const struct port_addr *peer, unsigned svc, int plain)
{
	const struct service *s = &conn_cfg->svc[svc];
	struct pend *e;

	if (pend_set.nfree == 0) {
		stats.evicted++;
		pend_close((struct pend *)connset_oldest_waiting(&pend_set,
		    UINT64_MAX), "evicted", 1);
	}
	e = (struct pend *)connset_new(&pend_set);
	memset(&e->t_ready, 0, sizeof(*e) - offsetof(struct pend, t_ready));
	e->c.cfd = fd;
	e->c.t_accept = conn_now;
	e->c.deadline = conn_now + (plain ? s->head_ms : s->handshake_ms);
	e->svc = (unsigned char)svc;
	e->iplen = (unsigned char)port_addr_raw(peer, e->ip);
	e->port = (uint16_t)port_addr_port(peer);
	e->plain = (unsigned char)plain;
	e->proxy = (unsigned char)config_proxy_trusted(s, peer);
	stats.accepted++;
	if (pend_set.nlive > stats.pending_high)
		stats.pending_high = pend_set.nlive;
}

/*
 * 0 if buf[0..len) is a whole first message, or one that never can be
 * (the slot then refuses it); else how many bytes it must have before
 * more can be judged.  poll() wakes for the entry once they are there:
 * a hello record trickled a byte at a time is looked at when it ends,
 * not at each byte.  *room: the bytes the socket must hold for all of
 * it, once its length is known; else 0.
 */
static size_t
wanting(const struct pend *e, const unsigned char *buf, size_t len,
    size_t *room)
{
	struct proxyin_hdr h;
	struct hello_peek pk;
	size_t off = 0, scan = 0;

	*room = 0;
	if (e->proxy) {
		int rc = proxyin_parse(buf, len, &h);

		if (rc != PROXYIN_OK)
			return rc == PROXYIN_MORE ? len + 1 : 0;
		off = h.len;
	}
	if (e->plain)
		return len >= TLSGATE_HEAD_MAX ||
		    http_head_end(buf + off, len - off, &scan) != HTTP_MORE ?
		    0 : len + 1;
	if (hello_classify(buf + off, len - off, HELLO_WIRE_MAX, &pk) !=
	    HELLO_MORE)
		return 0;
	if (pk.wire > 0)
		*room = off + pk.wire;
	return off + pk.want;
}

/* Readable: look at what it sent.  It stays, becomes ready, or ends. */
static void
io(struct conn *c, int crev, int brev)
{
	struct pend *e = (struct pend *)c;
	size_t want, room;
	long k = port_peek(c->cfd, conn_scratch, e->plain ? TLSGATE_HEAD_MAX :
	    e->proxy ? sizeof(conn_scratch) : HELLO_WIRE_MAX);

	(void)crev;
	(void)brev;
	if (k == PORT_AGAIN)
		return;
	if (k < 0 || (k == 0 && e->len == 0)) {
		pend_close(e, k < 0 ? "client-reset" : e->plain ?
		    "no-request" : "client-eof-in-handshake", k < 0);
		return;
	}
	/*
	 * Readable with nothing new: the client closed (or failed) after
	 * a part of its message, or its bytes fill the receive window the
	 * kernel offers (Linux's poll() says readable then, whatever the
	 * low-water mark).  This peek has offered the client the window
	 * port_rcvbuf() made room for (Linux sends it when a read, even a
	 * peek, finds it grown): one such look is waited out.  The next
	 * goes to the slot, which finds out which it was, and says so;
	 * waiting on would spin, poll() saying readable at each turn.
	 */
	if ((size_t)k == e->len) {
		if (e->stalled)
			ready(e);
		e->stalled = 1;
		return;
	}
	e->stalled = 0;
	e->len = (uint32_t)k;
	if ((want = wanting(e, conn_scratch, (size_t)k, &room)) == 0) {
		ready(e);
		return;
	}
	/*
	 * The kernel widens a connection's window only as it is read, and
	 * a hello is only looked at here: room for the longest hellos
	 * (over 100 KiB), with twice their bytes for what the kernel
	 * counts against each segment (small ones cost far more).
	 */
	if (!e->room && room > LONG_HELLO) {
		port_rcvbuf(c->cfd, (unsigned)(2 * room));
		e->room = 1;
	}
	port_rcvlowat(c->cfd, (unsigned)want);
	e->lowat = 1;
}

/* A whole message is read once it has a slot, not polled. */
static void
events(const struct conn *c, short *cev, short *bev)
{
	*cev = ((const struct pend *)c)->t_ready == 0 ? PORT_IN : 0;
	*bev = 0;
}

/* The deadline passed, the message not whole (or no slot for it yet). */
static void
expire(struct conn *c)
{
	struct pend *e = (struct pend *)c;

	/* A head, even partial, waits for a plain slot and its 408. */
	if (e->plain && (e->t_ready != 0 || (!e->proxy && e->len > 0))) {
		if (e->t_ready == 0)
			ready(e);
		c->deadline = UINT64_MAX;
		return;
	}
	stats.timeouts++;
	if (e->proxy)
		stats.proxy_errors++;
	pend_close(e, e->proxy ? "proxy-timeout" : e->plain ?
	    "head-timeout" : "handshake-timeout", !e->plain || e->proxy);
}

static void
close_now(struct conn *c, const char *outcome)
{
	pend_close((struct pend *)c, outcome, 1);
}

/* The table's eviction order: first come, first closed. */
static uint64_t
wait_since(const struct conn *c)
{
	return c->t_accept;
}

struct pend *
pend_pick(int plain, int lifo)
{
	struct pend *old = NULL, *young = NULL, *e;

	for (uint32_t i = 0; i < pend_set.nlive; i++) {
		e = (struct pend *)pend_set.live[i];
		if (e->t_ready == 0 || e->plain != plain)
			continue;
		if (old == NULL || e->t_ready < old->t_ready)
			old = e;
		if (young == NULL || e->t_ready >= young->t_ready)
			young = e;
	}
	return lifo ? young : old;
}

void
pend_peer(const struct pend *e, struct port_addr *a)
{
	/* port_addr_make() clears it too: cppcheck cannot tell. */
	memset(a, 0, sizeof(*a));
	port_addr_make(a, e->ip, e->iplen, e->port);
}

int
pend_take(struct pend *e)
{
	int fd = e->c.cfd;

	if (e->lowat)
		port_rcvlowat(fd, 1);
	drop(e);
	return fd;
}

static const struct conn_class pend_class = {
	events, io, expire, NULL, close_now, wait_since, NULL, NULL
};
