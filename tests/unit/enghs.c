/* SPDX-License-Identifier: ISC */
/*
 * enghs.c - the handshakes of engclient.h's client: TLS 1.2 (RFC 5246,
 * RFC 7627, RFC 8422) and TLS 1.3 (RFC 8446), each after the
 * ServerHello, with the faults the tests ask for.
 */
#include <string.h>

#include "engclient.h"
#include "tlswire.h"

#define FIN12_LEN	12
#define HT_MESSAGE_HASH	254	/* RFC 8446 4.4.1 */
#define NAMED_CURVE	3	/* ECCurveType, RFC 8422 5.4 */

/* A ServerHello, or a HelloRetryRequest, read. */
struct sh {
	unsigned		 version, suite, group;
	const unsigned char	*random, *sid, *pub;
	size_t			 sid_len, publen;
	int			 ems, psk, hrr, ticket;
	unsigned		 mfl;
};

/*
 * CertificateVerify (RFC 5246 7.4.8, RFC 8446 4.4.3) around the sn bytes
 * of signature at cv + 8 (0: signing failed), under scheme; FAULT_CV
 * flips the signature's last bit.
 */
static int
send_cv(struct cli *c, unsigned char *cv, size_t sn, unsigned scheme)
{
	if (sn == 0)
		return cli_fail("CertificateVerify: no signature");
	if (c->fault == FAULT_CV)
		cv[8 + sn - 1] ^= 1;
	cv[0] = HT_CERTIFICATE_VERIFY;
	cv[1] = 0;
	cv[2] = 0;
	cv[3] = (unsigned char)(4 + sn);
	cv[4] = (unsigned char)(scheme >> 8);
	cv[5] = (unsigned char)scheme;
	cv[6] = 0;
	cv[7] = (unsigned char)sn;
	return cli_send_hs(c, cv, 8 + sn);
}

static size_t
dig_len(const br_hash_class *dig)
{
	return dig->desc >> BR_HASHDESC_OUT_OFF & BR_HASHDESC_OUT_MASK;
}

static int
parse_sh(const unsigned char *m, size_t n, struct sh *h)
{
	br_sha256_context sc;
	unsigned char hrr[32];
	size_t p, end = n, t, len;

	memset(h, 0, sizeof(*h));
	if (n < 4 + 2 + 32 + 1 + 2 + 1 || tw_get24(m + 1) != n - 4)
		return cli_fail("ServerHello: short");
	h->version = (unsigned)tw_get16(m + 4);
	h->random = m + 6;
	h->sid_len = m[38];
	h->sid = m + 39;
	p = 39 + h->sid_len;
	if (p + 3 > end || m[p + 2] != 0)
		return cli_fail("ServerHello: bad suite or compression");
	h->suite = (unsigned)tw_get16(m + p);
	p += 3;
	if (p < end && p + 2 + tw_get16(m + p) != end)
		return cli_fail("ServerHello: bad extensions");
	for (p += 2; p + 4 <= end; p += 4 + len) {
		const unsigned char *q = m + p + 4;

		t = tw_get16(m + p);
		if ((len = tw_get16(m + p + 2)) > end - p - 4)
			return cli_fail("ServerHello: bad extension");
		if (t == EXT_SUPPORTED_VERSIONS && len == 2)
			h->version = (unsigned)tw_get16(q);
		else if (t == EXT_EXTENDED_MASTER_SECRET)
			h->ems = 1;
		else if (t == EXT_SESSION_TICKET)
			h->ticket = len == 0 ? 1 : -1;
		else if (t == EXT_MAX_FRAGMENT_LENGTH && len == 1)
			h->mfl = q[0];
		else if (t == EXT_PRE_SHARED_KEY)
			h->psk = len == 2 && tw_get16(q) == 0 ? 1 : -1;
		else if (t == EXT_KEY_SHARE && len >= 2) {
			h->group = (unsigned)tw_get16(q);
			if (len >= 4 && len == 4 + tw_get16(q + 2)) {
				h->pub = q + 4;
				h->publen = len - 4;
			}
		}
	}
	/* RFC 8446 4.1.3: SHA-256 of "HelloRetryRequest". */
	br_sha256_init(&sc);
	br_sha256_update(&sc, "HelloRetryRequest", 17);
	br_sha256_out(&sc, hrr);
	h->hrr = memcmp(h->random, hrr, 32) == 0;
	if (h->ticket < 0)
		return cli_fail("ServerHello: a SessionTicket not empty");
	return h->psk < 0 ? cli_fail("ServerHello: bad pre_shared_key") : 0;
}

/* Does m[0..n) hold our CA's name (a CertificateRequest's list)? */
static int
names_ca(const unsigned char *m, size_t n)
{
	const br_x500_name *dn = &test_ca()->dn;

	for (size_t i = 0; i + dn->len <= n; i++)
		if (memcmp(m + i, dn->data, dn->len) == 0)
			return 1;
	return 0;
}

/* EncryptedExtensions: max_fragment_length's answer, if any. */
static unsigned
ee_mfl(const unsigned char *m, size_t n)
{
	size_t p, len;

	for (p = 6; n >= 6 && p + 4 <= n; p += 4 + len) {
		len = tw_get16(m + p + 2);
		if (tw_get16(m + p) == EXT_MAX_FRAGMENT_LENGTH && len == 1 &&
		    p + 5 <= n)
			return m[p + 4];
	}
	return 0;
}

/* The client's Certificate: ours, or empty; TLS 1.3 has a context. */
static int
client_cert(struct cli *c, int v13)
{
	const br_x509_certificate x[2] = { *test_cert(2), *test_cert(CRED_EC) };
	unsigned char m[1600];
	struct tw w;
	int none = !c->cert || c->fault == FAULT_EMPTY_CERT;

	tw_init(&w, m, sizeof(m));
	tw_msg(&w, HT_CERTIFICATE);
	if (v13)
		tw_u8(&w, 0);
	tw_open(&w, 3);
	/* Ours, then (chain2) a certificate standing for an issuer's. */
	for (int i = 0; !none && i < 1 + c->chain2; i++) {
		tw_open(&w, 3);
		tw_put(&w, x[i].data, x[i].data_len);
		tw_close(&w);
		if (v13)
			tw_u16(&w, 0);
	}
	tw_close(&w);
	tw_close(&w);
	return cli_send_hs(c, m, tw_len(&w));
}

/* The server's Certificate: exactly the chain the test configured. */
static int
server_cert(struct cli *c, int v13)
{
	const br_x509_certificate *x = test_cert(c->s->cred);
	const unsigned char *m;
	size_t n, p = 4 + (v13 ? 1 : 0), l = x->data_len;

	if (cli_next_hs(c, HT_CERTIFICATE, &m, &n) < 0)
		return -1;
	if (n != p + 3 + 3 + l + (v13 ? 2 : 0) || (v13 && m[4] != 0) ||
	    tw_get24(m + p) != n - p - 3 || tw_get24(m + p + 3) != l ||
	    memcmp(m + p + 6, x->data, l) != 0)
		return cli_fail("Certificate: not our chain");
	return cli_log(c, m, n);
}

/* TLS 1.2. */

static const br_hash_class *
prf_hash12(unsigned suite)
{
	return suite == ECDSA_AES256 || suite == RSA_AES256 ?
	    &br_sha384_vtable : &br_sha256_vtable;
}

static void
prf12(const struct cli *c, void *out, size_t len, const void *secret,
    size_t slen, const char *label, const void *s1, size_t n1,
    const void *s2, size_t n2)
{
	br_tls_prf_seed_chunk seed[2] = { { s1, n1 }, { s2, n2 } };

	(c->dig == &br_sha384_vtable ? br_tls12_sha384_prf :
	    br_tls12_sha256_prf)(out, len, secret, slen, label,
	    s2 != NULL ? 2 : 1, seed);
}

/* The key block (RFC 5246 6.3): the client writes with the first key. */
static void
keys12(struct cli *c)
{
	unsigned char kb[2 * 32 + 2 * 12];
	int aead = SUITE_CHACHA20_POLY1305_SHA256;
	size_t kl, il;

	if (c->suite == ECDSA_AES128 || c->suite == RSA_AES128)
		aead = SUITE_AES_128_GCM_SHA256;
	else if (c->suite == ECDSA_AES256 || c->suite == RSA_AES256)
		aead = SUITE_AES_256_GCM_SHA384;
	kl = aead == SUITE_AES_128_GCM_SHA256 ? 16 : 32;
	il = aead == SUITE_CHACHA20_POLY1305_SHA256 ? 12 : 4;

	prf12(c, kb, 2 * kl + 2 * il, c->ms, 48, "key expansion", c->sr, 32,
	    c->cr, 32);
	rp_init12(&c->wr, aead, kb, kb + 2 * kl);
	rp_init12(&c->rd, aead, kb + kl, kb + 2 * kl + il);
}

/* The ServerKeyExchange's signature over the randoms and params. */
static int
ske_verify(struct cli *c, unsigned scheme, const unsigned char *params,
    size_t plen, const unsigned char *sig, size_t slen)
{
	const br_x509_pkey *pk = srv_pkey(c->s->cred);
	const br_hash_class *dig = scheme == ECDSA_SHA384 ? &br_sha384_vtable :
	    &br_sha256_vtable;
	br_hash_compat_context h;
	unsigned char hv[64], out[64];
	size_t hl = dig_len(dig);

	dig->init(&h.vtable);
	dig->update(&h.vtable, c->cr, 32);
	dig->update(&h.vtable, c->sr, 32);
	dig->update(&h.vtable, params, plen);
	dig->out(&h.vtable, hv);
	c->scheme = scheme;
	switch (scheme) {
	case ECDSA_SHA256:
	case ECDSA_SHA384:
		return pk->key_type == BR_KEYTYPE_EC &&
		    br_ecdsa_vrfy_asn1_get_default()(br_ec_get_default(), hv,
		    hl, &pk->key.ec, sig, slen) == 1;
	case RSA_PSS_SHA256:
		return pk->key_type == BR_KEYTYPE_RSA &&
		    sig_pss_verify(dig, &pk->key.rsa, hv, sig, slen);
	case RSA_PKCS1_SHA256:
		return pk->key_type == BR_KEYTYPE_RSA &&
		    br_rsa_pkcs1_vrfy_get_default()(sig, slen,
		    BR_HASH_OID_SHA256, hl, &pk->key.rsa, out) &&
		    memcmp(out, hv, hl) == 0;
	}
	return 0;
}

/* Our ChangeCipherSpec and Finished. */
static int
client_finished12(struct cli *c)
{
	unsigned char m[4 + FIN12_LEN] = { HT_FINISHED, 0, 0, FIN12_LEN };
	unsigned char h[HASH_MAX];
	size_t hl;

	if (c->fault == FAULT_APP_EARLY &&
	    cli_send(c, CT_APPLICATION_DATA, "early", 5) < 0)
		return -1;
	if (cli_send(c, CT_CHANGE_CIPHER_SPEC, "\1", 1) < 0)
		return -1;
	c->wr_on = 1;
	hl = cli_th(c, NULL, 0, h);
	prf12(c, m + 4, FIN12_LEN, c->ms, 48, "client finished", h, hl,
	    NULL, 0);
	if (c->fault == FAULT_FINISHED)
		m[4] ^= 1;
	return cli_send_hs(c, m, sizeof(m));
}

/* The server's ChangeCipherSpec and Finished. */
static int
server_finished12(struct cli *c)
{
	unsigned char want[FIN12_LEN], h[HASH_MAX];
	const unsigned char *m;
	size_t n, hl;
	int t;

	if (!c->ccs_peeked && cli_next(c, &t, &m, &n) < 0)
		return -1;
	/* RFC 5077 3.3: a ticket, before the CCS, promised in ServerHello. */
	if (!c->ccs_peeked && t == CT_HANDSHAKE &&
	    m[0] == HT_NEW_SESSION_TICKET) {
		if (!c->sh_ticket || n < 10 || tw_get16(m + 8) != n - 10 ||
		    n - 10 > sizeof(c->got.ticket))
			return cli_fail("NewSessionTicket: not what we know");
		c->nst12 = 1;
		c->ticket_lifetime = (unsigned long)tw_get16(m + 4) << 16 |
		    tw_get16(m + 6);
		memcpy(c->got.ticket, m + 10, n - 10);
		c->got.ticket_len = n - 10;
		if (cli_log(c, m, n) < 0 || cli_next(c, &t, &m, &n) < 0)
			return -1;
	} else if (!c->ccs_peeked && c->sh_ticket)
		return cli_fail("no NewSessionTicket, though promised");
	if (!c->ccs_peeked && (t != CT_CHANGE_CIPHER_SPEC || n != 1 ||
	    m[0] != 1))
		return cli_fail("not the server's ChangeCipherSpec");
	c->rd_on = 1;
	hl = cli_th(c, NULL, 0, h);
	prf12(c, want, FIN12_LEN, c->ms, 48, "server finished", h, hl, NULL,
	    0);
	if (cli_next_hs(c, HT_FINISHED, &m, &n) < 0)
		return -1;
	if (n != 4 + FIN12_LEN || memcmp(m + 4, want, FIN12_LEN) != 0)
		return cli_fail("the server's Finished is wrong");
	return cli_log(c, m, n);
}

/* Our ClientKeyExchange (and master secret), CertificateVerify. */
static int
client_kx12(struct cli *c, unsigned group, const unsigned char *spub,
    size_t splen)
{
	unsigned char m[4 + 1 + KX_PUB_MAX], pms[KX_SHARED_MAX];
	unsigned char h[HASH_MAX], cv[8 + 160];
	size_t pn, sn, hl;

	pn = kx_gen(&c->kx[0], (int)group, cli_rng(), m + 5,
	    sizeof(m) - 5);
	if (pn == 0 || (sn = kx_shared(&c->kx[0], spub, splen, pms)) == 0)
		return cli_fail("ServerKeyExchange: no shared secret");
	if (c->fault == FAULT_CKE_OFF_CURVE)
		m[5 + pn - 1] ^= 1;		/* Y, no longer on the curve */
	m[0] = HT_CLIENT_KEY_EXCHANGE;
	m[1] = 0;
	m[2] = 0;
	m[3] = (unsigned char)(1 + pn);
	m[4] = (unsigned char)pn;
	if (cli_send_hs(c, m, 5 + pn) < 0)
		return -1;
	if (c->ems_echo) {
		hl = cli_th(c, NULL, 0, h);
		prf12(c, c->ms, 48, pms, sn, "extended master secret", h, hl,
		    NULL, 0);
	} else
		prf12(c, c->ms, 48, pms, sn, "master secret", c->cr, 32,
		    c->sr, 32);
	if (!c->cr_seen || !c->cert || c->fault == FAULT_EMPTY_CERT)
		return 0;
	/* CertificateVerify: over the handshake, the transcript's hash. */
	hl = cli_th(c, NULL, 0, h);
	sn = br_ecdsa_sign_asn1_get_default()(br_ec_get_default(), c->dig, h,
	    cli_key(), cv + 8);
	return send_cv(c, cv, sn, hl == 48 ? ECDSA_SHA384 : ECDSA_SHA256);
}

int
hs12(struct cli *c, const unsigned char *sh, size_t shn)
{
	unsigned char spub[KX_PUB_MAX];
	const unsigned char *m;
	struct sh h;
	size_t n, q, splen, sl;
	unsigned group;
	int t;

	if (parse_sh(sh, shn, &h) < 0)
		return -1;
	if (h.version != TLS12)
		return cli_fail("ServerHello: not TLS 1.2");
	memcpy(c->sr, h.random, 32);
	memcpy(c->sid, h.sid, h.sid_len);
	c->sid_len = h.sid_len;
	c->suite = h.suite;
	c->ems_echo = h.ems;
	c->mfl_echo = h.mfl;
	c->dig = prf_hash12(h.suite);
	if (cli_log(c, sh, shn) < 0)
		return -1;
	c->sh_ticket = h.ticket;
	if (c->resume.on && c->resume.ticket_len > 0 && c->no_sid) {
		/* No session ID to tell: a CCS now says it resumed. */
		if (cli_next(c, &t, &m, &n) < 0)
			return -1;
		if (t != CT_CHANGE_CIPHER_SPEC || n != 1 || m[0] != 1 ||
		    h.sid_len != 0)
			return cli_fail("a ticket not resumed");
		c->ccs_peeked = 1;
	}
	if (c->ccs_peeked || (c->resume.on && h.sid_len == 32 &&
	    memcmp(h.sid, c->resume.ticket_len > 0 ? c->cr : c->resume.id,
	    32) == 0)) {
		/* Abbreviated: the server's CCS and Finished come first. */
		c->resumed = 1;
		memcpy(c->ms, c->resume.psk, 48);
		keys12(c);
		if (server_finished12(c) < 0)
			return -1;
		return client_finished12(c);
	}
	if (server_cert(c, 0) < 0 ||
	    cli_next_hs(c, HT_SERVER_KEY_EXCHANGE, &m, &n) < 0)
		return -1;
	if (n < 8 || m[4] != NAMED_CURVE || (splen = m[7]) + 8 + 4 > n)
		return cli_fail("ServerKeyExchange: bad params");
	group = (unsigned)tw_get16(m + 5);
	memcpy(spub, m + 8, splen);
	q = 8 + splen;
	sl = tw_get16(m + q + 2);
	if (q + 4 + sl != n || !ske_verify(c, (unsigned)tw_get16(m + q), m + 4,
	    q - 4, m + q + 4, sl))
		return cli_fail("ServerKeyExchange: bad signature");
	c->group = group;
	if (cli_log(c, m, n) < 0 || cli_next(c, &t, &m, &n) < 0)
		return -1;
	if (t == CT_HANDSHAKE && m[0] == HT_CERTIFICATE_REQUEST) {
		c->cr_seen = 1;
		c->cr_ca = names_ca(m, n);
		if (cli_log(c, m, n) < 0 || cli_next(c, &t, &m, &n) < 0)
			return -1;
	}
	if (t != CT_HANDSHAKE || m[0] != HT_SERVER_HELLO_DONE || n != 4)
		return cli_fail("not ServerHelloDone");
	if (cli_log(c, m, n) < 0)
		return -1;
	if (c->cr_seen && client_cert(c, 0) < 0)
		return -1;
	if (c->fault == FAULT_CCS_EARLY &&
	    cli_send(c, CT_CHANGE_CIPHER_SPEC, "\1", 1) < 0)
		return -1;
	if (client_kx12(c, group, spub, splen) < 0)
		return -1;
	keys12(c);
	if (client_finished12(c) < 0 || server_finished12(c) < 0)
		return -1;
	if (c->sid_len == 32 || c->nst12) {
		c->got.on = 1;
		c->got.suite = c->suite;
		memcpy(c->got.id, c->sid, c->sid_len);
		memcpy(c->got.psk, c->ms, 48);
	}
	return 0;
}

/* TLS 1.3. */

/* After a HelloRetryRequest: message_hash, HRR, the second hello. */
static int
retry13(struct cli *c, const unsigned char *m, size_t n, unsigned group)
{
	unsigned char mh[4 + HASH_MAX], ch2[4096];
	size_t hl = cli_th(c, NULL, 0, mh + 4), k;

	if (c->hrr)
		return cli_fail("a second HelloRetryRequest");
	c->hrr = 1;
	c->hrr_group = group;
	mh[0] = HT_MESSAGE_HASH;
	mh[1] = 0;
	mh[2] = 0;
	mh[3] = (unsigned char)hl;
	c->loglen = 0;
	if (cli_log(c, mh, 4 + hl) < 0 || cli_log(c, m, n) < 0)
		return -1;
	c->shares[0] = group;
	c->nshares = 1;
	if ((k = cli_hello_msg(c, ch2, sizeof(ch2))) == 0)
		return cli_fail("second hello does not fit");
	return cli_send_hs(c, ch2, k);
}

/* Our Certificate and CertificateVerify, then Finished. */
static int
client_flight13(struct cli *c)
{
	unsigned char m[4 + HASH_MAX], th[HASH_MAX], cv[8 + 160];
	size_t hl = dig_len(c->dig), sn;

	/* Middlebox compatibility (D.4): one CCS before the flight. */
	if (cli_send(c, CT_CHANGE_CIPHER_SPEC, "\1", 1) < 0)
		return -1;
	c->wr_on = 1;
	if (c->cr_seen && client_cert(c, 1) < 0)
		return -1;
	if (c->cr_seen && c->cert && c->fault != FAULT_EMPTY_CERT) {
		cli_th(c, NULL, 0, th);
		sn = sig_cv_sign(SIG_ECDSA_SECP384R1_SHA384, 0, th, hl,
		    cli_key(), NULL, cli_rng(), cv + 8, sizeof(cv) - 8);
		if (send_cv(c, cv, sn, SIG_ECDSA_SECP384R1_SHA384) < 0)
			return -1;
	}
	if (c->fault == FAULT_APP_EARLY &&
	    cli_send(c, CT_APPLICATION_DATA, "early", 5) < 0)
		return -1;
	cli_th(c, NULL, 0, th);
	m[0] = HT_FINISHED;
	m[1] = 0;
	m[2] = 0;
	m[3] = (unsigned char)hl;
	ks_finished(c->dig, c->c_hs, th, m + 4);
	if (c->fault == FAULT_FINISHED)
		m[4] ^= 1;
	if (cli_send_hs(c, m, 4 + hl) < 0)
		return -1;
	rp_init(&c->wr, (int)c->suite, c->c_ap);
	return 0;
}

/* NewSessionTicket: the ticket and its PSK (RFC 8446 4.6.1). */
static int
ticket13(struct cli *c)
{
	unsigned char th[HASH_MAX], res[HASH_MAX];
	const unsigned char *m;
	size_t n, nl, il;

	if (cli_next_hs(c, HT_NEW_SESSION_TICKET, &m, &n) < 0)
		return -1;
	if (n < 4 + 8 + 1 || (nl = m[12]) + 13 + 2 > n ||
	    (il = tw_get16(m + 13 + nl)) == 0 || il > sizeof(c->got.ticket) ||
	    13 + nl + 2 + il + 2 != n)
		return cli_fail("NewSessionTicket: not what we know");
	c->ticket_lifetime = (unsigned long)tw_get16(m + 4) << 16 | tw_get16(m + 6);
	cli_th(c, NULL, 0, th);
	ks_derive(&c->ks, "res master", th, res);
	ks_ticket_psk(c->dig, res, m + 13, nl, c->got.psk);
	memcpy(c->got.ticket, m + 13 + nl + 2, il);
	c->got.ticket_len = il;
	c->got.suite = c->suite;
	c->got.on = 1;
	return 0;
}

int
hs13(struct cli *c, const unsigned char *sh, size_t shn)
{
	unsigned char first[2048], dhe[80], th[HASH_MAX];
	unsigned char want[HASH_MAX];
	const unsigned char *m;
	struct sh h;
	size_t n, hl, dn = 0, i;
	int t;

	memcpy(first, sh, shn);
	for (;;) {
		if (parse_sh(first, shn, &h) < 0)
			return -1;
		if (h.version != TLS13 || (c->dig = ks_suite_hash((int)
		    h.suite)) == NULL)
			return cli_fail("ServerHello: not TLS 1.3");
		c->suite = h.suite;
		if (h.sid_len != 32 || memcmp(h.sid, c->cr, 32) != 0)
			return cli_fail("ServerHello: session ID not echoed");
		if (!h.hrr)
			break;
		if (retry13(c, first, shn, h.group) < 0 ||
		    cli_next_hs(c, HT_SERVER_HELLO, &m, &shn) < 0)
			return -1;
		if (shn > sizeof(first))
			return cli_fail("ServerHello: too long");
		memcpy(first, m, shn);
	}
	c->group = h.group;
	for (i = 0; i < c->nshares && c->shares[i] != h.group; i++)
		;
	if (i == c->nshares || h.pub == NULL || (dn = cli_shared(c, i,
	    h.pub, h.publen, dhe)) == 0)
		return cli_fail("ServerHello: no share of ours");
	c->resumed = h.psk;
	if (c->resumed && !c->resume.on)
		return cli_fail("ServerHello: a PSK we did not offer");
	if (cli_log(c, first, shn) < 0)
		return -1;
	hl = dig_len(c->dig);
	ks_early(&c->ks, c->dig, c->resumed ? c->resume.psk : NULL, hl);
	ks_handshake(&c->ks, dhe, dn);
	cli_th(c, NULL, 0, th);
	ks_derive(&c->ks, "c hs traffic", th, c->c_hs);
	ks_derive(&c->ks, "s hs traffic", th, c->s_hs);
	rp_init(&c->rd, (int)c->suite, c->s_hs);
	rp_init(&c->wr, (int)c->suite, c->c_hs);
	c->rd_on = 1;
	if (cli_next_hs(c, HT_ENCRYPTED_EXTENSIONS, &m, &n) < 0)
		return -1;
	c->mfl_echo = ee_mfl(m, n);
	if (cli_log(c, m, n) < 0)
		return -1;
	if (!c->resumed) {
		if (cli_next(c, &t, &m, &n) < 0)
			return -1;
		if (t == CT_HANDSHAKE && m[0] == HT_CERTIFICATE_REQUEST) {
			if (n < 5 || m[4] != 0)
				return cli_fail("CertificateRequest: context");
			c->cr_seen = 1;
			c->cr_ca = names_ca(m, n);
			if (cli_log(c, m, n) < 0)
				return -1;
		} else if (t == CT_HANDSHAKE) {
			/* Not a request: read it again as the Certificate. */
			c->hspos -= n;
		} else
			return cli_fail("a record instead of Certificate");
		if (server_cert(c, 1) < 0 ||
		    cli_next_hs(c, HT_CERTIFICATE_VERIFY, &m, &n) < 0)
			return -1;
		cli_th(c, NULL, 0, th);
		c->scheme = (unsigned)tw_get16(m + 4);
		if (n < 8 || n != 8 + tw_get16(m + 6) ||
		    !sig_cv_verify((int)c->scheme, 1, th, hl,
		    srv_pkey(c->s->cred), m + 8, n - 8))
			return cli_fail("CertificateVerify: bad signature");
		if (cli_log(c, m, n) < 0)
			return -1;
	}
	if (cli_next_hs(c, HT_FINISHED, &m, &n) < 0)
		return -1;
	cli_th(c, NULL, 0, th);
	ks_finished(c->dig, c->s_hs, th, want);
	if (n != 4 + hl || memcmp(m + 4, want, hl) != 0)
		return cli_fail("the server's Finished is wrong");
	if (cli_log(c, m, n) < 0)
		return -1;
	cli_th(c, NULL, 0, th);
	ks_handshake(&c->ks, NULL, 0);
	ks_derive(&c->ks, "c ap traffic", th, c->c_ap);
	ks_derive(&c->ks, "s ap traffic", th, c->s_ap);
	rp_init(&c->rd, (int)c->suite, c->s_ap);
	if (client_flight13(c) < 0)
		return -1;
	return ticket13(c);
}

int
cli_handshake(struct cli *c)
{
	unsigned char sh[2048];
	const unsigned char *m, *p;
	const char *w;
	struct sh h;
	size_t n;
	int r, t;

	if (cli_next_hs(c, HT_SERVER_HELLO, &m, &n) < 0)
		r = -1;
	else if (n > sizeof(sh) || parse_sh(m, n, &h) < 0)
		r = cli_fail("ServerHello: cannot read");
	else {
		memcpy(sh, m, n);
		c->version = h.version;
		r = h.version == TLS13 ? hs13(c, sh, n) : hs12(c, sh, n);
	}
	if (r < 0) {
		/* What the server said after: its alert, if any. */
		w = cli_why;
		while (cli_next(c, &t, &p, &n) == 0)
			;
		cli_why = w;
	}
	return r;
}

int
cli_connect(struct cli *c)
{
	if (cli_hello(c) < 0)
		return -1;
	return cli_handshake(c);
}

int
cli_key_update(struct cli *c, int request)
{
	unsigned char m[5] = { HT_KEY_UPDATE, 0, 0, 1, 0 };

	m[4] = (unsigned char)request;
	if (cli_send(c, CT_HANDSHAKE, m, sizeof(m)) < 0)
		return -1;
	ks_next_secret(c->dig, c->c_ap);
	rp_init(&c->wr, (int)c->suite, c->c_ap);
	return 0;
}

void
cli_next_read_key(struct cli *c)
{
	ks_next_secret(c->dig, c->s_ap);
	rp_init(&c->rd, (int)c->suite, c->s_ap);
}
