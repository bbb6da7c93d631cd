/* SPDX-License-Identifier: ISC */
/*
 * test_hello.c - the behaviours of src/hello.c, one test per
 * behaviour.
 *
 * The real hellos below were captured from the clients of a Debian 12
 * machine by a small socket server that saved its first bytes; the
 * comment above each says which command sent it (PORT: the server's).
 * The crafted ones are built here, from the same parts.  Every input is
 * copied into a heap buffer of exactly its length before it is read, so
 * that a read past len is caught when built with -fsanitize=address.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hello.h"
#include "hellobuf.h"
#include "tlswire.h"
#include "unit.h"

/* The bits that bit() gives n code points, ORed. */
static unsigned
bits(unsigned (*bit)(unsigned), int n, ...)
{
	va_list ap;
	unsigned b = 0;

	va_start(ap, n);
	while (n-- > 0)
		b |= bit(va_arg(ap, unsigned));
	va_end(ap);
	return b;
}

/* The bits of every suite's code of kind k (TS_*). */
static unsigned
all_suites(int k)
{
	unsigned b = 0;

	for (size_t i = 0; i < TLS_NSUITES; i++)
		b |= hello_suite(tls_suites[i].code[k]);
	return b;
}

/* The bits of the ECDHE groups (all but the hybrid). */
static unsigned
ecdhe_groups(void)
{
	unsigned b = 0;

	for (size_t i = 0; i < tls_ngroups; i++)
		if (tls_groups[i].curve != 0)
			b |= hello_group(tls_groups[i].code);
	return b;
}

/* openssl s_client -connect 127.0.0.1:PORT -tls1_3 -servername example.com
 * (OpenSSL 3.0.22) */
/* The order the engine's tests and the default service put first. */
static const unsigned x25519_p256[] = { GROUP_X25519, GROUP_SECP256R1 };

static const char openssl_tls13[] =
    "16030100f0010000ec0303e05e664358318a57d0ba733d4230695d78cf9a2d4a"
    "f9daef1e4f8821200ebb2020fd21a67fbc50686a9b67dd7e659581fb2c62b123"
    "4f69536d78ac3673efaebc5b000813021303130100ff0100009b00000010000e"
    "00000b6578616d706c652e636f6d000b000403000102000a00160014001d0017"
    "001e0019001801000101010201030104002300000016000000170000000d001e"
    "001c040305030603080708080809080a080b080408050806040105010601002b"
    "0003020304002d00020101003300260024001d0020b6ae93f45b98c30e5c5103"
    "40b9426b87f273fcbd3a72062524ba76b9a48efe1d";

/* curl -sk https://localhost:PORT/ (curl 7.88, OpenSSL 3.0.22) */
static const char curl[] =
    "1603010200010001fc03039ef7385914fc204ec8dbe5027f8c8328a282716202"
    "930fc72ac79e18ab960c642089f5e3a6f648d28da1cf319846605b7e352aa120"
    "1b08338defd43d650583c020003e130213031301c02cc030009fcca9cca8ccaa"
    "c02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d"
    "009c003d003c0035002f00ff010001750000000e000c0000096c6f63616c686f"
    "7374000b000403000102000a00160014001d0017001e00190018010001010102"
    "010301040010000e000c02683208687474702f312e3100160000001700000031"
    "0000000d002a0028040305030603080708080809080a080b0804080508060401"
    "05010601030303010302040205020602002b0009080304030303020301002d00"
    "020101003300260024001d002038277e2dfa2027e82649f97cfdd6b1d487c5e1"
    "8b9b20ee899a9226beed39aa73001500b4000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000";

/* python3: ssl.create_default_context().wrap_socket(s,
 *     server_hostname='www.example.org'), no verification (Python 3.11.7, OpenSSL 3.0.22) */
static const char python[] =
    "1603010200010001fc03033825086b60f9018c820aa4a9590526f1d41631c772"
    "f51180c314335c4164a5ec209d29e7e46df90e132f8cf956b1bd48bc26fd2330"
    "63e3d7aceefb37086b52bf280024130213031301c02cc030c02bc02fcca9cca8"
    "c024c028c023c027009f009e006b006700ff0100018f00000014001200000f77"
    "77772e6578616d706c652e6f7267000b000403000102000a00160014001d0017"
    "001e0019001801000101010201030104002300000016000000170000000d002a"
    "0028040305030603080708080809080a080b0804080508060401050106010303"
    "03010302040205020602002b00050403040303002d0002010100330026002400"
    "1d002061696a3d8ef6919e56e8940cd1cdda64c26e0a4e6a4ca9b13499f6384a"
    "8d5d7c001500de00000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000";

/* gnutls-cli --insecure -p PORT localhost (GnuTLS 3.7.9) */
static const char gnutls[] =
    "16030101820100017e03034e927a1b44591f9e60f24cb1f8bb28131bd63b52f0"
    "7c668f8041576b25e2a26a20122489d274a2da1ba8a5442325e7eaa5be82a5b7"
    "9cf5bd6e0c42e544f433707a003a1302130313011304c02ccca9c0adc00ac02b"
    "c0acc009c030cca8c014c02fc013009dc09d0035009cc09c002f009fccaac09f"
    "0039009ec09e0033010000fb000500050100000000000a001600140017001800"
    "19001d001e01000101010201030104000b00020100000d002200200401080908"
    "04040308070501080a0805050308080601080b08060603020102030016000000"
    "170000002300000033006b006900170041040329b3dcb747f69563947dc80823"
    "8fac8a3b396a7b24e1c382b37b59cf0c8c1948c55e589de05a2982c5e3dd226c"
    "8b0e65c948144a54e6e46c2fb3a9d724295c001d0020e1e1a035f55f79e6775b"
    "2c44d3fe99cff0e61a9233df1afcbe13e0b0dfa16414002b0009080304030303"
    "020301ff010001000000000e000c0000096c6f63616c686f7374002d00030201"
    "00001c00024001";

/* openssl s_client -connect 127.0.0.1:PORT -tls1_3 -groups P-256:X25519 */
static const char openssl_p256[] =
    "16030100ed010000e9030385b3dbb01e9d308ee613419f65efb034ae5fdda57e"
    "192573a8b8ebfed0550b71204f472ad5611c51df252398d84e3f07a88f0395b2"
    "f5d52f7b44257c7c5579b3a4000813021303130100ff01000098000b00040300"
    "0102000a000600040017001d002300000016000000170000000d001e001c0403"
    "05030603080708080809080a080b080408050806040105010601002b00030203"
    "04002d00020101003300470045001700410423daa3b1cc3b1d05b2417d17bcd3"
    "ae39d732abdaae063b8cfd1b4efabd8de85b0490b28d810e7a6af7634934a0b8"
    "53d1f3c8000037a60aa898c9ad1c12a0d735";

/* openssl s_client -connect 127.0.0.1:PORT -tls1_3 -sess_in sess.pem,
 * sess.pem from -sess_out against openssl s_server -tls1_3 */
static const char openssl_psk[] =
    "16030101eb010001e7030372d7464d26b44b081f096df3f7e5a79d39cc10fbd1"
    "2b1c5b0fe4dce7235b86fb2069e36362e6d4c8b150e1a79a7593299bf6d2946e"
    "fa49590dd39e64281883e05d000813021303130100ff01000196000b00040300"
    "0102000a00160014001d0017001e001900180100010101020103010400230000"
    "0016000000170000000d001e001c040305030603080708080809080a080b0804"
    "08050806040105010601002b0003020304002d00020101003300260024001d00"
    "20c595b1cc2104ee602a38ba2acd6d0a340730eda002c95b72d89f134015446e"
    "080029010b00d600d035f24f85eaafa8017c923f9fa249ca3e54629aef8d8476"
    "1e9564ed3e58bdff73b91a9f503e279952cb6eefc8b59d269899fb942087aa4b"
    "dd271a9dd16704c592c97e7f9373a36c9535cb3b854db580fe4b6e9294be01f2"
    "1c9a99f38d6d4ee2cb2075a8b0ad36682e62f65a314b7fcb431fc7792f9ba9c6"
    "b79fd6cda9db425d33a9270929caff1314c6e95ea6e654a0add22fd219c3e594"
    "ae967726658abb95370042585bc91a00536c24d29b51ccc3e9e5041918aeef59"
    "a6b83a540f69a38916fdec9aeac4daf8a8073f60ce7b29c5e4bc5f50da003130"
    "9e213a4fb193cb81498265430a1e728a5005bf60140fcc21fdb812318c6c8ce7"
    "f5b548166edf12ad859c85136c36347d";

/* openssl s_client -connect 127.0.0.1:PORT -tls1_2 -servername example.com */
static const char openssl_tls12[] =
    "16030100cb010000c70303fbac04fea5abb7325c847b62bf5ef48e48dd3912a0"
    "a0af368982f5ad2d443404000038c02cc030009fcca9cca8ccaac02bc02f009e"
    "c024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c"
    "0035002f00ff0100006600000010000e00000b6578616d706c652e636f6d000b"
    "000403000102000a000c000a001d0017001e0019001800230000001600000017"
    "0000000d002a0028040305030603080708080809080a080b0804080508060401"
    "05010601030303010302040205020602";

/* openssl s_client -connect 127.0.0.1:PORT -tls1_2 -fallback_scsv
 *     -servername example.com */
static const char openssl_scsv[] =
    "16030100cd010000c903036925cf72013f3354e69073728d1119b43c61b24d60"
    "fb4cfb0fd2071c77e05f4300003ac02cc030009fcca9cca8ccaac02bc02f009e"
    "c024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c"
    "0035002f00ff56000100006600000010000e00000b6578616d706c652e636f6d"
    "000b000403000102000a000c000a001d0017001e001900180023000000160000"
    "00170000000d002a0028040305030603080708080809080a080b080408050806"
    "040105010601030303010302040205020602";

#define IBUF		16709	/* BR_SSL_BUFSIZE_INPUT, the hello's room */
#define UNEXPECTED	10
#define FAILURE		40
#define ILLEGAL		47
#define DECODE		50
#define VERSION		70
#define MISSING		109

struct buf {
	unsigned char	b[4096];
	size_t		n;
};

static void
put(struct buf *h, const void *p, size_t n)
{
	memcpy(h->b + h->n, p, n);
	h->n += n;
}

static void
put16(struct buf *h, size_t v)
{
	unsigned char x[2] = { (unsigned char)(v >> 8), (unsigned char)v };

	put(h, x, 2);
}

static unsigned
nibble(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)(c - 'a' + 10);
}

/* Lower-case hex, an even number of digits. */
static void
puthex(struct buf *h, const char *s)
{
	for (; s[0] != '\0' && s[1] != '\0'; s += 2)
		h->b[h->n++] = (unsigned char)(nibble(s[0]) << 4 | nibble(s[1]));
}

/* The three functions, each on an exact-length heap copy. */
static int
classify(const unsigned char *b, size_t len, size_t cap, struct hello_peek *pk)
{
	unsigned char *p = malloc(len ? len : 1);
	int r;

	if (p == NULL)
		exit(2);
	memcpy(p, b, len);
	r = hello_classify(p, len, cap, pk);
	free(p);
	return r;
}

static unsigned
parse(const unsigned char *m, size_t len, struct hello *h)
{
	unsigned char *p = malloc(len ? len : 1);
	unsigned r;

	if (p == NULL)
		exit(2);
	memcpy(p, m, len);
	r = hello_parse(p, len, h);
	free(p);
	return r;
}

/*
 * Records as a client sent them: classified HELLO_WHOLE with buf's size,
 * joined; m gets the message.  Returns the parser's answer, or 999.
 */
static unsigned
real(const char *hex, struct buf *m, struct hello *h)
{
	struct hello_peek pk;
	struct buf r = { { 0 }, 0 };

	puthex(&r, hex);
	if (classify(r.b, r.n, IBUF, &pk) != HELLO_WHOLE || pk.end != r.n)
		return 999;
	m->n = hello_defrag(r.b, pk.end);
	memcpy(m->b, r.b + 5, m->n);
	return parse(m->b, m->n, h);
}

/* A ClientHello message with these legacy fields and extensions. */
static void
hello(struct buf *m, unsigned version, size_t sid, const char *comp,
    const struct buf *e)
{
	static const unsigned char x[32] = { 0x5a };

	m->n = 0;
	puthex(m, "01000000");
	put16(m, version);
	put(m, x, 32);
	m->b[m->n++] = (unsigned char)sid;
	for (size_t i = 0; i < sid; i++)
		m->b[m->n++] = 0x33;
	puthex(m, "0008130113021303c02b");
	puthex(m, comp);
	put16(m, e->n);
	put(m, e->b, e->n);
	m->b[2] = (unsigned char)((m->n - 4) >> 8);
	m->b[3] = (unsigned char)(m->n - 4);
}

/* The usual legacy fields around extensions given in hex. */
static void
hello_hex(struct buf *m, const char *ext)
{
	struct buf e = { { 0 }, 0 };

	puthex(&e, ext);
	hello(m, 0x0303, 32, "0100", &e);
}

/* m in one record, or cut into records of the sizes in cut (0 ends). */
static void
records(struct buf *r, const struct buf *m, const size_t *cut)
{
	size_t at = 0, k;

	r->n = 0;
	for (size_t i = 0; at < m->n; i++, at += k) {
		k = cut != NULL && cut[i] != 0 ? cut[i] : m->n - at;
		if (k > m->n - at)
			k = m->n - at;
		puthex(r, "160301");
		put16(r, k);
		put(r, m->b + at, k);
	}
}

#define X32	"1111111111111111111111111111111111111111111111111111111111111111"
#define X31	"11111111111111111111111111111111111111111111111111111111111111"
#define P64	"2222222222222222222222222222222222222222222222222222222222222222" \
		"2222222222222222222222222222222222222222222222222222222222222222"
#define SV13	"002b0003020304"
#define GROUPS	"000a00060004001d0017"		/* x25519, secp256r1 */
#define KS_X	"003300260024001d0020" X32
#define SIGS	"000d000600040403" "0804"
#define MODES	"002d00020101"
#define PSK	"00290030" "000b00056964656e7400000000" "002120" X32
#define BASE	SV13 GROUPS KS_X SIGS

static int
openssl_hello_is_tls13_and_parsed(void)
{
	struct buf m;
	struct hello h;
	unsigned g;
	const unsigned char *x;

	CHECK(real(openssl_tls13, &m, &h) == 0);
	CHECK(m.n == 240 && inside(&h, m.n));
	CHECK(h.legacy_version == 0x0303 && h.v13 && h.sid_len == 32);
	CHECK(h.suites == all_suites(TS_13) && !h.scsv);
	CHECK(h.groups == ecdhe_groups() &&
	    h.shares == hello_group(GROUP_X25519));
	x = m.b + hello_share(&h, GROUP_X25519);
	CHECK(memcmp(x, "\xb6\xae\x93\xf4\x5b\x98", 6) == 0);
	CHECK(memcmp(x + 26, "\x76\xb9\xa4\x8e\xfe\x1d", 6) == 0);
	/* The nine schemes of 1.3, and PKCS#1 v1.5, which 1.2 alone uses. */
	CHECK(h.sigalgs == bits(hello_sig, 12, SIG_ECDSA_SECP256R1_SHA256,
	    SIG_ECDSA_SECP384R1_SHA384, SIG_ECDSA_SECP521R1_SHA512,
	    SIG_RSA_PSS_RSAE_SHA256, SIG_RSA_PSS_RSAE_SHA384,
	    SIG_RSA_PSS_RSAE_SHA512, SIG_RSA_PSS_PSS_SHA256,
	    SIG_RSA_PSS_PSS_SHA384, SIG_RSA_PSS_PSS_SHA512,
	    SIG_RSA_PKCS1_SHA256, SIG_RSA_PKCS1_SHA384, SIG_RSA_PKCS1_SHA512));
	CHECK(h.psk_dhe_ke);
	CHECK(h.host_len == 11 && memcmp(m.b + h.host, "example.com", 11) == 0);
	CHECK(h.alpn == 0 && h.psk_count == 0);
	CHECK(!(h.exts & bits(hello_ext, 2, EXT_COOKIE, EXT_EARLY_DATA)));
	CHECK(hello_choose_group(&h, x25519_p256, 2, &g) == HELLO_SHARE &&
	    g == 0x001d);
	return 1;
}

static int
curl_hello_names_http11(void)
{
	struct buf m;
	struct hello h;

	CHECK(real(curl, &m, &h) == 0 && inside(&h, m.n));
	CHECK(h.alpn_http11 && h.alpn_len == 12);
	CHECK(memcmp(m.b + h.alpn, "\x02h2\x08http/1.1", 12) == 0);
	CHECK(h.host_len == 9 && memcmp(m.b + h.host, "localhost", 9) == 0);
	CHECK(h.shares == hello_group(GROUP_X25519) &&
	    h.suites == all_suites(TS_13));
	return 1;
}

static int
python_hello_offers_13_and_12(void)
{
	struct buf m, r = { { 0 }, 0 };
	struct hello h;
	struct hello_peek pk;

	CHECK(real(python, &m, &h) == 0 && inside(&h, m.n));
	CHECK(h.alpn == 0 && !h.alpn_http11);
	CHECK(h.host_len == 15 &&
	    memcmp(m.b + h.host, "www.example.org", 15) == 0);
	puthex(&r, python);
	CHECK(classify(r.b, r.n, IBUF, &pk) == HELLO_WHOLE);
	return 1;
}

static int
gnutls_hello_has_two_shares(void)
{
	struct buf m;
	struct hello h;
	unsigned g;

	CHECK(real(gnutls, &m, &h) == 0 && inside(&h, m.n));
	CHECK(h.shares == bits(hello_group, 2, GROUP_X25519, GROUP_SECP256R1));
	CHECK(m.b[hello_share(&h, GROUP_SECP256R1)] == 4);
	CHECK(hello_share(&h, GROUP_X25519) >
	    hello_share(&h, GROUP_SECP256R1) + 65);
	CHECK(h.psk_dhe_ke && h.groups == ecdhe_groups() &&
	    h.suites == all_suites(TS_13));
	CHECK(hello_choose_group(&h, x25519_p256, 2, &g) == HELLO_SHARE &&
	    g == 0x001d);
	return 1;
}

static int
p256_first_hello_is_answered_on_p256(void)
{
	struct buf m;
	struct hello h;
	unsigned g;

	CHECK(real(openssl_p256, &m, &h) == 0 && inside(&h, m.n));
	CHECK(h.groups == bits(hello_group, 2, GROUP_X25519, GROUP_SECP256R1));
	CHECK(h.shares == hello_group(GROUP_SECP256R1) &&
	    hello_share(&h, GROUP_X25519) == 0);
	CHECK(memcmp(m.b + hello_share(&h, GROUP_SECP256R1),
	    "\x04\x23\xda\xa3", 4) == 0);
	CHECK(h.host == 0);
	CHECK(hello_choose_group(&h, x25519_p256, 2, &g) == HELLO_SHARE &&
	    g == 0x0017);
	return 1;
}

/* The binders (one, of 48 bytes for SHA-384) end the message. */
static int
resumption_hello_gives_psk_offsets(void)
{
	struct buf m;
	struct hello h;

	CHECK(real(openssl_psk, &m, &h) == 0 && inside(&h, m.n));
	CHECK(h.exts & hello_ext(EXT_PRE_SHARED_KEY));
	CHECK(h.psk_count == 1 && h.psk_ids_len == 214);
	CHECK(m.b[h.psk_ids] == 0x00 && m.b[h.psk_ids + 1] == 0xd0);
	CHECK(h.psk_binders == m.n - 51 && h.psk_binders == h.psk_ids + 214);
	CHECK(m.b[h.psk_binders] == 0 && m.b[h.psk_binders + 1] == 49 &&
	    m.b[h.psk_binders + 2] == 48);
	return 1;
}

static int
tls12_hello_is_t12_and_parsed(void)
{
	struct buf r = { { 0 }, 0 }, m;
	struct hello_peek pk;
	struct hello h;

	puthex(&r, openssl_tls12);
	CHECK(classify(r.b, r.n, IBUF, &pk) == HELLO_WHOLE && pk.end == r.n);
	m.n = r.n - 5;
	memcpy(m.b, r.b + 5, m.n);
	CHECK(parse(m.b, m.n, &h) == 0 && inside(&h, m.n));
	CHECK(!h.v13 && !h.v12 && h.legacy_version == 0x0303);
	CHECK(h.suites == 0 && h.suites12 == (all_suites(TS_ECDSA) |
	    all_suites(TS_RSA)) && h.reneg_scsv);
	CHECK(h.ecpf_uncompressed && !h.reneg_bad && !h.obsolete);
	CHECK(h.exts == bits(hello_ext, 6, EXT_SERVER_NAME,
	    EXT_EC_POINT_FORMATS, EXT_SUPPORTED_GROUPS, EXT_SESSION_TICKET,
	    EXT_EXTENDED_MASTER_SECRET, EXT_SIGNATURE_ALGORITHMS));
	CHECK(h.host_len == 11 && memcmp(m.b + h.host, "example.com", 11) == 0);
	return 1;
}

static int
fallback_scsv_is_reported(void)
{
	struct buf r = { { 0 }, 0 }, m;
	struct hello_peek pk;
	struct hello h;

	puthex(&r, openssl_scsv);
	CHECK(classify(r.b, r.n, IBUF, &pk) == HELLO_WHOLE);
	m.n = r.n - 5;
	memcpy(m.b, r.b + 5, m.n);
	CHECK(parse(m.b, m.n, &h) == 0 && h.scsv && !h.v13);
	/* A second supported_versions is refused, whole as it is. */
	hello_hex(&m, BASE "002b0003020300");
	records(&r, &m, NULL);
	CHECK(classify(r.b, r.n, IBUF, &pk) == HELLO_WHOLE);
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
	/* GREASE above 0x0304 is no version. */
	hello_hex(&m, "002b0005047a7a0304" GROUPS KS_X SIGS);
	CHECK(parse(m.b, m.n, &h) == 0 && h.v13 && !h.scsv);
	return 1;
}

/* Fragments of 1, 2, 3, 5 and 100 bytes, then the rest. */
static int
hello_over_records_is_joined(void)
{
	static const size_t cut[] = { 1, 2, 3, 5, 100, 0 };
	struct buf r = { { 0 }, 0 }, m, j;
	struct hello_peek pk;
	struct hello h1, h2;
	size_t n;

	CHECK(real(openssl_psk, &m, &h1) == 0);
	records(&r, &m, cut);
	CHECK(r.n == m.n + 30);		/* six headers */
	/* Cut anywhere: more is wanted, never past where it ends. */
	CHECK(classify(r.b, 5 + 1, IBUF, &pk) == HELLO_MORE &&
	    pk.want == 5 + 1 + 5);		/* the next header */
	CHECK(classify(r.b, 5 + 1 + 5 + 1, IBUF, &pk) == HELLO_MORE &&
	    pk.want == 5 + 1 + 5 + 2 && pk.wire == 0);	/* its length */
	/* Its length is in: the fewest bytes it takes, one record's. */
	CHECK(classify(r.b, 5 + 1 + 5 + 2 + 5 + 1, IBUF, &pk) ==
	    HELLO_MORE && pk.want == 5 + 1 + 5 + 2 + 5 + 3 &&
	    pk.wire == 5 + m.n);
	for (size_t len = 0; len < r.n; len++)
		CHECK(classify(r.b, len, IBUF, &pk) == HELLO_MORE &&
		    pk.want > len && pk.want <= r.n);
	CHECK(classify(r.b, r.n, IBUF, &pk) == HELLO_WHOLE && pk.end == r.n);
	j = r;
	n = hello_defrag(j.b, pk.end);
	CHECK(n == m.n && memcmp(j.b + 5, m.b, n) == 0);
	CHECK(memcmp(j.b, r.b, 5) == 0);
	CHECK(parse(j.b + 5, n, &h2) == 0 && same(&h1, &h2));
	return 1;
}

static int
bytes_after_the_hello_are_left(void)
{
	struct buf r = { { 0 }, 0 };
	struct hello_peek pk;
	size_t n;

	puthex(&r, openssl_tls13);
	n = r.n;
	puthex(&r, "140303000101" "170303");	/* CCS, early data */
	CHECK(classify(r.b, r.n, IBUF, &pk) == HELLO_WHOLE && pk.end == n);
	CHECK(hello_defrag(r.b, pk.end) == n - 5);
	CHECK(memcmp(r.b + n, "\x14\x03\x03\x00\x01\x01", 6) == 0);
	return 1;
}

/*
 * RFC 5246 6.2.1, RFC 8446 5.1: a hello ends its record, in either
 * version; what follows in the same record is unexpected_message.
 */
static int
bytes_after_the_hello_in_its_record_are_unexpected(void)
{
	static const char *const v[] = { openssl_tls13, openssl_tls12 };
	struct buf r;
	struct hello_peek pk;

	for (size_t i = 0; i < 2; i++) {
		r.n = 0;
		puthex(&r, v[i]);
		r.b[4]++;			/* a byte more in the record */
		r.b[r.n++] = 0x14;
		CHECK(classify(r.b, r.n, IBUF, &pk) == HELLO_ALERT &&
		    pk.alert == UNEXPECTED);
	}
	return 1;
}

/* An empty record among the hello's: unexpected_message, as above. */
static int
empty_record_in_the_hello_is_unexpected(void)
{
	static const size_t cut[] = { 100, 0 };
	struct buf r = { { 0 }, 0 }, m, e;
	struct hello_peek pk;

	hello_hex(&m, BASE);
	records(&r, &m, cut);
	e.n = 0;
	put(&e, r.b, 105);
	puthex(&e, "1603030000");		/* an empty record between */
	put(&e, r.b + 105, r.n - 105);
	CHECK(classify(e.b, e.n, IBUF, &pk) == HELLO_ALERT &&
	    pk.alert == UNEXPECTED);
	return 1;
}

/* The alert a first flight earns, with its first n bytes (0: all). */
static unsigned
first_flight_alert(const struct buf *g, size_t n)
{
	struct hello_peek pk;

	if (classify(g->b, n ? n : g->n, IBUF, &pk) != HELLO_ALERT)
		return 0;
	return pk.alert;
}

static int
not_a_handshake_record_is_unexpected_message(void)
{
	struct buf g = { { 0 }, 0 };

	puthex(&g, openssl_tls13);
	g.b[0] = 23;				/* application data */
	CHECK(first_flight_alert(&g, 5) == UNEXPECTED);
	g.b[0] = 21;				/* an alert */
	CHECK(first_flight_alert(&g, 0) == UNEXPECTED);
	return 1;
}

/* Its header's top bit set: an SSL 2.0 hello, no version of ours. */
static int
ssl2_hello_is_protocol_version(void)
{
	struct buf g = { { 0 }, 0 };

	puthex(&g, "8031010003");
	CHECK(first_flight_alert(&g, 0) == VERSION);
	g.b[0] = 0x96;				/* 22 with the top bit */
	CHECK(first_flight_alert(&g, 0) == VERSION);
	return 1;
}

static int
record_version_major_not_3_is_protocol_version(void)
{
	struct buf g = { { 0 }, 0 };

	puthex(&g, openssl_tls12);
	g.b[1] = 2;				/* an SSL 2-era version */
	CHECK(first_flight_alert(&g, 5) == VERSION);
	g.b[1] = 4;
	CHECK(first_flight_alert(&g, 0) == VERSION);
	g.b[1] = 3;				/* the minor is not looked at */
	g.b[2] = 0x7f;
	CHECK(classify(g.b, g.n, IBUF, &(struct hello_peek){ 0 }) == HELLO_WHOLE);
	return 1;
}

static int
record_over_2_14_is_record_overflow(void)
{
	struct buf g = { { 0 }, 0 };

	puthex(&g, "1603014001");		/* 16,385 bytes */
	CHECK(first_flight_alert(&g, 0) == 22);
	g.n = 0;
	puthex(&g, "1603014000");		/* 2^14 exactly: wait */
	CHECK(classify(g.b, g.n, IBUF, &(struct hello_peek){ 0 }) ==
	    HELLO_MORE);
	return 1;
}

static int
not_a_client_hello_is_unexpected_message(void)
{
	struct buf g = { { 0 }, 0 };

	puthex(&g, openssl_tls13);
	g.b[5] = 2;				/* a ServerHello */
	CHECK(first_flight_alert(&g, 9) == UNEXPECTED);
	g.b[5] = 0;				/* a HelloRequest */
	CHECK(first_flight_alert(&g, 0) == UNEXPECTED);
	return 1;
}

/* Too big for the buffer: handshake_failure, early or late. */
static int
hello_too_large_for_the_buffer_is_handshake_failure(void)
{
	struct buf r = { { 0 }, 0 };
	struct hello_peek pk;

	puthex(&r, openssl_tls13);
	CHECK(classify(r.b, r.n, r.n, &pk) == HELLO_WHOLE);
	CHECK(classify(r.b, 100, r.n - 1, &pk) == HELLO_ALERT &&
	    pk.alert == FAILURE);
	CHECK(classify(r.b, 100, r.n, &pk) == HELLO_MORE);
	for (size_t len = 0; len < r.n; len++)
		CHECK(classify(r.b, len, len, &pk) == HELLO_ALERT &&
		    pk.alert == FAILURE);
	r.b[6] = 1;			/* a message of 65,776 bytes */
	CHECK(classify(r.b, 9, IBUF, &pk) == HELLO_ALERT && pk.alert == FAILURE);
	return 1;
}

/* Longer than any ClientHello can be (131,396 bytes): malformed. */
static int
hello_longer_than_any_can_be_is_decode_error(void)
{
	struct buf r = { { 0 }, 0 };
	struct hello_peek pk;

	puthex(&r, openssl_tls13);
	r.b[6] = 0x02, r.b[7] = 0x01, r.b[8] = 0x44;
	CHECK(classify(r.b, 9, IBUF, &pk) == HELLO_ALERT && pk.alert == FAILURE);
	r.b[8] = 0x45;
	CHECK(classify(r.b, 9, IBUF, &pk) == HELLO_ALERT && pk.alert == DECODE);
	r.b[6] = r.b[7] = r.b[8] = 0xff;
	CHECK(classify(r.b, 9, IBUF, &pk) == HELLO_ALERT && pk.alert == DECODE);
	return 1;
}

static int
bad_hello_framing_is_decode_error(void)
{
	struct buf r = { { 0 }, 0 }, g;

	puthex(&r, openssl_tls13);
	g = r;					/* a suites length gone odd */
	g.b[5 + 4 + 2 + 32 + 1 + 32 + 1]++;
	CHECK(first_flight_alert(&g, 0) == DECODE);
	g = r;					/* extensions' length short */
	g.b[5 + 4 + 2 + 32 + 1 + 32 + 2 + 8 + 2 + 1]--;
	CHECK(first_flight_alert(&g, 0) == DECODE);
	g = r;					/* an extension past the end */
	g.b[5 + 4 + 2 + 32 + 1 + 32 + 2 + 8 + 2 + 2 + 3]++;
	CHECK(first_flight_alert(&g, 0) == DECODE);
	return 1;
}

/*
 * A real hello cut at every length, its message length made to agree:
 * a decode_error, but for the cut right before the extensions: a TLS
 * 1.2 hello with none, which is accepted.
 */
static int
every_truncation_is_refused(void)
{
	struct buf m, c;
	struct hello h;
	size_t ext = 4 + 2 + 32 + 33 + 2 + 36 + 2;	/* python's */

	CHECK(real(python, &m, &h) == 0 && m.b[ext - 1] == 0);
	for (size_t len = 0; len < m.n; len++) {
		c = m;
		if (len >= 4) {
			c.b[2] = (unsigned char)((len - 4) >> 8);
			c.b[3] = (unsigned char)(len - 4);
		}
		if (parse(c.b, len, &h) != (len == ext ? 0 : DECODE) ||
		    (h.why == NULL) != (len == ext) || !inside(&h, len)) {
			fprintf(stderr, "  cut at %zu: %s\n", len,
			    h.why ? h.why : "");
			CHECK(!"truncation");
		}
	}
	return 1;
}

/* Every byte of a resumption hello changed: a known answer, no crash. */
static int
every_changed_byte_gets_a_clean_answer(void)
{
	static const unsigned char to[] = { 0x00, 0x01, 0x20, 0x7f, 0xff };
	struct buf m, c, r;
	struct hello h;
	struct hello_peek pk;
	unsigned a;
	int k;

	CHECK(real(openssl_psk, &m, &h) == 0);
	for (size_t i = 0; i < m.n; i++)
		for (size_t v = 0; v < sizeof(to); v++) {
			c = m;
			c.b[i] = to[v];
			a = parse(c.b, c.n, &h);
			if ((a != 0 && a != ILLEGAL && a != DECODE &&
			    a != VERSION && a != MISSING) ||
			    (a != 0) != (h.why != NULL) || !inside(&h, c.n)) {
				fprintf(stderr, "  byte %zu = %u: %u %s\n", i,
				    to[v], a, h.why ? h.why : "");
				CHECK(!"answer");
			}
			records(&r, &c, NULL);
			k = classify(r.b, r.n, IBUF, &pk);
			if (a == 0 && k != HELLO_WHOLE)
				CHECK(!"classifier disagrees");
		}
	return 1;
}

struct crafted {
	const char	*ext;
	unsigned	 alert;
};

static const struct crafted crafted[] = {
	{ BASE, 0 },
	{ "0a0a0000" BASE "fe0d00021234", 0 },	/* GREASE, unknown */
	{ SV13 GROUPS GROUPS KS_X SIGS, ILLEGAL },
	{ BASE SIGS, ILLEGAL },
	{ BASE MODES PSK, 0 },
	{ SV13 GROUPS KS_X MODES PSK SIGS, ILLEGAL },	/* psk not last */
	{ BASE MODES "00290033" "000e" "00010000000000" "00010000000000"
	    "002120" X32, ILLEGAL },		/* 2 identities, 1 binder */
	{ BASE MODES "0029002f" "000b00056964656e7400000000" "00201f" X31,
	    DECODE },				/* a 31-byte binder */
	{ BASE PSK, MISSING },
	{ SV13 MODES PSK, 0 },			/* PSK alone: parsed */
	{ SV13 GROUPS SIGS, MISSING },		/* no key_share */
	{ SV13 KS_X SIGS, MISSING },		/* no supported_groups */
	{ SV13 GROUPS KS_X, MISSING },		/* no signature_algorithms */
	{ SV13 GROUPS "003300250023001d001f" X31 SIGS, ILLEGAL },
	{ SV13 GROUPS "003300270025001d0021" X32 "11" SIGS, ILLEGAL },
	{ SV13 GROUPS "00330047004500170041" "04" P64 SIGS, 0 },
	{ SV13 GROUPS "00330047004500170041" "02" P64 SIGS, ILLEGAL },
	{ SV13 GROUPS "00330046004400170040" P64 SIGS, ILLEGAL },
	{ SV13 GROUPS "0033000600040017" "0000" SIGS, ILLEGAL },	/* empty */
	{ SV13 "000a00040002001d" "00330047004500170041" "04" P64 SIGS,
	    ILLEGAL },				/* a group not offered */
	{ SV13 GROUPS "0033004a0048001d0020" X32 "001d0020" X32 SIGS,
	    ILLEGAL },				/* twice */
	{ SV13 GROUPS "0033006b006900170041" "04" P64 "001d0020" X32 SIGS,
	    ILLEGAL },				/* out of order */
	{ SV13 GROUPS "0033006b0069001d0020" X32 "00170041" "04" P64 SIGS, 0 },
	{ SV13 GROUPS "003300020000" SIGS, 0 },	/* empty: HRR */
	{ SV13 "000a00080006001a001d0017" "0033002a0028001a0000001d0020" X32 SIGS,
	    ILLEGAL },				/* brainpoolP256r1: obsolete */
	{ SV13 "000a00080006001a001d0017" KS_X SIGS, ILLEGAL },	/* listed only */
	{ SV13 "000a00080006001d00170018" KS_X SIGS, 0 },	/* P-384: fine */
	{ SV13 GROUPS "0033000400000000" SIGS, DECODE },
	{ "002b0003020303" GROUPS KS_X SIGS, 0 },	/* TLS 1.2 */
	{ "002b0003020302" GROUPS KS_X SIGS, VERSION },
	{ GROUPS KS_X SIGS, 0 },		/* 1.2 by legacy_version */
	{ "002b00040303040304" GROUPS KS_X SIGS, DECODE },
	{ "002b0002000304" GROUPS KS_X SIGS, DECODE },
	{ BASE "002a0000", 0 },			/* early_data: noted */
	{ BASE "002a000100", DECODE },
	{ BASE "002c00030001ff", 0 },		/* a cookie: noted */
	{ BASE "002c00020000", DECODE },
	{ BASE "002d0000", DECODE },
	{ SV13 "000a0003000100" KS_X SIGS, DECODE },
	{ SV13 "000a00020000" KS_X SIGS, DECODE },
	{ SV13 GROUPS KS_X "000d00020000", DECODE },
	{ BASE "0010000e000c02683208687474702f312e31", 0 },
	{ BASE "0010000e000c02683200687474702f312e31", DECODE },
	{ BASE "0010000e000d02683208687474702f312e31", DECODE },
	{ BASE "0000000e000c0000096c6f63616c686f7374", 0 },
	{ BASE "0000000e000c0000096c6f63616c686f2f74", ILLEGAL },
	{ BASE "0000000e000c00000a6c6f63616c686f7374", DECODE },
	{ BASE "00000005000300000000", DECODE },
	{ BASE "0000000a00080000016100000161", ILLEGAL },
	{ BASE "000000ff", DECODE },		/* longer than the block */
	{ BASE "00", DECODE },
};

/* Each crafted hello earns its alert; the classifier agrees. */
static int
crafted_hellos_earn_their_alerts(void)
{
	struct buf m, r;
	struct hello h;
	struct hello_peek pk;
	unsigned a;
	int k;

	for (size_t i = 0; i < sizeof(crafted) / sizeof(crafted[0]); i++) {
		hello_hex(&m, crafted[i].ext);
		a = parse(m.b, m.n, &h);
		if (a != crafted[i].alert || !inside(&h, m.n)) {
			fprintf(stderr, "  crafted[%zu]: %u (%s)\n", i, a,
			    h.why ? h.why : "");
			CHECK(!"alert");
		}
		records(&r, &m, NULL);
		k = classify(r.b, r.n, IBUF, &pk);
		if (a == 0)
			CHECK(k == HELLO_WHOLE);
		if (a == VERSION)
			CHECK(k == HELLO_WHOLE);
	}
	return 1;
}

static int
legacy_fields_are_checked(void)
{
	struct buf m, e = { { 0 }, 0 };
	struct hello h;

	puthex(&e, BASE);
	hello(&m, 0x0303, 0, "0100", &e);
	CHECK(parse(m.b, m.n, &h) == 0 && h.sid_len == 0 && h.sid == 39);
	hello(&m, 0x0304, 32, "0100", &e);	/* ignored: RFC 8446 4.2.1 */
	CHECK(parse(m.b, m.n, &h) == 0 && h.legacy_version == 0x0304);
	hello(&m, 0x0301, 32, "0100", &e);
	CHECK(parse(m.b, m.n, &h) == VERSION);
	hello(&m, 0x0303, 33, "0100", &e);
	CHECK(parse(m.b, m.n, &h) == DECODE);
	hello(&m, 0x0303, 32, "0101", &e);
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
	hello(&m, 0x0303, 32, "020100", &e);
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
	hello(&m, 0x0303, 32, "020001", &e);
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
	hello(&m, 0x0303, 32, "00", &e);
	CHECK(parse(m.b, m.n, &h) == DECODE);
	hello(&m, 0x0303, 32, "0100", &e);
	m.b[4 + 2 + 32 + 33 + 1] = 7;		/* suites' length odd */
	CHECK(parse(m.b, m.n, &h) == DECODE);
	return 1;
}

/*
 * A browser-like hello: GREASE and a 1,216-byte X25519MLKEM768 share
 * before the X25519 one, both groups listed, in the same order.  GREASE
 * is skipped; the hybrid share is kept where it lies (skipped too in a
 * build without ML-KEM); a hybrid share of another size is refused.
 */
static void
browser_hello(struct buf *m, size_t pqlen)
{
	static unsigned char big[1217];
	struct buf e = { { 0 }, 0 };

	puthex(&e, "dada0000" SV13 SIGS);
	puthex(&e, "000a000c000a2a2a11ec001d00170018");
	puthex(&e, "0033");
	put16(&e, 2 + 5 + 4 + pqlen + 4 + 32);
	put16(&e, 5 + 4 + pqlen + 4 + 32);
	puthex(&e, "2a2a000100" "11ec");
	put16(&e, pqlen);
	put(&e, big, pqlen);
	puthex(&e, "001d0020" X32);
	hello(m, 0x0303, 32, "0100", &e);
}

static int
mlkem_and_grease_shares_are_skipped(void)
{
	struct buf m, r;
	struct hello h;
	struct hello_peek pk;
	unsigned g;
	unsigned pq = 0;

	browser_hello(&m, 1216);
	CHECK(parse(m.b, m.n, &h) == 0 && inside(&h, m.n));
#ifndef TLSGATE_NO_MLKEM
	pq = hello_group(GROUP_X25519MLKEM768);
	CHECK(hello_share(&h, GROUP_X25519MLKEM768) == m.n - 32 - 4 - 1216);
#endif
	CHECK(h.shares == (hello_group(GROUP_X25519) | pq) &&
	    m.b[m.n - 32] == 0x11);
	CHECK(hello_share(&h, GROUP_X25519) == m.n - 32);
	CHECK(h.groups == (bits(hello_group, 3, GROUP_X25519, GROUP_SECP256R1,
	    GROUP_SECP384R1) | pq));
	/* Not among the default groups (NULL): X25519 answers. */
	CHECK(hello_choose_group(&h, x25519_p256, 2, &g) == HELLO_SHARE &&
	    g == 0x001d);
	records(&r, &m, NULL);
	CHECK(classify(r.b, r.n, IBUF, &pk) == HELLO_WHOLE);
#ifndef TLSGATE_NO_MLKEM
	{
		static const unsigned ours[] = { 0x11ec, 0x001d };

		CHECK(hello_choose_group(&h, ours, 2, &g) == HELLO_SHARE &&
		    g == 0x11ec);
	}
	browser_hello(&m, 1215);
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
	browser_hello(&m, 1217);
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
#endif
	return 1;
}

static int
alpn_names_near_http11_are_not_it(void)
{
	struct buf m;
	struct hello h;

	/* h2, http/1.10, HTTP/1.1, http/1. */
	hello_hex(&m, BASE "00100020001e" "026832" "09687474702f312e3130"
	    "08485454502f312e31" "07687474702f312e");
	CHECK(parse(m.b, m.n, &h) == 0 && h.alpn_len == 30 && !h.alpn_http11);
	hello_hex(&m, BASE "0010000b0009" "08687474702f312e31");
	CHECK(parse(m.b, m.n, &h) == 0 && h.alpn_http11);
	return 1;
}

/* A host name is 255 bytes at most (the 1.3 engine keeps it whole). */
static int
host_names_up_to_255_bytes_pass(void)
{
	struct buf e, m;
	struct hello h;

	for (size_t k = 254; k <= 256; k++) {
		e.n = 0;
		puthex(&e, BASE "0000");
		put16(&e, k + 5);
		put16(&e, k + 3);
		puthex(&e, "00");
		put16(&e, k);
		memset(e.b + e.n, 'a', k);
		e.n += k;
		hello(&m, 0x0303, 32, "0100", &e);
		CHECK(parse(m.b, m.n, &h) == (k <= 255 ? 0 : ILLEGAL));
		CHECK(k > 255 || (h.host_len == k && m.b[h.host] == 'a'));
	}
	return 1;
}

static int
no_usable_share_asks_again_or_fails(void)
{
	struct buf m;
	struct hello h;
	unsigned g = 0;

	hello_hex(&m, SV13 "000a000400020017" "003300020000" SIGS);
	CHECK(parse(m.b, m.n, &h) == 0);
	CHECK(hello_choose_group(&h, x25519_p256, 2, &g) == HELLO_HRR &&
	    g == 0x0017);
	hello_hex(&m, SV13 GROUPS "003300020000" SIGS);
	CHECK(parse(m.b, m.n, &h) == 0);
	CHECK(hello_choose_group(&h, x25519_p256, 2, &g) == HELLO_HRR &&
	    g == 0x001d);
	hello_hex(&m, SV13 "000a000400020018" "003300020000" SIGS);
	CHECK(parse(m.b, m.n, &h) == 0);
	CHECK(hello_choose_group(&h, x25519_p256, 2, &g) == FAILURE);
	hello_hex(&m, SV13 MODES PSK);		/* PSK without DHE */
	CHECK(parse(m.b, m.n, &h) == 0);
	CHECK(hello_choose_group(&h, x25519_p256, 2, &g) == FAILURE);
	return 1;
}

/* The server's order picks among the shares sent, then among the groups. */
static int
server_order_picks_the_group(void)
{
	static const unsigned p256_first[] = { 0x0017, 0x001d };
	static const unsigned x_first[] = { 0x001d, 0x0017 };
	static const unsigned p384_p256[] = { 0x0018, 0x0017 };
	static const unsigned p384[] = { 0x0018 };
	struct buf m;
	struct hello h;
	unsigned g = 0;

	hello_hex(&m, SV13 GROUPS "0033006b0069001d0020" X32 "00170041" "04"
	    P64 SIGS);
	CHECK(parse(m.b, m.n, &h) == 0);
	CHECK(hello_choose_group(&h, p256_first, 2, &g) == HELLO_SHARE &&
	    g == 0x0017);
	CHECK(hello_choose_group(&h, x_first, 2, &g) == HELLO_SHARE && g == 0x001d);
	CHECK(hello_choose_group(&h, p384_p256, 2, &g) == HELLO_SHARE &&
	    g == 0x0017);
	CHECK(hello_choose_group(&h, p384, 1, &g) == FAILURE);
	/* A share for X25519 only: P-256 first still takes it, no HRR. */
	hello_hex(&m, BASE);
	CHECK(parse(m.b, m.n, &h) == 0);
	CHECK(hello_choose_group(&h, p256_first, 2, &g) == HELLO_SHARE &&
	    g == 0x001d);
	/* Not ours to share: asked for with HRR, in our order. */
	CHECK(hello_choose_group(&h, p384_p256, 2, &g) == HELLO_HRR &&
	    g == 0x0017);
	return 1;
}

/*
 * A TLS 1.2 hello: legacy_version, the suites and compression methods
 * in hex (with their lengths), then the extensions given in hex, or
 * none at all (no extensions block) if ext is NULL.
 */
static void
hello12(struct buf *m, unsigned version, const char *suites,
    const char *comp, const char *ext)
{
	static const unsigned char x[32] = { 0x5a };
	struct buf e = { { 0 }, 0 };

	m->n = 0;
	puthex(m, "01000000");
	put16(m, version);
	put(m, x, 32);
	puthex(m, "00");			/* no session ID */
	puthex(m, suites);
	puthex(m, comp);
	if (ext != NULL) {
		puthex(&e, ext);
		put16(m, e.n);
		put(m, e.b, e.n);
	}
	m->b[2] = (unsigned char)((m->n - 4) >> 8);
	m->b[3] = (unsigned char)(m->n - 4);
}

/* The suites of tlsgate's TLS 1.2, ECDSA and RSA. */
#define SUITES12	"0004c02bc02f"

/* Parse a 1.2 hello with these extensions: the alert, 0 if accepted. */
static unsigned
parse12(const char *ext, struct hello *h)
{
	struct buf m;

	hello12(&m, 0x0303, SUITES12, "0100", ext);
	return parse(m.b, m.n, h);
}

static int
tls12_hello_without_extensions_is_accepted(void)
{
	struct buf m, r;
	struct hello h;
	struct hello_peek pk;

	hello12(&m, 0x0303, SUITES12, "0100", NULL);
	CHECK(parse(m.b, m.n, &h) == 0 && h.why == NULL);
	CHECK(h.exts == 0 && !h.v12 && !h.v13 && h.host == 0);
	CHECK(h.suites12 == bits(hello_suite, 2, 0xc02b, 0xc02f));
	records(&r, &m, NULL);
	CHECK(classify(r.b, r.n, IBUF, &pk) == HELLO_WHOLE);
	return 1;
}

/* No supported_versions: legacy_version says 1.2 (RFC 5246 E.1). */
static int
tls12_hello_needs_legacy_version_0x0303(void)
{
	struct buf m;
	struct hello h;

	hello12(&m, 0x0302, SUITES12, "0100", NULL);
	CHECK(parse(m.b, m.n, &h) == VERSION && h.why != NULL);
	hello12(&m, 0x0302, SUITES12, "0100", "00170000");
	CHECK(parse(m.b, m.n, &h) == VERSION);
	hello12(&m, 0x0304, SUITES12, "0100", "00170000");
	CHECK(parse(m.b, m.n, &h) == 0 && !h.v13);
	return 1;
}

/* supported_versions with 1.2 and not 1.3: 1.2, whatever legacy says. */
static int
supported_versions_without_13_must_list_12(void)
{
	struct buf m;
	struct hello h;

	hello12(&m, 0x0301, SUITES12, "0100", "002b00050403030302");
	CHECK(parse(m.b, m.n, &h) == 0 && h.v12 && !h.v13);
	CHECK(h.exts == hello_ext(EXT_SUPPORTED_VERSIONS));
	hello12(&m, 0x0303, SUITES12, "0100", "002b00050403020301");
	CHECK(parse(m.b, m.n, &h) == VERSION && !h.v12);
	return 1;
}

static int
tls12_suites_each_have_their_bit(void)
{
	static const struct {
		const char	*hex;
		unsigned	 code;
	} s12[] = {
		{ "0002c02b", 0xc02b },
		{ "0002c02c", 0xc02c },
		{ "0002cca9", 0xcca9 },
		{ "0002c02f", 0xc02f },
		{ "0002c030", 0xc030 },
		{ "0002cca8", 0xcca8 },
		{ "0004009cc013", 0 },		/* RSA kx, CBC: not ours */
		{ "00021301", 0 },		/* a 1.3 suite */
	};
	struct buf m;
	struct hello h;
	unsigned seen = 0;

	for (size_t i = 0; i < sizeof(s12) / sizeof(s12[0]); i++) {
		unsigned b = s12[i].code ? hello_suite(s12[i].code) : 0;

		hello12(&m, 0x0303, s12[i].hex, "0100", NULL);
		CHECK(parse(m.b, m.n, &h) == 0 && h.suites12 == b);
		CHECK((b & seen) == 0);		/* a bit of its own */
		seen |= b;
		CHECK(h.suites == (i == 7 ?
		    hello_suite(SUITE_AES_128_GCM_SHA256) : 0));
	}
	CHECK(seen == (all_suites(TS_ECDSA) | all_suites(TS_RSA)));
	return 1;
}

/* RFC 5746 3.3: TLS_EMPTY_RENEGOTIATION_INFO_SCSV is noted. */
static int
renegotiation_scsv_is_noted(void)
{
	struct buf m;
	struct hello h;

	hello12(&m, 0x0303, "0004c02b00ff", "0100", NULL);
	CHECK(parse(m.b, m.n, &h) == 0 && h.reneg_scsv && !h.scsv);
	hello12(&m, 0x0303, SUITES12, "0100", NULL);
	CHECK(parse(m.b, m.n, &h) == 0 && !h.reneg_scsv);
	return 1;
}

/*
 * RFC 5746 3.2: a first hello's renegotiation_info is empty; one that
 * is not is noted (the handshake refuses it), a malformed one is
 * decode_error.
 */
static int
renegotiation_info_not_empty_is_noted(void)
{
	struct hello h;

	CHECK(parse12("ff01000100", &h) == 0 && !h.reneg_bad);
	CHECK(h.exts == hello_ext(EXT_RENEGOTIATION_INFO));
	CHECK(parse12("ff0100030201ff", &h) == 0 && h.reneg_bad);
	CHECK(parse12("ff0100020201", &h) == DECODE);
	CHECK(parse12("ff010000", &h) == DECODE);
	return 1;
}

/* RFC 8422 5.1.2: is uncompressed among the point formats? */
static int
ec_point_formats_uncompressed_is_noted(void)
{
	struct hello h;

	CHECK(parse12("000b0004030102" "00", &h) == 0 && h.ecpf_uncompressed);
	CHECK(h.exts == hello_ext(EXT_EC_POINT_FORMATS));
	CHECK(parse12("000b000302" "0102", &h) == 0 && !h.ecpf_uncompressed);
	CHECK(h.alert12 == 0);
	/* Malformed: refused in a TLS 1.2 hello; TLS 1.3 skips it. */
	CHECK(parse12("000b000100", &h) == DECODE && h.alert12 == DECODE);
	CHECK(parse12("000b00020200", &h) == DECODE);
	return 1;
}

/* A group 1.3 ruled out is fine in 1.2: noted, not refused. */
static int
obsolete_group_is_noted_in_tls12(void)
{
	struct hello h;

	CHECK(parse12("000a00060004001a0017", &h) == 0 && h.obsolete);
	CHECK(h.groups == hello_group(GROUP_SECP256R1));
	CHECK(parse12("000a00060004001d0017", &h) == 0 && !h.obsolete);
	CHECK(h.groups == bits(hello_group, 2, GROUP_X25519, GROUP_SECP256R1));
	return 1;
}

static int
pkcs1_and_sha1_sigalgs_have_their_bits(void)
{
	struct hello h;

	CHECK(parse12("000d000c000a" "0401050106010201" "0203", &h) == 0);
	CHECK(h.sigalgs == bits(hello_sig, 5, SIG_RSA_PKCS1_SHA256,
	    SIG_RSA_PKCS1_SHA384, SIG_RSA_PKCS1_SHA512, SIG_RSA_PKCS1_SHA1,
	    SIG_ECDSA_SHA1));
	CHECK(parse12("000d00040002" "0403", &h) == 0 &&
	    h.sigalgs == hello_sig(SIG_ECDSA_SECP256R1_SHA256));
	return 1;
}

static int
tls12_extensions_each_have_their_bit(void)
{
	struct buf m;
	struct hello h;

	CHECK(parse12("00170000", &h) == 0 &&
	    h.exts == hello_ext(EXT_EXTENDED_MASTER_SECRET));
	CHECK(parse12("00230000", &h) == 0 &&
	    h.exts == hello_ext(EXT_SESSION_TICKET));
	CHECK(h.ticket_len == 0);
	/* A ticket (RFC 5077 3.2): where it is, for the engine to open. */
	hello12(&m, 0x0303, SUITES12, "0100", "00230003010203");
	CHECK(parse(m.b, m.n, &h) == 0 &&
	    h.exts == hello_ext(EXT_SESSION_TICKET));
	CHECK(h.ticket_len == 3 && h.ticket + 3 <= m.n &&
	    memcmp(m.b + h.ticket, "\1\2\3", 3) == 0);
	CHECK(parse12("ff01000100" "00170000" "00230000" "000b00020100", &h) ==
	    0);
	CHECK(h.exts == bits(hello_ext, 4, EXT_RENEGOTIATION_INFO,
	    EXT_EXTENDED_MASTER_SECRET, EXT_SESSION_TICKET,
	    EXT_EC_POINT_FORMATS));
	/* RFC 7627 5.1: extended_master_secret is empty. */
	CHECK(parse12("0017000100", &h) == DECODE);
	CHECK(parse12("00170000" "00170000", &h) == ILLEGAL);
	return 1;
}

/*
 * The extensions TLS 1.2 alone uses, malformed (extended_master_secret
 * with a body, renegotiation_info and ec_point_formats too short) or not
 * ours (encrypt_then_mac, RFC 7366, with a body): a TLS 1.3 hello skips
 * them, keeping the alert for a 1.2 choice; a 1.2 hello is refused.
 */
static int
tls12_only_extensions_are_judged_at_12_only(void)
{
	static const char *const odd[] = { "0017000100", "ff0100020201",
	    "000b000100" };
	char ext[512];
	struct buf m;
	struct hello h;

	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		snprintf(ext, sizeof(ext), "0016000101%s", odd[i]);
		CHECK(parse12(ext, &h) == DECODE && h.why != NULL);
		snprintf(ext, sizeof(ext), BASE "0016000101%s", odd[i]);
		hello_hex(&m, ext);
		CHECK(parse(m.b, m.n, &h) == 0 && h.v13 && h.why == NULL);
		CHECK(h.alert12 == DECODE && h.why12 != NULL);
	}
	return 1;
}

/* RFC 5246 7.4.1.2: null among the methods; anything else is refused. */
/* RFC 6066 4: one byte, 1 to 4 (2^9 to 2^12), in either version. */
static int
max_fragment_length_is_read(void)
{
	struct buf m;
	struct hello h;

	for (unsigned v = 1; v <= 4; v++) {
		char ext[16];

		snprintf(ext, sizeof(ext), "000100010%u", v);
		CHECK(parse12(ext, &h) == 0 && h.mfl == v);
		CHECK(h.exts == hello_ext(EXT_MAX_FRAGMENT_LENGTH));
	}
	CHECK(parse12("00170000", &h) == 0 && h.mfl == 0);
	CHECK(parse12("0001000100", &h) == ILLEGAL && h.why != NULL);
	CHECK(parse12("0001000105", &h) == ILLEGAL);
	CHECK(parse12("000100020102", &h) == DECODE);
	CHECK(parse12("00010000", &h) == DECODE);
	hello_hex(&m, BASE "0001000102");
	CHECK(parse(m.b, m.n, &h) == 0 && h.v13 && h.mfl == 2);
	return 1;
}

static int
tls12_compression_needs_null_among_methods(void)
{
	struct buf m;
	struct hello h;

	hello12(&m, 0x0303, SUITES12, "020100", NULL);
	CHECK(parse(m.b, m.n, &h) == 0);
	hello12(&m, 0x0303, SUITES12, "020140", "00170000");
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
	hello12(&m, 0x0303, SUITES12, "0101", NULL);
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
	return 1;
}

/* RFC 8446 4.1.2: exactly {null}, even with null among others. */
static int
tls13_compression_must_be_null_alone(void)
{
	struct buf m, e = { { 0 }, 0 };
	struct hello h;

	puthex(&e, BASE);
	hello(&m, 0x0303, 32, "020100", &e);
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
	hello(&m, 0x0303, 32, "020001", &e);
	CHECK(parse(m.b, m.n, &h) == ILLEGAL);
	hello(&m, 0x0303, 32, "0100", &e);
	CHECK(parse(m.b, m.n, &h) == 0);
	return 1;
}

/*
 * The rules of server_name and ALPN, on TLS 1.2 hellos (as the old
 * look at a 1.2 hello for BearSSL had them, now the one parser's).
 */
static int
tls12_alpn_with_http11_is_found(void)
{
	struct buf m;
	struct hello h;

	/* ec_point_formats, ALPN h2 and http/1.1, extended_master_secret */
	hello12(&m, 0x0303, SUITES12, "0100", "000b000201" "00"
	    "0010000e000c02683208687474702f312e31" "00170000");
	CHECK(parse(m.b, m.n, &h) == 0 && h.alpn_http11 && h.alpn_len == 12);
	CHECK(memcmp(m.b + h.alpn, "\x02h2\x08http/1.1", 12) == 0);
	return 1;
}

static int
tls12_other_alpn_names_are_not_http11(void)
{
	struct hello h;

	CHECK(parse12("00100005000302" "6832", &h) == 0 && !h.alpn_http11);
	/* http/1.0, http/1.11, HTTP/1.1 */
	CHECK(parse12("0010001e001c" "08687474702f312e30"
	    "09687474702f312e3131" "08485454502f312e31", &h) == 0);
	CHECK(!h.alpn_http11 && h.alpn_len == 28);
	CHECK(parse12("00170000", &h) == 0 && !h.alpn_http11 && h.alpn == 0);
	return 1;
}

/* RFC 7301 3.1: a list of non-empty names that fills the extension. */
static int
tls12_malformed_alpn_lists_are_decode_error(void)
{
	struct hello h;

	CHECK(parse12("0010000e000b02683208687474702f312e31", &h) == DECODE);
	CHECK(parse12("0010000e000d02683208687474702f312e31", &h) == DECODE);
	CHECK(parse12("0010000e000c00683208687474702f312e31", &h) == DECODE);
	CHECK(parse12("001000020000", &h) == DECODE);	/* an empty list */
	CHECK(parse12("00100000", &h) == DECODE);	/* an empty extension */
	CHECK(h.why != NULL);
	return 1;
}

/* Two ALPN lists: which one would count?  illegal_parameter. */
static int
two_alpn_extensions_are_illegal(void)
{
	struct hello h;

	CHECK(parse12("0010000b000908687474702f312e31"
	    "0010000b000908687474702f312e31", &h) == ILLEGAL);
	return 1;
}

static int
tls12_host_name_passes_with_alpn(void)
{
	struct buf m;
	struct hello h;

	/* Web-UI_1.example.com, then ALPN http/1.1 */
	hello12(&m, 0x0303, SUITES12, "0100", "00000019001700001457"
	    "65622d55495f312e6578616d706c652e636f6d"
	    "0010000b000908687474702f312e31");
	CHECK(parse(m.b, m.n, &h) == 0 && h.alpn_http11);
	CHECK(h.host_len == 20 &&
	    memcmp(m.b + h.host, "Web-UI_1.example.com", 20) == 0);
	/* a.example, and a name of another type after it: skipped */
	hello12(&m, 0x0303, SUITES12, "0100", "00000017001500000961"
	    "2e6578616d706c65" "0100066f7061717565");
	CHECK(parse(m.b, m.n, &h) == 0 && h.host_len == 9);
	return 1;
}

/* RFC 6066 3: a list of non-empty names that fills the extension. */
static int
tls12_malformed_sni_lists_are_decode_error(void)
{
	struct hello h;

	CHECK(parse12("000000020000", &h) == DECODE);	/* no names */
	CHECK(parse12("0000000500030000" "00", &h) == DECODE); /* empty */
	CHECK(parse12("00000000", &h) == DECODE);	/* empty extension */
	/* example.com: the list's length, then the name's, one off */
	CHECK(parse12("0000001000" "0d00000b6578616d706c652e636f6d", &h) ==
	    DECODE);
	CHECK(parse12("0000001000" "0f00000b6578616d706c652e636f6d", &h) ==
	    DECODE);
	CHECK(parse12("0000001000" "0e00000c6578616d706c652e636f6d", &h) ==
	    DECODE);
	CHECK(parse12("0000001000" "0e00000a6578616d706c652e636f6d", &h) ==
	    DECODE);
	CHECK(parse12("0000001000" "0e00000b6578616d706c652e636f6d", &h) == 0);
	return 1;
}

/* Letters, digits, '-', '.', '_' only; one host name. */
static int
tls12_names_that_are_not_host_names_are_illegal(void)
{
	static const char *const bad[] = { "exa mple.com", "a\x07" "b",
	    "\x1b[31mx", "caf\xc3\xa9.example", "a/b", "a*b", "x:443" };
	struct buf e, m;
	struct hello h;
	size_t k;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		k = strlen(bad[i]);
		e.n = 0;
		puthex(&e, "0000");
		put16(&e, k + 5);
		put16(&e, k + 3);
		puthex(&e, "00");
		put16(&e, k);
		put(&e, bad[i], k);
		hello(&m, 0x0303, 0, "0100", &e);
		CHECK(parse(m.b, m.n, &h) == ILLEGAL && h.why != NULL);
	}
	/* a.example, b.example: two host names */
	CHECK(parse12("0000001a00180000096" "12e6578616d706c65"
	    "0000096" "22e6578616d706c65", &h) == ILLEGAL);
	return 1;
}

static const struct unit_test tests[] = {
	T(server_order_picks_the_group),
	T(openssl_hello_is_tls13_and_parsed),
	T(curl_hello_names_http11),
	T(python_hello_offers_13_and_12),
	T(gnutls_hello_has_two_shares),
	T(p256_first_hello_is_answered_on_p256),
	T(resumption_hello_gives_psk_offsets),
	T(tls12_hello_is_t12_and_parsed),
	T(fallback_scsv_is_reported),
	T(hello_over_records_is_joined),
	T(bytes_after_the_hello_are_left),
	T(bytes_after_the_hello_in_its_record_are_unexpected),
	T(empty_record_in_the_hello_is_unexpected),
	T(not_a_handshake_record_is_unexpected_message),
	T(ssl2_hello_is_protocol_version),
	T(record_version_major_not_3_is_protocol_version),
	T(record_over_2_14_is_record_overflow),
	T(not_a_client_hello_is_unexpected_message),
	T(hello_too_large_for_the_buffer_is_handshake_failure),
	T(hello_longer_than_any_can_be_is_decode_error),
	T(bad_hello_framing_is_decode_error),
	T(every_truncation_is_refused),
	T(every_changed_byte_gets_a_clean_answer),
	T(crafted_hellos_earn_their_alerts),
	T(legacy_fields_are_checked),
	T(mlkem_and_grease_shares_are_skipped),
	T(alpn_names_near_http11_are_not_it),
	T(host_names_up_to_255_bytes_pass),
	T(no_usable_share_asks_again_or_fails),
	T(tls12_hello_without_extensions_is_accepted),
	T(tls12_hello_needs_legacy_version_0x0303),
	T(supported_versions_without_13_must_list_12),
	T(tls12_suites_each_have_their_bit),
	T(renegotiation_scsv_is_noted),
	T(renegotiation_info_not_empty_is_noted),
	T(ec_point_formats_uncompressed_is_noted),
	T(obsolete_group_is_noted_in_tls12),
	T(pkcs1_and_sha1_sigalgs_have_their_bits),
	T(tls12_extensions_each_have_their_bit),
	T(tls12_only_extensions_are_judged_at_12_only),
	T(max_fragment_length_is_read),
	T(tls12_compression_needs_null_among_methods),
	T(tls13_compression_must_be_null_alone),
	T(tls12_alpn_with_http11_is_found),
	T(tls12_other_alpn_names_are_not_http11),
	T(tls12_malformed_alpn_lists_are_decode_error),
	T(two_alpn_extensions_are_illegal),
	T(tls12_host_name_passes_with_alpn),
	T(tls12_malformed_sni_lists_are_decode_error),
	T(tls12_names_that_are_not_host_names_are_illegal),
};

int
main(void)
{
	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
