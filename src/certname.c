/* SPDX-License-Identifier: ISC */
/*
 * certname.c - see certname.h.
 */
#include <string.h>

#include "certname.h"
#include "der.h"
#include "httpchar.h"

/*
 * Every walk below is by offsets into the one certificate buffer (der.h's
 * der_at()), never a pointer and a length handed down: make prove then
 * bounds each read by the buffer's size.
 */
static unsigned
keep(char names[][CERTNAME_LEN], unsigned n, const unsigned char *b,
    size_t from, size_t to)
{
	size_t i, k;

	if (n >= CERTNAME_MAX || from >= to || to - from >= CERTNAME_LEN)
		return n;
	for (i = from, k = 0; i < to && k < CERTNAME_LEN - 1; i++, k++) {
		unsigned char c = b[i];

		if (c <= 0x20 || c >= 0x7f)
			return n;
		names[n][k] = (char)to_lower(c);
	}
	names[n][k] = '\0';
	return n + 1;
}

/*
 * certname_san() in b[from..to): *san, *sanend set if found (an end
 * before the start stands for none).
 */
static int
san_at(const unsigned char *b, size_t from, size_t to, size_t *san,
    size_t *sanend)
{
	size_t at = from, c, ce, e, ee, oid, oide, val, vale;

	if (der_at(b, &at, to, DER_SEQUENCE, &c, &ce) < 0)
		return -1;
	while (c < ce) {
		if (der_at(b, &c, ce, DER_SEQUENCE, &e, &ee) < 0 ||
		    der_at(b, &e, ee, DER_OID, &oid, &oide) < 0)
			return -1;
		if (e < ee && b[e] == DER_BOOLEAN && der_at(b, &e, ee,
		    DER_BOOLEAN, &val, &vale) < 0)
			return -1;
		if (der_at(b, &e, ee, DER_OCTET_STRING, &val, &vale) < 0)
			return -1;
		/* 2.5.29.17 */
		if (oide - oid == 3 && oid + 2 < oide && b[oid] == 0x55 &&
		    b[oid + 1] == 0x1d && b[oid + 2] == 0x11) {
			*san = val;
			*sanend = vale;
		}
	}
	return 0;
}

int
certname_san(const unsigned char *p, size_t len, const unsigned char **san,
    size_t *sanlen)
{
	size_t s = 1, se = 0;

	if (san_at(p, 0, len, &s, &se) < 0)
		return -1;
	if (se >= s) {
		*san = p + s;
		*sanlen = se - s;
	}
	return 0;
}

/* subjectAltName's GeneralNames in b[from..to): keep each dNSName. */
static unsigned
san_names(const unsigned char *b, size_t from, size_t to,
    char names[][CERTNAME_LEN])
{
	size_t at = from, c, ce, v, ve;
	unsigned n = 0;

	if (der_at(b, &at, to, DER_SEQUENCE, &c, &ce) < 0)
		return 0;
	/* Once names[] is full no further entry can change it. */
	while (c < ce && n < CERTNAME_MAX) {
		unsigned tag = b[c];

		if (der_at(b, &c, ce, tag, &v, &ve) < 0)
			break;
		if (tag == DER_CTX(2))		/* IMPLICIT IA5String */
			n = keep(names, n, b, v, ve);
	}
	return n;
}

/* Subject Name in b[at..to): the last CN, when there is no subjectAltName. */
static unsigned
subject_cn(const unsigned char *b, size_t at, size_t to,
    char names[][CERTNAME_LEN])
{
	size_t set, sete, atv, atve, oid, oide, val, vale;
	unsigned n = 0;

	while (at < to) {
		if (der_at(b, &at, to, DER_SET, &set, &sete) < 0)
			return 0;
		while (set < sete) {
			if (der_at(b, &set, sete, DER_SEQUENCE, &atv,
			    &atve) < 0 || der_at(b, &atv, atve, DER_OID,
			    &oid, &oide) < 0 || atv >= atve || der_at(b,
			    &atv, atve, b[atv], &val, &vale) < 0)
				return 0;
			/* 2.5.4.3 */
			if (oide - oid == 3 && oid + 2 < oide &&
			    b[oid] == 0x55 && b[oid + 1] == 0x04 &&
			    b[oid + 2] == 0x03)
				n = keep(names, 0, b, val, vale);
		}
	}
	return n;
}

unsigned
certname_get(const unsigned char *der, size_t len, char names[][CERTNAME_LEN])
{
	size_t at = 0, c, ce, t, te, subject = 0, subjecte = 0, san = 1,
	    sane = 0;
	unsigned n = 0, field = 0;

	/* Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { ... } ... } */
	if (der_at(der, &at, len, DER_SEQUENCE, &c, &ce) < 0 ||
	    der_at(der, &c, ce, DER_SEQUENCE, &t, &te) < 0)
		return 0;
	while (t < te) {
		unsigned tag = der[t];

		if (der_at(der, &t, te, tag, &c, &ce) < 0)
			break;
		if (tag == DER_CTXC(0) && field == 0)
			continue;		/* version */
		/* serial, signature, issuer, validity, then the subject */
		if (++field == 5 && tag == DER_SEQUENCE) {
			subject = c;
			subjecte = ce;
		}
		if (tag == DER_CTXC(3) && san_at(der, c, ce, &san, &sane) < 0)
			return 0;
	}
	if (sane > san)
		n = san_names(der, san, sane, names);
	if (n == 0 && subjecte > subject)
		n = subject_cn(der, subject, subjecte, names);
	return n;
}

int
certname_match(const char *pat, const char *name)
{
	char low[CERTNAME_LEN] = { 0 };	/* its last byte stays the NUL */
	const char *n = low;
	size_t nl = strlen(name);

	/* Patterns are shorter than CERTNAME_LEN: so must a match be. */
	if (nl >= sizeof(low))
		return 0;
	for (size_t i = 0; i < nl; i++)
		low[i] = (char)to_lower((uint8_t)name[i]);
	if (pat[0] == '*' && pat[1] == '.' && pat[2] != '\0') {
		n = strchr(low, '.');
		if (n == NULL || n == low)
			return 0;
		pat++;
	}
	/* Patterns are lowercased already (certname_get()). */
	return strcmp(pat, n) == 0;
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
		} else if (is_alnum((uint8_t)c) || (c == '-' && label > 0)) {
			if (++label > 63)
				return 0;
		} else
			return 0;
	}
	return label > 0 && s[len - 1] != '-';
}
