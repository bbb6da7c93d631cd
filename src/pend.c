/*
 * pend.c - see pend.h.
 */
#include <string.h>

#include "eng.h"
#include "http.h"
#include "log.h"
#include "pend.h"
#include "proxyin.h"
#include "slot.h"
#include "t13hello.h"

static struct pend tab[TLSGATE_MAX_PENDING];
static unsigned n, cap;
/* One entry is looked at a time: the loop has one thread. */
static unsigned char peekbuf[PROXYIN_MAX + ENG_IBUF_SIZE];

void
pend_init(unsigned size)
{
	n = 0;
	cap = size;
}

size_t
pend_table_bytes(unsigned k)
{
	return (size_t)k * sizeof(struct pend);
}

size_t
pend_static_bytes(void)
{
	return sizeof(peekbuf);
}

unsigned
pend_count(void)
{
	return n;
}

struct pend *
pend_at(unsigned i)
{
	return &tab[i];
}

static void
drop(unsigned i)
{
	tab[i] = tab[--n];
	stats.pending = n;
}

void
pend_close(const struct config *c, unsigned i, const char *outcome, int abort)
{
	const struct pend *e = &tab[i];
	struct port_addr peer;
	char a[64];
	unsigned long long ms = slot_now - e->t_accept;

	pend_peer(e, &peer);
	port_addr_str(&peer, a, sizeof(a));
	/* The fields of slot.c's and plain.c's lines: one parser for all. */
	if (e->plain)
		log_msg(LOG_INFO, "plain id=- worker=%u svc=%s peer=%s ms=%llu "
		    "in=0 out=0 status=0 outcome=%s", slot_worker,
		    c->svc[e->svc].name, a, ms, outcome);
	else
		log_msg(LOG_INFO, "conn id=- worker=%u svc=%s peer=%s ms=%llu "
		    "in=0 out=0 requests=0 resumed=no version=none suite=none "
		    "sni=- status=0 alert=0 outcome=%s", slot_worker,
		    c->svc[e->svc].name, a, ms, outcome);
	port_close(e->fd, abort);
	stats.closed++;
	drop(i);
}

void
pend_add(const struct config *c, int fd, const struct port_addr *peer,
    unsigned svc, int plain)
{
	struct pend *e;

	if (n == cap) {
		unsigned old = 0;

		for (unsigned i = 1; i < n; i++)
			if (tab[i].t_accept < tab[old].t_accept)
				old = i;
		stats.evicted++;
		pend_close(c, old, "evicted", 1);
	}
	e = &tab[n++];
	e->fd = fd;
	e->pi = -1;
	e->svc = (unsigned char)svc;
	e->lowat = 0;
	e->iplen = (unsigned char)port_addr_raw(peer, e->ip);
	e->port = (uint16_t)port_addr_port(peer);
	e->plain = (unsigned char)plain;
	e->proxy = (unsigned char)config_proxy_trusted(&c->svc[svc], peer);
	e->len = 0;
	e->t_accept = slot_now;
	e->t_ready = 0;
	stats.accepted++;
	stats.pending = n;
	if (n > stats.pending_high)
		stats.pending_high = n;
}

/*
 * Whether buf[0..len) is a whole first message, or one that never can
 * be (the slot then refuses it).
 */
static int
whole(const struct pend *e, const unsigned char *buf, size_t len)
{
	struct proxyin_hdr h;
	struct t13_peek pk;
	size_t off = 0, scan = 0;

	if (e->proxy) {
		int rc = proxyin_parse(buf, len, &h);

		if (rc != PROXYIN_OK)
			return rc != PROXYIN_MORE;
		off = h.len;
	}
	if (e->plain)
		return len >= TLSGATE_HEAD_MAX ||
		    http_head_end(buf + off, len - off, &scan) != HTTP_MORE;
	return t13_classify(buf + off, len - off, ENG_IBUF_SIZE, &pk) !=
	    T13_NEED_MORE;
}

void
pend_peek(const struct config *c, unsigned i)
{
	struct pend *e = &tab[i];
	long k = port_peek(e->fd, peekbuf, e->plain ? TLSGATE_HEAD_MAX :
	    e->proxy ? sizeof(peekbuf) : ENG_IBUF_SIZE);

	if (k == PORT_AGAIN)
		return;
	if (k < 0 || (k == 0 && e->len == 0)) {
		pend_close(c, i, k < 0 ? "client-reset" : e->plain ?
		    "no-request" : "client-eof-in-handshake", k < 0);
		return;
	}
	/*
	 * Readable with nothing new: the client closed (or failed) after
	 * a part of its message.  The slot finds out which, and says so.
	 */
	if ((size_t)k == e->len || whole(e, peekbuf, (size_t)k))
		e->t_ready = slot_now;
	else {
		port_rcvlowat(e->fd, (unsigned)k + 1);
		e->lowat = 1;
	}
	e->len = (uint16_t)k;
}

uint64_t
pend_deadline(const struct config *c, const struct pend *e)
{
	const struct service *s = &c->svc[e->svc];

	return e->t_accept + (e->plain ? s->head_ms : s->handshake_ms);
}

/* The oldest ready entry of the kind, or with lifo the newest. */
int
pend_pick(int plain, int lifo, unsigned *nready)
{
	int old = -1, young = -1;

	*nready = 0;
	for (unsigned i = 0; i < n; i++) {
		if (tab[i].t_ready == 0 || tab[i].plain != plain)
			continue;
		++*nready;
		if (old < 0 || tab[i].t_ready < tab[old].t_ready)
			old = (int)i;
		if (young < 0 || tab[i].t_ready >= tab[young].t_ready)
			young = (int)i;
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
pend_take(unsigned i)
{
	int fd = tab[i].fd;

	if (tab[i].lowat)
		port_rcvlowat(fd, 1);
	drop(i);
	return fd;
}
