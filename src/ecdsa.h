/* SPDX-License-Identifier: ISC */
/*
 * ecdsa.h - ECDSA signing (FIPS 186-4 6.4) with the deterministic nonces
 * of RFC 6979, over BearSSL 0.6's i31 big integers and the caller's EC
 * implementation: the server's signature in CertificateVerify (TLS 1.3)
 * and ServerKeyExchange (TLS 1.2).
 *
 * Owns: the nonce k (RFC 6979 3.2, drawn exactly as BearSSL draws it),
 * r = x(kG) mod n, s = (h + x r) / k mod n, and the DER encoding of
 * (r, s).
 *
 * Never: allocates, keeps state, reads anything but its arguments,
 * verifies (BearSSL's br_ecdsa_*_vrfy_* do that), or signs on a curve
 * other than P-256, P-384 and P-521.
 *
 * Why not BearSSL's br_ecdsa_i31_sign_asn1: it inverts k by Fermat,
 * k^(n-2) mod n with br_i31_modpow, about a quarter of a P-256
 * signature (0.93 M of 3.6 M instructions at -O3); br_i31_moddiv divides
 * by k with a constant-time binary GCD in about 0.08 M.  Everything else
 * is BearSSL's own code (the DRBG, bits2int, mulgen, the i31
 * arithmetic), so the signatures are byte for byte those of
 * br_ecdsa_i31_sign_asn1 (tests/unit/test_ecdsa.c checks it over many
 * keys, hashes and the three curves).  The i31 functions are BearSSL
 * internals: see "Audit notes" in docs/engine.md.
 *
 * Constant time: the i31 functions, the curves' mulgen (p256_m31,
 * prime_i31) and br_i31_moddiv neither branch nor index memory on
 * values, only on the order's length.  Two branches depend on secrets,
 * as in BearSSL: a private key outside [1, n-1] is refused before it is
 * used, and RFC 6979 draws again when a candidate is 0 or >= n, which
 * shows only that a discarded candidate was out of range (probability
 * about 2^-32 on P-256, below 2^-190 on P-384 and P-521).  The key, the
 * nonce and the intermediates on the stack are wiped before return.
 */
#ifndef TLSGATE_ECDSA_H
#define TLSGATE_ECDSA_H

#include <stddef.h>
#include <bearssl.h>

/* Longest DER signature: P-521 (bearssl_ec.h's table: 72, 104, 139). */
#define TG_ECDSA_SIG_MAX	139

/*
 * Signs `hash_value` (as many bytes as `hf` outputs; `hf` is also the
 * hash of RFC 6979's HMAC-DRBG) with `sk`, through the curve
 * implementation `impl` (tlsgate passes br_ec_get_default()), and
 * writes the ASN.1 DER signature to `sig`, which has room for
 * TG_ECDSA_SIG_MAX bytes.  Returns the signature's length, or 0 with
 * nothing written if the curve is not P-256, P-384 or P-521, `impl`
 * does not support it, or the private key is not in [1, n-1].
 *
 * With k NULL, the nonce is RFC 6979's, and the contract and the output
 * are those of BearSSL's br_ecdsa_i31_sign_asn1 (bearssl_ec.h).  Like
 * BearSSL's, it does not draw again for the r = 0 or s = 0 of FIPS 186-4
 * (probability about 2^-255): a retry would change the bytes.
 *
 * Else the nonce is one made ahead (precomp.h): k, the order's length in
 * bytes, in [1, n-1] (0 is returned for a k outside the range), and kg =
 * kG uncompressed (1 + 2 x that length).  Never reads or changes k or kg
 * after it returns: the caller wipes them.
 */
size_t	tg_ecdsa_sign(const br_ec_impl *impl, const br_hash_class *hf,
	    const void *hash_value, const br_ec_private_key *sk, void *sig,
	    const unsigned char *k, const unsigned char *kg);

#endif
