/* SPDX-License-Identifier: ISC */
/*
 * tlswire.c - see tlswire.h.
 */
#include <string.h>

#include "tlswire.h"

#define SHA1	br_sha1_ID
#define SHA224	br_sha224_ID
#define SHA256	br_sha256_ID
#define SHA384	br_sha384_ID
#define SHA512	br_sha512_ID
#define P256	BR_EC_secp256r1
#define P384	BR_EC_secp384r1
#define P521	BR_EC_secp521r1
#define C25519	BR_EC_curve25519

const struct tls_sig tls_sigs[] = {
	{ SIG_ECDSA_SECP256R1_SHA256, SIG_ECDSA, SHA256, P256, 1, NULL },
	{ SIG_ECDSA_SECP384R1_SHA384, SIG_ECDSA, SHA384, P384, 1, NULL },
	{ SIG_ECDSA_SECP521R1_SHA512, SIG_ECDSA, SHA512, P521, 1, NULL },
	{ SIG_RSA_PSS_RSAE_SHA256, SIG_PSS, SHA256, 0, 1, NULL },
	{ SIG_RSA_PSS_RSAE_SHA384, SIG_PSS, SHA384, 0, 1, NULL },
	{ SIG_RSA_PSS_RSAE_SHA512, SIG_PSS, SHA512, 0, 1, NULL },
	/* RSASSA-PSS keys (RFC 8446 4.2.3): read in hellos, never used. */
	{ SIG_RSA_PSS_PSS_SHA256, 0, SHA256, 0, 0, NULL },
	{ SIG_RSA_PSS_PSS_SHA384, 0, SHA384, 0, 0, NULL },
	{ SIG_RSA_PSS_PSS_SHA512, 0, SHA512, 0, 0, NULL },
	/* TLS 1.2 only; SHA-1 only for a hello without the extension. */
	{ SIG_RSA_PKCS1_SHA256, SIG_PKCS1, SHA256, 0, 0, BR_HASH_OID_SHA256 },
	{ SIG_RSA_PKCS1_SHA384, SIG_PKCS1, SHA384, 0, 0, BR_HASH_OID_SHA384 },
	{ SIG_RSA_PKCS1_SHA512, SIG_PKCS1, SHA512, 0, 0, BR_HASH_OID_SHA512 },
	{ SIG_RSA_PKCS1_SHA1, SIG_PKCS1, SHA1, 0, 0, BR_HASH_OID_SHA1 },
	{ SIG_ECDSA_SHA1, SIG_ECDSA, SHA1, 0, 0, NULL },
	{ SIG_ECDSA_SHA224, SIG_ECDSA, SHA224, 0, 0, NULL },
	{ SIG_RSA_PKCS1_SHA224, SIG_PKCS1, SHA224, 0, 0, BR_HASH_OID_SHA224 },
};
const size_t tls_nsigs = sizeof(tls_sigs) / sizeof(tls_sigs[0]);

const struct tls_sig *
tls_sig(unsigned code)
{
	for (size_t i = 0; i < tls_nsigs; i++)
		if (tls_sigs[i].code == code)
			return &tls_sigs[i];
	return NULL;
}

/*
 * bsi: BSI TR-02102-2 lists the NIST curves, not X25519; modern:
 * Mozilla's, without secp521r1; cnsa2: CNSA 2.0 (and 1.0's P-384 while
 * its transition lasts), nothing weaker.
 */
const struct tls_group tls_groups[] = {
#ifndef TLSGATE_NO_MLKEM
	/*
	 * draft-ietf-tls-ecdhe-mlkem (hybrid.h): ML-KEM-768's key then
	 * X25519's; P-256's point then ML-KEM-768's key; P-384's then
	 * ML-KEM-1024's.  The key is checked (FIPS 203 7.2) and the point
	 * put on its curve when used.  First: post-quantum wins, where the
	 * client sent the share.  bsi: TR-02102-1 wants ML-KEM in a hybrid
	 * with a classical scheme TR-02102-2 lists (secp256r1, not X25519);
	 * cnsa2: CNSA 2.0's ML-KEM-1024 with P-384.
	 */
	{ GROUP_X25519MLKEM768, "x25519mlkem768", IN_DEFAULT | IN_MODERN, 0,
	    0, 1184 + 32, "bad-x25519mlkem768-share" },
	{ GROUP_SECP256R1MLKEM768, "secp256r1mlkem768",
	    IN_DEFAULT | IN_BSI | IN_MODERN, 0, 1, 65 + 1184,
	    "bad-secp256r1mlkem768-share" },
	{ GROUP_SECP384R1MLKEM1024, "secp384r1mlkem1024",
	    IN_DEFAULT | IN_CNSA2, 0, 1, 97 + 1568,
	    "bad-secp384r1mlkem1024-share" },
#endif
	{ GROUP_X25519, "x25519", IN_DEFAULT | IN_MODERN, C25519, 0,
	    32, "bad-x25519-share" },
	{ GROUP_SECP256R1, "secp256r1", IN_DEFAULT | IN_BSI | IN_MODERN, P256,
	    1, 65, "bad-p256-share" },
	{ GROUP_SECP384R1, "secp384r1", IN_ALL, P384, 1, 97,
	    "bad-p384-share" },
	{ GROUP_SECP521R1, "secp521r1", IN_DEFAULT | IN_BSI, P521, 1, 133,
	    "bad-p521-share" },
};
const size_t tls_ngroups = sizeof(tls_groups) / sizeof(tls_groups[0]);
_Static_assert(sizeof(tls_groups) / sizeof(tls_groups[0]) <= TLS_NGROUPS_MAX,
    "a hello has a bit and a share offset for each group");

const struct tls_group *
tls_group_find(unsigned code)
{
	for (size_t i = 0; i < tls_ngroups; i++)
		if (tls_groups[i].code == code)
			return &tls_groups[i];
	return NULL;
}

/*
 * bsi: BSI TR-02102-2 lists no ChaCha20-Poly1305; cnsa2: CNSA 2.0 names
 * AES-256 alone.
 */
const struct tls_suite tls_suites[TLS_NSUITES] = {
	{ "aes128-gcm", IN_DEFAULT | IN_BSI | IN_MODERN,
	    { 0xc02b, 0xc02f, SUITE_AES_128_GCM_SHA256 },
	    { "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
	    "TLS_AES_128_GCM_SHA256" }, 16, 4, SHA256, 0 },
	{ "aes256-gcm", IN_ALL, { 0xc02c, 0xc030, SUITE_AES_256_GCM_SHA384 },
	    { "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
	    "TLS_AES_256_GCM_SHA384" }, 32, 4, SHA384, 0 },
	{ "chacha20-poly1305", IN_DEFAULT | IN_MODERN,
	    { 0xcca9, 0xcca8, SUITE_CHACHA20_POLY1305_SHA256 },
	    { "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
	    "TLS_CHACHA20_POLY1305_SHA256" }, 32, 12, SHA256, 1 },
};

const struct tls_suite *
tls_suite_find(unsigned code, int *kind)
{
	for (size_t i = 0; i < TLS_NSUITES; i++)
		for (int k = TS_ECDSA; k <= TS_13; k++)
			if (tls_suites[i].code[k] == code) {
				if (kind != NULL)
					*kind = k;
				return &tls_suites[i];
			}
	return NULL;
}

/*
 * The writer follows RFC 8446 3 (RFC 5246 4 alike): numbers are
 * big-endian (3.3), and a vector is its length, in as many bytes as its
 * maximum needs, then its bytes (3.4).  A length is never computed by
 * the caller: tw_open() leaves room, tw_close() counts.
 */
void
tw_init(struct tw *w, unsigned char *b, size_t cap)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
	w->cap = cap;
}

/*
 * The low width bytes of v, big-endian.  The room is checked as
 * cap - n, never n + width, which cannot overflow: n <= cap always.
 */
static void
be(struct tw *w, size_t v, int width)
{
	if (w->err || w->cap - w->n < (size_t)width) {
		w->err = 1;
		return;
	}
	for (int i = width - 1; i >= 0; i--)
		w->b[w->n++] = (unsigned char)(v >> (8 * i));
}

void
tw_u8(struct tw *w, unsigned v)
{
	be(w, v, 1);
}

void
tw_u16(struct tw *w, unsigned v)
{
	be(w, v, 2);
}

void
tw_u24(struct tw *w, size_t v)
{
	be(w, v, 3);
}

void
tw_put(struct tw *w, const void *p, size_t n)
{
	if (w->err || w->cap - w->n < n) {
		w->err = 1;
		return;
	}
	memmove(w->b + w->n, p, n);
	w->n += n;
}

void
tw_open(struct tw *w, int width)
{
	if (w->depth == (int)(sizeof(w->open) / sizeof(w->open[0])))
		w->err = 1;
	if (w->err)
		return;
	w->open[w->depth] = w->n;
	w->width[w->depth++] = width;
	be(w, 0, width);
}

void
tw_close(struct tw *w)
{
	size_t at, len, n;
	int width;

	if (w->depth == 0)
		w->err = 1;
	if (w->err)
		return;
	at = w->open[--w->depth];
	width = w->width[w->depth];
	len = w->n - at - (size_t)width;
	/*
	 * A length the field cannot hold is an error, not a truncation
	 * that would frame the peer's parse elsewhere; a 3-byte field
	 * holds 16 MiB, more than any buffer here.
	 */
	if (width < 3 && len >> (8 * width) != 0) {
		w->err = 1;
		return;
	}
	n = w->n;
	w->n = at;
	be(w, len, width);
	w->n = n;
}

/* Handshake (RFC 8446 4): msg_type, then a uint24 length. */
void
tw_msg(struct tw *w, unsigned type)
{
	tw_u8(w, type);
	tw_open(w, 3);
}

size_t
tw_len(const struct tw *w)
{
	return w->err || w->depth != 0 ? 0 : w->n;
}
