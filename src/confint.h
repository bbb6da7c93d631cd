/*
 * confint.h - what config.c shares with confprint.c and confproxy.c, for
 * those files only: config.h is the contract with the rest.
 */
#ifndef TLSGATE_CONFINT_H
#define TLSGATE_CONFINT_H

#include <stddef.h>

#include "config.h"
#include "httpchar.h"

enum kind { K_ADDR, K_STR, K_UINT, K_MS, K_TLS, K_ENUM, K_LISTEN,
	K_REDIRECT, K_CERT, K_KEY, K_NAMES, K_LIST, K_NETS };
enum scope { GLOBAL, SERVICE };

struct key {
	const char	*name;
	enum kind	 kind;
	enum scope	 scope;
	size_t		 off;
	unsigned	 min, max;	/* K_STR: size, 0: CONFIG_PATH_MAX */
	const struct config_name *names;	/* K_ENUM, K_LIST */
};

/* config.c: every key, in the order -t prints them. */
extern const struct key *const config_keys;
extern const size_t config_nkeys;

/*
 * Lists (cert_names, suites, groups, proxy_from) separate their items
 * by commas or blanks: skip to the next item from *at and return its
 * length, 0 when none is left.
 */
static inline size_t
next_token(const char *v, size_t len, size_t *at)
{
	size_t i = *at, j;

	while (i < len && (v[i] == ',' || is_ws(v[i])))
		i++;
	for (j = i; j < len && v[j] != ',' && !is_ws(v[j]); j++)
		;
	*at = i;
	return j - i;
}

/* confproxy.c: proxy_from's value into s: NULL, or the reason (in msg). */
const char *set_nets(struct service *s, const char *v, size_t len,
	    char *msg, size_t msgcap);

#endif
