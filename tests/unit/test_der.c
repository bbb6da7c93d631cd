/* SPDX-License-Identifier: ISC */
/*
 * test_der.c - the behaviours of src/der.c, one test per behaviour.
 *
 * Expected encodings are written out byte by byte from X.690 and RFC
 * 5280, not computed by the code under test.  The overflow test's
 * buffer has guard bytes after the cap it gives, so that a write past
 * the cap is seen.
 */
#include <string.h>

#include "der.h"
#include "unit.h"

/* Encode with fn into a fresh buffer; compare with want (n bytes). */
static unsigned char out[70000];

static int
same(const struct der *d, const char *want, size_t n)
{
	return d->err == 0 && d->len == n && memcmp(d->buf, want, n) == 0;
}

static int
length_short_form_up_to_127(void)
{
	struct der d;
	unsigned char v[127] = { 0 };

	der_init(&d, out, sizeof(out));
	der_tlv(&d, DER_OCTET_STRING, v, 5);
	CHECK(d.err == 0 && d.len == 7 && out[0] == 0x04 && out[1] == 5);
	der_init(&d, out, sizeof(out));
	der_tlv(&d, DER_OCTET_STRING, v, 127);
	CHECK(d.err == 0 && d.len == 129 && out[1] == 0x7f);
	der_init(&d, out, sizeof(out));
	der_tlv(&d, DER_OCTET_STRING, NULL, 0);
	CHECK(same(&d, "\x04\x00", 2));
	return 1;
}

static int
length_long_form_in_fewest_bytes(void)
{
	static unsigned char v[65536];
	struct der d;

	der_init(&d, out, sizeof(out));
	der_tlv(&d, DER_OCTET_STRING, v, 128);
	CHECK(d.err == 0 && d.len == 131 && memcmp(out, "\x04\x81\x80", 3) == 0);
	der_init(&d, out, sizeof(out));
	der_tlv(&d, DER_OCTET_STRING, v, 255);
	CHECK(d.len == 258 && memcmp(out, "\x04\x81\xff", 3) == 0);
	der_init(&d, out, sizeof(out));
	der_tlv(&d, DER_OCTET_STRING, v, 256);
	CHECK(d.len == 260 && memcmp(out, "\x04\x82\x01\x00", 4) == 0);
	der_init(&d, out, sizeof(out));
	der_tlv(&d, DER_OCTET_STRING, v, 65536);
	CHECK(d.err == 0 && memcmp(out, "\x04\x83\x01\x00\x00", 5) == 0);
	return 1;
}

static int
constructed_length_filled_in_and_content_moved_up(void)
{
	unsigned char v[200];
	struct der d;
	size_t outer, inner;

	for (size_t i = 0; i < sizeof(v); i++)
		v[i] = (unsigned char)i;
	der_init(&d, out, sizeof(out));
	outer = der_open(&d, DER_SEQUENCE);
	inner = der_open(&d, DER_SET);
	der_raw(&d, v, sizeof(v));
	der_close(&d, inner);
	der_close(&d, outer);
	/* 30 81 cb | 31 81 c8 | 200 bytes */
	CHECK(d.err == 0 && d.len == 206);
	CHECK(memcmp(out, "\x30\x81\xcb\x31\x81\xc8", 6) == 0);
	CHECK(memcmp(out + 6, v, sizeof(v)) == 0);
	der_init(&d, out, sizeof(out));
	outer = der_open(&d, DER_SEQUENCE);
	der_close(&d, outer);
	CHECK(same(&d, "\x30\x00", 2));
	return 1;
}

static int
integer_positive_and_minimal(void)
{
	struct der d;

	der_init(&d, out, sizeof(out));
	der_uint(&d, "\x00", 1);
	CHECK(same(&d, "\x02\x01\x00", 3));
	der_init(&d, out, sizeof(out));
	der_uint(&d, "", 0);
	CHECK(same(&d, "\x02\x01\x00", 3));
	der_init(&d, out, sizeof(out));
	der_uint(&d, "\x7f", 1);
	CHECK(same(&d, "\x02\x01\x7f", 3));
	/* The top bit would make it negative: a zero byte goes first. */
	der_init(&d, out, sizeof(out));
	der_uint(&d, "\x80", 1);
	CHECK(same(&d, "\x02\x02\x00\x80", 4));
	der_init(&d, out, sizeof(out));
	der_uint(&d, "\x00\x00\x01\x02", 4);
	CHECK(same(&d, "\x02\x02\x01\x02", 4));
	der_init(&d, out, sizeof(out));
	der_uint(&d, "\x00\xff\x00", 3);
	CHECK(same(&d, "\x02\x03\x00\xff\x00", 5));
	return 1;
}

static int
oids_from_dotted_text(void)
{
	struct der d;

	der_init(&d, out, sizeof(out));
	der_oid(&d, "1.2.840.10045.4.3.2");	/* ecdsa-with-SHA256 */
	CHECK(same(&d, "\x06\x08\x2a\x86\x48\xce\x3d\x04\x03\x02", 10));
	der_init(&d, out, sizeof(out));
	der_oid(&d, "2.5.29.17");
	CHECK(same(&d, "\x06\x03\x55\x1d\x11", 5));
	der_init(&d, out, sizeof(out));
	der_oid(&d, "1.3.6.1.5.5.7.3.1");
	CHECK(same(&d, "\x06\x08\x2b\x06\x01\x05\x05\x07\x03\x01", 10));
	/* Arc 2 takes a second arc past 39: 2.999 is 1079 = 0x88 0x37. */
	der_init(&d, out, sizeof(out));
	der_oid(&d, "2.999.3");
	CHECK(same(&d, "\x06\x03\x88\x37\x03", 5));
	der_init(&d, out, sizeof(out));
	der_oid(&d, "1.2.4294967295");
	CHECK(same(&d, "\x06\x06\x2a\x8f\xff\xff\xff\x7f", 8));
	return 1;
}

static int
bad_oid_text_refused(void)
{
	static const char *bad[] = { "", "1", "3.1", "1.40", "0.40", "1..2",
	    "1.2.", ".1.2", "01.2", "1.02", "1.2.4294967296", "1.2.x", "1,2" };
	struct der d;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		der_init(&d, out, sizeof(out));
		der_oid(&d, bad[i]);
		if (d.err != -1 || d.len != 0) {
			fprintf(stderr, "  accepted \"%s\"\n", bad[i]);
			return 0;
		}
	}
	return 1;
}

static int
bit_string_with_unused_bits(void)
{
	struct der d;

	der_init(&d, out, sizeof(out));
	der_bits(&d, 7, "\x80", 1);	/* keyUsage digitalSignature */
	CHECK(same(&d, "\x03\x02\x07\x80", 4));
	der_init(&d, out, sizeof(out));
	der_bits(&d, 0, "\x04\xff", 2);
	CHECK(same(&d, "\x03\x03\x00\x04\xff", 5));
	der_init(&d, out, sizeof(out));
	der_bits(&d, 1, "\x81", 1);	/* a padding bit set: not DER */
	CHECK(d.err == -1);
	der_init(&d, out, sizeof(out));
	der_bits(&d, 8, "\x00", 1);
	CHECK(d.err == -1);
	return 1;
}

static int
times_utc_until_2049_generalized_after(void)
{
	static const struct {
		int64_t		t;
		const char	*enc;
	} cases[] = {
		{ 0, "\x17\x0d" "700101000000Z" },
		{ -631152000, "\x17\x0d" "500101000000Z" },
		{ 951782400, "\x17\x0d" "000229000000Z" },
		{ 1709210096, "\x17\x0d" "240229123456Z" },
		{ 2524607999, "\x17\x0d" "491231235959Z" },
		{ 2524608000, "\x18\x0f" "20500101000000Z" },
		{ 253402300799, "\x18\x0f" "99991231235959Z" },
	};
	struct der d;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		der_init(&d, out, sizeof(out));
		der_time(&d, cases[i].t);
		if (!same(&d, cases[i].enc, strlen(cases[i].enc))) {
			fprintf(stderr, "  %lld: %.*s\n", (long long)cases[i].t,
			    (int)d.len, (const char *)out);
			return 0;
		}
	}
	der_init(&d, out, sizeof(out));
	der_time(&d, -631152001);
	CHECK(d.err == -1);
	der_init(&d, out, sizeof(out));
	der_time(&d, 253402300800);
	CHECK(d.err == -1);
	return 1;
}

static int
time_read_back_is_time_written(void)
{
	const unsigned char *p, *c;
	size_t n, cl;
	struct der d;

	for (int64_t t = -631152000; t < 253402300799; t += 86400 * 37 + 3671) {
		der_init(&d, out, sizeof(out));
		der_time(&d, t);
		p = out;
		n = d.len;
		CHECK(der_get(&p, &n, out[0], &c, &cl) == 0);
		CHECK(der_time_parse(out[0], c, cl) == t);
	}
	return 1;
}

static int
bad_times_refused(void)
{
	static const char *utc[] = { "700230000000Z", "7001010000000",
	    "701301000000Z", "700101240000Z", "700101006000Z", "7001010000Z",
	    "7a0101000000Z", "010229000000Z" };

	for (size_t i = 0; i < sizeof(utc) / sizeof(utc[0]); i++)
		CHECK(der_time_parse(DER_UTCTIME, (const unsigned char *)utc[i],
		    strlen(utc[i])) == -1);
	CHECK(der_time_parse(DER_GENTIME, (const unsigned char *)
	    "19491231235959Z", 15) == -1);
	CHECK(der_time_parse(DER_GENTIME, (const unsigned char *)
	    "700101000000Z", 13) == -1);
	return 1;
}

static int
overflow_refused_and_sticky(void)
{
	static unsigned char buf[202 + 16], big[200];
	struct der d;
	size_t m, len;

	memset(buf, 0xee, sizeof(buf));
	der_init(&d, buf, 8);
	der_tlv(&d, DER_OCTET_STRING, "abcdefgh", 7);	/* 9 bytes */
	CHECK(d.err == -1 && d.len <= 8);
	len = d.len;
	der_tlv(&d, DER_OCTET_STRING, "a", 1);		/* would fit: no */
	CHECK(d.err == -1 && d.len == len);
	for (size_t i = 8; i < sizeof(buf); i++)
		CHECK(buf[i] == 0xee);
	/* A long form that no longer fits when the element is closed. */
	memset(buf, 0xee, sizeof(buf));
	der_init(&d, buf, 202);
	m = der_open(&d, DER_SEQUENCE);
	der_raw(&d, big, 200);
	CHECK(d.err == 0 && d.len == 202);
	der_close(&d, m);
	CHECK(d.err == -1);
	for (size_t i = 202; i < sizeof(buf); i++)
		CHECK(buf[i] == 0xee);
	return 1;
}

static int
reader_takes_only_minimal_definite_lengths(void)
{
	static const struct {
		const char	*b;
		size_t		 n;
		int		 ok;
	} cases[] = {
		{ "\x04\x02xy", 4, 1 },
		{ "\x04\x03xy", 4, 0 },		/* past the end */
		{ "\x04\x81\x02xy", 5, 0 },	/* long form for a short */
		{ "\x04\x80xy\x00\x00", 6, 0 },	/* indefinite */
		{ "\x04\x82\x00\x02xy", 6, 0 },	/* leading zero */
		{ "\x04", 1, 0 },
		{ "\x05\x02xy", 4, 0 },		/* another tag */
	};
	const unsigned char *p, *c;
	size_t n, cl;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = (const unsigned char *)cases[i].b;
		n = cases[i].n;
		if ((der_get(&p, &n, DER_OCTET_STRING, &c, &cl) == 0) !=
		    cases[i].ok) {
			fprintf(stderr, "  case %zu\n", i);
			return 0;
		}
	}
	p = (const unsigned char *)"\x04\x02xy\x05\x00";
	n = 6;
	CHECK(der_get(&p, &n, DER_OCTET_STRING, &c, &cl) == 0);
	CHECK(cl == 2 && memcmp(c, "xy", 2) == 0 && n == 2 && p[0] == 0x05);
	return 1;
}

/*
 * SEQUENCE { SEQUENCE { UTCTime }, SEQUENCE { OID 1.2 }, BIT STRING
 * 00 ab cd }: what each part is; then what the reader refuses.
 */
static int
signed_object_split_and_checked(void)
{
	static const unsigned char ok[] = { 0x30, 0x1b,
	    0x30, 0x0f, 0x17, 0x0d, '7', '0', '0', '1', '0', '2', '0', '0',
	    '0', '0', '0', '0', 'Z',
	    0x30, 0x03, 0x06, 0x01, 0x2a,
	    0x03, 0x03, 0x00, 0xab, 0xcd };
	unsigned char bad[sizeof(ok) + 1];
	struct der_signed s;

	CHECK(der_signed(ok, sizeof(ok), &s) == 0);
	CHECK(s.tbs == ok + 2 && s.tbslen == 17);
	CHECK(s.body == ok + 4 && s.bodylen == 15);
	CHECK(s.alg == ok + 21 && s.alglen == 3);
	CHECK(s.sig == ok + 27 && s.siglen == 2 && s.sig[0] == 0xab);
	CHECK(der_get_time(&s.body, &s.bodylen) == 86400 && s.bodylen == 0);
	/* A byte after the whole, unused bits, an empty signature. */
	memcpy(bad, ok, sizeof(ok));
	CHECK(der_signed(bad, sizeof(ok) + 1, &s) == -1);
	bad[26] = 1;
	CHECK(der_signed(bad, sizeof(ok), &s) == -1);
	CHECK(der_signed((const unsigned char *)"\x30\x0a\x30\x00\x30\x03"
	    "\x06\x01\x2a\x03\x01\x00", 12, &s) == -1);
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(length_short_form_up_to_127),
		T(length_long_form_in_fewest_bytes),
		T(constructed_length_filled_in_and_content_moved_up),
		T(integer_positive_and_minimal),
		T(oids_from_dotted_text),
		T(bad_oid_text_refused),
		T(bit_string_with_unused_bits),
		T(times_utc_until_2049_generalized_after),
		T(time_read_back_is_time_written),
		T(bad_times_refused),
		T(overflow_refused_and_sticky),
		T(reader_takes_only_minimal_definite_lengths),
		T(signed_object_split_and_checked),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
