/* SPDX-License-Identifier: ISC */
/*
 * slotio.c - the relay's moves between a slot's sockets and its engine,
 * for slot.c: the engine's records to the client, the client's records
 * to the engine, the backend's bytes to the engine.  The fourth move,
 * the client's plaintext to the backend, stays in slot.c: forward.c's
 * verdicts steer it there.
 */
#include <string.h>

#include "forward.h"
#include "log.h"
#include "slotint.h"

/*
 * A reused backend connection that ends before the first byte of its
 * answer was most likely closed by its backend while idle, just as it
 * was taken: the request may go again, once, on a fresh one, if it is
 * idempotent and has no body (then forward.c keeps its head: retry_len).
 */
int
retryable(const struct slot *s)
{
	return (s->flags & SLOT_F_REUSED) && s->fwd.retry_len > 0 &&
	    s->fwd.awaiting && s->fwd.hout_len == 0;
}

void
backend_lost(struct slot *s)
{
	if (!retryable(s)) {
		stats.backend_errors++;
		conn_set_outcome(&s->c, "backend-reset");
	}
	s->flags |= SLOT_F_BEOF;
}

/* The engine's records to the client. */
int
to_client(struct slot *s, unsigned st)
{
	unsigned char *buf;
	size_t len;
	long n;

	if (!(st & BR_SSL_SENDREC) ||
	    (s->flags & (SLOT_F_CWB | SLOT_F_CSHUT)))
		return 0;
	buf = eng_sendrec_buf(&s->tls.eng, &len);
	n = port_write(s->c.cfd, buf, len);
	if (n == PORT_AGAIN || (n > 0 && (size_t)n < len))
		s->flags |= SLOT_F_CWB;
	else if (n < 0) {
		conn_set_outcome(&s->c, "client-reset");
		s->flags |= SLOT_F_CSHUT | SLOT_F_CEOF;
	}
	if (n <= 0)
		return 0;
	eng_sendrec_ack(&s->tls.eng, (size_t)n);
	return 1;
}

/* Record bytes from the client, through the read-ahead, to the engine. */
int
from_client(struct slot *s, unsigned st)
{
	unsigned char *buf;
	size_t len, k;

	if (!(st & BR_SSL_RECVREC) || s->state == SLOT_LINGER ||
	    (s->flags & SLOT_F_CEOF))
		return 0;
	if (s->tls.peek)
		return slotin_hello(s);
	if (s->ra_len == 0 && !(s->flags & SLOT_F_CRD))
		return 0;
	buf = eng_recvrec_buf(&s->tls.eng, &len);
	if (s->ra_len == 0) {
		/* Read ahead past what recvrec_buf grants (eng.h). */
		s->ra_len = slotin_read(s, buf,
		    (size_t)(s->ibuf + sizeof(s->ibuf) - buf));
		if (s->ra_len == 0)
			return 0;
		s->ra_off = (size_t)(buf - s->ibuf);
	}
	if (s->ibuf + s->ra_off != buf)
		memmove(buf, s->ibuf + s->ra_off, s->ra_len);
	k = s->ra_len < len ? s->ra_len : len;
	s->ra_off = (size_t)(buf - s->ibuf) + k;
	s->ra_len -= k;
	eng_recvrec_ack(&s->tls.eng, k);
	return 1;
}

/* The backend's bytes to the engine, for the client. */
int
from_backend(struct slot *s, unsigned st)
{
	unsigned char *buf;
	size_t len;
	long n;

	if (!(st & BR_SSL_SENDAPP) ||
	    s->state != SLOT_RELAY || !(s->flags & SLOT_F_BRD) ||
	    (s->flags & SLOT_F_BEOF))
		return 0;
	buf = eng_sendapp_buf(&s->tls.eng, &len);
	n = port_read(s->c.bfd, buf, len);
	if (n < 0 || (size_t)n < len)
		s->flags &= ~SLOT_F_BRD;
	if (n == 0)
		s->flags |= SLOT_F_BEOF;
	else if (n < 0 && n != PORT_AGAIN)
		backend_lost(s);
	if (n <= 0)
		return 0;
	fwd_backend_bytes(&s->fwd, buf, (size_t)n);
	eng_sendapp_ack(&s->tls.eng, (size_t)n);
	eng_flush(&s->tls.eng);
	s->b2c += (unsigned long long)n;
	return 1;
}
