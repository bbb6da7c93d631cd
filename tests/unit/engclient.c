/* SPDX-License-Identifier: ISC */
/*
 * engclient.c - see engclient.h.  The client's side mirrors the engine's
 * files: records and messages first, then the TLS 1.2 handshake (RFC
 * 5246, RFC 7627), then TLS 1.3's (RFC 8446).
 */
#include <stdio.h>
#include <string.h>

#include "engclient.h"
#include "ct.h"
#include "eng_keys.h"
#include "ticket.h"
#include "tlswire.h"
#include "unit.h"
#ifndef TLSGATE_NO_MLKEM
#include "mlkem_ref.h"
#endif

/* Keys and certificates, decoded once. */
static struct {
	int			 on;
	br_skey_decoder_context	 ec, rsa, cli;
	unsigned char		 ec_pub[BR_EC_KBUF_PUB_MAX_SIZE];
	unsigned char		 cli_pub[BR_EC_KBUF_PUB_MAX_SIZE];
	unsigned char		 n[256], e[3];
	br_x509_pkey		 ec_pk, rsa_pk, cli_pk;
	unsigned char		 der[3][1024];
	br_x509_certificate	 cert[3];	/* EC, RSA, the client's */
} K;

/* A CA's name for the CertificateRequests: "CN=test CA". */
static const unsigned char ca_dn[] = {
	0x30, 0x12, 0x31, 0x10, 0x30, 0x0e, 0x06, 0x03, 0x55, 0x04, 0x03,
	0x0c, 0x07, 't', 'e', 's', 't', ' ', 'C', 'A',
};
static const br_x509_trust_anchor ca = {
	{ (unsigned char *)(uintptr_t)ca_dn, sizeof(ca_dn) }, 0,
	{ BR_KEYTYPE_EC, { .ec = { 0, NULL, 0 } } },
};

static const unsigned short default_groups[] = { GROUP_X25519,
    GROUP_SECP256R1 };

/* TLS 1.2's suites, ours first, with ECDSA then with RSA. */
static const unsigned suites12[] = {
	ECDSA_AES128, ECDSA_AES256, ECDSA_CHACHA,
	RSA_AES128, RSA_AES256, RSA_CHACHA,
};

static struct eng_session store[8];
static size_t nstore;
static struct ticket_keys tkeys;
static unsigned nkeys;
static br_hmac_drbg_context srv_rng, crng;
/* The engine's scratch buffer (eng_ops): the longest second hello. */
static unsigned char srv_scratch[ENG_HELLO2_MAX(16384 + 85)];
static unsigned nseed;

const char *cli_why = "";

int
cli_fail(const char *reason)
{
	cli_why = reason;
	return -1;
}

static void
keys_load(void)
{
	static const char *const certs[] = { EC_CERT, RSA_CERT, CLI_CERT };
	unsigned char b[2048];
	size_t n;

	if (K.on)
		return;
	K.on = 1;
	br_skey_decoder_init(&K.ec);
	br_skey_decoder_push(&K.ec, b,
	    unit_unhex(b, sizeof(b), key_der[KEY_P256]));
	br_skey_decoder_init(&K.rsa);
	br_skey_decoder_push(&K.rsa, b,
	    unit_unhex(b, sizeof(b), key_der[KEY_RSA2048]));
	br_skey_decoder_init(&K.cli);
	br_skey_decoder_push(&K.cli, b,
	    unit_unhex(b, sizeof(b), key_der[KEY_P384]));
	/* Secret (make ctcheck) as cred.c marks it; RSA keys are not. */
	ct_secret(br_skey_decoder_get_ec(&K.ec)->x,
	    br_skey_decoder_get_ec(&K.ec)->xlen);
	K.ec_pk.key_type = BR_KEYTYPE_EC;
	br_ec_compute_pub(br_ec_get_default(), &K.ec_pk.key.ec, K.ec_pub,
	    br_skey_decoder_get_ec(&K.ec));
	ct_public(K.ec_pub, sizeof(K.ec_pub));	/* in its certificate */
	K.cli_pk.key_type = BR_KEYTYPE_EC;
	br_ec_compute_pub(br_ec_get_default(), &K.cli_pk.key.ec, K.cli_pub,
	    br_skey_decoder_get_ec(&K.cli));
	/* openssl's exponent, as test_tlscrypto takes it. */
	K.rsa_pk.key_type = BR_KEYTYPE_RSA;
	K.rsa_pk.key.rsa.n = K.n;
	K.rsa_pk.key.rsa.nlen = br_rsa_compute_modulus_get_default()(K.n,
	    br_skey_decoder_get_rsa(&K.rsa));
	memcpy(K.e, "\x01\x00\x01", 3);
	K.rsa_pk.key.rsa.e = K.e;
	K.rsa_pk.key.rsa.elen = 3;
	for (int i = 0; i < 3; i++) {
		n = unit_unhex(K.der[i], sizeof(K.der[i]), certs[i]);
		K.cert[i].data = K.der[i];
		K.cert[i].data_len = n;
	}
}

/* A seeded DRBG, different for each connection of a run. */
static void
rng_seed(br_hmac_drbg_context *d, const char *who)
{
	unsigned char seed[40];

	memset(seed, 0, sizeof(seed));
	snprintf((char *)seed, sizeof(seed), "%s %u", who, nseed++);
	br_hmac_drbg_init(d, &br_sha256_vtable, seed, sizeof(seed));
}

/*
 * The test's choices: its one credential, the first suite of AES-128,
 * AES-256, ChaCha20 the client offers, a signature scheme of the
 * client's for the key (RSA-PSS before PKCS#1 v1.5).
 */
static unsigned
choose(void *ctx, const unsigned char *m, const struct hello *h,
    unsigned version, struct eng_choice *out)
{
	struct srv *s = ctx;
	int rsa = s->cred == CRED_RSA;
	unsigned i;

	(void)m;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < 3 && out->suite == 0; i++)
		if (version == TLS13 && (h->suites & hello_suite(0x1301 + i)))
			out->suite = 0x1301 + i;
		else if (version == TLS12 &&
		    (h->suites12 & hello_suite(suites12[i + 3 * rsa])))
			out->suite = suites12[i + 3 * rsa];
	if (!rsa && (h->sigalgs & hello_sig(SIG_ECDSA_SECP256R1_SHA256)))
		out->scheme = SIG_ECDSA_SECP256R1_SHA256;
	else if (rsa && (h->sigalgs & hello_sig(SIG_RSA_PSS_RSAE_SHA256)))
		out->scheme = SIG_RSA_PSS_RSAE_SHA256;
	else if (rsa && version == TLS12 &&
	    (h->sigalgs & hello_sig(SIG_RSA_PKCS1_SHA256)))
		out->scheme = RSA_PKCS1_SHA256;
	out->chain = &K.cert[rsa];
	out->nchain = 1;
	out->ec = rsa ? NULL : br_skey_decoder_get_ec(&K.ec);
	out->rsa = rsa ? br_skey_decoder_get_rsa(&K.rsa) : NULL;
	out->groups = s->groups;
	out->ngroups = s->ngroups;
	out->ems_required = s->ems_required;
	out->hybrid_retry = (unsigned char)s->hybrid_retry;
	if (s->client_auth) {
		out->x509 = &s->xk.vtable;
		out->cas = &ca;
		out->ncas = 1;
	}
	return out->suite != 0 && out->scheme != 0 ? 0 :
	    BR_ALERT_HANDSHAKE_FAILURE;
}

static int
load(void *ctx, struct eng_session *s)
{
	(void)ctx;
	for (size_t i = 0; i < nstore; i++)
		if (memcmp(store[i].id, s->id, sizeof(s->id)) == 0) {
			*s = store[i];
			return 1;
		}
	return 0;
}

static void
save(void *ctx, const struct eng_session *s)
{
	(void)ctx;
	if (nstore < sizeof(store) / sizeof(store[0]))
		store[nstore++] = *s;
}

/* Tickets: the session sealed for the server's svc, at its clock. */
static size_t
seal(void *ctx, const struct eng_session *s, unsigned char *out, size_t cap)
{
	struct srv *sv = ctx;
	struct ticket_state st;
	size_t n;

	memset(&st, 0, sizeof(st));
	st.version = s->version;
	st.suite = s->suite;
	st.flags = s->ems ? TICKET_EMS : 0;
	memcpy(st.secret, s->secret, sizeof(s->secret));
	st.secret_len = sizeof(s->secret);
	st.born = sv->now;
	st.lifetime = sv->ops.lifetime;
	n = ticket_seal(&tkeys, &st, sv->svc, strlen(sv->svc),
	    &srv_rng.vtable, sv->now, out, cap);
	memset(&st, 0, sizeof(st));
	return n;
}

static int
open_ticket(void *ctx, const unsigned char *t, size_t len,
    struct eng_session *s)
{
	struct srv *sv = ctx;
	struct ticket_state st;

	if (!ticket_open(&tkeys, t, len, sv->svc, strlen(sv->svc), s->version,
	    sv->now, &st, NULL))
		return 0;
	s->suite = st.suite;
	s->ems = (st.flags & TICKET_EMS) != 0;
	memcpy(s->secret, st.secret, sizeof(s->secret));
	memset(&st, 0, sizeof(st));
	return 1;
}

void
store_clear(void)
{
	unsigned char seed[32];

	memset(store, 0, sizeof(store));
	nstore = 0;
	memset(seed, (int)++nkeys, sizeof(seed));
	ticket_keys_rotating(&tkeys, seed, 3600, 7200, 1000000);
}

struct ticket_keys *
srv_ticket_keys(void)
{
	return &tkeys;
}

void
srv_init(struct srv *s, unsigned vmin, unsigned vmax, size_t olen)
{
	keys_load();
	memset(s, 0, sizeof(*s));
	rng_seed(&srv_rng, "server");
	/* Every output of the server's DRBG is secret, as tls.c's. */
	ct_secret(srv_rng.K, sizeof(srv_rng.K));
	ct_secret(srv_rng.V, sizeof(srv_rng.V));
	s->ops.choose = choose;
	s->ops.load = load;
	s->ops.save = save;
	s->ops.ctx = s;
	s->ops.rng = &srv_rng.vtable;
	s->ops.vmin = vmin;
	s->ops.vmax = vmax;
	s->ops.lifetime = 7200;
	s->ops.scratch = srv_scratch;
	s->ops.scratch_len = sizeof(srv_scratch);
	s->ops.seal = seal;
	s->ops.open = open_ticket;
	s->svc = "svc";
	s->now = 1000000;
	s->olen = olen;
	s->groups = default_groups;
	s->ngroups = 2;
	br_x509_knownkey_init_ec(&s->xk, &K.cli_pk.key.ec, BR_KEYTYPE_SIGN);
}

int
srv_write(struct srv *s, const void *p, size_t n)
{
	unsigned char *b;
	size_t len;

	if ((b = eng_sendapp_buf(&s->e, &len)) == NULL || len < n)
		return -1;
	memcpy(b, p, n);
	eng_sendapp_ack(&s->e, n);
	eng_flush(&s->e);
	return 0;
}

size_t
srv_read(struct srv *s, void *out, size_t cap)
{
	unsigned char *b;
	size_t len;

	if ((b = eng_recvapp_buf(&s->e, &len)) == NULL)
		return 0;
	if (len > cap)
		len = cap;
	memcpy(out, b, len);
	eng_recvapp_ack(&s->e, len);
	return len;
}

size_t
srv_drain(struct srv *s, unsigned char *out, size_t cap)
{
	unsigned char *b;
	size_t len, got = 0;

	while ((b = eng_sendrec_buf(&s->e, &len)) != NULL) {
		if (out != NULL) {
			if (len > cap - got)
				break;
			memcpy(out + got, b, len);
		}
		got += len;
		eng_sendrec_ack(&s->e, len);
	}
	return got;
}

void
cli_init(struct cli *c, struct srv *s, int v13)
{
	static const unsigned sig[] = { ECDSA_SHA256, ECDSA_SHA384,
	    RSA_PSS_SHA256, RSA_PKCS1_SHA256 };
	size_t i;

	memset(c, 0, sizeof(*c));
	rng_seed(&crng, "client");
	c->s = s;
	c->v13 = v13;
	if (v13)
		for (i = 0; i < 3; i++)
			c->suites[c->nsuites++] = 0x1301 + (unsigned)i;
	for (i = 0; i < 6; i++)
		c->suites[c->nsuites++] = suites12[i];
	c->groups[0] = GROUP_X25519;
	c->groups[1] = GROUP_SECP256R1;
	c->ngroups = 2;
	c->shares[0] = GROUP_X25519;
	c->nshares = v13 ? 1 : 0;
	memcpy(c->sigalgs, sig, sizeof(sig));
	c->nsigalgs = 4;
	c->ems = 1;
	(*crng.vtable->generate)(&crng.vtable, c->cr, 32);
	cli_why = "";
}

/* Records and messages. */

int
cli_log(struct cli *c, const unsigned char *m, size_t n)
{
	if (n > sizeof(c->log) - c->loglen)
		return cli_fail("transcript overflow");
	memcpy(c->log + c->loglen, m, n);
	c->loglen += n;
	return 0;
}

/* The transcript hash: of the log, or of the log and p[0..n). */
size_t
cli_th(const struct cli *c, const unsigned char *p, size_t n,
    unsigned char *out)
{
	br_hash_compat_context h;

	c->dig->init(&h.vtable);
	c->dig->update(&h.vtable, c->log, c->loglen);
	c->dig->update(&h.vtable, p, n);
	c->dig->out(&h.vtable, out);
	return c->dig->desc >> BR_HASHDESC_OUT_OFF & BR_HASHDESC_OUT_MASK;
}

size_t
cli_feed(struct cli *c, const unsigned char *p, size_t n)
{
	unsigned char *b;
	size_t len, done = 0;

	while (done < n && (b = eng_recvrec_buf(&c->s->e, &len)) != NULL) {
		if (len > n - done)
			len = n - done;
		if (c->dribble)
			len = 1;
		memcpy(b, p + done, len);
		eng_recvrec_ack(&c->s->e, len);
		done += len;
	}
	return done;
}

size_t
cli_seal(struct cli *c, int type, const void *p, size_t n, unsigned char *r,
    size_t cap)
{
	/* TLS 1.2 GCM: the content goes after the explicit nonce. */
	size_t h = c->wr_on && c->version != TLS13 ? rp_head12(&c->wr) : 5;

	if (n + h > cap)
		return 0;
	memmove(r + h, p, n);
	/* TLS 1.3's CCS is never protected (RFC 8446 5). */
	if (!c->wr_on || (c->version == TLS13 &&
	    type == CT_CHANGE_CIPHER_SPEC)) {
		rp_header(r, type, n);
		return 5 + n;
	}
	if (c->version == TLS13)
		return rp_seal(&c->wr, r, n, cap, type);
	return rp_seal12(&c->wr, r, n, cap, type);
}

int
cli_send(struct cli *c, int type, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t len, k;

	/* Handshake messages may be split at any byte (RFC 8446 5.1). */
	do {
		k = type == CT_HANDSHAKE && c->frag > 0 && n > c->frag ?
		    c->frag : n;
		if ((len = cli_seal(c, type, b, k, c->rec,
		    sizeof(c->rec))) == 0)
			return cli_fail("record does not seal");
		if (cli_feed(c, c->rec, len) != len)
			return cli_fail("the engine took part of a record");
		b += k;
		n -= k;
	} while (n > 0);
	return 0;
}

int
cli_send_hs(struct cli *c, const unsigned char *m, size_t n)
{
	if (cli_log(c, m, n) < 0)
		return -1;
	return cli_send(c, CT_HANDSHAKE, m, n);
}

/* The next record from the server, opened: its type, content in rec. */
static int
record(struct cli *c, int *type, size_t *n)
{
	size_t avail = c->inlen - c->inpos, reclen;
	int t;

	if (avail < 5 || avail < 5 + tw_get16(c->in + c->inpos + 3)) {
		memmove(c->in, c->in + c->inpos, avail);
		c->inlen = avail;
		c->inpos = 0;
		c->inlen += srv_drain(c->s, c->in + c->inlen,
		    sizeof(c->in) - c->inlen);
		avail = c->inlen;
	}
	if (avail < 5 || avail < 5 + tw_get16(c->in + c->inpos + 3))
		return cli_fail("no record from the server");
	reclen = 5 + tw_get16(c->in + c->inpos + 3);
	memcpy(c->rec, c->in + c->inpos, reclen);
	c->inpos += reclen;
	c->rtype = c->rec[0];
	c->rlen = reclen;
	t = c->rec[0];
	*n = reclen - 5;
	if (c->rd_on && (c->version == TLS12 || t == CT_APPLICATION_DATA)) {
		t = c->version == TLS13 ?
		    rp_open(&c->rd, c->rec, reclen, n) :
		    rp_open12(&c->rd, c->rec, reclen, n);
		if (t < 0)
			return cli_fail("a record of the server does not open");
		if (c->version != TLS13)	/* the content to rec + 5 */
			memmove(c->rec + 5, c->rec + rp_head12(&c->rd), *n);
	}
	if (*n > c->rmax)
		c->rmax = *n;
	*type = t;
	return 0;
}

int
cli_next(struct cli *c, int *type, const unsigned char **p, size_t *n)
{
	size_t k, ml;
	int t;

	for (;;) {
		if (c->hslen - c->hspos >= 4) {
			ml = 4 + tw_get24(c->hs + c->hspos + 1);
			if (c->hslen - c->hspos >= ml) {
				*type = CT_HANDSHAKE;
				*p = c->hs + c->hspos;
				*n = ml;
				c->hspos += ml;
				return 0;
			}
		}
		memmove(c->hs, c->hs + c->hspos, c->hslen - c->hspos);
		c->hslen -= c->hspos;
		c->hspos = 0;
		if (record(c, &t, &k) < 0)
			return -1;
		if (t == CT_HANDSHAKE) {
			if (k > sizeof(c->hs) - c->hslen)
				return cli_fail("handshake message too long");
			memcpy(c->hs + c->hslen, c->rec + 5, k);
			c->hslen += k;
			continue;
		}
		if (c->hslen > 0)
			return cli_fail("a record inside a handshake message");
		if (t == CT_ALERT && k == 2) {
			c->alert_level = c->rec[5];
			c->alert = c->rec[6];
		}
		/* TLS 1.3's middlebox CCS: counted, dropped. */
		if (t == CT_CHANGE_CIPHER_SPEC && c->version == TLS13) {
			c->ccs_seen++;
			continue;
		}
		*type = t;
		*p = c->rec + 5;
		*n = k;
		return 0;
	}
}

/* The next thing must be a handshake message of type ht. */
int
cli_next_hs(struct cli *c, unsigned ht, const unsigned char **m, size_t *n)
{
	int t;

	if (cli_next(c, &t, m, n) < 0)
		return -1;
	if (t != CT_HANDSHAKE)
		return cli_fail(t == CT_ALERT ?
		    "an alert instead of a message" :
		    "a record instead of a handshake message");
	if ((*m)[0] != ht)
		return cli_fail("not the handshake message expected");
	return 0;
}

int
cli_expect_alert(struct cli *c, unsigned level, unsigned desc)
{
	const unsigned char *p;
	size_t n;
	int t;

	return cli_next(c, &t, &p, &n) == 0 && t == CT_ALERT && n == 2 &&
	    p[0] == level && p[1] == desc;
}

int
cli_expect_app(struct cli *c, const void *want, size_t len)
{
	const unsigned char *p;
	size_t n;
	int t;

	return cli_next(c, &t, &p, &n) == 0 && t == CT_APPLICATION_DATA &&
	    n == len && memcmp(p, want, n) == 0;
}

int
app_both_ways(struct cli *c)
{
	static const char ping[] = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	static const char pong[] = "HTTP/1.1 204 No Content\r\n\r\n";
	unsigned char b[64];

	if (cli_send(c, CT_APPLICATION_DATA, ping, sizeof(ping) - 1) < 0)
		return 0;
	if (srv_read(c->s, b, sizeof(b)) != sizeof(ping) - 1 ||
	    memcmp(b, ping, sizeof(ping) - 1) != 0)
		return 0;
	if (srv_write(c->s, pong, sizeof(pong) - 1) < 0)
		return 0;
	return cli_expect_app(c, pong, sizeof(pong) - 1);
}

/* The ClientHello. */

#ifndef TLSGATE_NO_MLKEM
/*
 * The hybrids as draft-ietf-tls-ecdhe-mlkem lays them out, written
 * apart from src/hybrid.c's table: the ECDH group, its share and secret
 * lengths, ML-KEM's k, and whether ECDH comes first.
 */
static const struct {
	unsigned	group, ecdh;
	size_t		pt, xs;
	unsigned	k;
	int		first;
} hyb[] = {
	{ 0x11ec, GROUP_X25519, 32, 32, 3, 0 },
	{ 0x11eb, GROUP_SECP256R1, 65, 32, 3, 1 },
	{ 0x11ed, GROUP_SECP384R1, 97, 48, 4, 1 },
};

static int
hyb_find(unsigned group)
{
	for (int i = 0; i < (int)(sizeof(hyb) / sizeof(hyb[0])); i++)
		if (hyb[i].group == group)
			return i;
	return -1;
}
#endif

size_t
cli_share(struct cli *c, size_t i, unsigned char *pub, size_t cap)
{
#ifndef TLSGATE_NO_MLKEM
	int h = hyb_find(c->shares[i]);

	if (h >= 0) {
		unsigned char dz[64];
		size_t ek = REF_EK_LEN(hyb[h].k), pt = hyb[h].pt;

		if (cap < pt + ek)
			return 0;
		(*crng.vtable->generate)(&crng.vtable, dz, sizeof(dz));
		ref_keygen(hyb[h].k, dz, dz + 32, pub + (hyb[h].first ? pt : 0),
		    c->dk[i]);
		return kx_gen(&c->kx[i], (int)hyb[h].ecdh, &crng.vtable,
		    pub + (hyb[h].first ? 0 : ek), pt) == pt ? pt + ek : 0;
	}
#endif
	return kx_gen(&c->kx[i], (int)c->shares[i], &crng.vtable, pub, cap);
}

size_t
cli_shared(struct cli *c, size_t i, const unsigned char *spub, size_t n,
    unsigned char *out)
{
#ifndef TLSGATE_NO_MLKEM
	int h = hyb_find(c->shares[i]);

	if (h >= 0) {
		size_t ct = REF_CT_LEN(hyb[h].k), pt = hyb[h].pt;
		size_t xs = hyb[h].xs;
		int first = hyb[h].first;

		if (n != pt + ct || kx_shared(&c->kx[i], spub + (first ? 0 :
		    ct), pt, out + (first ? 0 : 32)) != xs)
			return 0;
		ref_decaps(hyb[h].k, c->dk[i], spub + (first ? pt : 0),
		    out + (first ? xs : 0));
		return xs + 32;
	}
#endif
	return kx_shared(&c->kx[i], spub, n, out);
}

/* The hello into m: its length, 0 if it does not fit. */
size_t
cli_hello_msg(struct cli *c, unsigned char *m, size_t cap)
{
	unsigned char pub[CLI_SHARE_MAX], key[HASH_MAX], h[HASH_MAX];
	const br_hash_class *dig;
	struct ks ks;
	struct tw w;
	size_t i, n, bpos = 0, hl;

	tw_init(&w, m, cap);
	tw_msg(&w, HT_CLIENT_HELLO);
	tw_u16(&w, TLS12);
	tw_put(&w, c->cr, 32);
	tw_open(&w, 1);
	if (!c->v13 && c->resume.on && c->resume.ticket_len > 0) {
		if (!c->no_sid)		/* RFC 5077 3.4: one of its own */
			tw_put(&w, c->cr, 32);
	} else if (!c->v13 && c->resume.on)
		tw_put(&w, c->resume.id, 32);
	else if (c->v13)		/* middlebox compatibility (D.4) */
		tw_put(&w, c->cr, 32);
	tw_close(&w);
	tw_open(&w, 2);
	for (i = 0; i < c->nsuites; i++)
		tw_u16(&w, c->suites[i]);
	tw_close(&w);
	tw_u8(&w, 1);
	tw_u8(&w, 0);
	tw_open(&w, 2);
	if (c->ngroups > 0) {		/* none: a 1.2 client's choice */
		tw_u16(&w, EXT_SUPPORTED_GROUPS);
		tw_open(&w, 2);
		tw_open(&w, 2);
		for (i = 0; i < c->ngroups; i++)
			tw_u16(&w, c->groups[i]);
		tw_close(&w);
		tw_close(&w);
	}
	tw_u16(&w, EXT_EC_POINT_FORMATS);
	tw_u16(&w, 2);
	tw_u8(&w, 1);
	tw_u8(&w, 0);
	tw_u16(&w, EXT_SIGNATURE_ALGORITHMS);
	tw_open(&w, 2);
	tw_open(&w, 2);
	for (i = 0; i < c->nsigalgs; i++)
		tw_u16(&w, c->sigalgs[i]);
	tw_close(&w);
	tw_close(&w);
	if (c->ems && !c->odd12) {
		tw_u16(&w, EXT_EXTENDED_MASTER_SECRET);
		tw_u16(&w, 0);
	}
	if (c->odd12) {
		tw_u16(&w, EXT_EXTENDED_MASTER_SECRET);
		tw_u16(&w, 2);
		tw_u16(&w, 0x5a5a);
		tw_u16(&w, 22);			/* encrypt_then_mac: empty */
		tw_u16(&w, 1);
		tw_u8(&w, 0xff);
	}
	tw_u16(&w, EXT_RENEGOTIATION_INFO);
	tw_u16(&w, 1);
	tw_u8(&w, 0);
	if (c->tickets) {
		tw_u16(&w, EXT_SESSION_TICKET);
		tw_open(&w, 2);
		if (c->resume.on)
			tw_put(&w, c->resume.ticket, c->resume.ticket_len);
		tw_close(&w);
	}
	if (c->mfl != 0) {
		tw_u16(&w, EXT_MAX_FRAGMENT_LENGTH);
		tw_u16(&w, 1);
		tw_u8(&w, c->mfl);
	}
	if (c->v13) {
		tw_u16(&w, EXT_SUPPORTED_VERSIONS);
		tw_open(&w, 2);
		tw_open(&w, 1);
		tw_u16(&w, TLS13);
		tw_u16(&w, TLS12);
		tw_close(&w);
		tw_close(&w);
		tw_u16(&w, EXT_KEY_SHARE);
		tw_open(&w, 2);
		tw_open(&w, 2);
		for (i = 0; i < c->nshares; i++) {
			n = cli_share(c, i, pub, sizeof(pub));
			tw_u16(&w, c->shares[i]);
			tw_open(&w, 2);
			tw_put(&w, pub, n);
			tw_close(&w);
		}
		tw_close(&w);
		tw_close(&w);
	}
	if (c->v13 && c->early_data) {
		tw_u16(&w, EXT_EARLY_DATA);
		tw_u16(&w, 0);
	}
	if (c->v13 && c->resume.on) {
		tw_u16(&w, EXT_PSK_KEY_EXCHANGE_MODES);
		tw_u16(&w, 2);
		tw_u8(&w, 1);
		tw_u8(&w, 1);			/* psk_dhe_ke */
		dig = ks_suite_hash((int)c->resume.suite);
		hl = dig->desc >> BR_HASHDESC_OUT_OFF & BR_HASHDESC_OUT_MASK;
		tw_u16(&w, EXT_PRE_SHARED_KEY);
		tw_open(&w, 2);
		tw_open(&w, 2);
		tw_open(&w, 2);
		if (c->resume.ticket_len > 0)
			tw_put(&w, c->resume.ticket, c->resume.ticket_len);
		else
			tw_put(&w, c->resume.id, 32);
		tw_close(&w);
		tw_u16(&w, 0);			/* obfuscated_ticket_age */
		tw_u16(&w, 0);
		tw_close(&w);
		bpos = w.n;
		tw_open(&w, 2);
		tw_open(&w, 1);
		memset(key, 0, sizeof(key));
		tw_put(&w, key, hl);
		tw_close(&w);
		tw_close(&w);
		tw_close(&w);
	}
	tw_close(&w);
	tw_close(&w);
	if ((n = tw_len(&w)) == 0)
		return 0;
	if (bpos > 0) {	/* the binder, over the hello up to the binders */
		dig = ks_suite_hash((int)c->resume.suite);
		ks_early(&ks, dig, c->resume.psk, hl);
		ks_derive(&ks, "res binder", NULL, key);
		c->dig = dig;
		cli_th(c, m, bpos, h);
		ks_finished(dig, key, h, m + bpos + 3);
		if (c->fault == FAULT_BINDER)
			m[bpos + 3] ^= 1;
	}
	return n;
}

int
cli_hello(struct cli *c)
{
	unsigned char m[4096];
	size_t n = cli_hello_msg(c, m, sizeof(m));

	if (n == 0 || cli_log(c, m, n) < 0)
		return cli_fail("hello does not fit");
	return eng_start(&c->s->e, c->s->ibuf, sizeof(c->s->ibuf),
	    c->s->obuf, c->s->olen, m, n, &c->s->ops);
}

const br_prng_class **
cli_rng(void)
{
	return &crng.vtable;
}

const br_x509_pkey *
srv_pkey(int cred)
{
	return cred == CRED_RSA ? &K.rsa_pk : &K.ec_pk;
}

const br_x509_certificate *
test_cert(int which)
{
	return &K.cert[which];
}

const br_ec_private_key *
cli_key(void)
{
	return br_skey_decoder_get_ec(&K.cli);
}

const br_x509_trust_anchor *
test_ca(void)
{
	return &ca;
}
