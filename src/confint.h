/*
 * confint.h - what config.c shares with confprint.c, for that file only:
 * config.h is the contract with the rest.
 */
#ifndef TLSGATE_CONFINT_H
#define TLSGATE_CONFINT_H

#include <stddef.h>

#include "config.h"

enum kind { K_ADDR, K_STR, K_UINT, K_MS, K_TLS, K_ENUM, K_LISTEN,
	K_REDIRECT, K_CERT, K_KEY, K_NAMES, K_SUITES, K_GROUPS, K_NETS };
enum scope { GLOBAL, SERVICE };

struct key {
	const char	*name;
	enum kind	 kind;
	enum scope	 scope;
	size_t		 off;
	unsigned	 min, max;	/* K_STR: size, 0: CONFIG_PATH_MAX */
	const struct config_name *names;	/* K_ENUM */
};

/* config.c: every key, in the order -t prints them. */
extern const struct key *const config_keys;
extern const size_t config_nkeys;
/*
 * K_SUITES' and K_GROUPS' names, from the registries (tlswire.h): row i's
 * config name, the code a config_list keeps (a suite's index in
 * tls_suites[], a group's wire code) and its profiles (1 << PROFILE_*);
 * NULL past the last row.
 */
const char *config_row(enum kind, size_t i, unsigned *code,
	    unsigned *profiles);

#endif
