/*
 * turn.c - see turn.h.
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
static uint64_t t0, nturns, slowest;
/* Since start-up, a bucket a power of two (turn_totals()). */
static uint64_t total[TURN_POWERS], total_n, total_us;
static struct turn_work slow;
/* The counters' values when the turn began. */
static unsigned long long b_hs, b_closed, b_cache, b_logs;

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
	m = msb(us);
	return 4 * (m - 1) + (unsigned)((us >> (m - 2)) & 3);
}

uint64_t
turn_bucket_max(unsigned b)
{
	unsigned m = b / 4 + 1, sub = b % 4;

	if (b < 4)
		return b;
	return ((uint64_t)(4 + sub + 1) << (m - 2)) - 1;
}

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
	uint64_t d = us >= t0 ? us - t0 : 0;

	hist[turn_bucket(d)]++;
	nturns++;
	total[turn_bucket(d) / 4]++;
	total_n++;
	total_us += d;
	if (nturns > 1 && d <= slowest)
		return;
	slowest = d;
	slow = turn_work;
	slow.handshakes = (uint32_t)(stats.handshakes - b_hs);
	slow.closed = (uint32_t)(stats.closed - b_closed);
	slow.cache = (uint32_t)(stats.cache_hits + stats.cache_misses +
	    stats.cache_saves - b_cache);
	slow.logs = (uint32_t)(log_lines - b_logs);
}

/* The upper bound of the bucket that holds the p-th per mille turn. */
static uint64_t
pct(unsigned permille)
{
	uint64_t want = (nturns * permille + 999) / 1000, cum = 0;

	for (unsigned b = 0; b < TURN_BUCKETS; b++) {
		cum += hist[b];
		if (cum >= want && cum > 0)
			return turn_bucket_max(b);
	}
	return 0;
}

void
turn_report(void)
{
	stats.turns = nturns;
	stats.turn_p99_us = pct(990);
	stats.turn_p999_us = pct(999);
	stats.turn_max_us = slowest;
	stats.slow_polled = slow.polled;
	stats.slow_io = slow.io;
	stats.slow_costly = slow.costly;
	stats.slow_served = slow.served;
	stats.slow_accepts = slow.accepts;
	stats.slow_expired = slow.expired;
	stats.slow_handshakes = slow.handshakes;
	stats.slow_closed = slow.closed;
	stats.slow_cache = slow.cache;
	stats.slow_logs = slow.logs;
	for (unsigned b = 0; b < TURN_BUCKETS; b++)
		hist[b] = 0;
	nturns = slowest = 0;
	slow = (struct turn_work){ 0 };
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
	return sizeof(hist) + sizeof(slow) + sizeof(turn_work) +
	    sizeof(total);
}
