/* SPDX-License-Identifier: ISC */
/*
 * cache.c - see cache.h.
 *
 * Each way of a set has a rank, 0 for the most recently used up to
 * ways - 1 for the least: the ranks of a set are always a permutation.
 * A way that is put or looked up moves to rank 0, one that is removed
 * to the last rank, so the unused ways are always the highest ranks and
 * the way to fill is simply the one with the highest rank.  Ranks are
 * only ever compared, never used as indexes: a store left half-updated
 * by a dead process can lose entries but not send a call outside its
 * set.
 *
 * The wipe and the constant-time compare are wipe.h's, a leaf header,
 * so that the module still needs nothing beyond the C library.
 */
#include <string.h>

#include "cache.h"
#include "wipe.h"

/* No padding: entries are copied whole and wiped whole. */
_Static_assert(sizeof(struct cache_entry) == 92, "cache_entry has padding");
_Static_assert(CACHE_WAYS >= 1 && CACHE_WAYS <= 256, "a rank is a byte");

/* The set of `id`, its number of ways in *ways; NULL if c holds none. */
static struct cache_entry *
set_of(const struct cache *c, struct cache_entry *store,
    const unsigned char *id, unsigned *ways)
{
	uint32_t h, s;

	if (c->nsets == 0)
		return NULL;
	h = (uint32_t)id[0] << 24 | (uint32_t)id[1] << 16 |
	    (uint32_t)id[2] << 8 | id[3];
	s = h % c->nsets;
	*ways = c->n - s * CACHE_WAYS < CACHE_WAYS ?
	    c->n - s * CACHE_WAYS : CACHE_WAYS;
	return store + c->first + (size_t)s * CACHE_WAYS;
}

/* The way of set holding `id`, or -1: every way is compared. */
static int
find(const struct cache_entry *set, unsigned ways, const unsigned char *id)
{
	int k = -1;

	for (unsigned i = 0; i < ways; i++)
		if (ct_eq(set[i].id, id, CACHE_ID_LEN) & (set[i].version != 0))
			k = (int)i;
	return k;
}

/* Move way k to rank 0 (front) or to the last rank, shifting the rest. */
static void
move(struct cache_entry *set, unsigned ways, unsigned k, int front)
{
	unsigned r = set[k].rank;

	for (unsigned i = 0; i < ways; i++) {
		if (front && set[i].rank < r)
			set[i].rank++;
		else if (!front && set[i].rank > r)
			set[i].rank--;
	}
	set[k].rank = (uint8_t)(front ? 0 : ways - 1);
}

/* Zero way k, secret and all, and make it the first to be reused. */
static void
drop(struct cache_entry *set, unsigned ways, unsigned k)
{
	uint8_t r = set[k].rank;

	wipe(&set[k], sizeof(set[k]));
	set[k].rank = r;
	move(set, ways, k, 0);
}

void
cache_init(struct cache *c, struct cache_entry *store, size_t first,
    size_t n)
{
	c->first = (uint32_t)first;
	c->n = (uint32_t)n;
	c->nsets = (uint32_t)((n + CACHE_WAYS - 1) / CACHE_WAYS);
	cache_wipe(c, store);
}

void
cache_wipe(struct cache *c, struct cache_entry *store)
{
	for (uint32_t i = 0; i < c->n; i++) {
		wipe(&store[c->first + i], sizeof(*store));
		store[c->first + i].rank = (uint8_t)(i % CACHE_WAYS);
	}
}

int
cache_get(struct cache *c, struct cache_entry *store,
    const unsigned char id[CACHE_ID_LEN], uint32_t now, uint32_t max_age,
    struct cache_entry *out)
{
	struct cache_entry *set;
	unsigned ways;
	int k;

	if ((set = set_of(c, store, id, &ways)) == NULL ||
	    (k = find(set, ways, id)) < 0)
		return 0;
	if ((uint32_t)(now - set[k].born) >= max_age) {
		drop(set, ways, (unsigned)k);
		return 0;
	}
	*out = set[k];
	move(set, ways, (unsigned)k, 1);
	return 1;
}

void
cache_put(struct cache *c, struct cache_entry *store,
    const struct cache_entry *e)
{
	struct cache_entry *set;
	unsigned ways, k;
	uint8_t r;
	int same;

	if ((set = set_of(c, store, e->id, &ways)) == NULL)
		return;
	if ((same = find(set, ways, e->id)) >= 0) {
		k = (unsigned)same;
	} else {
		k = 0;
		for (unsigned i = 1; i < ways; i++)
			if (set[i].rank > set[k].rank)
				k = i;
	}
	/* The whole entry is overwritten: the old secret with it. */
	r = set[k].rank;
	set[k] = *e;
	set[k].rank = r;
	set[k].pad = 0;
	move(set, ways, k, 1);
}
