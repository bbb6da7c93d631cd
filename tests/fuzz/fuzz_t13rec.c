/*
 * fuzz_t13rec.c - libFuzzer target for the record protection of
 * src/t13crypto.c.
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

#include "t13crypto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static unsigned char	rec[T13_CIPHER_MAX + 64], copy[sizeof(rec)];
static struct t13_rec	out, in;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int suites[] = { SUITE_AES_128_GCM_SHA256,
	    SUITE_AES_256_GCM_SHA384, SUITE_CHACHA20_POLY1305_SHA256 };
	static const unsigned char secret[48] = { 1, 2, 3 };
	size_t len, pad, n, got, flip;
	int suite, type, rc;

	if (size < 6 || size - 6 > T13_PLAIN_MAX)
		return 0;
	suite = suites[data[0] % 3];
	type = data[1] != 0 ? data[1] : 23;
	pad = ((size_t)data[2] << 8 | data[3]) % 512;
	flip = (size_t)data[4] << 8 | data[5];
	len = size - 6;
	if (!t13_rec_init(&out, suite, secret) ||
	    !t13_rec_init(&in, suite, secret))
		abort();

	/* The input itself, as a peer's record. */
	memcpy(copy, data, size);
	rc = t13_rec_open(&in, copy, size, &got);
	if ((rc != T13_ERR_MAC && rc != T13_ERR_OVERFLOW) || in.seq != 0)
		abort();
	for (size_t i = 5; rc == T13_ERR_MAC && size >= T13_REC_OVERHEAD &&
	    i + T13_TAG_LEN < size; i++)
		if (copy[i] != 0)
			abort();

	memcpy(rec + 5, data + 6, len);
	n = t13_rec_seal(&out, rec, len, sizeof(rec), type, pad);
	if (len + pad > T13_PLAIN_MAX) {
		if (n != 0)
			abort();
		return 0;
	}
	if (n != len + pad + T13_REC_OVERHEAD || rec[0] != 23 ||
	    rec[1] != 3 || rec[2] != 3 ||
	    ((size_t)rec[3] << 8 | rec[4]) != n - 5)
		abort();

	memcpy(copy, rec, n);
	copy[flip / 8 % n] ^= (unsigned char)(1 << flip % 8);
	if (t13_rec_open(&in, copy, n, &got) != T13_ERR_MAC || in.seq != 0)
		abort();
	if (t13_rec_open(&in, rec, n, &got) != type || got != len ||
	    memcmp(rec + 5, data + 6, len) != 0 || in.seq != 1)
		abort();
	return 0;
}
