/*
 * log.c - see log.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "port.h"

int log_level = LOG_INFO;

static const char *const level_name[] = { "error", "warn", "info", "debug" };

static void
vlog(enum log_level lv, const char *tag, const char *fmt, va_list ap)
{
	char buf[512];
	int n, m;

	n = snprintf(buf, sizeof(buf), "tlsgate: %s: ", tag);
	m = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	port_log_write(lv, buf, (size_t)n);
}

void
log_msg(enum log_level lv, const char *fmt, ...)
{
	va_list ap;

	if ((int)lv > log_level)
		return;
	va_start(ap, fmt);
	vlog(lv, level_name[lv], fmt, ap);
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
