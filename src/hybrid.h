/*
 * hybrid.h - the server's side of the X25519MLKEM768 key share
 * (draft-ietf-tls-ecdhe-mlkem, GROUP_X25519MLKEM768 in tlswire.h) in TLS 1.3.
 *
 * The client's share is an ML-KEM-768 encapsulation key (1,184 bytes)
 * then an X25519 share (32); the server's is the ML-KEM ciphertext
 * (1,088) then its own X25519 share (32); the shared secret is the
 * ML-KEM shared secret then the X25519 one (64).  ML-KEM comes first in
 * all three, unlike the older X25519Kyber768Draft00.
 *
 * Never allocates or keeps state; every secret it makes is wiped before
 * it returns, the caller wipes the shared secret it gets.
 */
#ifndef TLSGATE_HYBRID_H
#define TLSGATE_HYBRID_H

#include <stddef.h>
#include <bearssl.h>

#define HYBRID_CLIENT_SHARE	(1184 + 32)
#define HYBRID_SERVER_SHARE	(1088 + 32)
#define HYBRID_SHARED		(32 + 32)

/*
 * 1 if `share` (`len` bytes) is a client share the group can take: the
 * right length and an encapsulation key that passes FIPS 203's check
 * (7.2); 0 if not, which earns illegal_parameter.
 */
int	hybrid_check(const unsigned char *share, size_t len);

/*
 * Answer the client's share: encapsulate to its key with a message from
 * `rng`, make an X25519 key from `rng`, write the server's share to
 * `pub` (HYBRID_SERVER_SHARE bytes, `cap` at least that) and the shared
 * secret to `shared` (HYBRID_SHARED bytes).  Returns the share's
 * length, or 0 if the share fails hybrid_check(), its X25519 half gives
 * the all-zero secret (RFC 7748 6.1), or `cap` is short; then `shared`
 * holds nothing secret.
 */
size_t	hybrid_answer(const unsigned char *share, size_t len,
	    const br_prng_class **rng, unsigned char *pub, size_t cap,
	    unsigned char *shared);

#endif
