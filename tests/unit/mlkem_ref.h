/* SPDX-License-Identifier: ISC */
/*
 * mlkem_ref.h - the tests' own ML-KEM (FIPS 203): KeyGen, Encaps and
 * Decaps for ML-KEM-512, -768 and -1024, so that a test client can
 * answer tlsgate's ciphertext and the two implementations can be set
 * against each other.  Test code only: it is never linked into
 * tlsgate, branches on secrets and keeps nothing constant-time.
 *
 * Written from the standard on purpose unlike src/mlkem.c: plain `%`
 * arithmetic on int32_t, the NTT's twiddles computed from zeta = 17
 * rather than tabled, ByteEncode/ByteDecode through bit arrays as the
 * standard writes them, the matrix held whole.  It shares only the
 * Keccak of src/keccak.c, which test_keccak checks against hashlib.
 */
#ifndef TLSGATE_MLKEM_REF_H
#define TLSGATE_MLKEM_REF_H

#include <stddef.h>

#define REF_EK_LEN(k)	(384 * (size_t)(k) + 32)
#define REF_DK_LEN(k)	(768 * (size_t)(k) + 96)
#define REF_CT_LEN(k)	((k) == 4 ? (size_t)1568 : 32 * (size_t)(k) * 10 + 128)

/* Algorithm 16, ML-KEM.KeyGen_internal(d, z), k in 2..4. */
void	ref_keygen(unsigned k, const unsigned char d[32],
	    const unsigned char z[32], unsigned char *ek, unsigned char *dk);

/* Algorithm 17, ML-KEM.Encaps_internal(ek, m): no input check. */
void	ref_encaps(unsigned k, const unsigned char *ek,
	    const unsigned char m[32], unsigned char *ct, unsigned char ss[32]);

/* Algorithm 18, ML-KEM.Decaps_internal(dk, c), implicit rejection too. */
void	ref_decaps(unsigned k, const unsigned char *dk,
	    const unsigned char *ct, unsigned char ss[32]);

#endif
