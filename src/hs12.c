/* SPDX-License-Identifier: ISC */
/*
 * hs12.c - the TLS 1.2 server handshake of eng.h (RFC 5246), ECDHE
 * (RFC 8422) with AEAD suites only (RFC 5288, RFC 7905), the extended
 * master secret (RFC 7627), secure renegotiation's answer (RFC 5746)
 * and resumption by session ID or by ticket (RFC 5077).
 *
 *   hello, a new session --> FLIGHT: ServerHello, Certificate,
 *       ServerKeyExchange, [CertificateRequest,] ServerHelloDone
 *   FLIGHT written --> CKE, or CCERT if a certificate was asked for
 *   CCERT --the client's Certificate, chain valid--> CKE
 *   CKE --ClientKeyExchange: keys--> CCV if it sent a certificate, CCS
 *   CCV --its CertificateVerify, signature valid--> CCS
 *   CCS --ChangeCipherSpec--> FIN --its Finished--> SFIN
 *   SFIN --[NewSessionTicket,] our ChangeCipherSpec and Finished
 *       written--> APP
 *
 *   hello, a session of ours (its ID or its ticket) --> FLIGHT:
 *       ServerHello --> SFIN
 *   SFIN --written--> CCS --> FIN --the client's Finished--> APP
 *
 *   APP --a ClientHello--> warning no_renegotiation, APP
 *   any --error--> alert owed --written--> DEAD
 */
#include <string.h>

#include "engint.h"
#include "tlswire.h"

enum {
	P_FLIGHT,		/* writing ServerHello .. ServerHelloDone */
	P_CCERT,		/* waiting for the client's Certificate */
	P_CKE,			/* ... ClientKeyExchange */
	P_CCV,			/* ... CertificateVerify */
	P_CCS,			/* ... ChangeCipherSpec */
	P_FIN,			/* ... Finished */
	P_SFIN,			/* our ChangeCipherSpec and Finished owed */
};

#define FINISHED_LEN	12	/* verify_data (RFC 5246 7.4.9) */
#define PMS_MAX		KX_SHARED_MAX

/*
 * The chosen suite: the owner's choose() or resume() names one of the
 * registry's TLS 1.2 codes; anything else is read as the last entry,
 * never as NULL.
 */
static const struct tls_suite *
chosen(const struct eng *c)
{
	const struct tls_suite *s = tls_suite_find(c->ch.suite, NULL);

	return s != NULL ? s : &tls_suites[TLS_NSUITES - 1];
}

/*
 * PRF(secret, label, seed1 + seed2) (RFC 5246 5), len bytes, on the
 * suite's hash: SHA-384 for the AES-256 suites (RFC 5289 3.2).
 */
static void
prf(const struct eng *c, unsigned char *out, size_t len,
    const unsigned char *secret, size_t slen, const char *label,
    const unsigned char *s1, size_t n1, const unsigned char *s2, size_t n2)
{
	br_tls_prf_seed_chunk seed[2] = { { s1, n1 }, { s2, n2 } };
	br_tls_prf_impl f = chosen(c)->hash == br_sha384_ID ?
	    br_tls12_sha384_prf : br_tls12_sha256_prf;

	f(out, len, secret, slen, label, s2 != NULL ? 2 : 1, seed);
}

/* Record keys from the master secret (RFC 5246 6.3): AEADs, no MAC. */
static void
keys(struct eng *c)
{
	unsigned char kb[2 * 32 + 2 * 12];
	const struct tls_suite *s = chosen(c);
	int aead = (int)s->code[TS_13];
	size_t klen = s->key, ivlen = s->iv12;

	prf(c, kb, 2 * klen + 2 * ivlen, c->ms, sizeof(c->ms),
	    "key expansion", c->sr, 32, c->cr, 32);
	rp_init12(&c->rd, aead, kb, kb + 2 * klen);
	rp_init12(&c->wr, aead, kb + klen, kb + 2 * klen + ivlen);
	wipe(kb, sizeof(kb));
}

/* verify_data of a Finished, over the transcript so far. */
static void
finished(const struct eng *c, const char *label, unsigned char *out)
{
	unsigned char th[HASH_MAX];
	size_t n = th_hash(&c->th, th);

	prf(c, out, FINISHED_LEN, c->ms, sizeof(c->ms), label, th, n, NULL, 0);
}

/*
 * The first of our ECDHE groups (the hybrid is TLS 1.3's) the client
 * has; without supported_groups, one of the NIST curves any ECDHE
 * client has (RFC 8422 4).  0: none.
 */
static unsigned
group12(const struct hello *h, const struct eng_choice *ch)
{
	const unsigned short *g = ch->groups;

	for (size_t i = 0; i < ch->ngroups; i++) {
		const struct tls_group *gr = tls_group_find(g[i]);
		unsigned b = gr != NULL && gr->curve != 0 ?
		    hello_group(g[i]) : 0;

		if ((h->exts & hello_ext(EXT_SUPPORTED_GROUPS)) ?
		    (h->groups & b) != 0 : b != 0 && g[i] != GROUP_X25519)
			return g[i];
	}
	return 0;
}

/* Is suite (a TLS 1.2 code) offered in the hello? */
static int
offered(const struct hello *h, unsigned suite)
{
	int k;

	return tls_suite_find(suite, &k) != NULL && k != TS_13 &&
	    (h->suites12 & hello_suite(suite)) != 0;
}

/*
 * Resume the session the hello names, if it is one of ours that this
 * hello may resume: its suite, or 0 for a full handshake, or the alert
 * of a hello that names one of our sessions and cannot resume it: one
 * made with the extended master secret, now without it (RFC 7627 5.3),
 * or, by session ID, one whose suite it does not offer (RFC 5246
 * 7.4.1.2).  A ticket, when we take tickets, is the session the hello
 * names, never its session ID (RFC 5077 3.4); one that does not open,
 * or whose suite is not offered, is a full handshake.
 */
static unsigned
resume(struct eng *c, const unsigned char *m, const struct hello *h,
    unsigned *alert)
{
	struct eng_session sp;
	unsigned suite = 0;
	int tkt = c->nst_owed && h->ticket_len > 0, ok;

	*alert = 0;
	memset(&sp, 0, sizeof(sp));
	sp.version = TLS12;
	sp.host = m + h->host;
	sp.host_len = h->host_len;
	if (tkt)
		ok = c->ops->open(c->ops->ctx, m + h->ticket, h->ticket_len,
		    &sp);
	else if (c->ops->load != NULL && h->sid_len == sizeof(sp.id)) {
		memcpy(sp.id, m + h->sid, sizeof(sp.id));
		ok = c->ops->load(c->ops->ctx, &sp);
	} else
		ok = 0;
	if (!ok || sp.version != TLS12)
		;
	else if (!offered(h, sp.suite)) {
		if (!tkt)
			*alert = eng_refuse(c, BR_ALERT_ILLEGAL_PARAMETER,
			    "resumed-suite-not-offered");
	} else if (sp.ems && !c->ems)
		*alert = eng_refuse(c, BR_ALERT_HANDSHAKE_FAILURE,
		    "resumption-without-ems");
	else if (sp.ems == c->ems) {
		memcpy(c->ms, sp.secret, sizeof(c->ms));
		/* The client's session ID, echoed, says it resumes. */
		memcpy(c->sid, m + h->sid, h->sid_len);
		c->sid_len = h->sid_len;
		suite = sp.suite;
	}
	wipe(&sp, sizeof(sp));
	return suite;
}

static unsigned
hs12_hello(struct eng *c, const unsigned char *m, size_t len,
    const struct hello *h)
{
	unsigned alert, suite;

	c->version = TLS12;
	/* A malformed extension of TLS 1.2's own, ignored by a 1.3 hello. */
	if (h->alert12 != 0)
		return eng_refuse(c, h->alert12, h->why12);
	if (c->ops->vmin > TLS12)
		return eng_refuse(c, BR_ALERT_PROTOCOL_VERSION,
		    "protocol-version");
	/* RFC 7507 3, RFC 8446 4.1.3: it could have had TLS 1.3. */
	if (c->ops->vmax >= TLS13 && h->scsv)
		return eng_refuse(c, ALERT_INAPPROPRIATE_FALLBACK,
		    "inappropriate-fallback");
	/* RFC 5746 3.6: a first hello renegotiates nothing. */
	if (h->reneg_bad)
		return BR_ALERT_HANDSHAKE_FAILURE;
	/* RFC 8422 5.1.2: uncompressed points, the one form we write. */
	if ((h->exts & hello_ext(EXT_EC_POINT_FORMATS)) &&
	    !h->ecpf_uncompressed)
		return BR_ALERT_ILLEGAL_PARAMETER;
	c->reneg = h->reneg_scsv ||
	    (h->exts & hello_ext(EXT_RENEGOTIATION_INFO));
	c->ecpf = (h->exts & hello_ext(EXT_EC_POINT_FORMATS)) != 0;
	c->ems = (h->exts & hello_ext(EXT_EXTENDED_MASTER_SECRET)) != 0;
	/* RFC 5077 3.2: a client that takes tickets; one is owed it. */
	c->nst_owed = (h->exts & hello_ext(EXT_SESSION_TICKET)) &&
	    c->ops->seal != NULL;
	if ((suite = resume(c, m, h, &alert)) == 0 && alert != 0)
		return alert;
	if ((alert = c->ops->choose(c->ops->ctx, m, h, TLS12, &c->ch)) != 0)
		return eng_refuse(c, alert, c->ch.why);
	if (c->ch.ems_required && !c->ems)
		return eng_refuse(c, BR_ALERT_HANDSHAKE_FAILURE,
		    "no-extended-master-secret");
	c->resumed = suite != 0;
	if (c->resumed) {
		c->ch.suite = suite;
		/* Its ticket stays: the session's lifetime is the first's. */
		c->nst_owed = 0;
	} else {
		if ((c->group = group12(h, &c->ch)) == 0)
			return eng_refuse(c, BR_ALERT_HANDSHAKE_FAILURE,
			    "no-shared-group");
		/*
		 * A session ID when there is a store to keep it, and no
		 * ticket to carry the session instead (none, as OpenSSL's).
		 */
		c->sid_len = c->ops->save != NULL && !c->nst_owed ? 32 : 0;
		(*c->ops->rng)->generate(c->ops->rng, c->sid, c->sid_len);
		ct_public(c->sid, c->sid_len);	/* sent in ServerHello */
	}
	memcpy(c->cr, m + h->random, 32);
	(*c->ops->rng)->generate(c->ops->rng, c->sr, 32);
	ct_public(c->sr, 32);			/* sent in ServerHello */
	/* RFC 8446 4.1.3: the downgrade sentinel, "DOWNGRD" and 01. */
	if (c->ops->vmax >= TLS13)
		memcpy(c->sr + 24, "DOWNGRD\1", 8);
	th_init(&c->th, hash_class(chosen(c)->hash));
	th_add(&c->th, m, len);
	if (c->resumed)
		keys(c);
	c->phase = P_FLIGHT;
	return 0;
}

static void
hs12_flight_done(struct eng *c)
{
	if (c->resumed)
		c->phase = P_SFIN;
	else
		c->phase = c->ch.x509 != NULL ? P_CCERT : P_CKE;
}

/*
 * NewSessionTicket (RFC 5077 3.3), before our ChangeCipherSpec: the
 * session sealed by the caller, announced for ops->lifetime.  No ticket
 * is sent if the caller seals none, or none that fits in obuf with our
 * CCS and Finished (FIN_ROOM: their records) after it: a ticket with a
 * client certificate may not, in a small obuf.
 */
#define FIN_ROOM	128

static int
new_ticket(struct eng *c)
{
	unsigned char m[4 + 4 + 2 + ENG_TICKET_MAX];
	struct eng_session sp;
	size_t n, room = eng_room(c);
	struct tw w;

	memset(&sp, 0, sizeof(sp));
	memcpy(sp.secret, c->ms, sizeof(c->ms));
	sp.version = TLS12;
	sp.suite = c->ch.suite;
	sp.ems = c->ems;
	room = room > 10 + FIN_ROOM ? room - 10 - FIN_ROOM : 0;
	n = c->ops->seal(c->ops->ctx, &sp, m + 10, room < sizeof(m) - 10 ?
	    room : sizeof(m) - 10);
	wipe(&sp, sizeof(sp));
	c->nst_owed = 0;
	tw_init(&w, m, sizeof(m));
	tw_msg(&w, HT_NEW_SESSION_TICKET);
	tw_u16(&w, c->ops->lifetime >> 16);	/* ticket_lifetime_hint */
	tw_u16(&w, c->ops->lifetime & 0xffff);
	tw_u16(&w, (unsigned)n);
	w.n += n;
	tw_close(&w);
	/*
	 * The extension promised one: with none sealed, an empty ticket
	 * (RFC 5077 3.3 allows it: the client keeps no ticket).
	 */
	if (tw_len(&w) == 0 || eng_put_record(c, CT_HANDSHAKE, m,
	    tw_len(&w)) < 0)
		return -1;
	th_add(&c->th, m, tw_len(&w));
	return 0;
}

/* [NewSessionTicket,] our CCS and Finished, into the empty obuf: 0, -1. */
static int
server_finished(struct eng *c)
{
	static const unsigned char one = 1;
	unsigned char m[4 + FINISHED_LEN];
	struct tw w;

	if (c->nst_owed && new_ticket(c) < 0)
		return -1;
	tw_init(&w, m, sizeof(m));
	tw_msg(&w, HT_FINISHED);
	finished(c, "server finished", m + 4);
	ct_public(m + 4, FINISHED_LEN);		/* sent: the peer's to check */
	w.n += FINISHED_LEN;
	tw_close(&w);
	if (eng_put_record(c, CT_CHANGE_CIPHER_SPEC, &one, 1) < 0)
		return -1;
	c->wr_on = 1;
	if (tw_len(&w) == 0 || eng_put_record(c, CT_HANDSHAKE, m,
	    sizeof(m)) < 0)
		return -1;
	th_add(&c->th, m, sizeof(m));
	c->phase = c->resumed ? P_CCS : P_APP;
	return 0;
}

static void
hs12_pump(struct eng *c)
{
	if (c->phase == P_FLIGHT)
		eng_write_flight(c);
	else if (c->phase == P_SFIN && server_finished(c) < 0)
		eng_fail(c, BR_ALERT_INTERNAL_ERROR);
}

/* ClientKeyExchange: the client's share; the master secret, keys. */
static unsigned
client_kx(struct eng *c, const unsigned char *m, size_t len)
{
	unsigned char pms[PMS_MAX], th[HASH_MAX];
	size_t n, hl;

	if (len < 5 || m[4] != len - 5)
		return BR_ALERT_DECODE_ERROR;
	th_add(&c->th, m, len);
	n = kx_shared(&c->kx, m + 5, len - 5, pms);
	kx_wipe(&c->kx);
	if (n == 0)
		return BR_ALERT_ILLEGAL_PARAMETER;
	if (c->ems) {	/* RFC 7627 4: over the session hash */
		hl = th_hash(&c->th, th);
		prf(c, c->ms, sizeof(c->ms), pms, n, "extended master secret",
		    th, hl, NULL, 0);
	} else
		prf(c, c->ms, sizeof(c->ms), pms, n, "master secret",
		    c->cr, 32, c->sr, 32);
	wipe(pms, sizeof(pms));
	keys(c);
	c->phase = c->ncert > 0 ? P_CCV : P_CCS;
	return 0;
}

/* The client's Finished; a full handshake's session is kept. */
static unsigned
client_finished(struct eng *c, const unsigned char *m, size_t len)
{
	unsigned char want[FINISHED_LEN];
	struct eng_session sp;
	int ok;

	finished(c, "client finished", want);
	ok = ct_eq(want, m + 4, FINISHED_LEN);
	ct_public(&ok, sizeof(ok));		/* a bad one ends it */
	wipe(want, sizeof(want));
	if (!ok)
		return BR_ALERT_DECRYPT_ERROR;
	th_add(&c->th, m, len);
	if (c->resumed) {
		c->phase = P_APP;
		return 0;
	}
	if (c->ops->save != NULL && c->sid_len == sizeof(sp.id)) {
		memset(&sp, 0, sizeof(sp));
		memcpy(sp.id, c->sid, sizeof(sp.id));
		memcpy(sp.secret, c->ms, sizeof(c->ms));
		sp.version = TLS12;
		sp.suite = c->ch.suite;
		sp.ems = c->ems;
		c->ops->save(c->ops->ctx, &sp);
		wipe(&sp, sizeof(sp));
	}
	c->phase = P_SFIN;
	return 0;
}

static const struct hs_want want12[] = {
	{ P_CCERT, HT_CERTIFICATE, 3, 0xffffff },
	{ P_CKE, HT_CLIENT_KEY_EXCHANGE, 2, 1 + KX_PUB_MAX },
	{ P_CCV, HT_CERTIFICATE_VERIFY, 4, 4 + SIG_LEN_MAX },
	{ P_FIN, HT_FINISHED, FINISHED_LEN, FINISHED_LEN },
	/* Renegotiation: the hello is read, dropped, answered. */
	{ P_APP, HT_CLIENT_HELLO, 0, 0xffffff },
};

static unsigned
hs12_end(struct eng *c)
{
	const unsigned char *m = c->msg;

	switch (m[0]) {
	case HT_CERTIFICATE:
		return hs_cert_end(c, P_CKE, P_CKE);
	case HT_CLIENT_KEY_EXCHANGE:
		return client_kx(c, m, 4 + c->mlen);
	case HT_CERTIFICATE_VERIFY:
		return hs_cert_verify(c, P_CCS);
	case HT_FINISHED:
		return client_finished(c, m, 4 + c->mlen);
	default:	/* a ClientHello, once established: RFC 5746 4.2 */
		eng_flush(c);
		c->owed[0] = ALERT_WARNING;
		c->owed[1] = BR_ALERT_NO_RENEGOTIATION;
		c->owed_on = 1;
		return 0;
	}
}

static unsigned
hs12_record(struct eng *c)
{
	unsigned char *r = c->ibuf, *p = r + 5;
	size_t len = c->ipos - 5;
	int type = r[0];

	c->ipos = 0;
	if (c->rd_on) {
		/* Opened in place: the content is after the explicit nonce. */
		p = r + rp_head12(&c->rd);
		type = rp_open12(&c->rd, r, len + 5, &len);
	}
	if (type != CT_ALERT)
		c->warnings = 0;
	if (type != CT_CHANGE_CIPHER_SPEC)
		return hs_content(c, type, p, len, c->phase != P_FLIGHT &&
		    c->phase != P_SFIN);
	if (c->hs_len > 0 || c->phase != P_CCS || len != 1 || p[0] != 1)
		return BR_ALERT_UNEXPECTED_MESSAGE;
	c->rd_on = 1;
	c->phase = P_FIN;
	return 0;
}

const struct eng_hs hs12_class = {
	hs12_hello, hs12_record, want12, sizeof(want12) / sizeof(want12[0]),
	hs12_end, hs12_piece, hs12_flight_done, hs12_pump
};
