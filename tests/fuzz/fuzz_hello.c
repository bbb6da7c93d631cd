/* SPDX-License-Identifier: ISC */
/*
 * fuzz_hello.c - libFuzzer target for src/hello.c.
 *
 * The input is a client's first bytes (seeds: real ClientHellos of
 * both versions from openssl s_client, curl, Python ssl and gnutls-cli,
 * some with ALPN, one spread over records).  It is classified as
 * records and also parsed as a bare message.  Invariants checked, each
 * with abort():
 *  - every answer is one of those documented, an alert comes with a
 *    reason, and the same bytes give the same answer (no state);
 *  - the first record's header earns the classifier's alert for it: an
 *    SSL 2.0 header (top bit set) protocol_version, not a handshake
 *    record unexpected_message, a major version other than 3
 *    protocol_version, over 2^14 bytes record_overflow;
 *  - every offset and length the parser returns lies in the message;
 *  - a hello the parser accepts is TLS 1.3 (0x0304 offered, the
 *    compression methods exactly {null}, no obsolete group) or TLS 1.2
 *    (supported_versions lists 0x0303, or without it legacy_version is
 *    0x0303 or more); an ALPN list naming http/1.1 has the name in it;
 *  - classifier and parser agree: a hello the parser accepts, put in
 *    one record, is HELLO_WHOLE, and so is a whole hello of one record
 *    that the parser accepts;
 *  - a HELLO_WHOLE hello, joined, and put back in one record, is
 *    classified, joined and parsed to the same answer;
 *  - hello_defrag stays inside what it is given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hello.h"
#include "hellobuf.h"
#include "tlswire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define IBUF	16709

static uint8_t	buf[1 << 17], again[IBUF];

/* Does an ALPN list's body hold the name http/1.1, with its length? */
static int
has_http11(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 9 <= n; i++)
		if (memcmp(p + i, "\x08http/1.1", 9) == 0)
			return 1;
	return 0;
}

/* Parse m[0..len): the checks every answer must pass. */
static unsigned
parse(const uint8_t *m, size_t len, struct hello *h)
{
	unsigned a = hello_parse(m, len, h), g;
	size_t comp;

	if ((a != 0 && a != 47 && a != 50 && a != 70 && a != 109) ||
	    (a != 0) != (h->why != NULL) || !inside(h, len))
		abort();
	if (a == 0 && (h->host_len > 255 || h->sid_len > 32 || h->mfl > 4 ||
	    (h->mfl != 0) !=
	    ((h->exts & hello_ext(EXT_MAX_FRAGMENT_LENGTH)) != 0)))
		abort();
	/* A malformed 1.2-only extension fails a hello without 1.3. */
	if (a == 0 && !h->v13 && h->alert12 != 0)
		abort();
	/* 1.3: the compression methods, after the suites, are {0}. */
	if (a == 0 && h->v13) {
		comp = h->sid + h->sid_len;
		comp += 2 + (size_t)(m[comp] << 8 | m[comp + 1]);
		if (h->obsolete || m[comp] != 1 || m[comp + 1] != 0)
			abort();
	}
	if (a == 0 && !h->v13 &&
	    !((h->exts & hello_ext(EXT_SUPPORTED_VERSIONS)) ? h->v12 :
	    h->legacy_version >= 0x0303))
		abort();
	if (h->alpn_http11 && !has_http11(m + h->alpn, h->alpn_len))
		abort();
	if (a == 0) {
		static const unsigned pref[] = { GROUP_X25519,
		    GROUP_SECP256R1 };

		a = hello_choose_group(h, pref, 2, &g);
		if (a == HELLO_SHARE && hello_share(h, g) == 0)
			abort();
		if (a != HELLO_SHARE && a != HELLO_HRR && a != 40)
			abort();
		a = 0;
	}
	return a;
}

/* m in one record of again[], classified, joined: its answer, or -1. */
static int
one_record(const uint8_t *m, size_t n, size_t *joined)
{
	struct hello_peek pk;
	int c;

	if (n > 16384)
		return -1;
	memcpy(again, "\x16\x03\x01", 3);
	again[3] = (uint8_t)(n >> 8);
	again[4] = (uint8_t)n;
	memmove(again + 5, m, n);
	c = hello_classify(again, n + 5, IBUF, &pk);
	if (c == HELLO_WHOLE && (pk.end != n + 5 ||
	    (*joined = hello_defrag(again, pk.end)) != n))
		abort();
	return c;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hello_peek pk, pk2;
	struct hello h, h2;
	unsigned a, a2;
	size_t n, j;
	int c;

	if (size > sizeof(buf))
		return 0;
	/* The input as a bare message. */
	a = parse(data, size, &h);
	if (a == 0 && size <= 16384 &&
	    one_record(data, size, &j) != HELLO_WHOLE)
		abort();
	/* The input as records. */
	c = hello_classify(data, size, IBUF, &pk);
	if (hello_classify(data, size, IBUF, &pk2) != c ||
	    memcmp(&pk, &pk2, sizeof(pk)) != 0)
		abort();
	if (c == HELLO_ALERT && pk.alert != 10 && pk.alert != 22 &&
	    pk.alert != 40 && pk.alert != 50 && pk.alert != 70)
		abort();
	if (c == HELLO_MORE && (size >= IBUF || pk.want <= size))
		abort();
	/* A cut of a whole hello wants more, and no more than it has. */
	if (c == HELLO_WHOLE &&
	    (hello_classify(data, pk.end / 2, IBUF, &pk2) != HELLO_MORE ||
	    pk2.want <= pk.end / 2 || pk2.want > pk.end))
		abort();
	/* The first header is judged first, in this order. */
	if (size >= 5 && (data[0] & 0x80 ? pk.alert != 70 :
	    data[0] != 22 ? pk.alert != 10 : data[1] != 3 ?
	    pk.alert != 70 : (size_t)(data[3] << 8 | data[4]) > 16384 ?
	    pk.alert != 22 : 0))
		abort();
	/* A whole hello in one record, alone: as the parser says. */
	if (size >= 9 && size <= 16384 + 5 && data[0] == 22 &&
	    data[1] == 3 && data[5] == 1 &&
	    (size_t)(data[3] << 8 | data[4]) == size - 5 &&
	    (size_t)(data[6] << 16 | data[7] << 8 | data[8]) == size - 9 &&
	    hello_parse(data + 5, size - 5, &h) == 0 && c != HELLO_WHOLE)
		abort();
	memcpy(buf, data, size);
	if (c != HELLO_WHOLE) {
		if (hello_defrag(buf, size) + 5 > size && size >= 5)
			abort();
		return 0;
	}
	if (pk.end > size)
		abort();
	n = hello_defrag(buf, pk.end);
	if (n + 5 > pk.end || memcmp(buf + pk.end, data + pk.end,
	    size - pk.end) != 0)
		abort();
	a = parse(buf + 5, n, &h);
	/* Joined, in one record, again: the same answer. */
	if (one_record(buf + 5, n, &j) != c)
		abort();
	a2 = parse(again + 5, j, &h2);
	if (a2 != a || !same(&h, &h2))
		abort();
	return 0;
}
