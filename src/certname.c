/*
 * certname.c - see certname.h.
 */
#include <string.h>

#include "certname.h"

/* One DER element: tag, value, and where the next one starts. */
struct der {
	unsigned		 tag;
	const unsigned char	*val;
	size_t			 len;
};

/* Read the element at *p (before end); advances *p.  0 on bad DER. */
static int
der_next(const unsigned char **p, const unsigned char *end, struct der *d)
{
	const unsigned char *q = *p;
	size_t len = 0, n;

	if (end - q < 2)
		return 0;
	d->tag = *q++;
	n = *q++;
	if (n & 0x80) {
		n &= 0x7f;
		if (n == 0 || n > 3 || (size_t)(end - q) < n)
			return 0;
		while (n-- > 0)
			len = len << 8 | *q++;
	} else
		len = n;
	if ((size_t)(end - q) < len)
		return 0;
	d->val = q;
	d->len = len;
	*p = q + len;
	return 1;
}

/* Enter a constructed element: its contents become [*p, *end). */
static int
der_enter(const struct der *d, unsigned tag, const unsigned char **p,
    const unsigned char **end)
{
	if (d->tag != tag)
		return 0;
	*p = d->val;
	*end = d->val + d->len;
	return 1;
}

static unsigned
keep(char names[][CERTNAME_LEN], unsigned n, const unsigned char *v,
    size_t len)
{
	if (n == CERTNAME_MAX || len == 0 || len >= CERTNAME_LEN)
		return n;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = v[i];

		if (c <= 0x20 || c >= 0x7f)
			return n;
		names[n][i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	names[n][len] = '\0';
	return n + 1;
}

static const unsigned char oid_san[] = { 0x55, 0x1d, 0x11 };	/* 2.5.29.17 */
static const unsigned char oid_cn[] = { 0x55, 0x04, 0x03 };	/* 2.5.4.3 */

/* subjectAltName extension value: GeneralNames, keep each dNSName. */
static unsigned
san_names(const unsigned char *p, const unsigned char *end,
    char names[][CERTNAME_LEN], unsigned n)
{
	struct der d;

	if (!der_next(&p, end, &d) || !der_enter(&d, 0x30, &p, &end))
		return n;
	while (p < end && der_next(&p, end, &d))
		if (d.tag == 0x82)	/* [2] IMPLICIT IA5String */
			n = keep(names, n, d.val, d.len);
	return n;
}

/* Subject Name: the last CN, when there is no subjectAltName. */
static unsigned
subject_cn(const unsigned char *p, const unsigned char *end,
    char names[][CERTNAME_LEN])
{
	const unsigned char *sp, *send, *ap, *aend;
	struct der set, atv, oid, val;
	unsigned n = 0;

	while (p < end && der_next(&p, end, &set)) {
		if (!der_enter(&set, 0x31, &sp, &send))
			return 0;
		while (sp < send && der_next(&sp, send, &atv)) {
			if (!der_enter(&atv, 0x30, &ap, &aend) ||
			    !der_next(&ap, aend, &oid) ||
			    !der_next(&ap, aend, &val))
				return 0;
			if (oid.tag == 0x06 && oid.len == sizeof(oid_cn) &&
			    memcmp(oid.val, oid_cn, sizeof(oid_cn)) == 0)
				n = keep(names, 0, val.val, val.len);
		}
	}
	return n;
}

unsigned
certname_get(const unsigned char *der, size_t len, char names[][CERTNAME_LEN])
{
	const unsigned char *p = der, *end = der + len, *ep, *eend;
	struct der d, ext, subject = { 0, NULL, 0 };
	unsigned n = 0, field = 0;

	/* Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { ... } ... } */
	if (!der_next(&p, end, &d) || !der_enter(&d, 0x30, &p, &end) ||
	    !der_next(&p, end, &d) || !der_enter(&d, 0x30, &p, &end))
		return 0;
	while (p < end && der_next(&p, end, &d)) {
		if (d.tag == 0xa0 && field == 0)
			continue;		/* [0] version */
		field++;
		if (field == 5)			/* serial, alg, issuer, validity */
			subject = d;
		if (d.tag != 0xa3)		/* [3] extensions */
			continue;
		ep = d.val;
		if (!der_next(&ep, d.val + d.len, &ext) ||
		    !der_enter(&ext, 0x30, &ep, &eend))
			return 0;
		while (ep < eend && der_next(&ep, eend, &ext)) {
			const unsigned char *xp, *xend;
			struct der oid, v;

			if (!der_enter(&ext, 0x30, &xp, &xend) ||
			    !der_next(&xp, xend, &oid))
				return 0;
			if (oid.tag != 0x06 || oid.len != sizeof(oid_san) ||
			    memcmp(oid.val, oid_san, sizeof(oid_san)) != 0)
				continue;
			while (xp < xend && der_next(&xp, xend, &v))
				if (v.tag == 0x04)	/* OCTET STRING */
					n = san_names(v.val, v.val + v.len,
					    names, n);
		}
	}
	if (n == 0 && subject.val != NULL && subject.tag == 0x30)
		n = subject_cn(subject.val, subject.val + subject.len, names);
	return n;
}

int
certname_match(const char *pat, const char *name)
{
	size_t pl = strlen(pat), nl = strlen(name);
	const char *dot;

	if (pl > 2 && pat[0] == '*' && pat[1] == '.') {
		dot = strchr(name, '.');
		if (dot == NULL || dot == name)
			return 0;
		name = dot;
		nl = strlen(name);
		pat++;
		pl--;
	}
	if (pl != nl)
		return 0;
	for (size_t i = 0; i < pl; i++) {
		char c = name[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		if (c != pat[i])
			return 0;
	}
	return 1;
}

int
certname_is_host(const char *s, size_t len)
{
	size_t label = 0;

	if (len == 0 || len >= CERTNAME_LEN)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || (c == '-' && label > 0)) {
			if (++label > 63)
				return 0;
		} else
			return 0;
	}
	return label > 0 && s[len - 1] != '-';
}
