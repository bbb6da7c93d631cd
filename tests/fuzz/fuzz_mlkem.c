/*
 * fuzz_mlkem.c - libFuzzer target for the X25519MLKEM768 client share
 * check (src/hybrid.c) and the ML-KEM-768 encapsulation (src/mlkem.c).
 *
 * The input is a client's share, any length.  Invariants, each with
 * abort():
 *  - hybrid_check() says yes exactly when the length is 1,216 and FIPS
 *    203's modulus check, written out here as the standard states it
 *    (ByteEncode12(ByteDecode12(ek)) == ek, with ByteDecode12 reducing
 *    mod q), passes;
 *  - hybrid_answer() succeeds only when the check passes (it may still
 *    refuse a small-order X25519 half), and two answers from the same
 *    DRBG state are byte-identical;
 *  - the input's key made valid (every coefficient taken mod q) and a
 *    message from the input's last 32 bytes: two encapsulations agree,
 *    and a message that differs in one bit gives another ciphertext
 *    and another secret.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hybrid.h"
#include "mlkem.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* FIPS 203 7.2 as written: decode mod q, encode, compare. */
static int
ref_check(const unsigned char *ek, unsigned char *fixed)
{
	for (size_t i = 0; i < 1152; i += 3) {
		unsigned a = (ek[i] | (ek[i + 1] & 0x0f) << 8) % 3329;
		unsigned b = (ek[i + 1] >> 4 | ek[i + 2] << 4) % 3329;

		fixed[i] = (unsigned char)a;
		fixed[i + 1] = (unsigned char)(a >> 8 | b << 4);
		fixed[i + 2] = (unsigned char)(b >> 4);
	}
	memcpy(fixed + 1152, ek + 1152, 32);
	return memcmp(fixed, ek, MLKEM768_EK_LEN) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char fixed[MLKEM768_EK_LEN], pub1[HYBRID_SERVER_SHARE],
	    pub2[HYBRID_SERVER_SHARE], ct1[MLKEM768_CT_LEN],
	    ct2[MLKEM768_CT_LEN];
	unsigned char sh1[HYBRID_SHARED], sh2[HYBRID_SHARED], m[32];
	unsigned char ss1[32], ss2[32];
	br_hmac_drbg_context rng;
	int ok, want;
	size_t n1, n2;

	want = size == HYBRID_CLIENT_SHARE && ref_check(data, fixed);
	ok = hybrid_check(data, size);
	if (ok != want)
		abort();
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "fuzz", 4);
	n1 = hybrid_answer(data, size, &rng.vtable, pub1, sizeof(pub1), sh1);
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "fuzz", 4);
	n2 = hybrid_answer(data, size, &rng.vtable, pub2, sizeof(pub2), sh2);
	if (n1 != n2 || (n1 != 0 && !ok) || (n1 != 0 &&
	    (memcmp(pub1, pub2, n1) != 0 || memcmp(sh1, sh2, 64) != 0)))
		abort();
	if (size < MLKEM768_EK_LEN)
		return 0;

	(void)ref_check(data, fixed);
	if (!mlkem768_check_ek(fixed, sizeof(fixed)))
		abort();
	memcpy(m, data + size - 32, 32);
	if (mlkem768_encaps_m(ct1, ss1, fixed, sizeof(fixed), m) != 1 ||
	    mlkem768_encaps_m(ct2, ss2, fixed, sizeof(fixed), m) != 1 ||
	    memcmp(ct1, ct2, sizeof(ct1)) != 0 || memcmp(ss1, ss2, 32) != 0)
		abort();
	m[data[0] % 32] ^= (unsigned char)(1u << (data[1] % 8));
	if (mlkem768_encaps_m(ct2, ss2, fixed, sizeof(fixed), m) != 1 ||
	    memcmp(ct1, ct2, sizeof(ct1)) == 0 || memcmp(ss1, ss2, 32) == 0)
		abort();
	return 0;
}
