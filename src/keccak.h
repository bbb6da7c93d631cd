/* SPDX-License-Identifier: ISC */
/*
 * keccak.h - Keccak-f[1600] and the FIPS 202 functions ML-KEM needs:
 * SHA3-256, SHA3-512, SHAKE128, SHAKE256.  BearSSL 0.6 has none of them.
 *
 * One context type for all four, BearSSL-shaped: the caller owns the
 * struct, keccak_init() fills it, keccak_update() absorbs any number of
 * bytes, keccak_out() squeezes.  The first keccak_out() pads (FIPS 202
 * 5.1 with the function's domain bits) and ends the absorbing; later
 * calls continue the output stream, so a XOF is read in pieces of any
 * size and the bytes are those of one long read.  keccak_update() after
 * keccak_out() is a caller's error and is ignored.
 *
 * Never allocates or keeps global state.  Constant time: the
 * permutation has no data-dependent branch or index, and the position
 * in the block depends only on lengths.  wipe() (wipe.h) clears a
 * context that absorbed a secret.
 */
#ifndef TLSGATE_KECCAK_H
#define TLSGATE_KECCAK_H

#include <stddef.h>
#include <stdint.h>

/* Rates (block sizes) in bytes: 1600 bits minus twice the capacity. */
#define KECCAK_SHAKE128	168
#define KECCAK_SHAKE256	136
#define KECCAK_SHA3_256	136
#define KECCAK_SHA3_512	72

struct keccak {
	uint64_t	a[25];		/* the state, lane (x, y) at x + 5y */
	unsigned	rate;		/* bytes */
	unsigned	pos;		/* next byte in the block */
	unsigned char	dsep;		/* domain bits and first pad bit */
	unsigned char	squeezing;
};

/* The permutation, 24 rounds, on a state of 25 lanes. */
void	keccak_f1600(uint64_t a[25]);

/* rate: one of the KECCAK_* above; dsep: 0x06 for SHA-3, 0x1f for SHAKE. */
void	keccak_init(struct keccak *k, unsigned rate, unsigned dsep);
void	keccak_update(struct keccak *k, const void *data, size_t len);
void	keccak_out(struct keccak *k, void *out, size_t len);

/* The four functions by name. */
#define sha3_256_init(k)	keccak_init((k), KECCAK_SHA3_256, 0x06)
#define sha3_512_init(k)	keccak_init((k), KECCAK_SHA3_512, 0x06)
#define shake128_init(k)	keccak_init((k), KECCAK_SHAKE128, 0x1f)
#define shake256_init(k)	keccak_init((k), KECCAK_SHAKE256, 0x1f)

/* One-shot SHA3-256 (32 bytes out); the state is wiped. */
void	sha3_256(void *out, const void *data, size_t len);

#endif
