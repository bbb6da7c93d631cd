/* SPDX-License-Identifier: ISC */
/*
 * pool.h - idle backend connections kept for the next client (http mode).
 *
 * A connection enters only at a clean end (every answer complete, with
 * known framing, no Connection: close), and leaves when a new request
 * needs a backend, when it has been idle POOL_IDLE_MS, or at a reload.
 * Without it, every client connection would cost a backend connect and
 * leave a TIME_WAIT socket on tlsgate's ephemeral ports.  A static
 * table of descriptors; never allocates.
 */
#ifndef TLSGATE_POOL_H
#define TLSGATE_POOL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Below the shortest keep-alive timeout common backends use (Apache's
 * 5 s), so that a connection is seldom taken just as its backend
 * closes it.
 */
#define POOL_IDLE_MS	4000

/* Keep up to n connections (0: none). */
void	pool_init(unsigned n);
/* Keep fd for key (the service); closes it if the pool is full. */
void	pool_put(int fd, const void *key, uint64_t now);
/*
 * The newest idle connection of key that its backend has not closed or
 * written to while it was idle; -1 if none.  Stale ones are closed.
 */
int	pool_take(const void *key, uint64_t now);
/* Close those idle too long; returns when the next one will be. */
uint64_t pool_sweep(uint64_t now);
/* Close them all (a reload may point a service elsewhere). */
void	pool_flush(void);
size_t	pool_static_bytes(void);

#endif
