/*
 * fuzz_hello.c - libFuzzer target for src/hello.c.
 *
 * The input is a client's first bytes (seeds: real ClientHellos from
 * openssl s_client).  Invariants checked, each with abort():
 *  - a yes (1) needs the name inside the first record, preceded by
 *    its length byte;
 *  - bytes after the first record never change the answer;
 *  - the answer for a name is the answer for its copy (no state).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hello.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static uint8_t	more[1 << 17];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char name[] = "\x08http/1.1";
	size_t rec;
	int r;

	r = hello_offers_alpn(data, size, name + 1);
	if (hello_offers_alpn(data, size, "http/1.1") != r)
		abort();
	if (r != 1 || size < 5)
		return 0;
	rec = 5 + ((size_t)data[3] << 8 | data[4]);
	if (rec > size)
		abort();
	for (size_t i = 0; i + 9 <= rec; i++)
		if (memcmp(data + i, name, 9) == 0)
			goto found;
	abort();
found:
	if (rec + 100 > sizeof(more))
		return 0;
	memcpy(more, data, rec);
	memset(more + rec, 0x16, 100);
	if (hello_offers_alpn(more, rec + 100, "http/1.1") != 1 ||
	    hello_offers_alpn(more, rec, "http/1.1") != 1)
		abort();
	return 0;
}
