/*
 * rec.c - the record layer of eng.h, both versions: records in and out
 * (RFC 5246 6.2, RFC 8446 5), alerts (RFC 5246 7.2, RFC 8446 6),
 * handshake messages joined across records and the client's Certificate
 * streamed into the validator, and BearSSL's buffer calls.  What a record
 * means is the handshake's: hs12.c and hs13.c.
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
		rec[0] = (unsigned char)type;
		rec[1] = 3;
		rec[2] = 3;
		rec[3] = (unsigned char)(n >> 8);
		rec[4] = (unsigned char)n;
		c->oend += 5 + n;
		return 0;
	}
	if (c->version == TLS13)
		len = rp_seal(&c->wr, rec, n, c->olen - c->oend, type, 0);
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

/* Whatever is owed, once what was written before it is out. */
static void
pump(struct eng *c)
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

int
eng_start(struct eng *c, unsigned char *ibuf, size_t ilen,
    unsigned char *obuf, size_t olen, const unsigned char *m, size_t len,
    const struct eng_ops *ops)
{
	struct hello h;
	unsigned alert;

	memset(c, 0, sizeof(*c));
	c->hs = &hs12_class;
	c->ibuf = ibuf;
	c->obuf = obuf;
	c->olen = olen;
	c->ops = ops;
	c->rng = ops->rng;
	/* Records are read whole into ibuf: it must hold the largest. */
	if (ilen < ENG_IBUF_SIZE)
		alert = BR_ALERT_INTERNAL_ERROR;
	else if ((alert = hello_parse(m, len, &h)) != 0)
		c->reason = h.why;
	else {
		c->mfl = h.mfl;
		if (h.v13 && ops->vmax >= TLS13)
			c->hs = &hs13_class;
		alert = c->hs->hello(c, m, len, &h);
	}
	if (alert != 0)
		eng_fail(c, alert);
	pump(c);
	return (int)alert;
}

/* The fields of a client's Certificate (RFC 5246 7.4.2, RFC 8446 4.4.2). */
enum { CC_CTX, CC_LIST, CC_LEN, CC_DER, CC_EXTLEN, CC_EXT };

static void
cc_next(struct eng *c, int field, size_t need)
{
	c->cc_field = field;
	c->cc_need = need;
	c->cc_acc = 0;
}

/* A Certificate's header is in: stream it into the validator. */
void
eng_cert_start(struct eng *c)
{
	(*c->ch.x509)->start_chain(c->ch.x509, NULL);
	c->ncert = 0;
	c->cc_left = c->mlen;
	/* TLS 1.2 has no request context. */
	if (c->version == TLS13)
		cc_next(c, CC_CTX, 1);
	else
		cc_next(c, CC_LIST, 3);
}

/*
 * n more bytes of the client's Certificate, inside the message: each
 * certificate's DER goes to the validator as it comes, lengths are
 * checked against what is left of the message.
 */
unsigned
eng_cert_in(struct eng *c, const unsigned char *p, size_t n)
{
	const br_x509_class **x = c->ch.x509;
	size_t k, left;

	c->cc_left -= n;
	while (n > 0) {
		k = 1;
		if (c->cc_field == CC_DER || c->cc_field == CC_EXT) {
			k = n < c->cc_need ? n : c->cc_need;
			if (c->cc_field == CC_DER)
				(*x)->append(x, p, k);
		} else
			c->cc_acc = c->cc_acc << 8 | *p;
		p += k;
		n -= k;
		if ((c->cc_need -= k) > 0)
			continue;
		left = c->cc_left + n;		/* after this field */
		switch (c->cc_field) {
		case CC_CTX:	/* ours was empty: so is the echo */
			if (c->cc_acc != 0)
				return BR_ALERT_ILLEGAL_PARAMETER;
			cc_next(c, CC_LIST, 3);
			break;
		case CC_LIST:
			if (c->cc_acc != left)
				return BR_ALERT_DECODE_ERROR;
			cc_next(c, CC_LEN, 3);
			break;
		case CC_LEN:
			if (c->cc_acc == 0 || c->cc_acc +
			    (c->version == TLS13 ? 2 : 0) > left)
				return BR_ALERT_DECODE_ERROR;
			(*x)->start_cert(x, c->cc_acc);
			c->ncert++;
			cc_next(c, CC_DER, c->cc_acc);
			break;
		case CC_DER:
			(*x)->end_cert(x);
			if (c->version == TLS13)
				cc_next(c, CC_EXTLEN, 2);
			else
				cc_next(c, CC_LEN, 3);
			break;
		case CC_EXTLEN:
			if (c->cc_acc > left)
				return BR_ALERT_DECODE_ERROR;
			cc_next(c, c->cc_acc > 0 ? CC_EXT : CC_LEN,
			    c->cc_acc > 0 ? c->cc_acc : 3);
			break;
		default:	/* CC_EXT: skipped, none was asked for */
			cc_next(c, CC_LEN, 3);
			break;
		}
	}
	return 0;
}

/* The whole Certificate is in: an empty one, or a chain we trust. */
unsigned
eng_cert_end(struct eng *c)
{
	const br_x509_class **x = c->ch.x509;
	unsigned usages;
	unsigned err;

	if (c->cc_field != CC_LEN || c->cc_need != 3)
		return BR_ALERT_DECODE_ERROR;
	if (c->ncert == 0) {
		c->why = BR_ERR_NO_CLIENT_AUTH;
		/* TLS 1.2 has no certificate_required (RFC 5246 7.4.6). */
		return c->version == TLS13 ? ALERT_CERTIFICATE_REQUIRED :
		    BR_ALERT_HANDSHAKE_FAILURE;
	}
	switch (c->why = (int)(err = (*x)->end_chain(x))) {
	case 0:
		break;
	case BR_ERR_X509_NOT_TRUSTED:
		return BR_ALERT_UNKNOWN_CA;
	case BR_ERR_X509_EXPIRED:
		return BR_ALERT_CERTIFICATE_EXPIRED;
	default:
		return err == BR_ERR_X509_UNSUPPORTED ?
		    BR_ALERT_UNSUPPORTED_CERTIFICATE : BR_ALERT_BAD_CERTIFICATE;
	}
	if ((*x)->get_pkey(x, &usages) == NULL || !(usages & BR_KEYTYPE_SIGN)) {
		c->why = BR_ERR_WRONG_KEY_USAGE;
		return BR_ALERT_UNSUPPORTED_CERTIFICATE;
	}
	return 0;
}

/*
 * Handshake bytes of the client, in any records' split.  A Certificate
 * streams (and a message the handshake drops, skip); the others are
 * read whole into c->msg, whose size the head's checks keep them in.
 */
unsigned
eng_handshake(struct eng *c, const unsigned char *p, size_t n)
{
	unsigned a = 0;
	int v13 = c->version == TLS13;

	while (n > 0 && a == 0) {
		size_t k, have;
		int done, stream;

		stream = c->hs_len >= 4 && (c->msg[0] == HT_CERTIFICATE ||
		    c->skip);
		if (c->hs_len < 4) {
			k = 4 - c->hs_len < n ? 4 - c->hs_len : n;
			memcpy(c->msg + c->hs_len, p, k);
			c->hs_len += k;
			if (c->hs_len == 4) {
				c->mlen = tw_get24(c->msg + 1);
				a = c->hs->head(c);
			}
		} else if (stream) {
			k = c->cc_left < n ? c->cc_left : n;
			if (c->skip) {
				c->cc_left -= k;
			} else {
				th_add(&c->th, p, k);
				a = eng_cert_in(c, p, k);
			}
		} else {
			have = c->hs_len - 4;
			k = c->mlen - have < n ? c->mlen - have : n;
			memcpy(c->msg + c->hs_len, p, k);
			c->hs_len += k;
		}
		p += k;
		n -= k;
		stream = c->hs_len >= 4 && (c->msg[0] == HT_CERTIFICATE ||
		    c->skip);
		done = c->hs_len >= 4 && (stream ? c->cc_left == 0 :
		    c->hs_len == 4 + c->mlen);
		if (a != 0 || !done)
			continue;
		c->skip = 0;
		a = c->hs->end(c);
		c->hs_len = 0;
		/* No message may span a change of keys (RFC 8446 5.1). */
		if (a == 0 && v13 && (c->msg[0] == HT_FINISHED ||
		    c->msg[0] == HT_KEY_UPDATE) && n > 0)
			a = BR_ALERT_UNEXPECTED_MESSAGE;
	}
	return a;
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
	return c->ipos < 5 ? 0 : tw_get16(c->ibuf + 3);
}

unsigned char *
eng_recvrec_buf(struct eng *c, size_t *len)
{
	if (!(eng_state(c) & BR_SSL_RECVREC)) {
		*len = 0;
		return NULL;
	}
	*len = c->ipos < 5 ? 5 - c->ipos : 5 + record_len(c) - c->ipos;
	return c->ibuf + c->ipos;
}

/* A record's header is in ibuf[0..5): 0 or the alert its limits earn. */
static unsigned
header(const struct eng *c)
{
	const unsigned char *h = c->ibuf;
	size_t rl = record_len(c);
	int prot = c->version == TLS13 ? h[0] == CT_APPLICATION_DATA :
	    c->rd_on;

	/* RFC 5246 6.2.1-6.2.3, RFC 8446 5.1, 5.2. */
	if (rl > RP_CIPHER_MAX || (!prot && rl > RP_PLAIN_MAX))
		return BR_ALERT_RECORD_OVERFLOW;
	if (c->version == TLS12 && (h[1] != 3 || h[2] != 3))
		return BR_ALERT_PROTOCOL_VERSION;
	if (rl == 0 && h[0] != CT_APPLICATION_DATA)
		return BR_ALERT_DECODE_ERROR;
	return 0;
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
	pump(c);
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
	pump(c);
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
	pump(c);
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

int
eng_hrr(const struct eng *c)
{
	return c->hrr != 0;
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
	wipe(c->ms, sizeof(c->ms));
	wipe(c->msg, sizeof(c->msg));
}
