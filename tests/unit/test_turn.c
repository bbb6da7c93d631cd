/* SPDX-License-Identifier: ISC */
/*
 * test_turn.c - the turn histogram (src/turn.c): its buckets, the
 * percentiles a report takes from them, the slowest turn's work, and
 * the period a report starts.
 */
#include <stdint.h>

#include "log.h"
#include "turn.h"
#include "unit.h"

/* What turn.c reads of log.c. */
struct stats stats;
unsigned long long log_lines;

/* Every duration falls in a bucket whose bounds hold it, within 25 %. */
static int
test_buckets_hold_their_values(void)
{
	uint64_t us;

	for (us = 0; us < (uint64_t)1 << 33; us = us < 4096 ? us + 1 :
	    us + us / 97) {
		unsigned b = turn_bucket(us);
		uint64_t hi = turn_bucket_max(b);

		if (us > UINT32_MAX)
			CHECK(hi == turn_bucket_max(turn_bucket(UINT32_MAX)));
		else {
			CHECK(us <= hi);
			CHECK(b == 0 || us > turn_bucket_max(b - 1));
			CHECK(hi <= us + us / 4 + 1);
		}
	}
	CHECK(turn_bucket(0) == 0 && turn_bucket(3) == 3);
	CHECK(turn_bucket(4) == 4 && turn_bucket_max(4) == 4);
	CHECK(turn_bucket_max(turn_bucket(1000)) == 1023);
	return 1;
}

static void
turn(uint64_t *now, uint64_t us)
{
	turn_begin(*now);
	*now += us;
	turn_end(*now);
	*now += 7;	/* the poll between */
}

static int
test_percentiles_and_max(void)
{
	uint64_t now = 1000000;

	turn_report();
	for (int i = 0; i < 997; i++)
		turn(&now, 20);
	turn(&now, 900);
	turn(&now, 10000);
	turn(&now, 12345);
	turn_report();
	CHECK(stats.turns == 1000);
	/* The 990th turn took 20 us: its bucket, 20-23. */
	CHECK(stats.turn_p99_us == 23);
	/* The 999th took 10 ms: its bucket's upper bound. */
	CHECK(stats.turn_p999_us == turn_bucket_max(turn_bucket(10000)));
	CHECK(stats.turn_p999_us >= 10000 && stats.turn_p999_us < 12345);
	CHECK(stats.turn_max_us == 12345);
	/* A report starts a new period. */
	turn(&now, 50);
	turn_report();
	CHECK(stats.turns == 1 && stats.turn_max_us == 50);
	/* Its bucket goes to 55 us: no percentile above the longest. */
	CHECK(turn_bucket_max(turn_bucket(50)) > 50);
	CHECK(stats.turn_p99_us == 50 && stats.turn_p999_us == 50);
	/* Two reports without a turn between them agree. */
	turn_report();
	CHECK(stats.turns == 1 && stats.turn_max_us == 50 &&
	    stats.turn_p999_us == 50);
	return 1;
}

static int
test_the_slowest_turn_says_what_it_did(void)
{
	uint64_t now = 5000000;

	turn_report();
	turn_begin(now);
	turn_work.accepts = 3;
	turn_work.io = 2;
	stats.handshakes += 5;
	log_lines += 4;
	stats.cache_saves += 2;
	stats.cache_hits += 1;
	stats.closed += 1;
	now += 800;
	turn_end(now);
	/* A faster turn after it, busier, does not replace it. */
	turn_begin(now);
	turn_work.io = 40;
	stats.handshakes += 1;
	now += 300;
	turn_end(now);
	turn_report();
	CHECK(stats.turn_max_us == 800);
	CHECK(stats.slow_accepts == 3 && stats.slow_io == 2);
	CHECK(stats.slow_handshakes == 5 && stats.slow_logs == 4);
	CHECK(stats.slow_cache == 3 && stats.slow_closed == 1);
	CHECK(stats.slow_costly == 0 && stats.slow_served == 0);
	/* Nothing carried into the next period. */
	turn_begin(now);
	turn_end(now + 900);
	turn_report();
	CHECK(stats.turns == 1 && stats.turn_max_us == 900);
	CHECK(stats.slow_accepts == 0 && stats.slow_handshakes == 0);
	return 1;
}

/* A clock that went back (it must not, but) counts as a 0 us turn. */
static int
test_a_clock_going_back_is_no_stall(void)
{
	turn_report();
	turn_begin(1000);
	turn_end(900);
	turn_report();
	CHECK(stats.turns == 1 && stats.turn_max_us == 0);
	CHECK(stats.turn_p99_us == 0);
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(test_buckets_hold_their_values),
		T(test_percentiles_and_max),
		T(test_the_slowest_turn_says_what_it_did),
		T(test_a_clock_going_back_is_no_stall),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
