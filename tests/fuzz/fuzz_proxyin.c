/* SPDX-License-Identifier: ISC */
/*
 * fuzz_proxyin.c - libFuzzer target for src/proxyin.c.
 *
 * The input is a trusted source's first bytes (seeds: the headers
 * haproxy, nginx and tests/backend.py's peers send, v1 and v2, with and
 * without TLVs, followed by a TLS hello), and also the text of a
 * proxy_from prefix.  Invariants checked, each with abort():
 *  - an answer is OK, MORE or one named reason, the same each time;
 *  - OK: the header is at most the input and PROXYIN_MAX long, has
 *    0, 4 or 16 address bytes, none with LOCAL; bytes after it
 *    never change the answer, and any shorter prefix of it is MORE;
 *  - MORE never comes with PROXYIN_MAX bytes or more;
 *  - a prefix that parses prints as text that parses to the same, and
 *    its own address is trusted by it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxyin.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_header(const uint8_t *data, size_t size)
{
	struct proxyin_hdr h, again;
	int rc = proxyin_parse(data, size, &h);

	if (rc < 0 || rc >= PROXYIN_E_COUNT ||
	    proxyin_parse(data, size, &again) != rc ||
	    strncmp(proxyin_strerror(rc), rc == PROXYIN_OK ? "ok" : "proxy-",
	    rc == PROXYIN_OK ? 2 : 6) != 0)
		abort();
	if (rc == PROXYIN_MORE && size >= PROXYIN_MAX)
		abort();
	if (rc != PROXYIN_OK)
		return;
	if (memcmp(&h, &again, sizeof(h)) != 0 || h.len == 0 ||
	    h.len > size || h.len > PROXYIN_MAX ||
	    (h.alen != 0 && h.alen != 4 && h.alen != 16) ||
	    (h.local && h.alen != 0) || h.sport > 65535 || h.dport > 65535)
		abort();
	if (proxyin_parse(data, h.len, &again) != PROXYIN_OK ||
	    memcmp(&h, &again, sizeof(h)) != 0)
		abort();
	if (proxyin_parse(data, h.len - 1, &again) != PROXYIN_MORE ||
	    proxyin_parse(data, h.len / 2, &again) != PROXYIN_MORE)
		abort();
}

static void
check_prefix(const uint8_t *data, size_t size)
{
	struct proxyin_net n, back;
	char text[64];

	if (proxyin_net_parse(&n, (const char *)data, size) != NULL)
		return;
	if ((n.len != 4 && n.len != 16) || n.bits > 8 * n.len ||
	    !proxyin_trusted(&n, 1, n.ip, n.len))
		abort();
	proxyin_net_str(&n, text, sizeof(text));
	if (proxyin_net_parse(&back, text, strlen(text)) != NULL ||
	    memcmp(&n, &back, sizeof(n)) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_header(data, size);
	check_prefix(data, size);
	return 0;
}
