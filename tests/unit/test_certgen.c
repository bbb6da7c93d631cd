/* SPDX-License-Identifier: ISC */
/*
 * test_certgen.c - the certificates src/certgen.c makes, read back by
 * BearSSL's own X.509 decoder and signature check, and what tlsgate
 * says about a certificate (fingerprint, expiry, made by it or not).
 */
#include <string.h>
#include <bearssl.h>

#include "certgen.h"
#include "der.h"
#include "port.h"
#include "unit.h"

static unsigned char cert[2048];
static char names[CERTNAME_MAX][CERTNAME_LEN] = { "gate.example",
    "192.0.2.7", "2001:db8::1", "other.example" };
static const int64_t now = 1764756000;	/* 2025-12-03 10:00 UTC */

struct sink {
	unsigned char	b[512];
	size_t		n;
};

static void
keep(void *ctx, const void *data, size_t len)
{
	struct sink *s = ctx;

	if (len <= sizeof(s->b) - s->n) {
		memcpy(s->b + s->n, data, len);
		s->n += len;
	}
}

static int
bearssl_decodes_an_ec_p256_end_entity_certificate(void)
{
	br_x509_decoder_context xd;
	const br_x509_pkey *pk;
	struct sink dn = { { 0 }, 0 };
	size_t len = certgen_make(cert, sizeof(cert), names, 4, now);

	CHECK(len > 300);
	br_x509_decoder_init(&xd, keep, &dn);
	br_x509_decoder_push(&xd, cert, len);
	CHECK(br_x509_decoder_last_error(&xd) == 0);
	pk = br_x509_decoder_get_pkey(&xd);
	CHECK(pk != NULL && pk->key_type == BR_KEYTYPE_EC);
	CHECK(pk->key.ec.curve == BR_EC_secp256r1 && pk->key.ec.qlen == 65);
	CHECK(br_x509_decoder_isCA(&xd) == 0);
	CHECK(br_x509_decoder_get_signer_key_type(&xd) == BR_KEYTYPE_EC);
	CHECK(br_x509_decoder_get_signer_hash_id(&xd) == br_sha256_ID);
	/* The subject ends with CN = the first name. */
	CHECK(dn.n > 12 && memcmp(dn.b + dn.n - 12, "gate.example", 12) == 0);
	return 1;
}

static int
signature_verifies_with_its_own_key_so_it_is_ours(void)
{
	size_t len = certgen_make(cert, sizeof(cert), names, 4, now);

	CHECK(len > 0);
	CHECK(certgen_is_own(cert, len) == 1);
	/* One byte of the signed part changed: the signature fails. */
	cert[len / 2] ^= 1;
	CHECK(certgen_is_own(cert, len) == 0);
	cert[len / 2] ^= 1;
	CHECK(certgen_is_own(cert, len - 1) == 0);
	return 1;
}

static int
dns_names_in_subject_alt_name(void)
{
	char got[CERTNAME_MAX][CERTNAME_LEN];
	size_t len = certgen_make(cert, sizeof(cert), names, 4, now);

	/* certname reads dNSName entries only: the IPs are not among them. */
	CHECK(certname_get(cert, len, got) == 2);
	CHECK(strcmp(got[0], "gate.example") == 0);
	CHECK(strcmp(got[1], "other.example") == 0);
	return 1;
}

static int
ip_addresses_as_4_and_16_bytes(void)
{
	size_t len = certgen_make(cert, sizeof(cert), names, 4, now);
	static const unsigned char v4[] = { 0x87, 4, 192, 0, 2, 7 };
	static const unsigned char v6[] = { 0x87, 16, 0x20, 0x01, 0x0d, 0xb8,
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	int f4 = 0, f6 = 0;

	for (size_t i = 0; i + sizeof(v6) <= len; i++) {
		f4 |= memcmp(cert + i, v4, sizeof(v4)) == 0;
		f6 |= memcmp(cert + i, v6, sizeof(v6)) == 0;
	}
	CHECK(f4 && f6);
	return 1;
}

static int
valid_397_days_from_now(void)
{
	size_t len = certgen_make(cert, sizeof(cert), names, 1, now);

	CHECK(certgen_not_after(cert, len) == now + 397 * 86400);
	CHECK(certgen_not_after(cert, len / 2) == -1);
	return 1;
}

/* Eight certificates: a top bit left unpadded shows in all but 1/256 runs. */
static int
serial_positive_random_128_bits(void)
{
	unsigned char prev[17];
	const unsigned char *p, *c, *t;
	size_t n, cl, tl, prevlen = 0, len;

	for (int k = 0; k < 8; k++) {
		len = certgen_make(cert, sizeof(cert), names, 1, now);
		p = cert;
		n = len;
		CHECK(der_get(&p, &n, DER_SEQUENCE, &c, &cl) == 0);
		CHECK(der_get(&c, &cl, DER_SEQUENCE, &t, &tl) == 0);
		CHECK(der_get(&t, &tl, DER_CTXC(0), &c, &cl) == 0);
		CHECK(cl == 3 && memcmp(c, "\x02\x01\x02", 3) == 0);	/* v3 */
		CHECK(der_get(&t, &tl, DER_INTEGER, &c, &cl) == 0);
		CHECK(cl >= 1 && cl <= 17 && (c[0] & 0x80) == 0);
		CHECK(cl < 17 || c[0] == 0);
		CHECK(cl != prevlen || memcmp(prev, c, cl) != 0);
		memcpy(prev, c, cl);
		prevlen = cl;
	}
	return 1;
}

static int
too_small_a_buffer_fails_cleanly(void)
{
	static unsigned char small[200 + 8];

	memset(small, 0xee, sizeof(small));
	CHECK(certgen_make(small, 200, names, 4, now) == 0);
	for (size_t i = 200; i < sizeof(small); i++)
		CHECK(small[i] == 0xee);
	return 1;
}

static int
fingerprint_as_openssl_prints_it(void)
{
	char fp[CERTGEN_FP_LEN];

	certgen_fingerprint((const unsigned char *)"abc", 3, fp);
	CHECK(strcmp(fp, "BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:"
	    "B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD") == 0);
	return 1;
}

static int
default_names_host_local_and_bound_addresses(void)
{
	static struct service s;
	char got[CERTNAME_MAX][CERTNAME_LEN], host[CERTNAME_LEN];
	const char *why;
	unsigned n, i = 0;

	CHECK(port_addr_parse(&s.listen[0], "0.0.0.0:443", 11, &why) == 0);
	CHECK(port_addr_parse(&s.listen[1], "192.0.2.9:443", 13, &why) == 0);
	CHECK(port_addr_parse(&s.listen[2], "[::]:443", 8, &why) == 0);
	s.nlisten = 3;
	n = certgen_names(&s, got);
	if (port_hostname(host, sizeof(host)) == 0 &&
	    certname_is_host(host, strlen(host))) {
		for (char *c = host; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
		CHECK(strcmp(got[i++], host) == 0);
		if (strchr(host, '.') == NULL)
			CHECK(strncmp(got[i++], host, strlen(host)) == 0 &&
			    strcmp(got[i - 1] + strlen(host), ".local") == 0);
	}
	/* The wildcards name no address. */
	CHECK(n == i + 1 && strcmp(got[i], "192.0.2.9") == 0);
	/* Configured names replace all of them. */
	memcpy(s.cert_names[0], "a.example", 10);
	s.ncert_names = 1;
	CHECK(certgen_names(&s, got) == 1 && strcmp(got[0], "a.example") == 0);
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(bearssl_decodes_an_ec_p256_end_entity_certificate),
		T(signature_verifies_with_its_own_key_so_it_is_ours),
		T(dns_names_in_subject_alt_name),
		T(ip_addresses_as_4_and_16_bytes),
		T(valid_397_days_from_now),
		T(serial_positive_random_128_bits),
		T(too_small_a_buffer_fails_cleanly),
		T(fingerprint_as_openssl_prints_it),
		T(default_names_host_local_and_bound_addresses),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
