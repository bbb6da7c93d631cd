/* SPDX-License-Identifier: ISC */
/*
 * fuzz_http.c - libFuzzer target for src/http.c.
 *
 * The input is plain bytes (seeds are readable requests).  A split point
 * and the forwarding flags are derived from a hash of the input, so that
 * the same input always takes the same path.  Invariants checked, each
 * with abort() so the fuzzer reports it:
 *  - head_end gives the same answer in one call and in two (resume);
 *  - parse is deterministic and its offsets lie inside the head;
 *  - a head that parses on its own is exactly what head_end finds;
 *  - rewrite never exceeds cap, keeps the following bytes, leaves buf
 *    untouched on failure, and its output parses with the same framing
 *    (only a Connection: close may be gone);
 *  - a Client-Cert or Client-Cert-Chain past its limits is refused, and
 *    a chain within them is written as long as RFC 9440 makes it and
 *    never longer than HTTP_CHAIN_SLACK (the worst case comes often);
 *  - a redirect fits head + 360 bytes and is one 308 whose Location is
 *    visible ASCII, followed by the fixed lines (no header injection);
 *  - the chunk walker gives the same result fed whole or split;
 *  - a status line gives a code in 100-599, and a response head that
 *    parses has one of the four framings, a length only with
 *    Content-Length, and keep-alive only in HTTP/1.1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

#define SLACK	(HTTP_FWD_SLACK + HTTP_CERT_SLACK + HTTP_CHAIN_SLACK)
#define BUF_MAX	(65536 + SLACK)

static uint8_t	work[BUF_MAX];
static uint8_t	copy[BUF_MAX];
/* Client-Cert and Client-Cert-Chain's DER: any bytes do. */
static uint8_t	der[HTTP_CERT_MAX + HTTP_CHAIN_MAX + 2];

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define check(ok) do {						\
	if (!(ok)) {							\
		fprintf(stderr, "fuzz_http.c:%d: %s\n", __LINE__, #ok);	\
		abort();						\
	}								\
} while (0)

static uint32_t
hash(const uint8_t *p, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len && i < 64; i++)
		h = (h ^ p[i]) * 16777619u;
	return h ^ (uint32_t)len;
}

static void
fuzz_head_end(const uint8_t *p, size_t len, size_t split)
{
	size_t a = 0, b = 0;
	int r1, r2;

	r1 = http_head_end(p, len, &a);
	r2 = http_head_end(p, split, &b);
	if (r2 == HTTP_MORE) {
		check(b <= split);
		r2 = http_head_end(p, len, &b);
	}
	check(r1 == r2);
	check(a <= len);
	if (r1 == HTTP_OK)
		check(a == b && a >= 2);
}

static void
check_req(const struct http_req *r, size_t len)
{
	check(r->head_len == len);
	check(r->method_len > 0 && r->method_len < len);
	check(r->target_off == r->method_len + 1 && r->target_len > 0);
	check(r->target_off + r->target_len <= len);
	check(r->host_off + r->host_len <= len);
	check(r->minor <= 1 && r->nfields <= HTTP_MAX_FIELDS);
	check(r->body == HTTP_BODY_NONE || r->body == HTTP_BODY_LENGTH ||
	    r->body == HTTP_BODY_CHUNKED);
	check(r->body != HTTP_BODY_CHUNKED || r->minor == 1);
	check(r->body == HTTP_BODY_LENGTH || r->body_len == 0);
}

static unsigned
popcount(const uint32_t *w)
{
	unsigned i, n = 0;
	uint32_t x;

	for (i = 0; i < (HTTP_MAX_FIELDS + 31) / 32; i++)
		for (x = w[i]; x != 0; x &= x - 1)
			n++;
	return n;
}

/*
 * Maybe a Client-Cert and a Client-Cert-Chain for fwd, from g: lengths
 * from none to one past the limits, the longest often.  *bad: one that
 * must be refused; *line: the Client-Cert-Chain line's length, CRLF
 * included, as RFC 9440 spells it.  Returns the room they may take.
 */
static size_t
fuzz_certs(struct http_fwd *fwd, uint32_t g, int *bad, size_t *line)
{
	static size_t lens[HTTP_CHAIN_CERTS + 1];
	size_t room = 0, total = 0;
	unsigned i;

	*bad = 0;
	*line = 0;
	if (g & 1) {
		fwd->cert = der;
		fwd->cert_len = (g & 2) ? HTTP_CERT_MAX :
		    (g >> 2) % (HTTP_CERT_MAX + 2);
		*bad |= fwd->cert_len == 0 || fwd->cert_len > HTTP_CERT_MAX;
		room += HTTP_CERT_SLACK;
	}
	if (g & 4) {
		fwd->chain = der;
		fwd->chain_len = lens;
		fwd->nchain = (g >> 3) % (HTTP_CHAIN_CERTS + 2);
		for (i = 0; i < fwd->nchain; i++) {
			/* Lengths of each residue mod 3, and often one
			 * that takes the total to about the limit. */
			lens[i] = (g & 16) ? 1 : (g >> (7 + 2 * i)) & 3;
			if (i == 0 && (g & 8))
				lens[i] = HTTP_CHAIN_MAX + 1 - (g >> 30) -
				    ((g & 16) ? 1 : 2) * (fwd->nchain - 1);
			total += lens[i];
			*bad |= lens[i] == 0;
			*line += (i > 0 ? 2 : 0) + 2 + 4 * ((lens[i] + 2) / 3);
		}
		*line += 21;
		*bad |= fwd->nchain == 0 || fwd->nchain > HTTP_CHAIN_CERTS ||
		    total > HTTP_CHAIN_MAX;
		room += HTTP_CHAIN_SLACK;
	}
	return room;
}

/* The length of the Client-Cert-Chain line in h[0..n), CRLF included. */
static size_t
chain_line(const uint8_t *h, size_t n)
{
	static const char k[] = "\r\nClient-Cert-Chain: ";
	size_t i, j;

	for (i = 0; i + sizeof(k) - 1 <= n; i++) {
		if (memcmp(h + i, k, sizeof(k) - 1) != 0)
			continue;
		for (j = i + 2; j + 1 < n; j++)
			if (h[j] == '\r' && h[j + 1] == '\n')
				return j + 2 - (i + 2);
	}
	return 0;
}

static void
fuzz_rewrite(const uint8_t *p, size_t len, const struct http_req *req,
    uint32_t h)
{
	static const char peer[] = "2001:db8:ffff:ffff:ffff:ffff:255.255.255.255";
	struct http_fwd fwd;
	struct http_req again;
	size_t cap, tail, n, room, line;
	int rc, bad;

	tail = len - req->head_len;
	memset(&fwd, 0, sizeof(fwd));
	fwd.flags = (h >> 8) & 7;
	fwd.peer = peer;
	fwd.peer_len = ((h >> 11) & 1) ? sizeof(peer) - 1 : 9;
	fwd.port = (h >> 12) & 0xffff;
	room = HTTP_FWD_SLACK + fuzz_certs(&fwd, h * 2654435761u, &bad,
	    &line);
	/* Either roomy, or tight so that the no-fit path runs too. */
	cap = len + (((h >> 28) & 1) ? room : (h >> 29));
	if (cap > BUF_MAX)
		return;
	memcpy(work, p, len);
	memcpy(copy, work, cap);
	n = http_rewrite_head(work, len, cap, req, &fwd);
	if (n == 0) {
		check(memcmp(work, copy, cap) == 0);
		/* Only a bad port, a certificate or chain not to hand on or
		 * a lack of room may refuse a parsed head. */
		check(((fwd.flags & HTTP_FWD_PORT) &&
		    (fwd.port == 0 || fwd.port > 65535)) || bad ||
		    cap < len + room);
		return;
	}
	check(!bad);
	/* The list is as long as its certificates make it, and within
	 * the room the head buffer keeps for it. */
	if (fwd.chain != NULL)
		check(chain_line(work, n) == line && line <= HTTP_CHAIN_SLACK);
	check(n <= cap && tail <= cap - n);
	check(memcmp(work + n, p + req->head_len, tail) == 0);
	check(memcmp(work, p, req->method_len + 1 + req->target_len) == 0);
	/* Our up to 5 lines may take a full head over the field limit. */
	rc = http_parse_head(work, n, &again);
	if (rc == HTTP_E_TOO_MANY_FIELDS && req->nfields + 5 > HTTP_MAX_FIELDS)
		return;
	check(rc == HTTP_OK);
	check(again.body == req->body && again.body_len == req->body_len);
	/* Only a lone close is dropped, as fwd_keep_alive says. */
	check(again.keep_alive == req->fwd_keep_alive);
	check(again.fwd_keep_alive == req->fwd_keep_alive);
	check(again.upgrade == req->upgrade);
	/* Every client-sent forwarding header is gone: only ours remain. */
	check(popcount(again.drop) == (fwd.flags & 1) + ((fwd.flags >> 1) & 1) +
	    ((fwd.flags >> 2) & 1) + (fwd.cert != NULL) + (fwd.chain != NULL));
}

static void
fuzz_parse(const uint8_t *p, size_t len)
{
	struct http_req a, b;
	size_t end = 0;
	int r1, r2;

	r1 = http_parse_head(p, len, &a);
	r2 = http_parse_head(p, len, &b);
	check(r1 == r2);
	check(strcmp(http_strerror(r1), "unknown") != 0);
	if (r1 != HTTP_OK)
		return;
	check(memcmp(&a, &b, sizeof(a)) == 0);
	check_req(&a, len);
	check(http_head_end(p, len, &end) == HTTP_OK && end == len);
}

static void
fuzz_chunk(const uint8_t *p, size_t len, size_t split)
{
	struct http_chunk c1, c2;
	size_t u1, u2a, u2b = 0;
	int r1, r2;

	http_chunk_init(&c1);
	http_chunk_init(&c2);
	r1 = http_chunk_feed(&c1, p, len, &u1);
	check(u1 <= len);
	check(r1 != HTTP_MORE || u1 == len);
	r2 = http_chunk_feed(&c2, p, split, &u2a);
	check(u2a <= split);
	if (r2 == HTTP_MORE)
		r2 = http_chunk_feed(&c2, p + split, len - split, &u2b);
	else	/* done or a sticky error: the rest changes nothing */
		check(http_chunk_feed(&c2, p + split, len - split, &u2b) == r2 &&
		    u2b == 0);
	check(r2 == r1);
	check(u2a + u2b == u1);
}

/* A backend's response head, as forward.c frames it. */
static void
fuzz_resp(const uint8_t *p, size_t len)
{
	struct http_resp r, r2;
	size_t end = 0;
	int st;

	if (http_head_end(p, len, &end) != HTTP_OK)
		return;
	if (http_parse_resp(p, end, &r) != HTTP_OK)
		return;
	check(http_parse_resp(p, end, &r2) == HTTP_OK &&
	    memcmp(&r, &r2, sizeof(r)) == 0);
	check(http_resp_status(p, end, &st) == HTTP_OK && st == r.status);
	check(r.body == HTTP_BODY_NONE || r.body == HTTP_BODY_LENGTH ||
	    r.body == HTTP_BODY_CHUNKED || r.body == HTTP_BODY_CLOSE);
	check(r.body == HTTP_BODY_LENGTH || r.body_len == 0);
	check(!r.keep_alive || p[7] == '1');
	check(r.body == HTTP_BODY_NONE || (r.status >= 200 && r.status != 204 &&
	    r.status != 304));
}

static void
fuzz_redirect(const uint8_t *p, const struct http_req *req, uint32_t h)
{
	static const char pre[] = "HTTP/1.1 308 Permanent Redirect\r\n"
	    "Location: https://";
	static const char post[] = "\r\nContent-Length: 0\r\n"
	    "Connection: close\r\n\r\n";
	size_t cap = req->head_len + 360, n, i;

	memcpy(work, p, req->head_len);
	n = http_redirect(work, cap, req, (h & 1) ? "[2001:db8::1]" :
	    "192.0.2.1", (h >> 1) & 0x1ffff);
	if (n == 0)
		return;
	check(n <= cap && n >= sizeof(pre) + sizeof(post));
	check(memcmp(work, pre, sizeof(pre) - 1) == 0);
	for (i = sizeof(pre) - 1; i < n - (sizeof(post) - 1); i++)
		check(work[i] >= 0x21 && work[i] <= 0x7e);
	check(memcmp(work + i, post, sizeof(post) - 1) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct http_req req;
	size_t end = 0, split;
	uint32_t h;
	int st;

	if (len > 65536)
		return 0;
	h = hash(data, len);
	split = len ? h % (len + 1) : 0;

	fuzz_head_end(data, len, split);
	fuzz_parse(data, len);
	if (http_head_end(data, len, &end) == HTTP_OK &&
	    http_parse_head(data, end, &req) == HTTP_OK) {
		check_req(&req, end);
		fuzz_rewrite(data, len, &req, h);
		fuzz_redirect(data, &req, h);
		/* What follows the head is a body (or not): walk it. */
		fuzz_chunk(data + end, len - end, (len - end) ? split %
		    (len - end + 1) : 0);
	} else
		fuzz_chunk(data, len, split);
	if (http_resp_status(data, len, &st) == HTTP_OK)
		check(st >= 100 && st <= 599);
	fuzz_resp(data, len);
	return 0;
}
