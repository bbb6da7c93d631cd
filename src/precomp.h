/* SPDX-License-Identifier: ISC */
/*
 * precomp.h - EC key pairs made ahead, while the loop has nothing to do.
 *
 * A full handshake's public-key work on P-256 is three point
 * multiplications: the ephemeral share (kG), the ECDSA signature's
 * nonce point (kG again), and the shared secret (k times the client's
 * point).  The first two depend on nothing the client sends, so the loop
 * makes them between connections: a pool of pairs (k, kG), k uniform in
 * [1, n-1] (br_ec_keygen; X25519's clamped), a pool a curve.  A handshake
 * takes a pair for its share or its nonce, or computes inline when the
 * pool is empty (a burst, or load past what the idle time refills).  The
 * CPU spent is the same; a client waits only for the multiplication
 * that needs its share.
 *
 * A pair is used once, for one purpose, and wiped from the pool as it is
 * taken, so no nonce or share is ever used twice.  The pools fill only
 * after precomp_init(), which tls_reseed() calls in each worker after
 * the fork, with fresh entropy, to seed this module's own HMAC-DRBG (and
 * to empty the pools): two workers never hold the same pair.  A curve
 * gets a pool the first time a handshake asks for it, so a service that
 * never meets P-384 spends no idle time on it.  Fixed size: PRECOMP_DEPTH
 * pairs for each of the four curves, in static storage.
 *
 * An ECDSA nonce taken here is random, not RFC 6979's (which hashes the
 * message, so it cannot be made ahead): FIPS 186-4's own method, safe
 * as long as the DRBG is; signatures made with it are no longer byte for
 * byte BearSSL's, and verify the same.
 */
#ifndef TLSGATE_PRECOMP_H
#define TLSGATE_PRECOMP_H

#include <stddef.h>
#include <bearssl.h>

#ifndef PRECOMP_DEPTH
#define PRECOMP_DEPTH	16	/* a burst of 16 handshakes a curve */
#endif

/* Empties the pools and seeds their DRBG. */
void	precomp_init(const void *seed, size_t len);

/*
 * A pair for `curve` into sk (up to 66 bytes) and pub (up to 133: the
 * uncompressed point, X25519's 32 bytes); the length of pub, or 0 when
 * none is ready (the curve then gets a pool).
 */
size_t	precomp_take(int curve, unsigned char *sk, size_t *sklen,
	    unsigned char *pub);

/* Makes one pair where one is wanted; 1 while more are wanted. */
int	precomp_fill(void);

/* 1 while a pool wants a pair: the loop then does not sleep in poll. */
int	precomp_wanted(void);

/*
 * tg_ecdsa_sign()'s contract, with a nonce from the pool when one is
 * ready for the key's curve, else RFC 6979's.
 */
size_t	precomp_ecdsa_sign(const br_ec_impl *impl, const br_hash_class *hf,
	    const void *hash_value, const br_ec_private_key *sk, void *sig);

size_t	precomp_static_bytes(void);
void	precomp_wipe(void);

#endif
