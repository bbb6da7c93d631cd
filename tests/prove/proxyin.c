/* SPDX-License-Identifier: ISC */
/*
 * make prove: proxyin_parse() on every input of every length up to
 * PROXYIN_MAX, the most a caller ever hands it.
 */
#include "__fc_builtin.h"
#include "proxyin.h"

static unsigned char buf[PROXYIN_MAX];

int
main(void)
{
	struct proxyin_hdr h;
	size_t len = Frama_C_size_t_interval(0, sizeof(buf));

	Frama_C_make_unknown((char *)buf, sizeof(buf));
	return proxyin_parse(buf, len, &h);
}
