/* SPDX-License-Identifier: ISC */
/*
 * certgen.h - a key and certificate of the device's own, made on the
 * device (ETSI EN 303 645 5.4-3: no key shared by every device of a
 * model), and what tlsgate says about any certificate it serves
 * (fingerprint, expiry).
 *
 * Owns the decision to write a service's cert/key files and the writing.
 * The key is EC P-256 from a DRBG seeded by the kernel; the certificate
 * is self-signed (ECDSA with SHA-256), valid CERTGEN_DAYS, for the
 * service's cert_names.  Start-up only, never allocates; the key and the
 * generator's state are wiped before returning.
 *
 * Made by tlsgate means: the subject holds OU=CERTGEN_OU next to
 * O=CERTGEN_O, the issuer is the same name, and the signature verifies
 * with the certificate's own public key.  A certificate an operator
 * bought or made would have to copy that marker and be self-signed to be
 * taken for one; one that is not so is never touched.
 */
#ifndef TLSGATE_CERTGEN_H
#define TLSGATE_CERTGEN_H

#include <stddef.h>
#include <stdint.h>

#include "certname.h"
#include "config.h"

#define CERTGEN_O	"tlsgate"
#define CERTGEN_OU	"made on this device by tlsgate"
#define CERTGEN_DAYS	397	/* the CA/Browser Forum's longest */
#define CERTGEN_RENEW_DAYS 30	/* remade when it has fewer left */

/*
 * The names a certificate of s is made for: its cert_names, else the
 * host name, <host name>.local and each listen address that is not a
 * wildcard (no name at all: "localhost").  Returns the count.
 */
unsigned certgen_names(const struct service *s,
	    char names[CERTNAME_MAX][CERTNAME_LEN]);
/*
 * For each cert/key pair of s: make both when both files are missing;
 * remake them when the certificate is tlsgate's own and expires within
 * CERTGEN_RENEW_DAYS, is for other names than certgen_names(), or its
 * key is missing or not its own.  Anything else is left as it is.
 * wrote(path, reason) is called for each file written.  0, or -1 with
 * a message naming the path in err (no entropy, a file cannot be
 * written).
 */
int	certgen_service(const struct service *s, int64_t now,
	    void (*wrote)(const struct service *, const char *path,
	    const char *reason), char *err, size_t cap);

/*
 * The certificate as DER (len bytes) made now: for tests, which parse
 * it back.  Returns its length, 0 on failure.  The key is not kept.
 */
size_t	certgen_make(unsigned char *out, size_t cap,
	    char names[CERTNAME_MAX][CERTNAME_LEN], unsigned n, int64_t now);

/* The SHA-256 of a DER certificate as "AB:CD:..", as openssl prints it. */
#define CERTGEN_FP_LEN	96
void	certgen_fingerprint(const unsigned char *der, size_t len,
	    char out[CERTGEN_FP_LEN]);
/* A DER certificate's notAfter (seconds since 1970), or -1. */
int64_t	certgen_not_after(const unsigned char *der, size_t len);
/* Is this DER certificate one tlsgate made (see above)?  1 or 0. */
int	certgen_is_own(const unsigned char *der, size_t len);
/* Static bytes of this module, for the footprint. */
size_t	certgen_static_bytes(void);

#endif
