/* SPDX-License-Identifier: ISC */
/*
 * kdf.c - the key schedule and the transcript hash (see tlscrypto.h).
 *
 * HKDF is written over br_hmac_* rather than br_hkdf_*: BearSSL's HKDF
 * keeps its PRK inside its context and cannot expand from a secret it is
 * given, which is all TLS 1.3 ever does.  Every TLS 1.3 expansion is at
 * most one hash long, so HKDF-Expand is a single HMAC over the
 * HkdfLabel and the counter byte 1.  The transcript serves TLS 1.2's
 * Finished too.
 */
#include <string.h>
#include <bearssl.h>

#include "tlscrypto.h"

const br_hash_class *
ks_suite_hash(int suite)
{
	int k;
	const struct tls_suite *s = tls_suite_find((unsigned)suite, &k);

	if (s == NULL || k != TS_13)
		return NULL;
	return s->hash == br_sha384_ID ? &br_sha384_vtable : &br_sha256_vtable;
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

/*
 * HKDF-Extract (RFC 5869 2.2) with a salt of the hash's length, as TLS
 * 1.3's are; a NULL salt or ikm is hash-length zeros.
 */
static void
hkdf_extract(const br_hash_class *dig, const void *salt, const void *ikm,
    size_t ikmlen, unsigned char *out)
{
	static const unsigned char zero[HASH_MAX];
	size_t hlen = hash_len(dig);

	hmac(dig, salt != NULL ? salt : zero, hlen, ikm != NULL ? ikm : zero,
	    ikm != NULL ? ikmlen : hlen, out);
}

/*
 * HKDF-Expand-Label: T(1) = HMAC(secret, HkdfLabel || 0x01), where
 * HkdfLabel = uint16 length, opaque "tls13 " + label<7..255>,
 * opaque context<0..255>.  Labels are this module's constants and
 * contexts are hashes or ticket nonces, so both fit their length byte;
 * outlen is at most the hash's length.
 */
static void
expand_label(const br_hash_class *dig, const unsigned char *secret,
    const char *label, const void *ctx, size_t ctxlen, unsigned char *out,
    size_t outlen)
{
	unsigned char info[2 + 1 + 255 + 1 + 255 + 1], t[HASH_MAX];
	size_t llen = strlen(label);

	info[0] = (unsigned char)(outlen >> 8);
	info[1] = (unsigned char)outlen;
	info[2] = (unsigned char)(6 + llen);
	memcpy(info + 3, "tls13 ", 6);
	memcpy(info + 9, label, llen);
	info[9 + llen] = (unsigned char)ctxlen;
	if (ctxlen > 0)
		memcpy(info + 10 + llen, ctx, ctxlen);
	info[10 + llen + ctxlen] = 1;
	hmac(dig, secret, hash_len(dig), info, 11 + llen + ctxlen, t);
	memcpy(out, t, outlen);
	wipe(t, sizeof(t));
}

void
th_init(struct th *t, const br_hash_class *dig)
{
	dig->init(&t->h.vtable);
	t->hlen = hash_len(dig);
}

void
th_add(struct th *t, const void *msg, size_t len)
{
	t->h.vtable->update(&t->h.vtable, msg, len);
}

/* BearSSL's out() leaves the running hash as it was (bearssl_hash.h). */
size_t
th_hash(const struct th *t, unsigned char *out)
{
	t->h.vtable->out(&t->h.vtable, out);
	return t->hlen;
}

/* message_hash (254), uint24 length, Hash(ClientHello1) (4.4.1). */
void
th_hrr(struct th *t)
{
	unsigned char m[4 + HASH_MAX];

	m[0] = 254;
	m[1] = 0;
	m[2] = 0;
	m[3] = (unsigned char)t->hlen;
	th_hash(t, m + 4);
	t->h.vtable->init(&t->h.vtable);
	th_add(t, m, 4 + t->hlen);
}

void
ks_early(struct ks *ks, const br_hash_class *dig, const void *psk,
    size_t psklen)
{
	ks->dig = dig;
	ks->hlen = hash_len(dig);
	hkdf_extract(dig, NULL, psk, psklen, ks->secret);
}

/*
 * Derive-Secret(secret, "derived", "") then Extract with the DHE; with
 * none (NULL), hash-length zeros: the master secret.
 */
void
ks_handshake(struct ks *ks, const void *dhe, size_t dhelen)
{
	unsigned char salt[HASH_MAX];

	ks_derive(ks, "derived", NULL, salt);
	hkdf_extract(ks->dig, salt, dhe, dhelen, ks->secret);
	wipe(salt, sizeof(salt));
}

void
ks_derive(const struct ks *ks, const char *label,
    const unsigned char *thash, unsigned char *out)
{
	br_hash_compat_context h;
	unsigned char empty[HASH_MAX];

	if (thash == NULL) {
		ks->dig->init(&h.vtable);
		ks->dig->out(&h.vtable, empty);
		thash = empty;
	}
	expand_label(ks->dig, ks->secret, label, thash, ks->hlen, out,
	    ks->hlen);
}

void
ks_wipe(struct ks *ks)
{
	wipe(ks, sizeof(*ks));
}

void
ks_finished(const br_hash_class *dig, const unsigned char *base,
    const unsigned char *thash, unsigned char *out)
{
	unsigned char fk[HASH_MAX];
	size_t hlen = hash_len(dig);

	expand_label(dig, base, "finished", NULL, 0, fk, hlen);
	hmac(dig, fk, hlen, thash, hlen, out);
	wipe(fk, sizeof(fk));
}

void
ks_ticket_psk(const br_hash_class *dig, const unsigned char *res,
    const void *nonce, size_t noncelen, unsigned char *out)
{
	expand_label(dig, res, "resumption", nonce, noncelen, out,
	    hash_len(dig));
}

void
ks_next_secret(const br_hash_class *dig, unsigned char *secret)
{
	expand_label(dig, secret, "traffic upd", NULL, 0, secret,
	    hash_len(dig));
}

void
ks_traffic_keys(const br_hash_class *dig, const unsigned char *secret,
    unsigned char *key, size_t keylen, unsigned char *iv)
{
	expand_label(dig, secret, "key", NULL, 0, key, keylen);
	expand_label(dig, secret, "iv", NULL, 0, iv, 12);
}
