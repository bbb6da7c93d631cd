/* SPDX-License-Identifier: ISC */
/*
 * fuzz_mlkem.c - libFuzzer target for the hybrid client share checks
 * (src/hybrid.c) and ML-KEM-768 and ML-KEM-1024 encapsulation
 * (src/mlkem.c).
 *
 * The input's first byte picks a hybrid group; the rest is a client's
 * share for it, any length.  Invariants, each with abort():
 *  - hybrid_check() says yes exactly when the length is the group's and
 *    FIPS 203's modulus check, written out here as the standard states
 *    it (ByteEncode12(ByteDecode12(ek)) == ek, with ByteDecode12
 *    reducing mod q), passes on the key where the group puts it;
 *  - hybrid_answer() succeeds only when the check passes (it may still
 *    refuse the ECDH half), and two answers from the same DRBG state
 *    are byte-identical;
 *  - the share's first eklen bytes made a valid key of the group's set
 *    (every coefficient taken mod q) and a message from its last 32
 *    bytes: the encapsulation is the tests' reference's (mlkem_ref.c)
 *    byte for byte, and a message that differs in one bit gives another
 *    ciphertext and another secret.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hybrid.h"
#include "mlkem.h"
#include "../unit/mlkem_ref.h"
#include "tlswire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const struct {
	unsigned		 group;
	size_t			 pt;	/* ECDH share */
	int			 first;	/* ECDH before ML-KEM */
	const struct mlkem	*p;
	unsigned		 k;
} groups[] = {
	{ GROUP_X25519MLKEM768, 32, 0, &mlkem768, 3 },
	{ GROUP_SECP256R1MLKEM768, 65, 1, &mlkem768, 3 },
	{ GROUP_SECP384R1MLKEM1024, 97, 1, &mlkem1024, 4 },
};

/* FIPS 203 7.2 as written: decode mod q, encode, compare. */
static int
ref_check(const unsigned char *ek, size_t eklen, unsigned char *fixed)
{
	for (size_t i = 0; i < eklen - 32; i += 3) {
		unsigned a = (ek[i] | (ek[i + 1] & 0x0f) << 8) % 3329;
		unsigned b = (ek[i + 1] >> 4 | ek[i + 2] << 4) % 3329;

		fixed[i] = (unsigned char)a;
		fixed[i + 1] = (unsigned char)(a >> 8 | b << 4);
		fixed[i + 2] = (unsigned char)(b >> 4);
	}
	memcpy(fixed + eklen - 32, ek + eklen - 32, 32);
	return memcmp(fixed, ek, eklen) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char fixed[MLKEM1024_EK_LEN], pub1[HYBRID_SERVER_MAX],
	    pub2[HYBRID_SERVER_MAX], ct1[MLKEM1024_CT_LEN],
	    ct2[MLKEM1024_CT_LEN];
	unsigned char sh1[HYBRID_SHARED_MAX], sh2[HYBRID_SHARED_MAX], m[32];
	unsigned char ss1[32], ss2[32];
	br_hmac_drbg_context rng;
	int ok, want;
	size_t n1, n2, l1 = 0, l2 = 0, g, eklen;
	const struct mlkem *p;

	if (size < 1)
		return 0;
	g = data[0] % (sizeof(groups) / sizeof(groups[0]));
	data++;
	size--;
	p = groups[g].p;
	eklen = p->eklen;
	want = size == groups[g].pt + eklen && ref_check(data +
	    (groups[g].first ? groups[g].pt : 0), eklen, fixed);
	ok = hybrid_check(groups[g].group, data, size);
	if (ok != want)
		abort();
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "fuzz", 4);
	n1 = hybrid_answer(groups[g].group, data, size, &rng.vtable, pub1,
	    sizeof(pub1), sh1, &l1);
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "fuzz", 4);
	n2 = hybrid_answer(groups[g].group, data, size, &rng.vtable, pub2,
	    sizeof(pub2), sh2, &l2);
	if (n1 != n2 || (n1 != 0 && !ok) || (n1 != 0 && (l1 != l2 ||
	    memcmp(pub1, pub2, n1) != 0 || memcmp(sh1, sh2, l1) != 0)))
		abort();
	if (size < eklen + 2)
		return 0;

	(void)ref_check(data, eklen, fixed);
	if (!mlkem_check_ek(p, fixed, eklen))
		abort();
	memcpy(m, data + size - 32, 32);
	ref_encaps(groups[g].k, fixed, m, ct2, ss2);
	if (mlkem_encaps_m(p, ct1, ss1, fixed, eklen, m) != 1 ||
	    memcmp(ct1, ct2, p->ctlen) != 0 || memcmp(ss1, ss2, 32) != 0)
		abort();
	m[data[0] % 32] ^= (unsigned char)(1u << (data[1] % 8));
	if (mlkem_encaps_m(p, ct2, ss2, fixed, eklen, m) != 1 ||
	    memcmp(ct1, ct2, p->ctlen) == 0 || memcmp(ss1, ss2, 32) == 0)
		abort();
	return 0;
}
