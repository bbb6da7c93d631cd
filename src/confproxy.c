/*
 * confproxy.c - proxy_from: the balancers whose PROXY header a service
 * believes, as the config lists them and as a source is checked against
 * them.
 */
#include <stdio.h>
#include <string.h>

#include "confint.h"

/* proxy_from: IPv4 and IPv6 addresses or prefixes, or "none". */
const char *
set_nets(struct service *s, const char *v, size_t len, char *msg,
    size_t msgcap)
{
	size_t i = 0, n;
	const char *why;

	s->nproxy_from = 0;
	if (len == 4 && memcmp(v, "none", 4) == 0)
		return NULL;
	for (; (n = next_token(v, len, &i)) > 0; i += n) {
		if (s->nproxy_from == TLSGATE_MAX_PROXY_FROM)
			return "too many prefixes (TLSGATE_MAX_PROXY_FROM)";
		why = proxyin_net_parse(&s->proxy_from[s->nproxy_from], v + i,
		    n);
		if (why != NULL) {
			snprintf(msg, msgcap, "\"%.*s\": %s", (int)n, v + i, why);
			return msg;
		}
		s->nproxy_from++;
	}
	return s->nproxy_from == 0 ? "an empty list (none: no source)" : NULL;
}

int
config_proxy_trusted(const struct service *s, const struct port_addr *a)
{
	uint8_t ip[16];
	size_t n = port_addr_raw(a, ip);

	return proxyin_trusted(s->proxy_from, s->nproxy_from, ip, n);
}
