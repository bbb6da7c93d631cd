/* SPDX-License-Identifier: ISC */
/*
 * ctdrive.c - what make ctcheck runs beside test_eng12 and test_eng13
 * (which it builds with the marks on and runs as they are): handshakes
 * of both versions, each suite, credential and group, once for every
 * choice of BearSSL implementations prim.c may make; ECDSA signing on
 * P-256, P-384 and P-521; nonces and shares made ahead (precomp.c); the
 * hybrid share, X25519 with ML-KEM-768; Keccak; tickets sealed, opened
 * and tampered with, under rotating keys and a key file's; the session
 * cache.  Under valgrind's memcheck a branch or an address that depends
 * on a byte ct.h marked secret is a report, and any report fails
 * (docs/assurance.md).
 *
 * `ctdrive leak` runs one handshake and then branches on the server's
 * write IV, drawn from its traffic secret: a build with -DCT_LEAK must be
 * reported there, or the check could not fail.  A test of this file may
 * compare a secret only through ct_eq() and declassify the verdict, as
 * src/ does.
 */
#include <stdio.h>
#include <string.h>

#include "cache.h"
#include "ct.h"
#include "ecdsa.h"
#include "engclient.h"
#include "log.h"
#include "precomp.h"
#include "prim.h"
#include "primpin.h"
#include "ticket.h"
#include "tlswire.h"
#include "unit.h"
#ifndef TLSGATE_NO_MLKEM
#include "hybrid.h"
#include "keccak.h"
#include "mlkem.h"
#endif

static struct srv S;
static struct cli C;

/* A new connection, the client offering `suite` alone. */
static void
start(int v13, unsigned suite)
{
	store_clear();
	srv_init(&S, TLS12, TLS13, sizeof(S.obuf));
	cli_init(&C, &S, v13);
	C.suites[0] = suite;
	C.nsuites = 1;
}

/* A DRBG all of whose output is secret, as tls.c's. */
static void
secret_drbg(br_hmac_drbg_context *d, const char *seed)
{
	br_hmac_drbg_init(d, &br_sha256_vtable, seed, strlen(seed));
	ct_secret(d->K, sizeof(d->K));
	ct_secret(d->V, sizeof(d->V));
}

static int
full13(int cred, unsigned suite, unsigned group, int hrr)
{
	unsigned short sg[1];

	start(1, suite);
	S.cred = cred;
	if (group != GROUP_X25519) {
		sg[0] = group;
		S.groups = sg;
		S.ngroups = 1;
		C.groups[0] = group;
		C.groups[1] = GROUP_X25519;
		/* HRR: the one share is for a group the server does not take. */
		C.shares[0] = hrr ? GROUP_X25519 : group;
	}
	CHECK_OK(cli_hello(&C));
	/* The client's keys are the test's: one it took from the server's
	 * pool (precomp.c keeps one a process) is not the server's secret. */
	ct_public(C.kx, sizeof(C.kx));
	CHECK_OK(cli_handshake(&C));
	CHECK(C.version == TLS13 && C.suite == suite && C.group == group);
	CHECK(C.hrr == hrr);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
full12(int cred, unsigned suite, unsigned group)
{
	unsigned short sg[1] = { (unsigned short)group };

	start(0, suite);
	S.cred = cred;
	S.groups = sg;
	S.ngroups = 1;
	C.groups[0] = group;
	C.ngroups = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.version == TLS12 && C.suite == suite && C.group == group);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
handshakes(void)
{
	static const unsigned s12[2][3] = {
		{ ECDSA_AES128, ECDSA_AES256, ECDSA_CHACHA },
		{ RSA_AES128, RSA_AES256, RSA_CHACHA },
	};
	static const unsigned groups[] = { GROUP_X25519, GROUP_SECP256R1,
		GROUP_SECP384R1, GROUP_SECP521R1 };

	for (int cred = CRED_EC; cred <= CRED_RSA; cred++)
		for (unsigned i = 0; i < 3; i++) {
			CHECK(full13(cred, 0x1301 + i, GROUP_X25519, 0));
			CHECK(full12(cred, s12[cred][i], GROUP_X25519));
		}
	for (size_t g = 1; g < sizeof(groups) / sizeof(groups[0]); g++) {
		CHECK(full13(CRED_EC, 0x1301, groups[g], 0));
		CHECK(full12(CRED_EC, ECDSA_AES128, groups[g]));
	}
	CHECK(full13(CRED_EC, 0x1302, GROUP_SECP256R1, 1));
	return 1;
}

/* Sign on `curve` with a secret key, then check the signature. */
static int
ecdsa_on(int curve, const br_hash_class *hf)
{
	const br_ec_impl *ec = prim_get()->ec;
	br_hmac_drbg_context d;
	br_ec_private_key sk;
	br_ec_public_key pk;
	unsigned char kb[BR_EC_KBUF_PRIV_MAX_SIZE], pb[BR_EC_KBUF_PUB_MAX_SIZE];
	unsigned char h[64], sig[160];
	size_t n;

	secret_drbg(&d, "ecdsa key");
	CHECK(br_ec_keygen(&d.vtable, ec, &sk, kb, curve) != 0);
	CHECK(br_ec_compute_pub(ec, &pk, pb, &sk) != 0);
	ct_public(pb, sizeof(pb));		/* the test's public key */
	memset(h, 0x5a, sizeof(h));
	n = tg_ecdsa_sign(ec, hf, h, &sk, sig, NULL, NULL);
	CHECK(n > 0);
	n = br_ecdsa_i31_vrfy_asn1(ec, h, (hf->desc >> BR_HASHDESC_OUT_OFF) &
	    BR_HASHDESC_OUT_MASK, &pk, sig, n);
	CHECK(n == 1);
	return 1;
}

static int
ecdsa(void)
{
	CHECK(ecdsa_on(BR_EC_secp256r1, &br_sha256_vtable));
	CHECK(ecdsa_on(BR_EC_secp384r1, &br_sha384_vtable));
	CHECK(ecdsa_on(BR_EC_secp521r1, &br_sha512_vtable));
	return 1;
}

/* Shares and nonces made ahead, then taken by a handshake. */
static int
precomputed(void)
{
	unsigned long long hits = stats.precomp_hits;

	precomp_init("precomp seed", 12);
	CHECK(full13(CRED_EC, 0x1301, GROUP_X25519, 0));	/* asks for pools */
	while (precomp_fill())
		;
	/* The server's share and nonce, and the client's share. */
	CHECK(full13(CRED_EC, 0x1301, GROUP_X25519, 0));
	CHECK(stats.precomp_hits >= hits + 3);
	precomp_wipe();
	return 1;
}

#ifndef TLSGATE_NO_MLKEM
/*
 * The server's side of X25519MLKEM768 (the scripted client has no
 * ML-KEM decapsulation): a client share of an encapsulation key whose
 * t is zero (a valid encoding: every coefficient below q) and of
 * X25519's base point.
 */
static int
hybrid(void)
{
	static unsigned char share[MLKEM768_EK_LEN + 32];
	unsigned char pub[HYBRID_SERVER_MAX], ss[HYBRID_SHARED_MAX];
	br_hmac_drbg_context d;
	size_t sslen;

	memset(share, 0, sizeof(share));
	memset(share + MLKEM768_EK_LEN - 32, 0x42, 32);	/* rho */
	share[MLKEM768_EK_LEN] = 9;
	secret_drbg(&d, "hybrid");
	CHECK(hybrid_answer(GROUP_X25519MLKEM768, share, sizeof(share),
	    &d.vtable, pub, sizeof(pub), ss, &sslen) == MLKEM768_CT_LEN + 32);
	return 1;
}

/* Keccak over a secret, and ML-KEM's encapsulation from a secret m. */
static int
pq(void)
{
	static unsigned char ek[MLKEM768_EK_LEN], ct[MLKEM768_CT_LEN];
	unsigned char in[200], out[64], m[MLKEM_M_LEN], ss[MLKEM_SS_LEN];
	struct keccak g;

	memset(in, 7, sizeof(in));
	ct_secret(in, sizeof(in));
	sha3_256(out, in, sizeof(in));
	sha3_512_init(&g);
	keccak_update(&g, in, 5);
	keccak_out(&g, out, 64);
	memset(ek + MLKEM768_EK_LEN - 32, 0x42, 32);
	memset(m, 3, sizeof(m));
	ct_secret(m, sizeof(m));
	CHECK(mlkem_encaps_m(&mlkem768, ct, ss, ek, sizeof(ek), m));
	return 1;
}
#endif

/* Sealed, opened, tampered with: each bit of the ticket in turn. */
static int
tickets(void)
{
	static const char file[] =
	    "0NHS09TV1tfY2drb3N3e3+Dh4uPk5ebn6Onq6+zt7u/w8fLz9PX29/j5+vv8/f7/\n";
	static struct ticket_keys ks;
	struct ticket_state st, got;
	char err[80];
	br_hmac_drbg_context d;
	unsigned char seed[32], t[TICKET_LEN];
	static unsigned char der[300], cert[TICKET_CERT_MAX], tc[TICKET_MAX];
	int ok;

	memset(seed, 9, sizeof(seed));
	ticket_keys_rotating(&ks, seed, 3600, 7200, 1000000);
	secret_drbg(&d, "tickets");
	memset(&st, 0, sizeof(st));
	st.version = TLS13;
	st.suite = 0x1301;
	st.secret_len = 32;
	st.born = 1000000;
	st.lifetime = 7200;
	ct_secret(st.secret, sizeof(st.secret));
	CHECK(ticket_seal(&ks, &st, "svc", 3, &d.vtable, 1000000, t,
	    sizeof(t)) == TICKET_LEN);
	CHECK(ticket_open(&ks, t, sizeof(t), "svc", 3, TLS13, 1000010, &got,
	    NULL));
	ok = ct_eq(got.secret, st.secret, 32);
	ct_public(&ok, sizeof(ok));		/* the test's verdict */
	CHECK(ok);
	for (size_t i = 0; i < sizeof(t) * 8; i += 7) {
		t[i / 8] ^= (unsigned char)(1 << i % 8);
		CHECK(!ticket_open(&ks, t, sizeof(t), "svc", 3, TLS13, 1000010,
		    &got, NULL));
		t[i / 8] ^= (unsigned char)(1 << i % 8);
	}
	/* A client's certificate: its length and padding are sealed too. */
	memset(der, 0x30, sizeof(der));
	st.flags = TICKET_CLIENT | TICKET_CERT;
	st.cert = der;
	st.cert_len = sizeof(der);
	CHECK(ticket_seal(&ks, &st, "svc", 3, &d.vtable, 1000000, tc,
	    sizeof(tc)) == TICKET_MAX);
	CHECK(ticket_open(&ks, tc, sizeof(tc), "svc", 3, TLS13, 1000010,
	    &got, cert));
	CHECK(got.cert_len == sizeof(der) && memcmp(cert, der,
	    sizeof(der)) == 0);
	st.flags = 0;
	/* A key from a file (its base64 is read as it comes, at start). */
	CHECK(ticket_keys_parse(&ks, file, sizeof(file) - 1, err,
	    sizeof(err)) == 0);
	CHECK(ticket_seal(&ks, &st, "svc", 3, &d.vtable, 1000000, t,
	    sizeof(t)) == TICKET_LEN);
	CHECK(ticket_open(&ks, t, sizeof(t), "svc", 3, TLS13, 1000010, &got,
	    NULL));
	return 1;
}

/* The lookup compares every way's ID; the secrets only move. */
static int
cache(void)
{
	static struct cache_entry store[4 * CACHE_WAYS];
	struct cache c;
	struct cache_entry e, out;

	cache_init(&c, store, 0, sizeof(store) / sizeof(store[0]));
	for (unsigned i = 0; i < 2 * CACHE_WAYS; i++) {
		memset(&e, 0, sizeof(e));
		memset(e.id, (int)i, sizeof(e.id));
		ct_secret(e.secret, sizeof(e.secret));
		e.secret_len = 48;
		e.version = TLS12;
		e.born = 100;
		cache_put(&c, store, &e);
	}
	memset(e.id, 3, sizeof(e.id));
	CHECK(cache_get(&c, store, e.id, 110, 3600, &out) == 1);
	CHECK(out.version == TLS12 && out.secret_len == 48);
	memset(e.id, 0xee, sizeof(e.id));
	CHECK(cache_get(&c, store, e.id, 110, 3600, &out) == 0);
	cache_wipe(&c, store);
	return 1;
}

/* Candidate `row` of each kind of primitive, or its last; 0: all past. */
static int
prims_row(size_t row)
{
	size_t avail[8], n;
	int more = 0;

	for (int k = 0; k < PRIM_KINDS; k++) {
		n = 0;
		for (size_t i = 0; n < 8; i++) {
			int rc = prim_pin(k, i);

			if (rc < 0)
				break;
			if (rc == 1)
				avail[n++] = i;
		}
		more |= row < n;
		(void)prim_pin(k, avail[row < n ? row : n - 1]);
	}
	return more;
}

/* The self-test: a branch on a secret the marks must reach. */
static int
deliberate_leak(void)
{
	CHECK(full13(CRED_EC, 0x1301, GROUP_X25519, 0));
#ifdef CT_LEAK
	{
		static volatile int sink;

		if (S.e.wr.iv[0] & 1)
			sink++;
	}
#endif
	return 1;
}

int
main(int argc, char **argv)
{
	static const struct unit_test once[] = {
		T(ecdsa), T(precomputed),
#ifndef TLSGATE_NO_MLKEM
		T(pq),
#endif
		T(tickets), T(cache),
	};
	static const struct unit_test each[] = {
		T(handshakes), T(ecdsa),
#ifndef TLSGATE_NO_MLKEM
		T(hybrid),
#endif
	};
	static const struct unit_test leak[] = { T(deliberate_leak) };
	char what[160];
	int rc = 0;

	if (argc > 1 && strcmp(argv[1], "leak") == 0)
		return unit_run(leak, 1);
	rc |= unit_run(once, sizeof(once) / sizeof(once[0]));
	for (size_t row = 0; prims_row(row); row++) {
		prim_describe(what, sizeof(what));
		printf("primitives: %s\n", what);
		rc |= unit_run(each, sizeof(each) / sizeof(each[0]));
	}
	return rc;
}
