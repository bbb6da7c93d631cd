/* SPDX-License-Identifier: ISC */
/*
 * fuzz_crl.c - libFuzzer target for src/crl.c: the CRL parse, the walk
 * of its revoked entries, crl_add() up to the signature check, and the
 * leaf walk that reads a client certificate's serial and issuer as its
 * bytes stream by.
 *
 * The input is a DER CRL or certificate (seeds: a CRL `openssl ca
 * -gencrl` made, and a certificate).  It is copied into a heap block
 * of exactly its length, so that a read past it is caught.  Invariants
 * checked, with abort():
 *  - the same bytes parse the same way (no state);
 *  - a parsed CRL's issuer, revoked list and signature lie inside it,
 *    its thisUpdate is a time, every serial is 1 to 21 bytes;
 *  - crl_add() with a CA named as the issuer (a key that cannot have
 *    signed it) refuses it and leaves the set as it was;
 *  - the leaf walk gives the same serial and issuer whether the bytes
 *    come at once or one at a time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crl.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct crl_set set;

static int
inside(const unsigned char *p, size_t n, const unsigned char *b, size_t len)
{
	return n == 0 || (p >= b && p + n <= b + len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *der = malloc(size ? size : 1);
	static const unsigned char q[65] = { 4 };	/* not on the curve */
	struct crl_view v, v2;
	struct crl_serial s;
	struct crl_leaf a, b;
	br_x509_trust_anchor ta;
	const unsigned char *p;
	const char *why;
	size_t n;
	int rc;

	if (der == NULL)
		return 0;
	memcpy(der, data, size);
	rc = crl_parse(der, size, &v, &why);
	if (rc != crl_parse(der, size, &v2, &why))
		abort();
	if (rc == 0) {
		if (!inside(v.issuer, v.issuerlen, der, size) ||
		    !inside(v.revoked, v.revokedlen, der, size) ||
		    !inside(v.s.sig, v.s.siglen, der, size) || v.this_update < 0)
			abort();
		p = v.revoked;
		n = v.revokedlen;
		while ((rc = crl_next(&p, &n, &s)) == 1)
			if (s.len < 1 || s.len > CRL_SERIAL_MAX)
				abort();
		memset(&ta, 0, sizeof(ta));
		ta.dn.data = (unsigned char *)(uintptr_t)v.issuer;
		ta.dn.len = v.issuerlen;
		ta.flags = BR_X509_TA_CA;
		ta.pkey.key_type = BR_KEYTYPE_EC;
		ta.pkey.key.ec.curve = BR_EC_secp256r1;
		ta.pkey.key.ec.q = (unsigned char *)(uintptr_t)q;
		ta.pkey.key.ec.qlen = sizeof(q);
		crl_set_init(&set);
		if (crl_add(&set, der, size, &ta, 1, &why) == 0 ||
		    set.nlists != 0 || set.nserials != 0)
			abort();
	}
	crl_leaf_start(&a);
	crl_leaf_feed(&a, der, size);
	crl_leaf_start(&b);
	for (size_t i = 0; i < size; i++)
		crl_leaf_feed(&b, der + i, 1);
	if (a.state != b.state || a.serial.len != b.serial.len ||
	    memcmp(a.serial.v, b.serial.v, a.serial.len) != 0 ||
	    memcmp(a.issuer, b.issuer, sizeof(a.issuer)) != 0 ||
	    a.serial.len > CRL_SERIAL_MAX)
		abort();
	free(der);
	return 0;
}
