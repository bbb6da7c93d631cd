/* SPDX-License-Identifier: ISC */
/*
 * hello.c - see hello.h.  Two walkers: hello_classify() reads the
 * hello through its record headers with a cursor (it only looks; the
 * records are joined afterwards), hello_parse() reads the joined message
 * strictly.  Every length is checked against what encloses it before
 * anything it covers is read.
 */
#include <string.h>

#include "hello.h"
#include "httpchar.h"
#include "tlswire.h"

#define UNEXPECTED_MESSAGE	BR_ALERT_UNEXPECTED_MESSAGE
#define HANDSHAKE_FAILURE	BR_ALERT_HANDSHAKE_FAILURE
#define ILLEGAL_PARAMETER	BR_ALERT_ILLEGAL_PARAMETER
#define RECORD_OVERFLOW		BR_ALERT_RECORD_OVERFLOW
#define DECODE_ERROR		BR_ALERT_DECODE_ERROR
#define PROTOCOL_VERSION	BR_ALERT_PROTOCOL_VERSION
#define MISSING_EXTENSION	ALERT_MISSING_EXTENSION

#define REC_MAX		16384		/* a plaintext record's body */
#define SCSV		0x5600		/* TLS_FALLBACK_SCSV, RFC 7507 */
#define RENEG_SCSV	0x00ff		/* RFC 5746 3.3 */

/*
 * The classifier's cursor over a handshake message spread over records
 * already checked to hold all of it: at is the next byte of buf, frag
 * what is left of its record, left what is left of the message.
 */
struct rd {
	const unsigned char	*b;
	size_t			 at, frag, left;
	size_t			 end;		/* the records' end in b, >= 5 */
	int			 bad;		/* read past the message */
};

/*
 * Past record headers (of empty records too) to the next byte.  The
 * records were checked to hold the message, so the callers' at >= end
 * never holds; it keeps each read inside them without that argument.
 */
static void
next(struct rd *r)
{
	while (r->frag == 0 && r->at <= r->end - 5) {
		r->frag = tw_get16(r->b + r->at + 3);
		r->at += 5;
	}
}

/* The next n bytes (n <= 3), big-endian; 0 and bad past the end. */
static size_t
rd_get(struct rd *r, int n)
{
	size_t v = 0;

	for (; n > 0; n--) {
		next(r);
		if (r->left == 0 || r->at >= r->end) {
			r->bad = 1;
			return 0;
		}
		v = v << 8 | r->b[r->at++];
		r->frag--;
		r->left--;
	}
	return v;
}

/* Skip n bytes, a record's worth at a time (extensions are long). */
static void
rd_skip(struct rd *r, size_t n)
{
	size_t k;

	if (n > r->left) {
		r->bad = 1;
		return;
	}
	r->left -= n;
	while (n > 0) {
		next(r);
		if (r->at >= r->end) {
			r->bad = 1;
			return;
		}
		k = n < r->frag ? n : r->frag;
		r->at += k;
		r->frag -= k;
		n -= k;
	}
}

/*
 * Whether a whole hello of len bytes is framed well, up to its
 * extensions' own lengths: 0, or -1 (hello_parse() reads the rest).
 */
static int
framed(struct rd *r)
{
	size_t n;

	rd_skip(r, 4 + 2 + 32);			/* header, version, random */
	rd_skip(r, rd_get(r, 1));		/* legacy_session_id */
	n = rd_get(r, 2);
	if (n % 2 != 0)
		return -1;
	rd_skip(r, n);				/* cipher_suites */
	rd_skip(r, rd_get(r, 1));		/* compression methods */
	if (r->left > 0) {			/* the extensions' length */
		n = rd_get(r, 2);
		if (n != r->left)
			return -1;
	}
	while (r->left > 0 && !r->bad) {
		rd_skip(r, 2);
		n = rd_get(r, 2);
		if (n > r->left)
			return -1;
		rd_skip(r, n);
	}
	return r->bad ? -1 : 0;
}

static int
refuse(struct hello_peek *pk, unsigned alert)
{
	pk->alert = alert;
	return HELLO_ALERT;
}

/*
 * Not all there: nothing can be judged before want bytes.  The buffer
 * full before the hello is whole: too large for us.
 */
static int
more(size_t len, size_t cap, size_t want, struct hello_peek *pk)
{
	if (len >= cap)
		return refuse(pk, HANDSHAKE_FAILURE);
	pk->want = want;
	return HELLO_MORE;
}

int
hello_classify(const unsigned char *b, size_t len, size_t cap,
    struct hello_peek *pk)
{
	unsigned char head[4] = { 0 };
	size_t at, e, q, rl, hn = 0, got = 0, need = 0;
	struct rd c;
	int empty = 0;

	memset(pk, 0, sizeof(*pk));
	/* Whole records, until they hold the message its header announces. */
	for (at = 0; need == 0 || got < need; at = e) {
		if (at + 5 > len)	/* the next header, whole */
			return more(len, cap, at + 5, pk);
		/* An SSL 2.0 hello's header has the top bit set. */
		if (b[at] & 0x80)
			return refuse(pk, PROTOCOL_VERSION);
		if (b[at] != 22)
			return refuse(pk, UNEXPECTED_MESSAGE);
		if (b[at + 1] != 3)
			return refuse(pk, PROTOCOL_VERSION);
		if ((rl = tw_get16(b + at + 3)) > REC_MAX)
			return refuse(pk, RECORD_OVERFLOW);
		e = at + 5 + rl;
		/* The message's header, hn bytes of it so far. */
		for (q = at + 5; hn < 4 && q < e && q < len; q++)
			head[hn++] = b[q];
		if (need == 0 && hn == 4) {
			if (head[0] != 1)	/* not a ClientHello */
				return refuse(pk, UNEXPECTED_MESSAGE);
			need = 4 + tw_get24(head + 1);
			if (need > 4 + HELLO_MAX)
				return refuse(pk, DECODE_ERROR);
			if (cap < 5 || need > cap - 5)
				return refuse(pk, HANDSHAKE_FAILURE);
			pk->wire = need + 5 * ((need + REC_MAX - 1) / REC_MAX);
		}
		/* Its end; the message's header byte by byte. */
		if (e > len)
			return more(len, cap, need ? e : len + 1, pk);
		empty |= rl == 0;
		got += rl;
	}
	c = (struct rd){ b, 5, tw_get16(b + 3), need, at, 0 };
	pk->wire = 0;
	if (framed(&c) < 0)
		return refuse(pk, DECODE_ERROR);
	pk->end = at;
	/* RFC 5246 6.2.1, RFC 8446 5.1: nothing else in its records. */
	if (got > need || empty)
		return refuse(pk, UNEXPECTED_MESSAGE);
	return HELLO_WHOLE;
}

size_t
hello_defrag(unsigned char *b, size_t end)
{
	size_t at, q, rl, w = 5;

	/*
	 * Forward, byte by byte: w never passes q (the first: in place), so
	 * w < end is true; it bounds the write without that argument.
	 */
	for (at = 0; at + 5 <= end; at = q) {
		rl = tw_get16(b + at + 3);
		for (q = at + 5; q < at + 5 + rl && q < end && w < end; q++)
			b[w++] = b[q];
	}
	return end < 5 ? 0 : w - 5;
}

static unsigned
bad(struct hello *h, unsigned alert, const char *why)
{
	h->why = why;
	return alert;
}

/*
 * The vector at *p inside m[..end): a w-byte length (1 or 2), then its
 * body, whose offset goes to *at and length to *n; *p moves past it.
 * -1, with *p as it was and an empty body at it, if it does not fit
 * in end or its length is outside [lo, hi].  *p <= end.
 */
static int
vec(const unsigned char *m, size_t *p, size_t end, int w, size_t lo,
    size_t hi, size_t *at, size_t *n)
{
	size_t k, e;

	*at = *p;
	*n = 0;
	if (*p + (size_t)w > end)
		return -1;
	k = w == 1 ? m[*p] : tw_get16(m + *p);
	if (k < lo || k > hi || (e = *p + (size_t)w + k) > end)
		return -1;
	*at = *p + (size_t)w;
	*n = k;
	*p = e;
	return 0;
}

/* A list of 16-bit values filling m[p..end) exactly, after its length. */
static int
list16(const unsigned char *m, size_t p, size_t end, size_t *at, size_t *n)
{
	return vec(m, &p, end, 2, 2, 0xfffe, at, n) != 0 || *n % 2 != 0 ||
	    p != end ? -1 : 0;
}

/*
 * The extensions read: a hello's exts has bit i for exts[i], in no order
 * but that of the engine's look-ups (hello_ext()), most asked first.  v:
 * the versions that use it.  One TLS 1.2 alone uses is judged only when
 * 1.2 is chosen (struct hello's alert12), as OpenSSL does: a TLS 1.3
 * hello may carry any bytes in it.
 */
#define V12	1
#define V13	2
static const struct {
	unsigned	code;
	int		v;
} exts[] = {
	{ EXT_EC_POINT_FORMATS, V12 }, { EXT_EXTENDED_MASTER_SECRET, V12 },
	{ EXT_SESSION_TICKET, V12 }, { EXT_RENEGOTIATION_INFO, V12 },
	{ EXT_SUPPORTED_GROUPS, V12 | V13 },
	{ EXT_SIGNATURE_ALGORITHMS, V12 | V13 },
	{ EXT_PRE_SHARED_KEY, V13 }, { EXT_EARLY_DATA, V13 },
	{ EXT_PSK_KEY_EXCHANGE_MODES, V13 }, { EXT_KEY_SHARE, V13 },
	{ EXT_SUPPORTED_VERSIONS, V12 | V13 },	/* what says 1.3 */
	{ EXT_SERVER_NAME, V12 | V13 }, { EXT_MAX_FRAGMENT_LENGTH, V12 | V13 },
	{ EXT_ALPN, V12 | V13 }, { EXT_COOKIE, V13 },
};
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
_Static_assert(NELEM(exts) <= 32, "struct hello's exts has a bit for each");

/* The row of an extension in exts[], -1 for one not read. */
static int
ext_row(size_t code)
{
	for (size_t i = 0; i < NELEM(exts); i++)
		if (exts[i].code == code)
			return (int)i;
	return -1;
}

unsigned
hello_ext(unsigned code)
{
	return ext_row(code) < 0 ? 0 : 1u << ext_row(code);
}

unsigned
hello_group(unsigned code)
{
	const struct tls_group *gr = tls_group_find(code);

	return gr != NULL ? 1u << (gr - tls_groups) : 0;
}

unsigned
hello_sig(unsigned code)
{
	const struct tls_sig *sg = tls_sig(code);

	return sg != NULL ? 1u << (sg - tls_sigs) : 0;
}

/* The bit of suite s's code of kind k (TS_*). */
static unsigned
suite_bit(const struct tls_suite *s, int k)
{
	return 1u << ((size_t)(s - tls_suites) +
	    (k == TS_13 ? 0 : TLS_NSUITES * (size_t)k));
}

unsigned
hello_suite(unsigned code)
{
	int k;
	const struct tls_suite *s = tls_suite_find(code, &k);

	return s != NULL ? suite_bit(s, k) : 0;
}

/* server_name's body: host names only, one, 255 bytes at most. */
static unsigned
sni(const unsigned char *m, size_t p, size_t end, struct hello *h)
{
	size_t at, n, k, i, e;

	if (vec(m, &p, end, 2, 1, 0xffff, &at, &n) || p != end)
		return bad(h, DECODE_ERROR, "bad-sni");
	for (i = at; i < end; i = e) {
		if (i + 3 > end || (k = tw_get16(m + i + 1)) == 0 ||
		    (e = i + 3 + k) > end)
			return bad(h, DECODE_ERROR, "bad-sni");
		if (m[i] != 0)			/* not host_name */
			continue;
		i += 3;
		if (h->host != 0)
			return bad(h, ILLEGAL_PARAMETER, "two-sni-host-names");
		if (k > 255)
			return bad(h, ILLEGAL_PARAMETER, "sni-too-long");
		for (size_t j = i; j < e; j++)
			if (!is_alnum(m[j]) && m[j] != '-' && m[j] != '.' &&
			    m[j] != '_')
				return bad(h, ILLEGAL_PARAMETER,
				    "sni-not-a-host-name");
		h->host = i;
		h->host_len = k;
	}
	return 0;
}

/* ALPN's body: a list of non-empty names filling it exactly. */
static unsigned
alpn(const unsigned char *m, size_t p, size_t end, struct hello *h)
{
	size_t at, n;

	if (vec(m, &p, end, 2, 2, 0xffff, &h->alpn, &h->alpn_len) || p != end)
		return bad(h, DECODE_ERROR, "bad-alpn");
	for (p = h->alpn; p < end; ) {
		if (vec(m, &p, end, 1, 1, 255, &at, &n))
			return bad(h, DECODE_ERROR, "bad-alpn");
		/* p == at + n: the read stays in the name. */
		h->alpn_http11 |= n == 8 && p >= 8 &&
		    memcmp(m + p - 8, "http/1.1", 8) == 0;
	}
	return 0;
}

/* pre_shared_key's body: OfferedPsks, RFC 8446 4.2.11. */
static unsigned
psk(const unsigned char *m, size_t p, size_t end, struct hello *h)
{
	size_t at, n, q, nb = 0;

	if (vec(m, &p, end, 2, 7, 0xffff, &h->psk_ids, &h->psk_ids_len))
		return bad(h, DECODE_ERROR, "bad-psk");
	for (q = h->psk_ids; q < p; q += 4, h->psk_count++)
		if (vec(m, &q, p, 2, 1, 0xffff, &at, &n) || p - q < 4)
			return bad(h, DECODE_ERROR, "bad-psk-identity");
	if (vec(m, &p, end, 2, 33, 0xffff, &q, &n) || p != end)
		return bad(h, DECODE_ERROR, "bad-psk-binders");
	h->psk_binders = q - 2;
	for (; q < end; nb++)
		if (vec(m, &q, end, 1, 32, 255, &at, &n))
			return bad(h, DECODE_ERROR, "bad-psk-binder");
	if (nb != h->psk_count)
		return bad(h, ILLEGAL_PARAMETER, "psk-binder-count");
	return 0;
}

/*
 * key_share's body, once supported_groups is known (m[g..ge): its list).
 * RFC 8446 4.2.8: a share is for a group of supported_groups, in the
 * same order, once.  One pass over both lists checks all three.
 */
static unsigned
shares(const unsigned char *m, size_t p, size_t end, size_t g, size_t ge,
    struct hello *h)
{
	const struct tls_group *gr;
	size_t at, n, grp, j = g;

	if (vec(m, &p, end, 2, 0, 0xffff, &at, &n) || p != end)
		return bad(h, DECODE_ERROR, "bad-key-share");
	for (p = at; p < end; ) {
		if (p + 2 > end)
			return bad(h, DECODE_ERROR, "bad-key-share");
		grp = tw_get16(m + p);
		p += 2;
		/* Empty is a share of the wrong size: illegal_parameter. */
		if (vec(m, &p, end, 2, 0, 0xffff, &at, &n))
			return bad(h, DECODE_ERROR, "bad-key-share");
		while (j + 2 <= ge && tw_get16(m + j) != grp)
			j += 2;
		if (j + 2 > ge)
			return bad(h, ILLEGAL_PARAMETER, "share-not-in-groups");
		j += 2;
		if ((gr = tls_group_find((unsigned)grp)) == NULL)
			continue;
		if (h->shares & 1u << (gr - tls_groups))
			return bad(h, ILLEGAL_PARAMETER, "two-shares-a-group");
		h->shares |= 1u << (gr - tls_groups);
		if (n != gr->share || (gr->point && (at >= end || m[at] != 4)))
			return bad(h, ILLEGAL_PARAMETER, gr->why);
		h->share_at[gr - tls_groups] = at;
	}
	return 0;
}

/*
 * RFC 8446 4.2.7: the groups of TLS 1.2 and before that TLS 1.3 ruled
 * out "MUST NOT be offered": in a 1.3 hello, illegal_parameter (a share
 * needs its group listed, so this covers key_share too).
 */
static int
obsolete(size_t g)
{
	return (g >= 0x0001 && g <= 0x0016) || (g >= 0x001a && g <= 0x001c) ||
	    g == 0xff01 || g == 0xff02;
}

/* One extension's body m[p..end), of type t. */
static unsigned
ext(const unsigned char *m, size_t t, size_t p, size_t end,
    struct hello *h)
{
	size_t at, n, i;

	switch (t) {
	case EXT_SERVER_NAME:
		return sni(m, p, end, h);
	case EXT_SUPPORTED_GROUPS:
	case EXT_SIGNATURE_ALGORITHMS:
		if (list16(m, p, end, &at, &n))
			return bad(h, DECODE_ERROR, "bad-groups-or-sigalgs");
		for (i = at; i + 2 <= end; i += 2) {
			unsigned v = (unsigned)tw_get16(m + i);

			if (t == EXT_SUPPORTED_GROUPS && obsolete(v))
				h->obsolete = 1;
			else if (t == EXT_SUPPORTED_GROUPS)
				h->groups |= hello_group(v);
			else
				h->sigalgs |= hello_sig(v);
		}
		return 0;
	case EXT_ALPN:
		return alpn(m, p, end, h);
	case EXT_PRE_SHARED_KEY:
		return psk(m, p, end, h);
	case EXT_EARLY_DATA:
		return p != end ? bad(h, DECODE_ERROR, "bad-early-data") : 0;
	case EXT_SUPPORTED_VERSIONS:
		if (vec(m, &p, end, 1, 2, 254, &at, &n) || n % 2 != 0 ||
		    p != end)
			return bad(h, DECODE_ERROR, "bad-supported-versions");
		for (i = at; i + 2 <= end; i += 2) {
			h->v13 |= tw_get16(m + i) == TLS13;
			h->v12 |= tw_get16(m + i) == TLS12;
		}
		return 0;
	case EXT_COOKIE:
		return vec(m, &p, end, 2, 1, 0xffff, &at, &n) || p != end ?
		    bad(h, DECODE_ERROR, "bad-cookie") : 0;
	case EXT_PSK_KEY_EXCHANGE_MODES:
		if (vec(m, &p, end, 1, 1, 255, &at, &n) || p != end)
			return bad(h, DECODE_ERROR, "bad-psk-modes");
		for (i = at; i < end; i++)
			h->psk_dhe_ke |= m[i] == 1;
		return 0;
	case EXT_EC_POINT_FORMATS:	/* RFC 8422 5.1.2 */
		if (vec(m, &p, end, 1, 1, 255, &at, &n) || p != end)
			return bad(h, DECODE_ERROR, "bad-point-formats");
		for (i = at; i < end; i++)
			h->ecpf_uncompressed |= m[i] == 0;
		return 0;
	case EXT_MAX_FRAGMENT_LENGTH:	/* RFC 6066 4: 2^9 .. 2^12 */
		if (p + 1 != end)
			return bad(h, DECODE_ERROR, "bad-max-fragment-length");
		if (m[p] < 1 || m[p] > 4)
			return bad(h, ILLEGAL_PARAMETER, "bad-max-fragment-length");
		h->mfl = m[p];
		return 0;
	case EXT_SESSION_TICKET:	/* RFC 5077 3.2: opaque, any length */
		h->ticket = p;
		h->ticket_len = end - p;
		return 0;
	case EXT_EXTENDED_MASTER_SECRET:	/* RFC 7627 5.1: empty */
		return p != end ? bad(h, DECODE_ERROR, "bad-ems") : 0;
	case EXT_RENEGOTIATION_INFO:	/* RFC 5746 3.2 */
		if (vec(m, &p, end, 1, 0, 255, &at, &n) || p != end)
			return bad(h, DECODE_ERROR, "bad-renegotiation-info");
		h->reneg_bad = n != 0;
		return 0;
	}
	return 0;		/* key_share waits for the walk's end */
}

/*
 * A hello that does not offer TLS 1.3: one for TLS 1.2, if its version
 * fields say so (RFC 8446 4.2.1, D.2); supported_versions, if there,
 * must list 1.2.
 */
static unsigned
hello12(struct hello *h)
{
	if (h->alert12 != 0)
		return bad(h, h->alert12, h->why12);
	if ((h->exts & hello_ext(EXT_SUPPORTED_VERSIONS)) ? !h->v12 :
	    h->legacy_version < TLS12)
		return bad(h, PROTOCOL_VERSION, "version-below-1.2");
	return 0;
}

unsigned
hello_parse(const unsigned char *m, size_t len, struct hello *h)
{
	size_t p, end = len, at, n, i, t, g = 0, gn = 0, ge = 0, ks = 0, ke = 0;
	unsigned b, a;
	int comp_null, comp_only, row, k = 0;
	const struct tls_suite *s;

	memset(h, 0, sizeof(*h));
	if (len < 4 + 2 + 32 || m[0] != 1 || tw_get24(m + 1) != len - 4)
		return bad(h, DECODE_ERROR, "bad-hello-length");
	h->legacy_version = (unsigned)tw_get16(m + 4);
	h->random = 6;
	p = 6 + 32;
	if (vec(m, &p, end, 1, 0, 32, &h->sid, &h->sid_len))
		return bad(h, DECODE_ERROR, "bad-session-id");
	if (vec(m, &p, end, 2, 2, 0xfffe, &at, &n) || n % 2 != 0)
		return bad(h, DECODE_ERROR, "bad-cipher-suites");
	for (i = at; i + 2 <= p; i += 2) {
		t = tw_get16(m + i);
		if ((s = tls_suite_find((unsigned)t, &k)) != NULL)
			*(k == TS_13 ? &h->suites : &h->suites12) |=
			    suite_bit(s, k);
		h->scsv |= t == SCSV;
		h->reneg_scsv |= t == RENEG_SCSV;
	}
	if (vec(m, &p, end, 1, 1, 255, &at, &n))
		return bad(h, DECODE_ERROR, "bad-compression");
	/* TLS 1.2 takes a list with null in it, TLS 1.3 null alone. */
	comp_null = memchr(m + at, 0, n) != NULL;
	comp_only = n == 1 && comp_null;
	if (!comp_null)
		return bad(h, ILLEGAL_PARAMETER, "compression-not-null");
	if (p == end)		/* no extensions: TLS 1.2 */
		return hello12(h);
	if (vec(m, &p, end, 2, 0, 0xffff, &at, &n) || p != end)
		return bad(h, DECODE_ERROR, "bad-extensions");
	for (p = at; p < end; ) {		/* vec() moves p */
		if (p + 4 > end)
			return bad(h, DECODE_ERROR, "bad-extensions");
		t = tw_get16(m + p);
		p += 2;
		if (vec(m, &p, end, 2, 0, 0xffff, &at, &n))
			return bad(h, DECODE_ERROR, "bad-extension-length");
		if ((row = ext_row(t)) < 0)
			continue;
		if (h->exts & 1u << row)
			return bad(h, ILLEGAL_PARAMETER, "duplicate-extension");
		h->exts |= 1u << row;
		if (t == EXT_PRE_SHARED_KEY && p != end)
			return bad(h, ILLEGAL_PARAMETER, "psk-not-last");
		if (t == EXT_SUPPORTED_GROUPS && list16(m, at, p, &g, &gn) == 0)
			ge = p;
		if (t == EXT_KEY_SHARE) {
			ks = at;
			ke = p;
		}
		if ((a = ext(m, t, at, p, h)) == 0)
			continue;
		if (exts[row].v != V12)
			return a;
		if (h->alert12 == 0) {
			h->alert12 = a;
			h->why12 = h->why;
		}
		h->why = NULL;
	}
	if (!h->v13)
		return hello12(h);
	if (!comp_only)
		return bad(h, ILLEGAL_PARAMETER, "compression-not-null");
	if (h->obsolete)
		return bad(h, ILLEGAL_PARAMETER, "obsolete-group");
	if (h->legacy_version < TLS12)
		return bad(h, PROTOCOL_VERSION, "legacy-version-below-1.2");
	/* RFC 8446 9.2 and 4.2.9. */
	a = hello_ext(EXT_SUPPORTED_GROUPS) | hello_ext(EXT_KEY_SHARE);
	b = h->exts & a;
	if (b != 0 && b != a)
		return bad(h, MISSING_EXTENSION, "groups-and-key-share-unpaired");
	if (!(h->exts & hello_ext(EXT_PRE_SHARED_KEY)) &&
	    (!(h->exts & hello_ext(EXT_SIGNATURE_ALGORITHMS)) || b == 0))
		return bad(h, MISSING_EXTENSION, "no-psk-no-sigalgs-or-groups");
	if ((h->exts & hello_ext(EXT_PRE_SHARED_KEY)) &&
	    !(h->exts & hello_ext(EXT_PSK_KEY_EXCHANGE_MODES)))
		return bad(h, MISSING_EXTENSION, "psk-without-modes");
	return b != 0 ? shares(m, ks, ke, g, ge, h) : 0;
}

size_t
hello_share(const struct hello *h, unsigned group)
{
	const struct tls_group *gr = tls_group_find(group);

	return gr != NULL ? h->share_at[gr - tls_groups] : 0;
}

unsigned
hello_choose_group(const struct hello *h, const unsigned *pref, size_t n,
    unsigned *group)
{
	for (unsigned hrr = 0; hrr < 2; hrr++)
		for (size_t i = 0; i < n; i++) {
			unsigned b = hello_group(pref[i]);

			if (b != 0 && ((hrr ? h->groups : h->shares) & b)) {
				*group = pref[i];
				return hrr ? HELLO_HRR : HELLO_SHARE;
			}
		}
	return HANDSHAKE_FAILURE;
}
