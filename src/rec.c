/* SPDX-License-Identifier: ISC */
/*
 * rec.c - the record layer of eng.h, both versions: records in and out
 * (RFC 5246 6.2, RFC 8446 5), alerts (RFC 5246 7.2, RFC 8446 6), the
 * server's flight cut into records, and BearSSL's buffer calls.  What a
 * record means is the handshake's: hs12.c and hs13.c, through c->hs.
 */
#include <string.h>

#include "engint.h"
#include "tlswire.h"

/* Warning alerts taken in a row, as OpenSSL does. */
#define ENG_WARNINGS_MAX	4

/* The most a record adds to its content: header, explicit nonce, tag. */
#define REC_OVERHEAD	(5 + 8 + RP_TAG_LEN)

/* Fail with a fatal alert: it goes out after what is already written. */
void
eng_fail(struct eng *c, unsigned alert)
{
	if (c->phase == P_DEAD)
		return;
	c->phase = P_DEAD;
	c->err = c->why != 0 ? c->why : BR_ERR_SEND_FATAL_ALERT + (int)alert;
	c->owed[0] = ALERT_FATAL;
	c->owed[1] = (unsigned char)alert;
	c->owed_on = 1;
	c->app_len = 0;
	c->ku_owed = 0;
}

unsigned
eng_refuse(struct eng *c, unsigned alert, const char *reason)
{
	c->reason = reason;
	return alert;
}

/* Room for one more record's content at the end of obuf. */
size_t
eng_room(const struct eng *c)
{
	size_t r, max;

	if (c->oend + REC_OVERHEAD + 1 > c->olen)
		return 0;
	r = c->olen - c->oend - REC_OVERHEAD;
	/* RFC 6066 4: the client's max_fragment_length, 2^(8 + code). */
	max = c->mfl != 0 ? (size_t)256 << c->mfl : RP_PLAIN_MAX;
	return r > max ? max : r;
}

/*
 * Where the next record's content goes in obuf: after its header and,
 * in TLS 1.2 GCM, the explicit nonce, so that sealing moves nothing.
 */
static unsigned char *
content(const struct eng *c)
{
	return c->obuf + c->oend + (c->wr_on && c->version != TLS13 ?
	    rp_head12(&c->wr) : 5);
}

/* A record of type with content p[0..n), protected once keys are set. */
int
eng_put_record(struct eng *c, int type, const unsigned char *p, size_t n)
{
	unsigned char *rec = c->obuf + c->oend;
	size_t len;

	if (n > eng_room(c))
		return -1;
	if (p != content(c))
		memmove(content(c), p, n);
	if (!c->wr_on) {
		rp_header(rec, type, n);
		c->oend += 5 + n;
		return 0;
	}
	if (c->version == TLS13)
		len = rp_seal(&c->wr, rec, n, c->olen - c->oend, type);
	else
		len = rp_seal12(&c->wr, rec, n, c->olen - c->oend, type);
	if (len == 0)
		return -1;
	c->oend += len;
	return 0;
}

/* As many handshake records of the server's flight as obuf takes. */
void
eng_write_flight(struct eng *c)
{
	int flight = c->phase;

	while (c->phase == flight) {
		size_t r = eng_room(c), n = 0, k;
		unsigned char *dst = content(c);
		int more = 1;

		if (r == 0)
			return;
		while (n < r) {
			if (c->piece.n == 0 && (more = c->hs->piece(c)) <= 0)
				break;
			k = c->piece.n < r - n ? c->piece.n : r - n;
			memcpy(dst + n, c->piece.p, k);
			th_add(&c->th, c->piece.p, k);
			c->piece.p += k;
			c->piece.n -= k;
			n += k;
		}
		if (more < 0 || (n > 0 &&
		    eng_put_record(c, CT_HANDSHAKE, dst, n) < 0)) {
			eng_fail(c, BR_ALERT_INTERNAL_ERROR);
			return;
		}
		if (more == 0)
			c->hs->flight_done(c);
	}
}

void
eng_pump(struct eng *c)
{
	if (c->oout < c->oend)
		return;
	c->oout = c->oend = 0;
	if (!c->owed_on && c->phase != P_DEAD)
		c->hs->pump(c);
	/* An alert goes after what was written, nothing after it. */
	if (c->owed_on && eng_put_record(c, CT_ALERT, c->owed, 2) == 0)
		c->owed_on = 0;
}

/*
 * An alert's two bytes: close_notify ends the peer's side; in TLS 1.2 a
 * warning is let pass, a few in a row at most (CVE-2016-8610: a peer
 * that sends nothing else would keep us busy for free); in TLS 1.3 every
 * other alert but user_canceled ends the connection (RFC 8446 6).
 */
void
eng_alert_in(struct eng *c, const unsigned char *p, size_t n)
{
	/* An empty alert is unexpected, a short one bad. */
	if (n != 2) {
		eng_fail(c, n == 0 ? BR_ALERT_UNEXPECTED_MESSAGE :
		    BR_ALERT_DECODE_ERROR);
		return;
	}
	if (p[1] == BR_ALERT_CLOSE_NOTIFY) {
		c->rclosed = 1;
		return;
	}
	if (p[1] == BR_ALERT_USER_CANCELED)	/* a close_notify follows */
		return;
	if (c->version == TLS12 && p[0] == ALERT_WARNING) {
		if (++c->warnings > ENG_WARNINGS_MAX)
			eng_fail(c, BR_ALERT_UNEXPECTED_MESSAGE);
		return;
	}
	c->phase = P_DEAD;
	c->err = BR_ERR_RECV_FATAL_ALERT + p[1];
	c->app_len = 0;
}

unsigned
eng_state(const struct eng *c)
{
	unsigned s = 0;

	if (c->oout < c->oend)
		s |= BR_SSL_SENDREC;
	if (c->phase == P_DEAD || (c->closing && c->rclosed)) {
		if (c->owed_on || c->oout < c->oend)
			return s | BR_SSL_SENDREC;
		return BR_SSL_CLOSED;
	}
	if (c->app_len > 0)
		s |= BR_SSL_RECVAPP;
	else if (!c->rclosed)
		s |= BR_SSL_RECVREC;
	if (c->phase == P_APP && !c->closing && c->oout == c->oend &&
	    !c->ku_owed && !c->nst_owed && !c->owed_on)
		s |= BR_SSL_SENDAPP;
	return s;
}

/* The record's length from its header, or 0 while the header is short. */
static size_t
record_len(const struct eng *c)
{
	return c->ipos < 5 ? 0 : tw_get16(c->ibuf + eng_ibase(c) + 3);
}

unsigned char *
eng_recvrec_buf(struct eng *c, size_t *len)
{
	if (!(eng_state(c) & BR_SSL_RECVREC)) {
		*len = 0;
		return NULL;
	}
	*len = c->ipos < 5 ? 5 - c->ipos : 5 + record_len(c) - c->ipos;
	return c->ibuf + eng_ibase(c) + c->ipos;
}

/*
 * A record's header h, at base in ibuf, for a version (TLS12, TLS13 or
 * none yet) and whether records are protected (rd_on, TLS 1.2): 0 or
 * the alert it earns.  0 keeps the whole record in ibuf: base + 5 + its
 * length <= ENG_IBUF_SIZE.  HANDSHAKE_FAILURE is that room's lack.
 */
unsigned
rec_header(const unsigned char *h, unsigned version, int rd_on,
    size_t base)
{
	size_t rl = tw_get16(h + 3);
	int prot = version == TLS13 ? h[0] == CT_APPLICATION_DATA : rd_on;

	/* RFC 5246 6.2.1-6.2.3, RFC 8446 5.1, 5.2. */
	if (rl > RP_CIPHER_MAX || (!prot && rl > RP_PLAIN_MAX))
		return BR_ALERT_RECORD_OVERFLOW;
	if (version == TLS12 && (h[1] != 3 || h[2] != 3))
		return BR_ALERT_PROTOCOL_VERSION;
	if (rl == 0 && h[0] != CT_APPLICATION_DATA)
		return BR_ALERT_DECODE_ERROR;
	/* After a part of a second hello (hs13.c): the rest of ibuf. */
	if (base + 5 + rl > ENG_IBUF_SIZE)
		return BR_ALERT_HANDSHAKE_FAILURE;
	return 0;
}

/* A record's header is in (at eng_ibase()): 0 or the alert it earns. */
static unsigned
header(struct eng *c)
{
	unsigned a = rec_header(c->ibuf + eng_ibase(c), c->version, c->rd_on,
	    eng_ibase(c));

	return a == BR_ALERT_HANDSHAKE_FAILURE ?
	    eng_refuse(c, a, "hello-too-large") : a;
}

void
eng_recvrec_ack(struct eng *c, size_t len)
{
	unsigned a = 0;

	c->ipos += len;
	if (c->ipos == 5)
		a = header(c);
	if (a == 0 && c->ipos >= 5 && c->ipos == 5 + record_len(c))
		a = c->hs->record(c);
	if (a != 0)
		eng_fail(c, a);
	eng_pump(c);
}

unsigned char *
eng_sendrec_buf(struct eng *c, size_t *len)
{
	*len = c->oend - c->oout;
	return *len > 0 ? c->obuf + c->oout : NULL;
}

void
eng_sendrec_ack(struct eng *c, size_t len)
{
	c->oout += len;
	eng_pump(c);
}

unsigned char *
eng_recvapp_buf(struct eng *c, size_t *len)
{
	*len = c->app_len;
	return c->app_len > 0 ? c->ibuf + c->app_off : NULL;
}

void
eng_recvapp_ack(struct eng *c, size_t len)
{
	c->app_off += len;
	c->app_len -= len;
	if (c->app_len == 0)
		c->ipos = 0;
}

unsigned char *
eng_sendapp_buf(struct eng *c, size_t *len)
{
	if (!(eng_state(c) & BR_SSL_SENDAPP)) {
		*len = 0;
		return NULL;
	}
	*len = eng_room(c) - c->app_w;
	return content(c) + c->app_w;
}

void
eng_sendapp_ack(struct eng *c, size_t len)
{
	c->app_w += len;
	if (c->app_w == eng_room(c))
		eng_flush(c);
}

void
eng_flush(struct eng *c)
{
	if (c->app_w == 0)
		return;
	if (eng_put_record(c, CT_APPLICATION_DATA, content(c), c->app_w) < 0)
		eng_fail(c, BR_ALERT_INTERNAL_ERROR);
	c->app_w = 0;
}

void
eng_close(struct eng *c)
{
	if (c->closing || c->phase == P_DEAD)
		return;
	eng_flush(c);
	c->closing = 1;
	c->owed[0] = ALERT_WARNING;
	c->owed[1] = BR_ALERT_CLOSE_NOTIFY;
	c->owed_on = 1;
	c->app_len = 0;
	/* In the handshake there is nothing more to say. */
	if (c->phase != P_APP)
		c->phase = P_DEAD;
	eng_pump(c);
}

int
eng_peer_closed(const struct eng *c)
{
	return c->rclosed;
}

int
eng_last_error(const struct eng *c)
{
	return c->err;
}

const char *
eng_reason(const struct eng *c)
{
	return c->reason;
}

void
eng_result(const struct eng *c, struct eng_result *r)
{
	r->version = c->version;
	r->suite = c->ch.suite;
	r->group = c->group;
	r->resumed = c->resumed != 0;
	r->hrr = c->hrr != 0;
}

unsigned
eng_alert(const struct eng *c)
{
	/* The peer's alert ended it (and ours, if any, was close_notify). */
	if (c->err == 0 || (c->err >= BR_ERR_RECV_FATAL_ALERT &&
	    c->err < BR_ERR_SEND_FATAL_ALERT))
		return 0;
	return c->owed[1];
}

void
eng_wipe(struct eng *c)
{
	ks_wipe(&c->ks);
	kx_wipe(&c->kx);
	rp_wipe(&c->rd);
	rp_wipe(&c->wr);
	wipe(c->c_secret, sizeof(c->c_secret));
	wipe(c->s_secret, sizeof(c->s_secret));
	wipe(c->c_ap, sizeof(c->c_ap));
	wipe(c->nst_key, sizeof(c->nst_key));
	wipe(c->ms, sizeof(c->ms));
	wipe(c->msg, sizeof(c->msg));
}
