/*
 * kx.c - ECDHE key shares for both versions (see tlscrypto.h).
 */
#include <string.h>
#include <bearssl.h>

#include "prim.h"
#include "tlscrypto.h"

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
kx_len(int group)
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
kx_load(struct kx *kx, int group, const unsigned char *sk,
    size_t sklen, unsigned char *pub, size_t cap)
{
	int curve = group_curve(group);

	if (curve < 0 || sklen == 0 || sklen > sizeof(kx->sk) ||
	    cap < kx_len(group))
		return 0;
	kx->group = group;
	kx->sklen = sklen;
	memcpy(kx->sk, sk, sklen);
	return prim_ec.mulgen(pub, kx->sk, sklen, curve);
}

size_t
kx_gen(struct kx *kx, int group, const br_prng_class **rng,
    unsigned char *pub, size_t cap)
{
	unsigned char k[sizeof(kx->sk)];
	int curve = group_curve(group);
	size_t n, klen;

	/* Uniform in [1, order - 1]; X25519 clamps what it gets. */
	if (curve < 0 ||
	    (klen = br_ec_keygen(rng, &prim_ec, NULL, k, curve)) == 0)
		return 0;
	n = kx_load(kx, group, k, klen, pub, cap);
	wipe(k, sizeof(k));
	return n;
}

size_t
kx_shared(const struct kx *kx, const unsigned char *peer,
    size_t peerlen, unsigned char *out)
{
	const br_ec_impl *ec = &prim_ec;
	unsigned char p[KX_PUB_MAX];
	size_t xoff = 0, xlen = 32;
	int curve = group_curve(kx->group);
	uint32_t ok, z = 0;

	if (curve < 0 || peerlen != kx_len(kx->group))
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
kx_wipe(struct kx *kx)
{
	wipe(kx, sizeof(*kx));
}
