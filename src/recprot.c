/* SPDX-License-Identifier: ISC */
/*
 * recprot.c - record protection for TLS 1.3 and TLS 1.2 (see
 * tlscrypto.h).
 *
 * The TLS 1.2 record classes of BearSSL cannot serve here (explicit
 * nonce, 13-byte AAD); the AEADs are driven directly, with the
 * implementations prim.c chose at start-up (the fastest constant-time
 * ones on the CPU), BearSSL's defaults until then.
 */
#include <string.h>
#include <bearssl.h>

#include "prim.h"
#include "tlscrypto.h"

/* The AEAD's implementation, on r->key. */
static void
rec_keys(struct rp *r, const struct tls_suite *s)
{
	const struct prim *p = prim_get();
	unsigned char key[32];

	if (s->chacha) {
		r->chacha = p->chacha;
		r->poly = p->poly;
		return;
	}
	/* The AES subkeys take the key's place. */
	memcpy(key, r->key, sizeof(key));
	p->ctr->init(&r->aes.vtable, key, s->key);
	br_gcm_init(&r->gcm, &r->aes.vtable, p->ghash);
	wipe(key, sizeof(key));
}

int
rp_init(struct rp *r, int suite, const unsigned char *secret)
{
	const br_hash_class *dig = ks_suite_hash(suite);
	const struct tls_suite *s = tls_suite_find((unsigned)suite, NULL);

	if (dig == NULL)
		return 0;
	wipe(r, sizeof(*r));
	ks_traffic_keys(dig, secret, r->key, s->key, r->iv);
	rec_keys(r, s);
	return 1;
}

int
rp_init12(struct rp *r, int aead, const unsigned char *key,
    const unsigned char *iv)
{
	const struct tls_suite *s = tls_suite_find((unsigned)aead, NULL);

	if (ks_suite_hash(aead) == NULL)
		return 0;
	wipe(r, sizeof(*r));
	r->v12 = 1;
	memcpy(r->key, key, s->key);
	memcpy(r->iv, iv, s->iv12);
	rec_keys(r, s);
	return 1;
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
aead(struct rp *r, const unsigned char *aad, size_t alen,
    const unsigned char *xn, unsigned char *data, size_t len,
    unsigned char *tag, int encrypt)
{
	unsigned char n[12], t[RP_TAG_LEN];
	int ok = 1;

	memcpy(n, r->iv, 12);
	if (xn != NULL)		/* TLS 1.2 GCM: the salt, the explicit part */
		memcpy(n + 4, xn, 8);
	else
		for (int i = 0; i < 8; i++)
			n[11 - i] ^= (unsigned char)(r->seq >> (8 * i));
	if (r->chacha != NULL) {
		r->poly(r->key, n, data, len, aad, alen, encrypt ? tag : t,
		    r->chacha, encrypt);
		if (!encrypt)
			ok = ct_eq(t, tag, RP_TAG_LEN);
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
	/* The verdict ends the connection or not; the ciphertext is sent;
	 * the peer's own plaintext goes to the backend in clear. */
	ct_public(&ok, sizeof(ok));
	if (ok || encrypt)
		ct_public(data, len);
	if (encrypt)
		ct_public(tag, RP_TAG_LEN);
	if (ok)
		r->seq++;
	return ok;
}

/* RFC 5246 6.2.3.3's additional data: the sequence number, a header. */
static void
aad12(const struct rp *r, int type, size_t len, unsigned char *a)
{
	for (int i = 0; i < 8; i++)
		a[i] = (unsigned char)(r->seq >> (56 - 8 * i));
	rp_header(a + 8, type, len);
}

size_t
rp_seal12(struct rp *r, unsigned char *rec, size_t len,
    size_t cap, int type)
{
	unsigned char a[13];
	size_t h = rp_head12(r), n = h - 5 + len + RP_TAG_LEN;

	if (r->seq == UINT64_MAX || len > RP_PLAIN_MAX || cap < 5 ||
	    cap - 5 < n)
		return 0;
	aad12(r, type, len, a);
	/* The explicit nonce is the sequence number: never twice. */
	memcpy(rec + 5, a, h - 5);
	rp_header(rec, type, n);
	aead(r, a, 13, h > 5 ? a : NULL, rec + h, len, rec + h + len, 1);
	return 5 + n;
}

int
rp_open12(struct rp *r, unsigned char *rec, size_t reclen,
    size_t *len)
{
	unsigned char a[13];
	size_t h = rp_head12(r), k;

	if (reclen >= 5 && reclen - 5 > RP_PLAIN_MAX + RP_EXTRA12)
		return RP_ERR_OVERFLOW;
	if (reclen < h + RP_TAG_LEN)
		return RP_ERR_MAC;
	if (r->seq == UINT64_MAX)
		return RP_ERR_SEQ;
	k = reclen - h - RP_TAG_LEN;
	aad12(r, rec[0], k, a);
	/* The peer's explicit nonce is its own choice (RFC 5288 3). */
	if (!aead(r, a, 13, h > 5 ? rec + 5 : NULL, rec + h, k, rec + h + k,
	    0)) {
		wipe(rec + h, k);
		return RP_ERR_MAC;
	}
	if (k > RP_PLAIN_MAX) {
		wipe(rec + h, k);
		return RP_ERR_OVERFLOW;
	}
	*len = k;
	return rec[0];
}

size_t
rp_seal(struct rp *r, unsigned char *rec, size_t len, size_t cap, int type)
{
	size_t n = len + 1;

	/* TLSInnerPlaintext: content, type, no padding; at most 2^14 + 1. */
	if (r->seq == UINT64_MAX || len > RP_PLAIN_MAX || cap < 5 ||
	    cap - 5 < n + RP_TAG_LEN)
		return 0;
	rec[5 + len] = (unsigned char)type;
	rp_header(rec, CT_APPLICATION_DATA, n + RP_TAG_LEN);
	aead(r, rec, 5, NULL, rec + 5, n, rec + 5 + n, 1);
	return 5 + n + RP_TAG_LEN;
}

/*
 * TLSInnerPlaintext's type is its last non-zero byte (5.4); its index
 * is the content's length.  From the end, as BearSSL and picotls scan:
 * the time tells the padding's length, and so the content's, which the
 * backend's socket is told anyway.  Returns the type, 0 if all are zero.
 */
static int
inner_type(const unsigned char *p, size_t n, size_t *len)
{
	while (n > 0 && p[n - 1] == 0)
		n--;
	*len = n > 0 ? n - 1 : 0;
	return n > 0 ? p[n - 1] : 0;
}

int
rp_open(struct rp *r, unsigned char *rec, size_t reclen, size_t *len)
{
	unsigned char *p = rec + 5;
	size_t n;
	int type;

	if (reclen >= 5 && reclen - 5 > RP_CIPHER_MAX)
		return RP_ERR_OVERFLOW;
	if (reclen < RP_OVERHEAD13)
		return RP_ERR_MAC;
	if (r->seq == UINT64_MAX)
		return RP_ERR_SEQ;
	n = reclen - 5 - RP_TAG_LEN;
	if (!aead(r, rec, 5, NULL, p, n, p + n, 0)) {
		wipe(p, n);
		return RP_ERR_MAC;
	}
	if (n > RP_PLAIN_MAX + 1) {
		wipe(p, n);
		return RP_ERR_OVERFLOW;
	}
	if ((type = inner_type(p, n, len)) == 0)	/* all zeros */
		return RP_ERR_EMPTY;
	return type;
}

void
rp_wipe(struct rp *r)
{
	wipe(r, sizeof(*r));
}
