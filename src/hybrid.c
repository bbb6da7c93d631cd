/*
 * hybrid.c - see hybrid.h.  X25519 is kx.c's, ML-KEM mlkem.c's.
 */
#include <string.h>

#include "hybrid.h"
#include "mlkem.h"
#include "tlscrypto.h"

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
	ok = kx_gen(&kx, GROUP_X25519, rng, pub + MLKEM768_CT_LEN, 32) ==
	    32 && kx_shared(&kx, share + MLKEM768_EK_LEN, 32,
	    shared + MLKEM_SS_LEN) == 32 &&
	    mlkem768_encaps(pub, shared, share, MLKEM768_EK_LEN, rng);
	ct_public(pub, MLKEM768_CT_LEN);	/* the ciphertext we send */
	kx_wipe(&kx);
	if (!ok) {
		wipe(shared, HYBRID_SHARED);
		return 0;
	}
	return HYBRID_SERVER_SHARE;
}
