/* SPDX-License-Identifier: ISC */
/*
 * mlkem_ref.c - see mlkem_ref.h.  Algorithm numbers are FIPS 203's.
 */
#include <stdint.h>
#include <string.h>

#include "keccak.h"
#include "mlkem_ref.h"

#define Q	3329

typedef int32_t rpoly[256];

struct params {
	unsigned	k, eta1, du, dv;
};

static struct params
params(unsigned k)
{
	struct params p = { k, k == 2 ? 3 : 2, k == 4 ? 11 : 10,
	    k == 4 ? 5 : 4 };

	return p;
}

static int32_t
md(int64_t x)
{
	int32_t r = (int32_t)(x % Q);

	return r < 0 ? r + Q : r;
}

static unsigned
bitrev7(unsigned i)
{
	unsigned r = 0;

	for (unsigned b = 0; b < 7; b++)
		r |= (i >> b & 1) << (6 - b);
	return r;
}

/* 17^e mod q, from a table of all powers made on first use. */
static int32_t
zpow(unsigned e)
{
	static int32_t pw[256];

	if (pw[0] == 0) {
		pw[0] = 1;
		for (unsigned i = 1; i < 256; i++)
			pw[i] = pw[i - 1] * 17 % Q;
	}
	return pw[e % 256];
}

/* Algorithm 9. */
static void
r_ntt(rpoly f)
{
	unsigned i = 1;

	for (unsigned len = 128; len >= 2; len /= 2)
		for (unsigned s = 0; s < 256; s += 2 * len) {
			int32_t z = zpow(bitrev7(i++));

			for (unsigned j = s; j < s + len; j++) {
				int32_t t = md((int64_t)z * f[j + len]);

				f[j + len] = md(f[j] - t);
				f[j] = md(f[j] + t);
			}
		}
}

/* Algorithm 10. */
static void
r_intt(rpoly f)
{
	unsigned i = 127;

	for (unsigned len = 2; len <= 128; len *= 2)
		for (unsigned s = 0; s < 256; s += 2 * len) {
			int32_t z = zpow(bitrev7(i--));

			for (unsigned j = s; j < s + len; j++) {
				int32_t t = f[j];

				f[j] = md(t + f[j + len]);
				f[j + len] = md((int64_t)z * (f[j + len] - t));
			}
		}
	for (unsigned j = 0; j < 256; j++)
		f[j] = md((int64_t)f[j] * 3303);
}

/* h += f x g: Algorithms 11 and 12. */
static void
r_mul_acc(rpoly h, const rpoly f, const rpoly g)
{
	for (unsigned i = 0; i < 128; i++) {
		int64_t gm = zpow(2 * bitrev7(i) + 1);
		int64_t a0 = f[2 * i], a1 = f[2 * i + 1];
		int64_t b0 = g[2 * i], b1 = g[2 * i + 1];

		h[2 * i] = md(h[2 * i] + a0 * b0 + md(a1 * b1) * gm);
		h[2 * i + 1] = md(h[2 * i + 1] + a0 * b1 + a1 * b0);
	}
}

/* Algorithm 4. */
static unsigned
bit(const unsigned char *b, size_t i)
{
	return b[i / 8] >> (i % 8) & 1;
}

/* Algorithm 5, ByteEncode_d. */
static void
r_encode(unsigned char *out, const rpoly f, unsigned d)
{
	memset(out, 0, 32 * d);
	for (size_t i = 0; i < 256; i++)
		for (unsigned j = 0; j < d; j++)
			out[(i * d + j) / 8] |= (unsigned char)
			    (((unsigned)f[i] >> j & 1) << ((i * d + j) % 8));
}

/* Algorithm 6, ByteDecode_d (mod q for d = 12). */
static void
r_decode(rpoly f, const unsigned char *in, unsigned d)
{
	for (size_t i = 0; i < 256; i++) {
		int32_t v = 0;

		for (unsigned j = 0; j < d; j++)
			v |= (int32_t)bit(in, i * d + j) << j;
		f[i] = d == 12 ? v % Q : v;
	}
}

/* Eq. 4.7 and 4.8. */
static int32_t
compress(int32_t x, unsigned d)
{
	return (int32_t)(((((int64_t)x << d) + Q / 2) / Q) % (1 << d));
}

static int32_t
decompress(int32_t y, unsigned d)
{
	return (int32_t)(((int64_t)y * Q + (1 << (d - 1))) >> d);
}

/* Algorithm 7 over rho || j || i. */
static void
r_sample_ntt(rpoly a, const unsigned char *rho, unsigned j, unsigned i)
{
	unsigned char c[3], b[2] = { (unsigned char)j, (unsigned char)i };
	struct keccak x;
	unsigned n = 0;

	shake128_init(&x);
	keccak_update(&x, rho, 32);
	keccak_update(&x, b, 2);
	while (n < 256) {
		int32_t d1, d2;

		keccak_out(&x, c, 3);
		d1 = c[0] + 256 * (c[1] % 16);
		d2 = c[1] / 16 + 16 * c[2];
		if (d1 < Q)
			a[n++] = d1;
		if (d2 < Q && n < 256)
			a[n++] = d2;
	}
}

/* Algorithm 8 over PRF_eta(s, nonce). */
static void
r_cbd(rpoly f, const unsigned char *s, unsigned nonce, unsigned eta)
{
	unsigned char b[64 * 3], n = (unsigned char)nonce;
	struct keccak x;

	shake256_init(&x);
	keccak_update(&x, s, 32);
	keccak_update(&x, &n, 1);
	keccak_out(&x, b, 64 * eta);
	for (size_t i = 0; i < 256; i++) {
		int32_t u = 0, v = 0;

		for (unsigned j = 0; j < eta; j++) {
			u += (int32_t)bit(b, 2 * i * eta + j);
			v += (int32_t)bit(b, 2 * i * eta + eta + j);
		}
		f[i] = md(u - v);
	}
}

static void
g_hash(unsigned char out[64], const unsigned char *a, size_t alen,
    const unsigned char *b, size_t blen)
{
	struct keccak x;

	sha3_512_init(&x);
	keccak_update(&x, a, alen);
	keccak_update(&x, b, blen);
	keccak_out(&x, out, 64);
}

/* Algorithm 13, K-PKE.KeyGen(d). */
static void
kpke_keygen(const struct params *p, const unsigned char *d,
    unsigned char *ek, unsigned char *dk)
{
	static rpoly a[4][4], s[4], e[4], t[4];
	unsigned char rs[64], kb = (unsigned char)p->k;
	unsigned i, j, n = 0;

	g_hash(rs, d, 32, &kb, 1);
	for (i = 0; i < p->k; i++)
		for (j = 0; j < p->k; j++)
			r_sample_ntt(a[i][j], rs, j, i);
	for (i = 0; i < p->k; i++)
		r_cbd(s[i], rs + 32, n++, p->eta1);
	for (i = 0; i < p->k; i++)
		r_cbd(e[i], rs + 32, n++, p->eta1);
	for (i = 0; i < p->k; i++) {
		r_ntt(s[i]);
		r_ntt(e[i]);
	}
	for (i = 0; i < p->k; i++) {
		memcpy(t[i], e[i], sizeof(rpoly));
		for (j = 0; j < p->k; j++)
			r_mul_acc(t[i], a[i][j], s[j]);
		r_encode(ek + 384 * i, t[i], 12);
		r_encode(dk + 384 * i, s[i], 12);
	}
	memcpy(ek + 384 * p->k, rs, 32);
}

/* Algorithm 14, K-PKE.Encrypt(ek, m, r). */
static void
kpke_encrypt(const struct params *p, const unsigned char *ek,
    const unsigned char *m, const unsigned char *r, unsigned char *ct)
{
	static rpoly a[4][4], t[4], y[4], u[4], v, e2;
	const unsigned char *rho = ek + 384 * p->k;
	unsigned i, j, n = 0;

	for (i = 0; i < p->k; i++)
		r_decode(t[i], ek + 384 * i, 12);
	for (i = 0; i < p->k; i++)
		for (j = 0; j < p->k; j++)
			r_sample_ntt(a[i][j], rho, j, i);
	for (i = 0; i < p->k; i++)
		r_cbd(y[i], r, n++, p->eta1);
	for (i = 0; i < p->k; i++)
		r_cbd(u[i], r, n++, 2);		/* e1, u added below */
	r_cbd(e2, r, n, 2);
	for (i = 0; i < p->k; i++)
		r_ntt(y[i]);
	for (i = 0; i < p->k; i++) {
		rpoly acc = { 0 };

		for (j = 0; j < p->k; j++)
			r_mul_acc(acc, a[j][i], y[j]);
		r_intt(acc);
		for (j = 0; j < 256; j++)
			u[i][j] = compress(md(u[i][j] + acc[j]), p->du);
		r_encode(ct + 32 * p->du * i, u[i], p->du);
	}
	memset(v, 0, sizeof(v));
	for (i = 0; i < p->k; i++)
		r_mul_acc(v, t[i], y[i]);
	r_intt(v);
	for (j = 0; j < 256; j++)
		v[j] = compress(md(v[j] + e2[j] +
		    decompress((int32_t)bit(m, j), 1)), p->dv);
	r_encode(ct + 32 * p->du * p->k, v, p->dv);
}

/* Algorithm 15, K-PKE.Decrypt(dk, c). */
static void
kpke_decrypt(const struct params *p, const unsigned char *dk,
    const unsigned char *ct, unsigned char m[32])
{
	static rpoly u[4], s[4];
	rpoly v, w = { 0 };
	unsigned i, j;

	for (i = 0; i < p->k; i++) {
		r_decode(u[i], ct + 32 * p->du * i, p->du);
		for (j = 0; j < 256; j++)
			u[i][j] = decompress(u[i][j], p->du);
		r_decode(s[i], dk + 384 * i, 12);
		r_ntt(u[i]);
		r_mul_acc(w, s[i], u[i]);
	}
	r_intt(w);
	r_decode(v, ct + 32 * p->du * p->k, p->dv);
	memset(m, 0, 32);
	for (j = 0; j < 256; j++)
		m[j / 8] |= (unsigned char)(compress(md(decompress(v[j],
		    p->dv) - w[j]), 1) << (j % 8));
}

void
ref_keygen(unsigned k, const unsigned char d[32], const unsigned char z[32],
    unsigned char *ek, unsigned char *dk)
{
	struct params p = params(k);

	kpke_keygen(&p, d, ek, dk);
	memcpy(dk + 384 * k, ek, REF_EK_LEN(k));
	sha3_256(dk + 768 * k + 32, ek, REF_EK_LEN(k));
	memcpy(dk + 768 * k + 64, z, 32);
}

void
ref_encaps(unsigned k, const unsigned char *ek, const unsigned char m[32],
    unsigned char *ct, unsigned char ss[32])
{
	struct params p = params(k);
	unsigned char h[32], kr[64];

	sha3_256(h, ek, REF_EK_LEN(k));
	g_hash(kr, m, 32, h, 32);
	kpke_encrypt(&p, ek, m, kr + 32, ct);
	memcpy(ss, kr, 32);
}

void
ref_decaps(unsigned k, const unsigned char *dk, const unsigned char *ct,
    unsigned char ss[32])
{
	static unsigned char c2[1568];
	struct params p = params(k);
	const unsigned char *ek = dk + 384 * k, *h = dk + 768 * k + 32;
	const unsigned char *z = h + 32;
	unsigned char m[32], kr[64];
	size_t clen = REF_CT_LEN(k);
	struct keccak x;

	kpke_decrypt(&p, dk, ct, m);
	g_hash(kr, m, 32, h, 32);
	kpke_encrypt(&p, ek, m, kr + 32, c2);
	if (memcmp(c2, ct, clen) == 0) {
		memcpy(ss, kr, 32);
		return;
	}
	shake256_init(&x);			/* J(z || c) */
	keccak_update(&x, z, 32);
	keccak_update(&x, ct, clen);
	keccak_out(&x, ss, 32);
}
