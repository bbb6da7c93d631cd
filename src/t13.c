/*
 * t13.c - see t13.h.
 *
 *   start --no share for a group both have--> HRR, HELLO2
 *   start, HELLO2 --second hello--> ServerHello [CCS] FLIGHT
 *   FLIGHT --EE, [CertificateRequest,] Certificate, CertificateVerify,
 *       Finished written--> FIN, or CCERT if a certificate was asked for
 *   CCERT --the client's Certificate, chain valid--> CCV
 *   CCV --its CertificateVerify, signature valid--> FIN
 *   FIN --the client's Finished--> APP
 *   any --error--> alert owed --written--> DEAD
 */
#include <string.h>

#include "t13.h"

enum {
	T13_P_HELLO2,		/* after HRR: the second ClientHello */
	T13_P_FLIGHT,		/* writing EE .. Finished */
	T13_P_CCERT,		/* waiting for the client's Certificate */
	T13_P_CCV,		/* ... and its CertificateVerify */
	T13_P_FIN,		/* waiting for the client's Finished */
	T13_P_APP,		/* application data both ways */
	T13_P_DEAD,		/* failed or closed */
};

/* Alerts (RFC 8446 6). */
#define A_CLOSE_NOTIFY		0
#define A_UNEXPECTED		10
#define A_BAD_MAC		20
#define A_OVERFLOW		22
#define A_HANDSHAKE		40
#define A_BAD_CERT		42
#define A_UNSUPPORTED_CERT	43
#define A_CERT_EXPIRED		45
#define A_ILLEGAL		47
#define A_UNKNOWN_CA		48
#define A_DECODE		50
#define A_DECRYPT		51
#define A_INTERNAL		80
#define A_CERT_REQUIRED		116

/* Early data we drop unread, at most (RFC 8446 4.2.10). */
#define EARLY_MAX		((size_t)(16384 + 256) * 4)

/* SHA-256("HelloRetryRequest"), HRR's random (RFC 8446 4.1.3). */
static const unsigned char hrr_random[32] = {
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02,
	0x1e, 0x65, 0xb8, 0x91, 0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e,
	0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};

static void
put16(unsigned char *p, size_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static void
put24(unsigned char *p, size_t v)
{
	p[0] = (unsigned char)(v >> 16);
	put16(p + 1, v);
}

static size_t
hash_len(const struct t13_conn *c)
{
	return c->ks.hlen;
}

static size_t
dig_len(const br_hash_class *dig)
{
	return dig->desc >> BR_HASHDESC_OUT_OFF & BR_HASHDESC_OUT_MASK;
}

/* Fail with a fatal alert: it goes out after what is already written. */
static void
fail(struct t13_conn *c, unsigned alert)
{
	if (c->phase == T13_P_DEAD)
		return;
	c->phase = T13_P_DEAD;
	c->err = c->why != 0 ? c->why : BR_ERR_SEND_FATAL_ALERT + (int)alert;
	c->owed[0] = 2;
	c->owed[1] = (unsigned char)alert;
	c->owed_on = 1;
	c->app_len = 0;
	c->ku_owed = 0;
}

/* Room for one more record's content at the end of obuf. */
static size_t
room(const struct t13_conn *c)
{
	size_t r;

	if (c->oend + T13_REC_OVERHEAD + 1 > c->olen)
		return 0;
	r = c->olen - c->oend - T13_REC_OVERHEAD;
	return r > T13_PLAIN_MAX ? T13_PLAIN_MAX : r;
}

/* A record of type with content p[0..n), protected once keys are set. */
static int
put_record(struct t13_conn *c, int type, const unsigned char *p, size_t n)
{
	unsigned char *rec = c->obuf + c->oend;
	size_t len;

	if (n > room(c))
		return -1;
	memmove(rec + 5, p, n);
	if (!c->wr_on) {
		rec[0] = (unsigned char)type;
		put16(rec + 1, 0x0303);
		put16(rec + 3, n);
		c->oend += 5 + n;
		return 0;
	}
	len = t13_rec_seal(&c->wr, rec, n, c->olen - c->oend, type, 0);
	if (len == 0)
		return -1;
	c->oend += len;
	return 0;
}

/* The flight's pieces, in order (fl_stage). */
enum {
	F_EE, F_CR, F_CA_LEN, F_CA_DN, F_CERT, F_CERT_LEN, F_CERT_DER,
	F_CERT_EXT, F_CV, F_FIN, F_DONE
};

/*
 * CertificateRequest's signature_algorithms: what CertificateVerify may
 * use.  No signature_algorithms_cert: BearSSL's validator takes the
 * PKCS#1 v1.5 certificates CAs sign, which a client then need not avoid.
 */
static const unsigned char cr_sigs[] = {
	0, 13, 0, 14, 0, 12, 4, 3, 5, 3, 6, 3, 8, 4, 8, 5, 8, 6,
};

/* The CA names' bytes in certificate_authorities (0: too many to send). */
static size_t
ca_names_len(const struct t13_choice *ch)
{
	size_t n = 0;

	for (size_t i = 0; i < ch->ncas; i++)
		n += 2 + ch->cas[i].dn.len;
	return n + 6 + sizeof(cr_sigs) + 4 <= 0xffff ? n : 0;
}

/*
 * The next piece of EE, [CertificateRequest,] Certificate,
 * CertificateVerify, Finished: into c->piece, 0 at the end, -1 on error.
 */
static int
next_piece(struct t13_conn *c)
{
	unsigned char *s = c->msg, th[T13_HASH_MAX];
	size_t n = 0, total;
	const br_hash_class *dig = c->ks.dig;
	int next = c->fl_stage + 1;

	switch (c->fl_stage) {
	case F_EE:	/* EncryptedExtensions: ALPN, if asked */
		s[0] = 8;
		/* A resumption has the ticket's authentication: Finished. */
		if (c->resumed)
			next = F_FIN;
		else if (c->ch.x509 == NULL)
			next = F_CERT;
		if (c->ch.alpn) {
			static const unsigned char alpn[] = { 0, 16, 0, 11, 0,
			    9, 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };

			memcpy(s + 6, alpn, sizeof(alpn));
			n = sizeof(alpn);
		}
		put16(s + 4, n);
		put24(s + 1, n + 2);
		n += 6;
		break;
	case F_CR:	/* CertificateRequest: empty context, schemes, CAs */
		total = ca_names_len(&c->ch);
		n = sizeof(cr_sigs) + (total > 0 ? 6 : 0);
		s[0] = 13;
		put24(s + 1, 3 + n + total);
		s[4] = 0;
		put16(s + 5, n + total);
		memcpy(s + 7, cr_sigs, sizeof(cr_sigs));
		if (total > 0) {
			put16(s + 7 + sizeof(cr_sigs), 47);
			put16(s + 9 + sizeof(cr_sigs), 2 + total);
			put16(s + 11 + sizeof(cr_sigs), total);
		} else
			next = F_CERT;
		n += 7;
		c->fl_cert = 0;
		break;
	case F_CA_LEN:	/* a CA's name: its length, then its DER */
		put16(s, c->ch.cas[c->fl_cert].dn.len);
		n = 2;
		break;
	case F_CA_DN:
		s = c->ch.cas[c->fl_cert].dn.data;
		n = c->ch.cas[c->fl_cert].dn.len;
		if (++c->fl_cert < c->ch.ncas)
			next = F_CA_LEN;
		break;
	case F_CERT:	/* Certificate: empty context, then the list */
		total = 0;
		for (size_t i = 0; i < c->ch.nchain; i++)
			total += 3 + c->ch.chain[i].data_len + 2;
		s[0] = 11;
		put24(s + 1, total + 4);
		s[4] = 0;
		put24(s + 5, total);
		n = 8;
		c->fl_cert = 0;
		break;
	case F_CERT_LEN:	/* an entry's length */
		put24(s, c->ch.chain[c->fl_cert].data_len);
		n = 3;
		break;
	case F_CERT_DER:	/* its DER, from the chain */
		s = c->ch.chain[c->fl_cert].data;
		n = c->ch.chain[c->fl_cert].data_len;
		break;
	case F_CERT_EXT:	/* its extensions: none */
		s[0] = s[1] = 0;
		n = 2;
		if (++c->fl_cert < c->ch.nchain)
			next = F_CERT_LEN;
		break;
	case F_CV:	/* CertificateVerify over the transcript so far */
		t13_transcript_hash(&c->th, th);
		n = t13_cv_sign((int)c->ch.scheme, 1, th, hash_len(c), c->ch.ec,
		    c->ch.rsa, c->rng, s + 8, sizeof(c->msg) - 8);
		if (n == 0)
			return -1;
		s[0] = 15;
		put24(s + 1, n + 4);
		put16(s + 4, c->ch.scheme);
		put16(s + 6, n);
		n += 8;
		break;
	case F_FIN:
		t13_transcript_hash(&c->th, th);
		t13_finished(dig, c->s_secret, th, s + 4);
		s[0] = 20;
		put24(s + 1, hash_len(c));
		n = 4 + hash_len(c);
		break;
	default:
		return 0;
	}
	c->fl_stage = next;
	c->piece.p = s;
	c->piece.n = n;
	return 1;
}

/* After our Finished: application keys out, the client's to come. */
static void
flight_done(struct t13_conn *c)
{
	unsigned char th[T13_HASH_MAX];

	t13_transcript_hash(&c->th, th);
	t13_ks_master(&c->ks);
	t13_ks_derive(&c->ks, "s ap traffic", th, c->s_secret);
	t13_ks_derive(&c->ks, "c ap traffic", th, c->c_ap);
	t13_rec_init(&c->wr, (int)c->ch.suite, c->s_secret);
	c->phase = c->ch.x509 != NULL && !c->resumed ? T13_P_CCERT : T13_P_FIN;
}

/* As many records of the flight as obuf takes. */
static void
write_flight(struct t13_conn *c)
{
	while (c->phase == T13_P_FLIGHT) {
		size_t r = room(c), n = 0, k;
		unsigned char *dst = c->obuf + c->oend + 5;
		int more = 1;

		if (r == 0)
			return;
		while (n < r) {
			if (c->piece.n == 0 && (more = next_piece(c)) <= 0)
				break;
			k = c->piece.n < r - n ? c->piece.n : r - n;
			memcpy(dst + n, c->piece.p, k);
			t13_transcript_add(&c->th, c->piece.p, k);
			c->piece.p += k;
			c->piece.n -= k;
			n += k;
		}
		if (more < 0 || put_record(c, 22, dst, n) < 0) {
			fail(c, A_INTERNAL);
			return;
		}
		if (more == 0)
			flight_done(c);
	}
}

/* Whatever is owed, once what was written before it is out. */
static void
pump(struct t13_conn *c)
{
	unsigned char m[5];

	if (c->oout < c->oend)
		return;
	c->oout = c->oend = 0;
	if (c->owed_on) {
		(void)put_record(c, 21, c->owed, 2);
		c->owed_on = 0;
		return;
	}
	if (c->phase == T13_P_FLIGHT)
		write_flight(c);
	else if (c->nst_owed && c->app_w == 0) {
		if (put_record(c, 22, c->nst, 50) == 0)
			c->nst_owed = 0;
	} else if (c->ku_owed && c->app_w == 0) {
		m[0] = 24;
		put24(m + 1, 1);
		m[4] = 0;
		if (put_record(c, 22, m, 5) == 0) {
			t13_next_secret(c->ks.dig, c->s_secret);
			t13_rec_init(&c->wr, (int)c->ch.suite, c->s_secret);
			c->ku_owed = 0;
		}
	}
}

/* ServerHello, or HelloRetryRequest (pub NULL), into obuf as a record. */
static int
server_hello(struct t13_conn *c, const unsigned char *pub, size_t publen)
{
	unsigned char m[4 + 2 + 32 + 33 + 3 + 2 + 6 + 8 + T13_KX_PUB_MAX + 6];
	unsigned char *p;
	size_t n;

	p = m + 4;
	put16(p, 0x0303);
	if (pub == NULL)
		memcpy(p + 2, hrr_random, 32);
	else
		(*c->rng)->generate(c->rng, p + 2, 32);
	p += 34;
	*p++ = (unsigned char)c->sid_len;
	memcpy(p, c->sid, c->sid_len);
	p += c->sid_len;
	put16(p, c->ch.suite);
	p[2] = 0;
	p += 3;
	n = 6 + (pub == NULL ? 6 : 8 + publen) + (c->resumed ? 6 : 0);
	put16(p, n);
	p += 2;
	if (c->resumed) {		/* pre_shared_key: the first identity */
		put16(p, 41);
		put16(p + 2, 2);
		put16(p + 4, 0);
		p += 6;
	}
	put16(p, 43);			/* supported_versions: 1.3 */
	put16(p + 2, 2);
	put16(p + 4, 0x0304);
	p += 6;
	put16(p, 51);			/* key_share */
	if (pub == NULL) {
		put16(p + 2, 2);
		put16(p + 4, c->group);
		p += 6;
	} else {
		put16(p + 2, 4 + publen);
		put16(p + 4, c->group);
		put16(p + 6, publen);
		memcpy(p + 8, pub, publen);
		p += 8 + publen;
	}
	n = (size_t)(p - m);
	m[0] = 2;
	put24(m + 1, n - 4);
	t13_transcript_add(&c->th, m, n);
	if (put_record(c, 22, m, n) < 0)
		return -1;
	/* Middlebox compatibility (RFC 8446 D.4): one CCS, after the first. */
	if (c->sid_len > 0 && !c->ccs_sent) {
		static const unsigned char one = 1;

		c->ccs_sent = 1;
		return put_record(c, 20, &one, 1);
	}
	return 0;
}

static size_t
get16(const unsigned char *p)
{
	return (size_t)p[0] << 8 | p[1];
}

static size_t
get24(const unsigned char *p)
{
	return (size_t)p[0] << 16 | get16(p + 1);
}

/*
 * The hash of what a second ClientHello must repeat of the first (RFC
 * 8446 4.1.2): all but key_share, early_data, cookie, pre_shared_key and
 * padding, in the same order.  m has passed t13_parse().
 */
static void
hello_digest(const unsigned char *m, size_t len, unsigned char *out)
{
	br_sha256_context h;
	size_t p = 4 + 2 + 32, end;

	br_sha256_init(&h);
	p += 1 + (size_t)m[p];
	p += 2 + get16(m + p);
	p += 1 + (size_t)m[p];
	br_sha256_update(&h, m + 4, p - 4);
	end = p + 2 <= len ? p + 2 + get16(m + p) : p;
	for (p += 2; end <= len && p + 4 <= end; p += 4 + get16(m + p + 2)) {
		size_t t = get16(m + p);

		if (t != 51 && t != 42 && t != 44 && t != 41 && t != 21)
			br_sha256_update(&h, m + p, 4 + get16(m + p + 2));
	}
	br_sha256_out(&h, out);
}

/*
 * The first PSK identity of the hello, if it is one of our tickets for
 * the suite's hash and its binder, over the hello up to the binders,
 * verifies (RFC 8446 4.2.11.2): 0, with c->resumed and c->psk if so, or
 * decrypt_error.  The ticket is gone either way: one use only.
 */
static unsigned
psk(struct t13_conn *c, const unsigned char *m, const struct t13_hello *h,
    const br_hash_class *dig)
{
	const unsigned char *b = m + h->psk_binders + 2;
	br_ssl_session_parameters sp;
	struct t13_transcript t;
	struct t13_ks ks;
	unsigned char key[T13_HASH_MAX], th[T13_HASH_MAX], want[T13_HASH_MAX];
	int ok;

	if (c->ops->load == NULL || !(h->exts & T13_EXT_PRE_SHARED_KEY) ||
	    !h->psk_dhe_ke || get16(m + h->psk_ids) != 32)
		return 0;
	memset(&sp, 0, sizeof(sp));
	memcpy(sp.session_id, m + h->psk_ids + 2, 32);
	sp.session_id_len = 32;
	if (!c->ops->load(c->ops->ctx, &sp) || sp.version != 0x0304 ||
	    t13_suite_hash(sp.cipher_suite) != dig) {
		t13_wipe(&sp, sizeof(sp));
		return 0;
	}
	t13_ks_early(&ks, dig, sp.master_secret, dig_len(dig));
	t13_ks_derive(&ks, "res binder", NULL, key);
	/* After HRR the binder covers the first hello's hash and HRR too. */
	if (c->hrr)
		t = c->th;
	else
		t13_transcript_init(&t, dig);
	t13_transcript_add(&t, m, h->psk_binders);
	t13_transcript_hash(&t, th);
	t13_finished(dig, key, th, want);
	ok = b[0] == ks.hlen && t13_ct_eq(want, b + 1, ks.hlen);
	if (ok) {
		memcpy(c->psk, sp.master_secret, ks.hlen);
		c->resumed = 1;
	}
	t13_wipe(&sp, sizeof(sp));
	t13_wipe(key, sizeof(key));
	t13_wipe(want, sizeof(want));
	t13_ks_wipe(&ks);
	return ok ? 0 : A_DECRYPT;
}

/* A ClientHello, the first or the one after HRR: answer it. */
static unsigned
hello(struct t13_conn *c, const unsigned char *m, size_t len)
{
	struct t13_hello h;
	struct t13_choice ch;
	unsigned char pub[T13_KX_PUB_MAX], dhe[32], th[T13_HASH_MAX], d[32];
	const br_hash_class *dig;
	unsigned alert, group;
	size_t publen, dhelen;

	if ((alert = t13_parse(m, len, &h)) != 0)
		return alert;
	if ((alert = c->ops->choose(c->ops->ctx, m, &h, &ch)) != 0)
		return alert;
	if ((dig = t13_suite_hash((int)ch.suite)) == NULL)
		return A_INTERNAL;
	if ((alert = t13_choose_group(&h, ch.groups, ch.ngroups, &group)) ==
	    T13_HRR) {
		if (c->hrr)
			return A_ILLEGAL;
		/* The hello becomes message_hash; HRR follows it. */
		c->ch = ch;
		c->group = group;
		c->hrr = 1;
		memcpy(c->sid, m + h.sid, h.sid_len);
		c->sid_len = h.sid_len;
		c->skip_early = (h.exts & T13_EXT_EARLY_DATA) != 0;
		c->early_left = EARLY_MAX;
		hello_digest(m, len, c->ch1);
		t13_transcript_init(&c->th, dig);
		t13_transcript_add(&c->th, m, len);
		t13_transcript_hrr(&c->th);
		if (server_hello(c, NULL, 0) < 0)
			return A_INTERNAL;
		c->phase = T13_P_HELLO2;
		return 0;
	} else if (alert != T13_SHARE)
		return alert;
	if (c->hrr) {
		/* RFC 8446 4.1.2: the same offer, with the share asked for. */
		hello_digest(m, len, d);
		if (group != c->group || ch.suite != c->ch.suite ||
		    memcmp(d, c->ch1, sizeof(d)) != 0 ||
		    (h.exts & T13_EXT_EARLY_DATA))
			return A_ILLEGAL;
		/* 0-RTT records come before this hello, never after it. */
		c->skip_early = 0;
	} else {
		t13_transcript_init(&c->th, dig);
		memcpy(c->sid, m + h.sid, h.sid_len);
		c->sid_len = h.sid_len;
		c->skip_early = (h.exts & T13_EXT_EARLY_DATA) != 0;
		c->early_left = EARLY_MAX;
	}
	c->ch = ch;
	c->group = group;
	if ((alert = psk(c, m, &h, dig)) != 0)
		return alert;
	t13_transcript_add(&c->th, m, len);
	publen = t13_kx_gen(&c->kx, (int)group, c->rng, pub, sizeof(pub));
	dhelen = t13_kx_shared(&c->kx, m + (group == T13_X25519 ? h.x25519 :
	    h.secp256r1), group == T13_X25519 ? 32 : 65, dhe);
	t13_kx_wipe(&c->kx);
	if (publen == 0 || dhelen == 0) {
		t13_wipe(dhe, sizeof(dhe));
		return A_ILLEGAL;
	}
	if (server_hello(c, pub, publen) < 0) {
		t13_wipe(dhe, sizeof(dhe));
		return A_INTERNAL;
	}
	t13_ks_early(&c->ks, dig, c->resumed ? c->psk : NULL, dig_len(dig));
	t13_wipe(c->psk, sizeof(c->psk));
	t13_ks_handshake(&c->ks, dhe, dhelen);
	t13_wipe(dhe, sizeof(dhe));
	t13_transcript_hash(&c->th, th);
	t13_ks_derive(&c->ks, "c hs traffic", th, c->c_secret);
	t13_ks_derive(&c->ks, "s hs traffic", th, c->s_secret);
	t13_rec_init(&c->rd, (int)ch.suite, c->c_secret);
	t13_rec_init(&c->wr, (int)ch.suite, c->s_secret);
	c->wr_on = 1;
	c->fl_stage = F_EE;
	c->piece.n = 0;
	c->phase = T13_P_FLIGHT;
	return 0;
}

int
t13_start(struct t13_conn *c, unsigned char *ibuf, size_t ilen,
    unsigned char *obuf, size_t olen, const unsigned char *m, size_t len,
    const struct t13_ops *ops)
{
	unsigned alert;

	memset(c, 0, sizeof(*c));
	c->ibuf = ibuf;
	c->obuf = obuf;
	c->olen = olen;
	c->ops = ops;
	c->rng = ops->rng;
	/* Records are read whole into ibuf: it must hold the largest. */
	if (ilen < 5 + T13_CIPHER_MAX)
		alert = A_INTERNAL;
	else
		alert = hello(c, m, len);
	if (alert != 0)
		fail(c, alert);
	pump(c);
	return (int)alert;
}

/*
 * A ticket for the next connection (RFC 8446 4.6.1): a random
 * identifier of a session store entry whose secret is the PSK the
 * resumption master secret gives for nonce 0; NewSessionTicket owed.
 */
static void
ticket(struct t13_conn *c)
{
	static const unsigned char nonce = 0;
	br_ssl_session_parameters sp;
	unsigned char th[T13_HASH_MAX], res[T13_HASH_MAX], *n = c->nst;

	memset(&sp, 0, sizeof(sp));
	t13_transcript_hash(&c->th, th);
	t13_ks_derive(&c->ks, "res master", th, res);
	t13_ticket_psk(c->ks.dig, res, &nonce, 1, sp.master_secret);
	t13_wipe(res, sizeof(res));
	(*c->rng)->generate(c->rng, sp.session_id, 32);
	sp.session_id_len = 32;
	sp.version = 0x0304;
	sp.cipher_suite = (uint16_t)c->ch.suite;
	c->ops->save(c->ops->ctx, &sp);
	n[0] = 4;
	put24(n + 1, 46);
	put16(n + 4, 0);		/* lifetime: 7,200 s */
	put16(n + 6, 7200);
	(*c->rng)->generate(c->rng, n + 8, 4);	/* ticket_age_add */
	n[12] = 1;
	n[13] = nonce;
	put16(n + 14, 32);
	memcpy(n + 16, sp.session_id, 32);
	put16(n + 48, 0);		/* no early_data: never 0-RTT */
	t13_wipe(&sp, sizeof(sp));
	c->nst_owed = 1;
}

/* The client's Finished, over the transcript through its last message. */
static unsigned
client_finished(struct t13_conn *c, const unsigned char *m, size_t len)
{
	unsigned char th[T13_HASH_MAX], want[T13_HASH_MAX];
	int ok;

	t13_transcript_hash(&c->th, th);
	t13_finished(c->ks.dig, c->c_secret, th, want);
	ok = t13_ct_eq(want, m + 4, hash_len(c));
	t13_wipe(want, sizeof(want));
	if (!ok)
		return A_DECRYPT;
	memcpy(c->c_secret, c->c_ap, sizeof(c->c_secret));
	t13_wipe(c->c_ap, sizeof(c->c_ap));
	t13_rec_init(&c->rd, (int)c->ch.suite, c->c_secret);
	if (c->ops->save != NULL) {
		t13_transcript_add(&c->th, m, len);
		ticket(c);
	}
	t13_ks_wipe(&c->ks);
	c->ks.dig = t13_suite_hash((int)c->ch.suite);
	c->ks.hlen = len - 4;
	c->phase = T13_P_APP;
	return 0;
}

/* The fields of the client's Certificate (RFC 8446 4.4.2), as cc_field. */
enum { CC_CTX, CC_LIST, CC_LEN, CC_DER, CC_EXTLEN, CC_EXT };

static void
cc_next(struct t13_conn *c, int field, size_t need)
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
cert_in(struct t13_conn *c, const unsigned char *p, size_t n)
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
				return A_ILLEGAL;
			cc_next(c, CC_LIST, 3);
			break;
		case CC_LIST:
			if (c->cc_acc != left)
				return A_DECODE;
			cc_next(c, CC_LEN, 3);
			break;
		case CC_LEN:
			if (c->cc_acc == 0 || c->cc_acc + 2 > left)
				return A_DECODE;
			(*x)->start_cert(x, c->cc_acc);
			c->ncert++;
			cc_next(c, CC_DER, c->cc_acc);
			break;
		case CC_DER:
			(*x)->end_cert(x);
			cc_next(c, CC_EXTLEN, 2);
			break;
		case CC_EXTLEN:
			if (c->cc_acc > left)
				return A_DECODE;
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
static unsigned
cert_end(struct t13_conn *c)
{
	const br_x509_class **x = c->ch.x509;
	unsigned usages;
	unsigned err;

	if (c->cc_field != CC_LEN || c->cc_need != 3)
		return A_DECODE;
	if (c->ncert == 0) {
		c->why = BR_ERR_NO_CLIENT_AUTH;
		return A_CERT_REQUIRED;
	}
	switch (c->why = (int)(err = (*x)->end_chain(x))) {
	case 0:
		break;
	case BR_ERR_X509_NOT_TRUSTED:
		return A_UNKNOWN_CA;
	case BR_ERR_X509_EXPIRED:
		return A_CERT_EXPIRED;
	default:
		return err == BR_ERR_X509_UNSUPPORTED ? A_UNSUPPORTED_CERT :
		    A_BAD_CERT;
	}
	if ((*x)->get_pkey(x, &usages) == NULL || !(usages & BR_KEYTYPE_SIGN)) {
		c->why = BR_ERR_WRONG_KEY_USAGE;
		return A_UNSUPPORTED_CERT;
	}
	c->phase = T13_P_CCV;
	return 0;
}

/* The client's CertificateVerify, over the transcript through Certificate. */
static unsigned
client_cv(struct t13_conn *c, const unsigned char *m, size_t len)
{
	const br_x509_class **x = c->ch.x509;
	const br_x509_pkey *pk;
	unsigned char th[T13_HASH_MAX];
	unsigned scheme = (unsigned)get16(m + 4);
	size_t i;

	if (len < 8 || len != 8 + get16(m + 6))
		return A_DECODE;
	/* One CertificateRequest offered, for the key (RFC 8446 4.4.3). */
	for (i = 6; i < sizeof(cr_sigs) && get16(cr_sigs + i) != scheme; i += 2)
		;
	pk = (*x)->get_pkey(x, NULL);
	if (i == sizeof(cr_sigs) || !t13_cv_fits((int)scheme, pk))
		return A_ILLEGAL;
	t13_transcript_hash(&c->th, th);
	if (!t13_cv_verify((int)scheme, 0, th, hash_len(c), pk, m + 8,
	    len - 8)) {
		c->why = BR_ERR_BAD_SIGNATURE;
		return A_DECRYPT;
	}
	t13_transcript_add(&c->th, m, len);
	c->phase = T13_P_FIN;
	return 0;
}

/*
 * A client handshake message's header is in c->msg: is it what the
 * phase expects, of a length it may have?  A Certificate starts
 * streaming; the others are read whole into c->msg.
 */
static unsigned
msg_head(struct t13_conn *c)
{
	static const struct {
		int		phase, type;
		size_t		min, max;
	} want[] = {
		{ T13_P_CCERT, 11, 4, 0xffffff },
		{ T13_P_CCV, 15, 4, sizeof(c->msg) - 4 },
		{ T13_P_FIN, 20, 0, 0 },	/* the hash's length */
		{ T13_P_APP, 24, 1, 1 },
	};
	size_t i;

	c->mlen = get24(c->msg + 1);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (want[i].phase == c->phase)
			break;
	if (i == sizeof(want) / sizeof(want[0]) || c->msg[0] != want[i].type)
		return A_UNEXPECTED;
	if (c->phase == T13_P_FIN ? c->mlen != hash_len(c) :
	    c->mlen < want[i].min || c->mlen > want[i].max)
		return A_DECODE;
	if (c->phase == T13_P_CCERT) {
		t13_transcript_add(&c->th, c->msg, 4);
		(*c->ch.x509)->start_chain(c->ch.x509, NULL);
		c->ncert = 0;
		c->cc_left = c->mlen;
		cc_next(c, CC_CTX, 1);
	}
	return 0;
}

/* A whole client handshake message: act on it. */
static unsigned
msg_end(struct t13_conn *c)
{
	const unsigned char *m = c->msg;

	switch (m[0]) {
	case 11:
		return cert_end(c);
	case 15:
		return client_cv(c, m, 4 + c->mlen);
	case 20:
		return client_finished(c, m, 4 + c->mlen);
	default:	/* KeyUpdate */
		if (m[4] > 1)
			return A_ILLEGAL;
		t13_next_secret(c->ks.dig, c->c_secret);
		t13_rec_init(&c->rd, (int)c->ch.suite, c->c_secret);
		if (m[4] == 1)
			c->ku_owed = 1;
		return 0;
	}
}

/* Handshake bytes under the client's keys, in any records' split. */
static unsigned
handshake(struct t13_conn *c, const unsigned char *p, size_t n)
{
	unsigned a = 0;

	while (n > 0 && a == 0) {
		size_t k, have;
		int done;

		if (c->hs_len < 4) {
			k = 4 - c->hs_len < n ? 4 - c->hs_len : n;
			memcpy(c->msg + c->hs_len, p, k);
			c->hs_len += k;
			if (c->hs_len == 4)
				a = msg_head(c);
		} else if (c->msg[0] == 11) {
			k = c->cc_left < n ? c->cc_left : n;
			t13_transcript_add(&c->th, p, k);
			a = cert_in(c, p, k);
		} else {
			have = c->hs_len - 4;
			k = c->mlen - have < n ? c->mlen - have : n;
			memcpy(c->msg + c->hs_len, p, k);
			c->hs_len += k;
		}
		p += k;
		n -= k;
		done = c->hs_len >= 4 && (c->msg[0] == 11 ? c->cc_left == 0 :
		    c->hs_len == 4 + c->mlen);
		if (a != 0 || !done)
			continue;
		a = msg_end(c);
		c->hs_len = 0;
		/* No message may span a change of keys (RFC 8446 5.1). */
		if (a == 0 && (c->msg[0] == 20 || c->msg[0] == 24) && n > 0)
			a = A_UNEXPECTED;
	}
	return a;
}

/* An alert's two bytes: close_notify ends the peer's side, others all. */
static void
alert_in(struct t13_conn *c, const unsigned char *p, size_t n)
{
	/* RFC 8446 5.4: an empty alert is unexpected, a short one bad. */
	if (n != 2) {
		fail(c, n == 0 ? A_UNEXPECTED : A_DECODE);
		return;
	}
	if (p[1] == A_CLOSE_NOTIFY) {
		c->rclosed = 1;
		return;
	}
	if (p[1] == 90)		/* user_canceled: a close_notify follows */
		return;
	c->phase = T13_P_DEAD;
	c->err = BR_ERR_RECV_FATAL_ALERT + p[1];
	c->app_len = 0;
}

/* A whole record in ibuf[0..ipos): act on it; 0 or the alert it earns. */
static unsigned
record(struct t13_conn *c)
{
	unsigned char *r = c->ibuf;
	size_t len = c->ipos - 5, reclen = c->ipos;
	int type;

	c->ipos = 0;
	switch (r[0]) {
	case 20:
		/* RFC 8446 5: one, dropped, before the client's Finished. */
		if (len != 1 || r[5] != 1 || c->phase > T13_P_FIN || c->ccs_in)
			return A_UNEXPECTED;
		c->ccs_in = 1;
		return 0;
	case 21:
		if (c->phase >= T13_P_APP)
			return A_UNEXPECTED;
		alert_in(c, r + 5, len);
		return 0;
	case 22:
		if (c->phase != T13_P_HELLO2)
			return A_UNEXPECTED;
		if (len < 4 || len != 4 + get24(r + 6))
			return A_DECODE;
		return hello(c, r + 5, len);
	case 23:
		break;
	default:
		return A_UNEXPECTED;
	}
	/* 0-RTT records we refused: dropped while they fit the budget. */
	if (c->phase == T13_P_HELLO2 && c->skip_early &&
	    c->early_left >= reclen) {
		c->early_left -= reclen;
		return 0;
	}
	if (c->phase < T13_P_FLIGHT)
		return A_UNEXPECTED;
	type = t13_rec_open(&c->rd, r, reclen, &len);
	if (type == T13_ERR_MAC && c->skip_early && c->early_left >= reclen) {
		c->early_left -= reclen;
		return 0;
	}
	c->skip_early = 0;
	/* RFC 8446 5.1: nothing between the records of one message. */
	if (c->hs_len > 0 && type != 22 && type >= 0)
		return A_UNEXPECTED;
	switch (type) {
	case T13_ERR_MAC:
		return A_BAD_MAC;
	case T13_ERR_OVERFLOW:
		return A_OVERFLOW;
	case T13_ERR_SEQ:
		return A_INTERNAL;
	case 21:
		alert_in(c, r + 5, len);
		return 0;
	case 22:
		if (len == 0 || c->phase == T13_P_FLIGHT)
			return A_UNEXPECTED;
		return handshake(c, r + 5, len);
	case 23:
		if (c->phase != T13_P_APP)
			return A_UNEXPECTED;
		/* After our close_notify what comes is dropped. */
		if (!c->closing && len > 0) {
			c->app_off = 5;
			c->app_len = len;
			c->ipos = 5 + len;
		}
		return 0;
	default:		/* T13_ERR_EMPTY, an unknown type */
		return A_UNEXPECTED;
	}
}

unsigned
t13_state(const struct t13_conn *c)
{
	unsigned s = 0;

	if (c->oout < c->oend)
		s |= BR_SSL_SENDREC;
	if (c->phase == T13_P_DEAD || (c->closing && c->rclosed)) {
		if (c->owed_on || c->oout < c->oend)
			return s | BR_SSL_SENDREC;
		return BR_SSL_CLOSED;
	}
	if (c->app_len > 0)
		s |= BR_SSL_RECVAPP;
	else if (!c->rclosed)
		s |= BR_SSL_RECVREC;
	if (c->phase == T13_P_APP && !c->closing && c->oout == c->oend &&
	    !c->ku_owed && !c->nst_owed)
		s |= BR_SSL_SENDAPP;
	return s;
}

/* The record's length from its header, or 0 while the header is short. */
static size_t
record_len(const struct t13_conn *c)
{
	return c->ipos < 5 ? 0 : get16(c->ibuf + 3);
}

unsigned char *
t13_recvrec_buf(struct t13_conn *c, size_t *len)
{
	if (!(t13_state(c) & BR_SSL_RECVREC)) {
		*len = 0;
		return NULL;
	}
	*len = c->ipos < 5 ? 5 - c->ipos : 5 + record_len(c) - c->ipos;
	return c->ibuf + c->ipos;
}

void
t13_recvrec_ack(struct t13_conn *c, size_t len)
{
	unsigned a;
	size_t rl;

	c->ipos += len;
	if (c->ipos < 5)
		return;
	rl = record_len(c);
	a = 0;
	/* RFC 8446 5.1, 5.2: protected or not, the limits. */
	if (c->ipos == 5 && (rl > T13_CIPHER_MAX ||
	    (c->ibuf[0] != 23 && rl > T13_PLAIN_MAX)))
		a = A_OVERFLOW;
	else if (c->ipos == 5 && rl == 0 && c->ibuf[0] != 23)
		a = A_DECODE;
	else if (c->ipos == 5 + rl)
		a = record(c);
	if (a != 0)
		fail(c, a);
	pump(c);
}

unsigned char *
t13_sendrec_buf(struct t13_conn *c, size_t *len)
{
	*len = c->oend - c->oout;
	return *len > 0 ? c->obuf + c->oout : NULL;
}

void
t13_sendrec_ack(struct t13_conn *c, size_t len)
{
	c->oout += len;
	pump(c);
}

unsigned char *
t13_recvapp_buf(struct t13_conn *c, size_t *len)
{
	*len = c->app_len;
	return c->app_len > 0 ? c->ibuf + c->app_off : NULL;
}

void
t13_recvapp_ack(struct t13_conn *c, size_t len)
{
	c->app_off += len;
	c->app_len -= len;
	if (c->app_len == 0)
		c->ipos = 0;
}

unsigned char *
t13_sendapp_buf(struct t13_conn *c, size_t *len)
{
	size_t r;

	if (!(t13_state(c) & BR_SSL_SENDAPP)) {
		*len = 0;
		return NULL;
	}
	r = room(c);
	*len = r - c->app_w;
	return c->obuf + c->oend + 5 + c->app_w;
}

void
t13_sendapp_ack(struct t13_conn *c, size_t len)
{
	c->app_w += len;
	if (c->app_w == room(c))
		t13_flush(c);
}

void
t13_flush(struct t13_conn *c)
{
	if (c->app_w == 0)
		return;
	if (put_record(c, 23, c->obuf + c->oend + 5, c->app_w) < 0)
		fail(c, A_INTERNAL);
	c->app_w = 0;
}

void
t13_close(struct t13_conn *c)
{
	if (c->closing || c->phase == T13_P_DEAD)
		return;
	t13_flush(c);
	c->closing = 1;
	c->owed[0] = 1;
	c->owed[1] = A_CLOSE_NOTIFY;
	c->owed_on = 1;
	c->app_len = 0;
	/* In the handshake there is nothing more to say. */
	if (c->phase != T13_P_APP)
		c->phase = T13_P_DEAD;
	pump(c);
}

int
t13_peer_closed(const struct t13_conn *c)
{
	return c->rclosed;
}

int
t13_last_error(const struct t13_conn *c)
{
	return c->err;
}

unsigned
t13_alert(const struct t13_conn *c)
{
	/* The peer's alert ended it (and ours, if any, was close_notify). */
	if (c->err == 0 || (c->err >= BR_ERR_RECV_FATAL_ALERT &&
	    c->err < BR_ERR_SEND_FATAL_ALERT))
		return 0;
	return c->owed[1];
}

void
t13_wipe_conn(struct t13_conn *c)
{
	t13_ks_wipe(&c->ks);
	t13_kx_wipe(&c->kx);
	t13_rec_wipe(&c->rd);
	t13_rec_wipe(&c->wr);
	t13_wipe(c->c_secret, sizeof(c->c_secret));
	t13_wipe(c->s_secret, sizeof(c->s_secret));
	t13_wipe(c->c_ap, sizeof(c->c_ap));
	t13_wipe(c->msg, sizeof(c->msg));
}
