/* SPDX-License-Identifier: ISC */
/*
 * cred.h - the credentials: certificate chains and private keys decoded
 * from PEM files into the caller's storage and checked to match each
 * other, and the CA certificates that clients' certificates are checked
 * against.
 *
 * Never sees a connection and never allocates.  Key material lives in
 * struct cred, which the caller wipes (wipe()) when it is done with it;
 * what this module decodes through is wiped here.
 */
#ifndef TLSGATE_CRED_H
#define TLSGATE_CRED_H

#include <stddef.h>
#include <bearssl.h>

#include "certname.h"
#include "defaults.h"

#define CRED_ANCHOR_MEM	1024	/* DN and public key of one CA */

/* A certificate chain (leaf first) with its private key. */
struct cred {
	unsigned char		der[TLSGATE_MAX_CHAIN];
	br_x509_certificate	chain[TLSGATE_MAX_CERTS];
	size_t			nchain;
	int			key_type;	/* BR_KEYTYPE_EC or _RSA */
	br_ec_private_key	ec;
	br_rsa_private_key	rsa;
	unsigned char		mat[5 * 512];	/* the key's components */
	char			names[CERTNAME_MAX][CERTNAME_LEN];
	unsigned		nnames;		/* the leaf's, for SNI */
};

/* Client-auth CAs, as BearSSL trust anchors. */
struct cred_anchors {
	br_x509_trust_anchor	ta[TLSGATE_MAX_ANCHORS];
	unsigned char		mem[TLSGATE_MAX_ANCHORS][CRED_ANCHOR_MEM];
	unsigned		n;
};

/*
 * Load the PEM chain at cert and the PEM private key at key (EC P-256,
 * P-384, P-521 or RSA 2048-4096) into c, and check that the key is the
 * leaf's.  0, or -1 with a message naming the file in err.
 */
int	cred_load(struct cred *c, const char *cert, const char *key,
	    char *err, size_t cap);
/* The chain alone (cred_load() without the key).  0, or -1 as it. */
int	cred_load_chain(struct cred *c, const char *cert, char *err,
	    size_t cap);
/*
 * Append the CA certificates of the PEM file at path to a.  0, or -1
 * with a message naming the file in err (a's count may have grown).
 */
int	cred_load_anchors(struct cred_anchors *a, const char *path, char *err,
	    size_t cap);
struct crl_set;
/*
 * Add the CRLs of the file at path (PEM "X509 CRL" objects, or one DER
 * CRL) to set, each verified against its issuer among a's anchors
 * anchor0 .. anchor0 + nanchor - 1 (crl.h).  0, or -1 with a message
 * naming the file in err.
 */
int	cred_load_crls(struct crl_set *set, const char *path,
	    const struct cred_anchors *a, unsigned anchor0, unsigned nanchor,
	    char *err, size_t cap);
/* The static buffers this module decodes through, for the footprint. */
size_t	cred_static_bytes(void);

#endif
