/* SPDX-License-Identifier: ISC */
/*
 * make prove: the first flight's classifier and defragmenter on every
 * input of every length up to HELLO_WIRE_MAX, a buffer of that size;
 * the hello parser on every body up to HELLO_MAX; the group choice on
 * whatever the parse left, for any preference list.
 */
#include "__fc_builtin.h"
#include "hello.h"

static unsigned char buf[HELLO_WIRE_MAX];
static unsigned char msg[HELLO_MAX];	/* a read past n's bound is out */
static unsigned pref[8];	/* any codepoints, in any order */

int
main(void)
{
	struct hello_peek pk;
	struct hello h;
	size_t len = Frama_C_size_t_interval(0, sizeof(buf)), n;
	unsigned group;

	Frama_C_make_unknown((char *)buf, sizeof(buf));
	if (hello_classify(buf, len, sizeof(buf), &pk) == HELLO_WHOLE)
		(void)hello_defrag(buf, pk.end);
	Frama_C_make_unknown((char *)msg, sizeof(msg));
	n = Frama_C_size_t_interval(0, sizeof(msg));
	if (hello_parse(msg, n, &h) != 0)
		return 0;
	Frama_C_make_unknown((char *)pref, sizeof(pref));
	return (int)hello_choose_group(&h, pref, Frama_C_size_t_interval(0,
	    8), &group);
}
