/*
 * log.h - levelled log lines, one per event, key=value after a tag; and
 * the counters the stats socket and SIGUSR1 report.
 *
 * Owns the formatting of every line tlsgate prints.  Never allocates
 * (formats into a stack buffer; long lines are cut) and never blocks:
 * a line the sink cannot take at once is dropped and counted
 * (log_dropped).  Rate-limited, so that a flood of bad clients cannot
 * flood the log: past log_rate lines in a second, lines are dropped and
 * their number is logged afterwards.
 */
#ifndef TLSGATE_LOG_H
#define TLSGATE_LOG_H

#include <stddef.h>
#include <stdint.h>

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

extern int log_level;
/* Lines per second at most (0: no limit); the rest are counted, dropped. */
extern unsigned log_rate;
/* Lines handed to the sink so far (written or not). */
extern unsigned long long log_lines;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void	log_msg(enum log_level, const char *fmt, ...);

/* Start-up failures: "tlsgate: fatal: ..." on stderr, then exit(code). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3), noreturn))
#endif
void	log_fatal(int code, const char *fmt, ...);
/*
 * name, which a client chose, for a key=value field: host name
 * characters only, others as '?', "-" for an empty one; into buf (cap).
 */
void	log_name(const char *name, char *buf, size_t cap);

/*
 * Every counter of this process, in the order the stats report them:
 * X(name) for each, which makes both the field and its name in log.c.
 */
#define STATS_COUNTERS(X) \
	X(accepted) X(closed) X(live) X(high_water) \
	X(handshakes) X(handshakes_full) X(resumed) \
	X(cache_hits) X(cache_misses) X(cache_saves) \
	X(tls_errors) X(timeouts) X(backend_errors) \
	X(backend_connects) X(backend_reused) X(backend_retries) \
	X(http_errors) X(evicted) X(refused) \
	/* The pending table (pend.h): now, at most, and hellos shed. */ \
	X(pending) X(pending_high) X(shed) \
	X(redirects) X(acme_forwarded) \
	X(tls13) X(hrr)	/* TLS 1.3 handshakes */ \
	/* Tickets issued (both versions), and offered: opened or not. */ \
	X(tickets) X(ticket_hits) X(ticket_misses) \
	X(bytes_in) X(bytes_out) \
	X(log_dropped)	/* the sink could not take */ \
	/* PROXY headers read (proxy_from), of them LOCAL, and refused. */ \
	X(proxy_in) X(proxy_local) X(proxy_errors) \
	X(cert_days)	/* the soonest to expire: left */ \
	/* EC key pairs taken made ahead, and made inline (precomp.h). */ \
	X(precomp_hits) X(precomp_misses) \
	/* \
	 * Loop turns since the last report, their p99, p99.9 and longest \
	 * (us), and what the longest did (turn.h). \
	 */ \
	X(turns) X(turn_p99_us) X(turn_p999_us) X(turn_max_us) \
	X(slow_polled) X(slow_io) X(slow_costly) X(slow_served) \
	X(slow_accepts) X(slow_expired) X(slow_handshakes) \
	X(slow_closed) X(slow_cache) X(slow_logs)

#define STATS_FIELD(f)	unsigned long long f;
struct stats {
	STATS_COUNTERS(STATS_FIELD)
};
#undef STATS_FIELD
extern struct stats stats;
/* When the soonest certificate expires (seconds since 1970; 0: unknown). */
extern int64_t stats_cert_end;
/*
 * "name<eq>value<sep>" for each counter into buf; returns the length.
 * cert_days is counted from stats_cert_end now (0 once expired).
 */
size_t	stats_text(char *buf, size_t cap, const char *eq, const char *sep);

#endif
