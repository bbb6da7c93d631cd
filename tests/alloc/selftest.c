/* SPDX-License-Identifier: ISC */
/*
 * selftest.c - proves allocshim counts: allocates after a first poll(),
 * so the shim must report malloc=1 calloc=1 realloc=1 for it.
 */
#include <poll.h>
#include <stdlib.h>

int
main(void)
{
	void *p, *q;

	(void)poll(NULL, 0, 0);
	p = malloc(16);
	q = calloc(1, 16);
	p = realloc(p, 64);
	free(p);
	free(q);
	return 0;
}
