/* SPDX-License-Identifier: ISC */
/*
 * hs13.c - the TLS 1.3 server handshake of eng.h (RFC 8446).
 *
 *   start --no share for a group both have--> HRR, HELLO2
 *   start, HELLO2 --second hello--> ServerHello [CCS] FLIGHT
 *   FLIGHT --EE, [CertificateRequest,] Certificate, CertificateVerify,
 *       Finished written--> FIN, or CCERT if a certificate was asked for
 *   CCERT --the client's Certificate, chain valid--> CCV
 *   CCV --its CertificateVerify, signature valid--> FIN
 *   FIN --the client's Finished--> APP (NewSessionTicket owed)
 *   any --error--> alert owed --written--> DEAD
 */
#include <string.h>

#include "engint.h"
#include "tlswire.h"
#ifndef TLSGATE_NO_MLKEM
#include "hybrid.h"
/* The longest server share and secret: SecP384r1MLKEM1024's. */
#define SHARE_MAX	HYBRID_SERVER_MAX
#define DHE_MAX		HYBRID_SHARED_MAX
_Static_assert(KX_SHARED_MAX <= HYBRID_SHARED_MAX, "dhe[] holds any");
#else
#define SHARE_MAX	KX_PUB_MAX
#define DHE_MAX		KX_SHARED_MAX
#endif
/* ServerHello: header, version, random, session id, suite, compression,
 * extensions: pre_shared_key, supported_versions, key_share. */
#define SH_MAX(share)	(4 + 2 + 32 + 33 + 3 + 2 + 6 + 6 + 8 + (share))

enum {
	P_HELLO2,		/* after HRR: the second ClientHello */
	P_FLIGHT,		/* writing EE .. Finished */
	P_CCERT,		/* waiting for the client's Certificate */
	P_CCV,			/* ... and its CertificateVerify */
	P_FIN,			/* waiting for the client's Finished */
};

/* Early data we drop unread, at most (RFC 8446 4.2.10). */
#define EARLY_MAX		((size_t)(16384 + 256) * 4)

/* SHA-256("HelloRetryRequest"), HRR's random (RFC 8446 4.1.3). */
static const unsigned char hrr_random[32] = {
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02,
	0x1e, 0x65, 0xb8, 0x91, 0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e,
	0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};

/* After our Finished: application keys out, the client's to come. */
static void
hs13_flight_done(struct eng *c)
{
	unsigned char th[HASH_MAX];

	th_hash(&c->th, th);
	ks_handshake(&c->ks, NULL, 0);		/* the master secret */
	ks_derive(&c->ks, "s ap traffic", th, c->s_secret);
	ks_derive(&c->ks, "c ap traffic", th, c->c_ap);
	rp_init(&c->wr, (int)c->ch.suite, c->s_secret);
	c->phase = c->ch.x509 != NULL && !c->resumed ? P_CCERT : P_FIN;
}

/*
 * The NewSessionTicket owed, into the empty obuf: the session sealed by
 * seal(), or saved by save() under a random identifier, the ticket.  It
 * is sealed only now, so that a slot holds its PSK (nst_key) and not a
 * ticket, which may carry a client certificate; one that a record cannot
 * hold (a small obuf, a client's max_fragment_length) is not sent.
 */
/* A connection's one ticket: its PSK and its message say nonce 0. */
static const unsigned char ticket_nonce = 0;

static void
new_ticket(struct eng *c)
{
	unsigned char m[16 + ENG_TICKET_MAX + 2], age_add[4];
	struct eng_session sp;
	size_t room = eng_room(c), cap, n = sizeof(sp.id);
	struct tw w;

	c->nst_owed = 0;
	if (room < 16 + 2 + n)
		return;
	cap = room - 16 - 2 < ENG_TICKET_MAX ? room - 16 - 2 : ENG_TICKET_MAX;
	memset(&sp, 0, sizeof(sp));
	memcpy(sp.secret, c->nst_key, sizeof(sp.secret));
	sp.version = TLS13;
	sp.suite = c->ch.suite;
	if (c->ops->seal != NULL)
		n = c->ops->seal(c->ops->ctx, &sp, m + 16, cap);
	else {
		(*c->ops->rng)->generate(c->ops->rng, m + 16, n);
		ct_public(m + 16, n);		/* sent: the ticket */
		memcpy(sp.id, m + 16, n);
		c->ops->save(c->ops->ctx, &sp);
	}
	wipe(&sp, sizeof(sp));
	wipe(c->nst_key, sizeof(c->nst_key));
	if (n == 0 || n > cap)
		return;
	(*c->ops->rng)->generate(c->ops->rng, age_add, sizeof(age_add));
	ct_public(age_add, sizeof(age_add));	/* sent in the ticket */
	tw_init(&w, m, sizeof(m));
	tw_msg(&w, HT_NEW_SESSION_TICKET);
	tw_u16(&w, c->ops->lifetime >> 16);	/* ticket_lifetime */
	tw_u16(&w, c->ops->lifetime & 0xffff);
	tw_put(&w, age_add, sizeof(age_add));
	tw_open(&w, 1);
	tw_put(&w, &ticket_nonce, 1);
	tw_close(&w);
	tw_u16(&w, (unsigned)n);		/* the ticket, at m + 16 */
	w.n += n;
	tw_u16(&w, 0);			/* no early_data: never 0-RTT */
	tw_close(&w);
	if (tw_len(&w) > 0)
		(void)eng_put_record(c, CT_HANDSHAKE, m, tw_len(&w));
}

static void
hs13_pump(struct eng *c)
{
	unsigned char m[5];
	struct tw w;

	if (c->phase == P_FLIGHT)
		eng_write_flight(c);
	else if (c->nst_owed && c->app_w == 0)
		new_ticket(c);
	else if (c->ku_owed && c->app_w == 0) {
		tw_init(&w, m, sizeof(m));
		tw_msg(&w, HT_KEY_UPDATE);
		tw_u8(&w, 0);		/* update_not_requested */
		tw_close(&w);
		if (eng_put_record(c, CT_HANDSHAKE, m, tw_len(&w)) == 0) {
			ks_next_secret(c->ks.dig, c->s_secret);
			rp_init(&c->wr, (int)c->ch.suite, c->s_secret);
			c->ku_owed = 0;
		}
	}
}

/* ServerHello, or HelloRetryRequest (pub NULL), into obuf as a record. */
static int
server_hello(struct eng *c, const unsigned char *pub, size_t publen)
{
	unsigned char m[SH_MAX(SHARE_MAX)];
	unsigned char r[32];
	struct tw w;
	size_t n;

	tw_init(&w, m, sizeof(m));
	tw_msg(&w, HT_SERVER_HELLO);
	tw_u16(&w, TLS12);		/* legacy_version */
	if (pub != NULL)
		(*c->ops->rng)->generate(c->ops->rng, r, 32);
	ct_public(r, sizeof(r));		/* sent in ServerHello */
	tw_put(&w, pub == NULL ? hrr_random : r, 32);
	tw_open(&w, 1);
	tw_put(&w, c->sid, c->sid_len);
	tw_close(&w);
	tw_u16(&w, c->ch.suite);
	tw_u8(&w, 0);			/* legacy_compression_method */
	tw_open(&w, 2);
	if (c->resumed) {		/* pre_shared_key: the first identity */
		tw_u16(&w, EXT_PRE_SHARED_KEY);
		tw_u16(&w, 2);
		tw_u16(&w, 0);
	}
	tw_u16(&w, EXT_SUPPORTED_VERSIONS);
	tw_u16(&w, 2);
	tw_u16(&w, TLS13);
	tw_u16(&w, EXT_KEY_SHARE);
	tw_open(&w, 2);
	tw_u16(&w, c->group);
	if (pub != NULL) {
		tw_open(&w, 2);
		tw_put(&w, pub, publen);
		tw_close(&w);
	}
	tw_close(&w);
	tw_close(&w);
	tw_close(&w);
	if ((n = tw_len(&w)) == 0)
		return -1;
	th_add(&c->th, m, n);
	if (eng_put_record(c, CT_HANDSHAKE, m, n) < 0)
		return -1;
	/*
	 * Middlebox compatibility (RFC 8446 D.4): one CCS, after the first
	 * of HelloRetryRequest and ServerHello.
	 */
	if (c->sid_len > 0 && (pub == NULL || !c->hrr)) {
		static const unsigned char one = 1;

		return eng_put_record(c, CT_CHANGE_CIPHER_SPEC, &one, 1);
	}
	return 0;
}

/*
 * The hash of what a second ClientHello must repeat of the first (RFC
 * 8446 4.1.2): all but key_share, early_data, cookie, pre_shared_key and
 * padding, in the same order.  m has passed hello_parse().
 */
static void
hello_digest(const unsigned char *m, size_t len, unsigned char *out)
{
	br_sha256_context h;
	size_t p = 4 + 2 + 32, end;

	br_sha256_init(&h);
	p += 1 + (size_t)m[p];
	p += 2 + tw_get16(m + p);
	p += 1 + (size_t)m[p];
	br_sha256_update(&h, m + 4, p - 4);
	end = p + 2 <= len ? p + 2 + tw_get16(m + p) : p;
	for (p += 2; end <= len && p + 4 <= end; p += 4 + tw_get16(m + p + 2)) {
		size_t t = tw_get16(m + p);

		if (t != EXT_KEY_SHARE && t != EXT_EARLY_DATA &&
		    t != EXT_COOKIE && t != EXT_PRE_SHARED_KEY && t != 21)
			br_sha256_update(&h, m + p, 4 + tw_get16(m + p + 2));
	}
	br_sha256_out(&h, out);
}

/*
 * The first PSK identity of the hello, if it is one of our tickets for
 * the suite's hash and its binder, over the hello up to the binders,
 * verifies (RFC 8446 4.2.11.2): 0, with c->resumed and the early secret
 * of its PSK in c->ks if so, or decrypt_error.  A ticket that does not
 * open, or is not for this suite's hash, is a full handshake.  A ticket
 * resumes until its lifetime is over (the caller's open() or load()
 * enforces it): tlsgate never takes 0-RTT data, which is what single use
 * protects (RFC 8446 8.1).
 */
static unsigned
psk(struct eng *c, const unsigned char *m, const struct hello *h,
    const br_hash_class *dig)
{
	const unsigned char *b = m + h->psk_binders + 2;
	struct eng_session sp;
	struct th t;
	struct ks ks;
	unsigned char key[HASH_MAX], th[HASH_MAX], want[HASH_MAX];
	size_t idlen;
	int ok;

	if ((c->ops->open == NULL && c->ops->load == NULL) ||
	    !(h->exts & hello_ext(EXT_PRE_SHARED_KEY)) || !h->psk_dhe_ke)
		return 0;
	idlen = tw_get16(m + h->psk_ids);
	memset(&sp, 0, sizeof(sp));
	sp.version = TLS13;
	sp.host = m + h->host;
	sp.host_len = h->host_len;
	if (c->ops->open != NULL)
		ok = c->ops->open(c->ops->ctx, m + h->psk_ids + 2, idlen, &sp);
	else if (idlen == sizeof(sp.id)) {
		memcpy(sp.id, m + h->psk_ids + 2, sizeof(sp.id));
		ok = c->ops->load(c->ops->ctx, &sp);
	} else
		ok = 0;
	ok = ok && sp.version == TLS13 && ks_suite_hash((int)sp.suite) == dig;
	if (ok)
		ks_early(&ks, dig, sp.secret, hash_len(dig));
	wipe(&sp, sizeof(sp));
	if (!ok)
		return 0;
	ks_derive(&ks, "res binder", NULL, key);
	/* After HRR the binder covers the first hello's hash and HRR too. */
	if (c->hrr)
		t = c->th;
	else
		th_init(&t, dig);
	th_add(&t, m, h->psk_binders);
	th_hash(&t, th);
	ks_finished(dig, key, th, want);
	ok = b[0] == ks.hlen && ct_eq(want, b + 1, ks.hlen);
	ct_public(&ok, sizeof(ok));		/* resumed or not: visible */
	if (ok) {
		c->ks = ks;
		c->resumed = 1;
	}
	wipe(key, sizeof(key));
	wipe(want, sizeof(want));
	ks_wipe(&ks);
	return ok ? 0 : BR_ALERT_DECRYPT_ERROR;
}

/*
 * The group of the answer: hello_choose_group over the service's groups,
 * where a hybrid (hybrid.h) is
 *  - left out when the client listed it without a share, unless the
 *    service has hybrid_retry: a HelloRetryRequest for it costs a round
 *    trip on every such connection where the client's classical share
 *    answers at once (the clients that offer one send its share
 *    anyway).  With hybrid_retry, such a client is asked for the first
 *    hybrid of ours it listed when that ranks above the share it sent,
 *    once;
 *  - left out when its ServerHello (1.1 to 1.7 KB) and the CCS after
 *    it would not fit in obuf: a small TLSGATE_OBUF_SIZE, or the
 *    client's max_fragment_length.
 */
static unsigned
choose_group(const struct eng *c, const struct hello *h,
    const struct eng_choice *ch, unsigned *group)
{
	unsigned g[16], r;
	size_t n = 0, i;

	for (i = 0; i < ch->ngroups && n < sizeof(g) / sizeof(g[0]); i++) {
#ifndef TLSGATE_NO_MLKEM
		size_t sh = hybrid_server_share(ch->groups[i]);

		if (sh != 0 && (eng_room(c) < SH_MAX(sh) + 6 ||
		    (!(h->shares & hello_group(ch->groups[i])) &&
		    !ch->hybrid_retry)))
			continue;
#endif
		g[n++] = ch->groups[i];
	}
	r = hello_choose_group(h, g, n, group);
#ifndef TLSGATE_NO_MLKEM
	/* The share it would answer ranks below a hybrid it listed: ask. */
	if (r == HELLO_SHARE && !c->hrr && hybrid_server_share(*group) == 0)
		for (i = 0; i < n && g[i] != *group; i++)
			if (hybrid_server_share(g[i]) != 0 &&
			    (h->groups & hello_group(g[i]))) {
				*group = g[i];
				return HELLO_HRR;
			}
#else
	(void)c;
#endif
	return r;
}

/*
 * Our share and the shared secret for the client's share of `group`:
 * a hybrid's encapsulation and ECDH (hybrid.c), or an ECDHE key.
 * Returns the share's length, 0 for a share that earns
 * illegal_parameter.
 */
static size_t
answer_share(struct eng *c, const unsigned char *m, const struct hello *h,
    unsigned group, unsigned char *pub, size_t cap, unsigned char *dhe,
    size_t *dhelen)
{
	const unsigned char *s = m + hello_share(h, group);
	size_t publen, n = tls_group_find(group)->share;

	*dhelen = 0;
#ifndef TLSGATE_NO_MLKEM
	if (hybrid_server_share(group) != 0)
		return hybrid_answer(group, s, n, c->ops->rng, pub, cap, dhe,
		    dhelen);
#endif
	publen = kx_gen(&c->kx, (int)group, c->ops->rng, pub, cap);
	*dhelen = kx_shared(&c->kx, s, n, dhe);
	kx_wipe(&c->kx);
	return *dhelen != 0 ? publen : 0;
}

/* A ClientHello, the first or the one after HRR: answer it. */
static unsigned
hs13_hello(struct eng *c, const unsigned char *m, size_t len,
    const struct hello *hp)
{
	struct hello h = *hp;
	struct eng_choice ch;
	unsigned char pub[SHARE_MAX], dhe[DHE_MAX];
	unsigned char th[HASH_MAX], d[32];
	const br_hash_class *dig;
	unsigned alert, group;
	size_t publen, dhelen;

	c->version = TLS13;
	if (!h.v13)
		return BR_ALERT_ILLEGAL_PARAMETER;
	if (c->ops->vmin > TLS13)
		return eng_refuse(c, BR_ALERT_PROTOCOL_VERSION,
		    "protocol-version");
	if ((alert = c->ops->choose(c->ops->ctx, m, &h, TLS13, &ch)) != 0)
		return eng_refuse(c, alert, ch.why);
	if ((dig = ks_suite_hash((int)ch.suite)) == NULL)
		return BR_ALERT_INTERNAL_ERROR;
	alert = choose_group(c, &h, &ch, &group);
	if (alert != HELLO_SHARE && alert != HELLO_HRR)
		return alert;
	if (!c->hrr) {
		th_init(&c->th, dig);
		memcpy(c->sid, m + h.sid, h.sid_len);
		c->sid_len = h.sid_len;
		c->skip_early = (h.exts & hello_ext(EXT_EARLY_DATA)) != 0;
		c->early_left = EARLY_MAX;
	}
	if (alert == HELLO_HRR) {
		if (c->hrr)
			return BR_ALERT_ILLEGAL_PARAMETER;
		/* The hello becomes message_hash; HRR follows it. */
		c->ch = ch;
		c->group = group;
		c->hrr = 1;
		hello_digest(m, len, c->ch1);
		th_add(&c->th, m, len);
		th_hrr(&c->th);
		if (server_hello(c, NULL, 0) < 0)
			return BR_ALERT_INTERNAL_ERROR;
		c->phase = P_HELLO2;
		return 0;
	}
	if (c->hrr) {
		/* RFC 8446 4.1.2: the same offer, with the share asked for. */
		hello_digest(m, len, d);
		if (group != c->group || ch.suite != c->ch.suite ||
		    memcmp(d, c->ch1, sizeof(d)) != 0 ||
		    (h.exts & hello_ext(EXT_EARLY_DATA)))
			return BR_ALERT_ILLEGAL_PARAMETER;
		/* 0-RTT records come before this hello, never after it. */
		c->skip_early = 0;
	}
	c->ch = ch;
	c->group = group;
	if ((alert = psk(c, m, &h, dig)) != 0)
		return alert;
	th_add(&c->th, m, len);
	publen = answer_share(c, m, &h, group, pub, sizeof(pub), dhe, &dhelen);
	if (publen == 0 || server_hello(c, pub, publen) < 0) {
		wipe(dhe, sizeof(dhe));
		return publen == 0 ? BR_ALERT_ILLEGAL_PARAMETER :
		    BR_ALERT_INTERNAL_ERROR;
	}
	if (!c->resumed)
		ks_early(&c->ks, dig, NULL, hash_len(dig));
	ks_handshake(&c->ks, dhe, dhelen);
	wipe(dhe, sizeof(dhe));
	th_hash(&c->th, th);
	ks_derive(&c->ks, "c hs traffic", th, c->c_secret);
	ks_derive(&c->ks, "s hs traffic", th, c->s_secret);
	rp_init(&c->rd, (int)ch.suite, c->c_secret);
	rp_init(&c->wr, (int)ch.suite, c->s_secret);
	c->wr_on = 1;
	c->phase = P_FLIGHT;
	return 0;
}

/*
 * A ticket for the next connections (RFC 8446 4.6.1), for the PSK the
 * resumption master secret gives for nonce 0; NewSessionTicket owed.
 */
static void
ticket(struct eng *c)
{
	unsigned char th[HASH_MAX], res[HASH_MAX];

	th_hash(&c->th, th);
	ks_derive(&c->ks, "res master", th, res);
	/* Zero past a SHA-256 PSK, as the sealed secret's 48 bytes say. */
	memset(c->nst_key, 0, sizeof(c->nst_key));
	ks_ticket_psk(c->ks.dig, res, &ticket_nonce, 1, c->nst_key);
	wipe(res, sizeof(res));
	c->nst_owed = 1;
}

/* The client's Finished, over the transcript through its last message. */
static unsigned
client_finished(struct eng *c, const unsigned char *m, size_t len)
{
	unsigned char th[HASH_MAX], want[HASH_MAX];
	int ok;

	if (len != 4 + c->ks.hlen)
		return BR_ALERT_DECODE_ERROR;
	th_hash(&c->th, th);
	ks_finished(c->ks.dig, c->c_secret, th, want);
	ok = ct_eq(want, m + 4, c->ks.hlen);
	ct_public(&ok, sizeof(ok));		/* a bad one ends it */
	wipe(want, sizeof(want));
	if (!ok)
		return BR_ALERT_DECRYPT_ERROR;
	memcpy(c->c_secret, c->c_ap, sizeof(c->c_secret));
	wipe(c->c_ap, sizeof(c->c_ap));
	rp_init(&c->rd, (int)c->ch.suite, c->c_secret);
	if (c->ops->seal != NULL || c->ops->save != NULL) {
		th_add(&c->th, m, len);
		ticket(c);
	}
	ks_wipe(&c->ks);
	c->ks.dig = ks_suite_hash((int)c->ch.suite);
	c->ks.hlen = len - 4;
	c->phase = P_APP;
	return 0;
}

/* Finished is as long as the suite's hash: client_finished() checks. */
static const struct hs_want want13[] = {
	{ P_CCERT, HT_CERTIFICATE, 4, 0xffffff },
	{ P_CCV, HT_CERTIFICATE_VERIFY, 4, ENG_MSG_MAX - 4 },
	{ P_FIN, HT_FINISHED, 32, HASH_MAX },
	{ P_APP, HT_KEY_UPDATE, 1, 1 },
};

static unsigned
hs13_end(struct eng *c)
{
	const unsigned char *m = c->msg;

	switch (m[0]) {
	case HT_CERTIFICATE:
		return hs_cert_end(c, P_CCV, P_FIN);
	case HT_CERTIFICATE_VERIFY:
		return hs_cert_verify(c, P_FIN);
	case HT_FINISHED:
		return client_finished(c, m, 4 + c->mlen);
	default:	/* KeyUpdate */
		if (m[4] > 1)
			return BR_ALERT_ILLEGAL_PARAMETER;
		ks_next_secret(c->ks.dig, c->c_secret);
		rp_init(&c->rd, (int)c->ch.suite, c->c_secret);
		if (m[4] == 1)
			c->ku_owed = 1;
		return 0;
	}
}

/*
 * A fragment of the ClientHello after HRR (RFC 8446 5.1: any split), in
 * ibuf after its record's header.  It is joined in obuf, which has
 * nothing to send until it is answered; what obuf cannot take is joined
 * in ibuf, over the header, and the next record is read after it
 * (eng_ibase()).  Whole, it is parsed and answered from obuf, or from
 * the scratch buffer when it spans both.
 *
 * ENG_HELLO2_MAX bounds it, not HELLO_MAX (over 128 KiB) as the first
 * hello: that one waits whole in the kernel, looked at in the pending
 * table's buffer (pend.h), before the connection owns any memory.  The
 * second comes to a connection that holds its keys and its transcript,
 * and has only its two buffers to put it in: 33,109 bytes with the
 * default obuf, 16,469 + 16,640.  Every hello a client sends after HRR
 * repeats the first, its share aside (RFC 8446 4.1.2), and clients'
 * hellos are under 2 KiB, tlsfuzzer's longest (4,096 extensions) just
 * over 16 KiB.
 */
static unsigned
hello2_in(struct eng *c, const unsigned char *p, size_t n)
{
	struct hello h;
	unsigned char *m = c->obuf;
	size_t k, need, max = ENG_HELLO2_MAX(c->olen);
	unsigned a;

	k = c->h2len < c->olen ? c->olen - c->h2len : 0;
	if (k > n)
		k = n;
	memcpy(c->obuf + c->h2len, p, k);
	memmove(c->ibuf + eng_ibase(c), p + k, n - k);
	c->h2len += n;
	if (c->h2len < 4)
		return 0;
	if (c->obuf[0] != HT_CLIENT_HELLO)
		return BR_ALERT_UNEXPECTED_MESSAGE;
	need = 4 + tw_get24(c->obuf + 1);
	if (c->ops->scratch == NULL || c->ops->scratch_len < max)
		max = c->olen;
	if (need > max)
		return eng_refuse(c, BR_ALERT_HANDSHAKE_FAILURE,
		    "hello-too-large");
	if (c->h2len < need)
		return 0;
	/* Nothing may follow it before the keys change (RFC 8446 5.1). */
	if (c->h2len > need)
		return BR_ALERT_UNEXPECTED_MESSAGE;
	if (need > c->olen) {
		m = c->ops->scratch;
		memcpy(m, c->obuf, c->olen);
		memcpy(m + c->olen, c->ibuf, need - c->olen);
	}
	c->h2len = 0;			/* records again at ibuf's start */
	if ((a = hello_parse(m, need, &h)) != 0)
		return eng_refuse(c, a, h.why);
	/* hs13_hello() reads it all before it writes the ServerHello. */
	return hs13_hello(c, m, need, &h);
}

static unsigned
hs13_record(struct eng *c)
{
	unsigned char *r = c->ibuf + eng_ibase(c);
	size_t len = c->ipos - 5, reclen = c->ipos;
	int type;

	c->ipos = 0;
	switch (r[0]) {
	case CT_CHANGE_CIPHER_SPEC:
		/* RFC 8446 5: one, dropped, before the client's Finished. */
		if (len != 1 || r[5] != 1 || c->phase >= P_APP || c->ccs_in)
			return BR_ALERT_UNEXPECTED_MESSAGE;
		c->ccs_in = 1;
		return 0;
	case CT_ALERT:
		if (c->phase >= P_APP)
			return BR_ALERT_UNEXPECTED_MESSAGE;
		eng_alert_in(c, r + 5, len);
		return 0;
	case CT_HANDSHAKE:
		if (c->phase != P_HELLO2 || c->oend > 0)
			return BR_ALERT_UNEXPECTED_MESSAGE;
		return hello2_in(c, r + 5, len);
	case CT_APPLICATION_DATA:
		break;
	default:
		return BR_ALERT_UNEXPECTED_MESSAGE;
	}
	/*
	 * 0-RTT records we refused, which no key of ours opens (none yet
	 * before the second hello): dropped while they fit the budget.
	 */
	type = c->phase == P_HELLO2 ? RP_ERR_MAC :
	    rp_open(&c->rd, r, reclen, &len);
	if (type == RP_ERR_MAC && c->skip_early && c->early_left >= reclen) {
		c->early_left -= reclen;
		return 0;
	}
	if (c->phase == P_HELLO2)
		return BR_ALERT_UNEXPECTED_MESSAGE;
	c->skip_early = 0;
	return hs_content(c, type, r + 5, len, c->phase != P_FLIGHT);
}

const struct eng_hs hs13_class = {
	hs13_hello, hs13_record, want13, sizeof(want13) / sizeof(want13[0]),
	hs13_end, hs13_piece, hs13_flight_done, hs13_pump
};
