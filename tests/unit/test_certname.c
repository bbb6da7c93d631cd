/* SPDX-License-Identifier: ISC */
/*
 * test_certname.c - the names a certificate is for (certname.c): the
 * subjectAltName's dNSNames, else the subject's last CN, lowercased;
 * SNI matching with one leading wildcard label; the host name grammar
 * of cert_names.  The certificates were made once with
 *	openssl req -x509 -new -key key_p256.pem -subj /CN=cn.example \
 *	    -addext "subjectAltName=DNS:A.Example,DNS:*.b.example,\
 *	    IP:192.0.2.1,DNS:c.example" -days 36500 -sha256 -outform DER
 * and, with no extension, -subj /O=tlsgate/CN=Only-CN.example.
 */
#include <string.h>

#include "certname.h"
#include "unit.h"

static const char SAN_CERT[] =
    "308201b73082015da00302010202140508242e1020866def968f226a66dc05a9"
    "54423e300a06082a8648ce3d04030230153113301106035504030c0a636e2e65"
    "78616d706c653020170d3236313230373032323734325a180f32313236313131"
    "333032323734325a30153113301106035504030c0a636e2e6578616d706c6530"
    "59301306072a8648ce3d020106082a8648ce3d03010703420004324bf0f6fefd"
    "932420941d147074ba47f5d8592ae2b313a486109f24bef70d132bdf5ed4d520"
    "14548687beaf88b4496a7bc3ff46e91a4dd0717550518ba4d57da38188308185"
    "301d0603551d0e041604149c4e1b65572b5bc9b1c11e11740b3abe574dd0cf30"
    "1f0603551d230418301680149c4e1b65572b5bc9b1c11e11740b3abe574dd0cf"
    "300f0603551d130101ff040530030101ff30320603551d11042b30298209412e"
    "4578616d706c65820b2a2e622e6578616d706c658704c00002018209632e6578"
    "616d706c65300a06082a8648ce3d04030203480030450220146ed2cb93f71b98"
    "079e872e7a34b1c86c77265bef4dc00d1c3ff47aa2fe637f022100d0409ff482"
    "da1e3cc6f7d2d9b49e99611283c14712d51cd8e10f1139e77b8529";
static const char CN_CERT[] =
    "308201af30820155a00302010202142138b5da09c0657f572c440b40968e3b2a"
    "1c1e9a300a06082a8648ce3d040302302c3110300e060355040a0c07746c7367"
    "6174653118301606035504030c0f4f6e6c792d434e2e6578616d706c65302017"
    "0d3236313230373032323734385a180f32313236313131333032323734385a30"
    "2c3110300e060355040a0c07746c73676174653118301606035504030c0f4f6e"
    "6c792d434e2e6578616d706c653059301306072a8648ce3d020106082a8648ce"
    "3d03010703420004324bf0f6fefd932420941d147074ba47f5d8592ae2b313a4"
    "86109f24bef70d132bdf5ed4d52014548687beaf88b4496a7bc3ff46e91a4dd0"
    "717550518ba4d57da3533051301d0603551d0e041604149c4e1b65572b5bc9b1"
    "c11e11740b3abe574dd0cf301f0603551d230418301680149c4e1b65572b5bc9"
    "b1c11e11740b3abe574dd0cf300f0603551d130101ff040530030101ff300a06"
    "082a8648ce3d040302034800304502201ea1ac5c7a96fd614fe30b8ca86df472"
    "fe99b711af62a64188ea4230a6e8d625022100f80a39f6c1ccfb8b96b1dd0b78"
    "e681b90917c344159ae7acb1bbed5e65c60193";

static unsigned char der[1024];
static char names[CERTNAME_MAX][CERTNAME_LEN];

static int
san_dns_names_in_order_lowercased(void)
{
	size_t n = unit_unhex(der, sizeof(der), SAN_CERT);

	CHECK(certname_get(der, n, names) == 3);
	CHECK(strcmp(names[0], "a.example") == 0);
	CHECK(strcmp(names[1], "*.b.example") == 0);
	/* The IP entry is no dNSName; the CN is not read beside a SAN. */
	CHECK(strcmp(names[2], "c.example") == 0);
	return 1;
}

static int
without_san_the_cn_is_the_name(void)
{
	size_t n = unit_unhex(der, sizeof(der), CN_CERT);

	CHECK(certname_get(der, n, names) == 1);
	CHECK(strcmp(names[0], "only-cn.example") == 0);
	return 1;
}

/* Any cut or a wrong outer tag: no names, and no read past len. */
static int
truncated_or_foreign_der_has_no_names(void)
{
	size_t n = unit_unhex(der, sizeof(der), SAN_CERT);

	for (size_t k = 0; k < n; k += 7)
		CHECK(certname_get(der, k, names) == 0);
	der[0] = 0x31;
	CHECK(certname_get(der, n, names) == 0);
	CHECK(certname_get((const unsigned char *)"", 0, names) == 0);
	return 1;
}

static int
match_is_exact_or_one_wildcard_label(void)
{
	CHECK(certname_match("a.example", "a.example"));
	CHECK(certname_match("a.example", "A.EXAMPLE"));
	CHECK(!certname_match("a.example", "b.example"));
	CHECK(!certname_match("a.example", "a.example.org"));
	CHECK(certname_match("*.b.example", "x.b.example"));
	CHECK(certname_match("*.b.example", "X-1.B.example"));
	/* RFC 6125 6.4.3: one label only, never the bare domain. */
	CHECK(!certname_match("*.b.example", "y.x.b.example"));
	CHECK(!certname_match("*.b.example", "b.example"));
	CHECK(!certname_match("*.b.example", ".b.example"));
	CHECK(!certname_match("*.b.example", "x.c.example"));
	return 1;
}

static int
is_host_takes_labels_and_refuses_the_rest(void)
{
	static const char *const good[] = { "a", "gw.example", "x-1.a9.b",
	    "0.example" };
	static const char *const bad[] = { "", ".a", "a.", "a..b", "-a.b",
	    "a-.b", "*.a.b", "a_b.c", "a b", "192.0.2.1:80" };
	char label[70];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(certname_is_host(good[i], strlen(good[i])));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(!certname_is_host(bad[i], strlen(bad[i])));
	/* A label of 63 bytes is the longest. */
	memset(label, 'a', sizeof(label));
	CHECK(certname_is_host(label, 63));
	CHECK(!certname_is_host(label, 64));
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(san_dns_names_in_order_lowercased),
		T(without_san_the_cn_is_the_name),
		T(truncated_or_foreign_der_has_no_names),
		T(match_is_exact_or_one_wildcard_label),
		T(is_host_takes_labels_and_refuses_the_rest),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
