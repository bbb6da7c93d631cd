/* SPDX-License-Identifier: ISC */
/*
 * test_ecdsa.c - src/ecdsa.c signs byte for byte as BearSSL's
 * br_ecdsa_i31_sign_asn1 does: over keys from a seeded HMAC-DRBG on
 * P-256, P-384 and P-521, hashes of every length the curves meet, the
 * edge keys and hashes, and every P-256 implementation; its signatures
 * verify; the RFC 6979 vectors come out as the RFC prints them; and it
 * refuses, writing nothing, what BearSSL refuses.  With nonces made
 * ahead (precomp.c): the pools fill only once seeded and asked, hand
 * each pair out once, and their signatures verify.
 */
#include <stdio.h>
#include <string.h>
#include <bearssl.h>

#include "ecdsa.h"
#include "log.h"
#include "precomp.h"
#include "unit.h"

static br_hmac_drbg_context rng;

static const int curves[] = {
	BR_EC_secp256r1, BR_EC_secp384r1, BR_EC_secp521r1
};
static const br_hash_class *const hashes[] = {
	&br_sha256_vtable, &br_sha384_vtable, &br_sha512_vtable
};

static size_t
hash_len(const br_hash_class *hf)
{
	return (size_t)(hf->desc >> BR_HASHDESC_OUT_OFF) &
	    BR_HASHDESC_OUT_MASK;
}

static void
hash(const br_hash_class *hf, const void *msg, size_t len, unsigned char *out)
{
	br_hash_compat_context h;

	hf->init(&h.vtable);
	hf->update(&h.vtable, msg, len);
	hf->out(&h.vtable, out);
}

/*
 * 1 if tg_ecdsa_sign (RFC 6979's nonce) and br_ecdsa_i31_sign_asn1
 * write the same bytes for this key and hash, and they verify with
 * BearSSL's verifier when `pk` is given.
 */
static int
same_as_bearssl(const br_ec_impl *impl, const br_hash_class *hf,
    const unsigned char *h, const br_ec_private_key *sk,
    const br_ec_public_key *pk)
{
	unsigned char ours[TG_ECDSA_SIG_MAX], theirs[TG_ECDSA_SIG_MAX];
	size_t n, m;

	n = tg_ecdsa_sign(impl, hf, h, sk, ours, NULL, NULL);
	m = br_ecdsa_i31_sign_asn1(impl, hf, h, sk, theirs);
	if (n == 0 || n != m || memcmp(ours, theirs, n) != 0) {
		fprintf(stderr, "  curve %d, hash %zu bytes: %zu vs %zu bytes\n",
		    sk->curve, hash_len(hf), n, m);
		return 0;
	}
	return pk == NULL || br_ecdsa_i31_vrfy_asn1(br_ec_get_default(), h,
	    hash_len(hf), pk, ours, n) == 1;
}

/*
 * `keys` keys from the DRBG on `curve`; for each, two messages of
 * random length hashed with SHA-256, SHA-384 and SHA-512: shorter
 * than, as long as and longer than the order, on some curve.
 */
static int
random_keys_sign_as_bearssl(int curve, int keys)
{
	unsigned char kbuf[BR_EC_KBUF_PRIV_MAX_SIZE];
	unsigned char pbuf[BR_EC_KBUF_PUB_MAX_SIZE];
	unsigned char msg[200], h[64], len;
	const br_ec_impl *impl = br_ec_get_default();
	br_ec_private_key sk;
	br_ec_public_key pk;
	int signed_ = 0;

	for (int i = 0; i < keys; i++) {
		CHECK(br_ec_keygen(&rng.vtable, impl, &sk, kbuf, curve) != 0);
		CHECK(br_ec_compute_pub(impl, &pk, pbuf, &sk) != 0);
		for (int j = 0; j < 2; j++) {
			br_hmac_drbg_generate(&rng, &len, 1);
			br_hmac_drbg_generate(&rng, msg, sizeof(msg));
			for (size_t a = 0; a < 3; a++) {
				hash(hashes[a], msg, len % sizeof(msg), h);
				CHECK(same_as_bearssl(impl, hashes[a], h, &sk,
				    &pk));
				signed_++;
			}
		}
	}
	CHECK(signed_ == keys * 6);
	return 1;
}

static int
p256_signatures_are_bearssls_and_verify(void)
{
	return random_keys_sign_as_bearssl(BR_EC_secp256r1, 100);
}

static int
p384_signatures_are_bearssls_and_verify(void)
{
	return random_keys_sign_as_bearssl(BR_EC_secp384r1, 25);
}

static int
p521_signatures_are_bearssls_and_verify(void)
{
	return random_keys_sign_as_bearssl(BR_EC_secp521r1, 12);
}

/*
 * RFC 6979 A.2.5-A.2.7: the keys, and "sample" or "test" signed with
 * a hash shorter than, as long as and longer than the order.
 */
static int
rfc6979_vectors_come_out_as_printed(void)
{
	static const struct {
		int		curve;
		const br_hash_class *hf;
		const char	*msg, *x, *der;
	} v[] = {
		{ BR_EC_secp256r1, &br_sha256_vtable, "sample",
		  "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B12"
		  "0F6721",
		  "3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991"
		  "C34D0EA84EAF3716022100F7CB1C942D657C41D436C7A1B6E29F65F3E9"
		  "00DBB9AFF4064DC4AB2F843ACDA8" },
		{ BR_EC_secp256r1, &br_sha512_vtable, "test",
		  "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B12"
		  "0F6721",
		  "30440220461D93F31B6540894788FD206C07CFA0CC35F46FA3C91816FF"
		  "F1040AD1581A04022039AF9F15DE0DB8D97E72719C74820D304CE5226E"
		  "32DEDAE67519E840D1194E55" },
		{ BR_EC_secp384r1, &br_sha384_vtable, "sample",
		  "6B9D3DAD2E1B8C1C05B19875B6659F4DE23C3B667BF297BA9AA4774078"
		  "7137D896D5724E4C70A825F872C9EA60D2EDF5",
		  "306602310094EDBB92A5ECB8AAD4736E56C691916B3F88140666CE9FA7"
		  "3D64C4EA95AD133C81A648152E44ACF96E36DD1E80FABE460231009"
		  "9EF4AEB15F178CEA1FE40DB2603138F130E740A19624526203B6351D0"
		  "A3A94FA329C145786E679E7B82C71A38628AC8" },
		{ BR_EC_secp521r1, &br_sha256_vtable, "sample",
		  "00FAD06DAA62BA3B25D2FB40133DA757205DE67F5BB0018FEE8C86E1B6"
		  "8C7E75CAA896EB32F1F47C70855836A6D16FCC1466F6D8FBEC67DB89EC"
		  "0C08B0E996B83538",
		  "308187024201511BB4D675114FE266FC4372B87682BAECC01D3CC62CF2"
		  "303C92B3526012659D16876E25C7C1E57648F23B73564D67F61C6F14D5"
		  "27D54972810421E7D87589E1A702414A171143A83163D6DF460AAF6152"
		  "2695F207A58B95C0644D87E52AA1A347916E4F7A72930B1BC06DBE22CE"
		  "3F58264AFD23704CBB63B29B931F7DE6C9D949A7ECFC" },
		{ BR_EC_secp521r1, &br_sha512_vtable, "sample",
		  "00FAD06DAA62BA3B25D2FB40133DA757205DE67F5BB0018FEE8C86E1B6"
		  "8C7E75CAA896EB32F1F47C70855836A6D16FCC1466F6D8FBEC67DB89EC"
		  "0C08B0E996B83538",
		  "308187024200C328FAFCBD79DD77850370C46325D987CB525569FB63C5"
		  "D3BC53950E6D4C5F174E25A1EE9017B5D450606ADD152B534931D7D4E8"
		  "455CC91F9B15BF05EC36E377FA0241617CCE7CF5064806C467F678D3B4"
		  "080D6F1CC50AF26CA209417308281B68AF282623EAA63E5B5C0723D8B8"
		  "C37FF0777B1A20F8CCB1DCCC43997F1EE0E44DA4A67A" },
	};
	unsigned char x[66], der[TG_ECDSA_SIG_MAX], sig[TG_ECDSA_SIG_MAX];
	unsigned char h[64];
	br_ec_private_key sk;
	size_t n;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sk.curve = v[i].curve;
		sk.x = x;
		sk.xlen = unit_unhex(x, sizeof(x), v[i].x);
		n = unit_unhex(der, sizeof(der), v[i].der);
		hash(v[i].hf, v[i].msg, strlen(v[i].msg), h);
		CHECK(tg_ecdsa_sign(br_ec_get_default(), v[i].hf, h, &sk,
		    sig, NULL, NULL) == n);
		CHECK(memcmp(sig, der, n) == 0);
	}
	return 1;
}

/* The private keys 1 and n - 1, on each curve, with each hash. */
static int
edge_keys_sign_as_bearssl(void)
{
	const br_ec_impl *impl = br_ec_get_default();
	unsigned char x[66], h[64];
	const unsigned char *order;
	br_ec_private_key sk;
	size_t olen;

	for (size_t c = 0; c < 3; c++) {
		order = impl->order(curves[c], &olen);
		sk.curve = curves[c];
		sk.x = x;
		sk.xlen = olen;
		memset(h, 0x5a, sizeof(h));
		memset(x, 0, olen);
		x[olen - 1] = 1;
		for (size_t a = 0; a < 3; a++)
			CHECK(same_as_bearssl(impl, hashes[a], h, &sk, NULL));
		/* n is odd (prime): n - 1 only changes the last byte. */
		memcpy(x, order, olen);
		x[olen - 1]--;
		for (size_t a = 0; a < 3; a++)
			CHECK(same_as_bearssl(impl, hashes[a], h, &sk, NULL));
	}
	return 1;
}

/*
 * Hashes whose leftmost bits are 0, the order itself (h = 0 mod n),
 * above the order (all ones: one subtraction) and n - 1.
 */
static int
edge_hashes_sign_as_bearssl(void)
{
	const br_ec_impl *impl = br_ec_get_default();
	unsigned char kbuf[BR_EC_KBUF_PRIV_MAX_SIZE], h[64];
	const unsigned char *order;
	br_ec_private_key sk;
	size_t olen, hlen;

	for (size_t c = 0; c < 3; c++) {
		CHECK(br_ec_keygen(&rng.vtable, impl, &sk, kbuf, curves[c]));
		order = impl->order(curves[c], &olen);
		for (size_t a = 0; a < 3; a++) {
			hlen = hash_len(hashes[a]);
			memset(h, 0, sizeof(h));
			CHECK(same_as_bearssl(impl, hashes[a], h, &sk, NULL));
			memset(h, 0xff, sizeof(h));
			CHECK(same_as_bearssl(impl, hashes[a], h, &sk, NULL));
			/* Only where the hash is the order's length. */
			if (hlen != olen)
				continue;
			memcpy(h, order, olen);
			CHECK(same_as_bearssl(impl, hashes[a], h, &sk, NULL));
			h[olen - 1]--;
			CHECK(same_as_bearssl(impl, hashes[a], h, &sk, NULL));
		}
	}
	return 1;
}

/* The nonce's point comes from the implementation given: all agree. */
static int
every_p256_implementation_gives_the_same_bytes(void)
{
	const br_ec_impl *impls[] = {
		&br_ec_p256_m31, &br_ec_p256_m15, &br_ec_prime_i31,
		&br_ec_prime_i15, &br_ec_all_m15, &br_ec_all_m31
	};
	unsigned char kbuf[BR_EC_KBUF_PRIV_MAX_SIZE], h[32];
	unsigned char ref[TG_ECDSA_SIG_MAX], sig[TG_ECDSA_SIG_MAX];
	br_ec_private_key sk;
	size_t n;

	CHECK(br_ec_keygen(&rng.vtable, br_ec_get_default(), &sk, kbuf,
	    BR_EC_secp256r1));
	br_hmac_drbg_generate(&rng, h, sizeof(h));
	n = br_ecdsa_i31_sign_asn1(&br_ec_p256_m31, &br_sha256_vtable, h, &sk,
	    ref);
	CHECK(n != 0);
	for (size_t i = 0; i < sizeof(impls) / sizeof(impls[0]); i++) {
		memset(sig, 0, sizeof(sig));
		CHECK(tg_ecdsa_sign(impls[i], &br_sha256_vtable, h, &sk,
		    sig, NULL, NULL) == n);
		CHECK(memcmp(sig, ref, n) == 0);
	}
	return 1;
}

/*
 * Key 0, n, all ones, X25519, and a curve the implementation lacks:
 * 0 from both, and not a byte of `sig` written.
 */
static int
refuses_what_bearssl_refuses_and_writes_nothing(void)
{
	const br_ec_impl *impl = br_ec_get_default();
	unsigned char x[66], h[64], sig[TG_ECDSA_SIG_MAX];
	const unsigned char *order;
	br_ec_private_key sk;
	size_t olen;

	memset(h, 0x33, sizeof(h));
	sk.x = x;
	for (size_t c = 0; c < 3; c++) {
		order = impl->order(curves[c], &olen);
		sk.curve = curves[c];
		sk.xlen = olen;
		for (int k = 0; k < 3; k++) {
			if (k == 0)
				memset(x, 0, olen);
			else if (k == 1)
				memcpy(x, order, olen);
			else
				memset(x, 0xff, olen);
			memset(sig, 0xa5, sizeof(sig));
			CHECK(br_ecdsa_i31_sign_asn1(impl, &br_sha256_vtable,
			    h, &sk, sig) == 0);
			CHECK(tg_ecdsa_sign(impl, &br_sha256_vtable, h,
			    &sk, sig, NULL, NULL) == 0);
			for (size_t i = 0; i < sizeof(sig); i++)
				CHECK(sig[i] == 0xa5);
		}
	}
	memset(x, 0x11, 32);
	sk.xlen = 32;
	sk.curve = BR_EC_curve25519;
	CHECK(br_ecdsa_i31_sign_asn1(impl, &br_sha256_vtable, h, &sk, sig) ==
	    0);
	CHECK(tg_ecdsa_sign(impl, &br_sha256_vtable, h, &sk, sig, NULL,
	    NULL) == 0);
	sk.curve = BR_EC_secp384r1;
	sk.xlen = 48;
	CHECK(br_ecdsa_i31_sign_asn1(&br_ec_p256_m31, &br_sha384_vtable, h,
	    &sk, sig) == 0);
	CHECK(tg_ecdsa_sign(&br_ec_p256_m31, &br_sha384_vtable, h, &sk,
	    sig, NULL, NULL) == 0);
	for (size_t i = 0; i < sizeof(sig); i++)
		CHECK(sig[i] == 0xa5);
	return 1;
}

/* Fills every pool that is asked for; the pairs made. */
static int
fill_all(void)
{
	int n = 0;

	while (precomp_fill())
		n++;
	return n + 1;
}

static int
pools_fill_only_when_seeded_and_asked(void)
{
	unsigned char sk[66], pub[133];
	size_t sklen;

	precomp_wipe();
	CHECK(precomp_take(BR_EC_secp256r1, sk, &sklen, pub) == 0);
	CHECK(!precomp_wanted() && precomp_fill() == 0);
	precomp_init("seed", 4);
	CHECK(!precomp_wanted() && precomp_fill() == 0);
	CHECK(precomp_take(BR_EC_curve25519, sk, &sklen, pub) == 0);
	CHECK(precomp_wanted());
	CHECK(fill_all() == PRECOMP_DEPTH);
	CHECK(!precomp_wanted());
	precomp_wipe();
	return 1;
}

/* Each pair once: pub is sk times the generator, and no two alike. */
static int
pairs_are_points_of_their_keys_and_never_repeat(void)
{
	static const int pc[] = { BR_EC_curve25519, BR_EC_secp256r1 };
	const br_ec_impl *impl = br_ec_get_default();
	unsigned char sk[66], pub[133], again[133];
	unsigned char seen[PRECOMP_DEPTH][133];
	size_t sklen, n;

	precomp_init("seed", 4);
	for (size_t c = 0; c < 2; c++)
		CHECK(precomp_take(pc[c], sk, &sklen, pub) == 0);
	CHECK(fill_all() == 2 * PRECOMP_DEPTH);
	for (size_t c = 0; c < 2; c++) {
		for (int i = 0; i < PRECOMP_DEPTH; i++) {
			n = precomp_take(pc[c], sk, &sklen, pub);
			CHECK(n == (c == 0 ? 32u : 65u));
			CHECK(impl->mulgen(again, sk, sklen, pc[c]) == n);
			CHECK(memcmp(again, pub, n) == 0);
			for (int j = 0; j < i; j++)
				CHECK(memcmp(seen[j], pub, n) != 0);
			memcpy(seen[i], pub, n);
		}
		CHECK(precomp_take(pc[c], sk, &sklen, pub) == 0);
	}
	precomp_wipe();
	return 1;
}

/*
 * Signatures on nonces made ahead verify, on each curve, and no two
 * share r; with the pool empty the signer falls back to RFC 6979,
 * byte for byte BearSSL's.
 */
static int
nonces_made_ahead_sign_verify_and_never_repeat(void)
{
	unsigned char kbuf[BR_EC_KBUF_PRIV_MAX_SIZE];
	unsigned char pbuf[BR_EC_KBUF_PUB_MAX_SIZE];
	unsigned char h[32], sig[TG_ECDSA_SIG_MAX], theirs[TG_ECDSA_SIG_MAX];
	unsigned char rs[PRECOMP_DEPTH][67], *r;
	const br_ec_impl *impl = br_ec_get_default();
	unsigned long long hits;
	br_ec_private_key sk;
	br_ec_public_key pk;
	size_t n;

	memset(h, 0x5a, sizeof(h));
	for (size_t c = 0; c < 3; c++) {
		precomp_init("seed", 4);
		CHECK(br_ec_keygen(&rng.vtable, impl, &sk, kbuf,
		    curves[c]) != 0);
		CHECK(br_ec_compute_pub(impl, &pk, pbuf, &sk) != 0);
		n = precomp_ecdsa_sign(impl, &br_sha256_vtable, h, &sk, sig);
		CHECK(n == br_ecdsa_i31_sign_asn1(impl, &br_sha256_vtable, h,
		    &sk, theirs) && memcmp(sig, theirs, n) == 0);
		CHECK(fill_all() == PRECOMP_DEPTH);
		hits = stats.precomp_hits;
		for (int i = 0; i < PRECOMP_DEPTH; i++) {
			n = precomp_ecdsa_sign(impl, &br_sha256_vtable, h, &sk,
			    sig);
			CHECK(n != 0 && br_ecdsa_i31_vrfy_asn1(impl, h,
			    sizeof(h), &pk, sig, n) == 1);
			/* r: SEQUENCE (P-521's length in long form), INTEGER. */
			r = sig + (sig[1] == 0x81 ? 3 : 2);
			CHECK(r[0] == 0x02 && r[1] <= 67);
			memset(rs[i], 0, sizeof(rs[i]));
			memcpy(rs[i], r + 2, r[1]);
			for (int j = 0; j < i; j++)
				CHECK(memcmp(rs[i], rs[j], sizeof(rs[i])) != 0);
		}
		CHECK(stats.precomp_hits == hits + PRECOMP_DEPTH);
		n = precomp_ecdsa_sign(impl, &br_sha256_vtable, h, &sk, sig);
		CHECK(n == br_ecdsa_i31_sign_asn1(impl, &br_sha256_vtable, h,
		    &sk, theirs) && memcmp(sig, theirs, n) == 0);
	}
	precomp_wipe();
	return 1;
}

/* A nonce outside [1, n-1] is refused, with nothing written. */
static int
a_nonce_out_of_range_is_refused(void)
{
	const br_ec_impl *impl = br_ec_get_default();
	unsigned char x[32], k[32], kg[65], h[32], sig[TG_ECDSA_SIG_MAX];
	const unsigned char *order;
	br_ec_private_key sk = { BR_EC_secp256r1, x, sizeof(x) };
	size_t olen;

	memset(x, 0x11, sizeof(x));
	memset(h, 0x22, sizeof(h));
	memset(kg, 0x04, sizeof(kg));
	order = impl->order(BR_EC_secp256r1, &olen);
	for (int i = 0; i < 2; i++) {
		if (i == 0)
			memset(k, 0, sizeof(k));
		else
			memcpy(k, order, sizeof(k));
		memset(sig, 0xa5, sizeof(sig));
		CHECK(tg_ecdsa_sign(impl, &br_sha256_vtable, h, &sk, sig,
		    k, kg) == 0);
		for (size_t j = 0; j < sizeof(sig); j++)
			CHECK(sig[j] == 0xa5);
	}
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(rfc6979_vectors_come_out_as_printed),
		T(p256_signatures_are_bearssls_and_verify),
		T(p384_signatures_are_bearssls_and_verify),
		T(p521_signatures_are_bearssls_and_verify),
		T(edge_keys_sign_as_bearssl),
		T(edge_hashes_sign_as_bearssl),
		T(every_p256_implementation_gives_the_same_bytes),
		T(refuses_what_bearssl_refuses_and_writes_nothing),
		T(pools_fill_only_when_seeded_and_asked),
		T(pairs_are_points_of_their_keys_and_never_repeat),
		T(nonces_made_ahead_sign_verify_and_never_repeat),
		T(a_nonce_out_of_range_is_refused),
	};

	br_hmac_drbg_init(&rng, &br_sha256_vtable, "tlsgate ecdsa test", 18);
	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
