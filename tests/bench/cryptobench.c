/* SPDX-License-Identifier: ISC */
/*
 * cryptobench: how fast are the BearSSL primitives a TLS server pays for,
 * per implementation, and what full-handshake rate per core do they allow.
 *
 * Owns: one table on stdout, exit status 1 if any implementation fails or
 * disagrees with the others. Uses BearSSL's public API, and tlsgate's own
 * ECDSA signer (src/ecdsa.c) beside BearSSL's; keys come from a
 * fixed-seed HMAC-DRBG so every run and every build does the same work.
 * Never touches the network or the file system.
 *
 * usage: cryptobench [-t seconds_per_line] [-n ops_per_round] [-l label]
 *                    [-g group/name-prefix]
 * -n fixes the work instead of the time, for instruction counts under
 * callgrind; -g runs only the lines whose "group/name" starts with it.
 */

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bearssl.h>

#include "ecdsa.h"
#include "prim.h"
#ifndef TLSGATE_NO_MLKEM
#include "hybrid.h"
#include "mlkem.h"
#include "tlswire.h"
#endif

#define REC_LEN		16384	/* largest TLS record plaintext */
#define ROUNDS		3
#define MAX_OPS		10000000UL

struct job {
	const char	*name;
	const br_ec_impl *ec;
	int		 curve;
	br_ecdsa_sign	 ecdsa;
	br_rsa_pkcs1_sign rsa;
	const br_block_ctr_class *ctr;
	br_ghash	 ghash;
	br_chacha20_run	 chacha;
	br_poly1305_run	 poly;
};

typedef int (*op_fn)(const struct job *);

static br_hmac_drbg_context rng;
static double budget = 0.3;
static unsigned long count;
static const char *only;
static int failed;

static unsigned char p256a_k[BR_EC_KBUF_PRIV_MAX_SIZE];
static unsigned char p256b_k[BR_EC_KBUF_PRIV_MAX_SIZE];
static unsigned char p384_k[BR_EC_KBUF_PRIV_MAX_SIZE];
static unsigned char x25519a_k[BR_EC_KBUF_PRIV_MAX_SIZE];
static unsigned char x25519b_k[BR_EC_KBUF_PRIV_MAX_SIZE];
static unsigned char p256a_q[BR_EC_KBUF_PUB_MAX_SIZE];
static unsigned char p256b_q[BR_EC_KBUF_PUB_MAX_SIZE];
static unsigned char p384_q[BR_EC_KBUF_PUB_MAX_SIZE];
static unsigned char x25519b_q[BR_EC_KBUF_PUB_MAX_SIZE];
static br_ec_private_key p256a, p256b, p384, x25519a, x25519b;
static br_ec_public_key p256a_pub, p256b_pub, p384_pub, x25519b_pub;
static unsigned char rsa_k[BR_RSA_KBUF_PRIV_SIZE(2048)];
static unsigned char rsa_q[BR_RSA_KBUF_PUB_SIZE(2048)];
static br_rsa_private_key rsa_sk;
static br_rsa_public_key rsa_pk;
static unsigned char msg_hash[48];

/* The engine's own record contexts, laid out as the engine lays them. */
static union {
	const br_sslrec_out_class *vtable;
	br_sslrec_gcm_context gcm;
	br_sslrec_chapol_context chapol;
} rec;
static unsigned char rec_buf[BR_SSL_BUFSIZE_OUTPUT];
static unsigned char *rec_out;
static size_t rec_off, rec_len;

/* Output of the last check: within a group every implementation must
 * produce the same bytes (signatures are deterministic, RFC 6979). */
static unsigned char out[REC_LEN + 128], ref[REC_LEN + 128];
static size_t out_len, ref_len;
static const char *ref_group;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
op_ecdsa(const struct job *j)
{
	if (j->curve == BR_EC_secp384r1)
		out_len = j->ecdsa(j->ec, &br_sha384_vtable, msg_hash, &p384,
		    out);
	else
		out_len = j->ecdsa(j->ec, &br_sha256_vtable, msg_hash, &p256a,
		    out);
	return out_len != 0;
}

static int
check_ecdsa(const struct job *j)
{
	const br_ec_public_key *pk;
	size_t hlen;

	pk = j->curve == BR_EC_secp384r1 ? &p384_pub : &p256a_pub;
	hlen = j->curve == BR_EC_secp384r1 ? 48 : 32;
	return op_ecdsa(j) && br_ecdsa_vrfy_asn1_get_default()(
	    br_ec_get_default(), msg_hash, hlen, pk, out, out_len);
}

static int
op_rsa(const struct job *j)
{
	out_len = 256;
	return j->rsa(BR_HASH_OID_SHA256, msg_hash, 32, &rsa_sk, out) == 1;
}

static int
check_rsa(const struct job *j)
{
	unsigned char h[32];

	return op_rsa(j) && br_rsa_pkcs1_vrfy_get_default()(out, out_len,
	    BR_HASH_OID_SHA256, sizeof h, &rsa_pk, h) &&
	    memcmp(h, msg_hash, sizeof h) == 0;
}

/*
 * What a server does per full ECDHE handshake: a fresh secret below the
 * curve order (top bits masked, low bit set, as the BearSSL server does),
 * our public point for ServerKeyExchange, then the shared secret from the
 * client's point.
 */
static int
op_ecdhe(const struct job *j)
{
	unsigned char x[66], pt[BR_EC_KBUF_PUB_MAX_SIZE];
	const unsigned char *order;
	const br_ec_public_key *peer;
	size_t olen;
	unsigned mask;

	peer = j->curve == BR_EC_curve25519 ? &x25519b_pub : &p256b_pub;
	order = j->ec->order(j->curve, &olen);
	for (mask = 0xFF; mask >= order[0]; mask >>= 1)
		;
	br_hmac_drbg_generate(&rng, x, olen);
	x[0] &= mask;
	x[olen - 1] |= 1;
	if (j->ec->mulgen(pt, x, olen, j->curve) == 0)
		return 0;
	memcpy(pt, peer->q, peer->qlen);
	return j->ec->mul(pt, peer->qlen, x, olen, j->curve) == 1;
}

/* Both sides of one fixed exchange must agree. */
static int
check_ecdhe(const struct job *j)
{
	const br_ec_private_key *a, *b;
	const br_ec_public_key *bq;
	unsigned char t[BR_EC_KBUF_PUB_MAX_SIZE];
	size_t n;

	if (j->curve == BR_EC_curve25519) {
		a = &x25519a;
		b = &x25519b;
		bq = &x25519b_pub;
	} else {
		a = &p256a;
		b = &p256b;
		bq = &p256b_pub;
	}
	if (!op_ecdhe(j))
		return 0;
	n = j->ec->mulgen(out, a->x, a->xlen, j->curve);
	if (n == 0)
		return 0;
	memcpy(t, out, n);
	memcpy(out + n, bq->q, bq->qlen);
	out_len = n + bq->qlen;
	return j->ec->mul(out + n, bq->qlen, a->x, a->xlen, j->curve) &&
	    j->ec->mul(t, n, b->x, b->xlen, j->curve) &&
	    memcmp(t, out + n, n) == 0;
}

static int
rec_init(const struct job *j)
{
	static const unsigned char key[32] = { 0x42 }, iv[12] = { 0x17 };
	size_t start, end;

	memset(rec_buf, 0, sizeof rec_buf);
	if (j->ctr != NULL)
		br_sslrec_out_gcm_vtable.init(&rec.gcm.vtable.out, j->ctr,
		    key, 16, j->ghash, iv);
	else
		br_sslrec_out_chapol_vtable.init(&rec.chapol.vtable.out,
		    j->chacha, j->poly, key, iv);
	start = 5;
	end = sizeof rec_buf;
	rec.vtable->max_plaintext(&rec.vtable, &start, &end);
	rec_off = start;
	return end - start >= REC_LEN;
}

/* Encrypts in place, so later records encrypt earlier ciphertext: the
 * cost does not depend on the bytes. Timing goes on from the context and
 * buffer that check_rec left. 23 is application_data. */
static int
op_rec(const struct job *j)
{
	(void)j;
	rec_len = REC_LEN;
	rec_out = rec.vtable->encrypt(&rec.vtable, 23,
	    BR_TLS12, rec_buf + rec_off, &rec_len);
	return rec_out != NULL;
}

static int
check_rec(const struct job *j)
{
	if (!rec_init(j) || !op_rec(j) || rec_len > sizeof out)
		return 0;
	memcpy(out, rec_out, rec_len);
	out_len = rec_len;
	return 1;
}

static int
op_chacha(const struct job *j)
{
	static const unsigned char key[32] = { 0x42 }, iv[12] = { 0x17 };

	j->chacha(key, iv, 1, rec_buf, REC_LEN);
	return 1;
}

static int
check_chacha(const struct job *j)
{
	memset(rec_buf, 0, REC_LEN);
	op_chacha(j);
	memcpy(out, rec_buf, REC_LEN);
	out_len = REC_LEN;
	return 1;
}

#ifndef TLSGATE_NO_MLKEM
/*
 * ML-KEM-768 encapsulation, and the whole X25519MLKEM768 server share
 * (an X25519 key, its shared secret, Encaps): what the hybrid group adds
 * to a handshake.  The key: random coefficients below q, random rho.
 */
static unsigned char kem_share[MLKEM768_EK_LEN + 32];

static void
kem_key(void)
{
	unsigned char r[3];

	for (size_t i = 0; i < 1152; i += 3) {
		unsigned a, b;

		br_hmac_drbg_generate(&rng, r, 3);
		a = (r[0] | (unsigned)r[1] << 8) % 3329;
		b = (r[1] >> 4 | (unsigned)r[2] << 4) % 3329;
		kem_share[i] = (unsigned char)a;
		kem_share[i + 1] = (unsigned char)(a >> 8 | b << 4);
		kem_share[i + 2] = (unsigned char)(b >> 4);
	}
	br_hmac_drbg_generate(&rng, kem_share + 1152, 32);
	memcpy(kem_share + MLKEM768_EK_LEN, x25519b_q, 32);
}

static int
op_mlkem(const struct job *j)
{
	(void)j;
	out_len = MLKEM768_CT_LEN + MLKEM_SS_LEN;
	return mlkem_encaps(&mlkem768, out, out + MLKEM768_CT_LEN,
	    kem_share, MLKEM768_EK_LEN, &rng.vtable);
}

static int
check_mlkem(const struct job *j)
{
	static const unsigned char m[32] = { 7 };

	(void)j;
	out_len = MLKEM768_CT_LEN + MLKEM_SS_LEN;
	return mlkem_encaps_m(&mlkem768, out, out + MLKEM768_CT_LEN,
	    kem_share, MLKEM768_EK_LEN, m);
}

static int
op_hybrid(const struct job *j)
{
	unsigned char shared[HYBRID_SHARED_MAX];
	size_t n;

	(void)j;
	out_len = 0;
	return hybrid_answer(GROUP_X25519MLKEM768, kem_share,
	    sizeof kem_share, &rng.vtable, out, sizeof out, shared, &n) ==
	    MLKEM768_CT_LEN + 32;
}
#endif

/* Best of ROUNDS: the machine is shared, and the fastest round is the one
 * least disturbed by other load. */
static double
rate(op_fn op, const struct job *j)
{
	double best, t0, t;
	unsigned long n;
	int r;

	best = 0;
	for (r = 0; r < ROUNDS; r++) {
		n = 0;
		t0 = now();
		do {
			if (!op(j))
				return -1;
			n++;
			t = now() - t0;
		} while (count != 0 ? n < count :
		    t < budget / ROUNDS && n < MAX_OPS);
		if ((double)n / t > best)
			best = (double)n / t;
	}
	return best;
}

/* Returns ops/s, or 0 if the implementation is absent or wrong. */
static double
line(const char *group, const struct job *j, op_fn check, op_fn op,
    size_t bytes)
{
	char id[80];
	double ops;

	snprintf(id, sizeof id, "%s/%s", group, j->name);
	if (only != NULL && strncmp(id, only, strlen(only)) != 0)
		return 0;
	if (ref_group == NULL || strcmp(ref_group, group) != 0) {
		ref_group = group;
		ref_len = 0;
	}
	printf("%-16s %-22s ", group, j->name);
	if (j->ec == NULL && j->ecdsa == NULL && j->rsa == NULL &&
	    j->ctr == NULL && j->chacha == NULL) {
		printf("%12s\n", "n/a");
		return 0;
	}
	if (!check(j)) {
		printf("FAILED (wrong result)\n");
		failed = 1;
		return 0;
	}
	if (ref_len == 0) {
		memcpy(ref, out, out_len);
		ref_len = out_len;
	} else if (out_len != ref_len || memcmp(out, ref, ref_len) != 0) {
		printf("FAILED (differs from first line of group)\n");
		failed = 1;
		return 0;
	}
	ops = rate(op, j);
	if (ops < 0) {
		printf("FAILED (operation error)\n");
		failed = 1;
		return 0;
	}
	if (bytes != 0)
		printf("%12.0f ops/s %9.1f MB/s\n", ops,
		    ops * (double)bytes / 1e6);
	else
		printf("%12.0f ops/s %9.1f us/op\n", ops, 1e6 / ops);
	fflush(stdout);
	return ops;
}

static double
ceiling(double sign, double kex)
{
	if (sign <= 0 || kex <= 0)
		return 0;
	return 1 / (1 / sign + 1 / kex);
}

/* tlsgate's signer with RFC 6979's nonce, as a br_ecdsa_sign. */
static size_t
tg_sign(const br_ec_impl *impl, const br_hash_class *hf, const void *hv,
    const br_ec_private_key *sk, void *sig)
{
	return tg_ecdsa_sign(impl, hf, hv, sk, sig, NULL, NULL);
}

/* A signing line when sig is set, else an ECDHE line; keeps the best. */
static double
ec_line(const char *group, const char *name, const br_ec_impl *ec,
    br_ecdsa_sign sig, int curve, double *best)
{
	struct job j;
	double r;

	memset(&j, 0, sizeof j);
	j.name = name;
	j.ec = ec;
	j.ecdsa = sig;
	j.curve = curve;
	if (sig != 0)
		r = line(group, &j, check_ecdsa, op_ecdsa, 0);
	else
		r = line(group, &j, check_ecdhe, op_ecdhe, 0);
	if (r > *best)
		*best = r;
	return r;
}

static double
rsa_line(const char *name, br_rsa_pkcs1_sign rsa, double *best)
{
	struct job j;
	double r;

	memset(&j, 0, sizeof j);
	j.name = name;
	j.rsa = rsa;
	r = line("rsa2048-sign", &j, check_rsa, op_rsa, 0);
	if (r > *best)
		*best = r;
	return r;
}

/* A cipher whose _get() said "not on this CPU" leaves the job empty. */
static void
rec_line(const char *group, const char *name, const br_block_ctr_class *ctr,
    br_ghash gh, br_chacha20_run cc, br_poly1305_run poly)
{
	struct job j;

	memset(&j, 0, sizeof j);
	j.name = name;
	if (ctr != NULL && gh != 0) {
		j.ctr = ctr;
		j.ghash = gh;
	}
	if (cc != 0 && poly != 0) {
		j.chacha = cc;
		j.poly = poly;
	}
	line(group, &j, check_rec, op_rec, REC_LEN);
}

static void
chacha_line(const char *name, br_chacha20_run cc)
{
	struct job j;

	memset(&j, 0, sizeof j);
	j.name = name;
	j.chacha = cc;
	line("chacha20-16k", &j, check_chacha, op_chacha, REC_LEN);
}

static const char *
ec_name(const br_ec_impl *ec)
{
	if (ec == &br_ec_all_m31)
		return "all_m31";
	if (ec == &br_ec_all_m15)
		return "all_m15";
	return "other";
}

static const char *
ctr_name(const br_block_ctr_class *c)
{
	if (c != NULL && c == br_aes_x86ni_ctr_get_vtable())
		return "x86ni";
	if (c == &br_aes_ct64_ctr_vtable)
		return "ct64";
	if (c == &br_aes_ct_ctr_vtable)
		return "ct";
	return "other";
}

static const char *
ghash_name(br_ghash g)
{
	if (g != 0 && g == br_ghash_pclmul_get())
		return "pclmul";
	if (g == &br_ghash_ctmul64)
		return "ctmul64";
	if (g == &br_ghash_ctmul)
		return "ctmul";
	if (g == &br_ghash_ctmul32)
		return "ctmul32";
	return "other";
}

static const char *
chacha_name(br_chacha20_run c)
{
	if (c != 0 && c == br_chacha20_sse2_get())
		return "sse2";
	if (c == &br_chacha20_ct_run)
		return "ct";
	return "other";
}

static const char *
poly_name(br_poly1305_run p)
{
	if (p != 0 && p == br_poly1305_ctmulq_get())
		return "ctmulq";
	if (p == &br_poly1305_ctmul_run)
		return "ctmul";
	if (p == &br_poly1305_ctmul32_run)
		return "ctmul32";
	return "other";
}

static int
make_ec(br_ec_private_key *sk, unsigned char *kbuf, br_ec_public_key *pk,
    unsigned char *pbuf, int curve)
{
	const br_ec_impl *ec = br_ec_get_default();

	if (br_ec_keygen(&rng.vtable, ec, sk, kbuf, curve) == 0)
		return 0;
	return pk == NULL || br_ec_compute_pub(ec, pk, pbuf, sk) != 0;
}

static int
make_keys(void)
{
	static const char seed[] = "tlsgate cryptobench fixed seed";
	double t0;

	br_hmac_drbg_init(&rng, &br_sha256_vtable, seed, sizeof seed - 1);
	br_hmac_drbg_generate(&rng, msg_hash, sizeof msg_hash);
	if (!make_ec(&p256a, p256a_k, &p256a_pub, p256a_q, BR_EC_secp256r1) ||
	    !make_ec(&p256b, p256b_k, &p256b_pub, p256b_q, BR_EC_secp256r1) ||
	    !make_ec(&p384, p384_k, &p384_pub, p384_q, BR_EC_secp384r1) ||
	    !make_ec(&x25519a, x25519a_k, NULL, NULL, BR_EC_curve25519) ||
	    !make_ec(&x25519b, x25519b_k, &x25519b_pub, x25519b_q,
	    BR_EC_curve25519))
		return 0;
	t0 = now();
	if (!br_rsa_keygen_get_default()(&rng.vtable, &rsa_sk, rsa_k, &rsa_pk,
	    rsa_q, 2048, 65537))
		return 0;
	printf("# RSA-2048 keygen (default impl, fixed seed): %.2f s\n",
	    now() - t0);
	return 1;
}

int
main(int argc, char **argv)
{
	static br_ssl_engine_context eng;
	double sign, sign384, p256, x25519, rsa, hyb = 0;
	double bsign, bsign384, bp256, bx25519, brsa;
	const char *label = "";
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			budget = strtod(argv[++i], NULL);
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			count = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-l") == 0 && i + 1 < argc)
			label = argv[++i];
		else if (strcmp(argv[i], "-g") == 0 && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr, "usage: cryptobench [-t seconds] "
			    "[-n ops] [-l label] [-g group/name]\n");
			return 100;
		}
	}
	if (!(budget >= 0.01 && budget <= 10) || count > MAX_OPS) {
		fprintf(stderr, "cryptobench: need 0.01 <= -t <= 10, "
		    "-n <= %lu\n", MAX_OPS);
		return 100;
	}
	if (!make_keys()) {
		fprintf(stderr, "cryptobench: key generation failed\n");
		return 1;
	}

	/*
	 * The engine has no accessor for what its set_default_* calls
	 * chose; the fields are declared in bearssl_ssl.h, so read them.
	 */
	br_ssl_engine_set_default_ec(&eng);
	br_ssl_engine_set_default_aes_gcm(&eng);
	br_ssl_engine_set_default_chapol(&eng);
	printf("# %s: engine defaults: ec=%s aes_ctr=%s ghash=%s "
	    "chacha20=%s poly1305=%s; ecdsa_sign=%s rsa_pkcs1_sign=%s\n",
	    label, ec_name(eng.iec), ctr_name(eng.iaes_ctr),
	    ghash_name(eng.ighash), chacha_name(eng.ichacha),
	    poly_name(eng.ipoly),
	    br_ecdsa_sign_asn1_get_default() == &br_ecdsa_i31_sign_asn1 ?
	    "i31" : "i15",
	    br_rsa_pkcs1_sign_get_default() == br_rsa_i62_pkcs1_sign_get() ?
	    "i62" : "i31/i15");
	/* What tlsgate's start-up (src/prim.c) would choose here. */
	{
		char d[160];

		if (prim_choose(getenv("TLSGATE_PRIMITIVES")) == 0) {
			prim_describe(d, sizeof(d));
			printf("# %s: tlsgate chooses: %s\n", label, d);
		}
	}
	if (count != 0)
		printf("# %lu ops per round, best of %d rounds\n", count,
		    ROUNDS);
	else
		printf("# %.2f s per line, best of %d rounds\n", budget,
		    ROUNDS);

	bsign = bsign384 = bp256 = bx25519 = brsa = 0;
	sign = ec_line("ecdsa-p256-sign", "default", eng.iec,
	    br_ecdsa_sign_asn1_get_default(), BR_EC_secp256r1, &bsign);
	ec_line("ecdsa-p256-sign", "tlsgate", eng.iec, &tg_sign,
	    BR_EC_secp256r1, &bsign);
	ec_line("ecdsa-p256-sign", "p256_m31/i31", &br_ec_p256_m31,
	    &br_ecdsa_i31_sign_asn1, BR_EC_secp256r1, &bsign);
	ec_line("ecdsa-p256-sign", "p256_m15/i31", &br_ec_p256_m15,
	    &br_ecdsa_i31_sign_asn1, BR_EC_secp256r1, &bsign);
	ec_line("ecdsa-p256-sign", "p256_m15/i15", &br_ec_p256_m15,
	    &br_ecdsa_i15_sign_asn1, BR_EC_secp256r1, &bsign);
	ec_line("ecdsa-p256-sign", "prime_i31/i31", &br_ec_prime_i31,
	    &br_ecdsa_i31_sign_asn1, BR_EC_secp256r1, &bsign);
	ec_line("ecdsa-p256-sign", "prime_i15/i15", &br_ec_prime_i15,
	    &br_ecdsa_i15_sign_asn1, BR_EC_secp256r1, &bsign);
	sign384 = ec_line("ecdsa-p384-sign", "default", eng.iec,
	    br_ecdsa_sign_asn1_get_default(), BR_EC_secp384r1, &bsign384);
	ec_line("ecdsa-p384-sign", "tlsgate", eng.iec, &tg_sign,
	    BR_EC_secp384r1, &bsign384);
	ec_line("ecdsa-p384-sign", "prime_i31/i31", &br_ec_prime_i31,
	    &br_ecdsa_i31_sign_asn1, BR_EC_secp384r1, &bsign384);
	ec_line("ecdsa-p384-sign", "prime_i15/i15", &br_ec_prime_i15,
	    &br_ecdsa_i15_sign_asn1, BR_EC_secp384r1, &bsign384);

	rsa = rsa_line("default", br_rsa_pkcs1_sign_get_default(), &brsa);
	rsa_line("i62", br_rsa_i62_pkcs1_sign_get(), &brsa);
	rsa_line("i31", &br_rsa_i31_pkcs1_sign, &brsa);
	rsa_line("i32", &br_rsa_i32_pkcs1_sign, &brsa);
	rsa_line("i15", &br_rsa_i15_pkcs1_sign, &brsa);

	p256 = ec_line("ecdhe-p256", "default", eng.iec, 0,
	    BR_EC_secp256r1, &bp256);
	ec_line("ecdhe-p256", "p256_m31", &br_ec_p256_m31, 0,
	    BR_EC_secp256r1, &bp256);
	ec_line("ecdhe-p256", "p256_m15", &br_ec_p256_m15, 0,
	    BR_EC_secp256r1, &bp256);
	ec_line("ecdhe-p256", "prime_i31", &br_ec_prime_i31, 0,
	    BR_EC_secp256r1, &bp256);
	ec_line("ecdhe-p256", "prime_i15", &br_ec_prime_i15, 0,
	    BR_EC_secp256r1, &bp256);
	x25519 = ec_line("ecdhe-x25519", "default", eng.iec, 0,
	    BR_EC_curve25519, &bx25519);
	ec_line("ecdhe-x25519", "c25519_m31", &br_ec_c25519_m31, 0,
	    BR_EC_curve25519, &bx25519);
	ec_line("ecdhe-x25519", "c25519_m15", &br_ec_c25519_m15, 0,
	    BR_EC_curve25519, &bx25519);
	ec_line("ecdhe-x25519", "c25519_i31", &br_ec_c25519_i31, 0,
	    BR_EC_curve25519, &bx25519);
	ec_line("ecdhe-x25519", "c25519_i15", &br_ec_c25519_i15, 0,
	    BR_EC_curve25519, &bx25519);

#ifndef TLSGATE_NO_MLKEM
	{
		struct job jk = { "tlsgate", NULL, 0, 0, 0, 0, 0, 0, 0 };

		jk.ec = eng.iec;	/* X25519 for the hybrid; marks "present" */
		kem_key();
		line("mlkem768-encaps", &jk, check_mlkem, op_mlkem, 0);
		/* Random throughout: no fixed answer to compare. */
		hyb = line("x25519mlkem768", &jk, op_hybrid, op_hybrid, 0);
	}
#endif
	rec_line("aes128gcm-16k", "default", eng.iaes_ctr, eng.ighash, 0, 0);
	rec_line("aes128gcm-16k", "x86ni+pclmul",
	    br_aes_x86ni_ctr_get_vtable(), br_ghash_pclmul_get(), 0, 0);
	rec_line("aes128gcm-16k", "x86ni+ctmul64",
	    br_aes_x86ni_ctr_get_vtable(), &br_ghash_ctmul64, 0, 0);
	rec_line("aes128gcm-16k", "ct64+pclmul",
	    &br_aes_ct64_ctr_vtable, br_ghash_pclmul_get(), 0, 0);
	rec_line("aes128gcm-16k", "ct64+ctmul64",
	    &br_aes_ct64_ctr_vtable, &br_ghash_ctmul64, 0, 0);
	rec_line("aes128gcm-16k", "ct+ctmul",
	    &br_aes_ct_ctr_vtable, &br_ghash_ctmul, 0, 0);
	rec_line("chapol-16k", "default", NULL, 0, eng.ichacha, eng.ipoly);
	rec_line("chapol-16k", "sse2+ctmulq", NULL, 0,
	    br_chacha20_sse2_get(), br_poly1305_ctmulq_get());
	rec_line("chapol-16k", "ct+ctmulq", NULL, 0,
	    &br_chacha20_ct_run, br_poly1305_ctmulq_get());
	rec_line("chapol-16k", "sse2+ctmul", NULL, 0,
	    br_chacha20_sse2_get(), &br_poly1305_ctmul_run);
	rec_line("chapol-16k", "ct+ctmul", NULL, 0,
	    &br_chacha20_ct_run, &br_poly1305_ctmul_run);
	chacha_line("sse2", br_chacha20_sse2_get());
	chacha_line("ct", &br_chacha20_ct_run);

	if (only != NULL)
		return failed;
	printf("# %s: full-handshake ceiling per core from primitives alone,"
	    " 1/(t_sign + t_ecdhe)\n", label);
	printf("%-38s %10s %10s\n", "#", "defaults", "best impl");
	printf("%-38s %10.0f %10.0f\n", "ceiling ECDHE-ECDSA P-256 kex+sign",
	    ceiling(sign, p256), ceiling(bsign, bp256));
	printf("%-38s %10.0f %10.0f\n", "ceiling ECDHE-ECDSA X25519+P-256",
	    ceiling(sign, x25519), ceiling(bsign, bx25519));
	printf("%-38s %10.0f %10.0f\n", "ceiling ECDHE-ECDSA X25519+P-384",
	    ceiling(sign384, x25519), ceiling(bsign384, bx25519));
	if (hyb > 0)
		printf("%-38s %10.0f %10s\n", "ceiling X25519MLKEM768+P-256",
		    ceiling(sign, hyb), "-");
	printf("%-38s %10.0f %10.0f\n", "ceiling ECDHE-RSA P-256+RSA-2048",
	    ceiling(rsa, p256), ceiling(brsa, bp256));
	printf("%-38s %10.0f %10.0f\n", "ceiling ECDHE-RSA X25519+RSA-2048",
	    ceiling(rsa, x25519), ceiling(brsa, bx25519));
	return failed;
}
