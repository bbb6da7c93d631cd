/*
 * hybrid.c - see hybrid.h.  X25519 is kx.c's, ML-KEM mlkem.c's.
 */
#include <string.h>

#include "hybrid.h"
#include "mlkem.h"
#include "tlscrypto.h"

/*
 * FIPS 203 7.2's input check, both parts: the type check (the length)
 * and the modulus check (every coefficient of ek below q), which
 * mlkem768_check_ek does.  The X25519 half needs none: every 32 bytes
 * are a u-coordinate (RFC 7748 5).
 */
int
hybrid_check(const unsigned char *share, size_t len)
{
	return len == HYBRID_CLIENT_SHARE &&
	    mlkem768_check_ek(share, MLKEM768_EK_LEN);
}

size_t
hybrid_answer(const unsigned char *share, size_t len,
    const br_prng_class **rng, unsigned char *pub, size_t cap,
    unsigned char *shared)
{
	struct kx kx;
	size_t ok;

	if (cap < HYBRID_SERVER_SHARE || !hybrid_check(share, len))
		return 0;
	/*
	 * draft-ietf-tls-ecdhe-mlkem's order, ML-KEM first: pub is ct
	 * then our X25519 share, shared is K then the X25519 secret.  The
	 * && stops only on a public fact (the all-zero X25519 secret, RFC
	 * 7748 6.1, which the client could compute too): no early exit
	 * depends on a secret.
	 */
	ok = kx_gen(&kx, GROUP_X25519, rng, pub + MLKEM768_CT_LEN, 32) ==
	    32 && kx_shared(&kx, share + MLKEM768_EK_LEN, 32,
	    shared + MLKEM_SS_LEN) == 32 &&
	    mlkem768_encaps(pub, shared, share, MLKEM768_EK_LEN, rng);
	kx_wipe(&kx);
	if (!ok) {
		wipe(shared, HYBRID_SHARED);
		return 0;
	}
	return HYBRID_SERVER_SHARE;
}
