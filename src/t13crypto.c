/*
 * t13crypto.c - see t13crypto.h.
 *
 * HKDF is written over br_hmac_* rather than br_hkdf_*: BearSSL's HKDF
 * keeps its PRK inside its context and cannot expand from a secret it is
 * given, which is all TLS 1.3 ever does.  Every TLS 1.3 expansion is at
 * most one hash long, so HKDF-Expand is a single HMAC over the
 * HkdfLabel and the counter byte 1.
 *
 * The TLS 1.2 record classes of BearSSL cannot serve here (explicit
 * nonce, 13-byte AAD); the AEADs are driven directly, with the
 * implementations BearSSL's own engine selects (ssl_engine_default_*.c):
 * AES-NI and PCLMUL when the CPU has them, else the constant-time ct64
 * and ctmul64 code; ChaCha20 with SSE2, else ct; Poly1305 with 64x64
 * multiplications, else ctmul.
 */
#include <string.h>
#include <bearssl.h>

#include "ecdsa.h"
#include "t13crypto.h"

#define HASH_ANY_MAX	64		/* SHA-512, for signatures */

static size_t
hash_len(const br_hash_class *dig)
{
	return (size_t)(dig->desc >> BR_HASHDESC_OUT_OFF) &
	    BR_HASHDESC_OUT_MASK;
}

const br_hash_class *
t13_suite_hash(int suite)
{
	if (suite == SUITE_AES_128_GCM_SHA256 ||
	    suite == SUITE_CHACHA20_POLY1305_SHA256)
		return &br_sha256_vtable;
	return suite == SUITE_AES_256_GCM_SHA384 ? &br_sha384_vtable : NULL;
}

/* out = HMAC(key, data); the HMAC state is wiped. */
static void
hmac(const br_hash_class *dig, const void *key, size_t keylen,
    const void *data, size_t len, unsigned char *out)
{
	br_hmac_key_context kc;
	br_hmac_context hc;

	br_hmac_key_init(&kc, dig, key, keylen);
	br_hmac_init(&hc, &kc, 0);
	br_hmac_update(&hc, data, len);
	br_hmac_out(&hc, out);
	wipe(&kc, sizeof(kc));
	wipe(&hc, sizeof(hc));
}

size_t
t13_hkdf_extract(const br_hash_class *dig, const void *salt, size_t saltlen,
    const void *ikm, size_t ikmlen, unsigned char *out)
{
	static const unsigned char zero[T13_HASH_MAX];
	size_t hlen = hash_len(dig);

	if (salt == NULL) {
		salt = zero;
		saltlen = hlen;
	}
	if (ikm == NULL) {
		ikm = zero;
		ikmlen = hlen;
	}
	hmac(dig, salt, saltlen, ikm, ikmlen, out);
	return hlen;
}

/*
 * HKDF-Expand-Label: T(1) = HMAC(secret, HkdfLabel || 0x01), where
 * HkdfLabel = uint16 length, opaque "tls13 " + label<7..255>,
 * opaque context<0..255>.  Labels are this module's constants and
 * contexts are hashes or ticket nonces, so both fit their length byte.
 */
void
t13_expand_label(const br_hash_class *dig, const unsigned char *secret,
    const char *label, const void *ctx, size_t ctxlen, unsigned char *out,
    size_t outlen)
{
	br_hmac_key_context kc;
	br_hmac_context hc;
	unsigned char hd[3], t[T13_HASH_MAX], c;
	size_t llen = strlen(label);

	hd[0] = (unsigned char)(outlen >> 8);
	hd[1] = (unsigned char)outlen;
	hd[2] = (unsigned char)(6 + llen);
	br_hmac_key_init(&kc, dig, secret, hash_len(dig));
	br_hmac_init(&hc, &kc, 0);
	br_hmac_update(&hc, hd, 3);
	br_hmac_update(&hc, "tls13 ", 6);
	br_hmac_update(&hc, label, llen);
	c = (unsigned char)ctxlen;
	br_hmac_update(&hc, &c, 1);
	if (ctxlen > 0)
		br_hmac_update(&hc, ctx, ctxlen);
	c = 1;
	br_hmac_update(&hc, &c, 1);
	br_hmac_out(&hc, t);
	memcpy(out, t, outlen);
	wipe(t, sizeof(t));
	wipe(&kc, sizeof(kc));
	wipe(&hc, sizeof(hc));
}

void
t13_derive_secret(const br_hash_class *dig, const unsigned char *secret,
    const char *label, const unsigned char *thash, unsigned char *out)
{
	size_t hlen = hash_len(dig);

	t13_expand_label(dig, secret, label, thash, hlen, out, hlen);
}

void
t13_transcript_init(struct t13_transcript *t, const br_hash_class *dig)
{
	dig->init(&t->h.vtable);
	t->hlen = hash_len(dig);
}

void
t13_transcript_add(struct t13_transcript *t, const void *msg, size_t len)
{
	t->h.vtable->update(&t->h.vtable, msg, len);
}

/* BearSSL's out() leaves the running hash as it was (bearssl_hash.h). */
size_t
t13_transcript_hash(const struct t13_transcript *t, unsigned char *out)
{
	t->h.vtable->out(&t->h.vtable, out);
	return t->hlen;
}

/* message_hash (254), uint24 length, Hash(ClientHello1) (4.4.1). */
void
t13_transcript_hrr(struct t13_transcript *t)
{
	unsigned char m[4 + T13_HASH_MAX];

	m[0] = 254;
	m[1] = 0;
	m[2] = 0;
	m[3] = (unsigned char)t->hlen;
	t13_transcript_hash(t, m + 4);
	t->h.vtable->init(&t->h.vtable);
	t13_transcript_add(t, m, 4 + t->hlen);
}

void
t13_ks_early(struct t13_ks *ks, const br_hash_class *dig, const void *psk,
    size_t psklen)
{
	ks->dig = dig;
	ks->hlen = hash_len(dig);
	t13_hkdf_extract(dig, NULL, 0, psk, psklen, ks->secret);
}

/* Derive-Secret(secret, "derived", "") then Extract with the DHE. */
void
t13_ks_handshake(struct t13_ks *ks, const void *dhe, size_t dhelen)
{
	unsigned char salt[T13_HASH_MAX];

	t13_ks_derive(ks, "derived", NULL, salt);
	t13_hkdf_extract(ks->dig, salt, ks->hlen, dhe, dhelen, ks->secret);
	wipe(salt, sizeof(salt));
}

/* The same with hash-length zeros. */
void
t13_ks_master(struct t13_ks *ks)
{
	t13_ks_handshake(ks, NULL, 0);
}

void
t13_ks_derive(const struct t13_ks *ks, const char *label,
    const unsigned char *thash, unsigned char *out)
{
	br_hash_compat_context h;
	unsigned char empty[T13_HASH_MAX];

	if (thash == NULL) {
		ks->dig->init(&h.vtable);
		ks->dig->out(&h.vtable, empty);
		thash = empty;
	}
	t13_derive_secret(ks->dig, ks->secret, label, thash, out);
}

void
t13_ks_wipe(struct t13_ks *ks)
{
	wipe(ks, sizeof(*ks));
}

void
t13_finished(const br_hash_class *dig, const unsigned char *base,
    const unsigned char *thash, unsigned char *out)
{
	unsigned char fk[T13_HASH_MAX];
	size_t hlen = hash_len(dig);

	t13_expand_label(dig, base, "finished", NULL, 0, fk, hlen);
	hmac(dig, fk, hlen, thash, hlen, out);
	wipe(fk, sizeof(fk));
}

void
t13_ticket_psk(const br_hash_class *dig, const unsigned char *res,
    const void *nonce, size_t noncelen, unsigned char *out)
{
	t13_expand_label(dig, res, "resumption", nonce, noncelen, out,
	    hash_len(dig));
}

void
t13_next_secret(const br_hash_class *dig, unsigned char *secret)
{
	unsigned char t[T13_HASH_MAX];
	size_t hlen = hash_len(dig);

	t13_expand_label(dig, secret, "traffic upd", NULL, 0, t, hlen);
	memcpy(secret, t, hlen);
	wipe(t, sizeof(t));
}

void
t13_traffic_keys(const br_hash_class *dig, const unsigned char *secret,
    unsigned char *key, size_t keylen, unsigned char *iv)
{
	t13_expand_label(dig, secret, "key", NULL, 0, key, keylen);
	t13_expand_label(dig, secret, "iv", NULL, 0, iv, 12);
}

static int	aead(struct t13_rec *, const unsigned char *, size_t,
		    const unsigned char *, unsigned char *, size_t,
		    unsigned char *, int);

/* The AEAD's implementation, on r->key (klen bytes). */
static void
rec_keys(struct t13_rec *r, size_t klen)
{
	const br_block_ctr_class *ctr;
	unsigned char key[32];
	br_ghash gh;

	if (r->suite == SUITE_CHACHA20_POLY1305_SHA256) {
		if ((r->chacha = br_chacha20_sse2_get()) == 0)
			r->chacha = &br_chacha20_ct_run;
		if ((r->poly = br_poly1305_ctmulq_get()) == 0)
			r->poly = &br_poly1305_ctmul_run;
		return;
	}
	if ((ctr = br_aes_x86ni_ctr_get_vtable()) == NULL)
		ctr = &br_aes_ct64_ctr_vtable;
	if ((gh = br_ghash_pclmul_get()) == 0)
		gh = &br_ghash_ctmul64;
	/* The AES subkeys take the key's place. */
	memcpy(key, r->key, sizeof(key));
	ctr->init(&r->aes.vtable, key, klen);
	br_gcm_init(&r->gcm, &r->aes.vtable, gh);
	wipe(key, sizeof(key));
}

int
t13_rec_init(struct t13_rec *r, int suite, const unsigned char *secret)
{
	const br_hash_class *dig = t13_suite_hash(suite);
	size_t klen = suite == SUITE_AES_128_GCM_SHA256 ? 16 : 32;

	if (dig == NULL)
		return 0;
	wipe(r, sizeof(*r));
	r->suite = suite;
	t13_traffic_keys(dig, secret, r->key, klen, r->iv);
	rec_keys(r, klen);
	return 1;
}

int
t13_rec_init12(struct t13_rec *r, int aead, const unsigned char *key,
    const unsigned char *iv)
{
	size_t klen = aead == SUITE_AES_128_GCM_SHA256 ? 16 : 32;

	if (t13_suite_hash(aead) == NULL)
		return 0;
	wipe(r, sizeof(*r));
	r->suite = aead;
	r->v12 = 1;
	memcpy(r->key, key, klen);
	memcpy(r->iv, iv, aead == SUITE_CHACHA20_POLY1305_SHA256 ? 12 : 4);
	rec_keys(r, klen);
	return 1;
}

/* RFC 5246 6.2.3.3's additional data. */
static void
aad12(const struct t13_rec *r, int type, size_t len, unsigned char *a)
{
	for (int i = 0; i < 8; i++)
		a[i] = (unsigned char)(r->seq >> (56 - 8 * i));
	a[8] = (unsigned char)type;
	a[9] = 3;
	a[10] = 3;
	a[11] = (unsigned char)(len >> 8);
	a[12] = (unsigned char)len;
}

/* GCM's explicit nonce: 8 bytes before the ciphertext. */
static size_t
explicit_len(const struct t13_rec *r)
{
	return r->suite == SUITE_CHACHA20_POLY1305_SHA256 ? 0 : 8;
}

size_t
t13_rec_seal12(struct t13_rec *r, unsigned char *rec, size_t len,
    size_t cap, int type)
{
	unsigned char a[13];
	size_t x = explicit_len(r), n = x + len + T13_TAG_LEN;

	if (r->seq == UINT64_MAX || len > T13_PLAIN_MAX || cap < 5 ||
	    cap - 5 < n)
		return 0;
	memmove(rec + 5 + x, rec + 5, len);
	aad12(r, type, len, a);
	/* The explicit nonce is the sequence number: never twice. */
	memcpy(rec + 5, a, x);
	rec[0] = (unsigned char)type;
	rec[1] = 3;
	rec[2] = 3;
	rec[3] = (unsigned char)(n >> 8);
	rec[4] = (unsigned char)n;
	aead(r, a, 13, x > 0 ? a : NULL, rec + 5 + x, len, rec + 5 + x + len,
	    1);
	return 5 + n;
}

int
t13_rec_open12(struct t13_rec *r, unsigned char *rec, size_t reclen,
    size_t *len)
{
	unsigned char a[13];
	size_t x = explicit_len(r), k;

	if (reclen >= 5 && reclen - 5 > T13_PLAIN_MAX + T12_REC_EXTRA)
		return T13_ERR_OVERFLOW;
	if (reclen < 5 + x + T13_TAG_LEN)
		return T13_ERR_MAC;
	if (r->seq == UINT64_MAX)
		return T13_ERR_SEQ;
	k = reclen - 5 - x - T13_TAG_LEN;
	aad12(r, rec[0], k, a);
	/* The peer's explicit nonce is its own choice (RFC 5288 3). */
	if (!aead(r, a, 13, x > 0 ? rec + 5 : NULL, rec + 5 + x, k,
	    rec + 5 + x + k, 0)) {
		wipe(rec + 5 + x, k);
		return T13_ERR_MAC;
	}
	if (k > T13_PLAIN_MAX) {
		wipe(rec + 5 + x, k);
		return T13_ERR_OVERFLOW;
	}
	memmove(rec + 5, rec + 5 + x, k);
	*len = k;
	return rec[0];
}

/*
 * One AEAD operation on `len` bytes at `data` with the additional data
 * aad[0..alen), under the nonce of the record's version: the IV XOR the
 * sequence number (5.3, RFC 7905), or TLS 1.2 GCM's salt and explicit
 * nonce xn (RFC 5288).  Decrypting, returns 1 if `tag` is right,
 * checked in constant time; the sequence number moves on only on
 * success, so a record that fails (a skipped early-data record) does
 * not use one up.
 */
static int
aead(struct t13_rec *r, const unsigned char *aad, size_t alen,
    const unsigned char *xn, unsigned char *data, size_t len,
    unsigned char *tag, int encrypt)
{
	unsigned char n[12], t[T13_TAG_LEN];
	int ok = 1;

	memcpy(n, r->iv, 12);
	if (xn != NULL)		/* TLS 1.2 GCM: the salt, the explicit part */
		memcpy(n + 4, xn, 8);
	else
		for (int i = 0; i < 8; i++)
			n[11 - i] ^= (unsigned char)(r->seq >> (8 * i));
	if (r->suite == SUITE_CHACHA20_POLY1305_SHA256) {
		r->poly(r->key, n, data, len, aad, alen, encrypt ? tag : t,
		    r->chacha, encrypt);
		if (!encrypt)
			ok = ct_eq(t, tag, T13_TAG_LEN);
	} else {
		br_gcm_reset(&r->gcm, n, 12);
		br_gcm_aad_inject(&r->gcm, aad, alen);
		br_gcm_flip(&r->gcm);
		br_gcm_run(&r->gcm, encrypt, data, len);
		if (encrypt)
			br_gcm_get_tag(&r->gcm, tag);
		else
			ok = (int)br_gcm_check_tag(&r->gcm, tag);
	}
	if (ok)
		r->seq++;
	return ok;
}

size_t
t13_rec_seal(struct t13_rec *r, unsigned char *rec, size_t len, size_t cap,
    int type, size_t pad)
{
	size_t n;

	/* TLSInnerPlaintext: content, type, zeros; at most 2^14 + 1. */
	if (r->seq == UINT64_MAX || len > T13_PLAIN_MAX ||
	    pad > T13_PLAIN_MAX - len)
		return 0;
	n = len + 1 + pad;
	if (cap < 5 || cap - 5 < n + T13_TAG_LEN)
		return 0;
	rec[5 + len] = (unsigned char)type;
	memset(rec + 6 + len, 0, pad);
	rec[0] = 23;
	rec[1] = 3;
	rec[2] = 3;
	rec[3] = (unsigned char)((n + T13_TAG_LEN) >> 8);
	rec[4] = (unsigned char)(n + T13_TAG_LEN);
	aead(r, rec, 5, NULL, rec + 5, n, rec + 5 + n, 1);
	return 5 + n + T13_TAG_LEN;
}

int
t13_rec_open(struct t13_rec *r, unsigned char *rec, size_t reclen, size_t *len)
{
	unsigned char *p = rec + 5;
	uint32_t pos = 0, type = 0;
	size_t n;

	if (reclen >= 5 && reclen - 5 > T13_CIPHER_MAX)
		return T13_ERR_OVERFLOW;
	if (reclen < T13_REC_OVERHEAD)
		return T13_ERR_MAC;
	if (r->seq == UINT64_MAX)
		return T13_ERR_SEQ;
	n = reclen - 5 - T13_TAG_LEN;
	if (!aead(r, rec, 5, NULL, p, n, p + n, 0)) {
		wipe(p, n);
		return T13_ERR_MAC;
	}
	if (n > T13_PLAIN_MAX + 1) {
		wipe(p, n);
		return T13_ERR_OVERFLOW;
	}
	/*
	 * The type is the last non-zero byte (5.4).  The whole plaintext
	 * is read, so the time tells nothing of the padding's length.
	 */
	for (size_t i = 0; i < n; i++) {
		uint32_t m = -(((uint32_t)p[i] + 0xFF) >> 8);

		pos = (pos & ~m) | ((uint32_t)i & m);
		type = (type & ~m) | (p[i] & m);
	}
	if (type == 0)		/* all zeros: nothing to wipe */
		return T13_ERR_EMPTY;
	*len = pos;
	return (int)type;
}

void
t13_rec_wipe(struct t13_rec *r)
{
	wipe(r, sizeof(*r));
}

static int
group_curve(int group)
{
	switch (group) {
	case GROUP_X25519:
		return BR_EC_curve25519;
	case GROUP_SECP256R1:
		return BR_EC_secp256r1;
	case GROUP_SECP384R1:
		return BR_EC_secp384r1;
	case GROUP_SECP521R1:
		return BR_EC_secp521r1;
	}
	return -1;
}

size_t
t13_kx_len(int group)
{
	switch (group) {
	case GROUP_X25519:
		return 32;
	case GROUP_SECP256R1:
		return 65;
	case GROUP_SECP384R1:
		return 97;
	}
	return 133;
}

size_t
t13_kx_load(struct t13_kx *kx, int group, const unsigned char *sk,
    size_t sklen, unsigned char *pub, size_t cap)
{
	int curve = group_curve(group);

	if (curve < 0 || sklen == 0 || sklen > sizeof(kx->sk) ||
	    cap < t13_kx_len(group))
		return 0;
	kx->group = group;
	kx->sklen = sklen;
	memcpy(kx->sk, sk, sklen);
	return br_ec_get_default()->mulgen(pub, kx->sk, sklen, curve);
}

size_t
t13_kx_gen(struct t13_kx *kx, int group, const br_prng_class **rng,
    unsigned char *pub, size_t cap)
{
	unsigned char k[sizeof(kx->sk)];
	int curve = group_curve(group);
	size_t n, klen;

	/* Uniform in [1, order - 1]; X25519 clamps what it gets. */
	if (curve < 0 ||
	    (klen = br_ec_keygen(rng, br_ec_get_default(), NULL, k, curve)) == 0)
		return 0;
	n = t13_kx_load(kx, group, k, klen, pub, cap);
	wipe(k, sizeof(k));
	return n;
}

size_t
t13_kx_shared(const struct t13_kx *kx, const unsigned char *peer,
    size_t peerlen, unsigned char *out)
{
	const br_ec_impl *ec = br_ec_get_default();
	unsigned char p[T13_KX_PUB_MAX];
	size_t xoff = 0, xlen = 32;
	int curve = group_curve(kx->group);
	uint32_t ok, z = 0;

	if (curve < 0 || peerlen != t13_kx_len(kx->group))
		return 0;
	memcpy(p, peer, peerlen);
	if (kx->group == GROUP_X25519) {
		ok = ec->mul(p, 32, kx->sk, kx->sklen, curve);
		/* A small-order share gives zero: refuse it, no branch. */
		for (size_t i = 0; i < 32; i++)
			z |= p[i];
		ok &= (z + 0xFF) >> 8;
	} else {
		/* mul() checks the point's form and that it is on the curve. */
		ok = peer[0] == 4 && ec->mul(p, peerlen, kx->sk, kx->sklen,
		    curve);
		xoff = ec->xoff(curve, &xlen);
	}
	if (ok)
		memcpy(out, p + xoff, xlen);
	wipe(p, sizeof(p));
	return ok ? xlen : 0;
}

void
t13_kx_wipe(struct t13_kx *kx)
{
	wipe(kx, sizeof(*kx));
}

/* buf ^= MGF1(seed, len) (RFC 8017 B.2.1). */
static void
mgf1_xor(const br_hash_class *dig, const unsigned char *seed, size_t slen,
    unsigned char *buf, size_t len)
{
	br_hash_compat_context h;
	unsigned char t[HASH_ANY_MAX], c[4];
	size_t hlen = hash_len(dig);
	uint32_t ctr = 0;

	for (size_t u = 0; u < len; u += hlen, ctr++) {
		c[0] = (unsigned char)(ctr >> 24);
		c[1] = (unsigned char)(ctr >> 16);
		c[2] = (unsigned char)(ctr >> 8);
		c[3] = (unsigned char)ctr;
		dig->init(&h.vtable);
		dig->update(&h.vtable, seed, slen);
		dig->update(&h.vtable, c, 4);
		dig->out(&h.vtable, t);
		for (size_t v = 0; v < hlen && u + v < len; v++)
			buf[u + v] ^= t[v];
	}
}

/* H = Hash(8 zeros || mHash || salt), salt of the hash's length. */
static void
pss_hash(const br_hash_class *dig, const unsigned char *mhash,
    const unsigned char *salt, unsigned char *out)
{
	static const unsigned char zero[8];
	br_hash_compat_context h;
	size_t hlen = hash_len(dig);

	dig->init(&h.vtable);
	dig->update(&h.vtable, zero, 8);
	dig->update(&h.vtable, mhash, hlen);
	dig->update(&h.vtable, salt, hlen);
	dig->out(&h.vtable, out);
}

/*
 * EMSA-PSS-ENCODE with emBits = modBits - 1 into the modulus-long `sig`
 * (one leading zero byte when modBits = 8k + 1), then the private-key
 * operation.  EM = maskedDB || H || 0xbc, DB = zeros || 1 || salt.
 */
size_t
t13_pss_sign(const br_hash_class *dig, const br_rsa_private_key *sk,
    const unsigned char *mhash, const br_prng_class **rng,
    unsigned char *sig, size_t cap)
{
	unsigned char salt[HASH_ANY_MAX], *em;
	size_t hlen = hash_len(dig), k = (sk->n_bitlen + 7) >> 3;
	size_t embits = sk->n_bitlen - 1, emlen = (embits + 7) >> 3, dblen;
	uint32_t ok;

	if (sk->n_bitlen < 2 || k > cap || emlen < 2 * hlen + 2)
		return 0;
	sig[0] = 0;
	em = sig + (k - emlen);
	dblen = emlen - hlen - 1;
	(*rng)->generate(rng, salt, hlen);
	memset(em, 0, dblen - hlen - 1);
	em[dblen - hlen - 1] = 1;
	memcpy(em + dblen - hlen, salt, hlen);
	pss_hash(dig, mhash, salt, em + dblen);
	mgf1_xor(dig, em + dblen, hlen, em, dblen);
	em[0] &= (unsigned char)(0xFF >> (8 * emlen - embits));
	em[emlen - 1] = 0xBC;
	ok = br_rsa_private_get_default()(sig, sk);
	wipe(salt, sizeof(salt));
	if (!ok) {
		wipe(sig, k);
		return 0;
	}
	return k;
}

/* EMSA-PSS-VERIFY (RFC 8017 9.1.2); all of it is public. */
int
t13_pss_verify(const br_hash_class *dig, const br_rsa_public_key *pk,
    const unsigned char *mhash, const unsigned char *sig, size_t siglen)
{
	unsigned char x[SIG_LEN_MAX], h[HASH_ANY_MAX], *em;
	const unsigned char *n = pk->n;
	size_t nlen = pk->nlen, hlen = hash_len(dig), embits, emlen, dblen;
	unsigned top;

	while (nlen > 0 && *n == 0) {
		n++;
		nlen--;
	}
	if (nlen == 0 || siglen != nlen || nlen > sizeof(x))
		return 0;
	embits = 8 * nlen - 1;
	for (top = n[0]; (top & 0x80) == 0; top <<= 1)
		embits--;
	emlen = (embits + 7) >> 3;
	if (emlen < 2 * hlen + 2)
		return 0;
	memcpy(x, sig, nlen);
	if (!br_rsa_public_get_default()(x, nlen, pk))
		return 0;
	em = x + (nlen - emlen);
	dblen = emlen - hlen - 1;
	top = 0xFF >> (8 * emlen - embits);
	if ((nlen > emlen && x[0] != 0) || em[emlen - 1] != 0xBC ||
	    (em[0] & ~top) != 0)
		return 0;
	mgf1_xor(dig, em + dblen, hlen, em, dblen);
	em[0] &= (unsigned char)top;
	for (size_t i = 0; i < dblen - hlen - 1; i++)
		if (em[i] != 0)
			return 0;
	if (em[dblen - hlen - 1] != 1)
		return 0;
	pss_hash(dig, mhash, em + dblen - hlen, h);
	return ct_eq(h, em + dblen, hlen);
}

/*
 * The signature schemes: hash, and the curve an ECDSA scheme is bound
 * to in TLS 1.3 (-1 for RSA-PSS).
 */
static const struct scheme {
	int			id, curve;
	const br_hash_class	*dig;
} schemes[] = {
	{ SIG_ECDSA_SECP256R1_SHA256, BR_EC_secp256r1, &br_sha256_vtable },
	{ SIG_ECDSA_SECP384R1_SHA384, BR_EC_secp384r1, &br_sha384_vtable },
	{ SIG_ECDSA_SECP521R1_SHA512, BR_EC_secp521r1, &br_sha512_vtable },
	{ SIG_RSA_PSS_RSAE_SHA256, -1, &br_sha256_vtable },
	{ SIG_RSA_PSS_RSAE_SHA384, -1, &br_sha384_vtable },
	{ SIG_RSA_PSS_RSAE_SHA512, -1, &br_sha512_vtable },
};

static const struct scheme *
scheme_find(int id)
{
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (schemes[i].id == id)
			return &schemes[i];
	return NULL;
}

size_t
t13_cv_hash(int scheme, int server, const unsigned char *thash, size_t thlen,
    unsigned char *out)
{
	/* sizeof counts the NUL, which is the 0 separator of 4.4.3. */
	static const char sctx[] = "TLS 1.3, server CertificateVerify";
	static const char cctx[] = "TLS 1.3, client CertificateVerify";
	const struct scheme *sc = scheme_find(scheme);
	const br_hash_class *dig;
	br_hash_compat_context h;
	unsigned char sp[64];

	if (sc == NULL)
		return 0;
	dig = sc->dig;
	memset(sp, 0x20, sizeof(sp));
	dig->init(&h.vtable);
	dig->update(&h.vtable, sp, sizeof(sp));
	dig->update(&h.vtable, server ? sctx : cctx, sizeof(sctx));
	dig->update(&h.vtable, thash, thlen);
	dig->out(&h.vtable, out);
	return hash_len(dig);
}

size_t
t13_cv_sign(int scheme, int server, const unsigned char *thash, size_t thlen,
    const br_ec_private_key *ec, const br_rsa_private_key *rsa,
    const br_prng_class **rng, unsigned char *sig, size_t cap)
{
	const struct scheme *sc = scheme_find(scheme);
	unsigned char h[HASH_ANY_MAX];

	if (sc == NULL)
		return 0;
	t13_cv_hash(scheme, server, thash, thlen, h);
	if (sc->curve >= 0) {
		/* 139 bytes: the longest DER signature (P-521). */
		if (ec == NULL || ec->curve != sc->curve || cap < 139)
			return 0;
		return tg_ecdsa_sign_asn1(br_ec_get_default(), sc->dig, h, ec,
		    sig);
	}
	if (rsa == NULL)
		return 0;
	return t13_pss_sign(sc->dig, rsa, h, rng, sig, cap);
}

int
t13_cv_fits(int scheme, const br_x509_pkey *pk)
{
	const struct scheme *sc = scheme_find(scheme);

	if (sc == NULL)
		return 0;
	return sc->curve >= 0 ? pk->key_type == BR_KEYTYPE_EC &&
	    pk->key.ec.curve == sc->curve : pk->key_type == BR_KEYTYPE_RSA;
}

int
t13_cv_verify(int scheme, int server, const unsigned char *thash,
    size_t thlen, const br_x509_pkey *pk, const unsigned char *sig,
    size_t siglen)
{
	const struct scheme *sc = scheme_find(scheme);
	unsigned char h[HASH_ANY_MAX];
	size_t hlen;

	if (!t13_cv_fits(scheme, pk))
		return 0;
	hlen = t13_cv_hash(scheme, server, thash, thlen, h);
	if (sc->curve >= 0)
		return (int)br_ecdsa_vrfy_asn1_get_default()(
		    br_ec_get_default(), h, hlen, &pk->key.ec, sig, siglen);
	return t13_pss_verify(sc->dig, &pk->key.rsa, h, sig, siglen);
}
