/* SPDX-License-Identifier: ISC */
/*
 * fuzz_config.c - libFuzzer target for the config parser: any bytes as
 * a config file.  Invariants: it never crashes or reads out of bounds;
 * on success every value is within its compile-time range and every
 * service is complete, its suites and groups lists too; on failure the message names the file (and the
 * line, for all but the checks made after the last line).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "defaults.h"
#include "tlswire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	char err[512];

	if (config_defaults(&c, err, sizeof(err)) < 0)
		abort();
	if (config_parse(&c, "f", (const char *)data, size, err,
	    sizeof(err)) == 0) {
		unsigned cache = 0;

		if (c.slots < 1 || c.slots > TLSGATE_MAX_SLOTS ||
		    c.redirect_slots < 1 || c.redirect_slots > TLSGATE_MAX_PLAIN ||
		    c.workers < 1 || c.workers > TLSGATE_MAX_WORKERS ||
		    c.log_level > 3 || c.nsvc < 1 ||
		    c.nsvc > TLSGATE_MAX_SERVICES)
			abort();
		for (unsigned i = 0; i < c.nsvc; i++) {
			const struct service *s = &c.svc[i];

			cache += s->cache;
			if (s->nlisten < 1 || s->nlisten > TLSGATE_MAX_LISTEN ||
			    s->nredirect > TLSGATE_MAX_LISTEN || s->acme > 1 ||
			    (s->acme && s->proxy != 0) ||
			    s->ncerts < 1 || s->ncerts > TLSGATE_MAX_SVC_CERTS ||
			    s->tls_min < 0x0303 || s->tls_min > s->tls_max ||
			    s->tls_max < 0x0303 || s->tls_max > 0x0304 ||
			    s->ems_required > 1 ||
			    s->mode > 1 || s->proxy > 2 ||
			    memchr(s->certs[0].key, 0, CONFIG_PATH_MAX) == NULL ||
			    s->certs[0].key[0] == '\0')
				abort();
			/* suites and groups: some, each once, AEAD only. */
			if (s->groups.n < 1 || s->groups.n > tls_ngroups ||
			    s->suites.n < 1 || s->suites.n > TLS_NSUITES ||
			    s->profile > PROFILE_MODERN)
				abort();
			for (unsigned j = 0; j < s->suites.n; j++) {
				if (s->suites.v[j] >= TLS_NSUITES)
					abort();
				for (unsigned k = 0; k < j; k++)
					if (s->suites.v[k] == s->suites.v[j])
						abort();
			}
			for (unsigned j = 0; j < s->groups.n; j++) {
				if (tls_group_find(s->groups.v[j]) == NULL)
					abort();
				for (unsigned k = 0; k < j; k++)
					if (s->groups.v[k] == s->groups.v[j])
						abort();
			}
		}
		if (cache > TLSGATE_MAX_CACHE)
			abort();
	} else if (strncmp(err, "f:", 2) != 0 && strncmp(err, "f: ", 3) != 0)
		abort();
	return 0;
}
