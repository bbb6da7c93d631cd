/* SPDX-License-Identifier: ISC */
/*
 * der.c - see der.h.
 *
 * A constructed element is written before its length is known: one
 * length byte is reserved, and der_close() moves the content up when
 * the length needs the long form.  Certificates are a few hundred
 * bytes, so the moves cost nothing, and the code that builds one reads
 * in the order the ASN.1 is written.
 */
#include <stdio.h>
#include <string.h>

#include "der.h"

void
der_init(struct der *d, void *buf, size_t cap)
{
	d->buf = buf;
	d->cap = cap;
	d->len = 0;
	d->err = 0;
}

void
der_raw(struct der *d, const void *p, size_t len)
{
	if (d->err || len > d->cap - d->len) {
		d->err = -1;
		return;
	}
	if (len > 0)
		memcpy(d->buf + d->len, p, len);
	d->len += len;
}

/* The length's octets, in the shortest form (X.690 10.1), into out. */
static size_t
put_len(unsigned char *out, size_t len)
{
	size_t k = 0;

	if (len < 0x80) {
		out[0] = (unsigned char)len;
		return 1;
	}
	for (size_t v = len; v > 0; v >>= 8)
		k++;
	out[0] = (unsigned char)(0x80 | k);
	for (size_t i = 1; i <= k; i++)
		out[i] = (unsigned char)(len >> (8 * (k - i)));
	return 1 + k;
}

static void
header(struct der *d, unsigned tag, size_t len)
{
	unsigned char h[2 + sizeof(size_t)];

	h[0] = (unsigned char)tag;
	der_raw(d, h, 1 + put_len(h + 1, len));
}

void
der_tlv(struct der *d, unsigned tag, const void *p, size_t len)
{
	header(d, tag, len);
	der_raw(d, p, len);
}

/*
 * A constructed value whose length is not known yet: one length byte is
 * kept, and der_close() widens it in place (X.690 10.1: DER wants the
 * shortest form, so the length cannot be reserved at its widest).
 */
size_t
der_open(struct der *d, unsigned tag)
{
	header(d, tag, 0);
	return d->err ? 0 : d->len - 1;
}

void
der_close(struct der *d, size_t mark)
{
	unsigned char h[1 + sizeof(size_t)];
	size_t len, k;

	if (d->err)
		return;
	len = d->len - mark - 1;
	k = put_len(h, len) - 1;	/* beyond the byte der_open() kept */
	if (k > d->cap - d->len) {
		d->err = -1;
		return;
	}
	memmove(d->buf + mark + 1 + k, d->buf + mark + 1, len);
	memcpy(d->buf + mark, h, 1 + k);
	d->len += k;
}

/*
 * X.690 8.3.2: no leading zero byte unless the next has its top bit set,
 * which a zero byte then keeps from reading as negative (two's
 * complement); 0 itself is one zero byte.
 */
void
der_uint(struct der *d, const void *p, size_t len)
{
	const unsigned char *b = p;
	static const unsigned char zero = 0;

	while (len > 1 && b[0] == 0) {
		b++;
		len--;
	}
	if (len == 0) {
		b = &zero;
		len = 1;
	}
	header(d, DER_INTEGER, len + (b[0] >> 7));
	if (b[0] & 0x80)
		der_raw(d, &zero, 1);
	der_raw(d, b, len);
}

/* One arc of dotted text: digits, no leading zero, at most 2^32 - 1. */
static const char *
arc(const char *s, uint32_t *v)
{
	uint64_t n = 0;
	const char *start = s;

	while (*s >= '0' && *s <= '9') {
		n = n * 10 + (uint64_t)(*s - '0');
		if (n > UINT32_MAX)
			return NULL;
		s++;
	}
	if (s == start || (s - start > 1 && *start == '0'))
		return NULL;
	*v = (uint32_t)n;
	return s;
}

void
der_oid(struct der *d, const char *dotted)
{
	unsigned char out[64];
	size_t n = 0;
	uint32_t a, b;
	const char *s = dotted;

	/* The first two arcs share one subidentifier: 40 * a + b. */
	if ((s = arc(s, &a)) == NULL || *s++ != '.' ||
	    (s = arc(s, &b)) == NULL || a > 2 || (a < 2 && b >= 40) ||
	    b > UINT32_MAX - 80) {
		d->err = -1;
		return;
	}
	b += 40 * a;
	for (;;) {
		unsigned char tmp[5];
		size_t k = 0;

		do {
			tmp[k++] = (unsigned char)(b & 0x7f);
			b >>= 7;
		} while (b > 0);
		if (k > sizeof(out) - n) {
			d->err = -1;
			return;
		}
		while (k-- > 0)
			out[n++] = (unsigned char)(tmp[k] | (k > 0 ? 0x80 : 0));
		if (*s == '\0')
			break;
		if (*s++ != '.' || (s = arc(s, &b)) == NULL) {
			d->err = -1;
			return;
		}
	}
	der_tlv(d, DER_OID, out, n);
}

void
der_bits(struct der *d, unsigned unused, const void *p, size_t len)
{
	const unsigned char *b = p;
	unsigned char u = (unsigned char)unused;

	/* DER: the padding bits are zero, and there are none without bits. */
	if (unused > 7 || (len == 0 && unused > 0) || (len > 0 &&
	    (b[len - 1] & ((1u << unused) - 1)) != 0)) {
		d->err = -1;
		return;
	}
	header(d, DER_BIT_STRING, len + 1);
	der_raw(d, &u, 1);
	der_raw(d, b, len);
}

static int
leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
mdays(int64_t y, int m)
{
	static const unsigned char n[12] = { 31, 28, 31, 30, 31, 30, 31, 31,
	    30, 31, 30, 31 };

	return n[m - 1] + (m == 2 && leap(y));
}

void
der_time(struct der *d, int64_t t)
{
	int64_t days = t / 86400, secs = t % 86400, y = 1970;
	int m = 1;
	char s[16];
	size_t n;

	/* 1950-01-01 to 9999-12-31, RFC 5280's range, and the loops' bound. */
	if (t < -631152000 || t > 253402300799) {
		d->err = -1;
		return;
	}
	if (secs < 0) {
		secs += 86400;
		days--;
	}
	/* Year by year: at most 8,000 turns, and plainly right. */
	for (; days < 0; days += 365 + leap(y))
		y--;
	for (; days >= 365 + leap(y); y++)
		days -= 365 + leap(y);
	for (; days >= mdays(y, m); m++)
		days -= mdays(y, m);
	/* UTCTime's two digits of the year up to 2049, then all four. */
	n = (size_t)snprintf(s, sizeof(s), "%0*lld%02d%02d%02d%02d%02dZ",
	    y >= 2050 ? 4 : 2, (long long)(y >= 2050 ? y : y % 100), m,
	    (int)days + 1, (int)(secs / 3600), (int)(secs / 60 % 60),
	    (int)(secs % 60));
	der_tlv(d, y >= 2050 ? DER_GENTIME : DER_UTCTIME, s, n);
}

int
der_at(const unsigned char *buf, size_t *at, size_t end, unsigned tag,
    size_t *c, size_t *cend)
{
	size_t i = *at, l, k, e;

	*c = *cend = i;		/* set on failure too: one state to analyse */
	if (i + 1 >= end || buf[i] != tag)
		return -1;
	l = buf[i + 1];
	i += 2;
	if (l >= 0x80) {
		k = l & 0x7f;
		/* Long form only when needed, no leading zero, 3 bytes at most. */
		if (k == 0 || k > 3 || i >= end || buf[i] == 0)
			return -1;
		for (l = 0; k > 0; k--, i++) {
			if (i >= end)
				return -1;
			l = l << 8 | buf[i];
		}
		if (l < 0x80)
			return -1;
	}
	/* The end kept in e, tested, then stored: Eva bounds it by end. */
	e = i + l;
	if (e > end)
		return -1;
	*c = i;
	*cend = e;
	*at = e;
	return 0;
}

int
der_get(const unsigned char **p, size_t *len, unsigned tag,
    const unsigned char **c, size_t *clen)
{
	size_t at = 0, from, to;

	if (der_at(*p, &at, *len, tag, &from, &to) < 0)
		return -1;
	*c = *p + from;
	*clen = to - from;
	*p += at;
	*len -= at;
	return 0;
}

static int
digits(const unsigned char *c, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (c[i] < '0' || c[i] > '9')
			return -1;
		v = v * 10 + (c[i] - '0');
	}
	return v;
}

int64_t
der_time_parse(unsigned tag, const unsigned char *c, size_t len)
{
	int64_t y, days;
	int mo, dd, h, mi, s;

	if (tag == DER_UTCTIME && len == 13) {
		if ((y = digits(c, 2)) < 0)
			return -1;
		y += y < 50 ? 2000 : 1900;
	} else if (tag == DER_GENTIME && len == 15) {
		y = digits(c, 4);
		c += 2;
	} else
		return -1;
	mo = digits(c + 2, 2);
	dd = digits(c + 4, 2);
	h = digits(c + 6, 2);
	mi = digits(c + 8, 2);
	s = digits(c + 10, 2);
	/* digits() is -1 for a non-digit: each range check refuses it. */
	if (y < 1950 || c[12] != 'Z' || mo < 1 || mo > 12 || dd < 1 ||
	    dd > mdays(y, mo) || h < 0 || h > 23 || mi < 0 || mi > 59 ||
	    s < 0 || s > 59)
		return -1;
	/*
	 * Days to January 1st of y: the leap years before it, less the 477
	 * before 1970.  In closed form, so that the analyser (make prove)
	 * bounds it as tightly as y.
	 */
	days = 365 * (y - 1970) + (y - 1) / 4 - (y - 1) / 100 +
	    (y - 1) / 400 - 477;
	for (int m = 1; m < mo; m++)
		days += mdays(y, m);
	days += dd - 1;
	return days * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + s;
}

int64_t
der_get_time(const unsigned char **p, size_t *len)
{
	unsigned tag = *len > 0 && **p == DER_GENTIME ? DER_GENTIME :
	    DER_UTCTIME;
	const unsigned char *c;
	size_t cl;

	if (der_get(p, len, tag, &c, &cl) < 0)
		return -1;
	return der_time_parse(tag, c, cl);
}

int
der_signed(const unsigned char *der, size_t len, struct der_signed *s)
{
	size_t at = 0, c, e, t, b, be, a, ae, g, ge;

	/* By offsets from der, as der_at() says, for the analyser. */
	if (der_at(der, &at, len, DER_SEQUENCE, &c, &e) < 0 || at != len)
		return -1;
	at = c;
	if (der_at(der, &at, e, DER_SEQUENCE, &b, &be) < 0)
		return -1;
	t = at;
	if (der_at(der, &at, e, DER_SEQUENCE, &a, &ae) < 0 ||
	    der_at(der, &at, e, DER_BIT_STRING, &g, &ge) < 0 || at != e ||
	    g + 2 > ge || der[g] != 0)
		return -1;
	s->tbs = der + c;
	s->tbslen = t - c;
	s->body = der + b;
	s->bodylen = be - b;
	s->alg = der + a;
	s->alglen = ae - a;
	s->sig = der + g + 1;
	s->siglen = ge - g - 1;
	return 0;
}
