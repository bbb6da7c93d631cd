/* SPDX-License-Identifier: ISC */
/*
 * crl.c - see crl.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crl.h"
#include "der.h"
#include "tlscrypto.h"

/*
 * Signature algorithms (RFC 3279, 4055, 5758): the signature scheme of
 * tlswire.h's registry that verifies it, and its OID.
 */
static const struct {
	unsigned	 scheme;
	const char	*oid;
} algs[] = {
	{ SIG_RSA_PKCS1_SHA1, "1.2.840.113549.1.1.5" },
	{ SIG_RSA_PKCS1_SHA224, "1.2.840.113549.1.1.14" },
	{ SIG_RSA_PKCS1_SHA256, "1.2.840.113549.1.1.11" },
	{ SIG_RSA_PKCS1_SHA384, "1.2.840.113549.1.1.12" },
	{ SIG_RSA_PKCS1_SHA512, "1.2.840.113549.1.1.13" },
	{ SIG_ECDSA_SHA1, "1.2.840.10045.4.1" },
	{ SIG_ECDSA_SHA224, "1.2.840.10045.4.3.1" },
	{ SIG_ECDSA_SECP256R1_SHA256, "1.2.840.10045.4.3.2" },
	{ SIG_ECDSA_SECP384R1_SHA384, "1.2.840.10045.4.3.3" },
	{ SIG_ECDSA_SECP521R1_SHA512, "1.2.840.10045.4.3.4" },
};

/* An AlgorithmIdentifier's content: one of algs[], parameters ignored. */
static int
sig_alg(const unsigned char *c, size_t cl, struct crl_view *v)
{
	unsigned char oid[16];
	struct der d;

	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		der_init(&d, oid, sizeof(oid));
		der_oid(&d, algs[i].oid);
		if (!d.err && cl >= d.len && memcmp(c, oid, d.len) == 0) {
			v->alg = (unsigned)i;
			return 0;
		}
	}
	return -1;
}

static int
is_time(const unsigned char *p, size_t len)
{
	return len > 0 && (p[0] == DER_UTCTIME || p[0] == DER_GENTIME);
}

int
crl_parse(const unsigned char *der, size_t len, struct crl_view *v,
    const char **why)
{
	const struct der_signed *s = &v->s;
	const unsigned char *c, *t, *a2;
	size_t cl, tl, al2;

	memset(v, 0, sizeof(*v));
	*why = "not a CRL (RFC 5280 5.1)";
	if (der_signed(der, len, &v->s) < 0)
		return -1;
	t = s->body;
	tl = s->bodylen;
	/* Version: v2 (1) when present. */
	if (tl > 0 && t[0] == DER_INTEGER && (der_get(&t, &tl, DER_INTEGER,
	    &c, &cl) < 0 || cl != 1 || c[0] != 1))
		return -1;
	/* The signed algorithm must be the one outside (5.1.1.2). */
	if (der_get(&t, &tl, DER_SEQUENCE, &a2, &al2) < 0 ||
	    al2 != s->alglen || memcmp(s->alg, a2, al2) != 0)
		return -1;
	*why = "unsupported signature algorithm";
	if (sig_alg(s->alg, s->alglen, v) < 0)
		return -1;
	*why = "not a CRL (RFC 5280 5.1)";
	v->issuer = t;
	if (der_get(&t, &tl, DER_SEQUENCE, &c, &cl) < 0 || !is_time(t, tl))
		return -1;
	v->issuerlen = (size_t)(t - v->issuer);
	if ((v->this_update = der_get_time(&t, &tl)) < 0)
		return -1;
	v->next_update = -1;
	if (is_time(t, tl) && (v->next_update = der_get_time(&t, &tl)) < 0)
		return -1;
	if (tl > 0 && t[0] == DER_SEQUENCE &&
	    der_get(&t, &tl, DER_SEQUENCE, &v->revoked, &v->revokedlen) < 0)
		return -1;
	if (tl > 0 && der_get(&t, &tl, DER_CTXC(0), &c, &cl) < 0)
		return -1;
	return tl == 0 ? 0 : -1;
}

int
crl_next(const unsigned char **p, size_t *len, struct crl_serial *s)
{
	const unsigned char *e, *c;
	size_t el, cl;

	if (*len == 0)
		return 0;
	if (der_get(p, len, DER_SEQUENCE, &e, &el) < 0 ||
	    der_get(&e, &el, DER_INTEGER, &c, &cl) < 0 ||
	    cl == 0 || cl > CRL_SERIAL_MAX || !is_time(e, el) ||
	    der_get_time(&e, &el) < 0 ||
	    (el > 0 && der_get(&e, &el, DER_SEQUENCE, &c, &cl) < 0) ||
	    el != 0)
		return -1;
	s->len = (unsigned char)cl;
	memcpy(s->v, c, cl);
	return 1;
}

/* Serials by length, then bytes: equal only if the same INTEGER. */
static int
serial_cmp(const void *a, const void *b)
{
	const struct crl_serial *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->v, y->v, x->len);
}

/*
 * Insertion sort, at load time only: qsort() may allocate, and a
 * reload must not; a full table is half a million compares.
 */
static void
sort(struct crl_serial *a, size_t n)
{
	struct crl_serial k;
	size_t j;

	for (size_t i = 1; i < n; i++) {
		k = a[i];
		for (j = i; j > 0 && serial_cmp(&a[j - 1], &k) > 0; j--)
			a[j] = a[j - 1];
		a[j] = k;
	}
}

/* The ECDSA schemes' curves are TLS 1.3's: sig_verify() ignores them. */
static int
verify(const struct crl_view *v, const br_x509_pkey *pk)
{
	const struct tls_sig *sc = tls_sig(algs[v->alg].scheme);
	const br_hash_class *hc = hash_class(sc->hash);
	br_hash_compat_context h;
	unsigned char hash[64];	/* SHA-512 */

	hc->init(&h.vtable);
	hc->update(&h.vtable, v->s.tbs, v->s.tbslen);
	hc->out(&h.vtable, hash);
	return sig_verify(sc, hash, hash_len(hc), pk, v->s.sig,
	    v->s.siglen) == 1 ? 0 : -1;
}

void
crl_set_init(struct crl_set *s)
{
	s->nlists = s->nserials = 0;
}

int
crl_add(struct crl_set *s, const unsigned char *der, size_t len,
    const br_x509_trust_anchor *ta, size_t nta, const char **why)
{
	struct crl_view v;
	struct crl_list *l;
	br_sha256_context h;
	const unsigned char *p;
	size_t n, i;

	if (crl_parse(der, len, &v, why) < 0)
		return -1;
	for (i = 0; i < nta; i++)
		if (ta[i].dn.len == v.issuerlen &&
		    memcmp(ta[i].dn.data, v.issuer, v.issuerlen) == 0)
			break;
	*why = "its issuer is no CA of client_ca";
	if (i == nta)
		return -1;
	*why = "its signature is not its issuer's";
	if (verify(&v, &ta[i].pkey) < 0)
		return -1;
	*why = "more CRLs than client_ca has CAs";
	if (s->nlists == CRL_LISTS_MAX)
		return -1;
	l = &s->lists[s->nlists];
	l->first = s->nserials;
	l->n = 0;
	l->next_update = v.next_update;
	br_sha256_init(&h);
	br_sha256_update(&h, v.issuer, v.issuerlen);
	br_sha256_out(&h, l->issuer);
	p = v.revoked;
	n = v.revokedlen;
	while (n > 0) {
		*why = "more revoked serials than TLSGATE_MAX_REVOKED";
		if (l->first + l->n == TLSGATE_MAX_REVOKED)
			return -1;
		*why = "a revoked entry is malformed";
		if (crl_next(&p, &n, &s->serials[l->first + l->n]) != 1)
			return -1;
		l->n++;
	}
	sort(&s->serials[l->first], l->n);
	s->nserials += l->n;
	s->nlists++;
	return 0;
}

/*
 * The leaf walk: Certificate and TBSCertificate are entered; in the
 * latter, [0] version is skipped, the serial kept, the signature
 * algorithm skipped and the issuer hashed, header and all; then done.
 */
enum { L_TAG, L_LEN, L_LENN, L_BODY, L_DONE, L_BAD };
enum { A_SKIP, A_SERIAL, A_HASH };

void
crl_leaf_start(struct crl_leaf *l)
{
	memset(l, 0, sizeof(*l));
}

static void
leaf_element_end(struct crl_leaf *l)
{
	l->state = l->act == A_HASH ? L_DONE : L_TAG;
	l->nhdr = 0;
	if (l->act == A_HASH)
		br_sha256_out(&l->h, l->issuer);
}

static void
leaf_header(struct crl_leaf *l)
{
	l->state = L_BODY;
	l->act = A_SKIP;
	if (l->depth < 2) {
		/* Certificate, then TBSCertificate: their content follows. */
		l->state = l->tag == DER_SEQUENCE ? L_TAG : L_BAD;
		l->depth++;
		l->nhdr = 0;
		return;
	}
	if (l->field == 0 && l->tag == DER_CTXC(0)) {
		l->field = 1;			/* version: the serial is next */
	} else if (l->field <= 1 && l->tag == DER_INTEGER) {
		l->field = 2;
		/* Too long for any CRL's table: it stays unmatched. */
		if (l->left <= CRL_SERIAL_MAX)
			l->act = A_SERIAL;
	} else if (l->field == 2 && l->tag == DER_SEQUENCE) {
		l->field = 3;			/* signature algorithm */
	} else if (l->field == 3 && l->tag == DER_SEQUENCE) {
		l->act = A_HASH;
		br_sha256_init(&l->h);
		br_sha256_update(&l->h, l->hdr, l->nhdr);
	} else {
		l->state = L_BAD;
		return;
	}
	if (l->left == 0)
		leaf_element_end(l);
}

void
crl_leaf_feed(struct crl_leaf *l, const unsigned char *p, size_t n)
{
	unsigned char b;
	size_t k;

	while (n > 0 && l->state != L_DONE && l->state != L_BAD) {
		if (l->state == L_BODY) {
			k = n < l->left ? n : l->left;
			if (l->act == A_HASH)
				br_sha256_update(&l->h, p, k);
			else if (l->act == A_SERIAL) {
				memcpy(l->serial.v + l->serial.len, p, k);
				l->serial.len += (unsigned char)k;
			}
			p += k;
			n -= k;
			if ((l->left -= k) == 0)
				leaf_element_end(l);
			continue;
		}
		b = *p++;
		n--;
		l->hdr[l->nhdr++] = b;
		if (l->state == L_TAG) {
			l->tag = b;
			l->state = L_LEN;
		} else if (l->state == L_LEN && b < 0x80) {
			l->left = b;
			leaf_header(l);
		} else if (l->state == L_LEN) {
			l->lenbytes = b & 0x7fu;
			l->left = 0;
			l->state = l->lenbytes >= 1 && l->lenbytes <= 3 ?
			    L_LENN : L_BAD;
		} else {
			l->left = l->left << 8 | b;
			if (--l->lenbytes == 0)
				leaf_header(l);
		}
	}
}

unsigned
crl_check(const struct crl_set *s, unsigned first, unsigned n,
    const struct crl_leaf *l, int64_t now, int keep)
{
	if (n == 0)
		return 0;
	if (l->state != L_DONE)
		return CRL_ERR_REVOKED;
	for (unsigned i = first; i < first + n; i++) {
		const struct crl_list *c = &s->lists[i];

		if (memcmp(c->issuer, l->issuer, sizeof(c->issuer)) != 0)
			continue;
		if (c->next_update >= 0 && now > c->next_update && !keep)
			return CRL_ERR_STALE;
		if (l->serial.len > 0 && bsearch(&l->serial,
		    &s->serials[c->first], c->n, sizeof(l->serial),
		    serial_cmp) != NULL)
			return CRL_ERR_REVOKED;
	}
	return 0;
}

void
crl_leaf_serial(const struct crl_leaf *l, char *buf, size_t cap)
{
	size_t n = 0;

	for (unsigned i = 0; i < l->serial.len && n + 3 <= cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%02X", l->serial.v[i]);
	if (n == 0 && cap >= 2)
		n = (size_t)snprintf(buf, cap, "-");
	if (cap > 0)
		buf[n < cap ? n : cap - 1] = '\0';
}
