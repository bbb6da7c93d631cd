/* SPDX-License-Identifier: ISC */
/*
 * primpin.h - the tests' way to put one implementation of a primitive
 * in use (prim.h): by candidate index, through the pin tlsgate itself
 * takes (TLSGATE_PRIMITIVES), so the product carries no test-only entry
 * point.  For test_prim.c, test_tlscrypto.c and ctdrive.c.
 */
#ifndef TLSGATE_PRIMPIN_H
#define TLSGATE_PRIMPIN_H

#include <stdio.h>
#include <string.h>

#include "prim.h"

/*
 * prim.h's candidates, in its order: a candidate's index here is its
 * pick[].  test_prim checks that prim.c takes each name at its index.
 */
#define PRIMPIN_NCAND	5
static const char *const primpin_kinds[PRIM_KINDS] = { "chacha20",
	"poly1305", "aes_ctr", "ghash", "ec" };
static const char *const primpin_names[PRIM_KINDS][PRIMPIN_NCAND] = {
	{ "sse2", "ct" },
	{ "ctmulq", "ctmul", "ctmul32", "i15" },
	{ "x86ni", "pwr8", "ct64", "ct" },
	{ "pclmul", "pwr8", "ctmul64", "ctmul", "ctmul32" },
	{ "m31", "m15" },
};

/*
 * Candidate i of kind k in use, every other kind left as it is: the
 * choice as prim_describe() words it, then k's word, which comes later
 * and wins, so nothing is timed.  1 if done, 0 if the CPU (or the build)
 * lacks it, -1 past the last candidate.
 */
static inline int
prim_pin(int k, size_t i)
{
	char pin[200];
	size_t n;

	if (i >= PRIMPIN_NCAND || primpin_names[k][i] == NULL)
		return -1;
	prim_describe(pin, sizeof(pin));
	n = strlen(pin);
	snprintf(pin + n, sizeof(pin) - n, " %s=%s", primpin_kinds[k],
	    primpin_names[k][i]);
	return prim_choose(pin) == 0;
}

#endif
