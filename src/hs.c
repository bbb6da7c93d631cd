/* SPDX-License-Identifier: ISC */
/*
 * hs.c - what both versions' handshakes share: an opened record's
 * content, handshake messages joined across records (RFC 5246 7.4,
 * RFC 8446 4) and held to the phase, the client's Certificate streamed
 * into the X.509 validator as it comes, never whole, and our extensions.
 */
#include <string.h>

#include "crl.h"
#include "engint.h"
#include "tlswire.h"

/* The fields of a client's Certificate (RFC 5246 7.4.2, RFC 8446 4.4.2). */
enum { CC_CTX, CC_LIST, CC_LEN, CC_DER, CC_EXTLEN, CC_EXT };

static void
cc_next(struct eng *c, int field, size_t need)
{
	c->cc_field = field;
	c->cc_need = need;
	c->cc_acc = 0;
}

/*
 * n more bytes of the client's Certificate, inside the message: each
 * certificate's DER goes to the validator as it comes, lengths are
 * checked against what is left of the message.
 */
static unsigned
hs_cert_in(struct eng *c, const unsigned char *p, size_t n)
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
			/*
			 * BearSSL's validator checks each certificate's
			 * signature with the next one's key, whether or not
			 * the chain ends at a CA of ours: a long chain would
			 * buy a client thousands of signature checks.
			 */
			if (++c->ncert > ENG_CHAIN_MAX) {
				c->why = BR_ERR_X509_LIMIT_EXCEEDED;
				return BR_ALERT_BAD_CERTIFICATE;
			}
			(*x)->start_cert(x, c->cc_acc);
			cc_next(c, CC_DER, c->cc_acc);
			break;
		case CC_DER:
			(*x)->end_cert(x);
			cc_next(c, c->version == TLS13 ? CC_EXTLEN : CC_LEN,
			    c->version == TLS13 ? 2 : 3);
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

/*
 * The whole Certificate is in: a chain we trust, and then the phase is
 * next; or an empty one where certificates are optional, and then the
 * phase is none (no CertificateVerify follows).
 */
unsigned
hs_cert_end(struct eng *c, int next, int none)
{
	const br_x509_class **x = c->ch.x509;
	unsigned usages, err;

	if (c->cc_field != CC_LEN || c->cc_need != 3)
		return BR_ALERT_DECODE_ERROR;
	if (c->ncert == 0 && c->ch.cert_optional) {
		c->phase = (unsigned char)none;
		return 0;
	}
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
	case CRL_ERR_REVOKED:
		return BR_ALERT_CERTIFICATE_REVOKED;
	case CRL_ERR_STALE:	/* no CRL to clear it with */
		return BR_ALERT_CERTIFICATE_UNKNOWN;
	default:
		return err == BR_ERR_X509_UNSUPPORTED ?
		    BR_ALERT_UNSUPPORTED_CERTIFICATE : BR_ALERT_BAD_CERTIFICATE;
	}
	if ((*x)->get_pkey(x, &usages) == NULL || !(usages & BR_KEYTYPE_SIGN)) {
		c->why = BR_ERR_WRONG_KEY_USAGE;
		return BR_ALERT_UNSUPPORTED_CERTIFICATE;
	}
	c->phase = (unsigned char)next;
	return 0;
}

/*
 * The client's CertificateVerify in msg (RFC 5246 7.4.8, RFC 8446
 * 4.4.3), over the transcript through its Certificate, with a scheme our
 * CertificateRequest offered (hs_cr_sigs()) for the certificate's key:
 * at TLS 1.3 one bound to its curve, at 1.2 one of the transcript's
 * hash.  0 and the phase next, or an alert.
 */
unsigned
hs_cert_verify(struct eng *c, int next)
{
	const br_x509_class **x = c->ch.x509;
	const br_x509_pkey *pk = (*x)->get_pkey(x, NULL);
	const unsigned char *m = c->msg;
	unsigned code = (unsigned)tw_get16(m + 4);
	const struct tls_sig *s = sig_scheme(code, c->version == TLS13);
	unsigned char th[HASH_MAX];
	size_t len = 4 + c->mlen, hl;
	int ok;

	if (len < 8 || len != 8 + tw_get16(m + 6))
		return BR_ALERT_DECODE_ERROR;
	if (pk == NULL || (c->version == TLS13 ? !sig_cv_fits((int)code, pk) :
	    s == NULL || s->hash != hash_id(c->th.h.vtable) ||
	    pk->key_type != (s->kind == SIG_ECDSA ? BR_KEYTYPE_EC :
	    BR_KEYTYPE_RSA)))
		return BR_ALERT_ILLEGAL_PARAMETER;
	hl = th_hash(&c->th, th);
	ok = c->version == TLS13 ? sig_cv_verify((int)code, 0, th, hl, pk,
	    m + 8, len - 8) : sig_verify(s, th, hl, pk, m + 8, len - 8);
	if (!ok) {
		c->why = BR_ERR_BAD_SIGNATURE;
		return BR_ALERT_DECRYPT_ERROR;
	}
	th_add(&c->th, m, len);
	c->phase = (unsigned char)next;
	return 0;
}

/*
 * A client message's header is in c->msg: is it one the phase expects,
 * in the class's want[], of a length it may have?  A Certificate starts
 * streaming; a ClientHello once established (TLS 1.2) is read, dropped.
 */
static unsigned
hs_head(struct eng *c)
{
	const struct hs_want *want = c->hs->want;
	size_t i, n = c->hs->nwant;

	for (i = 0; i < n; i++)
		if (want[i].phase == c->phase && want[i].type == c->msg[0])
			break;
	if (i == n)
		return BR_ALERT_UNEXPECTED_MESSAGE;
	if (c->mlen < want[i].min || c->mlen > want[i].max)
		return BR_ALERT_DECODE_ERROR;
	c->cc_left = c->mlen;		/* for a message that streams */
	if (c->msg[0] == HT_CERTIFICATE) {
		th_add(&c->th, c->msg, 4);
		(*c->ch.x509)->start_chain(c->ch.x509, NULL);
		c->ncert = 0;
		/* TLS 1.2 has no request context. */
		cc_next(c, c->version == TLS13 ? CC_CTX : CC_LIST,
		    c->version == TLS13 ? 1 : 3);
	} else if (c->msg[0] == HT_CLIENT_HELLO)
		c->skip = 1;
	return 0;
}

/*
 * Of the n bytes at p, those that complete msg's 4-byte header (*fill <
 * 4), else its body of mlen bytes, copied in at *fill, which moves on.
 * Returns the bytes taken.  msg's size bounds the body: head() never
 * lets mlen past sizeof(msg) - 4.
 */
size_t
hs_frame(unsigned char *msg, size_t *fill, size_t mlen,
    const unsigned char *p, size_t n)
{
	size_t end = *fill < 4 ? 4 : 4 + mlen;
	size_t k = end - *fill < n ? end - *fill : n;

	memcpy(msg + *fill, p, k);
	*fill += k;
	return k;
}

/*
 * Handshake bytes of the client, in any records' split.  A Certificate
 * streams (and a message the handshake drops, skip); the others are
 * read whole into c->msg, whose size the head's checks keep them in.
 */
static unsigned
hs_message(struct eng *c, const unsigned char *p, size_t n)
{
	unsigned a = 0;
	int v13 = c->version == TLS13;

	while (n > 0 && a == 0) {
		size_t k;
		int done, stream;

		if (c->hs_len < 4) {
			k = hs_frame(c->msg, &c->hs_len, 0, p, n);
			if (c->hs_len == 4) {
				c->mlen = tw_get24(c->msg + 1);
				a = hs_head(c);
			}
		} else if (c->msg[0] == HT_CERTIFICATE || c->skip) {
			k = c->cc_left < n ? c->cc_left : n;
			if (c->skip) {
				c->cc_left -= k;
			} else {
				th_add(&c->th, p, k);
				a = hs_cert_in(c, p, k);
			}
		} else {
			k = hs_frame(c->msg, &c->hs_len, c->mlen, p, n);
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
 * A record's content, opened, or the record layer's RP_ERR_*: 0 or the
 * alert it earns.  hs: whether the phase takes handshake messages.
 */
unsigned
hs_content(struct eng *c, int type, unsigned char *p, size_t len, int hs)
{
	switch (type) {
	case RP_ERR_MAC:
		return eng_refuse(c, BR_ALERT_BAD_RECORD_MAC, "bad-mac");
	case RP_ERR_OVERFLOW:
		return BR_ALERT_RECORD_OVERFLOW;
	case RP_ERR_SEQ:
		return BR_ALERT_INTERNAL_ERROR;
	}
	/* Nothing between the records of one message (RFC 8446 5.1). */
	if (c->hs_len > 0 && type != CT_HANDSHAKE)
		return BR_ALERT_UNEXPECTED_MESSAGE;
	switch (type) {
	case CT_ALERT:
		eng_alert_in(c, p, len);
		return 0;
	case CT_HANDSHAKE:
		if (len == 0 || !hs)
			return BR_ALERT_UNEXPECTED_MESSAGE;
		return hs_message(c, p, len);
	case CT_APPLICATION_DATA:
		if (c->phase != P_APP)
			return BR_ALERT_UNEXPECTED_MESSAGE;
		/* After our close_notify what comes is dropped. */
		if (!c->closing && len > 0) {
			c->app_off = (size_t)(p - c->ibuf);
			c->app_len = len;
			c->ipos = c->app_off + len;
		}
		return 0;
	}
	return BR_ALERT_UNEXPECTED_MESSAGE;	/* RP_ERR_EMPTY, or unknown */
}

/*
 * A CertificateRequest's signature schemes, what the client's
 * CertificateVerify may use: the registry's TLS 1.3 ones, or in TLS 1.2
 * those of the transcript's hash.  No signature_algorithms_cert in 1.3:
 * BearSSL's validator takes the PKCS#1 v1.5 certificates CAs sign, which
 * a client then need not avoid.
 */
size_t
hs_cr_sigs(const struct eng *c, unsigned *out, size_t cap)
{
	const struct tls_sig *s = tls_sigs;
	size_t n = 0;

	for (; s < tls_sigs + tls_nsigs && n < cap; s++)
		if (c->version == TLS13 ? s->v13 : s->kind != 0 &&
		    s->hash == hash_id(c->th.h.vtable))
			out[n++] = s->code;
	return n;
}

/*
 * The bytes of a CertificateRequest's CA names, each with its length, or
 * 0 if with the request's other bytes they do not fit its 16-bit vector.
 */
size_t
hs_ca_names_len(const struct eng_choice *ch, size_t others)
{
	size_t n = 0;

	for (size_t i = 0; i < ch->ncas; i++)
		n += 2 + ch->cas[i].dn.len;
	return n + others <= 0xffff ? n : 0;
}

/*
 * The extensions both versions answer alike, in TLS 1.2's ServerHello
 * and TLS 1.3's EncryptedExtensions: max_fragment_length, ALPN.
 */
void
hs_put_exts(const struct eng *c, struct tw *w)
{
	if (c->mfl != 0) {
		tw_u16(w, EXT_MAX_FRAGMENT_LENGTH);
		tw_u16(w, 1);
		tw_u8(w, c->mfl);
	}
	if (c->ch.alpn) {
		tw_u16(w, EXT_ALPN);
		tw_open(w, 2);
		tw_open(w, 2);
		tw_open(w, 1);
		tw_put(w, "http/1.1", 8);
		tw_close(w);
		tw_close(w);
		tw_close(w);
	}
}

/*
 * Both flights end each piece alike: the bytes, in msg or the chain's
 * own storage, stay where they are until rec.c has sealed them, so only
 * the pointer is kept (eng.h's piece), and the stage moves on.
 */
int
hs_piece_done(struct eng *c, const struct tw *w, const unsigned char *s,
    int next)
{
	if (w->err)
		return -1;
	c->fl_stage = next;
	c->piece.p = s;
	c->piece.n = w->n;
	return 1;
}
