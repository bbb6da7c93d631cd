/* SPDX-License-Identifier: ISC */
/*
 * log.c - see log.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "httpchar.h"
#include "log.h"
#include "port.h"

const char *const log_level_names[] = { "error", "warn", "info", "debug",
	NULL };
int log_level = LOG_INFO;
unsigned log_rate;
unsigned long long log_lines;

static uint64_t window;		/* the second being counted */
static unsigned in_window;
static unsigned long long dropped;

int64_t stats_cert_end;

#define F(f)	{ #f, &stats.f }
static const struct {
	const char			*name;
	const unsigned long long	*val;
} fields[] = {
	F(accepted), F(closed), F(live), F(high_water), F(handshakes),
	F(handshakes_full), F(resumed), F(cache_hits), F(cache_misses),
	F(cache_saves), F(tls_errors), F(timeouts), F(backend_errors),
	F(backend_connects), F(backend_reused), F(backend_retries),
	F(http_errors), F(evicted), F(refused),
	F(pending), F(pending_high), F(shed),
	F(redirects), F(acme_forwarded), F(tls13), F(hrr), F(tickets),
	F(ticket_hits), F(ticket_misses),
	F(bytes_in), F(bytes_out), F(log_dropped),
	F(proxy_in), F(proxy_local), F(proxy_errors),
	F(cert_days), F(precomp_hits), F(precomp_misses),
	F(turns), F(turn_p99_us), F(turn_p999_us), F(turn_max_us),
	F(slow_polled), F(slow_io), F(slow_costly), F(slow_served),
	F(slow_accepts), F(slow_expired), F(slow_handshakes), F(slow_closed),
	F(slow_cache), F(slow_logs),
};

size_t
stats_text(char *buf, size_t cap, const char *eq, const char *sep)
{
	int64_t left = stats_cert_end - port_time();
	size_t n = 0;
	int k;

	stats.cert_days = stats_cert_end == 0 || left < 0 ? 0 :
	    (unsigned long long)left / 86400;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		k = snprintf(buf + n, cap - n, "%s%s%llu%s", fields[i].name, eq,
		    *fields[i].val, sep);
		if (k < 0 || (size_t)k >= cap - n)
			return n;
		n += (size_t)k;
	}
	return n;
}

static void
vlog(enum log_level lv, const char *tag, const char *fmt, va_list ap)
{
	/*
	 * Room for the stats line: 52 counters, names of up to 16 bytes,
	 * values of up to 20 digits (port_log_write() takes as much).
	 */
	char buf[2048];
	int n, m;

	n = snprintf(buf, sizeof(buf), "%s: ", tag);
	m = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	n += m > 0 ? m : 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	log_lines++;
	if (port_log_write(lv, buf, (size_t)n) < 0)
		stats.log_dropped++;
}

void
log_msg(enum log_level lv, const char *fmt, ...)
{
	va_list ap;

	if ((int)lv > log_level)
		return;
	if (log_rate > 0) {
		uint64_t now = port_now_ms() / 1000;

		if (now != window) {
			unsigned long long n = dropped;

			window = now;
			in_window = 0;
			dropped = 0;
			if (n > 0)
				log_msg(LOG_WARN, "log lines_dropped=%llu", n);
		}
		if (++in_window > log_rate) {
			dropped++;
			return;
		}
	}
	va_start(ap, fmt);
	vlog(lv, log_level_names[lv], fmt, ap);
	va_end(ap);
}

void
log_fatal(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERROR, "fatal", fmt, ap);
	va_end(ap);
	exit(code);
}

/*
 * A name a client chose (the server name): only host name characters
 * reach the log, so that it cannot add fields or lines.
 */
void
log_name(const char *name, char *buf, size_t cap)
{
	size_t i;

	for (i = 0; name[i] != '\0' && i + 1 < cap; i++)
		buf[i] = (char)(is_alnum((uint8_t)name[i]) || name[i] == '.' ||
		    name[i] == '-' || name[i] == '_' ? name[i] : '?');
	if (i == 0)
		buf[i++] = '-';
	buf[i] = '\0';
}
