/*
 * test_mlkem.c - src/mlkem.c against NIST's ML-KEM-768 encapsulation
 * vectors (tests/unit/mlkem_vectors.txt, from the ACVP server's sample
 * set; the file says which), byte for byte; the modulus check of FIPS
 * 203 7.2 against keys built to fail it; the randomized entry point;
 * the X25519MLKEM768 share (src/hybrid.c) and its refusals.
 */
#include <stdlib.h>
#include <string.h>

#include "hybrid.h"
#include "mlkem.h"
#include "tlscrypto.h"
#include "unit.h"

#define VECFILE	"tests/unit/mlkem_vectors.txt"

static unsigned char ek0[MLKEM768_EK_LEN];	/* the first vector's key */

static int
unhex(const char *s, unsigned char *out, size_t len)
{
	if (strlen(s) != 2 * len)
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
acvp_vectors(void)
{
	static char line[8192];
	static unsigned char ek[MLKEM768_EK_LEN], ct[MLKEM768_CT_LEN],
	    want_ct[MLKEM768_CT_LEN], got_ct[MLKEM768_CT_LEN];
	unsigned char m[32], ss[32], want_ss[32];
	int n = 0;
	FILE *f = fopen(VECFILE, "r");

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
		CHECK(unhex(hek, ek, sizeof(ek)) && unhex(hm, m, 32) &&
		    unhex(hc, want_ct, sizeof(want_ct)) &&
		    unhex(hk, want_ss, 32));
		CHECK(mlkem768_check_ek(ek, sizeof(ek)));
		memset(got_ct, 0, sizeof(got_ct));
		CHECK(mlkem768_encaps_m(got_ct, ss, ek, sizeof(ek), m) == 1);
		if (memcmp(got_ct, want_ct, sizeof(ct)) != 0 ||
		    memcmp(ss, want_ss, 32) != 0) {
			fprintf(stderr, "  tcId %s differs\n", tc);
			CHECK(0);
		}
		if (n == 0)
			memcpy(ek0, ek, sizeof(ek));
		n++;
	}
	fclose(f);
	printf("  %d ACVP cases\n", n);
	CHECK(n >= 5);
	return 1;
}

/* Set coefficient `i` (0..767) of the key's t-hat to `v` (12 bits). */
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
modulus_check(void)
{
	static const unsigned pos[] = { 0, 1, 255, 256, 511, 512, 766, 767 };
	static unsigned char ek[MLKEM768_EK_LEN], ct[MLKEM768_CT_LEN];
	unsigned char m[32] = { 1 }, ss[32];

	CHECK(ek0[0] != 0 || ek0[1] != 0);
	for (size_t p = 0; p < sizeof(pos) / sizeof(pos[0]); p++) {
		/* q - 1 passes; q, q + 1 and 4095 fail, wherever they are. */
		memcpy(ek, ek0, sizeof(ek));
		set_coef(ek, pos[p], 3328);
		CHECK(mlkem768_check_ek(ek, sizeof(ek)) == 1);
		CHECK(mlkem768_encaps_m(ct, ss, ek, sizeof(ek), m) == 1);
		for (unsigned v = 3329; v <= 4095; v += 383) {
			memcpy(ek, ek0, sizeof(ek));
			set_coef(ek, pos[p], v);
			CHECK(mlkem768_check_ek(ek, sizeof(ek)) == 0);
			memset(ss, 0x5a, sizeof(ss));
			CHECK(mlkem768_encaps_m(ct, ss, ek, sizeof(ek), m)
			    == 0);
			CHECK(ss[0] == 0x5a && ss[31] == 0x5a);
		}
	}
	/* rho is not checked: any 32 bytes are a seed. */
	memcpy(ek, ek0, sizeof(ek));
	memset(ek + 1152, 0xff, 32);
	CHECK(mlkem768_check_ek(ek, sizeof(ek)) == 1);
	/* Wrong lengths. */
	CHECK(mlkem768_check_ek(ek0, sizeof(ek0) - 1) == 0);
	CHECK(mlkem768_check_ek(ek0, sizeof(ek0) + 1) == 0);
	CHECK(mlkem768_check_ek(NULL, sizeof(ek0)) == 0);
	CHECK(mlkem768_encaps_m(ct, ss, ek0, sizeof(ek0) - 1, m) == 0);
	return 1;
}

static int
randomized(void)
{
	static unsigned char c1[MLKEM768_CT_LEN], c2[MLKEM768_CT_LEN];
	unsigned char s1[32], s2[32];
	br_hmac_drbg_context rng;

	CHECK(ek0[0] != 0 || ek0[1] != 0);
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "seed", 4);
	CHECK(mlkem768_encaps(c1, s1, ek0, sizeof(ek0), &rng.vtable) == 1);
	CHECK(mlkem768_encaps(c2, s2, ek0, sizeof(ek0), &rng.vtable) == 1);
	CHECK(memcmp(c1, c2, sizeof(c1)) != 0);
	CHECK(memcmp(s1, s2, sizeof(s1)) != 0);
	/* The same DRBG state gives the same m, so the same outputs. */
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "seed", 4);
	CHECK(mlkem768_encaps(c2, s2, ek0, sizeof(ek0), &rng.vtable) == 1);
	CHECK(memcmp(c1, c2, sizeof(c1)) == 0 && memcmp(s1, s2, 32) == 0);
	return 1;
}

/*
 * The hybrid share: ML-KEM first in both directions.  hybrid_answer()
 * draws the X25519 key, then m, from the DRBG; the same draws here give
 * what each half must be.
 */
static int
hybrid(void)
{
	static unsigned char share[HYBRID_CLIENT_SHARE], pub[HYBRID_SERVER_SHARE],
	    ct[MLKEM768_CT_LEN];
	unsigned char shared[HYBRID_SHARED], ss[32], m[32], x[32], csk[32];
	unsigned char spub[32];
	br_hmac_drbg_context rng;
	struct kx kx, ckx;

	CHECK(ek0[0] != 0 || ek0[1] != 0);
	memset(csk, 0x42, sizeof(csk));
	memcpy(share, ek0, sizeof(ek0));
	CHECK(kx_load(&ckx, GROUP_X25519, csk, 32, share + 1184, 32) == 32);
	CHECK(hybrid_check(share, sizeof(share)) == 1);
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "hybrid", 6);
	CHECK(hybrid_answer(share, sizeof(share), &rng.vtable, pub,
	    sizeof(pub), shared) == HYBRID_SERVER_SHARE);
	/* The X25519 half: the client's secret with the server's share. */
	CHECK(kx_shared(&ckx, pub + 1088, 32, x) == 32);
	CHECK(memcmp(shared + 32, x, 32) == 0);
	/* The ML-KEM half: the same DRBG draws, then Encaps from that m. */
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "hybrid", 6);
	CHECK(kx_gen(&kx, GROUP_X25519, &rng.vtable, spub, 32) == 32);
	CHECK(memcmp(spub, pub + 1088, 32) == 0);
	rng.vtable->generate(&rng.vtable, m, 32);
	CHECK(mlkem768_encaps_m(ct, ss, ek0, sizeof(ek0), m) == 1);
	CHECK(memcmp(pub, ct, sizeof(ct)) == 0);
	CHECK(memcmp(shared, ss, 32) == 0);
	/* Refused: lengths, the modulus check, an all-zero X25519 secret. */
	CHECK(hybrid_answer(share, sizeof(share) - 1, &rng.vtable, pub,
	    sizeof(pub), shared) == 0);
	CHECK(hybrid_answer(share, sizeof(share), &rng.vtable, pub,
	    sizeof(pub) - 1, shared) == 0);
	CHECK(hybrid_check(share, sizeof(share) + 1) == 0);
	set_coef(share, 700, 3329);
	CHECK(hybrid_check(share, sizeof(share)) == 0);
	CHECK(hybrid_answer(share, sizeof(share), &rng.vtable, pub,
	    sizeof(pub), shared) == 0);
	memcpy(share, ek0, sizeof(ek0));
	memset(share + 1184, 0, 32);
	CHECK(hybrid_check(share, sizeof(share)) == 1);
	memset(shared, 0x5a, sizeof(shared));
	CHECK(hybrid_answer(share, sizeof(share), &rng.vtable, pub,
	    sizeof(pub), shared) == 0);
	for (size_t i = 0; i < sizeof(shared); i++)
		CHECK(shared[i] == 0);
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(acvp_vectors),
		T(modulus_check),
		T(randomized),
		T(hybrid),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
