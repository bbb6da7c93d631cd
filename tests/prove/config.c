/* SPDX-License-Identifier: ISC */
/*
 * make prove: the configuration parser on any file text up to
 * TLSGATE_MAX_FILE bytes, from the built-in defaults.
 */
#include "__fc_builtin.h"
#include "config.h"
#include "defaults.h"

static char file[TLSGATE_MAX_FILE];
static struct config c;

int
main(void)
{
	char err[256];
	size_t len = Frama_C_size_t_interval(0, sizeof(file));

	if (config_defaults(&c, err, sizeof(err)) != 0)
		return 1;
	Frama_C_make_unknown(file, sizeof(file));
	return config_parse(&c, "f", file, len, err, sizeof(err));
}
