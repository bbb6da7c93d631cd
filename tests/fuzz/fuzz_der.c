/* SPDX-License-Identifier: ISC */
/*
 * fuzz_der.c - libFuzzer target for what src/certgen.c reads of a
 * certificate through src/der.c: the notAfter every served certificate
 * is asked for, and the "made by tlsgate" judgement.
 *
 * The input is a DER certificate (seeds: one tlsgate made, one openssl
 * made).  The input is copied into a heap block of exactly its length,
 * so that a read past it is caught.  Invariants checked, with abort():
 *  - the same bytes give the same answers (no state);
 *  - a notAfter is -1 or within RFC 5280's years (1950 to 9999);
 *  - a certificate taken for tlsgate's own has a notAfter.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "certgen.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *der = malloc(size ? size : 1);
	int64_t end;
	int own;

	if (der == NULL)
		return 0;
	memcpy(der, data, size);
	end = certgen_not_after(der, size);
	own = certgen_is_own(der, size);
	if (end != certgen_not_after(der, size) ||
	    own != certgen_is_own(der, size))
		abort();
	if (end != -1 && (end < -631152000 || end > 253402300799))
		abort();
	if (own && end == -1)
		abort();
	free(der);
	return 0;
}
