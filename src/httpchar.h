/* SPDX-License-Identifier: ISC */
/*
 * httpchar.h - RFC 9110's character classes, for http.c and httpchunk.c;
 * hexval() serves proxyin.c, is_ws() the config parser, is_alnum() it,
 * hello.c and host names, to_lower() every name compared without regard
 * to case.
 *
 * Explicit comparisons, never <ctype.h>: those depend on the locale, and
 * framing must not.
 */
#ifndef TLSGATE_HTTPCHAR_H
#define TLSGATE_HTTPCHAR_H

#include <stdint.h>
#include <string.h>

static inline int
is_alnum(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z');
}

/* A hex digit's value, or -1. */
static inline int
hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* tchar (RFC 9110 5.6.2). */
static inline int
is_tchar(uint8_t c)
{
	return is_alnum(c) || memchr("!#$%&'*+-.^_`|~", c, 15) != NULL;
}

/* A control byte that may not appear anywhere (HTAB is allowed). */
static inline int
is_ctl(uint8_t c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

/* OWS: a space or a tab. */
static inline int
is_ws(uint8_t c)
{
	return c == ' ' || c == '\t';
}

static inline uint8_t
to_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

#endif
