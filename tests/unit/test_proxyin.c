/* SPDX-License-Identifier: ISC */
/*
 * test_proxyin.c - the behaviours of src/proxyin.c, one test per
 * behaviour.
 *
 * Inputs are copied into heap buffers of exactly their length, so that a
 * read past `len` is caught when built with -fsanitize=address.  Every
 * valid header is also fed one byte short of each of its lengths, which
 * must be PROXYIN_MORE and never an answer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxyin.h"
#include "unit.h"

static const unsigned char sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d,
	0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };

static int
parse(const void *buf, size_t len, struct proxyin_hdr *h)
{
	unsigned char *p = malloc(len ? len : 1);
	int rc;

	if (p == NULL)
		exit(2);
	memcpy(p, buf, len);
	rc = proxyin_parse(p, len, h);
	free(p);
	return rc;
}

/* Every proper prefix of a valid header is MORE; the whole is OK. */
static int
prefixes_more(const void *buf, size_t len)
{
	struct proxyin_hdr h;

	for (size_t i = 0; i < len; i++)
		if (parse(buf, i, &h) != PROXYIN_MORE)
			return 0;
	return parse(buf, len, &h) == PROXYIN_OK && h.len == len;
}

static int
v1(const char *s, struct proxyin_hdr *h)
{
	return parse(s, strlen(s), h);
}

/* A v2 header: command, family, the address block and extra bytes. */
static size_t
v2(unsigned char *out, unsigned cmd, unsigned fam, const void *body,
    size_t blen)
{
	memcpy(out, sig, 12);
	out[12] = (unsigned char)(0x20 | cmd);
	out[13] = (unsigned char)fam;
	out[14] = (unsigned char)(blen >> 8);
	out[15] = (unsigned char)blen;
	memcpy(out + 16, body, blen);
	return 16 + blen;
}

static const unsigned char tcp4[12] = { 192, 0, 2, 7, 198, 51, 100, 1,
	0xdc, 0x04, 0x01, 0xbb };

static int
v1_tcp4_carries_both_addresses_and_ports(void)
{
	static const char s[] = "PROXY TCP4 192.0.2.7 198.51.100.1 56324 443"
	    "\r\n";
	static const uint8_t src[4] = { 192, 0, 2, 7 }, dst[4] = { 198, 51,
	    100, 1 };
	struct proxyin_hdr h;

	CHECK(v1(s, &h) == PROXYIN_OK);
	CHECK(h.len == sizeof(s) - 1 && !h.local);
	CHECK(h.alen == 4 && memcmp(h.src, src, 4) == 0 &&
	    memcmp(h.dst, dst, 4) == 0);
	CHECK(h.sport == 56324 && h.dport == 443);
	CHECK(prefixes_more(s, sizeof(s) - 1));
	return 1;
}

static int
v1_tcp6_takes_every_text_form(void)
{
	static const uint8_t one[16] = { [15] = 1 }, mapped[16] = { [10] =
	    0xff, [11] = 0xff, [12] = 10, [15] = 1 };
	static const uint8_t full[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0xab, 0xcd };
	struct proxyin_hdr h;

	CHECK(v1("PROXY TCP6 ::1 ::ffff:10.0.0.1 1 65535\r\n", &h) ==
	    PROXYIN_OK);
	CHECK(h.alen == 16 && memcmp(h.src, one, 16) == 0 &&
	    memcmp(h.dst, mapped, 16) == 0 && h.sport == 1 &&
	    h.dport == 65535);
	CHECK(v1("PROXY TCP6 2001:DB8:0:0:0:0:0:abcd 2001:db8::abcd 0 0\r\n",
	    &h) == PROXYIN_OK);
	CHECK(memcmp(h.src, full, 16) == 0 && memcmp(h.dst, full, 16) == 0);
	CHECK(v1("PROXY TCP6 2001:db8:0:0:0:0:0:: :: 1 2\r\n", &h) ==
	    PROXYIN_OK);
	return 1;
}

static int
v1_unknown_keeps_the_connection_address(void)
{
	struct proxyin_hdr h;

	CHECK(v1("PROXY UNKNOWN\r\n", &h) == PROXYIN_OK);
	CHECK(h.alen == 0 && h.len == 15);
	CHECK(v1("PROXY UNKNOWN ffff:: whatever 1 2\r\nTLS", &h) ==
	    PROXYIN_OK);
	CHECK(h.alen == 0 && h.len == 35);
	CHECK(v1("PROXY UNKNOWNX\r\n", &h) == PROXYIN_E_V1_SYNTAX);
	return 1;
}

static int
v1_line_over_107_bytes_is_refused(void)
{
	char s[200];
	struct proxyin_hdr h;

	/* 105 bytes then CRLF: 107 in all, the most the spec allows. */
	memset(s, 'x', sizeof(s));
	memcpy(s, "PROXY UNKNOWN ", 14);
	memcpy(s + 105, "\r\n", 2);
	CHECK(parse(s, 107, &h) == PROXYIN_OK && h.len == 107);
	memcpy(s + 105, "x\r\n", 3);
	CHECK(parse(s, 108, &h) == PROXYIN_E_V1_LONG);
	/* Known as too long before the 108th byte comes. */
	CHECK(parse(s, 106, &h) == PROXYIN_E_V1_LONG);
	CHECK(parse(s, 105, &h) == PROXYIN_MORE);
	return 1;
}

static int
v1_syntax_is_strict(void)
{
	static const char *const bad[] = {
		"PROXY TCP4 192.0.2.7 198.51.100.1 56324 443\n",
		"PROXY TCP4 192.0.2.7 198.51.100.1 56324 443\rX",
		"PROXY TCP4  192.0.2.7 198.51.100.1 56324 443\r\n",
		"PROXY TCP4 192.0.2.7 198.51.100.1 56324 443 \r\n",
		"PROXY TCP4 192.0.2.7 198.51.100.1 56324\r\n",
		"PROXY TCP4 192.0.2.7 198.51.100.1 056324 443\r\n",
		"PROXY TCP4 192.0.2.7 198.51.100.1 65536 443\r\n",
		"PROXY TCP4 192.0.2.7 198.51.100.1 +1 443\r\n",
		"PROXY TCP5 192.0.2.7 198.51.100.1 1 443\r\n",
		"PROXY tcp4 192.0.2.7 198.51.100.1 1 443\r\n",
		"PROXY \r\n",
	};
	struct proxyin_hdr h;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(v1(bad[i], &h) == PROXYIN_E_V1_SYNTAX);
	return 1;
}

static int
v1_address_of_the_wrong_family_is_refused(void)
{
	static const char *const bad[] = {
		"PROXY TCP4 ::1 198.51.100.1 1 2\r\n",
		"PROXY TCP6 192.0.2.7 ::1 1 2\r\n",
		"PROXY TCP4 192.0.2.256 198.51.100.1 1 2\r\n",
		"PROXY TCP4 192.0.2.07 198.51.100.1 1 2\r\n",
		"PROXY TCP4 192.0.2 198.51.100.1 1 2\r\n",
		"PROXY TCP4 192.0.2.7.1 198.51.100.1 1 2\r\n",
		"PROXY TCP6 1:2:3:4:5:6:7:8:9 ::1 1 2\r\n",
		"PROXY TCP6 1::2::3 ::1 1 2\r\n",
		"PROXY TCP6 12345:: ::1 1 2\r\n",
		"PROXY TCP6 :1 ::1 1 2\r\n",
		"PROXY TCP6 1: ::1 1 2\r\n",
		"PROXY TCP6 ::: ::1 1 2\r\n",
		"PROXY TCP6 1:2:3:4:5:6:7:1.2.3.4 ::1 1 2\r\n",
		"PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n",
	};
	struct proxyin_hdr h;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(v1(bad[i], &h) == PROXYIN_E_V1_ADDRESS);
	return 1;
}

static int
tls_hello_is_not_a_header(void)
{
	static const unsigned char hello[] = { 0x16, 0x03, 0x01, 0x00, 0x05 };
	struct proxyin_hdr h;

	CHECK(parse(hello, 1, &h) == PROXYIN_E_MISSING);
	CHECK(parse(hello, sizeof(hello), &h) == PROXYIN_E_MISSING);
	CHECK(v1("GET / HTTP/1.1\r\n", &h) == PROXYIN_E_MISSING);
	CHECK(v1("PROXX", &h) == PROXYIN_E_MISSING);
	CHECK(parse("\r\n\r\n\0\r\nQUIX", 12, &h) == PROXYIN_E_MISSING);
	CHECK(parse("", 0, &h) == PROXYIN_MORE);
	return 1;
}

static int
v2_tcp4_carries_both_addresses_and_ports(void)
{
	static const uint8_t src[4] = { 192, 0, 2, 7 };
	unsigned char b[64];
	struct proxyin_hdr h;
	size_t n = v2(b, 1, 0x11, tcp4, sizeof(tcp4));

	memcpy(b + n, "\x16\x03\x01", 3);
	CHECK(parse(b, n + 3, &h) == PROXYIN_OK);
	CHECK(h.len == 28 && !h.local && h.alen == 4);
	CHECK(memcmp(h.src, src, 4) == 0 && h.dst[0] == 198);
	CHECK(h.sport == 56324 && h.dport == 443);
	CHECK(prefixes_more(b, n));
	return 1;
}

static int
v2_tcp6_with_tlvs_walks_them_to_the_stated_length(void)
{
	unsigned char body[36 + 3 + 9 + 3], b[128];
	struct proxyin_hdr h;
	size_t n;

	memset(body, 0, sizeof(body));
	body[15] = 1;				/* ::1 */
	body[16] = 0xfd;			/* fd00:: */
	body[32] = 0x12;
	body[33] = 0x34;
	body[35] = 80;
	/* PP2_TYPE_AUTHORITY "localhost", then an empty NOOP TLV. */
	memcpy(body + 36, "\x02\x00\x09localhost\x04\x00\x00", 15);
	n = v2(b, 1, 0x21, body, sizeof(body));
	CHECK(parse(b, n, &h) == PROXYIN_OK);
	CHECK(h.alen == 16 && h.src[15] == 1 && h.dst[0] == 0xfd);
	CHECK(h.sport == 0x1234 && h.dport == 80 && h.len == n);
	CHECK(prefixes_more(b, n));
	/* A TLV's length one past the end. */
	b[16 + 36 + 2] = 10;
	CHECK(parse(b, n, &h) == PROXYIN_E_V2_TLV);
	/* Two bytes left: not even a TLV header. */
	n = v2(b, 1, 0x21, body, 38);
	CHECK(parse(b, n, &h) == PROXYIN_E_V2_TLV);
	return 1;
}

static int
v2_local_is_the_balancers_own_connection(void)
{
	unsigned char b[64];
	struct proxyin_hdr h;
	size_t n = v2(b, 0, 0x00, "", 0);

	CHECK(parse(b, n, &h) == PROXYIN_OK);
	CHECK(h.local && h.alen == 0 && h.len == 16);
	/* Whatever family and bytes it names are ignored. */
	n = v2(b, 0, 0x11, tcp4, sizeof(tcp4));
	CHECK(parse(b, n, &h) == PROXYIN_OK && h.local && h.alen == 0);
	n = v2(b, 0, 0x77, "ab", 2);
	CHECK(parse(b, n, &h) == PROXYIN_OK && h.local && h.len == 18);
	return 1;
}

static int
v2_unspec_and_unix_carry_no_address(void)
{
	unsigned char b[300], un[216 + 3];
	struct proxyin_hdr h;
	size_t n = v2(b, 1, 0x00, "xyz", 3);

	CHECK(parse(b, n, &h) == PROXYIN_OK);
	CHECK(!h.local && h.alen == 0 && h.len == 19);
	memset(un, 'a', sizeof(un));
	memcpy(un + 216, "\x04\x00\x00", 3);
	n = v2(b, 1, 0x31, un, sizeof(un));
	CHECK(parse(b, n, &h) == PROXYIN_OK && h.alen == 0 && h.len == n);
	n = v2(b, 1, 0x31, un, 215);
	CHECK(parse(b, n, &h) == PROXYIN_E_V2_SHORT);
	return 1;
}

static int
v2_version_command_family_and_length_are_checked(void)
{
	unsigned char b[64];
	struct proxyin_hdr h;

	v2(b, 1, 0x11, tcp4, sizeof(tcp4));
	b[12] = 0x11;				/* version 1 */
	CHECK(parse(b, 13, &h) == PROXYIN_E_V2_VERSION);
	b[12] = 0x22;				/* command 2 */
	CHECK(parse(b, 28, &h) == PROXYIN_E_V2_VERSION);
	for (unsigned fam = 0; fam < 256; fam++) {
		int rc;

		v2(b, 1, fam, tcp4, sizeof(tcp4));
		rc = parse(b, 28, &h);
		if (fam == 0x00 || fam == 0x11)
			CHECK(rc == PROXYIN_OK);
		else if (fam == 0x21 || fam == 0x31)
			CHECK(rc == PROXYIN_E_V2_SHORT);
		else
			CHECK(rc == PROXYIN_E_V2_FAMILY);
	}
	/* Eleven address bytes for TCP4: short, known from the length. */
	v2(b, 1, 0x11, tcp4, 11);
	CHECK(parse(b, 16, &h) == PROXYIN_E_V2_SHORT);
	return 1;
}

static int
v2_longer_than_proxyin_max_is_refused_from_its_length(void)
{
	unsigned char b[16];
	struct proxyin_hdr h;
	size_t len = PROXYIN_MAX - 16 + 1;

	memcpy(b, sig, 12);
	b[12] = 0x21;
	b[13] = 0x11;
	b[14] = (unsigned char)(len >> 8);
	b[15] = (unsigned char)len;
	CHECK(parse(b, 16, &h) == PROXYIN_E_V2_LONG);
	len--;
	b[14] = (unsigned char)(len >> 8);
	b[15] = (unsigned char)len;
	CHECK(parse(b, 16, &h) == PROXYIN_MORE);
	return 1;
}

static int
reasons_are_outcome_names(void)
{
	CHECK(strcmp(proxyin_strerror(PROXYIN_E_MISSING), "proxy-missing") ==
	    0);
	CHECK(strcmp(proxyin_strerror(PROXYIN_E_V2_TLV), "proxy-v2-tlv") == 0);
	for (int rc = PROXYIN_E_MISSING; rc < PROXYIN_E_COUNT; rc++)
		CHECK(strncmp(proxyin_strerror(rc), "proxy-", 6) == 0);
	CHECK(strcmp(proxyin_strerror(PROXYIN_E_COUNT), "proxy-bad") == 0);
	return 1;
}

static int
prefix(const char *s, struct proxyin_net *n)
{
	return proxyin_net_parse(n, s, strlen(s)) == NULL;
}

static int
nets_parse_v4_v6_and_refuse_host_bits(void)
{
	struct proxyin_net n;
	char buf[64];

	CHECK(prefix("10.0.0.0/8", &n) && n.len == 4 && n.bits == 8);
	CHECK(prefix("192.0.2.7", &n) && n.bits == 32);
	CHECK(prefix("fd00::/8", &n) && n.len == 16 && n.bits == 8);
	CHECK(prefix("::1", &n) && n.bits == 128);
	CHECK(prefix("0.0.0.0/0", &n) && n.bits == 0);
	CHECK(!prefix("10.0.0.1/8", &n));
	CHECK(!prefix("10.0.0.0/33", &n));
	CHECK(!prefix("10.0.0.0/", &n));
	CHECK(!prefix("10.0.0.0/08", &n));
	CHECK(!prefix("fd00::/129", &n));
	CHECK(!prefix("localhost", &n));
	CHECK(!prefix("/8", &n));
	CHECK(prefix("2001:db8:0:0:1::/80", &n));
	proxyin_net_str(&n, buf, sizeof(buf));
	CHECK(strcmp(buf, "2001:db8:0:0:1::/80") == 0);
	CHECK(prefix("fd00:0:0:1:0:0:0:1", &n));
	proxyin_net_str(&n, buf, sizeof(buf));
	CHECK(strcmp(buf, "fd00:0:0:1::1") == 0);
	CHECK(prefix("::", &n));
	proxyin_net_str(&n, buf, sizeof(buf));
	CHECK(strcmp(buf, "::") == 0);
	CHECK(prefix("10.0.0.0/8", &n));
	proxyin_net_str(&n, buf, sizeof(buf));
	CHECK(strcmp(buf, "10.0.0.0/8") == 0);
	return 1;
}

static int
trusted_matches_prefixes_and_mapped_v4(void)
{
	struct proxyin_net n[3];
	static const uint8_t in[4] = { 10, 1, 2, 3 }, out[4] = { 11, 0, 0, 1 };
	static const uint8_t b7[4] = { 192, 0, 2, 7 }, b8[4] = { 192, 0, 2, 8 };
	static const uint8_t map[16] = { [10] = 0xff, [11] = 0xff, [12] = 10,
	    [13] = 9 }, fd[16] = { 0xfd, 0x12 }, fe[16] = { 0xfe };
	static const uint8_t half[4] = { 172, 16, 0, 1 }, half2[4] = { 172,
	    32, 0, 1 };

	CHECK(prefix("10.0.0.0/8", &n[0]) && prefix("192.0.2.7", &n[1]) &&
	    prefix("fd00::/8", &n[2]));
	CHECK(proxyin_trusted(n, 3, in, 4));
	CHECK(!proxyin_trusted(n, 3, out, 4));
	CHECK(proxyin_trusted(n, 3, b7, 4) && !proxyin_trusted(n, 3, b8, 4));
	CHECK(proxyin_trusted(n, 3, map, 16));
	CHECK(proxyin_trusted(n, 3, fd, 16) && !proxyin_trusted(n, 3, fe, 16));
	CHECK(!proxyin_trusted(n, 0, in, 4));
	/* A prefix that ends inside a byte. */
	CHECK(prefix("172.16.0.0/12", &n[0]));
	CHECK(proxyin_trusted(n, 1, half, 4) && !proxyin_trusted(n, 1, half2,
	    4));
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(v1_tcp4_carries_both_addresses_and_ports),
		T(v1_tcp6_takes_every_text_form),
		T(v1_unknown_keeps_the_connection_address),
		T(v1_line_over_107_bytes_is_refused),
		T(v1_syntax_is_strict),
		T(v1_address_of_the_wrong_family_is_refused),
		T(tls_hello_is_not_a_header),
		T(v2_tcp4_carries_both_addresses_and_ports),
		T(v2_tcp6_with_tlvs_walks_them_to_the_stated_length),
		T(v2_local_is_the_balancers_own_connection),
		T(v2_unspec_and_unix_carry_no_address),
		T(v2_version_command_family_and_length_are_checked),
		T(v2_longer_than_proxyin_max_is_refused_from_its_length),
		T(reasons_are_outcome_names),
		T(nets_parse_v4_v6_and_refuse_host_bits),
		T(trusted_matches_prefixes_and_mapped_v4),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
