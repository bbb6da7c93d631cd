/* SPDX-License-Identifier: ISC */
/*
 * make prove: der_get(), der_time_parse(), der_get_time() and
 * der_signed() on every input of every length up to TLSGATE_MAX_CHAIN,
 * a whole certificate chain's bytes.
 */
#include "__fc_builtin.h"
#include "defaults.h"
#include "der.h"

static unsigned char buf[TLSGATE_MAX_CHAIN];

int
main(void)
{
	const unsigned char *p = buf, *c;
	size_t len = Frama_C_size_t_interval(0, sizeof(buf)), clen;
	unsigned tag = Frama_C_unsigned_int_interval(0, 255);
	struct der_signed s;

	Frama_C_make_unknown((char *)buf, sizeof(buf));
	if (tag == 0)
		return der_signed(buf, len, &s) == 0 &&
		    der_get_time(&s.body, &s.bodylen) < 0;
	if (der_get(&p, &len, tag, &c, &clen) < 0)
		return 0;
	return der_time_parse(tag, c, clen) < 0;
}
