/*
 * test_hello.c - the behaviours of src/hello.c, one test per behaviour.
 *
 * Each hello is built here byte by byte, then copied into a heap buffer
 * of exactly its length, so that a read past `len` is caught when built
 * with -fsanitize=address.  Prints one line per test and "N passed, N
 * failed" last; exits non-zero if anything failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hello.h"
#include "unit.h"


struct buf {
	unsigned char	b[2048];
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

/* An ALPN extension listing names ("" ends the list). */
static void
alpn_ext(struct buf *e, const char *const *names)
{
	size_t len = 0;

	for (size_t i = 0; names[i][0] != '\0'; i++)
		len += 1 + strlen(names[i]);
	put16(e, 16);
	put16(e, len + 2);
	put16(e, len);
	for (size_t i = 0; names[i][0] != '\0'; i++) {
		unsigned char k = (unsigned char)strlen(names[i]);

		put(e, &k, 1);
		put(e, names[i], k);
	}
}

/* A record holding one ClientHello with these extensions. */
static void
hello(struct buf *h, const struct buf *ext)
{
	static const unsigned char rnd[32];
	unsigned char body[1024];
	struct buf m = { { 0 }, 0 };
	size_t bl;

	put16(&m, 0x0303);
	put(&m, rnd, 32);
	put(&m, "\x20", 1);
	put(&m, rnd, 32);			/* a session id */
	put16(&m, 4);
	put(&m, "\xc0\x2b\xc0\x2f", 4);
	put(&m, "\x01\x00", 2);
	put16(&m, ext->n);
	put(&m, ext->b, ext->n);
	bl = m.n;
	memcpy(body, m.b, bl);
	h->n = 0;
	put(h, "\x16\x03\x01", 3);
	put16(h, bl + 4);
	put(h, "\x01\x00", 2);
	put16(h, bl);
	put(h, body, bl);
}

#define DECODE	(-50)	/* the alert, negated */
#define ILLEGAL	(-47)

/* 1: offers http/1.1; 0: nothing to say; -alert: refused. */
static int
offers(const struct buf *h, size_t len)
{
	unsigned char *p = malloc(len ? len : 1);
	struct hello r;

	if (p == NULL)
		exit(2);
	memcpy(p, h->b, len);
	hello_look(p, len, "http/1.1", &r);
	free(p);
	if (r.alert != 0 && (r.offers || r.why == NULL))
		return 99;		/* an alert comes with a reason, alone */
	return r.alert != 0 ? -(int)r.alert : r.offers;
}

/* A server_name extension of (type, name) entries, up to NULL. */
static void
sni_ext(struct buf *e, const unsigned char *types, const char *const *names)
{
	size_t len = 0, i;

	for (i = 0; names[i] != NULL; i++)
		len += 3 + strlen(names[i]);
	put16(e, 0);
	put16(e, len + 2);
	put16(e, len);
	for (i = 0; names[i] != NULL; i++) {
		put(e, &types[i], 1);
		put16(e, strlen(names[i]));
		put(e, names[i], strlen(names[i]));
	}
}

static const char *const h2_http11[] = { "h2", "http/1.1", "" };
static const char *const h2[] = { "h2", "" };

static int
alpn_with_http11_is_found(void)
{
	struct buf e = { { 0 }, 0 }, h;

	put(&e, "\x00\x0b\x00\x02\x01\x00", 6);	/* ec_point_formats */
	alpn_ext(&e, h2_http11);
	put(&e, "\x00\x17\x00\x00", 4);		/* extended_master_secret */
	hello(&h, &e);
	CHECK(offers(&h, h.n) == 1);
	/* Bytes after the record (a second one) change nothing. */
	h.b[h.n++] = 0x16;
	CHECK(offers(&h, h.n) == 1);
	return 1;
}

static int
other_names_or_no_alpn_are_not(void)
{
	static const char *const near[] = { "http/1.0", "http/1.11", "HTTP/1.1",
	    "" };
	struct buf e = { { 0 }, 0 }, h;

	alpn_ext(&e, h2);
	hello(&h, &e);
	CHECK(offers(&h, h.n) == 0);
	e.n = 0;
	alpn_ext(&e, near);
	hello(&h, &e);
	CHECK(offers(&h, h.n) == 0);
	e.n = 0;
	put(&e, "\x00\x17\x00\x00", 4);
	hello(&h, &e);
	CHECK(offers(&h, h.n) == 0);
	return 1;
}

static int
every_truncation_is_not(void)
{
	struct buf e = { { 0 }, 0 }, h;

	alpn_ext(&e, h2_http11);
	hello(&h, &e);
	for (size_t len = 0; len < h.n; len++)
		CHECK(offers(&h, len) == 0);
	return 1;
}

/* BearSSL would see a second list, which may not match: no answer. */
static int
two_alpn_extensions_are_not(void)
{
	struct buf e = { { 0 }, 0 }, h;

	alpn_ext(&e, h2_http11);
	alpn_ext(&e, h2_http11);
	hello(&h, &e);
	CHECK(offers(&h, h.n) == 0);
	return 1;
}

static int
outer_lengths_that_disagree_are_not(void)
{
	struct buf e = { { 0 }, 0 }, h, g;
	/* record, message; then in the ALPN extension: type, length */
	static const size_t fields[] = { 3, 7, 0, 2 };
	size_t at;

	alpn_ext(&e, h2_http11);
	hello(&h, &e);
	at = h.n - e.n;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		for (int d = -1; d <= 1; d += 2) {
			size_t o = i < 2 ? fields[i] : at + fields[i];

			g = h;
			g.b[o + 1] = (unsigned char)(g.b[o + 1] + d);
			CHECK(offers(&g, g.n) == 0);
		}
	g = h;
	g.b[at - 1]++;				/* the extensions block's */
	CHECK(offers(&g, g.n) == 0);
	return 1;
}

/* A whole hello with a malformed ALPN list: decode_error, not ignored. */
static int
malformed_alpn_lists_are_bad(void)
{
	static const char *const none[] = { "" };
	struct buf e = { { 0 }, 0 }, h, g;
	size_t at;

	alpn_ext(&e, h2_http11);
	hello(&h, &e);
	at = h.n - e.n;
	for (int d = -1; d <= 1; d += 2) {	/* the list's length */
		g = h;
		g.b[at + 5] = (unsigned char)(g.b[at + 5] + d);
		CHECK(offers(&g, g.n) == DECODE);
	}
	g = h;
	g.b[at + 6] = 0;			/* an empty name */
	CHECK(offers(&g, g.n) == DECODE);
	e.n = 0;
	alpn_ext(&e, none);			/* an empty list */
	hello(&h, &e);
	CHECK(offers(&h, h.n) == DECODE);
	e.n = 0;
	put(&e, "\x00\x10\x00\x00", 4);		/* an empty extension */
	hello(&h, &e);
	CHECK(offers(&h, h.n) == DECODE);
	return 1;
}

static int
not_a_client_hello_is_not(void)
{
	struct buf e = { { 0 }, 0 }, h, g;

	alpn_ext(&e, h2_http11);
	hello(&h, &e);
	g = h;
	g.b[0] = 23;				/* application data */
	CHECK(offers(&g, g.n) == 0);
	g = h;
	g.b[5] = 2;				/* a ServerHello */
	CHECK(offers(&g, g.n) == 0);
	g = h;
	g.b[1] = 2;				/* SSL 2-era version */
	CHECK(offers(&g, g.n) == 0);
	return 1;
}

static int
host_names_pass_and_keep_alpn(void)
{
	static const unsigned char t[] = { 0, 1 };
	static const char *const one[] = { "Web-UI_1.example.com", NULL };
	static const char *const other[] = { "a.example", "opaque", NULL };
	struct buf e = { { 0 }, 0 }, h;

	sni_ext(&e, t, one);
	alpn_ext(&e, h2_http11);
	hello(&h, &e);
	CHECK(offers(&h, h.n) == 1);
	e.n = 0;
	sni_ext(&e, t, other);		/* a second name of another type */
	hello(&h, &e);
	CHECK(offers(&h, h.n) == 0);
	return 1;
}

static int
malformed_sni_lists_are_bad(void)
{
	static const unsigned char t[] = { 0, 0 };
	static const char *const none[] = { NULL };
	static const char *const empty[] = { "", NULL };
	static const char *const one[] = { "example.com", NULL };
	struct buf e = { { 0 }, 0 }, h, g;
	size_t at;

	sni_ext(&e, t, none);
	hello(&h, &e);
	CHECK(offers(&h, h.n) == DECODE);
	e.n = 0;
	sni_ext(&e, t, empty);
	hello(&h, &e);
	CHECK(offers(&h, h.n) == DECODE);
	e.n = 0;
	put(&e, "\x00\x00\x00\x00", 4);	/* an empty extension */
	hello(&h, &e);
	CHECK(offers(&h, h.n) == DECODE);
	e.n = 0;
	sni_ext(&e, t, one);
	alpn_ext(&e, h2_http11);	/* a good ALPN list after a bad SNI */
	hello(&h, &e);
	at = h.n - e.n;
	for (int d = -1; d <= 1; d += 2) {
		g = h;			/* the list's length, the name's */
		g.b[at + 5] = (unsigned char)(g.b[at + 5] + d);
		CHECK(offers(&g, g.n) == DECODE);
		g = h;
		g.b[at + 8] = (unsigned char)(g.b[at + 8] + d);
		CHECK(offers(&g, g.n) == DECODE);
	}
	return 1;
}

static int
names_that_are_not_host_names_are_illegal(void)
{
	static const unsigned char t[] = { 0, 0 };
	static const char *const bad[] = { "exa mple.com", "a\x07b", "\x1b[31mx",
	    "caf\xc3\xa9.example", "a/b", "a*b", "x:443" };
	static const char *const two[] = { "a.example", "b.example", NULL };
	struct buf e = { { 0 }, 0 }, h;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *one[] = { bad[i], NULL };

		e.n = 0;
		sni_ext(&e, t, one);
		hello(&h, &e);
		CHECK(offers(&h, h.n) == ILLEGAL);
	}
	e.n = 0;
	sni_ext(&e, t, two);		/* RFC 6066 3: one name a type */
	hello(&h, &e);
	CHECK(offers(&h, h.n) == ILLEGAL);
	return 1;
}

static const struct unit_test tests[] = {
	T(alpn_with_http11_is_found),
	T(other_names_or_no_alpn_are_not),
	T(every_truncation_is_not),
	T(two_alpn_extensions_are_not),
	T(outer_lengths_that_disagree_are_not),
	T(malformed_alpn_lists_are_bad),
	T(not_a_client_hello_is_not),
	T(host_names_pass_and_keep_alpn),
	T(malformed_sni_lists_are_bad),
	T(names_that_are_not_host_names_are_illegal),
};

int
main(void)
{
	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
