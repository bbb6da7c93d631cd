/* SPDX-License-Identifier: ISC */
/*
 * slotin.c - a TLS slot's first flight: the PROXY header, then the
 * client's hello, whole, before the engine starts; and the reads of the
 * client every state shares (see slotint.h).
 */
#include <string.h>

#include "log.h"
#include "proxyin.h"
#include "slot.h"
#include "slotint.h"
#include "hello.h"
#include "tlswire.h"

/*
 * The first flight is no hello the engine can read: the alert in the
 * clear, as a version not yet agreed is written (TLS 1.0, which every
 * peer reads), then FIN.
 */
static void
hello_refused(struct slot *s, unsigned alert, const char *why)
{
	unsigned char rec[7];
	struct tw w;

	tw_init(&w, rec, sizeof(rec));
	tw_u8(&w, CT_ALERT);
	tw_u16(&w, BR_TLS10);
	tw_open(&w, 2);
	tw_u8(&w, ALERT_FATAL);
	tw_u8(&w, alert);
	tw_close(&w);
	stats.tls_errors++;
	conn_set_outcome(&s->c, why);
	if (port_write(s->c.cfd, rec, tw_len(&w)) == (long)sizeof(rec))
		s->alert = alert;
	slotin_linger(s);
}

/* No backend yet before the hello (tls_failed() releases one). */
void
slotin_linger(struct slot *s)
{
	if (!(s->flags & SLOT_F_CSHUT)) {
		port_shutdown_wr(s->c.cfd);
		s->flags |= SLOT_F_CSHUT;
	}
	s->state = SLOT_LINGER;
	s->c.deadline = conn_now + CONN_LINGER_MS;
}

/* A read (or peek) of room bytes returned n: the bytes, or 0 (flags set). */
static size_t
slotin_got(struct slot *s, long n, size_t room)
{
	if (n == PORT_AGAIN || n == 0) {
		s->flags &= ~SLOT_F_CRD;
		if (n == 0)
			s->flags |= SLOT_F_CEOF;
		return 0;
	}
	if (n < 0) {
		conn_set_outcome(&s->c, "client-reset");
		s->flags = (s->flags & ~SLOT_F_CRD) | SLOT_F_CEOF | SLOT_F_CSHUT;
		return 0;
	}
	if ((size_t)n < room)
		s->flags &= ~SLOT_F_CRD;
	return (size_t)n;
}

size_t
slotin_read(struct slot *s, unsigned char *dst, size_t room)
{
	return slotin_got(s, port_read(s->c.cfd, dst, room), room);
}

/*
 * The client's hello, whole, before the engine starts: it reads the
 * hello in one piece.  What came after it stays in ibuf as the
 * read-ahead.
 */
static int
judge_hello(struct slot *s)
{
	const char *why;
	unsigned alert;
	size_t end;
	int rc;

	s->ra_off = 0;
	rc = tls_hello(&s->tls, s->ibuf, s->ra_len, conn_scratch, &end, &alert,
	    &why);
	if (rc == TLS_HELLO_REFUSE) {
		hello_refused(s, alert, why);
		return 0;
	}
	if (rc == TLS_HELLO_STARTED) {
		s->ra_off = end;
		s->ra_len -= end;
	}
	return 1;
}

/*
 * A hello that fills ibuf and goes on: it is looked at whole in the
 * pending table's buffer, ibuf's bytes and then a peek at the rest,
 * which the pending table saw come in whole (pend.h).  Only the bytes it
 * takes are read, once the engine has it.
 */
static int
long_hello(struct slot *s)
{
	unsigned char *w = conn_scratch;
	size_t n, end, have = s->ra_len;
	const char *why;
	unsigned alert;

	n = slotin_got(s, port_peek(s->c.cfd, w + have, HELLO_WIRE_MAX - have),
	    HELLO_WIRE_MAX - have);
	if (n == 0)
		return 0;
	memcpy(w, s->ibuf, have);
	switch (tls_hello(&s->tls, w, have + n, conn_scratch, &end, &alert,
	    &why)) {
	case TLS_HELLO_MORE:
		/*
		 * It stopped half way (the pending table hands on no other):
		 * its EOF, or more than the kernel's receive buffer let in.
		 * Read what it sent, so that the end is a FIN.
		 */
		(void)slotin_read(s, w, n);
		if (slotin_read(s, w, 1) == 0 && (s->flags & SLOT_F_CEOF))
			return 0;
		hello_refused(s, BR_ALERT_HANDSHAKE_FAILURE, "hello-too-long");
		return 0;
	case TLS_HELLO_REFUSE:
		hello_refused(s, alert, why);
		return 0;
	}
	s->ra_off = s->ra_len = 0;
	(void)slotin_read(s, w, end - have);
	return 1;
}

/*
 * A proxy_from source's PROXY header is read as the hello is, before
 * it (conn_take_proxy()): what follows it in ibuf is the hello's start.
 * A bad header gets a FIN.
 */
int
slotin_hello(struct slot *s)
{
	size_t n;
	int rc, lb_local = 0;

	if (!(s->flags & SLOT_F_CRD))
		return 0;
	/* Full: a hello, as a PROXY header is whole below PROXYIN_MAX. */
	if (s->ra_len == sizeof(s->ibuf))
		return long_hello(s);
	if ((n = slotin_read(s, s->ibuf + s->ra_len,
	    sizeof(s->ibuf) - s->ra_len)) == 0)
		return 0;
	s->ra_len += n;
	if (!(s->flags & SLOT_F_PROXY))
		return judge_hello(s);
	rc = conn_take_proxy(&s->c, s->svc, s->ibuf, &s->ra_len, &s->peer,
	    &s->local, &lb_local);
	if (rc == CONN_PROXY_MORE)
		return 1;
	if (rc != CONN_PROXY_OK) {
		slotin_linger(s);
		return 0;
	}
	s->flags &= ~SLOT_F_PROXY;
	if (lb_local)
		s->flags |= SLOT_F_LOCAL;
	return s->ra_len == 0 || judge_hello(s);
}

/*
 * Behind a balancer, its health check (LOCAL, then EOF or, as haproxy's,
 * a reset) is no error, and a header cut short is one.
 */
void
slotin_eof(struct slot *s)
{
	if ((s->flags & SLOT_F_LOCAL) && s->tls.peek &&
	    s->ra_len == 0)
		s->c.outcome = "proxy-local";
	else if ((s->flags & SLOT_F_PROXY) && s->ra_len > 0) {
		stats.proxy_errors++;
		conn_set_outcome(&s->c, proxyin_strerror(PROXYIN_MORE));
	} else
		conn_set_outcome(&s->c, "client-eof-in-handshake");
}
