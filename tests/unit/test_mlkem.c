/* SPDX-License-Identifier: ISC */
/*
 * test_mlkem.c - src/mlkem.c against NIST's ML-KEM-768 and ML-KEM-1024
 * encapsulation vectors (tests/unit/mlkem_vectors.txt and
 * mlkem1024_vectors.txt, from the ACVP server's sample set; the files
 * say which), byte for byte; the tests' own KeyGen and Decaps
 * (mlkem_ref.c) against NIST's too, then the two implementations both
 * ways: tlsgate's ciphertexts decapsulated, its encapsulations equal to
 * the reference's, over 400 keys; the modulus check of FIPS 203 7.2
 * against keys built to fail it; the randomized entry point; the three
 * hybrid shares (src/hybrid.c) and their refusals.
 */
#include <stdlib.h>
#include <string.h>

#include "hybrid.h"
#include "mlkem.h"
#include "mlkem_ref.h"
#include "tlscrypto.h"
#include "unit.h"

static const struct {
	const struct mlkem	*p;
	unsigned		 k;
	const char		*file;
} sets[] = {
	{ &mlkem768, 3, "tests/unit/mlkem_vectors.txt" },
	{ &mlkem1024, 4, "tests/unit/mlkem1024_vectors.txt" },
};
#define NSETS	(sizeof(sets) / sizeof(sets[0]))

/* Each set's first vector's key. */
static unsigned char ek0[NSETS][MLKEM1024_EK_LEN];

static int
unhex(const char *s, unsigned char *out, size_t len)
{
	if (s == NULL || strlen(s) != 2 * len)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return 0;
		out[i] = (unsigned char)v;
	}
	return 1;
}

static int
acvp_set(size_t set)
{
	static char line[16384];
	static unsigned char ek[MLKEM1024_EK_LEN], want_ct[MLKEM1024_CT_LEN],
	    got_ct[MLKEM1024_CT_LEN];
	const struct mlkem *p = sets[set].p;
	unsigned char m[32], ss[32], want_ss[32];
	int n = 0;
	FILE *f = fopen(sets[set].file, "r");

	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *tc, *hek, *hm, *hc, *hk;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		tc = strtok(line, " ");
		hek = strtok(NULL, " ");
		hm = strtok(NULL, " ");
		hc = strtok(NULL, " ");
		hk = strtok(NULL, " ");
		CHECK(tc && hk);
		CHECK(unhex(hek, ek, p->eklen) && unhex(hm, m, 32) &&
		    unhex(hc, want_ct, p->ctlen) && unhex(hk, want_ss, 32));
		CHECK(mlkem_check_ek(p, ek, p->eklen));
		memset(got_ct, 0, sizeof(got_ct));
		CHECK(mlkem_encaps_m(p, got_ct, ss, ek, p->eklen, m) == 1);
		if (memcmp(got_ct, want_ct, p->ctlen) != 0 ||
		    memcmp(ss, want_ss, 32) != 0) {
			fprintf(stderr, "  tcId %s differs\n", tc);
			CHECK(0);
		}
		/* The reference must give the same, and take it back. */
		memset(got_ct, 0, sizeof(got_ct));
		ref_encaps(sets[set].k, ek, m, got_ct, ss);
		CHECK(memcmp(got_ct, want_ct, p->ctlen) == 0 &&
		    memcmp(ss, want_ss, 32) == 0);
		if (n == 0)
			memcpy(ek0[set], ek, p->eklen);
		n++;
	}
	fclose(f);
	printf("  %d ACVP cases, k = %u\n", n, sets[set].k);
	CHECK(n >= 5);
	return 1;
}

static int
acvp_vectors(void)
{
	for (size_t i = 0; i < NSETS; i++)
		CHECK(acvp_set(i));
	return 1;
}

/* The reference's KeyGen and Decaps against NIST's answers. */
static int
ref_vectors(void)
{
	static char line[32768];
	static unsigned char ek[MLKEM1024_EK_LEN], dk[REF_DK_LEN(4)],
	    want_ek[MLKEM1024_EK_LEN], want_dk[REF_DK_LEN(4)],
	    ct[MLKEM1024_CT_LEN];
	unsigned char d[32], z[32], ss[32], want_ss[32];
	int nk = 0, nd = 0;
	FILE *f = fopen("tests/unit/mlkem_dec_vectors.txt", "r");

	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *what, *tc;
		unsigned k;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		what = strtok(line, " ");
		CHECK(what != NULL && sscanf(strtok(NULL, " "), "%u", &k) == 1);
		CHECK(k == 3 || k == 4);
		tc = strtok(NULL, " ");
		if (strcmp(what, "keygen") == 0) {
			CHECK(unhex(strtok(NULL, " "), d, 32) &&
			    unhex(strtok(NULL, " "), z, 32) &&
			    unhex(strtok(NULL, " "), want_ek, REF_EK_LEN(k)) &&
			    unhex(strtok(NULL, " "), want_dk, REF_DK_LEN(k)));
			ref_keygen(k, d, z, ek, dk);
			CHECK(memcmp(ek, want_ek, REF_EK_LEN(k)) == 0);
			CHECK(memcmp(dk, want_dk, REF_DK_LEN(k)) == 0);
			nk++;
		} else {
			CHECK(strcmp(what, "decaps") == 0);
			CHECK(unhex(strtok(NULL, " "), dk, REF_DK_LEN(k)) &&
			    unhex(strtok(NULL, " "), ct, REF_CT_LEN(k)) &&
			    unhex(strtok(NULL, " "), want_ss, 32));
			ref_decaps(k, dk, ct, ss);
			if (memcmp(ss, want_ss, 32) != 0) {
				fprintf(stderr, "  tcId %s differs\n", tc);
				CHECK(0);
			}
			nd++;
		}
	}
	fclose(f);
	printf("  %d KeyGen, %d Decaps cases\n", nk, nd);
	CHECK(nk >= 4 && nd >= 8);
	return 1;
}

/*
 * Both ways, 200 keys a set: the reference makes a key, tlsgate
 * encapsulates to it (the random entry point, from a DRBG), the
 * reference decapsulates to the same secret, and its own encapsulation
 * from the same m is byte for byte tlsgate's.
 */
static int
differential(void)
{
	static unsigned char ek[MLKEM1024_EK_LEN], dk[REF_DK_LEN(4)],
	    ct[MLKEM1024_CT_LEN], rct[MLKEM1024_CT_LEN];
	unsigned char dz[64], m[32], ss[32], rss[32];
	br_hmac_drbg_context rng, mr;
	int n = 0;

	br_hmac_drbg_init(&rng, &br_sha256_vtable, "differential", 12);
	for (size_t s = 0; s < NSETS; s++) {
		const struct mlkem *p = sets[s].p;

		for (int i = 0; i < 200; i++, n++) {
			br_hmac_drbg_generate(&rng, dz, sizeof(dz));
			ref_keygen(sets[s].k, dz, dz + 32, ek, dk);
			CHECK(mlkem_check_ek(p, ek, p->eklen) == 1);
			/* m as mlkem_encaps() will draw it. */
			mr = rng;
			br_hmac_drbg_generate(&mr, m, 32);
			CHECK(mlkem_encaps(p, ct, ss, ek, p->eklen,
			    &rng.vtable) == 1);
			ref_decaps(sets[s].k, dk, ct, rss);
			CHECK(memcmp(ss, rss, 32) == 0);
			ref_encaps(sets[s].k, ek, m, rct, rss);
			CHECK(memcmp(ct, rct, p->ctlen) == 0);
			CHECK(memcmp(ss, rss, 32) == 0);
			/* A changed ciphertext: implicit rejection, another key. */
			ct[i % p->ctlen] ^= 1;
			ref_decaps(sets[s].k, dk, ct, rss);
			CHECK(memcmp(ss, rss, 32) != 0);
		}
	}
	printf("  %d keys agree\n", n);
	return 1;
}

/* Set coefficient `i` (0..256 k - 1) of the key's t-hat to `v` (12 bits). */
static void
set_coef(unsigned char *ek, unsigned i, unsigned v)
{
	unsigned char *b = ek + 3 * (i / 2);

	if (i % 2 == 0) {
		b[0] = (unsigned char)v;
		b[1] = (unsigned char)((b[1] & 0xf0) | (v >> 8));
	} else {
		b[1] = (unsigned char)((b[1] & 0x0f) | (v << 4));
		b[2] = (unsigned char)(v >> 4);
	}
}

static int
modulus_set(size_t set)
{
	static unsigned char ek[MLKEM1024_EK_LEN], ct[MLKEM1024_CT_LEN];
	const struct mlkem *p = sets[set].p;
	const unsigned last = 256 * sets[set].k - 1;
	const unsigned pos[] = { 0, 1, 255, 256, 511, 512, last - 1, last };
	unsigned char m[32] = { 1 }, ss[32];
	const unsigned char *e0 = ek0[set];

	CHECK(e0[0] != 0 || e0[1] != 0);
	for (size_t i = 0; i < sizeof(pos) / sizeof(pos[0]); i++) {
		/* q - 1 passes; q, q + 1 and 4095 fail, wherever they are. */
		memcpy(ek, e0, p->eklen);
		set_coef(ek, pos[i], 3328);
		CHECK(mlkem_check_ek(p, ek, p->eklen) == 1);
		CHECK(mlkem_encaps_m(p, ct, ss, ek, p->eklen, m) == 1);
		for (unsigned v = 3329; v <= 4095; v += 383) {
			memcpy(ek, e0, p->eklen);
			set_coef(ek, pos[i], v);
			CHECK(mlkem_check_ek(p, ek, p->eklen) == 0);
			memset(ss, 0x5a, sizeof(ss));
			CHECK(mlkem_encaps_m(p, ct, ss, ek, p->eklen, m) == 0);
			CHECK(ss[0] == 0x5a && ss[31] == 0x5a);
		}
	}
	/* rho is not checked: any 32 bytes are a seed. */
	memcpy(ek, e0, p->eklen);
	memset(ek + p->eklen - 32, 0xff, 32);
	CHECK(mlkem_check_ek(p, ek, p->eklen) == 1);
	/* Wrong lengths, among them the other set's. */
	CHECK(mlkem_check_ek(p, e0, p->eklen - 1) == 0);
	CHECK(mlkem_check_ek(p, e0, p->eklen + 1) == 0);
	CHECK(mlkem_check_ek(p, NULL, p->eklen) == 0);
	CHECK(mlkem_check_ek(p, e0, sets[1 - set].p->eklen) == 0);
	CHECK(mlkem_encaps_m(p, ct, ss, e0, p->eklen - 1, m) == 0);
	return 1;
}

static int
modulus_check(void)
{
	for (size_t i = 0; i < NSETS; i++)
		CHECK(modulus_set(i));
	return 1;
}

static int
randomized(void)
{
	static unsigned char c1[MLKEM1024_CT_LEN], c2[MLKEM1024_CT_LEN];
	unsigned char s1[32], s2[32];
	br_hmac_drbg_context rng;

	for (size_t i = 0; i < NSETS; i++) {
		const struct mlkem *p = sets[i].p;

		CHECK(ek0[i][0] != 0 || ek0[i][1] != 0);
		br_hmac_drbg_init(&rng, &br_sha256_vtable, "seed", 4);
		CHECK(mlkem_encaps(p, c1, s1, ek0[i], p->eklen,
		    &rng.vtable) == 1);
		CHECK(mlkem_encaps(p, c2, s2, ek0[i], p->eklen,
		    &rng.vtable) == 1);
		CHECK(memcmp(c1, c2, p->ctlen) != 0);
		CHECK(memcmp(s1, s2, sizeof(s1)) != 0);
		/* The same DRBG state gives the same m, so the same outputs. */
		br_hmac_drbg_init(&rng, &br_sha256_vtable, "seed", 4);
		CHECK(mlkem_encaps(p, c2, s2, ek0[i], p->eklen,
		    &rng.vtable) == 1);
		CHECK(memcmp(c1, c2, p->ctlen) == 0 &&
		    memcmp(s1, s2, 32) == 0);
	}
	return 1;
}

/*
 * One hybrid group: its share's layout and secret's order (ECDH first
 * for the NIST curves, ML-KEM first for X25519), checked by a client
 * that decapsulates with the reference; then its refusals.
 */
static int
hybrid_group(unsigned group, unsigned ecdh, size_t pt, size_t xs, unsigned k)
{
	static unsigned char share[HYBRID_CLIENT_MAX], pub[HYBRID_SERVER_MAX],
	    ek[MLKEM1024_EK_LEN], dk[REF_DK_LEN(4)];
	const size_t eklen = REF_EK_LEN(k), ctlen = REF_CT_LEN(k);
	const int first = group != GROUP_X25519MLKEM768;
	unsigned char shared[HYBRID_SHARED_MAX], ss[32], x[48], csk[48];
	unsigned char dz[64];
	br_hmac_drbg_context rng;
	struct kx ckx;
	size_t n = 0, sl = 0, eko = first ? pt : 0, pto = first ? 0 : eklen;

	memset(dz, (int)group, sizeof(dz));
	ref_keygen(k, dz, dz + 32, ek, dk);
	memset(csk, 0x42, sizeof(csk));
	memcpy(share + eko, ek, eklen);
	CHECK(kx_load(&ckx, (int)ecdh, csk, xs, share + pto, pt) == pt);
	CHECK(hybrid_server_share(group) == pt + ctlen &&
	    hybrid_check(group, share, pt + eklen));
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "hybrid", 6);
	n = hybrid_answer(group, share, pt + eklen, &rng.vtable, pub,
	    sizeof(pub), shared, &sl);
	CHECK(n == pt + ctlen && sl == xs + 32);
	/* The ECDH half: the client's secret with the server's point. */
	CHECK(kx_shared(&ckx, pub + (first ? 0 : ctlen), pt, x) == xs);
	CHECK(memcmp(shared + (first ? 0 : 32), x, xs) == 0);
	/* The ML-KEM half: the client decapsulates the same secret. */
	ref_decaps(k, dk, pub + (first ? pt : 0), ss);
	CHECK(memcmp(shared + (first ? xs : 0), ss, 32) == 0);
	/* Refused: lengths, the modulus check, a bad ECDH half. */
	CHECK(hybrid_answer(group, share, pt + eklen - 1, &rng.vtable, pub,
	    sizeof(pub), shared, &sl) == 0);
	CHECK(hybrid_answer(group, share, pt + eklen, &rng.vtable, pub,
	    pt + ctlen - 1, shared, &sl) == 0);
	CHECK(hybrid_check(group, share, pt + eklen + 1) == 0);
	set_coef(share + eko, 700, 3329);
	CHECK(hybrid_check(group, share, pt + eklen) == 0);
	CHECK(hybrid_answer(group, share, pt + eklen, &rng.vtable, pub,
	    sizeof(pub), shared, &sl) == 0);
	set_coef(share + eko, 700, 0);
	CHECK(hybrid_check(group, share, pt + eklen) == 1);
	/* X25519: all-zero; P-256, P-384: off the curve (y + 1). */
	if (ecdh == GROUP_X25519)
		memset(share + pto, 0, 32);
	else
		share[pto + pt - 1] ^= 1;
	CHECK(hybrid_check(group, share, pt + eklen) == 1);
	memset(shared, 0x5a, sizeof(shared));
	CHECK(hybrid_answer(group, share, pt + eklen, &rng.vtable, pub,
	    sizeof(pub), shared, &sl) == 0);
	for (size_t i = 0; i < xs + 32; i++)
		CHECK(shared[i] == 0);
	CHECK(hybrid_server_share(GROUP_X25519) == 0 && !hybrid_check(GROUP_SECP256R1,
	    share, pt + eklen));
	return 1;
}

static int
hybrid(void)
{
	CHECK(hybrid_group(GROUP_X25519MLKEM768, GROUP_X25519, 32, 32, 3));
	CHECK(hybrid_group(GROUP_SECP256R1MLKEM768, GROUP_SECP256R1, 65, 32,
	    3));
	CHECK(hybrid_group(GROUP_SECP384R1MLKEM1024, GROUP_SECP384R1, 97, 48,
	    4));
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(acvp_vectors),
		T(ref_vectors),
		T(differential),
		T(modulus_check),
		T(randomized),
		T(hybrid),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
