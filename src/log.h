/* SPDX-License-Identifier: ISC */
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
/* Their names, by level, NULL after the last: the log's and the config's. */
extern const char *const log_level_names[];

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

/* Every counter of this process, each named once in log.c. */
struct stats {
	unsigned long long	accepted, closed, live, high_water;
	unsigned long long	handshakes, handshakes_full, resumed;
	unsigned long long	cache_hits, cache_misses, cache_saves;
	unsigned long long	tls_errors, timeouts, backend_errors;
	unsigned long long	backend_connects, backend_reused, backend_retries;
	unsigned long long	http_errors, evicted, refused;
	/* The pending table (pend.h): now, at most, and hellos shed. */
	unsigned long long	pending, pending_high, shed;
	unsigned long long	redirects, acme_forwarded;
	unsigned long long	tls13, hrr;	/* TLS 1.3 handshakes */
	/* Tickets issued (both versions), and those offered: opened or not. */
	unsigned long long	tickets, ticket_hits, ticket_misses;
	unsigned long long	bytes_in, bytes_out;
	unsigned long long	log_dropped;	/* the sink could not take */
	/* PROXY headers read (proxy_from), of them LOCAL, and refused. */
	unsigned long long	proxy_in, proxy_local, proxy_errors;
	unsigned long long	cert_days;	/* the soonest to expire: left */
	/* EC key pairs taken made ahead, and made inline (precomp.h). */
	unsigned long long	precomp_hits, precomp_misses;
	/*
	 * Loop turns since the last report, their p99, p99.9 and longest
	 * (us), and what the longest did (turn.h).
	 */
	unsigned long long	turns, turn_p99_us, turn_p999_us, turn_max_us;
	unsigned long long	slow_polled, slow_io, slow_costly, slow_served;
	unsigned long long	slow_accepts, slow_expired, slow_handshakes;
	unsigned long long	slow_closed, slow_cache, slow_logs;
};
extern struct stats stats;
/* When the soonest certificate expires (seconds since 1970; 0: unknown). */
extern int64_t stats_cert_end;
/*
 * "name<eq>value<sep>" for each counter into buf; returns the length.
 * cert_days is counted from stats_cert_end now (0 once expired).
 */
size_t	stats_text(char *buf, size_t cap, const char *eq, const char *sep);

#endif
