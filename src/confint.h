/* SPDX-License-Identifier: ISC */
/*
 * confint.h - what config.c, confkeys.c and confprint.c share, for them only:
 * config.h is the contract with the rest.
 */
#ifndef TLSGATE_CONFINT_H
#define TLSGATE_CONFINT_H

#include <stddef.h>

#include "config.h"

enum kind { K_ADDR, K_STR, K_UINT, K_MS, K_TLS, K_ENUM, K_LEVEL, K_LISTEN,
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

/* confkeys.c: every key, in the order -t prints them. */
#define CONFIG_KEYS_MAX	64	/* room config.c keeps per key */
extern const struct key config_keys[];
extern const size_t config_nkeys;
/*
 * Name i a K_ENUM, K_LEVEL (log.h's), K_SUITES or K_GROUPS (tlswire.h's
 * registries) key takes, its code and profiles (1 << PROFILE_*); NULL
 * past the last.
 */
const char *config_row(const struct key *, size_t i, unsigned *code,
	    unsigned *profiles);
/* A number of key k as the file would say it: durations with a unit. */
void	config_value_str(const struct key *k, unsigned u, char *buf,
	    size_t cap);

#endif
