/* SPDX-License-Identifier: ISC */
/*
 * keccak.c - see keccak.h.  Written from FIPS 202 (sections 3.2 and
 * 5.1, B.2 for the byte order): lanes are little-endian 64-bit words,
 * the tables below are the step mappings' constants computed from the
 * standard's definitions (rho's offsets from 3.2.2, pi's permutation
 * from 3.2.3, iota's round constants from rc(t) of 3.2.5).
 */
#include <string.h>

#include "keccak.h"
#include "wipe.h"

/*
 * iota's round constants (3.2.5, Algorithm 6): RC for round ir has bit
 * 2^j - 1 set to rc(j + 7 ir) of Algorithm 5, for j = 0..6; the 24
 * rounds of Keccak-f[1600] (3.4) are ir = 0..23.
 */
static const uint64_t RC[24] = {
	0x0000000000000001, 0x0000000000008082, 0x800000000000808a,
	0x8000000080008000, 0x000000000000808b, 0x0000000080000001,
	0x8000000080008081, 0x8000000000008009, 0x000000000000008a,
	0x0000000000000088, 0x0000000080008009, 0x000000008000000a,
	0x000000008000808b, 0x800000000000008b, 0x8000000000008089,
	0x8000000000008003, 0x8000000000008002, 0x8000000000000080,
	0x000000000000800a, 0x800000008000000a, 0x8000000080008081,
	0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
};

/*
 * rho (3.2.2, Algorithm 2): lane x + 5y is rotated by RHO[x + 5y], the
 * offsets (t + 1)(t + 2)/2 mod 64 of step 3 for the lane that step 3a
 * reaches at t.  The lane index is FIPS 202's A[x, y], x the fast one
 * (3.1.2), which is also the byte order of the state string (3.1.3).
 */
static const unsigned char RHO[25] = {
	0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39,
	41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
};

/*
 * pi (3.2.3, Algorithm 3): A'[x, y] = A[(x + 3y) mod 5, x], written here
 * the other way round, as where each lane goes: (x, y) moves to
 * (y, 2x + 3y mod 5), so that rho and pi are one pass into b.
 */
static const unsigned char PI[25] = {
	0, 10, 20, 5, 15, 16, 1, 11, 21, 6, 7, 17, 2, 12, 22,
	23, 8, 18, 3, 13, 14, 24, 9, 19, 4,
};

/* The & 63 keeps n = 0 defined: a shift by 64 is undefined in C. */
static uint64_t
rotl(uint64_t x, unsigned n)
{
	return (x << n) | (x >> ((64 - n) & 63));
}

/*
 * Keccak-p[1600, 24] = Keccak-f[1600] (3.3, Algorithm 7; 3.4): 24 rounds
 * of iota . chi . pi . rho . theta on the 25 lanes.  No table is indexed
 * by state or key bits, so its timing does not depend on them.
 */
void
keccak_f1600(uint64_t a[25])
{
	uint64_t b[25], c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
	int r, i;

	for (r = 0; r < 24; r++) {
		/*
		 * theta (3.2.1, Algorithm 1): step 1, C[x] the parity of
		 * column x; step 2, D[x] = C[x - 1] ^ rot(C[x + 1], 1); step
		 * 3, every lane of column x takes D[x].
		 */
		c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20];
		c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21];
		c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22];
		c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23];
		c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24];
		d0 = c4 ^ rotl(c1, 1);
		d1 = c0 ^ rotl(c2, 1);
		d2 = c1 ^ rotl(c3, 1);
		d3 = c2 ^ rotl(c4, 1);
		d4 = c3 ^ rotl(c0, 1);
		for (i = 0; i < 25; i += 5) {
			a[i] ^= d0;
			a[i + 1] ^= d1;
			a[i + 2] ^= d2;
			a[i + 3] ^= d3;
			a[i + 4] ^= d4;
		}
		/* rho, then pi: into b, as chi needs a copy anyway. */
		for (i = 0; i < 25; i++)
			b[PI[i]] = rotl(a[i], RHO[i]);
		/*
		 * chi (3.2.4, Algorithm 4): A[x] ^= ~A[x + 1] & A[x + 2]
		 * along each row, the only non-linear step; then iota
		 * (3.2.5) on lane (0, 0) alone.
		 */
		for (i = 0; i < 25; i += 5) {
			a[i] = b[i] ^ (~b[i + 1] & b[i + 2]);
			a[i + 1] = b[i + 1] ^ (~b[i + 2] & b[i + 3]);
			a[i + 2] = b[i + 2] ^ (~b[i + 3] & b[i + 4]);
			a[i + 3] = b[i + 3] ^ (~b[i + 4] & b[i]);
			a[i + 4] = b[i + 4] ^ (~b[i] & b[i + 1]);
		}
		a[0] ^= RC[r];
	}
}

/*
 * The sponge (4, Algorithm 8) with rate r = `rate` bytes and capacity
 * 1600 - 8r bits.  dsep is the suffix the function appends to M before
 * padding, as the byte B.2 gives: 0x06 for SHA3 (M || 01, 6.1), 0x1f
 * for SHAKE (M || 1111, 6.2).
 */
void
keccak_init(struct keccak *k, unsigned rate, unsigned dsep)
{
	memset(k->a, 0, sizeof(k->a));
	k->rate = rate;
	k->pos = 0;
	k->dsep = (unsigned char)dsep;
	k->squeezing = 0;
}

/*
 * Algorithm 8, steps 5-6 (absorbing), a block of r bytes at a time, as
 * it comes: bytes are XORed into the lanes little-endian (B.2), and the
 * permutation runs when a block is full.  After keccak_out() the sponge
 * squeezes and takes no more input.
 */
void
keccak_update(struct keccak *k, const void *data, size_t len)
{
	const unsigned char *p = data;

	if (k->squeezing)
		return;
	while (len > 0) {
		/* Whole lanes when aligned: the common case, 8x fewer steps. */
		if ((k->pos & 7) == 0 && len >= 8 && k->pos + 8 <= k->rate) {
			uint64_t w = 0;

			for (int i = 7; i >= 0; i--)
				w = w << 8 | p[i];
			k->a[k->pos >> 3] ^= w;
			k->pos += 8;
			p += 8;
			len -= 8;
		} else {
			k->a[k->pos >> 3] ^= (uint64_t)*p++ << (8 * (k->pos & 7));
			k->pos++;
			len--;
		}
		if (k->pos == k->rate) {
			keccak_f1600(k->a);
			k->pos = 0;
		}
	}
}

/*
 * Algorithm 8, steps 7-10 (squeezing): the first call ends the input
 * with the suffix and pad10*1 (5.1, Algorithm 9), then each r bytes of
 * output take one more permutation; calls may ask any lengths (SHAKE's
 * XOF use in ML-KEM's sampling).
 */
void
keccak_out(struct keccak *k, void *out, size_t len)
{
	unsigned char *o = out;

	if (!k->squeezing) {
		/*
		 * pad10*1 after the suffix: the first 1 is the suffix's top
		 * bit, the last is 0x80 of the block's last byte; both may
		 * fall in one byte (B.2's 0x86 / 0x9f), hence XOR, not set.
		 */
		k->a[k->pos >> 3] ^= (uint64_t)k->dsep << (8 * (k->pos & 7));
		k->a[(k->rate - 1) >> 3] ^= (uint64_t)0x80 <<
		    (8 * ((k->rate - 1) & 7));
		keccak_f1600(k->a);
		k->pos = 0;
		k->squeezing = 1;
	}
	while (len > 0) {
		if (k->pos == k->rate) {
			keccak_f1600(k->a);
			k->pos = 0;
		}
		*o++ = (unsigned char)(k->a[k->pos >> 3] >> (8 * (k->pos & 7)));
		k->pos++;
		len--;
	}
}

/* SHA3-256(M) = Keccak[512](M || 01, 256) (6.1): H of ML-KEM. */
void
sha3_256(void *out, const void *data, size_t len)
{
	struct keccak k;

	sha3_256_init(&k);
	keccak_update(&k, data, len);
	keccak_out(&k, out, 32);
	wipe(&k, sizeof(k));
}
