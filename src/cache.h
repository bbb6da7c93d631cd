/* SPDX-License-Identifier: ISC */
/*
 * cache.h - tlsgate's session cache: TLS 1.2 sessions and TLS 1.3
 * tickets alike, each keyed by the 32-byte ID the server drew (the 1.2
 * session ID, the 1.3 ticket identity).
 *
 * Owns: the entries of each cache, their LRU order and their expiry.
 * One cache a service, each a range of entries of one store the caller
 * provides (static, or shared by forked workers).
 *
 * Never: allocates, locks, reads the clock, keeps global state, stores a
 * pointer (inside the store and in struct cache there are indexes only,
 * so both may sit in shared memory that each process maps where it
 * likes), or touches an entry outside the cache's own range.
 *
 * Locking: none here.  The caller holds one lock (process-shared when
 * the store is) around every call.  A process that died inside a call
 * may have left its cache half-updated: call cache_init() again on it
 * (the entries are lost, nothing worse).
 *
 * Design: set-associative.  The entries form sets of CACHE_WAYS (the
 * last set may be smaller); an ID's set is its first four bytes, read
 * big-endian, modulo the number of sets.  A call compares the ID with
 * the ways of that one set and no other (CACHE_WAYS comparisons at most,
 * each in constant time), whatever ID a client sends.  Within a set the
 * least recently used entry is evicted first; an entry that is put or
 * looked up becomes the most recently used.  The set is not keyed: the
 * IDs are random bytes the server drew, so a client cannot choose which
 * set its sessions fill.
 *
 * Secrets: an entry that is removed (expired, evicted or replaced) is
 * zeroed in the store; cache_wipe() zeroes them all.  A copy handed out
 * by cache_get() is the caller's to wipe.
 *
 * Typical use (every call under the lock):
 *
 *	cache_init(&c[0], store, 0, n0);	  at start-up, each service
 *	cache_init(&c[1], store, n0, n1);	  in its own range
 *	cache_put(&c[i], store, &e);		  after a full handshake
 *	cache_get(&c[i], store, id, now, max_age, &e)	  on resumption
 */
#ifndef TLSGATE_CACHE_H
#define TLSGATE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define CACHE_ID_LEN		32
#define CACHE_SECRET_MAX	48	/* SHA-384 */
#define CACHE_WAYS		8	/* entries of a set */

#define CACHE_EMS		0x01	/* flags: extended master secret (RFC 7627) */

struct cache_entry {
	unsigned char	id[CACHE_ID_LEN];
	unsigned char	secret[CACHE_SECRET_MAX]; /* 1.2 master secret, 1.3 PSK */
	uint8_t		secret_len;
	uint8_t		flags;			/* CACHE_EMS */
	uint16_t	version;		/* 0x0303, 0x0304; 0: unused */
	uint16_t	suite;
	uint8_t		rank;			/* the module's: LRU order */
	uint8_t		pad;			/* zero */
	uint32_t	born;			/* the caller's clock, seconds */
};

/* One cache: store[first .. first + n), in sets of CACHE_WAYS. */
struct cache {
	uint32_t	first, n, nsets;
};

/*
 * Make `c` the cache of the n entries at store[first], every one unused
 * and zeroed.  Preconditions: store holds at least first + n entries,
 * first + n <= UINT32_MAX.  n = 0 is a cache that holds nothing.
 */
void	cache_init(struct cache *c, struct cache_entry *store, size_t first,
	    size_t n);

/*
 * Look up `id`.  An entry younger than max_age seconds at `now` (now -
 * born < max_age, computed modulo 2^32: an entry born after `now` is
 * expired) is copied to *out and becomes the most recently used; an
 * older one is removed and counts as a miss.  Returns 1 if *out was
 * filled, 0 otherwise (*out untouched).  `store` is the base that
 * cache_init() was given, mapped at any address.
 */
int	cache_get(struct cache *c, struct cache_entry *store,
	    const unsigned char id[CACHE_ID_LEN], uint32_t now, uint32_t max_age,
	    struct cache_entry *out);

/*
 * Store a copy of *e (its rank and pad are ignored) as the most recently
 * used entry: in place of the entry with the same ID if there is one,
 * else in an unused way of its set, else in place of the set's least
 * recently used entry.  Precondition: e->version != 0 and e->secret_len
 * <= CACHE_SECRET_MAX.  With n = 0 nothing is stored.
 */
void	cache_put(struct cache *c, struct cache_entry *store,
	    const struct cache_entry *e);

/* Remove every entry of `c`: every secret zeroed. */
void	cache_wipe(struct cache *c, struct cache_entry *store);

#endif
