/*
 * fuzz_hello.c - libFuzzer target for src/hello.c.
 *
 * The input is a client's first bytes (seeds: real ClientHellos from
 * openssl s_client).  Invariants checked, each with abort():
 *  - an alert is decode_error or illegal_parameter, comes with a
 *    reason, and never with an ALPN offer;
 *  - an offer needs the name inside the first record, preceded by its
 *    length byte;
 *  - bytes after the first record never change the answer;
 *  - the same bytes give the same answer (no state).
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
	struct hello h, again;
	size_t rec, i;

	hello_look(data, size, name + 1, &h);
	hello_look(data, size, "http/1.1", &again);
	if (memcmp(&h, &again, sizeof(h)) != 0)
		abort();
	if (h.alert != 0 && ((h.alert != 47 && h.alert != 50) ||
	    h.why == NULL || h.offers))
		abort();
	if ((!h.offers && h.alert == 0) || size < 5)
		return 0;
	rec = 5 + ((size_t)data[3] << 8 | data[4]);
	if (rec > size)
		abort();
	for (i = 0; h.offers && i + 9 <= rec; i++)
		if (memcmp(data + i, name, 9) == 0)
			break;
	if (h.offers && i + 9 > rec)
		abort();
	if (rec + 100 > sizeof(more))
		return 0;
	memcpy(more, data, rec);
	memset(more + rec, 0x16, 100);
	hello_look(more, rec + 100, "http/1.1", &again);
	if (again.offers != h.offers || again.alert != h.alert)
		abort();
	return 0;
}
