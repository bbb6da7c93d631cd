/*
 * mlkem.h - ML-KEM-768 encapsulation (FIPS 203), the server's half of
 * the X25519MLKEM768 key share; BearSSL 0.6 has no ML-KEM.
 *
 * Owns: the encapsulation-key check of FIPS 203 7.2 (length, and the
 * modulus check ByteEncode12(ByteDecode12(ek)) == ek, which is "every
 * 12-bit coefficient below q = 3329"), and ML-KEM.Encaps (Algorithm 20,
 * over ML-KEM.Encaps_internal, Algorithm 17, and K-PKE.Encrypt,
 * Algorithm 14).  No key generation, no decapsulation: a TLS server
 * only encapsulates to the client's key.
 *
 * Never: allocates, keeps state, branches or indexes a table on secret
 * data (the message m, the noise, the shared key).  Only the matrix
 * expansion's rejection sampling branches, on bytes derived from the
 * public seed rho, as FIPS 203 allows.  Every secret is wiped before
 * return.  Stack: about 4 KB (gcc -fstack-usage, x86-64: K-PKE.Encrypt
 * 3,152 bytes for the noise vector y in NTT form and two polynomials,
 * 400 under it for a SHAKE state); the matrix is made one entry at a
 * time, never held.
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

#define MLKEM768_EK_LEN	1184	/* encapsulation key: 3 x 384 + rho */
#define MLKEM768_CT_LEN	1088	/* ciphertext: 3 x 320 + 128 */
#define MLKEM_SS_LEN	32	/* shared secret */
#define MLKEM_M_LEN	32	/* the random message */

/* 1 if `ek` (`len` bytes) is a valid ML-KEM-768 key (7.2), 0 if not. */
int	mlkem768_check_ek(const unsigned char *ek, size_t len);

/*
 * ML-KEM.Encaps_internal from a given message `m` (the known-answer
 * tests' entry point): checks `ek` as mlkem768_check_ek() does, writes
 * the ciphertext (MLKEM768_CT_LEN bytes) and the shared secret (32) and
 * returns 1; returns 0 and writes nothing for a key that fails.
 */
int	mlkem768_encaps_m(unsigned char *ct, unsigned char *ss,
	    const unsigned char *ek, size_t eklen, const unsigned char *m);

/* ML-KEM.Encaps: the same with m drawn from `rng`. */
int	mlkem768_encaps(unsigned char *ct, unsigned char *ss,
	    const unsigned char *ek, size_t eklen, const br_prng_class **rng);

#endif
