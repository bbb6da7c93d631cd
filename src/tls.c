/* SPDX-License-Identifier: ISC */
/*
 * tls.c - see tls.h.
 *
 * Policy: TLS 1.2 and 1.3 (tls_min, tls_max), ECDHE and AEAD suites only,
 * the service's suites and groups in its order (the client's order does
 * not count), no renegotiation.  The engine (eng.h) asks choose() for
 * each hello: the credential by server name (the first one otherwise),
 * the suite, the signature scheme for the credential's key from the
 * client's signature_algorithms, ALPN http/1.1 in http mode, and the
 * client-certificate validator of a service with client_ca
 * (tlsclient.c's).
 *
 * Sessions: stateless tickets (ticket.h) for services with tickets on,
 * both versions; one cache a service (cache.h), in static memory or in
 * memory the workers share, behind one lock, for TLS 1.2 session IDs
 * (and TLS 1.3 tickets where tickets are off); each good for the
 * service's session_lifetime, and only for the service and server name
 * it was made for (RFC 6066 3).  At a service with client_ca, tickets
 * only: each carries the client's certificate, which a resumption
 * checks again against the CAs and CRLs of the day (tlsclient.h).
 *
 * Ticket keys: from ticket_key_file (read with each load, so a reload
 * takes a new file), or a rotating store drawn in tls_init(), before
 * workers fork: each worker then derives the same key for the same
 * period from the memory it inherited, with no lock and nothing shared
 * (ticket.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "certname.h"
#include "cred.h"
#include "defaults.h"
#include "log.h"
#include "hello.h"
#include "precomp.h"
#include "ticket.h"
#include "tls.h"
#include "tlsclient.h"
#include "tlswire.h"
#include "ct.h"
#include "wipe.h"

/* Shared by the workers (tls_init()): a client resumes at any of them. */
struct tls_caches {
	void		*lock[PORT_LOCK_SIZE / sizeof(void *)];
	struct cache	 c[TLSGATE_MAX_SERVICES];
	struct cache_entry store[TLSGATE_MAX_CACHE];
};

/*
 * A service's settings are read where the config keeps them (cfg: the
 * config tls_load() filled the area from, which a reload overwrites only
 * once no connection is left on the area); here, what the area adds.
 */
struct tls_svc {
	const struct service	*cfg;
	unsigned		cred0;
	unsigned		anchor0, nanchor;
	unsigned		crl0, ncrl;	/* this service's CRLs in the area */
	unsigned		cache_on;
};

struct tls_area {
	struct cred		creds[TLSGATE_MAX_CREDS];
	unsigned		ncreds;
	struct cred_anchors	anchors;
	struct crl_set		crls;
	struct tls_svc		svc[TLSGATE_MAX_SERVICES];
	unsigned		nsvc;
	unsigned		refs;
	/* The keys of ticket_key_file, if there is one. */
	struct ticket_keys	file_keys;
	unsigned		key_file;
	char			key_path[CONFIG_PATH_MAX];
};

static struct tls_area areas[2];
static struct tls_caches own_caches, *caches = &own_caches;
static unsigned active, loaded;
static int have_active;
static br_hmac_drbg_context seed_drbg;
/* The rotating ticket keys: drawn before fork, derived after. */
static struct ticket_keys rot_keys;
static char key_text[4096];		/* a ticket_key_file, while read */

_Static_assert(ENG_TICKET_MAX >= TICKET_MAX, "the engine sends a ticket");
_Static_assert(TICKET_CERT_MAX == sizeof(((struct tls_conn *)0)->leaf_der) +
    sizeof(((struct tls_conn *)0)->chain_der), "a ticket carries the chain");
/* The context: the service's name, 0, the server name in lower case. */
_Static_assert(CONFIG_NAME_MAX + sizeof(((struct tls_conn *)0)->sni) <=
    TICKET_CTX_MAX, "a ticket's context fits");

/* Take the caches' lock; a worker that died holding it cost us them. */
static void
cache_lock(void)
{
	if (port_lock(caches->lock) == 1)
		for (unsigned i = 0; i < TLSGATE_MAX_SERVICES; i++)
			cache_init(&caches->c[i], caches->store,
			    caches->c[i].first, caches->c[i].n);
}

/* The caches' clock: seconds, the same in every worker. */
static uint32_t
cache_now(void)
{
	return (uint32_t)(port_now_ms() / 1000);
}

/* Are version and suite (any version's code) still the service's? */
static int
svc_takes(const struct tls_svc *sv, unsigned version, unsigned suite)
{
	const struct tls_suite *s = tls_suite_find(suite, NULL);

	for (unsigned i = 0; s != NULL && i < sv->cfg->suites.n; i++)
		if (sv->cfg->suites.v[i] == (unsigned)(s - tls_suites))
			return version >= sv->cfg->tls_min &&
			    version <= sv->cfg->tls_max;
	return 0;
}

/*
 * The context a session is bound to, into out: the service's name, 0,
 * the server name host[0..len) (the hello's, or t->sni when host is
 * NULL) in lower case.
 */
static size_t
ticket_ctx(const struct tls_conn *t, const unsigned char *host, size_t len,
    unsigned char *out)
{
	const char *name = areas[t->area].svc[t->svc].cfg->name;
	size_t n = strlen(name);

	if (host == NULL) {
		host = (const unsigned char *)t->sni;
		len = strlen(t->sni);
	}
	if (len >= sizeof(t->sni))
		len = 0;
	memcpy(out, name, n);
	out[n++] = 0;
	for (size_t i = 0; i < len; i++)
		out[n++] = (unsigned char)(host[i] >= 'A' && host[i] <= 'Z' ?
		    host[i] - 'A' + 'a' : host[i]);
	return n;
}

/*
 * The cache's key for a session ID: the ID hashed with the server name,
 * so that a session made for one name is not found under another (the
 * cache is the service's own).  Still the server's random bytes, as
 * far as a client can choose a set.
 */
static void
bind_id(const struct tls_conn *t, const struct eng_session *s,
    unsigned char *out)
{
	unsigned char c[TICKET_CTX_MAX];
	br_sha256_context h;

	br_sha256_init(&h);
	br_sha256_update(&h, s->id, CACHE_ID_LEN);
	br_sha256_update(&h, c, ticket_ctx(t, s->host, s->host_len, c));
	br_sha256_out(&h, out);
}

/*
 * Sessions and tickets (eng_ops): an entry of the service's cache, if
 * it is younger than its lifetime and a reload left its version and
 * suite in the service's policy.  A ticket resumes as often as the
 * client likes until then: tlsgate never takes 0-RTT data.
 */
static int
session_load(void *ctx, struct eng_session *s)
{
	struct tls_conn *t = ctx;
	const struct tls_svc *sv = &areas[t->area].svc[t->svc];
	unsigned char id[CACHE_ID_LEN];
	struct cache_entry e;
	int hit;

	bind_id(t, s, id);
	cache_lock();
	hit = cache_get(&caches->c[t->svc], caches->store, id, cache_now(),
	    sv->cfg->lifetime_ms / 1000, &e);
	port_unlock(caches->lock);
	hit = hit && svc_takes(sv, e.version, e.suite);
	if (hit) {
		memcpy(s->secret, e.secret, sizeof(s->secret));
		s->version = e.version;
		s->suite = e.suite;
		s->ems = (e.flags & CACHE_EMS) != 0;
		stats.cache_hits++;
	} else
		stats.cache_misses++;
	wipe(&e, sizeof(e));
	return hit;
}

static void
session_save(void *ctx, const struct eng_session *s)
{
	struct tls_conn *t = ctx;
	struct cache_entry e;

	memset(&e, 0, sizeof(e));
	bind_id(t, s, e.id);
	memcpy(e.secret, s->secret, sizeof(e.secret));
	e.secret_len = sizeof(e.secret);
	e.flags = s->ems ? CACHE_EMS : 0;
	e.version = (uint16_t)s->version;
	e.suite = (uint16_t)s->suite;
	e.born = cache_now();
	stats.cache_saves++;
	if (s->version == TLS13)
		stats.tickets++;
	cache_lock();
	cache_put(&caches->c[t->svc], caches->store, &e);
	port_unlock(caches->lock);
	wipe(&e, sizeof(e));
}

static struct ticket_keys *
keys_of(struct tls_area *a)
{
	return a->key_file ? &a->file_keys : &rot_keys;
}

/* Tickets (eng_ops): the session sealed, born now, for its lifetime. */
static size_t
ticket_seal_cb(void *ctx, const struct eng_session *s, unsigned char *out,
    size_t cap)
{
	struct tls_conn *t = ctx;
	unsigned char c[TICKET_CTX_MAX], certs[TICKET_CERT_MAX];
	struct ticket_state st;
	int64_t now = port_time();
	size_t n;

	memset(&st, 0, sizeof(st));
	st.version = s->version;
	st.suite = s->suite;
	st.flags = s->ems ? TICKET_EMS : 0;
	if (t->client_auth) {
		st.flags |= TICKET_CLIENT;
		if (tls_client_verified(t)) {
			/*
			 * One larger than a ticket carries (tcp mode takes
			 * it, keeping what fits): no ticket, as no resumption
			 * could check it again.
			 */
			if (t->leaf_len > sizeof(t->leaf_der) ||
			    t->chain_used > sizeof(t->chain_der))
				return 0;
			st.flags |= TICKET_CERT;
			memcpy(certs, t->leaf_der, t->leaf_len);
			memcpy(certs + t->leaf_len, t->chain_der,
			    t->chain_used);
			st.cert = certs;
			st.cert_len = t->leaf_len + t->chain_used;
		}
	}
	memcpy(st.secret, s->secret, sizeof(s->secret));
	st.secret_len = sizeof(s->secret);
	st.born = now;
	st.lifetime = areas[t->area].svc[t->svc].cfg->lifetime_ms / 1000;
	n = ticket_seal(keys_of(&areas[t->area]), &st, c,
	    ticket_ctx(t, NULL, 0, c), &seed_drbg.vtable, now, out, cap);
	wipe(&st, sizeof(st));
	if (n > 0)
		stats.tickets++;
	return n;
}

/*
 * A ticket's client, as the service now takes clients: one made at a
 * service with client_ca resumes only at one (and the other way round:
 * a reload may have added or dropped client_ca), its certificate
 * checked again against today's CAs and CRLs; one without a
 * certificate only where none is required.
 */
static int
client_takes(struct tls_conn *t, const struct tls_svc *sv,
    const struct ticket_state *st)
{
	if (!t->client_auth || !(st->flags & TICKET_CLIENT))
		return !t->client_auth && !(st->flags & TICKET_CLIENT);
	if (!(st->flags & TICKET_CERT))
		return sv->cfg->verify_optional != 0;
	return tls_client_recheck(t, st->cert, st->cert_len);
}

/* A ticket that opens here, still of the service's policy. */
static int
ticket_open_cb(void *ctx, const unsigned char *tk, size_t len,
    struct eng_session *s)
{
	struct tls_conn *t = ctx;
	const struct tls_svc *sv = &areas[t->area].svc[t->svc];
	unsigned char c[TICKET_CTX_MAX], certs[TICKET_CERT_MAX];
	struct ticket_state st;
	int ok;

	ok = ticket_open(keys_of(&areas[t->area]), tk, len, c,
	    ticket_ctx(t, s->host, s->host_len, c), s->version, port_time(),
	    &st, t->client_auth ? certs : NULL) &&
	    svc_takes(sv, st.version, st.suite) &&
	    st.secret_len == sizeof(s->secret) && client_takes(t, sv, &st);
	if (ok) {
		memcpy(s->secret, st.secret, sizeof(s->secret));
		s->suite = st.suite;
		s->ems = (st.flags & TICKET_EMS) != 0;
		stats.ticket_hits++;
	} else
		stats.ticket_misses++;
	wipe(&st, sizeof(st));
	return ok;
}

static void
wipe_area(struct tls_area *a)
{
	memset(a->creds, 0, sizeof(a->creds));
	a->ncreds = a->anchors.n = a->nsvc = 0;
	crl_set_init(&a->crls);
	wipe(&a->file_keys, sizeof(a->file_keys));
	a->key_file = 0;
}

/* ticket_key_file into a's keys: 0, or -1 with err. */
static int
load_key_file(struct tls_area *a, const char *path, char *err, size_t cap)
{
	const char *why;
	char msg[96];
	long n = port_read_secret(path, key_text, sizeof(key_text), &why);
	int rc = n < 0 ? -1 : ticket_keys_parse(&a->file_keys, key_text,
	    (size_t)n, msg, sizeof(msg));

	wipe(key_text, sizeof(key_text));
	if (rc < 0) {
		snprintf(err, cap, "ticket_key_file %s: %s", path,
		    n < 0 ? why : msg);
		return -1;
	}
	a->key_file = 1;
	snprintf(a->key_path, sizeof(a->key_path), "%s", path);
	return 0;
}

/*
 * CNSA 2.0 keeps CNSA 1.0's signatures until ML-DSA: ECDSA on P-384,
 * RSA of 3072 bits or more (NSA CNSA 1.0, RFC 9151 5).
 */
static int
cnsa2_key(const struct cred *cr)
{
	return cr->key_type == BR_KEYTYPE_EC ? cr->ec.curve == BR_EC_secp384r1 :
	    cr->rsa.n_bitlen >= 3072;
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

		sv->cred0 = a->ncreds;
		for (unsigned j = 0; j < s->ncerts; j++) {
			struct cred *cr = &a->creds[a->ncreds++];

			if (cred_load(cr, s->certs[j].cert, s->certs[j].key,
			    err, cap) < 0)
				goto fail;
			if (s->profile == PROFILE_CNSA2 && !cnsa2_key(cr)) {
				snprintf(err, cap, "key %s: tls_profile cnsa2 "
				    "takes a P-384 or an RSA 3072-bit or "
				    "larger key", s->certs[j].key);
				goto fail;
			}
		}
		sv->anchor0 = a->anchors.n;
		if (s->client_ca[0] != '\0' &&
		    cred_load_anchors(&a->anchors, s->client_ca, err, cap) < 0)
			goto fail;
		sv->nanchor = a->anchors.n - sv->anchor0;
		sv->cfg = s;
		sv->crl0 = a->crls.nlists;
		if (s->client_crl[0] != '\0' && cred_load_crls(&a->crls,
		    s->client_crl, &a->anchors, sv->anchor0, sv->nanchor, err,
		    cap) < 0)
			goto fail;
		sv->ncrl = a->crls.nlists - sv->crl0;
		/*
		 * A resumed session skips client auth: its certificate must
		 * come with it, to be checked again.  A ticket carries it;
		 * a cache entry, fixed-size in memory the workers share,
		 * would need room for one in every entry: no cache there.
		 */
		sv->cache_on = s->cache > 0 && sv->nanchor == 0;
	}
	if (c->ticket_key_file[0] != '\0' &&
	    load_key_file(a, c->ticket_key_file, err, cap) < 0)
		goto fail;
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

void
tls_conn_init(struct tls_conn *t, void *ibuf, size_t ilen, void *obuf,
    size_t olen)
{
	memset(t, 0, sizeof(*t));
	t->ibuf = ibuf;
	t->obuf = obuf;
	t->ilen = ilen;
	t->olen = olen;
	t->area = TLSGATE_MAX_SERVICES;	/* none */
}

void
tls_conn_reset(struct tls_conn *t, unsigned svc)
{
	struct tls_area *a = &areas[active];
	struct tls_svc *sv = &a->svc[svc];

	tls_conn_release(t);
	t->area = active;
	t->svc = svc;
	a->refs++;
	t->client_auth = sv->nanchor > 0;
	t->ncert = 0;
	t->from_ticket = 0;
	t->peek = 1;
	t->sni[0] = '\0';
	memset(&t->eng, 0, sizeof(t->eng));
	if (t->client_auth)
		tls_client_setup(t, &a->anchors.ta[sv->anchor0], sv->nanchor,
		    &a->crls, sv->crl0, sv->ncrl, sv->cfg);
}

/*
 * The scheme a key signs with: the first in the registry's order that
 * the hello offers and the key can make, at TLS 1.3 one bound to the
 * key's curve (ECDSA) or RSA-PSS; 0 if there is none.  TLS 1.2 takes
 * SHA-1 only from a hello without the extension (RFC 5246 7.4.1.4.1).
 * A cnsa2 service signs with SHA-384 or SHA-512 only (CNSA's hash).
 */
static unsigned
scheme(const struct tls_svc *sv, const struct cred *c, const struct hello *h,
    int v13)
{
	int ec = c->key_type == BR_KEYTYPE_EC;

	if (!v13 && !(h->exts & hello_ext(EXT_SIGNATURE_ALGORITHMS)))
		return ec ? SIG_ECDSA_SHA1 : SIG_RSA_PKCS1_SHA1;
	for (size_t i = 0; i < tls_nsigs; i++) {
		const struct tls_sig *s = &tls_sigs[i];

		if (!(h->sigalgs & 1u << i) || s->kind == 0 ||
		    (s->kind == SIG_ECDSA) != ec ||
		    (v13 ? !s->v13 || (ec && s->curve != c->ec.curve) :
		    s->hash == br_sha1_ID) ||
		    (sv->cfg->profile == PROFILE_CNSA2 &&
		    s->hash != br_sha384_ID && s->hash != br_sha512_ID))
			continue;
		return s->code;
	}
	return 0;
}

/* The service's first suite the hello offers for key c; 0 if none. */
static unsigned
suite(const struct tls_svc *sv, const struct cred *c, const struct hello *h,
    int v13)
{
	int k = c->key_type == BR_KEYTYPE_EC ? TS_ECDSA : TS_RSA;

	for (unsigned i = 0; i < sv->cfg->suites.n; i++) {
		unsigned s = sv->cfg->suites.v[i], code;

		if (s >= TLS_NSUITES)
			continue;
		code = tls_suites[s].code[v13 ? TS_13 : k];
		if ((v13 ? h->suites : h->suites12) & hello_suite(code))
			return code;
	}
	return 0;
}

/*
 * At TLS 1.2, an ECDSA key on a curve the hello's supported_groups lists,
 * if it has the extension (RFC 8422 5.1); TLS 1.3's schemes bind curves.
 */
static int
curve_offered(const struct cred *c, const struct hello *h, int v13)
{
	if (v13 || c->key_type != BR_KEYTYPE_EC ||
	    !(h->exts & hello_ext(EXT_SUPPORTED_GROUPS)))
		return 1;
	for (size_t i = 0; i < tls_ngroups; i++)
		if (tls_groups[i].curve == c->ec.curve)
			return (h->groups >> i & 1) != 0;
	return 0;
}

/*
 * The service's credential for a hello: the first whose names match its
 * server name and that the hello can use, else the first that matches;
 * with no match, the first it can use, else the first.  So an RSA and an
 * ECDSA certificate for one name serve every client either suits.
 */
static unsigned
pick_cred(const struct tls_area *a, const struct tls_svc *sv,
    const char *name, const struct hello *h, int v13)
{
	unsigned named = UINT_MAX, fits = UINT_MAX;

	for (unsigned i = sv->cred0; i < sv->cred0 + sv->cfg->ncerts; i++) {
		const struct cred *c = &a->creds[i];
		int n = 0, u = suite(sv, c, h, v13) != 0 &&
		    scheme(sv, c, h, v13) != 0 && curve_offered(c, h, v13);

		for (unsigned j = 0; name[0] != '\0' && j < c->nnames; j++)
			n |= certname_match(c->names[j], name);
		if (n && u)
			return i;
		if (n && named == UINT_MAX)
			named = i;
		if (u && fits == UINT_MAX)
			fits = i;
	}
	return named != UINT_MAX ? named : fits != UINT_MAX ? fits : sv->cred0;
}

static unsigned
choose(void *ctx, const unsigned char *m, const struct hello *h,
    unsigned version, struct eng_choice *out)
{
	struct tls_conn *t = ctx;
	const struct tls_area *a = &areas[t->area];
	const struct tls_svc *sv = &a->svc[t->svc];
	const struct cred *c;
	int v13 = version == TLS13;

	memset(out, 0, sizeof(*out));
	if (h->host_len < sizeof(t->sni)) {
		memcpy(t->sni, m + h->host, h->host_len);
		t->sni[h->host_len] = '\0';
	}
	c = &a->creds[pick_cred(a, sv, t->sni, h, v13)];
	out->suite = suite(sv, c, h, v13);
	out->scheme = scheme(sv, c, h, v13);
	out->chain = c->chain;
	out->nchain = c->nchain;
	out->ec = c->key_type == BR_KEYTYPE_EC ? &c->ec : NULL;
	out->rsa = c->key_type == BR_KEYTYPE_EC ? NULL : &c->rsa;
	out->alpn = sv->cfg->mode == MODE_HTTP && h->alpn_http11;
	out->groups = sv->cfg->groups.v;
	out->ngroups = sv->cfg->groups.n;
	out->hybrid_retry = sv->cfg->hybrid_retry != 0;
	out->ems_required = sv->cfg->ems_required != 0;
	if (t->client_auth) {
		out->x509 = &t->crl_vt;
		out->cas = &a->anchors.ta[sv->anchor0];
		out->ncas = sv->nanchor;
		out->cert_optional = (unsigned char)sv->cfg->verify_optional;
	}
	if (out->suite == 0 || out->scheme == 0 || !curve_offered(c, h, v13)) {
		out->why = out->suite == 0 ? "no-shared-suite" :
		    out->scheme == 0 ? "no-shared-signature-scheme" :
		    "certificate-curve-not-offered";
		return BR_ALERT_HANDSHAKE_FAILURE;
	}
	return 0;
}

/* The scratch holds the longest second hello too. */
_Static_assert(HELLO_WIRE_MAX >= ENG_HELLO2_MAX(TLSGATE_OBUF_SIZE),
    "the scratch joins a second hello");

int
tls_hello(struct tls_conn *t, unsigned char *buf, size_t len,
    unsigned char *scratch, size_t *end, unsigned *alert, const char **why)
{
	const struct tls_svc *sv = &areas[t->area].svc[t->svc];
	struct hello_peek pk;
	int r = hello_classify(buf, len, HELLO_WIRE_MAX, &pk);

	*alert = 0;
	*why = NULL;
	if (r == HELLO_MORE)
		return TLS_HELLO_MORE;
	t->peek = 0;
	if (r == HELLO_ALERT) {
		*alert = pk.alert;
		*why = "bad-hello";
		return TLS_HELLO_REFUSE;
	}
	*end = pk.end;
	t->ops.choose = choose;
	t->ops.load = sv->cache_on ? session_load : NULL;
	t->ops.save = sv->cache_on ? session_save : NULL;
	t->ops.seal = sv->cfg->tickets ? ticket_seal_cb : NULL;
	t->ops.open = sv->cfg->tickets ? ticket_open_cb : NULL;
	t->ops.ctx = t;
	t->ops.rng = &seed_drbg.vtable;
	t->ops.vmin = sv->cfg->tls_min;
	t->ops.vmax = sv->cfg->tls_max;
	t->ops.lifetime = sv->cfg->lifetime_ms / 1000;
	/* The loop's one thread: the engine uses it inside a call only. */
	t->ops.scratch = scratch;
	t->ops.scratch_len = HELLO_WIRE_MAX;
	(void)eng_start(&t->eng, t->ibuf, t->ilen, t->obuf, t->olen,
	    buf + 5, hello_defrag(buf, pk.end), &t->ops);
	return TLS_HELLO_STARTED;
}

void
tls_conn_release(struct tls_conn *t)
{
	struct tls_area *a;

	eng_wipe(&t->eng);
	if (t->area >= 2)
		return;
	a = &areas[t->area];
	t->area = TLSGATE_MAX_SERVICES;
	if (--a->refs == 0 && a != &areas[active])
		wipe_area(a);
}

/*
 * The rotating keys, from a secret of the DRBG, before any fork, on
 * config_ticket_life()'s rule.
 */
static void
init_rotation(const struct config *c)
{
	unsigned char seed[32];
	unsigned r, l = config_ticket_life(c, &r);

	seed_drbg.vtable->generate(&seed_drbg.vtable, seed, sizeof(seed));
	ticket_keys_rotating(&rot_keys, seed, r / 1000, l / 1000, port_time());
	wipe(seed, sizeof(seed));
}

int
tls_init(const struct config *c, int shared, const char **why)
{
	size_t first = 0;

	if (shared && (caches = port_shared(sizeof(*caches), why)) == NULL)
		return -1;
	/*
	 * Every service with a cache gets its share of the store, client
	 * auth or not: a reload may drop a service's client_ca and turn its
	 * cache on, but it cannot change the sizes (needs_restart()).
	 */
	for (unsigned i = 0; i < c->nsvc; i++) {
		cache_init(&caches->c[i], caches->store, first, c->svc[i].cache);
		first += c->svc[i].cache;
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
	init_rotation(c);
	return 0;
}

int
tls_reseed(void)
{
	unsigned char seed[32];

	if (port_entropy(seed, sizeof(seed)) < 0)
		return -1;
	br_hmac_drbg_update(&seed_drbg, seed, sizeof(seed));
	ct_secret(seed_drbg.K, sizeof(seed_drbg.K));	/* all it draws */
	ct_secret(seed_drbg.V, sizeof(seed_drbg.V));
	/* The pools' own DRBG: no pair is made before it is seeded. */
	br_hmac_drbg_generate(&seed_drbg, seed, sizeof(seed));
	precomp_init(seed, sizeof(seed));
	wipe(seed, sizeof(seed));
	return 0;
}

void
tls_crl_report(int (*put)(const char *))
{
	const struct tls_area *a = &areas[loaded];

	for (unsigned i = 0; i < a->nsvc; i++)
		tls_client_crl_report(&a->crls, a->svc[i].crl0,
		    a->svc[i].ncrl, a->svc[i].cfg, i, put);
}

size_t
tls_static_bytes(void)
{
	/* The cache store is counted by what the config uses of it. */
	return sizeof(areas) + sizeof(own_caches) - sizeof(own_caches.store) +
	    sizeof(seed_drbg) + TLS_ERR_NAME + sizeof(rot_keys) +
	    sizeof(key_text) + cred_static_bytes();
}

void
tls_wipe(void)
{
	wipe_area(&areas[0]);
	wipe_area(&areas[1]);
	for (unsigned i = 0; i < TLSGATE_MAX_SERVICES; i++)
		cache_wipe(&caches->c[i], caches->store);
	wipe(&seed_drbg, sizeof(seed_drbg));
	precomp_wipe();
	wipe(&rot_keys, sizeof(rot_keys));
}

void
tls_ticket_report(int (*put)(const char *))
{
	struct tls_area *a = &areas[active];
	const struct ticket_keys *k = keys_of(a);
	char line[CONFIG_PATH_MAX + 128];

	if (a->key_file)
		snprintf(line, sizeof(line), "ticket keys = %u from %s (the "
		    "line before the last seals), %zu bytes", ticket_keys_count(k),
		    a->key_path, sizeof(*k));
	else
		snprintf(line, sizeof(line), "ticket keys = rotating: a new "
		    "one every %lus, %u kept (none older than %lus), %zu bytes",
		    (unsigned long)k->rotate, k->keep,
		    (unsigned long)k->rotate * k->keep, sizeof(*k));
	(void)put(line);
}

const br_x509_certificate *
tls_leaf(unsigned svc, unsigned j)
{
	const struct tls_area *a = &areas[active];

	return &a->creds[a->svc[svc].cred0 + j].chain[0];
}
