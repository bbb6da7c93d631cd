/* SPDX-License-Identifier: ISC */
/*
 * crl.h - revoked client certificates: X.509 CRLs (RFC 5280 5) read
 * strictly, each verified against its issuer (a CA of client_ca) with
 * BearSSL's signature code, their serials in a static table, and the
 * look-up a handshake makes for the client's certificate.  BearSSL's
 * X.509 validator has no CRL support; this is the part it lacks.
 *
 * Owns the CRL parse, the table and the leaf's serial and issuer, taken
 * from the certificate's bytes as they stream by (the engine never
 * holds a certificate whole).  Never allocates, never reads a file
 * (tls.c hands it DER), never reads past a length it is given.
 *
 * Typical use:
 *
 *	crl_set_init(&set);				each load
 *	crl_add(&set, der, len, anchors, n, why)	each CRL: 0 or -1
 *	crl_leaf_start(&leaf); crl_leaf_feed(&leaf, p, n) ...	the leaf
 *	switch (crl_check(&set, first, nlists, &leaf, now, keep))
 */
#ifndef TLSGATE_CRL_H
#define TLSGATE_CRL_H

#include <stddef.h>
#include <stdint.h>
#include <bearssl.h>

#include "defaults.h"
#include "der.h"

/* RFC 5280 4.1.2.2: 20 octets at most, and a zero to keep it positive. */
#define CRL_SERIAL_MAX	21
/* One CRL per CA of client_ca at most. */
#define CRL_LISTS_MAX	TLSGATE_MAX_ANCHORS
/* The validator's error codes for a revoked or unverifiable leaf. */
#define CRL_ERR_REVOKED	96	/* its serial is on its issuer's CRL */
#define CRL_ERR_STALE	97	/* that CRL is past nextUpdate */

/* A CRL's parts, pointing into its DER (crl_parse()). */
struct crl_view {
	struct der_signed s;
	const unsigned char *issuer, *revoked;
	size_t		issuerlen, revokedlen;
	int64_t		this_update, next_update;	/* -1: none */
	unsigned	alg;		/* signature algorithm: crl.c's row */
};

/* A serial as its INTEGER's content bytes (DER: minimal). */
struct crl_serial {
	unsigned char	len, v[CRL_SERIAL_MAX];
};

/* One CRL loaded: its issuer, when it goes stale, its serials. */
struct crl_list {
	unsigned char	issuer[32];	/* SHA-256 of the issuer Name */
	int64_t		next_update;	/* -1: none given */
	unsigned	first, n;	/* into serials[], sorted */
};

struct crl_set {
	struct crl_list		lists[CRL_LISTS_MAX];
	unsigned		nlists;
	struct crl_serial	serials[TLSGATE_MAX_REVOKED];
	unsigned		nserials;
};

/* The leaf certificate's serial and issuer, as its bytes go by. */
struct crl_leaf {
	br_sha256_context h;
	struct crl_serial serial;
	unsigned char	hdr[6], issuer[32];
	unsigned	state, depth, field, nhdr, lenbytes, act;
	unsigned char	tag;
	size_t		left;
};

/*
 * Read the CRL der[0..len) into *v: a v1 or v2 CertificateList, RSA
 * PKCS#1 or ECDSA with SHA-1/224/256/384/512.  0, or -1 with *why.
 */
int	crl_parse(const unsigned char *der, size_t len, struct crl_view *v,
	    const char **why);
/*
 * The next revoked serial of v->revoked (*p, *len walk it: start them
 * at v->revoked, v->revokedlen): 1 with *serial, 0 at the end, -1 if
 * an entry is malformed or its serial longer than CRL_SERIAL_MAX.
 */
int	crl_next(const unsigned char **p, size_t *len, struct crl_serial *s);

void	crl_set_init(struct crl_set *);
/*
 * Add the CRL der[0..len): its issuer must be one of ta[0..nta) (by
 * Name), its signature that CA's, its serials must fit the table: the
 * set's next list.  0, or -1 with *why and the set as it was.
 */
int	crl_add(struct crl_set *, const unsigned char *der, size_t len,
	    const br_x509_trust_anchor *ta, size_t nta, const char **why);

void	crl_leaf_start(struct crl_leaf *);
void	crl_leaf_feed(struct crl_leaf *, const unsigned char *p, size_t n);

/*
 * The leaf against lists[first .. first + n) of set at time now:
 * 0 (no CRL of its issuer, or not on it), CRL_ERR_REVOKED, or
 * CRL_ERR_STALE when its issuer's CRL is past nextUpdate and keep is 0
 * (with keep, the stale CRL's serials still count).  A leaf whose
 * bytes could not be read is CRL_ERR_REVOKED: it cannot be cleared.
 */
unsigned crl_check(const struct crl_set *, unsigned first, unsigned n,
	    const struct crl_leaf *, int64_t now, int keep);
/* The leaf's serial as hex into buf (cap >= 2 * CRL_SERIAL_MAX + 1). */
void	crl_leaf_serial(const struct crl_leaf *, char *buf, size_t cap);

#endif
