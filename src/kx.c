/* SPDX-License-Identifier: ISC */
/*
 * kx.c - ECDHE key shares for both versions (see tlscrypto.h).
 */
#include <string.h>
#include <bearssl.h>

#include "precomp.h"
#include "prim.h"
#include "tlscrypto.h"

/* The registry's entry for an ECDHE group, NULL for another. */
static const struct tls_group *
ecdhe(int group)
{
	const struct tls_group *g = tls_group_find((unsigned)group);

	return g != NULL && g->curve != 0 ? g : NULL;
}

/*
 * Our share for a given scalar: the point kG, uncompressed for the NIST
 * curves (RFC 8446 4.2.8.2, RFC 8422 5.4: the only form either allows),
 * the u-coordinate for X25519 (RFC 7748 6.1).
 */
size_t
kx_load(struct kx *kx, int group, const unsigned char *sk,
    size_t sklen, unsigned char *pub, size_t cap)
{
	const struct tls_group *g = ecdhe(group);
	size_t n;

	if (g == NULL || sklen == 0 || sklen > sizeof(kx->sk) ||
	    cap < g->share)
		return 0;
	kx->group = group;
	kx->sklen = sklen;
	memcpy(kx->sk, sk, sklen);
	n = prim_get()->ec->mulgen(pub, kx->sk, sklen, g->curve);
	ct_public(pub, n);		/* the share we send */
	return n;
}

size_t
kx_gen(struct kx *kx, int group, const br_prng_class **rng,
    unsigned char *pub, size_t cap)
{
	unsigned char k[sizeof(kx->sk)];
	const struct tls_group *g = ecdhe(group);
	size_t n, klen;

	if (g == NULL || cap < g->share)
		return 0;
	/* A pair made while the loop idled, if one is ready (precomp.h). */
	if ((n = precomp_take(g->curve, kx->sk, &klen, pub)) != 0) {
		kx->group = group;
		kx->sklen = klen;
		return n;
	}
	/* Uniform in [1, order - 1]; X25519 clamps what it gets. */
	if ((klen = br_ec_keygen(rng, prim_get()->ec, NULL, k, g->curve)) == 0)
		return 0;
	n = kx_load(kx, group, k, klen, pub, cap);
	wipe(k, sizeof(k));
	return n;
}

/*
 * The shared secret: for the NIST curves the x-coordinate of k times the
 * peer's point (RFC 8446 7.4.2, RFC 8422 5.10), for X25519 the whole
 * output (RFC 7748 6.1, RFC 8446 7.4.2), which must not be all zeros.
 */
size_t
kx_shared(const struct kx *kx, const unsigned char *peer,
    size_t peerlen, unsigned char *out)
{
	const br_ec_impl *ec = prim_get()->ec;
	unsigned char p[KX_PUB_MAX];
	const struct tls_group *g = ecdhe(kx->group);
	size_t xoff = 0, xlen = 32;
	uint32_t ok, z = 0;

	/* The share's length is its form: 65, 97, 133 or 32 bytes, no other. */
	if (g == NULL || peerlen != g->share)
		return 0;
	memcpy(p, peer, peerlen);
	if (g->curve == BR_EC_curve25519) {
		ok = ec->mul(p, 32, kx->sk, kx->sklen, g->curve);
		/* A small-order share gives zero: refuse it, no branch. */
		for (size_t i = 0; i < 32; i++)
			z |= p[i];
		ok &= (z + 0xFF) >> 8;
	} else {
		/* mul() checks the point's form and that it is on the curve. */
		ok = peer[0] == 4 && ec->mul(p, peerlen, kx->sk, kx->sklen,
		    g->curve);
		xoff = ec->xoff(g->curve, &xlen);
	}
	ct_public(&ok, sizeof(ok));	/* a bad share ends the handshake */
	if (ok)
		memcpy(out, p + xoff, xlen);
	wipe(p, sizeof(p));
	return ok ? xlen : 0;
}

void
kx_wipe(struct kx *kx)
{
	wipe(kx, sizeof(*kx));
}
