/* SPDX-License-Identifier: ISC */
/*
 * fuzz_recprot.c - libFuzzer target for the record protection of
 * src/recprot.c.
 *
 * The input is: a suite selector, an inner content type, two bytes of
 * padding length, two bytes of a bit to flip, then the content.  Each
 * input is also opened as it is, as a record from a peer.
 * Invariants checked, each with abort():
 *  - any bytes opened as a record fail with bad_record_mac or
 *    record_overflow (no key is known to the input) and leave no
 *    plaintext behind;
 *  - a sealed record has the header and length the RFC says, and opens
 *    to the same type and content, padding stripped;
 *  - the same record with one bit flipped anywhere does not open, and
 *    does not use up the sequence number.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tlscrypto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static unsigned char	rec[RP_CIPHER_MAX + 64], copy[sizeof(rec)];
static struct rp	out, in;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int suites[] = { SUITE_AES_128_GCM_SHA256,
	    SUITE_AES_256_GCM_SHA384, SUITE_CHACHA20_POLY1305_SHA256 };
	static const unsigned char secret[48] = { 1, 2, 3 };
	size_t len, pad, n, got, flip;
	int suite, type, rc;

	if (size < 6 || size - 6 > RP_PLAIN_MAX)
		return 0;
	suite = suites[data[0] % 3];
	type = data[1] != 0 ? data[1] : 23;
	pad = ((size_t)data[2] << 8 | data[3]) % 512;
	flip = (size_t)data[4] << 8 | data[5];
	len = size - 6;
	if (!rp_init(&out, suite, secret) ||
	    !rp_init(&in, suite, secret))
		abort();

	/* The input itself, as a peer's record. */
	memcpy(copy, data, size);
	rc = rp_open(&in, copy, size, &got);
	if ((rc != RP_ERR_MAC && rc != RP_ERR_OVERFLOW) || in.seq != 0)
		abort();
	for (size_t i = 5; rc == RP_ERR_MAC && size >= RP_OVERHEAD13 &&
	    i + RP_TAG_LEN < size; i++)
		if (copy[i] != 0)
			abort();

	if (len + pad > RP_PLAIN_MAX)
		return 0;
	/*
	 * Padded as a peer may pad (rp_seal() pads none): the type and all
	 * but the last zero go in as content, rp_seal() appends that zero.
	 */
	memcpy(rec + 5, data + 6, len);
	rec[5 + len] = (unsigned char)type;
	if (pad > 0)
		memset(rec + 6 + len, 0, pad - 1);
	n = pad > 0 ? rp_seal(&out, rec, len + pad, sizeof(rec), 0) :
	    rp_seal(&out, rec, len, sizeof(rec), type);
	if (n != len + pad + RP_OVERHEAD13 || rec[0] != 23 ||
	    rec[1] != 3 || rec[2] != 3 ||
	    ((size_t)rec[3] << 8 | rec[4]) != n - 5)
		abort();

	memcpy(copy, rec, n);
	copy[flip / 8 % n] ^= (unsigned char)(1 << flip % 8);
	if (rp_open(&in, copy, n, &got) != RP_ERR_MAC || in.seq != 0)
		abort();
	if (rp_open(&in, rec, n, &got) != type || got != len ||
	    memcmp(rec + 5, data + 6, len) != 0 || in.seq != 1)
		abort();
	return 0;
}
