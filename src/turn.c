/* SPDX-License-Identifier: ISC */
/*
 * turn.c - see turn.h.
 *
 * The histogram is log-linear, as HdrHistogram's with 2 sub-bucket bits:
 * every bucket's width is at most a quarter of its lower bound, so a
 * percentile read from it is within 25 % of the true turn, for a fixed
 * 496 bytes and one increment a turn.
 */
#include "log.h"
#include "turn.h"

/*
 * Durations up to 2^32 us (71 minutes): 4 exact buckets for 0-3 us,
 * then 4 for each power of two from 4 us up.
 */
#define TURN_BUCKETS	(4 * 31)

struct turn_work turn_work;

static uint32_t hist[TURN_BUCKETS];
static uint64_t t0;
static int reported;	/* a report ended the period: a turn starts one */
/* Since start-up, a bucket a power of two (turn_totals()). */
static uint64_t total[TURN_POWERS], total_n, total_us;
/* The counters' values when the turn began. */
static unsigned long long b_hs, b_closed, b_cache, b_logs;

/* The index of v's top bit (v > 0): one instruction where GCC has it. */
static unsigned
msb(uint64_t v)
{
#if defined(__GNUC__)
	return 63u - (unsigned)__builtin_clzll(v);
#else
	unsigned m = 0;

	while (v >>= 1)
		m++;
	return m;
#endif
}

unsigned
turn_bucket(uint64_t us)
{
	unsigned m;

	if (us < 4)
		return (unsigned)us;
	if (us > UINT32_MAX)
		us = UINT32_MAX;
	/* Octave m (us in [2^m, 2^(m+1))), then the two bits under the top. */
	m = msb(us);
	return 4 * (m - 1) + (unsigned)((us >> (m - 2)) & 3);
}

/* The inverse of turn_bucket(): the largest us that falls in b. */
uint64_t
turn_bucket_max(unsigned b)
{
	unsigned m = b / 4 + 1, sub = b % 4;

	if (b < 4)
		return b;
	return ((uint64_t)(4 + sub + 1) << (m - 2)) - 1;
}

/*
 * The counters are read, not reset: they belong to log.c's stats, and
 * the slowest turn's work is the difference at its end.
 */
void
turn_begin(uint64_t us)
{
	t0 = us;
	turn_work = (struct turn_work){ 0 };
	b_hs = stats.handshakes;
	b_closed = stats.closed;
	b_cache = stats.cache_hits + stats.cache_misses + stats.cache_saves;
	b_logs = log_lines;
}

void
turn_end(uint64_t us)
{
	/* A clock that stepped back counts as 0, not as 2^64. */
	uint64_t d = us >= t0 ? us - t0 : 0;

	if (reported) {
		for (unsigned b = 0; b < TURN_BUCKETS; b++)
			hist[b] = 0;
		stats.turns = stats.turn_max_us = 0;
		reported = 0;
	}
	hist[turn_bucket(d)]++;
	total[turn_bucket(d) / 4]++;
	total_n++;
	total_us += d;
	if (stats.turns++ > 0 && d <= stats.turn_max_us)
		return;
	stats.turn_max_us = d;
	stats.slow_polled = turn_work.polled;
	stats.slow_io = turn_work.io;
	stats.slow_costly = turn_work.costly;
	stats.slow_served = turn_work.served;
	stats.slow_accepts = turn_work.accepts;
	stats.slow_expired = turn_work.expired;
	stats.slow_handshakes = stats.handshakes - b_hs;
	stats.slow_closed = stats.closed - b_closed;
	stats.slow_cache = stats.cache_hits + stats.cache_misses +
	    stats.cache_saves - b_cache;
	stats.slow_logs = log_lines - b_logs;
}

/*
 * The upper bound of the bucket that holds the p-th per mille turn, or
 * the longest turn if less: a bucket's bound may be above any turn.
 */
static uint64_t
pct(unsigned permille)
{
	uint64_t want = (stats.turns * permille + 999) / 1000, cum = 0;

	for (unsigned b = 0; b < TURN_BUCKETS; b++) {
		cum += hist[b];
		if (cum >= want && cum > 0)
			return turn_bucket_max(b) < stats.turn_max_us ?
			    turn_bucket_max(b) : stats.turn_max_us;
	}
	return 0;
}

/*
 * Into stats, then a fresh window: each stats line speaks of the turns
 * since the one before, so a spike an hour ago does not hide today's.
 */
void
turn_report(void)
{
	stats.turn_p99_us = pct(990);
	stats.turn_p999_us = pct(999);
	reported = 1;
}

uint64_t
turn_totals(uint64_t all[TURN_POWERS], uint64_t *sum_us)
{
	for (unsigned k = 0; k < TURN_POWERS; k++)
		all[k] = total[k];
	*sum_us = total_us;
	return total_n;
}

size_t
turn_static_bytes(void)
{
	return sizeof(hist) + sizeof(turn_work) + sizeof(total);
}
