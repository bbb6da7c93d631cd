/*
 * tls.c - see tls.h.
 *
 * Policy: TLS 1.2 (1.0 and 1.1 only if tls_min says so, and then with
 * ECDHE CBC suites, since AEAD needs 1.2); ECDHE only; the service's
 * suites and groups, in its order; no renegotiation.  Each slot's
 * context is configured once at start-up and only reset per connection,
 * so BearSSL's per-context HMAC-DRBG keeps running and no file or
 * syscall is needed per connection to seed it.
 *
 * SNI: the engine asks our policy to choose; it picks the service's
 * credential whose names match the client's server name (the first one
 * otherwise), installs BearSSL's own single-certificate policy for it
 * on this connection's context, and hands the choice on to that.
 * BearSSL reads the context's policy again for the signature, so the
 * rest of the handshake runs on the chosen credential.
 */
#include <stdio.h>
#include <string.h>

#include "certname.h"
#include "cred.h"
#include "defaults.h"
#include "hello.h"
#include "log.h"
#include "tls.h"

/* A session cache: the vtable pointer first, so that ctx finds it. */
struct tls_cache {
	const br_ssl_session_cache_class *vtable;
	br_ssl_session_cache_lru lru;
	unsigned char	*store;
	size_t		 len;
};

/*
 * The session caches, one a service, behind one lock: in static memory,
 * or in memory shared by all workers (tls_init()), so that a
 * client resumes whichever worker it reaches.  They outlive reloads.
 */
struct tls_caches {
	void		*lock[PORT_LOCK_SIZE / sizeof(void *)];
	struct tls_cache c[TLSGATE_MAX_SERVICES];
	unsigned char	store[TLSGATE_MAX_CACHE * TLS_CACHE_ENTRY];
};

struct tls_svc {
	unsigned		cred0, ncred;
	unsigned		anchor0, nanchor;
	uint16_t		suites[10];	/* each SUITE_* at most twice */
	unsigned		nsuites, tls_min, tls_max, cache_on, alpn;
	struct config_list	groups;
	br_ec_impl		ec;	/* ECDHE: only the groups allowed */
	unsigned		suites13[3], groups13[CONFIG_LIST_MAX];
	unsigned		nsuites13, ngroups13;	/* the same, TLS 1.3 */
};

struct tls_area {
	struct cred		creds[TLSGATE_MAX_CREDS];
	unsigned		ncreds;
	struct cred_anchors	anchors;
	struct tls_svc		svc[TLSGATE_MAX_SERVICES];
	unsigned		nsvc;
	unsigned		refs;
};

static struct tls_area areas[2];
static struct tls_caches own_caches, *caches = &own_caches;
static unsigned active, loaded;
static int have_active;
static br_hmac_drbg_context seed_drbg;
static char err_name[32];		/* what tls_error_name() returns */

/* Take the caches' lock; a worker that died holding it cost us them. */
static void
cache_lock(void)
{
	if (port_lock(caches->lock) == 1)
		for (unsigned i = 0; i < TLSGATE_MAX_SERVICES; i++)
			if (caches->c[i].len > 0)
				br_ssl_session_cache_lru_init(&caches->c[i].lru,
				    caches->c[i].store, caches->c[i].len);
}

static int
has_suite(const uint16_t *v, unsigned n, unsigned suite)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == suite)
			return 1;
	return 0;
}

static void
cache_save(const br_ssl_session_cache_class **ctx, br_ssl_server_context *sc,
    const br_ssl_session_parameters *params)
{
	struct tls_cache *c = (struct tls_cache *)(void *)ctx;

	stats.cache_saves++;
	/* BEARSSL-INTERNAL: sc is the context we gave, our tls_conn. */
	((struct tls_conn *)(void *)sc)->cache_saved = 1;
	cache_lock();
	c->lru.vtable->save(&c->lru.vtable, sc, params);
	port_unlock(caches->lock);
}

static int
cache_load(const br_ssl_session_cache_class **ctx, br_ssl_server_context *sc,
    br_ssl_session_parameters *params)
{
	struct tls_cache *c = (struct tls_cache *)(void *)ctx;
	const struct tls_conn *t = (const struct tls_conn *)(void *)sc;
	const struct tls_svc *sv = &areas[t->area].svc[t->svc];
	int hit;

	cache_lock();
	hit = c->lru.vtable->load(&c->lru.vtable, sc, params);
	port_unlock(caches->lock);
	/*
	 * BearSSL only checks that the client still offers the session's
	 * suite: one that a reload took out of the service's suites, or a
	 * version below its tls_min now, gets a full handshake instead.  A
	 * TLS 1.3 ticket's entry is not a session for BearSSL at all.
	 */
	if (hit && (params->version < sv->tls_min ||
	    params->version > BR_TLS12 ||
	    !has_suite(sv->suites, sv->nsuites, params->cipher_suite)))
		hit = 0;
	if (hit)
		stats.cache_hits++;
	else
		stats.cache_misses++;
	((struct tls_conn *)(void *)sc)->cache_hit = (unsigned char)hit;
	return hit;
}

static const br_ssl_session_cache_class cache_class = {
	sizeof(struct tls_cache), cache_save, cache_load
};

/*
 * Each suite name (SUITE_*) with ECDSA and with RSA signatures.  The
 * certificate the policy picks allows one of the two, so the order the
 * client sees is the service's list either way.
 */
static const uint16_t suite_ids[][2] = {
	{ BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	    BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 },
	{ BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	    BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 },
	{ BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	    BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 },
};

/* The service's suites and groups, as BearSSL takes them. */
static void
set_policy(struct tls_svc *sv, const struct service *s, int ec, int rsa)
{
	struct config_list l;

	l = s->suites;
	sv->nsuites = 0;
	for (unsigned i = 0; i < l.n; i++) {
		if (ec)
			sv->suites[sv->nsuites++] = suite_ids[l.v[i]][0];
		if (rsa)
			sv->suites[sv->nsuites++] = suite_ids[l.v[i]][1];
	}
	sv->groups = s->groups;
	sv->ec = *br_ec_get_default();
	sv->ec.supported_curves = 0;
	for (unsigned i = 0; i < s->groups.n; i++)
		sv->ec.supported_curves |= (uint32_t)1 << s->groups.v[i];
	/* TLS 1.3: the AEAD suites by their 1.3 codes; the groups as given. */
	sv->nsuites13 = 0;
	for (unsigned i = 0; i < l.n; i++)
		if (l.v[i] <= SUITE_CHACHA20)
			sv->suites13[sv->nsuites13++] = T13_AES_128_GCM_SHA256 +
			    l.v[i];
	sv->ngroups13 = s->groups.n;
	for (unsigned i = 0; i < s->groups.n; i++)
		sv->groups13[i] = s->groups.v[i];
}

static void
wipe_area(struct tls_area *a)
{
	memset(a->creds, 0, sizeof(a->creds));
	a->ncreds = a->anchors.n = a->nsvc = 0;
}

int
tls_load(const struct config *c, char *err, size_t cap)
{
	unsigned idx = have_active ? active ^ 1 : 0;
	struct tls_area *a = &areas[idx];

	wipe_area(a);
	for (unsigned i = 0; i < c->nsvc; i++) {
		const struct service *s = &c->svc[i];
		struct tls_svc *sv = &a->svc[i];
		int ec = 0, rsa = 0;

		sv->cred0 = a->ncreds;
		sv->ncred = s->ncerts;
		for (unsigned j = 0; j < s->ncerts; j++) {
			struct cred *cr = &a->creds[a->ncreds++];

			if (cred_load(cr, s->certs[j].cert, s->certs[j].key,
			    err, cap) < 0)
				goto fail;
			ec |= cr->key_type == BR_KEYTYPE_EC;
			rsa |= cr->key_type == BR_KEYTYPE_RSA;
		}
		sv->anchor0 = a->anchors.n;
		if (s->client_ca[0] != '\0' &&
		    cred_load_anchors(&a->anchors, s->client_ca, err, cap) < 0)
			goto fail;
		sv->nanchor = a->anchors.n - sv->anchor0;
		set_policy(sv, s, ec, rsa);
		sv->tls_min = s->tls_min;
		sv->tls_max = s->tls_max;
		sv->alpn = s->mode == MODE_HTTP;
		/* A resumed session skips client auth: no cache with it. */
		sv->cache_on = s->cache > 0 && sv->nanchor == 0;
	}
	a->nsvc = c->nsvc;
	loaded = idx;
	return 0;
fail:
	wipe_area(a);
	return -1;
}

void
tls_commit(void)
{
	active = loaded;
	have_active = 1;
	/* The old keys go as soon as no connection is left on them. */
	if (areas[active ^ 1].refs == 0)
		wipe_area(&areas[active ^ 1]);
}

unsigned
tls_inactive_refs(void)
{
	return areas[active ^ 1].refs;
}

/* The service's credential for a server name: the first one by default. */
static unsigned
pick_cred(const struct tls_area *a, const struct tls_svc *sv, const char *name)
{
	for (unsigned i = sv->cred0; name[0] != '\0' &&
	    i < sv->cred0 + sv->ncred; i++)
		for (unsigned j = 0; j < a->creds[i].nnames; j++)
			if (certname_match(a->creds[i].names[j], name))
				return i;
	return sv->cred0;
}

static int
sni_choose(const br_ssl_server_policy_class **pctx,
    const br_ssl_server_context *cc, br_ssl_server_choices *choices)
{
	struct tls_conn *t = (struct tls_conn *)(void *)((char *)(void *)pctx -
	    offsetof(struct tls_conn, policy));
	const struct tls_area *a = &areas[t->area];
	const struct tls_svc *sv = &a->svc[t->svc];
	const struct cred *c;
	br_ssl_server_context *sc = &t->sc;

	t->cred = pick_cred(a, sv, br_ssl_engine_get_server_name(&cc->eng));
	c = &a->creds[t->cred];
	if (c->key_type == BR_KEYTYPE_EC)
		br_ssl_server_set_single_ec(sc, c->chain, c->nchain, &c->ec,
		    BR_KEYTYPE_SIGN, (unsigned)c->issuer_type,
		    br_ec_get_default(), br_ecdsa_sign_asn1_get_default());
	else
		br_ssl_server_set_single_rsa(sc, c->chain, c->nchain, &c->rsa,
		    BR_KEYTYPE_SIGN, br_rsa_private_get_default(),
		    br_rsa_pkcs1_sign_get_default());
	/*
	 * BEARSSL-INTERNAL: curves, the groups client and service share; the
	 * engine would take X25519, else the lowest ID, so leave it ours.
	 */
	for (unsigned i = 0; i < sv->groups.n; i++)
		if (sc->curves >> sv->groups.v[i] & 1) {
			sc->curves = (uint32_t)1 << sv->groups.v[i];
			break;
		}
	/* BEARSSL-INTERNAL: policy swap; the engine signs with the new one. */
	return (*sc->policy_vtable)->choose(sc->policy_vtable, cc, choices);
}

/* Never reached: sni_choose() hands the context to the chosen policy. */
static uint32_t
sni_keyx(const br_ssl_server_policy_class **pctx, unsigned char *data,
    size_t *len)
{
	(void)pctx;
	(void)data;
	(void)len;
	return 0;
}

static size_t
sni_sign(const br_ssl_server_policy_class **pctx, unsigned algo_id,
    unsigned char *data, size_t hv_len, size_t len)
{
	(void)pctx;
	(void)algo_id;
	(void)data;
	(void)hv_len;
	(void)len;
	return 0;
}

static const br_ssl_server_policy_class sni_policy = {
	sizeof(const br_ssl_server_policy_class *), sni_choose, sni_keyx,
	sni_sign
};

/*
 * What every connection starts from: the settings that do not depend on
 * the service, made once.  A handshake changes fields of the context
 * that BearSSL's reset does not restore (in 0.6 the negotiated maximum
 * fragment length, for one), so each connection gets a fresh copy of
 * this rather than a reset of what the last one left.
 */
static br_ssl_server_context pristine;
static int pristine_ready;

/*
 * A client's CertificateVerify, which the engine checks with its own EC
 * implementation: that one has only the service's ECDHE groups, and the
 * client's key may be on any curve BearSSL has.
 */
static uint32_t
ecdsa_vrfy(const br_ec_impl *impl, const void *hash, size_t hash_len,
    const br_ec_public_key *pk, const void *sig, size_t sig_len)
{
	(void)impl;
	return br_ecdsa_vrfy_asn1_get_default()(br_ec_get_default(), hash,
	    hash_len, pk, sig, sig_len);
}

static void
pristine_init(void *ibuf, size_t ilen, void *obuf, size_t olen)
{
	br_ssl_server_context *sc = &pristine;
	br_ssl_engine_context *eng = &sc->eng;
	unsigned char seed[32];

	br_ssl_server_zero(sc);
	br_ssl_engine_set_ec(eng, br_ec_get_default());
	/*
	 * The engine runs every hash it has over the whole handshake, so it
	 * gets only those TLS 1.2 needs (SHA-256, and SHA-384 for its
	 * suites and P-384), SHA-1 for old clients' signatures, and MD5 only
	 * for a service that allows TLS 1.0/1.1 (tls_conn_reset()).
	 */
	br_ssl_engine_set_hash(eng, br_sha1_ID, &br_sha1_vtable);
	br_ssl_engine_set_hash(eng, br_sha256_ID, &br_sha256_vtable);
	br_ssl_engine_set_hash(eng, br_sha384_ID, &br_sha384_vtable);
	br_ssl_engine_set_prf10(eng, &br_tls10_prf);
	br_ssl_engine_set_prf_sha256(eng, &br_tls12_sha256_prf);
	br_ssl_engine_set_prf_sha384(eng, &br_tls12_sha384_prf);
	br_ssl_engine_set_default_aes_gcm(eng);
	br_ssl_engine_set_default_chapol(eng);
	br_ssl_engine_set_default_aes_cbc(eng);
	/* For client certificates: their CertificateVerify signatures. */
	br_ssl_engine_set_default_rsavrfy(eng);
	br_ssl_engine_set_default_ecdsa(eng);
	br_ssl_engine_set_ecdsa(eng, ecdsa_vrfy);
	br_ssl_engine_set_all_flags(eng, BR_OPT_ENFORCE_SERVER_PREFERENCES |
	    BR_OPT_NO_RENEGOTIATION);
	/* No ALPN names here: tls_peek() sets them, a connection at a time. */
	/*
	 * BearSSL seeds a context from the OS at its first reset, and never
	 * again: do it here, once, before any chroot or syscall filter, so
	 * that every copy counts as seeded.  The buffers are only lent for
	 * that reset; each copy gets its own.
	 */
	br_ssl_engine_set_buffers_bidi(eng, ibuf, ilen, obuf, olen);
	br_hmac_drbg_generate(&seed_drbg, seed, sizeof(seed));
	br_ssl_engine_inject_entropy(eng, seed, sizeof(seed));
	memset(seed, 0, sizeof(seed));
	(void)br_ssl_server_reset(sc);
	pristine_ready = 1;
}

void
tls_conn_init(struct tls_conn *t, void *ibuf, size_t ilen, void *obuf,
    size_t olen)
{
	unsigned char seed[32];

	if (!pristine_ready)
		pristine_init(ibuf, ilen, obuf, olen);
	t->ibuf = ibuf;
	t->obuf = obuf;
	t->ilen = ilen;
	t->olen = olen;
	t->sc = pristine;
	/* A seed of its own for each context's DRBG, from the OS-seeded one. */
	br_hmac_drbg_generate(&seed_drbg, seed, sizeof(seed));
	br_ssl_engine_inject_entropy(&t->sc.eng, seed, sizeof(seed));
	memset(seed, 0, sizeof(seed));
	t->policy = &sni_policy;
	t->area = TLSGATE_MAX_SERVICES;	/* none */
}

/*
 * BearSSL's validator checks each certificate's signature with the next
 * one's key, whether or not the chain ends at a CA of ours, so one long
 * chain would buy a client thousands of signature checks.  These calls
 * pass at most TLS_CHAIN_MAX certificates on; a longer chain fails.
 */
static struct tls_conn *
bounded_conn(const br_x509_class **ctx)
{
	return (struct tls_conn *)(void *)((char *)(void *)ctx -
	    offsetof(struct tls_conn, bounded));
}

static void
xb_start_chain(const br_x509_class **ctx, const char *server_name)
{
	struct tls_conn *t = bounded_conn(ctx);

	t->ncert = 0;
	t->x509.vtable->start_chain(&t->x509.vtable, server_name);
}

static void
xb_start_cert(const br_x509_class **ctx, uint32_t length)
{
	struct tls_conn *t = bounded_conn(ctx);

	if (++t->ncert <= TLS_CHAIN_MAX)
		t->x509.vtable->start_cert(&t->x509.vtable, length);
}

static void
xb_append(const br_x509_class **ctx, const unsigned char *buf, size_t len)
{
	struct tls_conn *t = bounded_conn(ctx);

	if (t->ncert <= TLS_CHAIN_MAX)
		t->x509.vtable->append(&t->x509.vtable, buf, len);
}

static void
xb_end_cert(const br_x509_class **ctx)
{
	struct tls_conn *t = bounded_conn(ctx);

	if (t->ncert <= TLS_CHAIN_MAX)
		t->x509.vtable->end_cert(&t->x509.vtable);
}

static unsigned
xb_end_chain(const br_x509_class **ctx)
{
	struct tls_conn *t = bounded_conn(ctx);
	unsigned err = t->x509.vtable->end_chain(&t->x509.vtable);

	return t->ncert > TLS_CHAIN_MAX ? BR_ERR_X509_LIMIT_EXCEEDED : err;
}

static const br_x509_pkey *
xb_get_pkey(const br_x509_class *const *ctx, unsigned *usages)
{
	const struct tls_conn *t = (const struct tls_conn *)(const void *)
	    ((const char *)(const void *)ctx - offsetof(struct tls_conn,
	    bounded));

	return t->ncert > TLS_CHAIN_MAX ? NULL :
	    t->x509.vtable->get_pkey(&t->x509.vtable, usages);
}

static const br_x509_class bounded_class = {
	sizeof(struct tls_conn), xb_start_chain, xb_start_cert, xb_append,
	xb_end_cert, xb_end_chain, xb_get_pkey,
};

/* Client auth against the service's CAs, keeping subject elements. */
static void
client_auth(struct tls_conn *t, const struct tls_area *a,
    const struct tls_svc *sv)
{
	static const unsigned char oids[TLS_SUBJ_ELTS][4] = {
		{ 3, 0x55, 0x04, 0x03 },	/* CN */
		{ 3, 0x55, 0x04, 0x0a },	/* O */
		{ 3, 0x55, 0x04, 0x0b },	/* OU */
		{ 3, 0x55, 0x04, 0x06 },	/* C */
	};
	br_x509_minimal_context *x = &t->x509;

	br_x509_minimal_init(x, &br_sha256_vtable, &a->anchors.ta[sv->anchor0],
	    sv->nanchor);
	br_x509_minimal_set_rsa(x, br_rsa_pkcs1_vrfy_get_default());
	br_x509_minimal_set_ecdsa(x, br_ec_get_default(),
	    br_ecdsa_vrfy_asn1_get_default());
	br_x509_minimal_set_hash(x, br_sha1_ID, &br_sha1_vtable);
	br_x509_minimal_set_hash(x, br_sha224_ID, &br_sha224_vtable);
	br_x509_minimal_set_hash(x, br_sha256_ID, &br_sha256_vtable);
	br_x509_minimal_set_hash(x, br_sha384_ID, &br_sha384_vtable);
	br_x509_minimal_set_hash(x, br_sha512_ID, &br_sha512_vtable);
	for (unsigned i = 0; i < TLS_SUBJ_ELTS; i++) {
		t->subj[i].oid = oids[i];
		t->subj[i].buf = t->subj_buf[i];
		t->subj[i].len = TLS_SUBJ_LEN;
	}
	br_x509_minimal_set_name_elements(x, t->subj, TLS_SUBJ_ELTS);
	t->bounded = &bounded_class;
	br_ssl_engine_set_x509(&t->sc.eng, &t->bounded);
	br_ssl_server_set_trust_anchor_names_alt(&t->sc,
	    &a->anchors.ta[sv->anchor0], sv->nanchor);
}

int
tls_conn_reset(struct tls_conn *t, unsigned svc)
{
	struct tls_area *a = &areas[active];
	struct tls_svc *sv = &a->svc[svc];
	br_ssl_server_context *sc = &t->sc;
	br_ssl_engine_context *eng = &sc->eng;
	br_hmac_drbg_context rng = eng->rng;	/* BEARSSL-INTERNAL: rng */

	/* Fresh from the template; only the DRBG carries on. */
	*sc = pristine;
	eng->rng = rng;
	memset(&rng, 0, sizeof(rng));
	br_ssl_engine_set_buffers_bidi(eng, t->ibuf, t->ilen, t->obuf, t->olen);
	tls_conn_release(t);
	t->area = active;
	t->svc = svc;
	a->refs++;
	t->cache_hit = t->cache_saved = 0;
	t->client_auth = sv->nanchor > 0;
	t->peek = 1;
	t->t13on = t->v13 = 0;
	t->sni[0] = '\0';
	br_ssl_engine_set_versions(eng, BR_TLS12, BR_TLS12);
	br_ssl_engine_set_suites(eng, sv->suites, sv->nsuites);
	br_ssl_engine_set_ec(eng, &sv->ec);
	br_ssl_server_set_policy(sc, &t->policy);
	br_ssl_server_set_cache(sc, sv->cache_on ? &caches->c[svc].vtable :
	    NULL);
	if (t->client_auth)
		client_auth(t, a, sv);
	return br_ssl_server_reset(sc) ? 0 : -1;
}

static unsigned
tls_peek(struct tls_conn *t, const unsigned char *buf, size_t len,
    const char **why)
{
	/* Not const: BearSSL 0.6 takes a (const char **). */
	static const char *http11[] = { "http/1.1" };

	/*
	 * With protocol names, BearSSL 0.6 reads out of bounds when a client
	 * resumes a session offering none of them: its resumed path skips the
	 * ALPN check and copies names[0xfffe] into the ServerHello.  So the
	 * names are set only for a hello in which BearSSL will find ours; any
	 * other client gets no ALPN answer and speaks HTTP/1.1 (RFC 7301 3.2).
	 */
	struct hello h;

	t->peek = 0;
	hello_look(buf, len, http11[0], &h);
	if (h.offers && areas[t->area].svc[t->svc].alpn)
		br_ssl_engine_set_protocol_names(&t->sc.eng, http11, 1);
	*why = h.why;
	return h.alert;
}

/*
 * A TLS 1.3 hello's choices, as BearSSL's for 1.2: the credential by
 * server name (sni_choose()), the first suite of ours the client offers,
 * the signature scheme of its key, ALPN http/1.1 in http mode.
 */
static unsigned
t13_choose(void *ctx, const unsigned char *m, const struct t13_hello *h,
    struct t13_choice *out)
{
	static const unsigned ec[][3] = {
		{ BR_EC_secp256r1, T13_SIG_ECDSA_SECP256R1_SHA256,
		    T13_ECDSA_SECP256R1_SHA256 },
		{ BR_EC_secp384r1, T13_SIG_ECDSA_SECP384R1_SHA384,
		    T13_ECDSA_SECP384R1_SHA384 },
		{ BR_EC_secp521r1, T13_SIG_ECDSA_SECP521R1_SHA512,
		    T13_ECDSA_SECP521R1_SHA512 },
	};
	static const unsigned pss[][2] = {
		{ T13_SIG_RSA_PSS_RSAE_SHA256, T13_RSA_PSS_RSAE_SHA256 },
		{ T13_SIG_RSA_PSS_RSAE_SHA384, T13_RSA_PSS_RSAE_SHA384 },
		{ T13_SIG_RSA_PSS_RSAE_SHA512, T13_RSA_PSS_RSAE_SHA512 },
	};
	struct tls_conn *t = ctx;
	const struct tls_area *a = &areas[t->area];
	const struct tls_svc *sv = &a->svc[t->svc];
	const struct cred *c;

	memset(out, 0, sizeof(*out));
	if (h->host_len < sizeof(t->sni)) {
		memcpy(t->sni, m + h->host, h->host_len);
		t->sni[h->host_len] = '\0';
	}
	t->cred = pick_cred(a, sv, t->sni);
	c = &a->creds[t->cred];
	/* The service's order; T13_SUITE_* is 1 << (code - 0x1301). */
	for (unsigned i = 0; i < sv->nsuites13 && out->suite == 0; i++)
		if (h->suites & 1u << (sv->suites13[i] - T13_AES_128_GCM_SHA256))
			out->suite = sv->suites13[i];
	for (size_t i = 0; i < 3 && out->scheme == 0; i++)
		if (c->key_type == BR_KEYTYPE_EC ? c->ec.curve == (int)ec[i][0] &&
		    (h->sigalgs & ec[i][1]) : (h->sigalgs & pss[i][0]) != 0)
			out->scheme = c->key_type == BR_KEYTYPE_EC ? ec[i][2] :
			    pss[i][1];
	out->chain = c->chain;
	out->nchain = c->nchain;
	out->ec = c->key_type == BR_KEYTYPE_EC ? &c->ec : NULL;
	out->rsa = c->key_type == BR_KEYTYPE_EC ? NULL : &c->rsa;
	out->alpn = sv->alpn && h->alpn_http11;
	out->groups = sv->groups13;
	out->ngroups = sv->ngroups13;
	if (t->client_auth) {
		out->x509 = &t->bounded;
		out->cas = &a->anchors.ta[sv->anchor0];
		out->ncas = sv->nanchor;
	}
	return out->suite != 0 && out->scheme != 0 ? 0 : 40;
}

/*
 * RFC 8446 4.1.3: a server that could have answered TLS 1.3 but answers
 * 1.2 or below ends its ServerHello random with "DOWNGRD" and 01 (00
 * below 1.2), which a client that offered 1.3 checks, so that an
 * attacker who took 1.3 out of its hello is caught.  BearSSL 0.6 draws
 * the 28 random bytes of its ServerHello with br_hmac_drbg_generate()
 * from the engine's own DRBG, right before writing and hashing them, with
 * no callback in between: the linker sends that call here (WRAP_DRBG in
 * the Makefile).  Any other draw is passed through untouched.
 */
void	__real_br_hmac_drbg_generate(br_hmac_drbg_context *, void *, size_t);
void	__wrap_br_hmac_drbg_generate(br_hmac_drbg_context *, void *, size_t);

void
__wrap_br_hmac_drbg_generate(br_hmac_drbg_context *ctx, void *out, size_t len)
{
	/* BEARSSL-INTERNAL: rng and server_random in the engine context. */
	br_ssl_engine_context *eng = (br_ssl_engine_context *)(void *)
	    ((char *)ctx - offsetof(br_ssl_engine_context, rng));
	unsigned char *r = out;

	__real_br_hmac_drbg_generate(ctx, out, len);
	if (len != 28 || r != eng->server_random + 4)
		return;
	/* Every server engine of tlsgate is a tls_conn's, at its start. */
	if (!((struct tls_conn *)(void *)eng)->v13)
		return;
	memcpy(r + 20, "DOWNGRD", 7);
	r[27] = eng->session.version == BR_TLS12;
}

/*
 * TLS 1.3 tickets are entries of the service's session cache, as the
 * 1.2 sessions are (t13.h): shared by the workers, kept over reloads.
 */
static int
ticket_load(void *ctx, br_ssl_session_parameters *p)
{
	struct tls_conn *t = ctx;
	struct tls_cache *c = &caches->c[t->svc];
	int hit;

	cache_lock();
	hit = c->lru.vtable->load(&c->lru.vtable, &t->sc, p);
	if (hit)
		br_ssl_session_cache_lru_forget(&c->lru, p->session_id);
	port_unlock(caches->lock);
	if (hit)
		stats.cache_hits++;
	else
		stats.cache_misses++;
	return hit;
}

static void
ticket_save(void *ctx, const br_ssl_session_parameters *p)
{
	struct tls_conn *t = ctx;
	struct tls_cache *c = &caches->c[t->svc];

	stats.cache_saves++;
	stats.tickets++;
	cache_lock();
	c->lru.vtable->save(&c->lru.vtable, &t->sc, p);
	port_unlock(caches->lock);
}

int
tls_peeking(const struct tls_conn *t)
{
	return t->peek;
}

int
tls_hello(struct tls_conn *t, unsigned char *buf, size_t len, size_t *end,
    unsigned *alert, const char **why)
{
	const struct tls_svc *sv = &areas[t->area].svc[t->svc];
	int v13 = sv->tls_max >= 0x0304 && sv->nsuites13 > 0;
	struct t13_peek pk;
	int r = t13_classify(buf, len, t->ilen, &pk);

	*alert = 0;
	*why = NULL;
	if (r == T13_NEED_MORE)
		return TLS_HELLO_MORE;
	if (v13 && r == T13_ALERT) {
		t->peek = 0;
		*alert = pk.alert;
		*why = "bad-hello";
		return TLS_HELLO_REFUSE;
	}
	if (v13 && r == T13_T13) {
		t->peek = 0;
		t->t13on = 1;
		*end = pk.end;
		t->ops.choose = t13_choose;
		t->ops.load = sv->cache_on ? ticket_load : NULL;
		t->ops.save = sv->cache_on ? ticket_save : NULL;
		t->ops.ctx = t;
		t->ops.rng = &seed_drbg.vtable;
		(void)t13_start(&t->t13, t->ibuf, t->ilen, t->obuf, t->olen,
		    buf + 5, t13_defrag(buf, pk.end), &t->ops);
		return TLS_HELLO_T13;
	}
	/* tls_min = 1.3: BearSSL's versions are all too old. */
	if (sv->tls_min >= 0x0304) {
		t->peek = 0;
		*alert = 70;
		*why = "protocol-version";
		return TLS_HELLO_REFUSE;
	}
	/* RFC 8446 4.1.3, RFC 7507: a client that could have had 1.3. */
	if (v13 && pk.scsv && pk.max_version != 0 && pk.max_version < 0x0304) {
		t->peek = 0;
		*alert = 86;
		*why = "inappropriate-fallback";
		return TLS_HELLO_REFUSE;
	}
	t->v13 = v13;
	*alert = tls_peek(t, buf, len, why);
	return *alert != 0 ? TLS_HELLO_REFUSE : TLS_HELLO_BR;
}

unsigned
tls_state(const struct tls_conn *t)
{
	return t->t13on ? t13_state(&t->t13) :
	    br_ssl_engine_current_state(&t->sc.eng);
}

unsigned char *
tls_recvrec_buf(struct tls_conn *t, size_t *len)
{
	return t->t13on ? t13_recvrec_buf(&t->t13, len) :
	    br_ssl_engine_recvrec_buf(&t->sc.eng, len);
}

void
tls_recvrec_ack(struct tls_conn *t, size_t len)
{
	if (t->t13on)
		t13_recvrec_ack(&t->t13, len);
	else
		br_ssl_engine_recvrec_ack(&t->sc.eng, len);
}

unsigned char *
tls_sendrec_buf(struct tls_conn *t, size_t *len)
{
	return t->t13on ? t13_sendrec_buf(&t->t13, len) :
	    br_ssl_engine_sendrec_buf(&t->sc.eng, len);
}

void
tls_sendrec_ack(struct tls_conn *t, size_t len)
{
	if (t->t13on)
		t13_sendrec_ack(&t->t13, len);
	else
		br_ssl_engine_sendrec_ack(&t->sc.eng, len);
}

unsigned char *
tls_recvapp_buf(struct tls_conn *t, size_t *len)
{
	return t->t13on ? t13_recvapp_buf(&t->t13, len) :
	    br_ssl_engine_recvapp_buf(&t->sc.eng, len);
}

void
tls_recvapp_ack(struct tls_conn *t, size_t len)
{
	if (t->t13on)
		t13_recvapp_ack(&t->t13, len);
	else
		br_ssl_engine_recvapp_ack(&t->sc.eng, len);
}

unsigned char *
tls_sendapp_buf(struct tls_conn *t, size_t *len)
{
	return t->t13on ? t13_sendapp_buf(&t->t13, len) :
	    br_ssl_engine_sendapp_buf(&t->sc.eng, len);
}

void
tls_sendapp_ack(struct tls_conn *t, size_t len)
{
	if (t->t13on)
		t13_sendapp_ack(&t->t13, len);
	else
		br_ssl_engine_sendapp_ack(&t->sc.eng, len);
}

void
tls_flush(struct tls_conn *t)
{
	if (t->t13on)
		t13_flush(&t->t13);
	else
		br_ssl_engine_flush(&t->sc.eng, 0);
}

void
tls_close(struct tls_conn *t)
{
	if (t->t13on)
		t13_close(&t->t13);
	else
		br_ssl_engine_close(&t->sc.eng);
}

int
tls_last_error(const struct tls_conn *t)
{
	return t->t13on ? t13_last_error(&t->t13) :
	    br_ssl_engine_last_error(&t->sc.eng);
}

int
tls_peer_closed(const struct tls_conn *t)
{
	return t->t13on && t13_peer_closed(&t->t13);
}

unsigned
tls_version(const struct tls_conn *t)
{
	return t->t13on ? 0x0304 : br_ssl_engine_get_version(&t->sc.eng);
}

unsigned
tls_suite(const struct tls_conn *t)
{
	/* BEARSSL-INTERNAL: session.cipher_suite read in place; the API
	 * would copy the master secret out with it. */
	return t->t13on ? t->t13.ch.suite : t->sc.eng.session.cipher_suite;
}

const char *
tls_server_name(const struct tls_conn *t)
{
	return t->t13on ? t->sni : br_ssl_engine_get_server_name(&t->sc.eng);
}

void
tls_conn_release(struct tls_conn *t)
{
	struct tls_area *a;

	if (t->t13on)
		t13_wipe_conn(&t->t13);
	if (t->area >= 2)
		return;
	a = &areas[t->area];
	t->area = TLSGATE_MAX_SERVICES;
	if (--a->refs == 0 && a != &areas[active])
		wipe_area(a);
}

int
tls_resumed(const struct tls_conn *t)
{
	return t->t13on ? t->t13.resumed : t->cache_hit && !t->cache_saved;
}

size_t
tls_client_subject(const struct tls_conn *t, char *buf, size_t cap)
{
	static const char *const tags[TLS_SUBJ_ELTS] = { "CN", "O", "OU", "C" };
	size_t n = 0;

	if (!t->client_auth || cap == 0)
		return 0;
	for (unsigned i = 0; i < TLS_SUBJ_ELTS; i++) {
		const char *v = t->subj_buf[i];
		size_t need = strlen(tags[i]) + 2;

		if (t->subj[i].status <= 0)
			continue;
		if (n + need + strlen(v) >= cap)
			break;
		n += (size_t)snprintf(buf + n, cap - n, "%s%s=", n ? "," : "",
		    tags[i]);
		/* Header-safe: printable ASCII; ',' and '\\' escaped. */
		for (; *v != '\0' && n + 2 < cap; v++) {
			unsigned char c = (unsigned char)*v;

			if (c == ',' || c == '\\')
				buf[n++] = '\\';
			buf[n++] = (char)(c >= 0x20 && c < 0x7f ? c : '?');
		}
	}
	buf[n] = '\0';
	return n;
}

const char *
tls_suite_name(unsigned s)
{
	static const struct {
		uint16_t	 id;
		const char	*name;
	} names[] = {
		{ BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
		    "ECDHE-ECDSA-AES128-GCM-SHA256" },
		{ BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
		    "ECDHE-ECDSA-AES256-GCM-SHA384" },
		{ BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
		    "ECDHE-ECDSA-CHACHA20-POLY1305" },
		{ BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		    "ECDHE-RSA-AES128-GCM-SHA256" },
		{ BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
		    "ECDHE-RSA-AES256-GCM-SHA384" },
		{ BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		    "ECDHE-RSA-CHACHA20-POLY1305" },
		{ T13_AES_128_GCM_SHA256, "TLS_AES_128_GCM_SHA256" },
		{ T13_AES_256_GCM_SHA384, "TLS_AES_256_GCM_SHA384" },
		{ T13_CHACHA20_POLY1305_SHA256, "TLS_CHACHA20_POLY1305_SHA256" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].id == s)
			return names[i].name;
	return "none";
}

const char *
tls_version_name(unsigned v)
{
	static const char *const names[] = { "TLS1.0", "TLS1.1", "TLS1.2",
	    "TLS1.3" };

	return v >= BR_TLS10 && v <= 0x0304 ? names[v - BR_TLS10] : "none";
}

/*
 * Each engine error with its name for the log and the fatal alert that
 * reports it (RFC 5246 7.2.2).  BearSSL 0.6 sends an alert itself only
 * for the errors it reports as BR_ERR_SEND_FATAL_ALERT + alert.
 */
static const struct {
	const char	*name;
	int		 code;
	unsigned char	 alert;
} errors[] = {
	{ "ok", BR_ERR_OK, 0 },
	{ "bad-param", BR_ERR_BAD_PARAM, 50 },	/* length fields disagree */
	{ "bad-state", BR_ERR_BAD_STATE, 80 },
	{ "unsupported-version", BR_ERR_UNSUPPORTED_VERSION, 70 },
	{ "bad-version", BR_ERR_BAD_VERSION, 70 },
	{ "bad-length", BR_ERR_BAD_LENGTH, 22 },
	{ "record-too-large", BR_ERR_TOO_LARGE, 22 },
	{ "bad-mac", BR_ERR_BAD_MAC, 20 },
	{ "no-random", BR_ERR_NO_RANDOM, 80 },
	{ "unknown-record-type", BR_ERR_UNKNOWN_TYPE, 10 },
	{ "unexpected-message", BR_ERR_UNEXPECTED, 10 },
	{ "bad-ccs", BR_ERR_BAD_CCS, 10 },
	{ "bad-alert", BR_ERR_BAD_ALERT, 50 },
	{ "bad-handshake", BR_ERR_BAD_HANDSHAKE, 50 },
	{ "oversized-session-id", BR_ERR_OVERSIZED_ID, 50 },
	{ "no-shared-cipher", BR_ERR_BAD_CIPHER_SUITE, 40 },
	{ "bad-compression", BR_ERR_BAD_COMPRESSION, 40 },
	{ "bad-fragment-length", BR_ERR_BAD_FRAGLEN, 47 },
	{ "bad-secure-renegotiation", BR_ERR_BAD_SECRENEG, 40 },
	{ "extra-extension", BR_ERR_EXTRA_EXTENSION, 110 },
	{ "bad-sni", BR_ERR_BAD_SNI, 50 },
	{ "bad-hello-done", BR_ERR_BAD_HELLO_DONE, 10 },
	{ "limit-exceeded", BR_ERR_LIMIT_EXCEEDED, 80 },
	{ "bad-finished", BR_ERR_BAD_FINISHED, 51 },
	{ "resume-mismatch", BR_ERR_RESUME_MISMATCH, 47 },
	{ "invalid-algorithm", BR_ERR_INVALID_ALGORITHM, 47 },
	{ "bad-signature", BR_ERR_BAD_SIGNATURE, 51 },
	{ "wrong-key-usage", BR_ERR_WRONG_KEY_USAGE, 43 },
	{ "no-client-auth", BR_ERR_NO_CLIENT_AUTH, 40 },
	{ "io", BR_ERR_IO, 0 },
	{ "client-cert-expired", BR_ERR_X509_EXPIRED, 45 },
	{ "client-cert-untrusted", BR_ERR_X509_NOT_TRUSTED, 48 },
	{ "client-chain-too-long", BR_ERR_X509_LIMIT_EXCEEDED, 42 },
};

unsigned
tls_fail_alert(const struct tls_conn *t, int err)
{
	if (t->t13on)
		return t13_alert(&t->t13);
	if (err >= BR_ERR_SEND_FATAL_ALERT)
		return (unsigned)(err - BR_ERR_SEND_FATAL_ALERT);
	/*
	 * A record too short for its nonce and tag cannot be authenticated:
	 * bad_record_mac; only one too long is a record_overflow.
	 * BEARSSL-INTERNAL: the record's header stays at the start of ibuf.
	 */
	if (err == BR_ERR_BAD_LENGTH && (t->ibuf[3] << 8 | t->ibuf[4]) <= 16384)
		return 20;
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == err)
			return errors[i].alert;
	/* Other certificate errors; the rest are the peer's alerts or ours. */
	return err >= BR_ERR_X509_OK && err < BR_ERR_RECV_FATAL_ALERT ? 42 : 0;
}

const unsigned char *
tls_fail_record(struct tls_conn *t, int err, size_t *len)
{
	br_ssl_engine_context *eng = &t->sc.eng;
	/* BEARSSL-INTERNAL: out, the write direction's record protection. */
	const br_sslrec_out_class **out = &eng->out.vtable;
	unsigned char *buf = t->obuf;
	unsigned version = br_ssl_engine_get_version(eng);
	size_t start = 5, end = t->olen;
	unsigned alert = tls_fail_alert(t, err);

	*len = 0;
	if (t->t13on || alert == 0 || err >= BR_ERR_SEND_FATAL_ALERT ||
	    br_ssl_engine_current_state(eng) != BR_SSL_CLOSED)
		return NULL;
	(*out)->max_plaintext(out, &start, &end);
	if (end < start + 2)
		return NULL;
	buf[start] = 2;		/* fatal */
	buf[start + 1] = (unsigned char)alert;
	*len = 2;
	/* Before a version is agreed, the one every TLS peer reads. */
	return (*out)->encrypt(out, 21 /* alert */, version != 0 ? version :
	    BR_TLS10, buf + start, len);
}

const char *
tls_error_name(int err)
{
	if (err >= BR_ERR_RECV_FATAL_ALERT && err < BR_ERR_SEND_FATAL_ALERT)
		snprintf(err_name, sizeof(err_name), "peer-alert-%d",
		    err - BR_ERR_RECV_FATAL_ALERT);
	else if (err >= BR_ERR_SEND_FATAL_ALERT)
		snprintf(err_name, sizeof(err_name), "sent-alert-%d",
		    err - BR_ERR_SEND_FATAL_ALERT);
	else {
		for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
			if (errors[i].code == err)
				return errors[i].name;
		snprintf(err_name, sizeof(err_name), "error-%d", err);
	}
	return err_name;
}

int
tls_init(const struct config *c, int shared, const char **why)
{
	size_t store = 0;

	if (shared && (caches = port_shared(sizeof(*caches), why)) == NULL)
		return -1;
	/*
	 * Every service with a cache gets its share of the store, client
	 * auth or not: a reload may drop a service's client_ca and turn its
	 * cache on, but it cannot change the sizes (needs_restart()).
	 */
	for (unsigned i = 0; i < c->nsvc; i++) {
		struct tls_cache *tc = &caches->c[i];

		if (c->svc[i].cache == 0)
			continue;
		tc->vtable = &cache_class;
		tc->store = caches->store + store;
		tc->len = (size_t)c->svc[i].cache * TLS_CACHE_ENTRY;
		br_ssl_session_cache_lru_init(&tc->lru, tc->store, tc->len);
		store += tc->len;
	}
	if (port_lock_init(caches->lock) < 0) {
		*why = "session cache: cannot set up its lock";
		return -1;
	}
	br_hmac_drbg_init(&seed_drbg, &br_sha256_vtable, NULL, 0);
	if (tls_reseed() < 0) {
		*why = "no entropy from the operating system";
		return -1;
	}
	return 0;
}

int
tls_reseed(void)
{
	unsigned char seed[32];

	if (port_entropy(seed, sizeof(seed)) < 0)
		return -1;
	br_hmac_drbg_update(&seed_drbg, seed, sizeof(seed));
	memset(seed, 0, sizeof(seed));
	return 0;
}

size_t
tls_static_bytes(void)
{
	/* The cache store is counted by what the config uses of it. */
	return sizeof(areas) + sizeof(own_caches) - sizeof(own_caches.store) +
	    sizeof(pristine) + sizeof(seed_drbg) + sizeof(err_name) +
	    cred_static_bytes();
}

void
tls_wipe(void)
{
	wipe_area(&areas[0]);
	wipe_area(&areas[1]);
	memset(&seed_drbg, 0, sizeof(seed_drbg));
}

const br_x509_certificate *
tls_leaf(unsigned svc, unsigned j)
{
	const struct tls_area *a = &areas[active];

	return &a->creds[a->svc[svc].cred0 + j].chain[0];
}
