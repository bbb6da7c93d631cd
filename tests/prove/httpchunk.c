/* SPDX-License-Identifier: ISC */
/*
 * make prove: http_chunk_feed() on every input of every length up to a
 * slot's buffer, from any walker state (the walk is incremental: each
 * call resumes from what the last one left).
 */
#include "__fc_builtin.h"
#include "defaults.h"
#include "http.h"

static uint8_t buf[TLSGATE_OBUF_SIZE];

int
main(void)
{
	struct http_chunk ch;
	size_t len = Frama_C_size_t_interval(0, sizeof(buf)), used;

	Frama_C_make_unknown((char *)buf, sizeof(buf));
	Frama_C_make_unknown((char *)&ch, sizeof(ch));
	return http_chunk_feed(&ch, buf, len, &used);
}
