/* SPDX-License-Identifier: ISC */
/*
 * httpchunk.c - the chunked transfer coding's framing (RFC 9112 7.1),
 * walked a byte at a time outside chunk data; see http.h.
 */
#include <string.h>

#include "http.h"
#include "httpchar.h"

/* Chunk walker states, in stream order; ranges of them are tested. */
enum {
	CH_SIZE,	/* hex digits of the chunk size */
	CH_BWS,		/* whitespace after the size, before a ';' */
	CH_EXT,		/* chunk extensions, up to CR */
	CH_SIZE_LF,	/* LF ending the size line */
	CH_DATA,	/* chunk data */
	CH_DATA_CR,	/* CR after the data */
	CH_DATA_LF,	/* LF after the data */
	CH_TSTART,	/* start of a trailer line, or the final CRLF */
	CH_TNAME,	/* trailer field name */
	CH_TVALUE,	/* trailer field value, up to CR */
	CH_TLF,		/* LF ending a trailer line */
	CH_END_LF,	/* LF of the final CRLF */
	CH_DONE
};

void
http_chunk_init(struct http_chunk *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->state = CH_SIZE;
}

/*
 * One byte outside chunk data: HTTP_MORE to go on, HTTP_OK at the end.
 * RFC 9112 7.1's grammar, strictly: a request smuggled past us must be
 * framed the same by tlsgate and by every backend behind it, so where
 * the RFC lets a recipient be lenient (a bare LF, 2.2; folded lines,
 * 5.2) tlsgate refuses instead.
 */
static int
chunk_byte(struct http_chunk *ch, uint8_t c)
{
	int h;

	/* Both bounded: extensions and trailers are walked, never kept. */
	if (ch->state <= CH_SIZE_LF && ++ch->line > HTTP_CHUNK_LINE_MAX)
		return HTTP_E_CHUNK_EXT;
	if (ch->state >= CH_TSTART && ++ch->trailer > HTTP_TRAILER_MAX)
		return HTTP_E_TRAILER_BIG;
	switch (ch->state) {
	case CH_SIZE:
		if ((h = hexval(c)) >= 0) {
			/* 16 digits fit 64 bits: no overflow check needed. */
			if (++ch->digits > 16)
				return HTTP_E_CHUNK_SIZE;
			ch->left = ch->left << 4 | (unsigned)h;
		} else if (c == '\n')
			return HTTP_E_BARE_LF;
		else if (ch->digits == 0)
			return HTTP_E_CHUNK_SIZE;
		else if (c == ';')
			ch->state = CH_EXT;
		else if (is_ws(c))
			ch->state = CH_BWS;
		else if (c == '\r')
			ch->state = CH_SIZE_LF;
		else
			return HTTP_E_CHUNK_SIZE;
		return HTTP_MORE;
	case CH_BWS:	/* 7.1.1: BWS before ';' */
		if (c == ';')
			ch->state = CH_EXT;
		else if (!is_ws(c))
			return HTTP_E_CHUNK_EXT;
		return HTTP_MORE;
	case CH_EXT:
	case CH_TVALUE:
		if (c == '\r')
			ch->state = ch->state == CH_EXT ? CH_SIZE_LF : CH_TLF;
		else if (c == '\n')
			return HTTP_E_BARE_LF;
		else if (is_ctl(c))
			return ch->state == CH_EXT ? HTTP_E_CHUNK_EXT : HTTP_E_CTL;
		return HTTP_MORE;
	case CH_SIZE_LF:	/* size 0 is last-chunk: trailers next */
		if (c != '\n')
			return HTTP_E_BARE_CR;
		ch->line = 0;
		ch->digits = 0;
		ch->state = ch->left == 0 ? CH_TSTART : CH_DATA;
		return HTTP_MORE;
	case CH_DATA_CR:
		if (c != '\r')
			return HTTP_E_CHUNK_DATA;
		ch->state = CH_DATA_LF;
		return HTTP_MORE;
	case CH_TSTART:	/* 7.1.2: trailer-section, then CRLF */
		if (c == '\r')
			ch->state = CH_END_LF;
		else if (c == '\n')
			return HTTP_E_BARE_LF;
		else if (is_ws(c))
			return HTTP_E_OBS_FOLD;
		else if (!is_tchar(c))
			return HTTP_E_TRAILER;
		else
			ch->state = CH_TNAME;
		return HTTP_MORE;
	case CH_TNAME:
		if (c == ':')
			ch->state = CH_TVALUE;
		else if (!is_tchar(c))
			return HTTP_E_TRAILER;
		return HTTP_MORE;
	case CH_DATA_LF:	/* the next size line, or trailer line */
	case CH_TLF:
	case CH_END_LF:
		if (c != '\n')
			return HTTP_E_BARE_CR;
		if (ch->state == CH_END_LF) {
			ch->state = CH_DONE;
			return HTTP_OK;
		}
		ch->state = ch->state == CH_TLF ? CH_TSTART : CH_SIZE;
		return HTTP_MORE;
	}
	return HTTP_E_CHUNK_SIZE;	/* CH_DATA and CH_DONE never get here */
}

/*
 * Chunk data is skipped by count, not walked: the relay forwards the
 * body as it is, and only the framing around it costs a step a byte.
 * An error sticks, so a caller that feeds on after one gets it again.
 */
int
http_chunk_feed(struct http_chunk *ch, const uint8_t *buf, size_t len,
    size_t *consumed)
{
	size_t i, n;
	int rc;

	*consumed = 0;
	if (ch->err != HTTP_OK)
		return ch->err;
	if (ch->state == CH_DONE)
		return HTTP_OK;
	for (i = 0, rc = HTTP_MORE; i < len && rc == HTTP_MORE;) {
		if (ch->state == CH_DATA) {
			n = len - i;
			if (n > ch->left)
				n = (size_t)ch->left;
			ch->left -= n;
			i += n;
			if (ch->left == 0)
				ch->state = CH_DATA_CR;
			continue;
		}
		rc = chunk_byte(ch, buf[i]);
		if (rc == HTTP_MORE || rc == HTTP_OK)
			i++;
	}
	if (rc != HTTP_MORE && rc != HTTP_OK)
		ch->err = rc;
	*consumed = i;
	return rc;
}
