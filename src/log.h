/*
 * log.h - levelled log lines, one per event, key=value after a tag.
 *
 * Owns the formatting of every line tlsgate prints.  Never allocates
 * (formats into a stack buffer; long lines are cut) and never blocks
 * beyond the one write the port layer makes.  Rate-limited, so that a
 * flood of bad clients cannot flood the log: past log_rate lines in a
 * second, lines are dropped and their number is logged afterwards.
 */
#ifndef TLSGATE_LOG_H
#define TLSGATE_LOG_H

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

extern int log_level;
/* Lines per second at most (0: no limit); the rest are counted, dropped. */
extern unsigned log_rate;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void	log_msg(enum log_level, const char *fmt, ...);

/* Start-up failures: "tlsgate: fatal: ..." on stderr, then exit(code). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3), noreturn))
#endif
void	log_fatal(int code, const char *fmt, ...);

#endif
