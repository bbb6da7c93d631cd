/* SPDX-License-Identifier: ISC */
/*
 * test_prim.c - the primitive chooser (prim.c): BearSSL's own choice
 * before any other, each candidate of a kind computing what the portable
 * one computes, the timed choice taking only candidates the CPU has, and
 * the pin's grammar, whose errors choose nothing.  That each candidate
 * gives the RFCs' bytes inside whole records is test_tlscrypto's.
 */
#include <string.h>
#include <bearssl.h>

#include "prim.h"
#include "primpin.h"
#include "unit.h"

/* What BearSSL's own engine would take (ssl_engine_default_*.c). */
static int
defaults_are_bearssls_own(void)
{
	const struct prim *p = prim_get();
	br_chacha20_run ch = br_chacha20_sse2_get();
	br_poly1305_run po = br_poly1305_ctmulq_get();
	br_ghash gh = br_ghash_pclmul_get();

	CHECK(p->chacha == (ch != 0 ? ch : &br_chacha20_ct_run));
	CHECK(p->poly == (po != 0 ? po : &br_poly1305_ctmul_run));
	if (gh == 0)
		gh = br_ghash_pwr8_get();
	CHECK(gh == 0 || p->ghash == gh);
	CHECK(p->ctr != NULL && p->ec == br_ec_get_default());
	return 1;
}

/*
 * prim.c takes each candidate the CPU has by prim.h's name for it, at
 * its index there: what the other tests' prim_pin() relies on.
 */
static int
candidates_are_named_and_forced(void)
{
	struct prim keep = *prim_get();
	unsigned taken = 0;
	int rc;

	for (int k = 0; k < PRIM_KINDS; k++) {
		for (size_t i = 0; (rc = prim_pin(k, i)) >= 0; i++) {
			if (rc == 0)
				continue;
			CHECK(prim_get()->pick[k] == i);
			taken++;
		}
		CHECK(prim_pin(k, keep.pick[k]) == 1);
	}
	/* The 11 portable ones at least: all but the CPU-specific. */
	CHECK(taken >= 11);
	/* The portable ones are on every CPU, and are what they say. */
	CHECK(prim_pin(PRIM_CHACHA20, 1) == 1 &&
	    prim_get()->chacha == &br_chacha20_ct_run &&
	    prim_get()->pick[PRIM_CHACHA20] == 1);
	CHECK(prim_pin(PRIM_POLY1305, 3) == 1 &&
	    prim_get()->poly == &br_poly1305_i15_run);
	CHECK(prim_pin(PRIM_AES_CTR, 3) == 1 &&
	    prim_get()->ctr == &br_aes_ct_ctr_vtable);
	CHECK(prim_pin(PRIM_GHASH, 4) == 1 &&
	    prim_get()->ghash == &br_ghash_ctmul32);
	CHECK(prim_pin(PRIM_EC, 1) == 1 && prim_get()->ec == &br_ec_all_m15);
	CHECK(prim_choose("ghash=ctmul128") == -1);
	for (int k = 0; k < PRIM_KINDS; k++)
		CHECK(prim_pin(k, keep.pick[k]) == 1);
	return 1;
}

/* One output of the kind's candidate in use, over fixed input. */
static void
output(int k, unsigned char out[64])
{
	static const unsigned char key[32] = { 7, 1, 2 }, iv[16] = { 9 };
	const struct prim *p = prim_get();
	unsigned char buf[256];
	br_aes_gen_ctr_keys aes;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 31 + 5);
	memset(out, 0, 64);
	switch (k) {
	case PRIM_CHACHA20:
		(void)p->chacha(key, iv, 1, buf, sizeof(buf));
		memcpy(out, buf + 192, 64);
		break;
	case PRIM_POLY1305:
		p->poly(key, iv, buf, sizeof(buf), iv, 13, out,
		    &br_chacha20_ct_run, 1);
		memcpy(out + 16, buf, 48);
		break;
	case PRIM_AES_CTR:
		p->ctr->init(&aes.vtable, key, 16);
		(void)p->ctr->run(&aes.vtable, iv, 1, buf, sizeof(buf));
		memcpy(out, buf + 192, 64);
		break;
	case PRIM_GHASH:
		p->ghash(out, key, buf, sizeof(buf));
		break;
	default:
		(void)p->ec->mulgen(out, key, 32, BR_EC_curve25519);
		break;
	}
}

static int
every_candidate_computes_what_the_portable_one_does(void)
{
	static const size_t portable[PRIM_KINDS] = { 1, 3, 3, 4, 1 };
	struct prim keep = *prim_get();
	unsigned char want[64], got[64];
	unsigned tried = 0;
	int rc;

	for (int k = 0; k < PRIM_KINDS; k++) {
		CHECK(prim_pin(k, portable[k]) == 1);
		output(k, want);
		for (size_t i = 0; (rc = prim_pin(k, i)) >= 0; i++) {
			if (rc == 0)
				continue;
			output(k, got);
			CHECK(memcmp(want, got, sizeof(want)) == 0);
			tried++;
		}
		CHECK(prim_pin(k, keep.pick[k]) == 1);
	}
	/* At least two of each kind but ChaCha20 (one without SSE2). */
	CHECK(tried >= 9);
	return 1;
}

/* A pin is taken as it is, its own words come back; an error, nothing. */
static int
pins_are_taken_and_bad_ones_choose_nothing(void)
{
	char d[160], e[160];

	CHECK(prim_choose("aes_ctr=ct, ghash=ctmul32 ec=m15") == 0);
	CHECK(prim_get()->ctr == &br_aes_ct_ctr_vtable &&
	    prim_get()->ghash == &br_ghash_ctmul32 &&
	    prim_get()->ec == &br_ec_all_m15);
	prim_describe(d, sizeof(d));
	CHECK(strstr(d, " aes_ctr=ct ghash=ctmul32 ") != NULL);
	CHECK(prim_choose(d) == 0);
	prim_describe(e, sizeof(e));
	CHECK(strcmp(d, e) == 0);
	CHECK(prim_choose("chacha20=ct64") == -1);
	CHECK(prim_choose("aes=ct") == -1);
	CHECK(prim_choose("ghash=") == -1);
	CHECK(prim_choose("ec=m31 poly1305") == -1);
	prim_describe(e, sizeof(e));
	CHECK(strcmp(d, e) == 0);
	return 1;
}

static int
the_timed_choice_is_a_candidate_the_cpu_has(void)
{
	char d[160];

	CHECK(prim_choose(NULL) == 0);
	for (int k = 0; k < PRIM_KINDS; k++)
		CHECK(prim_pin(k, prim_get()->pick[k]) == 1);
	prim_describe(d, sizeof(d));
	CHECK(strncmp(d, "chacha20=", 9) == 0 && strstr(d, " poly1305=") &&
	    strstr(d, " aes_ctr=") && strstr(d, " ghash=") &&
	    strstr(d, " ec=m"));
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(defaults_are_bearssls_own),
		T(candidates_are_named_and_forced),
		T(every_candidate_computes_what_the_portable_one_does),
		T(pins_are_taken_and_bad_ones_choose_nothing),
		T(the_timed_choice_is_a_candidate_the_cpu_has),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
