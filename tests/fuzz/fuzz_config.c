/*
 * fuzz_config.c - libFuzzer target for the config parser: any bytes as
 * a config file.  Invariants: it never crashes or reads out of bounds;
 * on success every value is within its compile-time range; on failure
 * the message names the file and a line number.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "defaults.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	char err[512];

	config_defaults(&c);
	if (config_parse(&c, "f", (const char *)data, size, err,
	    sizeof(err)) == 0) {
		if (c.slots < 1 || c.slots > TLSGATE_MAX_SLOTS ||
		    c.cache > TLSGATE_MAX_CACHE || c.tls_min < 0x0301 ||
		    c.tls_min > 0x0303 || c.log_level > 3 || c.mode > 1 ||
		    c.proxy > 2 || memchr(c.cert, 0, sizeof(c.cert)) == NULL)
			abort();
	} else if (strncmp(err, "f:", 2) != 0 || err[2] < '1' || err[2] > '9')
		abort();
	return 0;
}
