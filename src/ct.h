/* SPDX-License-Identifier: ISC */
/*
 * ct.h - marks for the constant-time check (make ctcheck).
 *
 * ct_secret() says bytes are secret where they are born: a key as
 * loaded, a DRBG's state, a scalar.  ct_public() says the protocol has
 * made bytes public: a signature, a public key, a ciphertext, a MAC's
 * verdict, a length; each call's comment says why.  Built with
 * -DTLSGATE_CTCHECK they tell valgrind's memcheck that secret bytes are
 * undefined, so that it reports every branch and every memory address
 * that depends on one (docs/assurance.md).  In every other build they
 * are nothing.  Owns no state; never changes a byte.
 */
#ifndef TLSGATE_CT_H
#define TLSGATE_CT_H

#ifdef TLSGATE_CTCHECK
#include <valgrind/memcheck.h>

#define ct_secret(p, n)	((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#define ct_public(p, n)	((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define ct_secret(p, n)	((void)(p), (void)(n))
#define ct_public(p, n)	((void)(p), (void)(n))
#endif

#endif
