/* SPDX-License-Identifier: ISC */
/*
 * hellobuf.h - what test_hello.c and fuzz_hello.c check of a parsed
 * hello (struct hello, src/hello.h), kept once: that its spans lie in
 * the message, and that two parses are the same.  Static functions: a
 * test file includes it once.
 */
#ifndef TLSGATE_HELLOBUF_H
#define TLSGATE_HELLOBUF_H

#include <string.h>

#include "hello.h"

/* Every span the parser returns (offset 0: none) lies in the message. */
static int
inside(const struct hello *h, size_t len)
{
	const size_t span[][2] = { { h->random, 32 }, { h->sid, h->sid_len },
	    { h->psk_ids, h->psk_ids_len }, { h->psk_binders, 2 },
	    { h->host, h->host_len }, { h->alpn, h->alpn_len } };

	for (size_t i = 0; i < sizeof(span) / sizeof(span[0]); i++)
		if (span[i][0] != 0 &&
		    (span[i][0] > len || span[i][1] > len - span[i][0]))
			return 0;
	for (size_t i = 0; i < tls_ngroups; i++)
		if (h->share_at[i] != 0 && (h->share_at[i] > len ||
		    tls_groups[i].share > len - h->share_at[i]))
			return 0;
	return 1;
}

/* The same parse, field by field (memcmp would compare padding). */
static int
same(const struct hello *a, const struct hello *b)
{
	return a->legacy_version == b->legacy_version &&
	    a->random == b->random && a->sid == b->sid &&
	    a->sid_len == b->sid_len && a->suites == b->suites &&
	    a->scsv == b->scsv && a->v13 == b->v13 && a->exts == b->exts &&
	    a->groups == b->groups && a->shares == b->shares &&
	    memcmp(a->share_at, b->share_at, sizeof(a->share_at)) == 0 &&
	    a->sigalgs == b->sigalgs && a->psk_dhe_ke == b->psk_dhe_ke &&
	    a->psk_ids == b->psk_ids && a->psk_ids_len == b->psk_ids_len &&
	    a->psk_count == b->psk_count &&
	    a->psk_binders == b->psk_binders && a->host == b->host &&
	    a->host_len == b->host_len && a->alpn == b->alpn &&
	    a->alpn_len == b->alpn_len && a->alpn_http11 == b->alpn_http11 &&
	    a->v12 == b->v12 && a->suites12 == b->suites12 &&
	    a->reneg_scsv == b->reneg_scsv && a->reneg_bad == b->reneg_bad &&
	    a->ecpf_uncompressed == b->ecpf_uncompressed &&
	    a->obsolete == b->obsolete && a->mfl == b->mfl &&
	    a->alert12 == b->alert12 && a->why12 == b->why12 &&
	    a->why == b->why;
}

#endif
