/* SPDX-License-Identifier: ISC */
/*
 * eng.c - where a connection's engine starts: the client's first hello,
 * parsed, chooses the version's handshake class (engint.h) once.  The
 * one file that names both classes, so that neither handshake nor the
 * record layer calls back into the other.
 */
#include <string.h>

#include "engint.h"

int
eng_start(struct eng *c, unsigned char *ibuf, size_t ilen,
    unsigned char *obuf, size_t olen, const unsigned char *m, size_t len,
    const struct eng_ops *ops)
{
	struct hello h;
	unsigned alert;

	memset(c, 0, sizeof(*c));
	c->hs = &hs12_class;
	c->ibuf = ibuf;
	c->obuf = obuf;
	c->olen = olen;
	c->ops = ops;
	/* Records are read whole into ibuf: it must hold the largest. */
	if (ilen < ENG_IBUF_SIZE)
		alert = BR_ALERT_INTERNAL_ERROR;
	else if ((alert = hello_parse(m, len, &h)) != 0)
		c->reason = h.why;
	else {
		c->mfl = h.mfl;
		if (h.v13 && ops->vmax >= TLS13)
			c->hs = &hs13_class;
		alert = c->hs->hello(c, m, len, &h);
	}
	if (alert != 0)
		eng_fail(c, alert);
	eng_pump(c);
	return (int)alert;
}
