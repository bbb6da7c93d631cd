/*
 * hs.c - what both versions' handshakes share: handshake messages joined
 * across records (RFC 5246 7.4, RFC 8446 4), and the client's
 * Certificate streamed into the X.509 validator as it comes, never held
 * whole.
 */
#include <string.h>

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

void
hs_cert_start(struct eng *c)
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
hs_cert_end(struct eng *c)
{
	const br_x509_class **x = c->ch.x509;
	unsigned usages, err;

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
hs_message(struct eng *c, const unsigned char *p, size_t n)
{
	unsigned a = 0;
	int v13 = c->version == TLS13;

	while (n > 0 && a == 0) {
		size_t k, have;
		int done, stream;

		if (c->hs_len < 4) {
			k = 4 - c->hs_len < n ? 4 - c->hs_len : n;
			memcpy(c->msg + c->hs_len, p, k);
			c->hs_len += k;
			if (c->hs_len == 4) {
				c->mlen = tw_get24(c->msg + 1);
				a = c->hs->head(c);
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
