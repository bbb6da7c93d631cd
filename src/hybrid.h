/* SPDX-License-Identifier: ISC */
/*
 * hybrid.h - the server's side of the ECDHE-ML-KEM hybrid key shares of
 * draft-ietf-tls-ecdhe-mlkem in TLS 1.3: X25519MLKEM768 (0x11ec),
 * SecP256r1MLKEM768 (0x11eb) and SecP384r1MLKEM1024 (0x11ed), the
 * GROUP_* of tlswire.h.
 *
 * X25519MLKEM768 puts ML-KEM first everywhere: the client's share is an
 * ML-KEM-768 encapsulation key (1,184 bytes) then an X25519 share (32),
 * the server's the ciphertext (1,088) then its X25519 share, the secret
 * the ML-KEM secret then the X25519 one.  The two NIST-curve groups put
 * ECDH first everywhere: the client's uncompressed point (65 or 97
 * bytes) then the ML-KEM-768 or -1024 key (1,184 or 1,568), the
 * server's point then the ciphertext (1,088 or 1,568), the ECDH secret
 * (the x-coordinate, 32 or 48) then the ML-KEM secret.
 *
 * Never allocates or keeps state; every secret it makes is wiped before
 * it returns, the caller wipes the shared secret it gets.
 */
#ifndef TLSGATE_HYBRID_H
#define TLSGATE_HYBRID_H

#include <stddef.h>
#include <bearssl.h>

/* The largest of each, all SecP384r1MLKEM1024's. */
#define HYBRID_CLIENT_MAX	(97 + 1568)
#define HYBRID_SERVER_MAX	(97 + 1568)
#define HYBRID_SHARED_MAX	(48 + 32)

/* The server's share length for one of the three, 0 for another group. */
size_t	hybrid_server_share(unsigned group);

/*
 * 1 if `share` (`len` bytes) is a client share `group` can take: the
 * right length and an encapsulation key that passes FIPS 203's check
 * (7.2); 0 if not, which earns illegal_parameter.  The ECDH half is
 * checked when used (on its curve, not a small-order X25519 point).
 */
int	hybrid_check(unsigned group, const unsigned char *share, size_t len);

/*
 * Answer the client's share: encapsulate to its key with a message from
 * `rng`, make an ECDH key from `rng`, write the server's share to `pub`
 * (`cap` bytes at least) and the shared secret to `shared`
 * (HYBRID_SHARED_MAX bytes at least), its length to *sharedlen.
 * Returns the share's length, or 0 if the share fails hybrid_check(),
 * its ECDH half is not a point of the curve or gives X25519's all-zero
 * secret (RFC 7748 6.1), or `cap` is short; then `shared` holds nothing
 * secret.
 */
size_t	hybrid_answer(unsigned group, const unsigned char *share, size_t len,
	    const br_prng_class **rng, unsigned char *pub, size_t cap,
	    unsigned char *shared, size_t *sharedlen);

#endif
