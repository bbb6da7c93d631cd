/*
 * hello.c - see hello.h.  The layout is RFC 5246 7.4.1.2, RFC 7301 3.1
 * and RFC 6066 3; every length must fit what encloses it, or the hello
 * is left to BearSSL.
 */
#include <string.h>

#include "hello.h"

#define EXT_SNI		0
#define EXT_ALPN	16
#define ILLEGAL_PARAMETER	47
#define DECODE_ERROR		50

static size_t
get16(const unsigned char *p)
{
	return (size_t)p[0] << 8 | p[1];
}

static void
bad(struct hello *h, unsigned alert, const char *why)
{
	h->alert = alert;
	h->why = why;
}

/* An ALPN extension's body: a list of non-empty names filling it exactly. */
static void
alpn(const unsigned char *p, size_t len, const char *name, struct hello *h)
{
	size_t n = strlen(name), k;

	h->offers = 0;
	if (len < 3 || get16(p) != len - 2) {
		bad(h, DECODE_ERROR, "bad-alpn");
		return;
	}
	for (size_t i = 2; i < len; i += 1 + k) {
		k = p[i];
		if (k == 0 || k > len - i - 1) {
			bad(h, DECODE_ERROR, "bad-alpn");
			return;
		}
		h->offers |= k == n && memcmp(p + i + 1, name, n) == 0;
	}
}

/*
 * server_name's body: a non-empty list of (type, non-empty name) filling
 * it exactly, with one host_name at most, made of what a DNS host name
 * is made of (the log and the certificate match rely on it).
 */
static void
sni(const unsigned char *p, size_t len, struct hello *h)
{
	size_t k;
	int hosts = 0;

	if (len < 3 || get16(p) != len - 2) {
		bad(h, DECODE_ERROR, "bad-sni");
		return;
	}
	for (size_t i = 2; i < len; i += 3 + k) {
		if (len - i < 3 || (k = get16(p + i + 1)) > len - i - 3 ||
		    k == 0) {
			bad(h, DECODE_ERROR, "bad-sni");
			return;
		}
		if (p[i] != 0)			/* not host_name */
			continue;
		if (hosts++ > 0) {
			bad(h, ILLEGAL_PARAMETER, "two-sni-host-names");
			return;
		}
		for (size_t j = 0; j < k; j++) {
			unsigned char c = p[i + 3 + j];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
			    c == '_')) {
				bad(h, ILLEGAL_PARAMETER, "sni-not-a-host-name");
				return;
			}
		}
	}
}

void
hello_look(const unsigned char *b, size_t len, const char *name,
    struct hello *h)
{
	size_t rlen, end, p, e;
	struct hello r = { 0, 0, NULL };
	int nalpn = 0;

	memset(h, 0, sizeof(*h));
	/* Record: handshake, 3.x, length; message: client_hello, length. */
	if (len < 9 || b[0] != 22 || b[1] != 3 || b[5] != 1)
		return;
	rlen = get16(b + 3);
	end = (size_t)b[6] << 16 | get16(b + 7);
	if (rlen > len - 5 || rlen < 4 || end > rlen - 4)
		return;
	end += 9;
	p = 9 + 2 + 32;				/* client_version, random */
	if (p >= end)
		return;
	p += 1 + b[p];				/* session_id */
	if (p + 2 > end)
		return;
	p += 2 + get16(b + p);			/* cipher_suites */
	if (p + 1 > end)
		return;
	p += 1 + b[p];				/* compression_methods */
	if (p + 2 > end || get16(b + p) != end - p - 2)
		return;
	for (p += 2; p < end; p += 4 + e) {
		if (end - p < 4 || (e = get16(b + p + 2)) > end - p - 4)
			return;
		if (r.alert != 0)
			continue;
		if (get16(b + p) == EXT_ALPN) {
			nalpn++;
			alpn(b + p + 4, e, name, &r);
		} else if (get16(b + p) == EXT_SNI)
			sni(b + p + 4, e, &r);
	}
	/* Two ALPN lists: BearSSL may match either; answer neither. */
	r.offers = r.alert == 0 && nalpn == 1 && r.offers;
	*h = r;
}
