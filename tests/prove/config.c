/* SPDX-License-Identifier: ISC */
/*
 * make prove: the configuration file's line tokenizer, split_line(), on
 * every line of every length up to TLSGATE_MAX_FILE, the file's bound.
 * It is static, so this includes config.c; what the tokens then feed
 * (the value parsers, the sections) is not analysed here.  confkeys.c,
 * tlswire.c and log.c come along (run.sh) for the tables config.c names:
 * without their sizes Eva warns at start-up and the harness fails.
 */
#include "__fc_builtin.h"
#include "../../src/config.c"

static char file[TLSGATE_MAX_FILE];

int
main(void)
{
	const char *k, *ke, *v, *ve;
	size_t len = Frama_C_size_t_interval(0, sizeof(file));
	int kind;

	Frama_C_make_unknown(file, sizeof(file));
	kind = split_line(file, file + len, &k, &ke, &v, &ve);
	/* What config_parse() then reads of the tokens. */
	if (kind == LINE_BLANK || kind == LINE_CTL)
		return kind;
	return k[0] + (k < ve ? ve[-1] : 0) + (v < ve ? v[0] : 0);
}
