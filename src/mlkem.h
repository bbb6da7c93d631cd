/* SPDX-License-Identifier: ISC */
/*
 * mlkem.h - ML-KEM encapsulation (FIPS 203) for ML-KEM-768 and
 * ML-KEM-1024, the server's half of the hybrid key shares (hybrid.h);
 * BearSSL 0.6 has no ML-KEM.
 *
 * Owns: the encapsulation-key check of FIPS 203 7.2 (length, and the
 * modulus check ByteEncode12(ByteDecode12(ek)) == ek, which is "every
 * 12-bit coefficient below q = 3329"), and ML-KEM.Encaps (Algorithm 20,
 * over ML-KEM.Encaps_internal, Algorithm 17, and K-PKE.Encrypt,
 * Algorithm 14).  One implementation: a parameter set (Table 2's k,
 * eta1, du, dv) is data, struct mlkem.  No key generation, no
 * decapsulation: a TLS server only encapsulates to the client's key
 * (the tests' own KeyGen and Decaps are tests/unit/mlkem_ref.c).
 *
 * Never: allocates, keeps state, branches or indexes a table on secret
 * data (the message m, the noise, the shared key).  Only the matrix
 * expansion's rejection sampling branches, on bytes derived from the
 * public seed rho, as FIPS 203 allows; loops run on the parameter set,
 * which is public.  Every secret is wiped before return.  Stack: about
 * 4 KB for either set (gcc -fstack-usage, x86-64: K-PKE.Encrypt 3,664
 * bytes, its noise vector y in NTT form sized for k = 4, two more
 * polynomials, and about 400 under it for a SHAKE state); the matrix is
 * made one entry at a time, never held.
 *
 * Arithmetic is on coefficients kept in [0, q) in 16-bit words, reduced
 * with an exact multiply-and-shift (Barrett) quotient: no division, no
 * data-dependent branch.  It relies on a constant-time 32x32->64
 * multiply, as BearSSL's i31 and m31 code does.
 */
#ifndef TLSGATE_MLKEM_H
#define TLSGATE_MLKEM_H

#include <stddef.h>
#include <bearssl.h>

#define MLKEM768_EK_LEN		1184	/* encapsulation key: 3 x 384 + rho */
#define MLKEM768_CT_LEN		1088	/* ciphertext: 3 x 320 + 128 */
#define MLKEM1024_EK_LEN	1568	/* 4 x 384 + rho */
#define MLKEM1024_CT_LEN	1568	/* 4 x 352 + 160 */
#define MLKEM_SS_LEN		32	/* shared secret */
#define MLKEM_M_LEN		32	/* the random message */

/* A parameter set (FIPS 203 Table 2; eta2 is 2 in all three). */
struct mlkem {
	unsigned	k, eta1, du, dv;
	size_t		eklen, ctlen;
};

extern const struct mlkem mlkem768, mlkem1024;

/* 1 if `ek` (`len` bytes) is a valid key of set `p` (7.2), 0 if not. */
int	mlkem_check_ek(const struct mlkem *p, const unsigned char *ek,
	    size_t len);

/*
 * ML-KEM.Encaps_internal from a given message `m` (the known-answer
 * tests' entry point): checks `ek` as mlkem_check_ek() does, writes the
 * ciphertext (p->ctlen bytes) and the shared secret (32) and returns 1;
 * returns 0 and writes nothing for a key that fails.
 */
int	mlkem_encaps_m(const struct mlkem *p, unsigned char *ct,
	    unsigned char *ss, const unsigned char *ek, size_t eklen,
	    const unsigned char *m);

/* ML-KEM.Encaps: the same with m drawn from `rng`. */
int	mlkem_encaps(const struct mlkem *p, unsigned char *ct,
	    unsigned char *ss, const unsigned char *ek, size_t eklen,
	    const br_prng_class **rng);

#endif
