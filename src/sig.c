/* SPDX-License-Identifier: ISC */
/*
 * sig.c - CertificateVerify and EMSA-PSS, which BearSSL 0.6 lacks (see
 * tlscrypto.h).
 */
#include <string.h>
#include <bearssl.h>

#include "ecdsa.h"
#include "precomp.h"
#include "prim.h"
#include "tlscrypto.h"

#define HASH_ANY_MAX	64		/* SHA-512, for signatures */

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

/*
 * H = Hash(8 zeros || mHash || salt) (RFC 8017 9.1.1 steps 5-6), the
 * salt as long as the hash: RFC 8446 4.2.3 requires it for TLS 1.3.
 */
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
 * Returns the signature's length (the modulus's) or 0.
 */
static size_t
sig_pss_sign(const br_hash_class *dig, const br_rsa_private_key *sk,
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
	/* 9.1.1 steps 4, 7-8: a random salt, then DB = PS || 0x01 || salt. */
	(*rng)->generate(rng, salt, hlen);
	memset(em, 0, dblen - hlen - 1);
	em[dblen - hlen - 1] = 1;
	memcpy(em + dblen - hlen, salt, hlen);
	pss_hash(dig, mhash, salt, em + dblen);
	/* Steps 9-12: mask DB with MGF1(H), clear the bits past emBits. */
	mgf1_xor(dig, em + dblen, hlen, em, dblen);
	em[0] &= (unsigned char)(0xFF >> (8 * emlen - embits));
	em[emlen - 1] = 0xBC;
	ok = br_rsa_private_get_default()(sig, sk);
	ct_public(&ok, sizeof(ok));	/* the signature, made to be sent */
	ct_public(sig, k);
	wipe(salt, sizeof(salt));
	if (!ok) {
		wipe(sig, k);
		return 0;
	}
	return k;
}

/* EMSA-PSS-VERIFY (RFC 8017 9.1.2); all of it is public. */
int
sig_pss_verify(const br_hash_class *dig, const br_rsa_public_key *pk,
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
	/* 9.1.2 steps 4 and 6: the 0xbc trailer, the bits past emBits 0. */
	if ((nlen > emlen && x[0] != 0) || em[emlen - 1] != 0xBC ||
	    (em[0] & ~top) != 0)
		return 0;
	mgf1_xor(dig, em + dblen, hlen, em, dblen);
	em[0] &= (unsigned char)top;
	/* Step 10: PS all zeros, then 0x01; the salt length is fixed. */
	for (size_t i = 0; i < dblen - hlen - 1; i++)
		if (em[i] != 0)
			return 0;
	if (em[dblen - hlen - 1] != 1)
		return 0;
	pss_hash(dig, mhash, em + dblen - hlen, h);
	return ct_eq(h, em + dblen, hlen);
}

const struct tls_sig *
sig_scheme(unsigned code, int v13)
{
	const struct tls_sig *s = tls_sig(code);

	return s != NULL && (v13 ? s->v13 : s->kind != 0) ? s : NULL;
}

/*
 * RFC 8446 4.4.3: what a CertificateVerify signs is 64 spaces, the
 * context string, a 0 byte, then the transcript hash; the spaces and
 * the string keep a TLS 1.3 signature from being taken for a 1.2 one
 * or for the other side's.
 */
size_t
sig_cv_hash(int scheme, int server, const unsigned char *thash, size_t thlen,
    unsigned char *out)
{
	/* sizeof counts the NUL, which is the 0 separator of 4.4.3. */
	static const char sctx[] = "TLS 1.3, server CertificateVerify";
	static const char cctx[] = "TLS 1.3, client CertificateVerify";
	const struct tls_sig *sc = sig_scheme((unsigned)scheme, 1);
	const br_hash_class *dig;
	br_hash_compat_context h;
	unsigned char sp[64];

	if (sc == NULL)
		return 0;
	dig = hash_class(sc->hash);
	memset(sp, 0x20, sizeof(sp));
	dig->init(&h.vtable);
	dig->update(&h.vtable, sp, sizeof(sp));
	dig->update(&h.vtable, server ? sctx : cctx, sizeof(sctx));
	dig->update(&h.vtable, thash, thlen);
	dig->out(&h.vtable, out);
	return hash_len(dig);
}

size_t
sig_sign(const struct tls_sig *s, const unsigned char *hv,
    const br_ec_private_key *ec, const br_rsa_private_key *rsa,
    const br_prng_class **rng, unsigned char *sig, size_t cap)
{
	const br_hash_class *dig = hash_class(s->hash);
	size_t n;

	if (s->kind == SIG_ECDSA)
		return ec == NULL || cap < TG_ECDSA_SIG_MAX ? 0 :
		    precomp_ecdsa_sign(prim_get()->ec, dig, hv, ec, sig);
	if (rsa == NULL)
		return 0;
	if (s->kind == SIG_PSS)
		return sig_pss_sign(dig, rsa, hv, rng, sig, cap);
	/* RSASSA-PKCS1-v1_5 (RFC 8017 8.2), TLS 1.2 only (the registry). */
	n = (rsa->n_bitlen + 7) / 8;
	return cap >= n && br_rsa_pkcs1_sign_get_default()(s->oid, hv,
	    hash_len(dig), rsa, sig) ? n : 0;
}

int
sig_verify(const struct tls_sig *s, const unsigned char *hv, size_t hlen,
    const br_x509_pkey *pk, const unsigned char *sig, size_t siglen)
{
	unsigned char out[64];

	if (pk->key_type != (s->kind == SIG_ECDSA ? BR_KEYTYPE_EC :
	    BR_KEYTYPE_RSA))
		return 0;
	if (s->kind == SIG_ECDSA)
		return (int)br_ecdsa_vrfy_asn1_get_default()(prim_get()->ec, hv,
		    hlen, &pk->key.ec, sig, siglen);
	if (s->kind == SIG_PSS)
		return sig_pss_verify(hash_class(s->hash), &pk->key.rsa, hv,
		    sig, siglen);
	/* BearSSL recovers the hash from the signature; we compare it. */
	return br_rsa_pkcs1_vrfy_get_default()(sig, siglen, s->oid, hlen,
	    &pk->key.rsa, out) && ct_eq(out, hv, hlen);
}

size_t
sig_cv_sign(int scheme, int server, const unsigned char *thash, size_t thlen,
    const br_ec_private_key *ec, const br_rsa_private_key *rsa,
    const br_prng_class **rng, unsigned char *sig, size_t cap)
{
	const struct tls_sig *sc = sig_scheme((unsigned)scheme, 1);
	unsigned char h[HASH_ANY_MAX];

	/* TLS 1.3's ECDSA schemes name the curve too (RFC 8446 4.2.3). */
	if (sc == NULL || (ec != NULL && ec->curve != sc->curve &&
	    sc->kind == SIG_ECDSA))
		return 0;
	sig_cv_hash(scheme, server, thash, thlen, h);
	return sig_sign(sc, h, ec, rsa, rng, sig, cap);
}

int
sig_cv_fits(int scheme, const br_x509_pkey *pk)
{
	const struct tls_sig *sc = sig_scheme((unsigned)scheme, 1);

	if (sc == NULL)
		return 0;
	return sc->kind == SIG_ECDSA ? pk->key_type == BR_KEYTYPE_EC &&
	    pk->key.ec.curve == sc->curve : pk->key_type == BR_KEYTYPE_RSA;
}

int
sig_cv_verify(int scheme, int server, const unsigned char *thash,
    size_t thlen, const br_x509_pkey *pk, const unsigned char *sig,
    size_t siglen)
{
	const struct tls_sig *sc = sig_scheme((unsigned)scheme, 1);
	unsigned char h[HASH_ANY_MAX];
	size_t hlen;

	if (!sig_cv_fits(scheme, pk))
		return 0;
	hlen = sig_cv_hash(scheme, server, thash, thlen, h);
	return sig_verify(sc, h, hlen, pk, sig, siglen);
}
