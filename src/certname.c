/* SPDX-License-Identifier: ISC */
/*
 * certname.c - see certname.h.
 */
#include <string.h>

#include "certname.h"
#include "der.h"

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

int
certname_san(const unsigned char *p, size_t len, const unsigned char **san,
    size_t *sanlen)
{
	const unsigned char *c, *e, *oid, *val;
	size_t cl, el, oidlen, vallen;

	if (der_get(&p, &len, DER_SEQUENCE, &c, &cl) < 0)
		return -1;
	while (cl > 0) {
		if (der_get(&c, &cl, DER_SEQUENCE, &e, &el) < 0 ||
		    der_get(&e, &el, DER_OID, &oid, &oidlen) < 0)
			return -1;
		if (el > 0 && e[0] == DER_BOOLEAN && der_get(&e, &el,
		    DER_BOOLEAN, &val, &vallen) < 0)
			return -1;
		if (der_get(&e, &el, DER_OCTET_STRING, &val, &vallen) < 0)
			return -1;
		/* 2.5.29.17 */
		if (oidlen == 3 && memcmp(oid, "\x55\x1d\x11", 3) == 0) {
			*san = val;
			*sanlen = vallen;
		}
	}
	return 0;
}

/* subjectAltName's GeneralNames: keep each dNSName. */
static unsigned
san_names(const unsigned char *p, size_t len, char names[][CERTNAME_LEN])
{
	const unsigned char *c, *v;
	size_t cl, vl;
	unsigned n = 0;

	if (der_get(&p, &len, DER_SEQUENCE, &c, &cl) < 0)
		return 0;
	while (cl > 0) {
		unsigned tag = c[0];

		if (der_get(&c, &cl, tag, &v, &vl) < 0)
			break;
		if (tag == DER_CTX(2))		/* IMPLICIT IA5String */
			n = keep(names, n, v, vl);
	}
	return n;
}

/* Subject Name: the last CN, when there is no subjectAltName. */
static unsigned
subject_cn(const unsigned char *p, size_t len, char names[][CERTNAME_LEN])
{
	const unsigned char *set, *atv, *oid, *val;
	size_t setlen, atvlen, oidlen, vallen;
	unsigned n = 0;

	while (len > 0) {
		if (der_get(&p, &len, DER_SET, &set, &setlen) < 0)
			return 0;
		while (setlen > 0) {
			if (der_get(&set, &setlen, DER_SEQUENCE, &atv,
			    &atvlen) < 0 || der_get(&atv, &atvlen, DER_OID,
			    &oid, &oidlen) < 0 || atvlen == 0 || der_get(&atv,
			    &atvlen, atv[0], &val, &vallen) < 0)
				return 0;
			/* 2.5.4.3 */
			if (oidlen == 3 && memcmp(oid, "\x55\x04\x03", 3) == 0)
				n = keep(names, 0, val, vallen);
		}
	}
	return n;
}

unsigned
certname_get(const unsigned char *der, size_t len, char names[][CERTNAME_LEN])
{
	const unsigned char *c, *t, *subject = NULL, *san = NULL;
	size_t cl, tl, subjectlen = 0, sanlen = 0;
	unsigned n = 0, field = 0;

	/* Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { ... } ... } */
	if (der_get(&der, &len, DER_SEQUENCE, &c, &cl) < 0 ||
	    der_get(&c, &cl, DER_SEQUENCE, &t, &tl) < 0)
		return 0;
	while (tl > 0) {
		unsigned tag = t[0];

		if (der_get(&t, &tl, tag, &c, &cl) < 0)
			break;
		if (tag == DER_CTXC(0) && field == 0)
			continue;		/* version */
		/* serial, signature, issuer, validity, then the subject */
		if (++field == 5 && tag == DER_SEQUENCE) {
			subject = c;
			subjectlen = cl;
		}
		if (tag == DER_CTXC(3) && certname_san(c, cl, &san, &sanlen) < 0)
			return 0;
	}
	if (san != NULL)
		n = san_names(san, sanlen, names);
	if (n == 0 && subject != NULL)
		n = subject_cn(subject, subjectlen, names);
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
