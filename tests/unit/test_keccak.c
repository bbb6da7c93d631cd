/* SPDX-License-Identifier: ISC */
/*
 * test_keccak.c - src/keccak.c against the FIPS 202 example values and,
 * over 2,000 message and output lengths around every rate boundary,
 * against Python's hashlib: the Makefile runs tests/unit/keccak_vectors.py
 * into build/unit/keccak_vectors.txt (or the file named as argument).
 */
#include <stdlib.h>
#include <string.h>

#include "keccak.h"
#include "unit.h"

static const char *vecfile;

static void
hex(const char *s, unsigned char *out, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned v;

		sscanf(s + 2 * i, "%2x", &v);
		out[i] = (unsigned char)v;
	}
}

static void
msg(unsigned char *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		m[i] = (unsigned char)(131 * i + 7);
}

static int
fn_of(const char *name, unsigned *rate, unsigned *dsep)
{
	if (strcmp(name, "sha3_256") == 0)
		*rate = KECCAK_SHA3_256, *dsep = 0x06;
	else if (strcmp(name, "sha3_512") == 0)
		*rate = KECCAK_SHA3_512, *dsep = 0x06;
	else if (strcmp(name, "shake128") == 0)
		*rate = KECCAK_SHAKE128, *dsep = 0x1f;
	else if (strcmp(name, "shake256") == 0)
		*rate = KECCAK_SHAKE256, *dsep = 0x1f;
	else
		return 0;
	return 1;
}

/* FIPS 202's examples: the empty message, "abc", 200 bytes of 0xa3. */
static int
fips202_examples(void)
{
	unsigned char out[64], want[64], m[200];
	struct keccak k;

	sha3_256(out, "", 0);
	hex("a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
	    want, 32);
	CHECK(memcmp(out, want, 32) == 0);
	sha3_512_init(&k);
	keccak_update(&k, "abc", 3);
	keccak_out(&k, out, 64);
	hex("b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
	    "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0",
	    want, 64);
	CHECK(memcmp(out, want, 64) == 0);
	memset(m, 0xa3, sizeof(m));
	sha3_256(out, m, sizeof(m));
	hex("79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787",
	    want, 32);
	CHECK(memcmp(out, want, 32) == 0);
	shake128_init(&k);
	keccak_out(&k, out, 32);
	hex("7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26",
	    want, 32);
	CHECK(memcmp(out, want, 32) == 0);
	shake256_init(&k);
	keccak_update(&k, m, sizeof(m));
	keccak_out(&k, out, 16);
	hex("cd8a920ed141aa0407a22d59288652e9", want, 16);
	CHECK(memcmp(out, want, 16) == 0);
	/* Absorbing after the output started is ignored, not mixed in. */
	keccak_update(&k, m, 1);
	keccak_out(&k, out, 16);
	shake256_init(&k);
	keccak_update(&k, m, sizeof(m));
	keccak_out(&k, want, 32);
	CHECK(memcmp(out, want + 16, 16) == 0);
	return 1;
}

/*
 * Every line of the vector file, three ways: in one piece; absorbed in
 * pieces of 1, 2, 3, ... bytes and squeezed likewise; the output of the
 * first way must equal both.
 */
static int
hashlib_differential(void)
{
	static unsigned char m[8192], out[2048], out2[2048], want[2048];
	static char line[8192];
	unsigned rate, dsep;
	size_t n = 0;
	FILE *f;

	CHECK(vecfile != NULL);
	f = fopen(vecfile, "r");
	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		char name[16], hx[4200];
		size_t len, olen, off, step;
		struct keccak k;

		CHECK(sscanf(line, "%15s %zu %zu %4199s", name, &len, &olen,
		    hx) == 4);
		CHECK(fn_of(name, &rate, &dsep));
		CHECK(len <= sizeof(m) && olen <= sizeof(out) &&
		    strlen(hx) == 2 * olen);
		hex(hx, want, olen);
		msg(m, len);
		keccak_init(&k, rate, dsep);
		keccak_update(&k, m, len);
		keccak_out(&k, out, olen);
		if (memcmp(out, want, olen) != 0) {
			fprintf(stderr, "  %s len %zu\n", name, len);
			CHECK(0);
		}
		keccak_init(&k, rate, dsep);
		for (off = 0, step = 1; off < len; off += step, step++)
			keccak_update(&k, m + off,
			    step < len - off ? step : len - off);
		for (off = 0, step = 1; off < olen; off += step, step += 2)
			keccak_out(&k, out2 + off,
			    step < olen - off ? step : olen - off);
		CHECK(memcmp(out2, want, olen) == 0);
		n++;
	}
	fclose(f);
	printf("  %zu hashlib vectors\n", n);
	CHECK(n > 2000);
	return 1;
}

int
main(int argc, char **argv)
{
	static const struct unit_test tests[] = {
		T(fips202_examples),
		T(hashlib_differential),
	};

	vecfile = argc > 1 ? argv[1] : "build/unit/keccak_vectors.txt";
	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
