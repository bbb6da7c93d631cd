/*
 * tls.c - see tls.h.
 *
 * Policy: TLS 1.2 (1.0 and 1.1 only if tls_min says so, and then with
 * ECDHE CBC suites, since AEAD needs 1.2); ECDHE only; AES-GCM and
 * ChaCha20-Poly1305; server preference; no renegotiation.  Each slot's
 * context is configured once at start-up and only reset per connection,
 * so BearSSL's per-context HMAC-DRBG keeps running and no file or
 * syscall is needed per connection to seed it.
 */
#include <stdio.h>
#include <string.h>

#include "tls.h"
#include "defaults.h"

struct tls_stats tls_stats;

/* The certificate chain, as DER, and the private key, all static. */
static unsigned char chain_der[TLSGATE_MAX_CHAIN];
static br_x509_certificate chain[TLSGATE_MAX_CERTS];
static size_t nchain;
static int key_type;			/* BR_KEYTYPE_EC or _RSA */
static int issuer_type;
static br_ec_private_key ec_sk;
static br_rsa_private_key rsa_sk;
static unsigned char key_der[8192];	/* DER of the key, then its parts */
static unsigned char key_mat[5 * 512];	/* copied key components */
static unsigned char pem[TLSGATE_MAX_FILE];

static unsigned tls_min;
static int alpn_http;
/* http mode speaks HTTP/1.1; a client offering only h2 still gets it. */
static const char *alpn_names[] = { "http/1.1" };
static br_hmac_drbg_context seed_drbg;

/* Session cache: BearSSL's LRU (100 bytes a session) behind a counter. */
#define CACHE_ENTRY	100
static unsigned char cache_store[TLSGATE_MAX_CACHE * CACHE_ENTRY];
static br_ssl_session_cache_lru lru;
static int cache_on;

static void
cache_save(const br_ssl_session_cache_class **ctx, br_ssl_server_context *sc,
    const br_ssl_session_parameters *params)
{
	(void)ctx;
	tls_stats.cache_saves++;
	((struct tls_conn *)(void *)sc)->cache_saved = 1;
	lru.vtable->save(&lru.vtable, sc, params);
}

static int
cache_load(const br_ssl_session_cache_class **ctx, br_ssl_server_context *sc,
    br_ssl_session_parameters *params)
{
	int hit;

	(void)ctx;
	hit = lru.vtable->load(&lru.vtable, sc, params);
	if (hit)
		tls_stats.cache_hits++;
	else
		tls_stats.cache_misses++;
	((struct tls_conn *)(void *)sc)->cache_hit = (unsigned char)hit;
	return hit;
}

static const br_ssl_session_cache_class cache_class = {
	sizeof(const br_ssl_session_cache_class *), cache_save, cache_load
};
static const br_ssl_session_cache_class *cache_vtable = &cache_class;

/* PEM: decode every object of a file, handing each one's DER to got(). */
struct pem_sink {
	unsigned char	*buf;
	size_t		 cap, len;
	int		 overflow;
};

static void
pem_append(void *ctx, const void *data, size_t len)
{
	struct pem_sink *s = ctx;

	if (len > s->cap - s->len) {
		s->overflow = 1;
		return;
	}
	memcpy(s->buf + s->len, data, len);
	s->len += len;
}

/*
 * Decode all PEM objects named like `want` (prefix match on the name's
 * end: "CERTIFICATE", "PRIVATE KEY") into dst, recording each one's
 * offset and length.  Returns the object count, or -1 with *why set.
 */
static int
pem_decode(const unsigned char *src, size_t len, const char *want,
    unsigned char *dst, size_t cap, size_t *off, size_t *olen, int max,
    const char **why)
{
	static br_pem_decoder_context pc;
	struct pem_sink sink = { dst, cap, 0, 0 };
	int n = 0, inobj = 0, take = 0;
	size_t start = 0;

	br_pem_decoder_init(&pc);
	while (len > 0 || inobj) {
		size_t k;

		if (len == 0) {
			/* Flush a last line without its newline. */
			src = (const unsigned char *)"\n";
			len = 1;
			inobj = 0;
		}
		k = br_pem_decoder_push(&pc, src, len);
		src += k;
		len -= k;
		switch (br_pem_decoder_event(&pc)) {
		case BR_PEM_BEGIN_OBJ: {
			const char *name = br_pem_decoder_name(&pc);
			size_t nl = strlen(name), wl = strlen(want);

			inobj = 1;
			take = nl >= wl && strcmp(name + nl - wl, want) == 0;
			if (take && n == max) {
				*why = "too many objects";
				return -1;
			}
			start = sink.len;
			br_pem_decoder_setdest(&pc, take ? pem_append : NULL,
			    &sink);
			break;
		}
		case BR_PEM_END_OBJ:
			inobj = 0;
			if (take) {
				off[n] = start;
				olen[n] = sink.len - start;
				n++;
			}
			break;
		case BR_PEM_ERROR:
			*why = "invalid PEM";
			return -1;
		}
	}
	if (sink.overflow) {
		*why = "larger than the compile-time limit";
		return -1;
	}
	if (n == 0)
		*why = "no PEM object of the expected type";
	return n;
}

static int
load_chain(const char *path, char *err, size_t cap)
{
	size_t off[TLSGATE_MAX_CERTS], len[TLSGATE_MAX_CERTS];
	const char *why;
	long flen;
	int n;

	flen = port_read_file(path, pem, sizeof(pem), &why);
	if (flen < 0)
		goto fail;
	n = pem_decode(pem, (size_t)flen, "CERTIFICATE", chain_der,
	    sizeof(chain_der), off, len, TLSGATE_MAX_CERTS, &why);
	if (n <= 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		chain[i].data = chain_der + off[i];
		chain[i].data_len = len[i];
	}
	nchain = (size_t)n;
	return 0;
fail:
	snprintf(err, cap, "cert %s: %s", path, why);
	return -1;
}

/* Copy a key component into key_mat so the decoder can be wiped. */
static unsigned char *
keep(size_t *used, const unsigned char *p, size_t len)
{
	unsigned char *d = key_mat + *used;

	memcpy(d, p, len);
	*used += len;
	return d;
}

static int
load_key(const char *path, char *err, size_t cap)
{
	static br_skey_decoder_context dc;
	size_t off[1], len[1], used = 0;
	const char *why;
	long flen;

	flen = port_read_file(path, pem, sizeof(pem), &why);
	if (flen < 0)
		goto fail;
	if (pem_decode(pem, (size_t)flen, "PRIVATE KEY", key_der,
	    sizeof(key_der), off, len, 1, &why) <= 0)
		goto fail;
	br_skey_decoder_init(&dc);
	br_skey_decoder_push(&dc, key_der + off[0], len[0]);
	if (br_skey_decoder_last_error(&dc) != 0) {
		why = "not a valid RSA or EC private key";
		goto fail;
	}
	key_type = br_skey_decoder_key_type(&dc);
	if (key_type == BR_KEYTYPE_EC) {
		const br_ec_private_key *k = br_skey_decoder_get_ec(&dc);

		if (k->curve != BR_EC_secp256r1 && k->curve != BR_EC_secp384r1 &&
		    k->curve != BR_EC_secp521r1) {
			why = "EC key on an unsupported curve (P-256, P-384, "
			    "P-521 only)";
			goto fail;
		}
		ec_sk.curve = k->curve;
		ec_sk.xlen = k->xlen;
		ec_sk.x = keep(&used, k->x, k->xlen);
	} else {
		const br_rsa_private_key *k = br_skey_decoder_get_rsa(&dc);

		if (k->n_bitlen < 2048 || k->n_bitlen > 4096) {
			why = "RSA key size must be 2048 to 4096 bits";
			goto fail;
		}
		rsa_sk = *k;
		rsa_sk.p = keep(&used, k->p, k->plen);
		rsa_sk.q = keep(&used, k->q, k->qlen);
		rsa_sk.dp = keep(&used, k->dp, k->dplen);
		rsa_sk.dq = keep(&used, k->dq, k->dqlen);
		rsa_sk.iq = keep(&used, k->iq, k->iqlen);
	}
	br_skey_decoder_init(&dc);
	memset(key_der, 0, sizeof(key_der));
	memset(pem, 0, sizeof(pem));
	return 0;
fail:
	memset(key_der, 0, sizeof(key_der));
	memset(pem, 0, sizeof(pem));
	snprintf(err, cap, "key %s: %s", path, why);
	return -1;
}

static size_t
strip0(const unsigned char **p, size_t len)
{
	while (len > 0 && **p == 0) {
		(*p)++;
		len--;
	}
	return len;
}

/* Does the key match the first certificate's public key? */
static const char *
check_match(void)
{
	static br_x509_decoder_context xd;
	static unsigned char buf[BR_EC_KBUF_PUB_MAX_SIZE > 512 ?
	    BR_EC_KBUF_PUB_MAX_SIZE : 512];
	const br_x509_pkey *pk;

	br_x509_decoder_init(&xd, NULL, NULL);
	br_x509_decoder_push(&xd, chain[0].data, chain[0].data_len);
	pk = br_x509_decoder_get_pkey(&xd);
	if (pk == NULL || br_x509_decoder_last_error(&xd) != 0)
		return "cannot decode the first certificate";
	issuer_type = br_x509_decoder_get_signer_key_type(&xd);
	if (pk->key_type != key_type)
		return "key type differs from the certificate's";
	if (key_type == BR_KEYTYPE_EC) {
		br_ec_public_key pub;

		if (br_ec_compute_pub(br_ec_get_default(), &pub, buf,
		    &ec_sk) == 0)
			return "cannot compute the EC public key";
		if (pub.curve != pk->key.ec.curve || pub.qlen !=
		    pk->key.ec.qlen || memcmp(pub.q, pk->key.ec.q, pub.qlen) != 0)
			return "does not match the certificate";
	} else {
		const unsigned char *a = buf, *b = pk->key.rsa.n;
		size_t al, bl;
		uint32_t e;

		al = br_rsa_compute_modulus_get_default()(buf, &rsa_sk);
		al = strip0(&a, al);
		bl = strip0(&b, pk->key.rsa.nlen);
		e = br_rsa_compute_pubexp_get_default()(&rsa_sk);
		if (al == 0 || al != bl || memcmp(a, b, al) != 0 ||
		    pk->key.rsa.elen > 4)
			return "does not match the certificate";
		for (size_t i = 0; i < pk->key.rsa.elen; i++)
			e ^= (uint32_t)pk->key.rsa.e[i] <<
			    (8 * (pk->key.rsa.elen - 1 - i));
		if (e != 0)
			return "does not match the certificate";
	}
	return NULL;
}

int
tls_setup(const struct config *c, char *err, size_t cap)
{
	unsigned char seed[48];
	const char *why;

	if (load_chain(c->cert, err, cap) < 0 || load_key(c->key, err, cap) < 0)
		return -1;
	if ((why = check_match()) != NULL) {
		snprintf(err, cap, "key %s: %s %s", c->key, why, c->cert);
		return -1;
	}
	if (port_entropy(seed, sizeof(seed)) < 0) {
		snprintf(err, cap, "no entropy from the operating system");
		return -1;
	}
	br_hmac_drbg_init(&seed_drbg, &br_sha256_vtable, seed, sizeof(seed));
	memset(seed, 0, sizeof(seed));
	tls_min = c->tls_min;
	alpn_http = c->mode == MODE_HTTP;
	cache_on = c->cache > 0;
	if (cache_on)
		br_ssl_session_cache_lru_init(&lru, cache_store,
		    (size_t)c->cache * CACHE_ENTRY);
	return 0;
}

static const uint16_t suites_ec[] = {
	BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	BR_TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,	/* only below TLS 1.2 */
	BR_TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
};
static const uint16_t suites_rsa[] = {
	BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	BR_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	BR_TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
};
#define NAEAD	3

void
tls_conn_init(struct tls_conn *t, void *ibuf, size_t ilen, void *obuf,
    size_t olen)
{
	br_ssl_server_context *sc = &t->sc;
	br_ssl_engine_context *eng = &sc->eng;
	unsigned char seed[32];
	int legacy = tls_min < 0x0303;

	br_ssl_server_zero(sc);
	br_ssl_engine_set_versions(eng, tls_min, BR_TLS12);
	br_ssl_engine_set_suites(eng, key_type == BR_KEYTYPE_EC ? suites_ec :
	    suites_rsa, legacy ? 5 : NAEAD);
	br_ssl_engine_set_ec(eng, br_ec_get_default());
	br_ssl_engine_set_hash(eng, br_sha256_ID, &br_sha256_vtable);
	br_ssl_engine_set_hash(eng, br_sha384_ID, &br_sha384_vtable);
	br_ssl_engine_set_hash(eng, br_sha512_ID, &br_sha512_vtable);
	br_ssl_engine_set_hash(eng, br_sha224_ID, &br_sha224_vtable);
	/* Clients may still ask for SHA-1 signatures on the key exchange. */
	br_ssl_engine_set_hash(eng, br_sha1_ID, &br_sha1_vtable);
	br_ssl_engine_set_prf_sha256(eng, &br_tls12_sha256_prf);
	br_ssl_engine_set_prf_sha384(eng, &br_tls12_sha384_prf);
	br_ssl_engine_set_default_aes_gcm(eng);
	br_ssl_engine_set_default_chapol(eng);
	if (legacy) {
		br_ssl_engine_set_hash(eng, br_md5_ID, &br_md5_vtable);
		br_ssl_engine_set_prf10(eng, &br_tls10_prf);
		br_ssl_engine_set_default_aes_cbc(eng);
	}
	if (key_type == BR_KEYTYPE_EC)
		br_ssl_server_set_single_ec(sc, chain, nchain, &ec_sk,
		    BR_KEYTYPE_SIGN, (unsigned)issuer_type, br_ec_get_default(),
		    br_ecdsa_sign_asn1_get_default());
	else
		br_ssl_server_set_single_rsa(sc, chain, nchain, &rsa_sk,
		    BR_KEYTYPE_SIGN, br_rsa_private_get_default(),
		    br_rsa_pkcs1_sign_get_default());
	br_ssl_engine_set_all_flags(eng, BR_OPT_ENFORCE_SERVER_PREFERENCES |
	    BR_OPT_NO_RENEGOTIATION);
	if (cache_on)
		br_ssl_server_set_cache(sc, &cache_vtable);
	if (alpn_http)
		br_ssl_engine_set_protocol_names(eng, alpn_names, 1);
	br_ssl_engine_set_buffers_bidi(eng, ibuf, ilen, obuf, olen);
	/* A seed of its own for each context's DRBG, from the OS-seeded one. */
	br_hmac_drbg_generate(&seed_drbg, seed, sizeof(seed));
	br_ssl_engine_inject_entropy(eng, seed, sizeof(seed));
	memset(seed, 0, sizeof(seed));
}

int
tls_conn_reset(struct tls_conn *t)
{
	t->cache_hit = t->cache_saved = 0;
	return br_ssl_server_reset(&t->sc) ? 0 : -1;
}

int
tls_resumed(const struct tls_conn *t)
{
	return t->cache_hit && !t->cache_saved;
}

const char *
tls_suite_name(unsigned s)
{
	switch (s) {
	case BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256:
		return "ECDHE-ECDSA-AES128-GCM-SHA256";
	case BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384:
		return "ECDHE-ECDSA-AES256-GCM-SHA384";
	case BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256:
		return "ECDHE-ECDSA-CHACHA20-POLY1305";
	case BR_TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA:
		return "ECDHE-ECDSA-AES128-SHA";
	case BR_TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA:
		return "ECDHE-ECDSA-AES256-SHA";
	case BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256:
		return "ECDHE-RSA-AES128-GCM-SHA256";
	case BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384:
		return "ECDHE-RSA-AES256-GCM-SHA384";
	case BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256:
		return "ECDHE-RSA-CHACHA20-POLY1305";
	case BR_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA:
		return "ECDHE-RSA-AES128-SHA";
	case BR_TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA:
		return "ECDHE-RSA-AES256-SHA";
	}
	return "none";
}

const char *
tls_version_name(unsigned v)
{
	switch (v) {
	case BR_TLS10:
		return "TLS1.0";
	case BR_TLS11:
		return "TLS1.1";
	case BR_TLS12:
		return "TLS1.2";
	}
	return "none";
}

const char *
tls_error_name(int err)
{
	static const struct { int code; const char *name; } names[] = {
		{ BR_ERR_OK, "ok" },
		{ BR_ERR_UNSUPPORTED_VERSION, "unsupported-version" },
		{ BR_ERR_BAD_VERSION, "bad-version" },
		{ BR_ERR_BAD_LENGTH, "bad-length" },
		{ BR_ERR_TOO_LARGE, "record-too-large" },
		{ BR_ERR_BAD_MAC, "bad-mac" },
		{ BR_ERR_NO_RANDOM, "no-random" },
		{ BR_ERR_UNKNOWN_TYPE, "unknown-record-type" },
		{ BR_ERR_UNEXPECTED, "unexpected-message" },
		{ BR_ERR_BAD_CCS, "bad-ccs" },
		{ BR_ERR_BAD_ALERT, "bad-alert" },
		{ BR_ERR_BAD_HANDSHAKE, "bad-handshake" },
		{ BR_ERR_OVERSIZED_ID, "oversized-session-id" },
		{ BR_ERR_BAD_CIPHER_SUITE, "no-shared-cipher" },
		{ BR_ERR_BAD_COMPRESSION, "bad-compression" },
		{ BR_ERR_BAD_FRAGLEN, "bad-fragment-length" },
		{ BR_ERR_BAD_SECRENEG, "bad-secure-renegotiation" },
		{ BR_ERR_EXTRA_EXTENSION, "extra-extension" },
		{ BR_ERR_BAD_SNI, "bad-sni" },
		{ BR_ERR_BAD_HELLO_DONE, "bad-hello-done" },
		{ BR_ERR_LIMIT_EXCEEDED, "limit-exceeded" },
		{ BR_ERR_BAD_FINISHED, "bad-finished" },
		{ BR_ERR_RESUME_MISMATCH, "resume-mismatch" },
		{ BR_ERR_INVALID_ALGORITHM, "invalid-algorithm" },
		{ BR_ERR_BAD_SIGNATURE, "bad-signature" },
		{ BR_ERR_WRONG_KEY_USAGE, "wrong-key-usage" },
		{ BR_ERR_NO_CLIENT_AUTH, "no-client-auth" },
		{ BR_ERR_IO, "io" },
	};
	static char buf[32];

	if (err >= BR_ERR_RECV_FATAL_ALERT && err < BR_ERR_SEND_FATAL_ALERT) {
		snprintf(buf, sizeof(buf), "peer-alert-%d",
		    err - BR_ERR_RECV_FATAL_ALERT);
		return buf;
	}
	if (err >= BR_ERR_SEND_FATAL_ALERT) {
		snprintf(buf, sizeof(buf), "sent-alert-%d",
		    err - BR_ERR_SEND_FATAL_ALERT);
		return buf;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == err)
			return names[i].name;
	snprintf(buf, sizeof(buf), "error-%d", err);
	return buf;
}

size_t
tls_static_bytes(void)
{
	return sizeof(chain_der) + sizeof(chain) + sizeof(key_der) +
	    sizeof(key_mat) + sizeof(pem) + sizeof(cache_store) + sizeof(lru);
}

void
tls_wipe(void)
{
	memset(key_mat, 0, sizeof(key_mat));
	memset(&ec_sk, 0, sizeof(ec_sk));
	memset(&rsa_sk, 0, sizeof(rsa_sk));
	memset(&seed_drbg, 0, sizeof(seed_drbg));
}
