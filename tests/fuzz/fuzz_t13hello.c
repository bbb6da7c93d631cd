/*
 * fuzz_t13hello.c - libFuzzer target for src/t13hello.c.
 *
 * The input is a client's first bytes (seeds: real ClientHellos from
 * openssl s_client, curl, Python ssl and gnutls-cli, one spread over
 * records).  It is classified as records and also parsed as a bare
 * message.  Invariants checked, each with abort():
 *  - every answer is one of those documented, an alert comes with a
 *    reason, and the same bytes give the same answer (no state);
 *  - every offset and length the parser returns lies in the message;
 *  - classifier and parser agree: a hello the parser accepts, put in
 *    one record, is T13_T13; a T13_T13 hello the parser accepts offers
 *    0x0304; a one-record hello the classifier gives BearSSL is not
 *    accepted by the parser;
 *  - the joined hello, put back in one record, is classified, joined
 *    and parsed to the same answer;
 *  - t13_defrag stays inside what it is given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "t13hello.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define IBUF	16709

static uint8_t	buf[1 << 17], again[IBUF];

static int
inside(const struct t13_hello *h, size_t len)
{
	const size_t span[][2] = { { h->random, 32 }, { h->sid, h->sid_len },
	    { h->x25519, h->x25519 ? 32 : 0 },
	    { h->secp256r1, h->secp256r1 ? 65 : 0 },
	    { h->psk_ids, h->psk_ids_len }, { h->psk_binders, 2 },
	    { h->host, h->host_len }, { h->alpn, h->alpn_len } };

	for (size_t i = 0; i < sizeof(span) / sizeof(span[0]); i++)
		if (span[i][0] != 0 &&
		    (span[i][0] > len || span[i][1] > len - span[i][0]))
			return 0;
	return 1;
}

/* The same parse, field by field (memcmp would compare padding). */
static int
same(const struct t13_hello *a, const struct t13_hello *b)
{
	return a->legacy_version == b->legacy_version &&
	    a->random == b->random && a->sid == b->sid &&
	    a->sid_len == b->sid_len && a->suites == b->suites &&
	    a->scsv == b->scsv && a->v13 == b->v13 && a->exts == b->exts &&
	    a->groups == b->groups && a->shares == b->shares &&
	    a->x25519 == b->x25519 && a->secp256r1 == b->secp256r1 &&
	    a->sigalgs == b->sigalgs && a->psk_dhe_ke == b->psk_dhe_ke &&
	    a->psk_ids == b->psk_ids && a->psk_ids_len == b->psk_ids_len &&
	    a->psk_count == b->psk_count &&
	    a->psk_binders == b->psk_binders && a->host == b->host &&
	    a->host_len == b->host_len && a->alpn == b->alpn &&
	    a->alpn_len == b->alpn_len && a->alpn_http11 == b->alpn_http11 &&
	    a->why == b->why;
}

/* Parse m[0..len): the checks every answer must pass. */
static unsigned
parse(const uint8_t *m, size_t len, struct t13_hello *h)
{
	unsigned a = t13_parse(m, len, h), g;

	if ((a != 0 && a != 47 && a != 50 && a != 70 && a != 109) ||
	    (a != 0) != (h->why != NULL) || !inside(h, len))
		abort();
	if (a == 0 && (!h->v13 || h->host_len > 255 || h->sid_len > 32))
		abort();
	if (a == 0) {
		a = t13_choose_group(h, NULL, 0, &g);
		if (a == T13_SHARE && !(g == 0x001d ? h->x25519 : h->secp256r1))
			abort();
		if (a != T13_SHARE && a != T13_HRR && a != 40)
			abort();
		a = 0;
	}
	return a;
}

/* m in one record of again[], classified, joined: T13_T13 or -1. */
static int
one_record(const uint8_t *m, size_t n, size_t *joined)
{
	struct t13_peek pk;
	int c;

	if (n > 16384)
		return -1;
	memcpy(again, "\x16\x03\x01", 3);
	again[3] = (uint8_t)(n >> 8);
	again[4] = (uint8_t)n;
	memmove(again + 5, m, n);
	c = t13_classify(again, n + 5, IBUF, &pk);
	if (c == T13_T13 && (pk.end != n + 5 ||
	    (*joined = t13_defrag(again, pk.end)) != n))
		abort();
	return c;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct t13_peek pk, pk2;
	struct t13_hello h, h2;
	unsigned a, a2;
	size_t n, j;
	int c;

	if (size > sizeof(buf))
		return 0;
	/* The input as a bare message. */
	a = parse(data, size, &h);
	if (a == 0 && size <= 16384 && one_record(data, size, &j) != T13_T13)
		abort();
	/* The input as records. */
	c = t13_classify(data, size, IBUF, &pk);
	if (t13_classify(data, size, IBUF, &pk2) != c ||
	    memcmp(&pk, &pk2, sizeof(pk)) != 0)
		abort();
	if (c == T13_ALERT && pk.alert != 10)
		abort();
	if (c == T13_NEED_MORE && size >= IBUF)
		abort();
	if (c == T13_BR && size >= 9 && size <= 16384 + 5 && data[0] == 22 &&
	    data[1] == 3 && data[5] == 1 &&
	    (size_t)(data[3] << 8 | data[4]) == size - 5 &&
	    (size_t)(data[6] << 16 | data[7] << 8 | data[8]) == size - 9 &&
	    t13_parse(data + 5, size - 5, &h) == 0)
		abort();
	memcpy(buf, data, size);
	if (c != T13_T13) {
		if (t13_defrag(buf, size) + 5 > size && size >= 5)
			abort();
		return 0;
	}
	if (pk.end > size || pk.max_version < 0x0304 || !pk.sv)
		abort();
	n = t13_defrag(buf, pk.end);
	if (n + 5 > pk.end || memcmp(buf + pk.end, data + pk.end,
	    size - pk.end) != 0)
		abort();
	a = parse(buf + 5, n, &h);
	if (a == 0 && !h.v13)
		abort();
	/* Joined, in one record, again: the same answer. */
	if (one_record(buf + 5, n, &j) != T13_T13)
		abort();
	a2 = parse(again + 5, j, &h2);
	if (a2 != a || !same(&h, &h2))
		abort();
	return 0;
}
