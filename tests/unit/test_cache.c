/* SPDX-License-Identifier: ISC */
/*
 * test_cache.c - the behaviours of src/cache.c, one test per behaviour.
 *
 * IDs are made by id_in(): the set is chosen by the first four bytes
 * (cache.h: big-endian, modulo the number of sets), the fifth tells the
 * IDs of one set apart.  Secrets are a pattern of the same two bytes, so
 * that a secret left anywhere in the store can be searched for.  Tests
 * that check nothing is touched outside a cache put guard entries
 * around it; the small stores are exactly sized locals, so that ASan
 * sees a read or write past them.
 */
#include <string.h>

#include "cache.h"
#include "unit.h"

#define MAX_AGE	3600

static struct cache_entry store[64];

/* An entry whose ID falls in set `set`, told apart by `n`. */
static struct cache_entry
id_in(unsigned set, unsigned n, uint32_t born)
{
	struct cache_entry e;

	memset(&e, 0, sizeof(e));
	memset(e.id, 0x11, sizeof(e.id));
	e.id[0] = e.id[1] = e.id[2] = 0;
	e.id[3] = (unsigned char)set;
	e.id[4] = (unsigned char)n;
	memset(e.secret, 0xc0 ^ (int)(set << 4 | (n & 15)), sizeof(e.secret));
	e.secret_len = 48;
	e.flags = CACHE_EMS;
	e.version = 0x0303;
	e.suite = 0xc02c;
	e.born = born;
	return e;
}

/* 1 if the store holds the `len` bytes at `p` anywhere. */
static int
store_has(const void *st, size_t size, const void *p, size_t len)
{
	const unsigned char *s = st;

	for (size_t i = 0; i + len <= size; i++)
		if (memcmp(s + i, p, len) == 0)
			return 1;
	return 0;
}

static int
hit(struct cache *c, struct cache_entry *st, const struct cache_entry *e,
    uint32_t now)
{
	struct cache_entry out;

	return cache_get(c, st, e->id, now, MAX_AGE, &out) &&
	    memcmp(out.secret, e->secret, sizeof(out.secret)) == 0;
}

static int
put_then_get_returns_every_field(void)
{
	struct cache c;
	struct cache_entry e = id_in(3, 1, 1000), out;

	e.secret_len = 32;
	e.version = 0x0304;
	e.suite = 0x1301;
	cache_init(&c, store, 0, 64);
	cache_put(&c, store, &e);
	memset(&out, 0xee, sizeof(out));
	CHECK(cache_get(&c, store, e.id, 1001, MAX_AGE, &out) == 1);
	CHECK(memcmp(out.id, e.id, 32) == 0);
	CHECK(memcmp(out.secret, e.secret, 48) == 0);
	CHECK(out.secret_len == 32 && out.flags == CACHE_EMS);
	CHECK(out.version == 0x0304 && out.suite == 0x1301);
	CHECK(out.born == 1000);
	return 1;
}

static int
unknown_id_misses_and_leaves_out_alone(void)
{
	struct cache c;
	struct cache_entry e = id_in(3, 1, 1000), other = id_in(3, 2, 1000);
	struct cache_entry out, before;
	unsigned char zero[32] = { 0 };

	cache_init(&c, store, 0, 64);
	memset(&out, 0xee, sizeof(out));
	before = out;
	/* An empty cache: its unused entries' IDs are zero. */
	CHECK(cache_get(&c, store, zero, 1000, MAX_AGE, &out) == 0);
	cache_put(&c, store, &e);
	CHECK(cache_get(&c, store, other.id, 1000, MAX_AGE, &out) == 0);
	CHECK(cache_get(&c, store, zero, 1000, MAX_AGE, &out) == 0);
	CHECK(memcmp(&out, &before, sizeof(out)) == 0);
	return 1;
}

static int
full_set_evicts_its_least_recently_used(void)
{
	struct cache c;
	struct cache_entry e[CACHE_WAYS + 2], s1 = id_in(1, 0, 1000);

	/* Two sets: filling set 0 past its ways leaves set 1 alone. */
	cache_init(&c, store, 0, 2 * CACHE_WAYS);
	for (unsigned i = 0; i < CACHE_WAYS + 2; i++)
		e[i] = id_in(0, i, 1000);
	cache_put(&c, store, &s1);
	for (unsigned i = 0; i < CACHE_WAYS; i++)
		cache_put(&c, store, &e[i]);
	for (unsigned i = 0; i < CACHE_WAYS; i++)
		CHECK(hit(&c, store, &e[i], 1000));
	/* Order now e0 (oldest) .. e7; looking e0 up makes e1 the oldest. */
	CHECK(hit(&c, store, &e[0], 1000));
	cache_put(&c, store, &e[CACHE_WAYS]);
	CHECK(!hit(&c, store, &e[1], 1000));
	CHECK(hit(&c, store, &e[0], 1000));
	cache_put(&c, store, &e[CACHE_WAYS + 1]);
	CHECK(!hit(&c, store, &e[2], 1000));
	for (unsigned i = 3; i < CACHE_WAYS + 2; i++)
		CHECK(hit(&c, store, &e[i], 1000));
	CHECK(hit(&c, store, &e[0], 1000));
	CHECK(hit(&c, store, &s1, 1000));
	return 1;
}

static int
entry_older_than_max_age_misses_and_is_gone(void)
{
	struct cache c;
	struct cache_entry e = id_in(5, 1, 1000), out;

	cache_init(&c, store, 0, 64);
	cache_put(&c, store, &e);
	CHECK(cache_get(&c, store, e.id, 1000 + MAX_AGE - 1, MAX_AGE, &out));
	CHECK(!cache_get(&c, store, e.id, 1000 + MAX_AGE, MAX_AGE, &out));
	CHECK(!cache_get(&c, store, e.id, 1000, MAX_AGE, &out));
	CHECK(!store_has(store, sizeof(store), e.secret, 48));
	/* Born after now (the clock went back): expired too. */
	cache_put(&c, store, &e);
	CHECK(!cache_get(&c, store, e.id, 999, MAX_AGE, &out));
	CHECK(!cache_get(&c, store, e.id, 1000, MAX_AGE, &out));
	/* Across the clock's wrap: still its age that counts. */
	e.born = 0xfffffff0u;
	cache_put(&c, store, &e);
	CHECK(cache_get(&c, store, e.id, 0x10, MAX_AGE, &out));
	return 1;
}

static int
put_of_same_id_replaces_it(void)
{
	struct cache c;
	struct cache_entry a = id_in(2, 1, 1000), b = a, out;
	unsigned used = 0;

	memset(b.secret, 0x77, sizeof(b.secret));
	b.suite = 0xc030;
	cache_init(&c, store, 0, 64);
	cache_put(&c, store, &a);
	cache_put(&c, store, &b);
	CHECK(cache_get(&c, store, a.id, 1000, MAX_AGE, &out));
	CHECK(out.suite == 0xc030 && memcmp(out.secret, b.secret, 48) == 0);
	for (unsigned i = 0; i < 64; i++)
		used += store[i].version != 0;
	CHECK(used == 1);
	CHECK(!store_has(store, sizeof(store), a.secret, 48));
	return 1;
}

/*
 * A client's ID is compared with the ways of its own set only: planted
 * in every other entry of the store it is not found, so no lookup
 * compares more than CACHE_WAYS entries.
 */
static int
lookup_reads_only_the_ids_set(void)
{
	struct cache c;
	struct cache_entry evil = id_in(5, 0xee, 1000), out;
	uint8_t rank;

	cache_init(&c, store, 0, 64);		/* 8 sets */
	for (unsigned i = 0; i < CACHE_WAYS; i++) {
		struct cache_entry e = id_in(5, i, 1000);

		cache_put(&c, store, &e);
	}
	for (unsigned i = 0; i < 64; i++) {
		if (i / CACHE_WAYS == 5)
			continue;
		rank = store[i].rank;
		store[i] = evil;
		store[i].rank = rank;
	}
	CHECK(!cache_get(&c, store, evil.id, 1000, MAX_AGE, &out));
	/* The same ID in its own set is found. */
	cache_put(&c, store, &evil);
	CHECK(cache_get(&c, store, evil.id, 1000, MAX_AGE, &out));
	return 1;
}

static int
evicted_secret_is_overwritten(void)
{
	struct cache c;
	struct cache_entry st[CACHE_WAYS], e[CACHE_WAYS + 1];

	cache_init(&c, st, 0, CACHE_WAYS);
	for (unsigned i = 0; i <= CACHE_WAYS; i++) {
		e[i] = id_in(0, i, 1000);
		cache_put(&c, st, &e[i]);
	}
	CHECK(!store_has(st, sizeof(st), e[0].secret, 48));
	CHECK(store_has(st, sizeof(st), e[1].secret, 48));
	return 1;
}

static int
wipe_removes_every_entry(void)
{
	struct cache c;
	struct cache_entry e[16], out;

	cache_init(&c, store, 0, 64);
	for (unsigned i = 0; i < 16; i++) {
		e[i] = id_in(i % 8, i, 1000);
		cache_put(&c, store, &e[i]);
	}
	cache_wipe(&c, store);
	for (unsigned i = 0; i < 16; i++) {
		CHECK(!cache_get(&c, store, e[i].id, 1000, MAX_AGE, &out));
		CHECK(!store_has(store, sizeof(store), e[i].secret, 48));
	}
	cache_put(&c, store, &e[0]);		/* usable again */
	CHECK(hit(&c, store, &e[0], 1000));
	return 1;
}

static int
cache_of_size_0_holds_nothing_and_touches_nothing(void)
{
	struct cache c;
	struct cache_entry st[2], guard[2], e = id_in(0, 1, 1000), out;

	memset(st, 0xaa, sizeof(st));
	memcpy(guard, st, sizeof(st));
	cache_init(&c, st, 1, 0);
	cache_put(&c, st, &e);
	CHECK(!cache_get(&c, st, e.id, 1000, MAX_AGE, &out));
	cache_wipe(&c, st);
	CHECK(memcmp(st, guard, sizeof(st)) == 0);
	return 1;
}

static int
cache_of_size_1_keeps_the_latest(void)
{
	struct cache c;
	struct cache_entry st[1], a = id_in(0, 1, 1000), b = id_in(7, 2, 1000);

	cache_init(&c, st, 0, 1);
	cache_put(&c, st, &a);
	CHECK(hit(&c, st, &a, 1000));
	cache_put(&c, st, &b);
	CHECK(!hit(&c, st, &a, 1000));
	CHECK(hit(&c, st, &b, 1000));
	CHECK(!store_has(st, sizeof(st), a.secret, 48));
	return 1;
}

/* 10 entries: a set of 8 and a last set of 2, nothing past either. */
static int
last_set_smaller_stays_in_its_range(void)
{
	struct cache c;
	struct cache_entry st[12], e[3];

	memset(st, 0xaa, sizeof(st));
	cache_init(&c, st, 1, 10);
	for (unsigned i = 0; i < 3; i++) {
		e[i] = id_in(1, i, 1000);
		cache_put(&c, st, &e[i]);
	}
	CHECK(!hit(&c, st, &e[0], 1000));
	CHECK(hit(&c, st, &e[1], 1000) && hit(&c, st, &e[2], 1000));
	for (size_t i = 0; i < sizeof(st[0]); i++)
		CHECK(((unsigned char *)&st[0])[i] == 0xaa &&
		    ((unsigned char *)&st[11])[i] == 0xaa);
	return 1;
}

static int
two_caches_in_one_store_keep_apart(void)
{
	struct cache a, b;
	struct cache_entry ea = id_in(1, 1, 1000), eb = ea, out;

	memset(eb.secret, 0x99, sizeof(eb.secret));
	cache_init(&a, store, 0, 16);
	cache_put(&a, store, &ea);
	cache_init(&b, store, 16, 48);		/* leaves a's entries alone */
	CHECK(hit(&a, store, &ea, 1000));
	CHECK(!cache_get(&b, store, ea.id, 1000, MAX_AGE, &out));
	cache_put(&b, store, &eb);		/* the same ID, b's secret */
	CHECK(hit(&a, store, &ea, 1000) && hit(&b, store, &eb, 1000));
	cache_wipe(&a, store);
	CHECK(!cache_get(&a, store, ea.id, 1000, MAX_AGE, &out));
	CHECK(hit(&b, store, &eb, 1000));
	cache_put(&a, store, &ea);
	cache_wipe(&b, store);
	CHECK(hit(&a, store, &ea, 1000));
	CHECK(!cache_get(&b, store, eb.id, 1000, MAX_AGE, &out));
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(put_then_get_returns_every_field),
		T(unknown_id_misses_and_leaves_out_alone),
		T(full_set_evicts_its_least_recently_used),
		T(entry_older_than_max_age_misses_and_is_gone),
		T(put_of_same_id_replaces_it),
		T(lookup_reads_only_the_ids_set),
		T(evicted_secret_is_overwritten),
		T(wipe_removes_every_entry),
		T(cache_of_size_0_holds_nothing_and_touches_nothing),
		T(cache_of_size_1_keeps_the_latest),
		T(last_set_smaller_stays_in_its_range),
		T(two_caches_in_one_store_keep_apart),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
