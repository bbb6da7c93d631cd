/* SPDX-License-Identifier: ISC */
/*
 * certgen.c - see certgen.h.
 *
 * The certificate (RFC 5280): v3, a random positive 128-bit serial,
 * issuer = subject = O, OU (the marker), CN = the first name; valid from
 * five minutes ago (clocks of clients differ) for CERTGEN_DAYS; the
 * P-256 key; extensions basicConstraints CA:FALSE and keyUsage
 * digitalSignature (both critical), extKeyUsage serverAuth,
 * subjectAltName (dNSName, iPAddress), and subject and authority key
 * identifiers, the SHA-1 of the key's BIT STRING (4.2.1.2, method 1).
 *
 * The certificate is written before its key: a crash between the two
 * leaves a certificate of ours with a key that is missing or not its
 * own, which the next run remakes, never a key without its certificate,
 * which would be left alone as an operator's.
 */
#include <stdio.h>
#include <string.h>
#include <bearssl.h>

#include "certgen.h"
#include "cred.h"
#include "der.h"
#include "httpchar.h"
#include "port.h"

#define OID_O		"2.5.4.10"
#define OID_OU		"2.5.4.11"
#define OID_CN		"2.5.4.3"
#define OID_ECDSA_SHA256 "1.2.840.10045.4.3.2"

/* The generator and what it makes: secrets, wiped after each use. */
static struct {
	br_hmac_drbg_context	rng;
	br_ec_private_key	sk;
	br_ec_public_key	pk;
	unsigned char		seed[48];
	unsigned char		kbuf[BR_EC_KBUF_PRIV_MAX_SIZE];
	unsigned char		pub[BR_EC_KBUF_PUB_MAX_SIZE];
	unsigned char		der[2048];
	char			pem[4096];
} g;
/* A pair already on disk, read to judge it; its key is wiped too. */
static struct cred old;
static br_x509_decoder_context xd;

/*
 * The parts of a certificate certgen looks at, pointers into its DER:
 * the signed object's, and the contents of some of its tbsCertificate.
 */
struct view {
	struct der_signed	 s;
	const unsigned char	*issuer, *subject, *san;
	size_t			 issuerlen, subjectlen, sanlen;
	int64_t			 not_after;
};

static int
view(const unsigned char *der, size_t len, struct view *v)
{
	const unsigned char *c, *t;
	size_t cl, tl;

	memset(v, 0, sizeof(*v));
	if (der_signed(der, len, &v->s) < 0)
		return -1;
	t = v->s.body;
	tl = v->s.bodylen;
	if (tl > 0 && t[0] == DER_CTXC(0) && der_get(&t, &tl, DER_CTXC(0),
	    &c, &cl) < 0)
		return -1;
	if (der_get(&t, &tl, DER_INTEGER, &c, &cl) < 0 ||
	    der_get(&t, &tl, DER_SEQUENCE, &c, &cl) < 0 ||
	    der_get(&t, &tl, DER_SEQUENCE, &v->issuer, &v->issuerlen) < 0 ||
	    der_get(&t, &tl, DER_SEQUENCE, &c, &cl) < 0 ||
	    der_get_time(&c, &cl) < 0 ||
	    (v->not_after = der_get_time(&c, &cl)) < 0 ||
	    der_get(&t, &tl, DER_SEQUENCE, &v->subject, &v->subjectlen) < 0 ||
	    der_get(&t, &tl, DER_SEQUENCE, &c, &cl) < 0)	/* the key */
		return -1;
	/* Unique identifiers, then the extensions. */
	while (tl > 0) {
		unsigned tag = t[0];

		if (der_get(&t, &tl, tag, &c, &cl) < 0)
			return -1;
		if (tag == DER_CTXC(3) &&
		    certname_san(c, cl, &v->san, &v->sanlen) < 0)
			return -1;
	}
	return 0;
}

static void
rdn(struct der *d, const char *oid, const char *value)
{
	size_t set = der_open(d, DER_SET), seq = der_open(d, DER_SEQUENCE);

	der_oid(d, oid);
	der_tlv(d, DER_UTF8, value, strlen(value));
	der_close(d, seq);
	der_close(d, set);
}

static void
dn(struct der *d, const char *cn)
{
	size_t m = der_open(d, DER_SEQUENCE);

	rdn(d, OID_O, CERTGEN_O);
	rdn(d, OID_OU, CERTGEN_OU);
	rdn(d, OID_CN, cn);
	der_close(d, m);
}

static void
algid(struct der *d)
{
	size_t m = der_open(d, DER_SEQUENCE);

	der_oid(d, OID_ECDSA_SHA256);	/* no parameters (RFC 5758 3.2) */
	der_close(d, m);
}

static void
san(struct der *d, char names[CERTNAME_MAX][CERTNAME_LEN], unsigned n)
{
	size_t m = der_open(d, DER_SEQUENCE);
	uint8_t ip[16];
	size_t k;

	for (unsigned i = 0; i < n; i++) {
		k = port_ip_parse(names[i], strlen(names[i]), ip);
		if (k > 0)
			der_tlv(d, DER_CTX(7), ip, k);
		else
			der_tlv(d, DER_CTX(2), names[i], strlen(names[i]));
	}
	der_close(d, m);
}

/* An extension: SEQUENCE { OID, critical?, OCTET STRING { value } }. */
static size_t
ext_open(struct der *d, const char *oid, int critical, size_t *value)
{
	static const unsigned char yes = 0xff;
	size_t m = der_open(d, DER_SEQUENCE);

	der_oid(d, oid);
	if (critical)
		der_tlv(d, DER_BOOLEAN, &yes, 1);
	*value = der_open(d, DER_OCTET_STRING);
	return m;
}

static void
ext_close(struct der *d, size_t m, size_t value)
{
	der_close(d, value);
	der_close(d, m);
}

static void
extensions(struct der *d, char names[CERTNAME_MAX][CERTNAME_LEN],
    unsigned n, const unsigned char ski[20])
{
	static const unsigned char digital_signature = 0x80;
	size_t x = der_open(d, DER_CTXC(3)), seq = der_open(d, DER_SEQUENCE);
	size_t m, v, s;

	m = ext_open(d, "2.5.29.19", 1, &v);	/* basicConstraints */
	der_tlv(d, DER_SEQUENCE, NULL, 0);	/* cA FALSE: the default */
	ext_close(d, m, v);
	m = ext_open(d, "2.5.29.15", 1, &v);	/* keyUsage */
	der_bits(d, 7, &digital_signature, 1);
	ext_close(d, m, v);
	m = ext_open(d, "2.5.29.37", 0, &v);	/* extKeyUsage */
	s = der_open(d, DER_SEQUENCE);
	der_oid(d, "1.3.6.1.5.5.7.3.1");	/* serverAuth */
	der_close(d, s);
	ext_close(d, m, v);
	m = ext_open(d, "2.5.29.17", 0, &v);	/* subjectAltName */
	san(d, names, n);
	ext_close(d, m, v);
	m = ext_open(d, "2.5.29.14", 0, &v);	/* subjectKeyIdentifier */
	der_tlv(d, DER_OCTET_STRING, ski, 20);
	ext_close(d, m, v);
	m = ext_open(d, "2.5.29.35", 0, &v);	/* authorityKeyIdentifier */
	s = der_open(d, DER_SEQUENCE);
	der_tlv(d, DER_CTX(0), ski, 20);	/* keyIdentifier */
	der_close(d, s);
	ext_close(d, m, v);
	der_close(d, seq);
	der_close(d, x);
}

/* The certificate for g's key pair, signed with it.  Its length, or 0. */
static size_t
build(unsigned char *out, size_t cap, char names[CERTNAME_MAX][CERTNAME_LEN],
    unsigned n, int64_t now)
{
	static const unsigned char v3 = 2;
	unsigned char serial[16], ski[20], h[32], sig[80];
	br_sha1_context sha1;
	br_sha256_context sha256;
	struct der d;
	size_t cert, tbs0, tbs, m, alg, siglen;

	br_hmac_drbg_generate(&g.rng, serial, sizeof(serial));
	br_sha1_init(&sha1);
	br_sha1_update(&sha1, g.pk.q, g.pk.qlen);
	br_sha1_out(&sha1, ski);
	der_init(&d, out, cap);
	cert = der_open(&d, DER_SEQUENCE);
	tbs0 = d.len;
	tbs = der_open(&d, DER_SEQUENCE);
	m = der_open(&d, DER_CTXC(0));
	der_uint(&d, &v3, 1);
	der_close(&d, m);
	der_uint(&d, serial, sizeof(serial));
	algid(&d);
	dn(&d, names[0]);
	m = der_open(&d, DER_SEQUENCE);
	der_time(&d, now - 300);
	der_time(&d, now + (int64_t)CERTGEN_DAYS * 86400);
	der_close(&d, m);
	dn(&d, names[0]);
	m = der_open(&d, DER_SEQUENCE);		/* SubjectPublicKeyInfo */
	alg = der_open(&d, DER_SEQUENCE);
	der_oid(&d, "1.2.840.10045.2.1");	/* id-ecPublicKey */
	der_oid(&d, "1.2.840.10045.3.1.7");	/* P-256 */
	der_close(&d, alg);
	der_bits(&d, 0, g.pk.q, g.pk.qlen);
	der_close(&d, m);
	extensions(&d, names, n, ski);
	der_close(&d, tbs);
	if (d.err)
		return 0;
	br_sha256_init(&sha256);
	br_sha256_update(&sha256, out + tbs0, d.len - tbs0);
	br_sha256_out(&sha256, h);
	siglen = br_ecdsa_sign_asn1_get_default()(br_ec_get_default(),
	    &br_sha256_vtable, h, &g.sk, sig);
	if (siglen == 0)
		return 0;
	algid(&d);
	der_bits(&d, 0, sig, siglen);
	der_close(&d, cert);
	return d.err ? 0 : d.len;
}

/*
 * A fresh P-256 key pair in g, from the kernel's entropy.  The seed is
 * in g too: a memset of a local the function no longer reads may be
 * optimised away, one of static storage may not.
 */
static int
keygen(void)
{
	if (port_entropy(g.seed, sizeof(g.seed)) < 0)
		return -1;
	br_hmac_drbg_init(&g.rng, &br_sha256_vtable, g.seed, sizeof(g.seed));
	memset(g.seed, 0, sizeof(g.seed));
	if (br_ec_keygen(&g.rng.vtable, br_ec_get_default(), &g.sk, g.kbuf,
	    BR_EC_secp256r1) == 0 || br_ec_compute_pub(br_ec_get_default(),
	    &g.pk, g.pub, &g.sk) == 0)
		return -1;
	return 0;
}

size_t
certgen_make(unsigned char *out, size_t cap,
    char names[CERTNAME_MAX][CERTNAME_LEN], unsigned n, int64_t now)
{
	size_t len = 0;

	if (n > 0 && keygen() == 0)
		len = build(out, cap, names, n, now);
	memset(&g, 0, sizeof(g));
	return len;
}

static int
write_pem(const char *path, const void *der, size_t len, const char *banner,
    int secret, char *err, size_t cap)
{
	const char *why;
	size_t n;

	n = br_pem_encode(NULL, der, len, banner, BR_PEM_LINE64);
	if (n >= sizeof(g.pem)) {
		snprintf(err, cap, "%s: larger than %zu bytes", path,
		    sizeof(g.pem));
		return -1;
	}
	br_pem_encode(g.pem, der, len, banner, BR_PEM_LINE64);
	if (port_write_file(path, g.pem, n, secret, &why) < 0) {
		snprintf(err, cap, "%s: %s", path, why);
		return -1;
	}
	return 0;
}

static int
make_pair(const struct service *s, const struct svc_cert *p,
    char names[CERTNAME_MAX][CERTNAME_LEN], unsigned n, int64_t now,
    const char *reason, void (*wrote)(const struct service *, const char *,
    const char *), char *err, size_t cap)
{
	size_t len;

	if (keygen() < 0) {
		snprintf(err, cap, "%s: no entropy from the operating system",
		    p->key);
		return -1;
	}
	if ((len = build(g.der, sizeof(g.der), names, n, now)) == 0) {
		snprintf(err, cap, "%s: cannot encode the certificate", p->cert);
		return -1;
	}
	if (write_pem(p->cert, g.der, len, "CERTIFICATE", 0, err, cap) < 0)
		return -1;
	wrote(s, p->cert, reason);
	len = br_encode_ec_raw_der(NULL, &g.sk, &g.pk);
	if (len == 0 || len > sizeof(g.der)) {
		snprintf(err, cap, "%s: cannot encode the key", p->key);
		return -1;
	}
	br_encode_ec_raw_der(g.der, &g.sk, &g.pk);
	if (write_pem(p->key, g.der, len, "EC PRIVATE KEY", 1, err, cap) < 0)
		return -1;
	wrote(s, p->key, reason);
	return 0;
}

/* Does the Name's content hold this RDN, byte for byte? */
static int
has_rdn(const unsigned char *name, size_t len, const char *oid,
    const char *value)
{
	unsigned char want[128];
	const unsigned char *start, *e;
	size_t el;
	struct der d;

	der_init(&d, want, sizeof(want));
	rdn(&d, oid, value);
	while (!d.err && len > 0) {
		start = name;
		if (der_get(&name, &len, DER_SET, &e, &el) < 0)
			return 0;
		if ((size_t)(name - start) == d.len && memcmp(start, want,
		    d.len) == 0)
			return 1;
	}
	return 0;
}

int
certgen_is_own(const unsigned char *der, size_t len)
{
	unsigned char alg[32], h[32];
	const br_x509_pkey *pk;
	br_sha256_context sha;
	struct der d;
	struct view v;

	der_init(&d, alg, sizeof(alg));
	der_oid(&d, OID_ECDSA_SHA256);
	if (view(der, len, &v) < 0 || d.err || v.issuerlen != v.subjectlen ||
	    memcmp(v.issuer, v.subject, v.subjectlen) != 0 ||
	    !has_rdn(v.subject, v.subjectlen, OID_O, CERTGEN_O) ||
	    !has_rdn(v.subject, v.subjectlen, OID_OU, CERTGEN_OU) ||
	    v.s.alglen != d.len || memcmp(v.s.alg, alg, d.len) != 0)
		return 0;
	br_x509_decoder_init(&xd, NULL, NULL);
	br_x509_decoder_push(&xd, der, len);
	pk = br_x509_decoder_get_pkey(&xd);
	if (pk == NULL || pk->key_type != BR_KEYTYPE_EC)
		return 0;
	br_sha256_init(&sha);
	br_sha256_update(&sha, v.s.tbs, v.s.tbslen);
	br_sha256_out(&sha, h);
	return br_ecdsa_vrfy_asn1_get_default()(br_ec_get_default(), h,
	    sizeof(h), &pk->key.ec, v.s.sig, v.s.siglen) == 1;
}

/*
 * Why the pair p is to be made, in *reason (NULL: leave it).  0, or -1
 * with err when a file's presence cannot be told.
 */
static int
judge(const struct svc_cert *p, char names[CERTNAME_MAX][CERTNAME_LEN],
    unsigned n, int64_t now, const char **reason, char *err, size_t cap)
{
	unsigned char want[CERTNAME_MAX * (CERTNAME_LEN + 2) + 8];
	const char *why;
	struct der d;
	struct view v;
	int cert, key;

	*reason = NULL;
	if ((cert = port_exists(p->cert, &why)) < 0 ||
	    (key = port_exists(p->key, &why)) < 0) {
		snprintf(err, cap, "%s: %s", cert < 0 ? p->cert : p->key, why);
		return -1;
	}
	if (!cert) {
		/* A key without its certificate is someone's: keep it. */
		if (!key)
			*reason = "missing";
		return 0;
	}
	if (cred_load_chain(&old, p->cert, err, cap) < 0 ||
	    !certgen_is_own(old.chain[0].data, old.chain[0].data_len) ||
	    view(old.chain[0].data, old.chain[0].data_len, &v) < 0)
		return 0;
	der_init(&d, want, sizeof(want));
	san(&d, names, n);
	if (!key)
		*reason = "key-missing";
	else if (cred_load(&old, p->cert, p->key, err, cap) < 0)
		*reason = "key-not-its-own";
	else if (v.not_after - now < (int64_t)CERTGEN_RENEW_DAYS * 86400)
		*reason = "expires-soon";
	else if (d.err || v.sanlen != d.len || memcmp(v.san, want, d.len) != 0)
		*reason = "names-changed";
	return 0;
}

int
certgen_service(const struct service *s, int64_t now,
    void (*wrote)(const struct service *, const char *, const char *),
    char *err, size_t cap)
{
	char names[CERTNAME_MAX][CERTNAME_LEN];
	unsigned n = certgen_names(s, names);
	const char *reason;
	int rc = 0;

	for (unsigned j = 0; j < s->ncerts && rc == 0; j++) {
		rc = judge(&s->certs[j], names, n, now, &reason, err, cap);
		if (rc == 0 && reason != NULL)
			rc = make_pair(s, &s->certs[j], names, n, now, reason,
			    wrote, err, cap);
	}
	memset(&g, 0, sizeof(g));
	memset(&old, 0, sizeof(old));
	return rc;
}

/* Append a+b to names unless it is there or there is no room. */
static unsigned
add(char names[CERTNAME_MAX][CERTNAME_LEN], unsigned n, const char *a,
    const char *b)
{
	char s[CERTNAME_LEN];
	int k = snprintf(s, sizeof(s), "%s%s", a, b);

	if (n == CERTNAME_MAX || k < 0 || (size_t)k >= sizeof(s))
		return n;
	for (unsigned i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return n;
	memcpy(names[n], s, sizeof(s));
	return n + 1;
}

unsigned
certgen_names(const struct service *s, char names[CERTNAME_MAX][CERTNAME_LEN])
{
	char host[CERTNAME_LEN], ip[64];
	unsigned n = 0;

	if (s->ncert_names > 0) {
		memcpy(names, s->cert_names, sizeof(s->cert_names));
		return s->ncert_names;
	}
	if (port_hostname(host, sizeof(host)) == 0 &&
	    certname_is_host(host, strlen(host))) {
		for (char *c = host; *c != '\0'; c++)
			*c = (char)to_lower((uint8_t)*c);
		n = add(names, n, host, "");
		/* mDNS names a host by its one label. */
		if (strchr(host, '.') == NULL)
			n = add(names, n, host, ".local");
	}
	for (unsigned i = 0; i < s->nlisten; i++) {
		port_addr_ip(&s->listen[i], ip, sizeof(ip));
		/* A wildcard, in inet_ntop()'s one spelling, names no address. */
		if (strcmp(ip, "0.0.0.0") != 0 && strcmp(ip, "::") != 0)
			n = add(names, n, ip, "");
	}
	if (n == 0)
		n = add(names, n, "localhost", "");
	return n;
}

void
certgen_fingerprint(const unsigned char *der, size_t len,
    char out[CERTGEN_FP_LEN])
{
	static const char hex[] = "0123456789ABCDEF";
	unsigned char h[32];
	br_sha256_context sha;

	br_sha256_init(&sha);
	br_sha256_update(&sha, der, len);
	br_sha256_out(&sha, h);
	for (size_t i = 0; i < sizeof(h); i++) {
		out[3 * i] = hex[h[i] >> 4];
		out[3 * i + 1] = hex[h[i] & 15];
		out[3 * i + 2] = i + 1 < sizeof(h) ? ':' : '\0';
	}
}

int64_t
certgen_not_after(const unsigned char *der, size_t len)
{
	struct view v;

	return view(der, len, &v) < 0 ? -1 : v.not_after;
}

size_t
certgen_static_bytes(void)
{
	return sizeof(g) + sizeof(old) + sizeof(xd);
}
