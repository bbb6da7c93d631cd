/*
 * hello.c - see hello.h.  The layout is RFC 5246 7.4.1.2 and RFC 7301 3.1;
 * every length must fit what encloses it, or the answer is 0.
 */
#include <string.h>

#include "hello.h"

#define EXT_ALPN	16

static size_t
get16(const unsigned char *p)
{
	return (size_t)p[0] << 8 | p[1];
}

/* An ALPN extension's body: a list of non-empty names filling it exactly. */
static int
lists(const unsigned char *p, size_t len, const char *name)
{
	size_t n = strlen(name), k;
	int found = 0;

	if (len < 3 || get16(p) != len - 2)
		return HELLO_ALPN_BAD;
	for (size_t i = 2; i < len; i += 1 + k) {
		k = p[i];
		if (k == 0 || k > len - i - 1)
			return HELLO_ALPN_BAD;
		found |= k == n && memcmp(p + i + 1, name, n) == 0;
	}
	return found;
}

int
hello_offers_alpn(const unsigned char *b, size_t len, const char *name)
{
	size_t rlen, end, p, e;
	int alpn = 0, found = 0;

	/* Record: handshake, 3.x, length; message: client_hello, length. */
	if (len < 9 || b[0] != 22 || b[1] != 3 || b[5] != 1)
		return 0;
	rlen = get16(b + 3);
	end = (size_t)b[6] << 16 | get16(b + 7);
	if (rlen > len - 5 || rlen < 4 || end > rlen - 4)
		return 0;
	end += 9;
	p = 9 + 2 + 32;				/* client_version, random */
	if (p >= end)
		return 0;
	p += 1 + b[p];				/* session_id */
	if (p + 2 > end)
		return 0;
	p += 2 + get16(b + p);			/* cipher_suites */
	if (p + 1 > end)
		return 0;
	p += 1 + b[p];				/* compression_methods */
	if (p + 2 > end || get16(b + p) != end - p - 2)
		return 0;
	for (p += 2; p < end; p += 4 + e) {
		if (end - p < 4 || (e = get16(b + p + 2)) > end - p - 4)
			return 0;
		if (get16(b + p) == EXT_ALPN) {
			alpn++;
			found = lists(b + p + 4, e, name);
		}
	}
	return alpn == 1 ? found : 0;
}
