/* SPDX-License-Identifier: ISC */
/*
 * prim.h - which of BearSSL 0.6's constant-time implementations of
 * each primitive the records and key exchanges use.
 *
 * BearSSL's own defaults are chosen at its compile time and are not
 * always the fastest on the CPU at hand (its SSE2 ChaCha20 can be half
 * the speed of its portable one).  prim_choose() times, once at
 * start-up and in a few milliseconds, every constant-time candidate the
 * CPU offers over a small buffer (a point multiplication for EC) and
 * keeps the fastest of each kind.  Never a table-based implementation
 * (aes_big, aes_small): their timing depends on the key and data.
 *
 * Candidates, in BearSSL's order of preference (ties go to the first):
 *   chacha20   sse2, ct
 *   poly1305   ctmulq, ctmul, ctmul32, i15
 *   aes_ctr    x86ni, pwr8, ct64, ct
 *   ghash      pclmul, pwr8, ctmul64, ctmul, ctmul32
 *   ec         m31, m15 (br_ec_all_*: p256_*, c25519_* and prime_i* of
 *              the same word size; timed on a P-256 and an X25519 key)
 * A candidate twice as slow as the best after a round is not timed again.
 *
 * Until prim_choose() runs, prim_get() gives BearSSL's defaults, as
 * BearSSL's own engine would pick them.
 */
#ifndef TLSGATE_PRIM_H
#define TLSGATE_PRIM_H

#include <stddef.h>
#include <bearssl.h>

enum { PRIM_CHACHA20, PRIM_POLY1305, PRIM_AES_CTR, PRIM_GHASH, PRIM_EC,
	PRIM_KINDS };

struct prim {
	br_chacha20_run			chacha;
	br_poly1305_run			poly;
	const br_block_ctr_class	*ctr;
	br_ghash			ghash;
	const br_ec_impl		*ec;
	unsigned char			pick[PRIM_KINDS];	/* candidate */
};

/* The implementations in use. */
const struct prim *prim_get(void);

/*
 * Time every available candidate of every kind; keep the fastest.  pin
 * (NULL: none) names candidates to take untimed, in prim_describe()'s
 * words ("chacha20=ct aes_ctr=x86ni"): for measurements that must not
 * depend on a timing, or an operator who knows better.  Returns -1,
 * choosing nothing, if pin names a kind or candidate that is not there
 * (or that the CPU lacks).
 */
int	prim_choose(const char *pin);

/* "chacha20=ct poly1305=ctmulq ...": the choice, for -t and the log. */
void	prim_describe(char *buf, size_t cap);

#endif
