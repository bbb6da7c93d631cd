/* SPDX-License-Identifier: ISC */
/*
 * tlscrypto.h - the cryptography of TLS 1.2 and 1.3 over BearSSL 0.6's
 * public primitives, one mechanism a file, one prefix a file:
 *
 *   kdf.c      HKDF-Extract / HKDF-Expand-Label / Derive-Secret (RFC 8446
 *              7.1) and the key schedule (ks_), the transcript hash with
 *              its HelloRetryRequest rewrite (4.4.1; th_), Finished and
 *              PSK binders (4.4.4, 4.2.11.2), traffic keys (7.3)
 *   recprot.c  record protection per direction (rp_): TLS 1.3's (5.2-5.4)
 *              and TLS 1.2's AEAD records (RFC 5246 6.2.3.3, RFC 5288,
 *              RFC 7905)
 *   kx.c       ECDHE shares (kx_): X25519, P-256, P-384, P-521 (4.2.8, 7.4;
 *              RFC 8422)
 *   sig.c      the CertificateVerify content and its signatures (4.4.3;
 *              sig_), including EMSA-PSS (RFC 8017 9.1), which BearSSL 0.6
 *              lacks
 *
 * Never: allocates, does I/O, keeps global state, knows about records in
 * flight, handshake states or configuration.  Every function works on
 * the caller's fixed-size structs; every struct that holds a secret has
 * a wipe call, and secrets on the stack are wiped before return.
 *
 * Constant time: tags, Finished and binders are compared with ct_eq;
 * the padding strip reads the whole record; the X25519 zero check does
 * not branch on the secret.  RSA-PSS encoding has no secret-dependent
 * branch (the salt is random, the hash is public).  PKCS#1 v1.5 is not
 * offered anywhere here: TLS 1.3 forbids it in CertificateVerify.
 *
 * Hash functions are BearSSL's classes (br_sha256_vtable or
 * br_sha384_vtable); HASH_MAX bounds every hash and secret.
 */
#ifndef TLSGATE_TLSCRYPTO_H
#define TLSGATE_TLSCRYPTO_H

#include <stddef.h>
#include <stdint.h>
#include <bearssl.h>

#include "tlswire.h"	/* SUITE_*, GROUP_*, SIG_* */
#include "ct.h"
#include "wipe.h"

/* A BearSSL hash class's output length. */
static inline size_t
hash_len(const br_hash_class *dig)
{
	return (size_t)(dig->desc >> BR_HASHDESC_OUT_OFF) &
	    BR_HASHDESC_OUT_MASK;
}

/* A BearSSL hash class's ID (br_sha256_ID...), as the registries name it. */
static inline int
hash_id(const br_hash_class *dig)
{
	return (int)(dig->desc >> BR_HASHDESC_ID_OFF) & BR_HASHDESC_ID_MASK;
}

/* The class of a hash ID among those signatures use; NULL otherwise. */
static inline const br_hash_class *
hash_class(int id)
{
	switch (id) {
	case br_sha1_ID:	return &br_sha1_vtable;
	case br_sha224_ID:	return &br_sha224_vtable;
	case br_sha256_ID:	return &br_sha256_vtable;
	case br_sha384_ID:	return &br_sha384_vtable;
	case br_sha512_ID:	return &br_sha512_vtable;
	default:		return NULL;
	}
}

#define HASH_MAX	48		/* SHA-384 */

/* Record protection. */
#define RP_TAG_LEN	16
#define RP_PLAIN_MAX	16384		/* 2^14: content of one record */
#define RP_CIPHER_MAX	(16384 + 256)	/* TLSCiphertext.length */
#define RP_OVERHEAD13 (5 + 1 + RP_TAG_LEN)	/* header, type, tag */

/* rp_open() errors, each with the alert the caller sends. */
#define RP_ERR_MAC	(-1)	/* bad_record_mac (20) */
#define RP_ERR_OVERFLOW (-2)	/* record_overflow (22) */
#define RP_ERR_EMPTY	(-3)	/* unexpected_message (10): no type */
#define RP_ERR_SEQ	(-4)	/* sequence number exhausted: close */

/* Largest CertificateVerify signature: RSA-4096. */
#define SIG_LEN_MAX	512

/* The hash of a TLS 1.3 suite (SHA-256 or SHA-384), else NULL. */
const br_hash_class *ks_suite_hash(int suite);

/*
 * The transcript hash (4.4.1).  th_hash() gives the hash of everything
 * added so far and leaves the running hash as it was, so it can be taken
 * at every point the key schedule needs.  th_hrr() replaces the hash of
 * ClientHello1 by the synthetic message_hash message, before
 * HelloRetryRequest is added.
 */
struct th {
	br_hash_compat_context	h;
	size_t			hlen;
};
void	th_init(struct th *t, const br_hash_class *dig);
void	th_add(struct th *t, const void *msg, size_t len);
size_t	th_hash(const struct th *t, unsigned char *out);
void	th_hrr(struct th *t);

/*
 * The key schedule (7.1).  `secret` is the current stage: the early
 * secret after ks_early(), the handshake secret after ks_handshake(),
 * the master secret after ks_handshake() again with NULL (hash-length
 * zeros).  ks_derive() is Derive-Secret from the current stage, with the
 * labels, without the "tls13 " prefix, "res binder" / "ext binder"
 * (early), "c hs traffic" / "s hs traffic" (handshake), "c ap traffic"
 * / "s ap traffic" / "res master" (master).  A NULL `thash` stands for
 * the hash of no messages, as the binder keys take.
 */
struct ks {
	const br_hash_class	*dig;
	size_t			hlen;
	unsigned char		secret[HASH_MAX];
};
/* PSK NULL: no PSK (hash-length zeros). */
void	ks_early(struct ks *ks, const br_hash_class *dig,
	    const void *psk, size_t psklen);
void	ks_handshake(struct ks *ks, const void *dhe, size_t dhelen);
void	ks_derive(const struct ks *ks, const char *label,
	    const unsigned char *thash, unsigned char *out);
void	ks_wipe(struct ks *ks);

/*
 * Finished verify_data (4.4.4) from a base key (a handshake traffic
 * secret, or a binder key for a PSK binder) and a transcript hash.
 */
void	ks_finished(const br_hash_class *dig, const unsigned char *base,
	    const unsigned char *thash, unsigned char *out);

/* The ticket PSK from the resumption master secret and ticket_nonce. */
void	ks_ticket_psk(const br_hash_class *dig, const unsigned char *res,
	    const void *nonce, size_t noncelen, unsigned char *out);

/* application_traffic_secret_N+1, in place (7.2). */
void	ks_next_secret(const br_hash_class *dig, unsigned char *secret);

/* A traffic key (keylen bytes) and 12-byte IV from a traffic secret. */
void	ks_traffic_keys(const br_hash_class *dig, const unsigned char *secret,
	    unsigned char *key, size_t keylen, unsigned char *iv);

/*
 * Record protection in one direction.  rp_init() derives key and
 * IV from a traffic secret and sets the sequence number to 0; it returns
 * 0 for an unknown suite.  The struct points into itself: do not copy
 * it, init it again.
 *
 * rp_seal(): `rec` holds 5 bytes of room for the header, then `len`
 * bytes of content, and `cap` bytes in all.  Appends the inner type (no
 * padding), encrypts in place, writes the header (23, 0x0303, length)
 * and the tag.  Returns the record's length, or 0 if it does not fit in
 * `cap`, the inner plaintext would exceed 2^14 + 1 bytes, or the
 * sequence number is exhausted.
 *
 * rp_open(): `rec` is one whole record (header included, `reclen`
 * bytes) whose header length field the caller has checked against
 * `reclen`.  Decrypts in place; on success returns the inner content
 * type and sets *len to the content length (the content starts at
 * rec + 5, padding and type stripped).  On error returns a RP_ERR_*
 * and leaves no plaintext behind.
 */
struct rp {
	int			v12;		/* RFC 5288 / 7905 nonces */
	uint64_t		seq;
	unsigned char		iv[12];
	union {				/* ChaCha20's key, or AES's subkeys */
		unsigned char		key[32];
		br_aes_gen_ctr_keys	aes;
	};
	br_gcm_context		gcm;
	br_chacha20_run		chacha;		/* NULL: AES-GCM */
	br_poly1305_run		poly;
};
int	rp_init(struct rp *r, int suite, const unsigned char *secret);
/*
 * A record's header (RFC 8446 5.1, RFC 5246 6.2.1): type, 0x0303 (the
 * legacy version, TLS 1.2's), the length of what follows.
 */
static inline void
rp_header(unsigned char *rec, int type, size_t len)
{
	rec[0] = (unsigned char)type;
	rec[1] = 3;
	rec[2] = 3;
	rec[3] = (unsigned char)(len >> 8);
	rec[4] = (unsigned char)len;
}
size_t	rp_seal(struct rp *r, unsigned char *rec, size_t len,
	    size_t cap, int type);
int	rp_open(struct rp *r, unsigned char *rec, size_t reclen,
	    size_t *len);
void	rp_wipe(struct rp *r);

/*
 * The same AEADs with TLS 1.2's records (RFC 5246 6.2.3.3): the nonce
 * of RFC 5288 (a 4-byte salt and the 8-byte sequence number, sent
 * explicitly) for AES-GCM, of RFC 7905 (the 12-byte IV XOR the sequence
 * number) for ChaCha20-Poly1305; the AAD is the sequence number, type,
 * version and plaintext length.  rp_init12(): aead is the 1.3 code
 * of the same AEAD (SUITE_AES_128_GCM_SHA256 for AES-128-GCM...), key and
 * iv are from the key block (iv: 4 bytes for GCM, 12 for ChaCha20).
 * rp_seal12(): as rp_seal, but the content is at rec + rp_head12(),
 * after the room for the header and GCM's explicit nonce; the header's
 * type is `type` and there is no inner type.  rp_open12(): the content
 * type is the header's; returns it, or a RP_ERR_*; the content is left
 * at rec + rp_head12().  Staging the content there saves moving each
 * record by 8 bytes.
 */
int	rp_init12(struct rp *r, int aead, const unsigned char *key,
	    const unsigned char *iv);
size_t	rp_seal12(struct rp *r, unsigned char *rec, size_t len,
	    size_t cap, int type);
int	rp_open12(struct rp *r, unsigned char *rec, size_t reclen,
	    size_t *len);
/* The most TLS 1.2 adds to a record's content: explicit nonce, tag. */
#define RP_EXTRA12	(8 + RP_TAG_LEN)

/* Where a TLS 1.2 record's content starts: header, explicit nonce. */
static inline size_t
rp_head12(const struct rp *r)
{
	return r->chacha != NULL ? 5 : 5 + 8;
}

/*
 * ECDHE (4.2.8, 7.4).  kx_gen() draws a private key from `rng`,
 * kx_load() takes one from the caller (tests); both write the public
 * share (32 bytes for X25519, an uncompressed point of 65, 97 or 133
 * bytes for P-256, P-384, P-521; the last two for TLS 1.2 only) and
 * return its length, or 0 for an unknown group or a short `cap`.
 * kx_shared() checks the peer's share and writes the shared secret
 * (X25519's or the point's X: 32, 48 or 66 bytes), returning its
 * length; 0 if the share has the wrong length or form, is not on the
 * curve, or gives the all-zero X25519 secret (RFC 7748 6.1).
 */
struct kx {
	int			group;
	size_t			sklen;
	unsigned char		sk[66];
};
/* The longest share: an uncompressed P-521 point. */
#define KX_PUB_MAX	133
/* The longest shared secret: P-521's X. */
#define KX_SHARED_MAX 66
size_t	kx_gen(struct kx *kx, int group, const br_prng_class **rng,
	    unsigned char *pub, size_t cap);
size_t	kx_load(struct kx *kx, int group, const unsigned char *sk,
	    size_t sklen, unsigned char *pub, size_t cap);
size_t	kx_shared(const struct kx *kx, const unsigned char *peer,
	    size_t peerlen, unsigned char *out);
void	kx_wipe(struct kx *kx);

/*
 * A signature of scheme s (the registry's) over hv, the hash of what is
 * signed: ECDSA (ASN.1 DER), RSA-PSS, or PKCS#1 v1.5, which only TLS 1.2
 * schemes name.  sig_sign() returns the signature's length, 0 if the
 * key of the scheme's kind is NULL, `cap` is short or the private
 * operation fails; sig_verify() 1 if `pk` is of the scheme's key type
 * and the signature is valid, 0 otherwise.
 */
size_t	sig_sign(const struct tls_sig *s, const unsigned char *hv,
	    const br_ec_private_key *ec, const br_rsa_private_key *rsa,
	    const br_prng_class **rng, unsigned char *sig, size_t cap);
int	sig_verify(const struct tls_sig *s, const unsigned char *hv,
	    size_t hlen, const br_x509_pkey *pk, const unsigned char *sig,
	    size_t siglen);
/* A scheme tlsgate signs and checks with at TLS 1.3 (v13) or 1.2. */
const struct tls_sig *sig_scheme(unsigned code, int v13);

/*
 * CertificateVerify (4.4.3).  sig_cv_hash() hashes the signed content
 * (64 spaces, the server's or client's context string, 0, the
 * transcript hash) with the scheme's hash; it returns that hash's
 * length, 0 for an unknown scheme.
 *
 * sig_cv_sign() and sig_cv_verify() are sig_sign() and sig_verify()
 * over that hash, for TLS 1.3's schemes alone; an ECDSA key must be on
 * the scheme's curve.
 * sig_cv_fits(): 1 if `pk` may sign with `scheme` at all (RSA-PSS for
 * an RSA key, ECDSA on the key's own curve), 0 otherwise.
 */
size_t	sig_cv_hash(int scheme, int server, const unsigned char *thash,
	    size_t thlen, unsigned char *out);
size_t	sig_cv_sign(int scheme, int server, const unsigned char *thash,
	    size_t thlen, const br_ec_private_key *ec,
	    const br_rsa_private_key *rsa, const br_prng_class **rng,
	    unsigned char *sig, size_t cap);
int	sig_cv_verify(int scheme, int server, const unsigned char *thash,
	    size_t thlen, const br_x509_pkey *pk, const unsigned char *sig,
	    size_t siglen);
int	sig_cv_fits(int scheme, const br_x509_pkey *pk);

/*
 * EMSA-PSS verification (RFC 8017 9.1.2) with MGF1 over the same hash and
 * a salt of the hash's length, over a message hash `mhash`: 1 or 0.
 * sig_sign() signs so for the RSA-PSS schemes.
 */
int	sig_pss_verify(const br_hash_class *dig, const br_rsa_public_key *pk,
	    const unsigned char *mhash, const unsigned char *sig,
	    size_t siglen);

#endif
