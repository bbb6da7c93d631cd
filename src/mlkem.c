/* SPDX-License-Identifier: ISC */
/*
 * mlkem.c - see mlkem.h.  Written from FIPS 203 (August 2024): the
 * algorithm and step numbers below are the standard's.
 */
#include <stdint.h>
#include <string.h>

#include "keccak.h"
#include "mlkem.h"
#include "ct.h"
#include "wipe.h"

#define Q	3329
#define N	256
#define KMAX	4
#define ETAMAX	2
#define PB	((size_t)384)	/* bytes of a ByteEncode12 polynomial */

typedef uint16_t poly[N];

/* Table 2.  eta1 above ETAMAX (ML-KEM-512's 3) is not offered. */
const struct mlkem mlkem768 = { 3, 2, 10, 4, MLKEM768_EK_LEN,
    MLKEM768_CT_LEN };
const struct mlkem mlkem1024 = { 4, 2, 11, 5, MLKEM1024_EK_LEN,
    MLKEM1024_CT_LEN };

/* zeta^BitRev7(i) mod q, zeta = 17 (the NTT's twiddles, 4.3). */
static const uint16_t ZETA[128] = {
	1, 1729, 2580, 3289, 2642, 630, 1897, 848, 1062, 1919, 193, 797,
	2786, 3260, 569, 1746, 296, 2447, 1339, 1476, 3046, 56, 2240, 1333,
	1426, 2094, 535, 2882, 2393, 2879, 1974, 821, 289, 331, 3253, 1756,
	1197, 2304, 2277, 2055, 650, 1977, 2513, 632, 2865, 33, 1320, 1915,
	2319, 1435, 807, 452, 1438, 2868, 1534, 2402, 2647, 2617, 1481, 648,
	2474, 3110, 1227, 910, 17, 2761, 583, 2649, 1637, 723, 2288, 1100,
	1409, 2662, 3281, 233, 756, 2156, 3015, 3050, 1703, 1651, 2789, 1789,
	1847, 952, 1461, 2687, 939, 2308, 2437, 2388, 733, 2337, 268, 641,
	1584, 2298, 2037, 3220, 375, 2549, 2090, 1645, 1063, 319, 2773, 757,
	2099, 561, 2466, 2594, 2804, 1092, 403, 1026, 1143, 2150, 2775, 886,
	1722, 1212, 1874, 1029, 2110, 2935, 885, 2154,
};

/*
 * floor(t / q), exact for every t < 41,522,616 (checked exhaustively),
 * which covers 3 q^2: the sum of any products below.
 */
static uint32_t
divq(uint32_t t)
{
	return (uint32_t)(((uint64_t)t * 20642679) >> 36);
}

static uint32_t
modq(uint32_t t)
{
	return t - Q * divq(t);
}

/* x mod q for x < 2q, without a branch. */
static uint32_t
csubq(uint32_t x)
{
	x -= Q;
	return x + (Q & (0u - (x >> 31)));
}

/* Algorithm 9: NTT, in place (steps 3-10; zeta of step 5 from ZETA). */
static void
ntt(poly f)
{
	unsigned len, start, j, i = 1;

	for (len = 128; len >= 2; len >>= 1)
		for (start = 0; start < N; start += 2 * len) {
			uint32_t z = ZETA[i++];

			for (j = start; j < start + len; j++) {
				uint32_t t = modq(z * f[j + len]);

				f[j + len] = (uint16_t)csubq(f[j] + Q - t);
				f[j] = (uint16_t)csubq(f[j] + t);
			}
		}
}

/* Algorithm 10: NTT^-1, in place; step 14's 3303 = 128^-1 mod q. */
static void
intt(poly f)
{
	unsigned len, start, j, i = 127;

	for (len = 2; len <= 128; len <<= 1)
		for (start = 0; start < N; start += 2 * len) {
			uint32_t z = ZETA[i--];

			for (j = start; j < start + len; j++) {
				uint32_t t = f[j];

				uint32_t d = f[j + len] + Q - t;

				f[j] = (uint16_t)csubq(t + f[j + len]);
				f[j + len] = (uint16_t)modq(z * d);
			}
		}
	for (j = 0; j < N; j++)
		f[j] = (uint16_t)modq(3303u * f[j]);
}

/*
 * acc += f * g in the NTT domain: Algorithm 11 (MultiplyNTTs), each
 * pair by Algorithm 12 (BaseCaseMultiply, steps 1-2) with gamma =
 * zeta^(2 BitRev7(i) + 1) (4.3.1): that is ZETA[64 + i / 2] for even i,
 * its negative for odd i, since zeta^128 = -1.
 */
static void
mul_acc(poly acc, const poly f, const poly g)
{
	for (size_t i = 0; i < N / 2; i++) {
		uint32_t a0 = f[2 * i], a1 = f[2 * i + 1];
		uint32_t b0 = g[2 * i], b1 = g[2 * i + 1];
		uint32_t z = i & 1 ? Q - ZETA[64 + i / 2] : ZETA[64 + i / 2];
		uint32_t c0 = modq(a0 * b0 + modq(a1 * b1) * z);
		uint32_t c1 = modq(a0 * b1 + a1 * b0);

		acc[2 * i] = (uint16_t)csubq(acc[2 * i] + c0);
		acc[2 * i + 1] = (uint16_t)csubq(acc[2 * i + 1] + c1);
	}
}

/*
 * Algorithm 7: SampleNTT(rho || b0 || b1), rejection sampling of
 * SHAKE128's output (steps 4-14): 3 bytes give two 12-bit candidates,
 * kept if below q.  The branches depend on the public seed only.
 */
static void
sample_ntt(poly a, const unsigned char *rho, unsigned b0, unsigned b1)
{
	unsigned char buf[KECCAK_SHAKE128], ij[2];
	struct keccak x;
	unsigned n = 0;

	shake128_init(&x);
	keccak_update(&x, rho, 32);
	ij[0] = (unsigned char)b0;
	ij[1] = (unsigned char)b1;
	keccak_update(&x, ij, 2);
	while (n < N) {
		keccak_out(&x, buf, sizeof(buf));
		for (unsigned p = 0; p < sizeof(buf) && n < N; p += 3) {
			unsigned d1 = buf[p] | (buf[p + 1] & 0x0f) << 8;
			unsigned d2 = buf[p + 1] >> 4 | buf[p + 2] << 4;

			if (d1 < Q)
				a[n++] = (uint16_t)d1;
			if (d2 < Q && n < N)
				a[n++] = (uint16_t)d2;
		}
	}
}

/*
 * Algorithm 8: SamplePolyCBD_eta(PRF_eta(r, nonce)), PRF being SHAKE256
 * to 64 eta bytes (4.1, eq. 4.3): coefficient i is the sum of bits
 * 2 i eta .. + eta - 1 less the sum of the next eta (steps 3-5).
 */
static void
sample_cbd(poly f, const unsigned char *r, unsigned nonce, unsigned eta)
{
	unsigned char buf[64 * ETAMAX], nb = (unsigned char)nonce;
	struct keccak x;
	unsigned i, j, bit = 0;

	shake256_init(&x);
	keccak_update(&x, r, 32);
	keccak_update(&x, &nb, 1);
	keccak_out(&x, buf, (size_t)64 * eta);
	for (i = 0; i < N; i++) {
		uint32_t a = 0, b = 0;

		for (j = 0; j < eta; j++, bit++)
			a += buf[bit >> 3] >> (bit & 7) & 1;
		for (j = 0; j < eta; j++, bit++)
			b += buf[bit >> 3] >> (bit & 7) & 1;
		f[i] = (uint16_t)csubq(a + Q - b);
	}
	wipe(buf, sizeof(buf));
	wipe(&x, sizeof(x));
}

/* Algorithm 6: ByteDecode12 of one polynomial (PB bytes), below 4096. */
static void
decode12(poly f, const unsigned char *b)
{
	for (size_t i = 0; i < N / 2; i++, b += 3) {
		f[2 * i] = (uint16_t)(b[0] | (b[1] & 0x0f) << 8);
		f[2 * i + 1] = (uint16_t)(b[1] >> 4 | b[2] << 4);
	}
}

/*
 * ByteEncode_d(Compress_d(f)) (Algorithm 5; Compress_d is eq. 4.7,
 * round(2^d x / q) mod 2^d, x in [0, q)): 32 d bytes to `out`, bits
 * least significant first.  Returns the end.
 */
static unsigned char *
encode_compressed(unsigned char *out, const poly f, unsigned d)
{
	uint32_t acc = 0;
	unsigned nb = 0;

	for (unsigned i = 0; i < N; i++) {
		uint32_t c = divq(((uint32_t)f[i] << d) + Q / 2) &
		    ((1u << d) - 1);

		acc |= c << nb;
		for (nb += d; nb >= 8; nb -= 8, acc >>= 8)
			*out++ = (unsigned char)acc;
	}
	return out;
}

/*
 * 7.2, "Encapsulation key check": step 1, the length 384 k + 32; step
 * 2, the modulus check, as "every decoded coefficient below q".
 */
int
mlkem_check_ek(const struct mlkem *p, const unsigned char *ek, size_t len)
{
	poly f;
	unsigned bad = 0;

	if (ek == NULL || len != p->eklen)
		return 0;
	for (unsigned i = 0; i < p->k; i++) {
		decode12(f, ek + PB * i);
		for (unsigned j = 0; j < N; j++)
			bad |= (unsigned)(Q - 1 - f[j]) >> 31;
	}
	return bad == 0;
}

/* Algorithm 14: K-PKE.Encrypt(ek, m, r), into ct. */
static void
kpke_encrypt(const struct mlkem *p, unsigned char *ct,
    const unsigned char *ek, const unsigned char *m, const unsigned char *r)
{
	const unsigned char *rho = ek + PB * p->k;	/* step 3 */
	const unsigned k = p->k;
	poly y[KMAX], acc, t;
	unsigned i, j;

	/* Steps 9-12 and 18: y, then NTT(y). */
	for (i = 0; i < k; i++) {
		sample_cbd(y[i], r, i, p->eta1);
		ntt(y[i]);
	}
	/*
	 * Steps 4-8, 13-16, 19, 22: u = NTT^-1(A^T y) + e1, row i of A^T
	 * being SampleNTT(rho || i || j), then c1.
	 */
	for (i = 0; i < k; i++) {
		memset(acc, 0, sizeof(acc));
		for (j = 0; j < k; j++) {
			sample_ntt(t, rho, i, j);
			mul_acc(acc, t, y[j]);
		}
		intt(acc);
		sample_cbd(t, r, k + i, 2);
		for (j = 0; j < N; j++)
			acc[j] = (uint16_t)csubq(acc[j] + t[j]);
		ct = encode_compressed(ct, acc, p->du);
	}
	/*
	 * Steps 2, 17, 20, 21, 23: v = NTT^-1(t^T y) + e2 + Decompress1(m),
	 * then c2.
	 */
	memset(acc, 0, sizeof(acc));
	for (j = 0; j < k; j++) {
		decode12(t, ek + PB * j);
		mul_acc(acc, t, y[j]);
	}
	intt(acc);
	sample_cbd(t, r, 2 * k, 2);
	for (j = 0; j < N; j++) {
		uint32_t bit = m[j >> 3] >> (j & 7) & 1;
		uint32_t mu = (0u - bit) & ((Q + 1) / 2);

		acc[j] = (uint16_t)csubq(csubq(acc[j] + t[j]) + mu);
	}
	(void)encode_compressed(ct, acc, p->dv);
	wipe(y, sizeof(y));
	wipe(acc, sizeof(acc));
	wipe(t, sizeof(t));
}

/* Algorithm 17: ML-KEM.Encaps_internal(ek, m), after the 7.2 check. */
int
mlkem_encaps_m(const struct mlkem *p, unsigned char *ct, unsigned char *ss,
    const unsigned char *ek, size_t eklen, const unsigned char *m)
{
	unsigned char kr[64];
	struct keccak g;

	if (!mlkem_check_ek(p, ek, eklen))
		return 0;
	/* Step 1: (K, r) = G(m || H(ek)). */
	sha3_256(kr, ek, eklen);
	sha3_512_init(&g);
	keccak_update(&g, m, MLKEM_M_LEN);
	keccak_update(&g, kr, 32);
	keccak_out(&g, kr, 64);
	wipe(&g, sizeof(g));
	kpke_encrypt(p, ct, ek, m, kr + 32);	/* step 2 */
	memcpy(ss, kr, MLKEM_SS_LEN);
	wipe(kr, sizeof(kr));
	return 1;
}

/* Algorithm 20: ML-KEM.Encaps(ek); step 1's m from `rng`. */
int
mlkem_encaps(const struct mlkem *p, unsigned char *ct, unsigned char *ss,
    const unsigned char *ek, size_t eklen, const br_prng_class **rng)
{
	unsigned char m[MLKEM_M_LEN];
	int ok;

	(*rng)->generate(rng, m, sizeof(m));
	ct_secret(m, sizeof(m));
	ok = mlkem_encaps_m(p, ct, ss, ek, eklen, m);
	wipe(m, sizeof(m));
	return ok;
}
