/* SPDX-License-Identifier: ISC */
/*
 * wipe.h - the tree's one wipe and one constant-time compare.
 *
 * wipe() writes through a volatile pointer, so the stores cannot be
 * dropped as dead even when the object's life ends on the next line
 * (C11 5.1.2.3: volatile accesses are observable behaviour).  ct_eq()
 * looks at every byte whatever it finds, for MACs, tags, Finished,
 * binders and session IDs.  A leaf: it includes only <stddef.h>, so the
 * standalone modules (cache.c, ecdsa.c) and the fuzz targets that link
 * one file take it without anything else.
 */
#ifndef TLSGATE_WIPE_H
#define TLSGATE_WIPE_H

#include <stddef.h>

static inline void
wipe(void *p, size_t len)
{
	volatile unsigned char *v = p;

	for (size_t i = 0; i < len; i++)
		v[i] = 0;
}

/* 1 if the `len` bytes at `a` and `b` are equal, in constant time. */
static inline int
ct_eq(const void *a, const void *b, size_t len)
{
	const unsigned char *x = a, *y = b;
	unsigned d = 0;

	for (size_t i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return (int)(1 & ((d - 1) >> 8));
}

#endif
