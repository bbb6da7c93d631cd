/* SPDX-License-Identifier: ISC */
/*
 * ecdsa.c - see ecdsa.h.  The steps are those of BearSSL 0.6's
 * ecdsa_i31_sign_raw.c but for s.  The order comes from impl->order():
 * BearSSL reads the same bytes from its own curve tables, which are
 * internal.  Integers are i31: x[0] is the encoded bit length, then
 * 31-bit words, least significant first.
 */
#include <stdint.h>
#include <string.h>
#include <bearssl.h>

#include "ecdsa.h"
#include "ct.h"
#include "wipe.h"

/*
 * BEARSSL-INTERNAL(i31): 0.6's prototypes, declared only in its src/inner.h;
 * the library exports them.  test_ecdsa compiles this file under it.
 */
uint32_t br_i31_iszero(const uint32_t *x);
uint32_t br_i31_add(uint32_t *a, const uint32_t *b, uint32_t ctl);
uint32_t br_i31_sub(uint32_t *a, const uint32_t *b, uint32_t ctl);
void	 br_i31_decode(uint32_t *x, const void *src, size_t len);
uint32_t br_i31_decode_mod(uint32_t *x, const void *src, size_t len,
	    const uint32_t *m);
void	 br_i31_encode(void *dst, size_t len, const uint32_t *x);
uint32_t br_i31_ninv31(uint32_t x);
void	 br_i31_montymul(uint32_t *d, const uint32_t *x, const uint32_t *y,
	    const uint32_t *m, uint32_t m0i);
void	 br_i31_from_monty(uint32_t *x, const uint32_t *m, uint32_t m0i);
uint32_t br_i31_moddiv(uint32_t *x, const uint32_t *y, const uint32_t *m,
	    uint32_t m0i, uint32_t *t);
void	 br_i31_rshift(uint32_t *x, int count);

#define ORDER_MAX	66	/* bytes of P-521's order */
/* An i31 integer decoded from ORDER_MAX bytes: 1 + 18 words. */
#define I31_WORDS	(1 + (ORDER_MAX * 8 + 30) / 31)

/*
 * RFC 6979 2.3.2: the leftmost bits of src[0..len) as an integer of
 * ebitlen (an i31 announced length).  BearSSL's bits2int shifts by the
 * length of the decoded value, so the shift's time told how many
 * leading zero words a nonce had; here it is the order's length.
 */
static void
bits2int(uint32_t *x, const unsigned char *src, size_t len, uint32_t ebitlen)
{
	uint32_t bitlen = ebitlen - (ebitlen >> 5), hbitlen = (uint32_t)len << 3;
	int sc = 0;

	if (hbitlen > bitlen) {
		len = (bitlen + 7) >> 3;
		sc = (int)((hbitlen - bitlen) & 7);
	}
	memset(x + 1, 0, ((ebitlen + 31) >> 5) * sizeof(*x));
	br_i31_decode(x, src, len);
	/* The length of len bytes as i31 announces it: every word decoded. */
	x[0] = (uint32_t)((len << 3) / 31) << 5 | (uint32_t)((len << 3) % 31);
	br_i31_rshift(x, sc);
	x[0] = ebitlen;
}

/* kpre and kg: a nonce made ahead and its point, or NULL for RFC 6979. */
size_t
tg_ecdsa_sign(const br_ec_impl *impl, const br_hash_class *hf,
    const void *hash_value, const br_ec_private_key *sk, void *sig,
    const unsigned char *kpre, const unsigned char *kg)
{
	uint32_t n[I31_WORDS], x[I31_WORDS], m[I31_WORDS], k[I31_WORDS];
	uint32_t r[I31_WORDS], s[I31_WORDS], t[3 * I31_WORDS];
	unsigned char tt[2 * ORDER_MAX], pt[1 + 2 * ORDER_MAX];
	unsigned char raw[2 * ORDER_MAX + 9];	/* raw_to_asn1 adds <= 9 */
	br_hmac_drbg_context drbg;
	const unsigned char *order;
	size_t nlen, hlen, ptlen, siglen = 0;
	uint32_t n0i, ctl;

	if (sk->curve != BR_EC_secp256r1 && sk->curve != BR_EC_secp384r1 &&
	    sk->curve != BR_EC_secp521r1)
		return 0;
	if ((impl->supported_curves >> sk->curve & 1) == 0)
		return 0;
	order = impl->order(sk->curve, &nlen);
	if (nlen > ORDER_MAX)
		return 0;
	br_i31_decode(n, order, nlen);
	n0i = br_i31_ninv31(n[1]);
	/* decode_mod leaves 0 for a key >= n, so one test refuses both. */
	br_i31_decode_mod(x, sk->x, sk->xlen, n);
	ctl = br_i31_iszero(x);
	ct_public(&ctl, sizeof(ctl));	/* a key no one could use */
	if (ctl)
		goto done;

	/* h: the hash's leftmost bits as an integer, below 2n, then mod n. */
	hlen = (hf->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK;
	bits2int(m, hash_value, hlen, n[0]);
	br_i31_sub(m, n, br_i31_sub(m, n, 0) ^ 1);

	if (kpre != NULL) {
		/* decode_mod leaves 0 for k >= n: one test refuses both. */
		br_i31_decode_mod(k, kpre, nlen, n);
		ctl = br_i31_iszero(k);
		ct_public(&ctl, sizeof(ctl));	/* a nonce never used */
		if (ctl)
			goto done;
	} else {
		/*
		 * RFC 6979 3.2: HMAC_DRBG over hf, seeded with
		 * int2octets(x) || bits2octets(h); candidates of the order's
		 * length until one is in [1, n-1].  br_hmac_drbg_generate()
		 * ends with the update that step h.3 asks of a retry.
		 */
		br_i31_encode(tt, nlen, x);
		br_i31_encode(tt + nlen, nlen, m);
		br_hmac_drbg_init(&drbg, hf, tt, 2 * nlen);
		do {
			br_hmac_drbg_generate(&drbg, tt, nlen);
			bits2int(k, tt, nlen, n[0]);
			ctl = br_i31_iszero(k) | (br_i31_sub(k, n, 0) ^ 1);
			/* Rejection: a dropped candidate says nothing of k. */
			ct_public(&ctl, sizeof(ctl));
		} while (ctl);
		br_i31_encode(tt, nlen, k);
		ptlen = impl->mulgen(pt, tt, nlen, sk->curve);
		if (ptlen != 1 + 2 * nlen)	/* a backstop */
			goto done;
		kg = pt;
	}

	/* r = x(kG) mod n: x(kG) < p < 2n on these curves. */
	memset(r, 0, sizeof(r));
	br_i31_decode(r, kg + 1, nlen);
	r[0] = n[0];
	br_i31_sub(r, n, br_i31_sub(r, n, 0) ^ 1);

	/*
	 * s = (h + x r) / k mod n.  montymul gives x r / R and from_monty
	 * h / R and k / R (R the Montgomery factor): the R's cancel in
	 * the quotient, which moddiv leaves in normal form.  k / R is not
	 * 0 and n is prime, so moddiv cannot fail; the test is a backstop.
	 */
	br_i31_from_monty(m, n, n0i);
	br_i31_montymul(s, x, r, n, n0i);
	ctl = br_i31_add(s, m, 1);
	ctl |= br_i31_sub(s, n, 0) ^ 1;
	br_i31_sub(s, n, ctl);
	br_i31_from_monty(k, n, n0i);
	ctl = br_i31_moddiv(s, k, n, n0i, t);
	ct_public(&ctl, sizeof(ctl));	/* a backstop that never fires */
	if (!ctl)
		goto done;

	br_i31_encode(raw, nlen, r);
	br_i31_encode(raw + nlen, nlen, s);
	ct_public(raw, 2 * nlen);	/* the signature, made to be sent */
	siglen = br_ecdsa_raw_to_asn1(raw, 2 * nlen);
	memcpy(sig, raw, siglen);
done:
	wipe(x, sizeof(x));
	wipe(m, sizeof(m));
	wipe(k, sizeof(k));
	wipe(s, sizeof(s));
	wipe(t, sizeof(t));
	wipe(tt, sizeof(tt));
	wipe(&drbg, sizeof(drbg));
	return siglen;
}
