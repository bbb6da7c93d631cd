/* SPDX-License-Identifier: ISC */
/*
 * precomp.c - see precomp.h.
 *
 * A pair is the same object for both uses: an ECDHE key pair (RFC 8446
 * 4.2.8.2, RFC 8422 5.4) and an ECDSA per-message secret with its point
 * (FIPS 186-4 6.3 and B.5.2; kG's x is r before reduction mod n).  Both
 * need k uniform and secret, used once: the pool's only rules.
 */
#include <string.h>
#include <bearssl.h>

#include "ecdsa.h"
#include "log.h"
#include "precomp.h"
#include "prim.h"
#include "ct.h"
#include "wipe.h"

#define SK_MAX	66	/* P-521's order */
#define PUB_MAX	133	/* P-521's uncompressed point */

struct pair {
	unsigned char	sk[SK_MAX], pub[PUB_MAX];
	unsigned char	sklen, publen;
};

/*
 * One pool a curve, pairs[0 .. n-1] ready; `wanted` once asked for.
 * Taken from the top: a stack, so the wiped slot is the next to fill.
 */
static struct pool {
	int		curve, wanted;
	unsigned	n;
	struct pair	pairs[PRECOMP_DEPTH];
} pools[] = {
	{ .curve = BR_EC_curve25519 }, { .curve = BR_EC_secp256r1 },
	{ .curve = BR_EC_secp384r1 }, { .curve = BR_EC_secp521r1 },
};
#define NPOOLS	(sizeof(pools) / sizeof(pools[0]))

/*
 * Its own DRBG, not tls.c's: this module sits below tls.c and takes
 * nothing from it; tls_reseed() seeds it in each worker (precomp.h).
 */
static br_hmac_drbg_context drbg;
static int seeded;

static struct pool *
pool_of(int curve)
{
	for (size_t i = 0; i < NPOOLS; i++)
		if (pools[i].curve == curve)
			return &pools[i];
	return NULL;
}

/* HMAC-DRBG (SP 800-90A 10.1.2) over SHA-256, as BearSSL's. */
void
precomp_init(const void *seed, size_t len)
{
	precomp_wipe();
	br_hmac_drbg_init(&drbg, &br_sha256_vtable, seed, len);
	ct_secret(drbg.K, sizeof(drbg.K));
	ct_secret(drbg.V, sizeof(drbg.V));
	seeded = 1;
}

size_t
precomp_take(int curve, unsigned char *sk, size_t *sklen,
    unsigned char *pub)
{
	struct pool *p = pool_of(curve);
	struct pair *e;
	size_t n;

	if (p == NULL)
		return 0;
	/* Unseeded (before the fork's reseed), no pool may fill. */
	p->wanted = seeded;
	if (p->n == 0) {
		stats.precomp_misses++;
		return 0;
	}
	stats.precomp_hits++;
	e = &p->pairs[--p->n];
	memcpy(sk, e->sk, e->sklen);
	memcpy(pub, e->pub, e->publen);
	*sklen = e->sklen;
	n = e->publen;
	wipe(e, sizeof(*e));
	return n;
}

int
precomp_wanted(void)
{
	for (size_t i = 0; i < NPOOLS; i++)
		if (pools[i].wanted && pools[i].n < PRECOMP_DEPTH)
			return 1;
	return 0;
}

int
precomp_fill(void)
{
	struct pool *p = NULL;
	struct pair *e;
	size_t k;

	/* The emptiest pool first: a curve in use is never starved. */
	for (size_t i = 0; i < NPOOLS; i++)
		if (pools[i].wanted && pools[i].n < PRECOMP_DEPTH &&
		    (p == NULL || pools[i].n < p->n))
			p = &pools[i];
	if (p == NULL)
		return 0;
	/*
	 * br_ec_keygen draws k by testing candidates, in [1, n-1] (FIPS
	 * 186-4 B.4.2), or clamps it for X25519 (RFC 7748 5); mulgen is
	 * the same constant-time kG the inline path would compute.
	 */
	e = &p->pairs[p->n];
	k = br_ec_keygen(&drbg.vtable, prim_get()->ec, NULL, e->sk, p->curve);
	e->sklen = (unsigned char)k;
	e->publen = (unsigned char)(k == 0 ? 0 :
	    prim_get()->ec->mulgen(e->pub, e->sk, k, p->curve));
	ct_public(e->pub, e->publen);	/* the share it will send */
	if (e->publen == 0) {
		/* The EC code lacks the curve: stop asking for it. */
		wipe(e, sizeof(*e));
		p->wanted = 0;
	} else {
		p->n++;
	}
	return precomp_wanted();
}

size_t
precomp_ecdsa_sign(const br_ec_impl *impl, const br_hash_class *hf,
    const void *hash_value, const br_ec_private_key *sk, void *sig)
{
	unsigned char k[SK_MAX], kg[PUB_MAX];
	size_t klen, n;
	int ready = precomp_take(sk->curve, k, &klen, kg) != 0;

	/* No pair ready: RFC 6979's deterministic nonce, as BearSSL's. */
	n = tg_ecdsa_sign(impl, hf, hash_value, sk, sig, ready ? k : NULL, kg);
	wipe(k, sizeof(k));
	return n;
}

/* For tlsgate -t's memory line: the pools are the module's cost. */
size_t
precomp_static_bytes(void)
{
	return sizeof(pools) + sizeof(drbg);
}

void
precomp_wipe(void)
{
	for (size_t i = 0; i < NPOOLS; i++) {
		wipe(pools[i].pairs, sizeof(pools[i].pairs));
		pools[i].n = 0;
		pools[i].wanted = 0;
	}
	wipe(&drbg, sizeof(drbg));
	seeded = 0;
}
