/* SPDX-License-Identifier: ISC */
/*
 * test_ticket.c - unit tests of src/ticket.c: tickets that open, and
 * every way one must not (tampered, truncated, expired, another key,
 * another version, another service or server name), tickets that carry
 * a client certificate, key rotation and the retired key's wiping, key
 * files in haproxy's format.
 */
#include <string.h>

#include "ticket.h"
#include "unit.h"
#include "wipe.h"

static br_hmac_drbg_context drbg;
static const br_prng_class **rng = &drbg.vtable;
static const char ctx[] = "default\0gate.example.com";
#define CTXLEN	(sizeof(ctx) - 1)

static struct ticket_state
state(unsigned version, int64_t born, uint32_t lifetime)
{
	struct ticket_state st;

	memset(&st, 0, sizeof(st));
	st.version = version;
	st.suite = 0x1301;
	st.flags = TICKET_EMS;
	for (size_t i = 0; i < 32; i++)
		st.secret[i] = (unsigned char)(i * 7 + 1);
	st.secret_len = 32;
	st.born = born;
	st.lifetime = lifetime;
	return st;
}

static void
store(struct ticket_keys *ks, unsigned char tag, uint32_t rotate,
    uint32_t lifetime, int64_t now)
{
	unsigned char seed[32];

	memset(seed, tag, sizeof(seed));
	ticket_keys_rotating(ks, seed, rotate, lifetime, now);
}

static int
test_roundtrip(void)
{
	struct ticket_keys ks;
	struct ticket_state st = state(0x0304, 1000, 7200), got;
	unsigned char t[TICKET_LEN + 8];

	store(&ks, 1, 3600, 7200, 1000);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 1000, t, sizeof(t)) ==
	    TICKET_LEN);
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0304, 1001,
	    &got, NULL) == 1);
	CHECK(got.version == 0x0304 && got.suite == 0x1301 &&
	    got.flags == TICKET_EMS && got.secret_len == 32 &&
	    memcmp(got.secret, st.secret, 32) == 0 && got.born == 1000 &&
	    got.lifetime == 7200);
	/* The secret is not in the clear. */
	for (size_t i = 0; i + 8 <= TICKET_LEN; i++)
		CHECK(memcmp(t + i, st.secret, 8) != 0);
	/* Too small a buffer, too long a context: nothing sealed. */
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 1000, t,
	    TICKET_LEN - 1) == 0);
	CHECK(ticket_seal(&ks, &st, ctx, TICKET_CTX_MAX + 1, rng, 1000, t,
	    sizeof(t)) == 0);
	return 1;
}

static int
test_tampered(void)
{
	struct ticket_keys ks;
	struct ticket_state st = state(0x0303, 50, 100), got;
	unsigned char t[TICKET_LEN];

	store(&ks, 2, 100, 100, 50);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 50, t, sizeof(t)) ==
	    TICKET_LEN);
	for (size_t i = 0; i < TICKET_LEN; i++)
		for (unsigned b = 0; b < 8; b++) {
			t[i] ^= (unsigned char)(1u << b);
			CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN,
			    0x0303, 60, &got, NULL) == 0);
			CHECK(got.secret_len == 0 && got.secret[0] == 0);
			t[i] ^= (unsigned char)(1u << b);
		}
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0303, 60, &got, NULL));
	return 1;
}

static int
test_truncated(void)
{
	struct ticket_keys ks;
	struct ticket_state st = state(0x0303, 50, 100), got;
	unsigned char t[TICKET_LEN + 1];

	store(&ks, 3, 100, 100, 50);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 50, t, sizeof(t)));
	t[TICKET_LEN] = 0;
	for (size_t n = 0; n < TICKET_LEN; n++)
		CHECK(ticket_open(&ks, t, n, ctx, CTXLEN, 0x0303, 60,
		    &got, NULL) == 0);
	CHECK(ticket_open(&ks, t, TICKET_LEN + 1, ctx, CTXLEN, 0x0303, 60,
	    &got, NULL) == 0);
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0303, 60, &got, NULL));
	return 1;
}

/* The lifetime sealed in the ticket counts, not the store's. */
static int
test_expired(void)
{
	struct ticket_keys ks;
	struct ticket_state st = state(0x0304, 1000, 30), got;
	unsigned char t[TICKET_LEN];

	store(&ks, 4, 3600, 3600, 1000);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 1000, t, sizeof(t)));
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0304, 1029,
	    &got, NULL));
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0304, 1030,
	    &got, NULL) == 0);
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0304, 5000,
	    &got, NULL) == 0);
	/* Born far in the future (another box's clock): refused. */
	st = state(0x0304, 2000, 30);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 1000, t, sizeof(t)));
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0304, 1000,
	    &got, NULL) == 0);
	st = state(0x0304, 1010, 30);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 1000, t, sizeof(t)));
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0304, 1000,
	    &got, NULL));
	/*
	 * Born at the far past (a key holder's forgery, or a broken clock):
	 * expired, not now - born overflowing into "just born" (found by
	 * make prove).
	 */
	st = state(0x0304, INT64_MIN, UINT32_MAX);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 1000, t, sizeof(t)));
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0304, 1000,
	    &got, NULL) == 0);
	return 1;
}

static int
test_wrong_key_version_context(void)
{
	static const char other_name[] = "default\0other.example.com";
	static const char other_svc[] = "admin\0gate.example.com";
	struct ticket_keys ks, other;
	struct ticket_state st = state(0x0303, 10, 100), got;
	unsigned char t[TICKET_LEN];

	store(&ks, 5, 100, 100, 10);
	store(&other, 6, 100, 100, 10);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 10, t, sizeof(t)));
	CHECK(ticket_open(&other, t, TICKET_LEN, ctx, CTXLEN, 0x0303, 11,
	    &got, NULL) == 0);
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0304, 11,
	    &got, NULL) == 0);
	CHECK(ticket_open(&ks, t, TICKET_LEN, other_name,
	    sizeof(other_name) - 1, 0x0303, 11, &got, NULL) == 0);
	CHECK(ticket_open(&ks, t, TICKET_LEN, other_svc,
	    sizeof(other_svc) - 1, 0x0303, 11, &got, NULL) == 0);
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, 7, 0x0303, 11, &got, NULL) == 0);
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0303, 11, &got, NULL));
	return 1;
}

/*
 * A client certificate rides along, of any length up to its bound, in
 * a ticket as long whatever its length: it opens to itself, in cert,
 * and only where the caller has room; a
 * ticket without one opens with none; every byte is authenticated.
 */
static int
test_certificate(void)
{
	static const size_t lens[] = { 1, 523, TICKET_CERT_MAX };
	static unsigned char der[TICKET_CERT_MAX + 1], cert[TICKET_CERT_MAX];
	static unsigned char t[TICKET_MAX + 1];
	struct ticket_keys ks;
	struct ticket_state st = state(0x0303, 50, 100), got;

	store(&ks, 8, 100, 100, 50);
	for (size_t i = 0; i < sizeof(der); i++)
		der[i] = (unsigned char)(0x30 + i * 13);
	st.flags = TICKET_EMS | TICKET_CLIENT | TICKET_CERT;
	st.cert = der;
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t n = TICKET_MAX;

		st.cert_len = lens[k];
		CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 50, t,
		    sizeof(t)) == n);
		memset(cert, 0, sizeof(cert));
		CHECK(ticket_open(&ks, t, n, ctx, CTXLEN, 0x0303, 60, &got,
		    cert) == 1);
		CHECK(got.flags == st.flags && got.cert == cert &&
		    got.cert_len == lens[k] &&
		    memcmp(cert, der, lens[k]) == 0 && got.secret_len == 32);
		/* Sealed: the certificate is not in the clear either. */
		for (size_t i = 0; lens[k] >= 8 && i + 8 <= n; i++)
			CHECK(memcmp(t + i, der, 8) != 0);
		/* No room for it: it does not open. */
		CHECK(ticket_open(&ks, t, n, ctx, CTXLEN, 0x0303, 60, &got,
		    NULL) == 0 && got.flags == 0 && got.cert == NULL);
		/* One byte less or more, one bit of it flipped: neither. */
		CHECK(ticket_open(&ks, t, n - 1, ctx, CTXLEN, 0x0303, 60, &got,
		    cert) == 0);
		CHECK(ticket_open(&ks, t, n + 1, ctx, CTXLEN, 0x0303, 60, &got,
		    cert) == 0);
		t[n - 17] ^= 1;
		CHECK(ticket_open(&ks, t, n, ctx, CTXLEN, 0x0303, 60, &got,
		    cert) == 0 && got.cert_len == 0);
		t[n - 17] ^= 1;
		/* Too small a buffer to seal into: nothing. */
		CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 50, t, n - 1) ==
		    0);
	}
	/* Longer than the bound, or empty: not sealed. */
	st.cert_len = TICKET_CERT_MAX + 1;
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 50, t, sizeof(t)) == 0);
	st.cert_len = 0;
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 50, t, sizeof(t)) == 0);
	/* A client without one: TICKET_LEN, the flag kept, no certificate. */
	st.flags = TICKET_CLIENT;
	st.cert = NULL;
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 50, t, sizeof(t)) ==
	    TICKET_LEN);
	CHECK(ticket_open(&ks, t, TICKET_LEN, ctx, CTXLEN, 0x0303, 60, &got,
	    cert) == 1);
	CHECK(got.flags == TICKET_CLIENT && got.cert == NULL &&
	    got.cert_len == 0);
	return 1;
}

/* Does the key appear anywhere in the store's memory? */
static int
holds(const struct ticket_keys *ks, const unsigned char *key)
{
	const unsigned char *p = (const unsigned char *)ks;

	for (size_t i = 0; i + 32 <= sizeof(*ks); i++)
		if (memcmp(p + i, key, 32) == 0)
			return 1;
	return 0;
}

static int
test_rotation(void)
{
	static const unsigned char zero[sizeof(struct ticket_key)];
	struct ticket_keys ks, twin;
	struct ticket_state st = state(0x0304, 5, 1000), got;
	unsigned char t0[TICKET_LEN], t1[TICKET_LEN], key0[32], name0[16];
	const struct ticket_key *k;

	/* rotate 10 s, lifetime 20 s: 3 keys kept. */
	store(&ks, 7, 10, 20, 5);
	twin = ks;			/* a worker forked at start-up */
	CHECK(ks.keep == 3);
	CHECK((k = ticket_keys_current(&ks, 5)) != NULL);
	memcpy(key0, k->key, 32);
	memcpy(name0, k->name, 16);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 5, t0, sizeof(t0)));
	st.born = 15;
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 15, t1, sizeof(t1)));
	CHECK(memcmp(t1, name0, 16) != 0);	/* a new key sealed it */
	CHECK(ticket_keys_count(&ks) == 2);
	/* The previous keys open. */
	CHECK(ticket_open(&ks, t0, TICKET_LEN, ctx, CTXLEN, 0x0304, 29,
	    &got, NULL));
	CHECK(ticket_open(&ks, t1, TICKET_LEN, ctx, CTXLEN, 0x0304, 29,
	    &got, NULL));
	CHECK(ticket_keys_count(&ks) == 3);
	/* The twin, jumping straight to period 2, has the same keys. */
	CHECK(ticket_open(&twin, t1, TICKET_LEN, ctx, CTXLEN, 0x0304, 29,
	    &got, NULL));
	CHECK(memcmp(&twin, &ks, sizeof(ks)) == 0);
	/* Period 3: period 0's key is retired (the ticket's own lifetime
	 * would still allow it), and gone from memory. */
	CHECK(holds(&ks, key0));
	CHECK(ticket_open(&ks, t0, TICKET_LEN, ctx, CTXLEN, 0x0304, 30,
	    &got, NULL) == 0);
	CHECK(ticket_keys_count(&ks) == 3);
	CHECK(!holds(&ks, key0));
	CHECK(memcmp(&ks.k[0], zero, sizeof(zero)) == 0);
	CHECK(ticket_open(&ks, t1, TICKET_LEN, ctx, CTXLEN, 0x0304, 30,
	    &got, NULL));
	/* A long gap: everything old retired, one key left, still sealing. */
	CHECK(ticket_open(&ks, t1, TICKET_LEN, ctx, CTXLEN, 0x0304, 1000,
	    &got, NULL) == 0);
	CHECK(ticket_keys_count(&ks) == 3);
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 1000, t1, sizeof(t1)));
	/* A clock that goes back seals with the newest key. */
	CHECK(ticket_seal(&ks, &st, ctx, CTXLEN, rng, 500, t0, sizeof(t0)));
	CHECK(memcmp(t0, t1, 16) == 0);
	wipe(&ks, sizeof(ks));
	CHECK(ticket_keys_count(&ks) == 0);
	CHECK(ticket_keys_current(&ks, 1000) == NULL ||
	    ticket_keys_count(&ks) == 1);
	return 1;
}

/* 48 and 80 bytes: openssl rand 48 | base64; the first 16 the name. */
static const char file_a[] =
	"\n"
	"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v\n"
	"  MDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn8=\r\n"
	"oKGio6SlpqeoqaqrrK2ur7CxsrO0tba3uLm6u7y9vr/AwcLDxMXGx8jJysvMzc7P\n";

static int
test_key_file(void)
{
	struct ticket_keys a, b, c;
	struct ticket_state st = state(0x0303, 100, 600), got;
	unsigned char t[TICKET_LEN];
	const struct ticket_key *k;
	char err[128];
	/* The same second line, now the first: a rotated file. */
	static const char file_b[] =
	    "MDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn8=\n"
	    "oKGio6SlpqeoqaqrrK2ur7CxsrO0tba3uLm6u7y9vr/AwcLDxMXGx8jJysvMzc7P\n"
	    "0NHS09TV1tfY2drb3N3e3+Dh4uPk5ebn6Onq6+zt7u/w8fLz9PX29/j5+vv8/f7/\n";
	static const char file_c[] =
	    "0NHS09TV1tfY2drb3N3e3+Dh4uPk5ebn6Onq6+zt7u/w8fLz9PX29/j5+vv8/f7/\n";

	CHECK(ticket_keys_parse(&a, file_a, sizeof(file_a) - 1, err,
	    sizeof(err)) == 0);
	CHECK(ticket_keys_count(&a) == 3);
	/* The penultimate line seals: name 0x30 0x31 ... */
	CHECK((k = ticket_keys_current(&a, 0)) != NULL);
	CHECK(k->name[0] == 0x30 && k->name[15] == 0x3f);
	CHECK(ticket_seal(&a, &st, ctx, CTXLEN, rng, 100, t, sizeof(t)));
	CHECK(t[0] == 0x30);
	CHECK(ticket_keys_parse(&b, file_b, sizeof(file_b) - 1, err,
	    sizeof(err)) == 0);
	CHECK(ticket_open(&b, t, TICKET_LEN, ctx, CTXLEN, 0x0303, 101, &got, NULL));
	CHECK(memcmp(got.secret, st.secret, 32) == 0);
	CHECK(ticket_keys_parse(&c, file_c, sizeof(file_c) - 1, err,
	    sizeof(err)) == 0);
	CHECK(ticket_open(&c, t, TICKET_LEN, ctx, CTXLEN, 0x0303, 101,
	    &got, NULL) == 0);
	/* A file key never rotates. */
	CHECK(ticket_open(&a, t, TICKET_LEN, ctx, CTXLEN, 0x0303, 650, &got, NULL));
	/* Bad files, each with its line. */
	CHECK(ticket_keys_parse(&c, "", 0, err, sizeof(err)) < 0);
	CHECK(ticket_keys_parse(&c, "\nAAEC\n", 6, err, sizeof(err)) < 0);
	CHECK(strstr(err, "line 2") != NULL);
	CHECK(ticket_keys_parse(&c, "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd"
	    "Hh8gISIjJCUmJygpKiss$S4v\n", 65, err, sizeof(err)) < 0);
	CHECK(ticket_keys_count(&c) == 0);
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(test_roundtrip), T(test_tampered), T(test_truncated),
		T(test_expired), T(test_wrong_key_version_context),
		T(test_certificate),
		T(test_rotation), T(test_key_file),
	};

	br_hmac_drbg_init(&drbg, &br_sha256_vtable, "test", 4);
	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
