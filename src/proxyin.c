/* SPDX-License-Identifier: ISC */
/*
 * proxyin.c - see proxyin.h.
 *
 * The version is told by the first byte: 'P' starts v1's "PROXY ", CR
 * starts v2's 12-byte signature; a TLS record starts with 0x16 and is
 * refused at once.  Every length is checked against len before a byte
 * is read; the addresses of v1 are parsed here rather than by the
 * platform (inet_pton), so that the fuzz target covers them too and
 * make prove shows them free of runtime errors (docs/assurance.md).
 */
#include <stdio.h>
#include <string.h>

#include "httpchar.h"
#include "proxyin.h"

const unsigned char proxyin_v2sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00,
	0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };

#define V2_LOCAL	0x0
#define V2_PROXY	0x1
#define V2_TCP4		0x11	/* AF_INET, STREAM */
#define V2_TCP6		0x21
#define V2_UNIX		0x31
#define V2_UNSPEC	0x00

static const char *const reasons[PROXYIN_E_COUNT] = {
	"ok", "proxy-incomplete", "proxy-missing", "proxy-v1-too-long",
	"proxy-v1-syntax", "proxy-v1-address", "proxy-v2-version",
	"proxy-v2-family", "proxy-v2-short", "proxy-v2-too-long",
	"proxy-v2-tlv",
};

const char *
proxyin_strerror(int rc)
{
	return rc >= 0 && rc < PROXYIN_E_COUNT ? reasons[rc] : "proxy-bad";
}

/*
 * A decimal number of 1..maxd digits, no leading zero, at most max: the
 * spec's ports (2.1, "no leading zero") and a prefix length.
 */
static int
dec(const char *s, size_t len, size_t maxd, unsigned max, unsigned *out)
{
	unsigned n = 0;

	if (len == 0 || len > maxd || (s[0] == '0' && len > 1))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		n = n * 10 + (unsigned)(s[i] - '0');
	}
	if (n > max)
		return -1;
	*out = n;
	return 0;
}

/*
 * Dotted-quad IPv4 in s[from..len), each part decimal without a leading
 * zero.  An index from s, not a pointer past it: the analyser (make
 * prove) then sees that every read stays below len.
 */
static int
parse_v4(const char *s, size_t from, size_t len, uint8_t out[4])
{
	size_t i = from, j;
	unsigned v = 0;

	for (int k = 0; k < 4; k++) {
		/*@ loop widen_hints j, PROXYIN_V1_MAX; */
		for (j = i; j < len && s[j] != '.'; j++)
			;
		if (dec(s + i, j - i, 3, 255, &v) < 0)
			return -1;
		out[k] = (uint8_t)v;
		if (k < 3 && j == len)
			return -1;
		i = j + 1;
	}
	return j == len ? 0 : -1;
}

/*
 * RFC 4291 2.2 text: eight groups of 1-4 hex digits, one "::" for a
 * run of zero groups, the last 32 bits optionally dotted-quad.
 */
static int
parse_v6(const char *s, size_t len, uint8_t out[16])
{
	unsigned w[8] = { 0 };
	int nw = 0, gap = -1;
	size_t i = 0, j;
	uint8_t q[4] = { 0 };

	if (len >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
	}
	while (i < len) {
		unsigned v = 0;

		for (j = i; j < len && j - i < 5 && hexval(s[j]) >= 0; j++)
			v = v * 16 + (unsigned)hexval(s[j]);
		if (j < len && s[j] == '.') {
			if (nw > 6 || parse_v4(s, i, len, q) < 0)
				return -1;
			w[nw++] = (unsigned)q[0] << 8 | q[1];
			w[nw++] = (unsigned)q[2] << 8 | q[3];
			break;
		}
		if (j == i || j - i > 4 || nw == 8)
			return -1;
		w[nw++] = v;
		i = j;
		if (i == len)
			break;
		if (s[i++] != ':' || i == len)
			return -1;
		if (s[i] == ':') {
			if (gap >= 0)
				return -1;
			gap = nw;
			i++;
		}
	}
	if (gap < 0 ? nw != 8 : nw > 7)
		return -1;
	memset(out, 0, 16);
	for (int k = 0; k < nw; k++) {
		size_t at = (size_t)(gap < 0 || k < gap ? k : 8 - nw + k);

		out[2 * at] = (uint8_t)(w[k] >> 8);
		out[2 * at + 1] = (uint8_t)w[k];
	}
	return 0;
}

/*
 * v1: "PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\n", or "PROXY
 * UNKNOWN" and anything up to CRLF.  The whole line is at most 107
 * bytes, so CR is at offset 105 at the latest (proxy-protocol.txt 2.1:
 * the worst case, TCP6 with both addresses and ports at their longest).
 * A bare LF is refused, not taken for the end: the spec says CRLF.
 */
static int
parse_v1(const unsigned char *buf, size_t len, struct proxyin_hdr *h)
{
	const char *l = (const char *)buf, *f[4];
	size_t cr, fl[4], at, n;
	int tcp6;

	if (memcmp(buf, "PROXY ", len < 6 ? len : 6) != 0)
		return PROXYIN_E_MISSING;
	for (cr = 0; cr < len && cr < PROXYIN_V1_MAX - 1; cr++)
		if (buf[cr] == '\r' || buf[cr] == '\n')
			break;
	if (cr == PROXYIN_V1_MAX - 1)
		return PROXYIN_E_V1_LONG;
	if (cr < len && buf[cr] == '\n')
		return PROXYIN_E_V1_SYNTAX;
	if (cr + 1 >= len)
		return PROXYIN_MORE;
	if (buf[cr + 1] != '\n' || cr < 6)
		return PROXYIN_E_V1_SYNTAX;
	memset(h, 0, sizeof(*h));
	h->len = cr + 2;
	if (cr >= 13 && memcmp(l + 6, "UNKNOWN", 7) == 0 &&
	    (cr == 13 || l[13] == ' '))
		return PROXYIN_OK;
	if (cr < 11 || (memcmp(l + 6, "TCP4 ", 5) != 0 &&
	    memcmp(l + 6, "TCP6 ", 5) != 0))
		return PROXYIN_E_V1_SYNTAX;
	tcp6 = l[9] == '6';
	/* Four fields, single spaces between them, none empty. */
	at = 11;
	for (int k = 0; k < 4; k++) {
		/*@ loop widen_hints n, PROXYIN_V1_MAX; */
		for (n = at; n < cr && l[n] != ' '; n++)
			;
		if (n == at || (k < 3 && n == cr) || (k == 3 && n != cr))
			return PROXYIN_E_V1_SYNTAX;
		f[k] = l + at;
		fl[k] = n - at;
		at = n + 1;
	}
	if (dec(f[2], fl[2], 5, 65535, &h->sport) < 0 ||
	    dec(f[3], fl[3], 5, 65535, &h->dport) < 0)
		return PROXYIN_E_V1_SYNTAX;
	if (tcp6 ? parse_v6(f[0], fl[0], h->src) < 0 ||
	    parse_v6(f[1], fl[1], h->dst) < 0 :
	    parse_v4(f[0], 0, fl[0], h->src) < 0 ||
	    parse_v4(f[1], 0, fl[1], h->dst) < 0)
		return PROXYIN_E_V1_ADDRESS;
	h->alen = tcp6 ? 16 : 4;
	return PROXYIN_OK;
}

/*
 * v2 (proxy-protocol.txt 2.2): the signature, version and command,
 * family, a 16-bit length, then that many bytes: the addresses (12 for
 * TCP4: two addresses, two ports; 36 for TCP6; 216 for UNIX, two
 * 108-byte paths), then TLVs (type, 16-bit length, value) to
 * the end.  Every TLV is walked so that one claiming more than the
 * header holds is refused, though none is used.
 */
static int
parse_v2(const unsigned char *buf, size_t len, struct proxyin_hdr *h)
{
	size_t total, ab = 0, off, tl;
	unsigned cmd, fam;

	if (memcmp(buf, proxyin_v2sig, len < 12 ? len : 12) != 0)
		return PROXYIN_E_MISSING;
	if (len < 13)
		return PROXYIN_MORE;
	cmd = buf[12] & 0x0f;
	if ((buf[12] >> 4) != 2 || (cmd != V2_LOCAL && cmd != V2_PROXY))
		return PROXYIN_E_V2_VERSION;
	if (len < 16)
		return PROXYIN_MORE;
	fam = buf[13];
	total = 16 + ((size_t)buf[14] << 8 | buf[15]);
	if (total > PROXYIN_MAX)
		return PROXYIN_E_V2_LONG;
	/* LOCAL: the family and what follows are to be ignored. */
	if (cmd == V2_PROXY) {
		ab = fam == V2_TCP4 ? 12 : fam == V2_TCP6 ? 36 :
		    fam == V2_UNIX ? 216 : 0;
		if (ab == 0 && fam != V2_UNSPEC)
			return PROXYIN_E_V2_FAMILY;
		if (total - 16 < ab)
			return PROXYIN_E_V2_SHORT;
	}
	if (len < total)
		return PROXYIN_MORE;
	memset(h, 0, sizeof(*h));
	h->len = total;
	if (cmd == V2_LOCAL) {
		h->local = 1;
		return PROXYIN_OK;
	}
	/* UNSPEC: the receiver ignores the rest (no addresses, no TLVs). */
	if (fam == V2_UNSPEC)
		return PROXYIN_OK;
	for (off = 16 + ab; off < total; off += 3 + tl) {
		if (off + 3 > total)
			return PROXYIN_E_V2_TLV;
		tl = (size_t)buf[off + 1] << 8 | buf[off + 2];
		if (tl > total - off - 3)
			return PROXYIN_E_V2_TLV;
	}
	if (fam == V2_UNIX)
		return PROXYIN_OK;
	h->alen = fam == V2_TCP4 ? 4 : 16;
	memcpy(h->src, buf + 16, h->alen);
	memcpy(h->dst, buf + 16 + h->alen, h->alen);
	off = 16 + 2 * h->alen;
	h->sport = (unsigned)buf[off] << 8 | buf[off + 1];
	h->dport = (unsigned)buf[off + 2] << 8 | buf[off + 3];
	return PROXYIN_OK;
}

/*
 * The first byte decides (2.1, 2.2: 'P', or v2's CR, which no other
 * protocol here begins with); a TLS record's 0x16 is MISSING at once,
 * so a client that skipped its balancer is refused without waiting.
 */
int
proxyin_parse(const unsigned char *buf, size_t len, struct proxyin_hdr *h)
{
	if (len == 0)
		return PROXYIN_MORE;
	if (buf[0] == 'P')
		return parse_v1(buf, len, h);
	if (buf[0] == proxyin_v2sig[0])
		return parse_v2(buf, len, h);
	return PROXYIN_E_MISSING;
}

const char *
proxyin_net_parse(struct proxyin_net *n, const char *s, size_t len)
{
	size_t slash = 0;
	unsigned bits;

	while (slash < len && s[slash] != '/')
		slash++;
	memset(n, 0, sizeof(*n));
	n->len = parse_v4(s, 0, slash, n->ip) == 0 ? 4 :
	    parse_v6(s, slash, n->ip) == 0 ? 16 : 0;
	if (n->len == 0)
		return "not an IPv4 or IPv6 address";
	bits = 8u * n->len;
	if (slash < len && dec(s + slash + 1, len - slash - 1, 3, bits,
	    &bits) < 0)
		return n->len == 4 ? "prefix length must be 0 to 32" :
		    "prefix length must be 0 to 128";
	n->bits = (unsigned char)bits;
	for (unsigned i = bits; i < 8u * n->len; i++)
		if (n->ip[i / 8] & (0x80 >> (i % 8)))
			return "address bits set past the prefix length";
	return NULL;
}

/* The first bits of ip equal the prefix's: whole bytes, then a mask. */
static int
in_net(const struct proxyin_net *p, const uint8_t *ip, size_t iplen)
{
	unsigned full = p->bits / 8u, rest = p->bits % 8u;

	return p->len == iplen && memcmp(p->ip, ip, full) == 0 &&
	    (rest == 0 || ((p->ip[full] ^ ip[full]) & (0xff00u >> rest)) == 0);
}

int
proxyin_trusted(const struct proxyin_net *nets, unsigned n,
    const uint8_t *ip, size_t iplen)
{
	/* ::ffff:a.b.c.d (RFC 4291 2.5.5.2): v4 on a dual-stack socket. */
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff };
	int v4 = iplen == 16 && memcmp(ip, mapped, 12) == 0;

	for (unsigned k = 0; k < n; k++)
		if (in_net(&nets[k], ip, iplen) ||
		    (v4 && in_net(&nets[k], ip + 12, 4)))
			return 1;
	return 0;
}

void
proxyin_net_str(const struct proxyin_net *p, char *buf, size_t cap)
{
	int best = -1, blen = 1, run = 0, n = 0;
	unsigned g[8];

	if (p->len == 4)
		n = snprintf(buf, cap, "%u.%u.%u.%u", p->ip[0], p->ip[1],
		    p->ip[2], p->ip[3]);
	else {
		/* RFC 5952: the longest run of two or more zero groups. */
		for (int i = 0; i < 8; i++) {
			g[i] = (unsigned)p->ip[2 * (size_t)i] << 8 |
			    p->ip[2 * (size_t)i + 1];
			run = g[i] == 0 ? run + 1 : 0;
			if (run > blen) {
				blen = run;
				best = i - run + 1;
			}
		}
		for (int i = 0; i < 8 && n >= 0 && (size_t)n < cap; i++) {
			if (i == best) {
				n += snprintf(buf + n, cap - (size_t)n, "::");
				i += blen - 1;
				continue;
			}
			n += snprintf(buf + n, cap - (size_t)n, "%x%s", g[i],
			    i < 7 && i + 1 != best ? ":" : "");
		}
	}
	if (n >= 0 && (size_t)n < cap && p->bits != 8 * p->len)
		(void)snprintf(buf + n, cap - (size_t)n, "/%u", p->bits);
}
