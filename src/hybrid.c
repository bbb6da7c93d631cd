/* SPDX-License-Identifier: ISC */
/*
 * hybrid.c - see hybrid.h.  ECDH is kx.c's, ML-KEM mlkem.c's.
 */
#include <string.h>

#include "hybrid.h"
#include "mlkem.h"
#include "tlscrypto.h"

/*
 * Each group: its ECDH group, that group's share and secret lengths, the
 * ML-KEM set, and whether ECDH comes first (in all three of client
 * share, server share and secret).
 */
static const struct hybrid {
	unsigned		 group, ecdh;
	size_t			 pub, ss;
	const struct mlkem	*kem;
	int			 ecdh_first;
} hybrids[] = {
	{ GROUP_X25519MLKEM768, GROUP_X25519, 32, 32, &mlkem768, 0 },
	{ GROUP_SECP256R1MLKEM768, GROUP_SECP256R1, 65, 32, &mlkem768, 1 },
	{ GROUP_SECP384R1MLKEM1024, GROUP_SECP384R1, 97, 48, &mlkem1024, 1 },
};

static const struct hybrid *
find(unsigned group)
{
	for (size_t i = 0; i < sizeof(hybrids) / sizeof(hybrids[0]); i++)
		if (hybrids[i].group == group)
			return &hybrids[i];
	return NULL;
}

size_t
hybrid_server_share(unsigned group)
{
	const struct hybrid *h = find(group);

	return h != NULL ? h->pub + h->kem->ctlen : 0;
}

/*
 * FIPS 203 7.2's input check, both parts: the type check (the length)
 * and the modulus check (every coefficient of ek below q).  The ECDH
 * half is checked where it is used: kx_shared() puts a point on its
 * curve, and every 32 bytes are an X25519 u-coordinate (RFC 7748 5).
 */
int
hybrid_check(unsigned group, const unsigned char *share, size_t len)
{
	const struct hybrid *h = find(group);

	return h != NULL && len == h->pub + h->kem->eklen &&
	    mlkem_check_ek(h->kem, share + (h->ecdh_first ? h->pub : 0),
	    h->kem->eklen);
}

size_t
hybrid_answer(unsigned group, const unsigned char *share, size_t len,
    const br_prng_class **rng, unsigned char *pub, size_t cap,
    unsigned char *shared, size_t *sharedlen)
{
	const struct hybrid *h = find(group);
	struct kx kx;
	size_t ok, ct, ek, ecp, ecs, kss;

	if (h == NULL || cap < h->pub + h->kem->ctlen ||
	    !hybrid_check(group, share, len))
		return 0;
	/* Offsets of each half in the client's share, ours, the secret. */
	ek = h->ecdh_first ? h->pub : 0;
	ecp = h->ecdh_first ? 0 : h->kem->eklen;
	ct = h->ecdh_first ? h->pub : 0;
	ecs = h->ecdh_first ? 0 : MLKEM_SS_LEN;
	kss = h->ecdh_first ? h->ss : 0;
	/*
	 * The && stops only on a public fact (a point off the curve, or
	 * the all-zero X25519 secret of RFC 7748 6.1, which the client
	 * could compute too): no early exit depends on a secret.
	 */
	ok = kx_gen(&kx, (int)h->ecdh, rng, pub + (h->ecdh_first ? 0 :
	    h->kem->ctlen), h->pub) == h->pub &&
	    kx_shared(&kx, share + ecp, h->pub, shared + ecs) == h->ss &&
	    mlkem_encaps(h->kem, pub + ct, shared + kss, share + ek,
	    h->kem->eklen, rng);
	ct_public(pub + ct, h->kem->ctlen);	/* the ciphertext we send */
	kx_wipe(&kx);
	if (!ok) {
		wipe(shared, h->ss + MLKEM_SS_LEN);
		return 0;
	}
	*sharedlen = h->ss + MLKEM_SS_LEN;
	return h->pub + h->kem->ctlen;
}
