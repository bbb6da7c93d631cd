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

/* rho: lane x + 5y is rotated by RHO[x + 5y]. */
static const unsigned char RHO[25] = {
	0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39,
	41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
};

/* pi: lane (x, y) moves to (y, 2x + 3y mod 5). */
static const unsigned char PI[25] = {
	0, 10, 20, 5, 15, 16, 1, 11, 21, 6, 7, 17, 2, 12, 22,
	23, 8, 18, 3, 13, 14, 24, 9, 19, 4,
};

static uint64_t
rotl(uint64_t x, unsigned n)
{
	return (x << n) | (x >> ((64 - n) & 63));
}

void
keccak_f1600(uint64_t a[25])
{
	uint64_t b[25], c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
	int r, i;

	for (r = 0; r < 24; r++) {
		/* theta */
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
		/* rho and pi */
		for (i = 0; i < 25; i++)
			b[PI[i]] = rotl(a[i], RHO[i]);
		/* chi, iota */
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

void
keccak_init(struct keccak *k, unsigned rate, unsigned dsep)
{
	memset(k->a, 0, sizeof(k->a));
	k->rate = rate;
	k->pos = 0;
	k->dsep = (unsigned char)dsep;
	k->squeezing = 0;
}

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

void
keccak_out(struct keccak *k, void *out, size_t len)
{
	unsigned char *o = out;

	if (!k->squeezing) {
		/* pad10*1 after the domain bits: both ends may share a byte. */
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

void
keccak_wipe(struct keccak *k)
{
	wipe(k, sizeof(*k));
}

void
sha3_256(void *out, const void *data, size_t len)
{
	struct keccak k;

	sha3_256_init(&k);
	keccak_update(&k, data, len);
	keccak_out(&k, out, 32);
	keccak_wipe(&k);
}

void
sha3_512(void *out, const void *data, size_t len)
{
	struct keccak k;

	sha3_512_init(&k);
	keccak_update(&k, data, len);
	keccak_out(&k, out, 64);
	keccak_wipe(&k);
}
