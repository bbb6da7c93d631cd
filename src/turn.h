/* SPDX-License-Identifier: ISC */
/*
 * turn.h - where the loop's time goes: how long each turn took, and
 * what the slowest one did.
 *
 * A turn is the loop's work between two poll() calls.  Its duration
 * goes into a fixed log-scale histogram (four buckets a power of two:
 * a bucket's values are within 25 % of its upper bound), from which a
 * report takes the p99, p99.9 and maximum since the last report and
 * clears it.  The slowest turn's work is kept beside its duration, so
 * that a stall says what it was busy with.
 *
 * Never allocates; a turn costs a handful of stores and one compare
 * (turn_end()).  Not for several threads: the loop owns it.
 *
 * Typical use, in the loop:
 *
 *	turn_begin(t0);		after poll(), t0 in microseconds
 *	... turn_work.io++; turn_work.accepts++; ...
 *	turn_end(t1);		before the next poll(): stats.turns,
 *				turn_max_us and slow_* as it goes
 *	turn_report();		stats.turn_p99_us, turn_p999_us; the
 *				next turn starts a new period
 */
#ifndef TLSGATE_TURN_H
#define TLSGATE_TURN_H

#include <stddef.h>
#include <stdint.h>

/* What one turn did; the loop counts the first four as it goes. */
struct turn_work {
	uint32_t	polled;		/* connections put in the poll table */
	uint32_t	io;		/* readiness handed to a connection */
	/* Handshake steps (public-key work): of io, and hellos served. */
	uint32_t	costly;
	uint32_t	served;		/* pending clients given a slot */
	uint32_t	accepts;	/* clients taken from the kernel */
	uint32_t	expired;	/* deadlines acted on */
	/* From the counters (log.h), their growth over the turn. */
	uint32_t	handshakes;	/* handshakes finished */
	uint32_t	closed;		/* connections ended */
	uint32_t	cache;		/* session cache look-ups and saves */
	uint32_t	logs;		/* lines logged */
};

/* The turn under way: the loop adds to it. */
extern struct turn_work turn_work;

/* A turn starts, at us microseconds (a monotonic clock). */
void	turn_begin(uint64_t us);
/* It ends at us: into the histogram, and kept if the slowest yet. */
void	turn_end(uint64_t us);
/*
 * Into stats: turn_p99_us and turn_p999_us, each the upper bound of its
 * bucket but no more than turn_max_us, over the turns since the last
 * report; the next turn_end() starts the next period (turns, turn_max_us
 * and slow_* begin again), so reports in one turn agree.
 */
void	turn_report(void);
/*
 * Every turn since start-up, never cleared (for the exposition's
 * histogram): into all[k] (k < TURN_POWERS) the turns of at most
 * 2^(k+2) - 1 us not counted in all[k-1]; returns their total and sets
 * *sum_us.
 */
#define TURN_POWERS	31
uint64_t turn_totals(uint64_t all[TURN_POWERS], uint64_t *sum_us);
/* The bucket of a duration, and the largest duration in a bucket. */
unsigned turn_bucket(uint64_t us);
uint64_t turn_bucket_max(unsigned b);
size_t	turn_static_bytes(void);

#endif
