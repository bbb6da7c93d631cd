/* SPDX-License-Identifier: ISC */
/*
 * http.h - strict HTTP/1.x request framing for http mode.
 *
 * Owns: finding the end of a request head, parsing it strictly, rewriting
 * it in place (client-sent forwarding headers out, the true ones in),
 * walking a chunked body as it streams through, framing a backend
 * response, and tlsgate's own error responses.
 *
 * Never: allocates, reads past `len`, writes past `cap`, does I/O, or
 * knows about TLS or sockets.  Every function is a pure function over the
 * bytes it is given (the chunk walker keeps its state in caller storage).
 *
 * The threat is request smuggling: a head is accepted only if every
 * reasonable backend must frame it the same way we do.  Anything
 * ambiguous is an error, never "repaired": each HTTP_E_* reason below
 * names one thing rejected.  Beyond their names: HTAB is allowed only
 * inside field values, a second Content-Length is rejected even when
 * identical, and so are empty lines before the request line.
 *
 * Typical use per request on a connection (keep-alive and pipelining):
 *
 *	rc = http_head_end(buf, len, &end);	  on each arrival of bytes
 *	  HTTP_MORE and len == head buffer size: answer 431, close
 *	rc = http_parse_head(buf, end, &req);	  error: http_err_status()
 *	n = http_rewrite_head(buf, len, cap, &req, &fwd);   forward n bytes
 *	body: req.body_len bytes, or http_chunk_feed() until HTTP_OK
 *	the next head starts right after the body.
 *
 * req.keep_alive == 0: forward no further request on the connection.
 * req.upgrade: read no further request until the response status is
 * known (http_parse_resp()); after 101 relay bytes both ways unparsed.
 *
 * Return codes: every function returning int returns HTTP_OK, HTTP_MORE,
 * or one HTTP_E_* reason.  http_strerror() names it for the log line.
 */
#ifndef TLSGATE_HTTP_H
#define TLSGATE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "defaults.h"

#define HTTP_MAX_FIELDS		100	/* field lines in one head */
#define HTTP_CHUNK_LINE_MAX	1024	/* bytes of a chunk-size line */
#define HTTP_TRAILER_MAX	4096	/* bytes of a chunked trailer section */
#define HTTP_PEER_MAX		45	/* longest textual IPv6 address */
/*
 * The most http_rewrite_head() can add to a head.  A head buffer of
 * TLSGATE_HEAD_MAX + HTTP_FWD_SLACK bytes, filled to TLSGATE_HEAD_MAX at
 * most, can always be rewritten in place.
 */
#define HTTP_FWD_SLACK		512
#define HTTP_SUBJECT_MAX	300	/* X-Client-Cert-Subject value */
/*
 * RFC 9440 Client-Cert: a certificate's DER, HTTP_CERT_MAX bytes at
 * most, as a structured-field byte sequence (":" base64 ":").  A head
 * rewritten with it may grow by HTTP_CERT_SLACK more.
 */
#define HTTP_CERT_MAX		TLSGATE_CLIENT_CERT_MAX
#define HTTP_CERT_SLACK		(17 + 4 * ((HTTP_CERT_MAX + 2) / 3))
/*
 * RFC 9440 Client-Cert-Chain: up to HTTP_CHAIN_CERTS certificates of
 * HTTP_CHAIN_MAX bytes of DER in all, a structured-field list of byte
 * sequences; with it a head may grow by HTTP_CHAIN_SLACK more (each
 * certificate's base64 rounds up by 2 bytes at most, and adds ":" ":"
 * and ", ").
 */
#define HTTP_CHAIN_CERTS	7
#define HTTP_CHAIN_MAX		TLSGATE_CLIENT_CHAIN_MAX
#define HTTP_CHAIN_SLACK	(21 + 4 * HTTP_CHAIN_CERTS + \
				    4 * ((HTTP_CHAIN_MAX + 2 * HTTP_CHAIN_CERTS) / 3))

enum {
	HTTP_OK = 0,		/* done: complete and valid */
	HTTP_MORE,		/* valid so far, need more bytes */
	HTTP_E_INCOMPLETE,	/* no CRLF CRLF where the head should end */
	HTTP_E_CTL,		/* NUL or other control byte */
	HTTP_E_BARE_CR,		/* CR not followed by LF */
	HTTP_E_BARE_LF,		/* LF not preceded by CR */
	HTTP_E_METHOD,		/* empty or non-token method */
	HTTP_E_CONNECT,		/* CONNECT: tunnels are not forwarded */
	HTTP_E_TARGET,		/* empty target or byte outside 0x21-0x7e */
	HTTP_E_VERSION,		/* not exactly HTTP/1.0 or HTTP/1.1 */
	HTTP_E_REQLINE,		/* request line not METHOD SP target SP ver */
	HTTP_E_OBS_FOLD,	/* field line starting with SP or HTAB */
	HTTP_E_FIELD_NAME,	/* empty, non-token, or no colon */
	HTTP_E_FIELD_WS,	/* whitespace between name and colon */
	HTTP_E_TOO_MANY_FIELDS,	/* more than HTTP_MAX_FIELDS: 431 */
	HTTP_E_CL_TE,		/* both Content-Length and Transfer-Encoding */
	HTTP_E_CL_DUP,		/* more than one Content-Length */
	HTTP_E_CL_BAD,		/* Content-Length not digits, or > 2^64-1 */
	HTTP_E_TE_DUP,		/* more than one Transfer-Encoding */
	HTTP_E_TE_BAD,		/* Transfer-Encoding other than "chunked" */
	HTTP_E_TE_HTTP10,	/* Transfer-Encoding in an HTTP/1.0 request */
	HTTP_E_HOST,		/* HTTP/1.1 without one Host, or two Hosts */
	HTTP_E_CONNECTION,	/* bad Connection token or one naming a
				   framing/forwarding header */
	HTTP_E_CHUNK_SIZE,	/* chunk size empty, non-hex, > 16 digits */
	HTTP_E_CHUNK_EXT,	/* bad or oversized chunk extension */
	HTTP_E_CHUNK_DATA,	/* chunk data not followed by CRLF */
	HTTP_E_TRAILER,		/* bad trailer field line */
	HTTP_E_TRAILER_BIG,	/* trailer section over HTTP_TRAILER_MAX */
	HTTP_E_RESP,		/* not an HTTP/1.x status line */
	HTTP_E_COUNT
};

enum {
	HTTP_BODY_NONE = 0,	/* no body: the next head follows at once */
	HTTP_BODY_LENGTH,	/* exactly body_len bytes (may be 0) */
	HTTP_BODY_CHUNKED,	/* walk it with http_chunk_feed() */
	HTTP_BODY_CLOSE		/* a response's: until the backend closes */
};

/*
 * A parsed head.  Offsets are into the buffer given to http_parse_head();
 * the method starts at offset 0.  drop[] is a bitmap over field lines
 * (0 is the first line after the request line) of the headers
 * http_rewrite_head() removes.
 */
struct http_req {
	size_t		head_len;	/* including the final CRLF CRLF */
	size_t		method_len;
	size_t		target_off, target_len;
	size_t		host_off, host_len;	/* 0, 0 if no Host */
	unsigned	minor;		/* HTTP/1.<minor>: 0 or 1 */
	unsigned	nfields;	/* field lines */
	int		body;		/* HTTP_BODY_* */
	uint64_t	body_len;	/* for HTTP_BODY_LENGTH */
	int		keep_alive;	/* the connection may carry another */
	int		fwd_keep_alive;	/* so may the backend's, rewritten */
	int		upgrade;	/* Connection: upgrade + Upgrade: */
	uint32_t	drop[(HTTP_MAX_FIELDS + 31) / 32];
};

/* What http_rewrite_head() adds, beside a client certificate's fields. */
#define HTTP_FWD_FOR	0x1	/* X-Forwarded-For: <peer> */
#define HTTP_FWD_PROTO	0x2	/* X-Forwarded-Proto: https */
#define HTTP_FWD_PORT	0x4	/* X-Forwarded-Port: <port> */
#define HTTP_FWD_CLOSE	0x10	/* Connection: close */

struct http_fwd {
	unsigned	flags;
	const char	*peer;		/* textual IP, no port or brackets */
	size_t		peer_len;	/* at most HTTP_PEER_MAX */
	unsigned	port;		/* the port the client connected to */
	const char	*subject;	/* printable ASCII; none if 0 long */
	size_t		subject_len;	/* at most HTTP_SUBJECT_MAX */
	const uint8_t	*cert;		/* DER, verified client; NULL: none */
	size_t		cert_len;	/* at most HTTP_CERT_MAX */
	/* The certificates after it, DER back to back, as sent; NULL: none. */
	const uint8_t	*chain;
	const size_t	*chain_len;	/* each one's length */
	unsigned	nchain;		/* at most HTTP_CHAIN_CERTS */
};

/* State of a chunked body walk; fill with http_chunk_init(). */
struct http_chunk {
	int		state;
	int		err;		/* sticky error, HTTP_OK if none */
	uint64_t	left;		/* size, then data bytes still due */
	unsigned	digits;		/* hex digits of the size so far */
	size_t		line;		/* bytes of the size line so far */
	size_t		trailer;	/* bytes of the trailer so far */
};

/*
 * Find the end of the request head at the start of buf[0..len).
 *
 * *head_len is in/out: set it to 0 before the first call for a head.  On
 * HTTP_MORE it holds where the scan may resume; call again with the grown
 * buffer (same start) and *head_len unchanged, so a head trickling in
 * costs linear time.  On HTTP_OK it is the head length, through the empty
 * line's CRLF.
 *
 * Returns HTTP_OK, HTTP_MORE (no end yet: if len is already the size of
 * the caller's head buffer, the head is too big, answer 431), or
 * HTTP_E_BARE_CR / HTTP_E_BARE_LF.  Only line endings are checked here;
 * an empty first line ends the head at 2 so that the parse rejects it.
 */
int	http_head_end(const uint8_t *buf, size_t len, size_t *head_len);

/*
 * Parse the complete head buf[0..len) strictly into *req.  len must be
 * exactly the head (as found by http_head_end()); bytes after the first
 * empty line are an error (HTTP_E_INCOMPLETE).
 *
 * Returns HTTP_OK with *req filled, or an HTTP_E_* reason (*req is then
 * unspecified).  Map the reason to a status with http_err_status().
 */
int	http_parse_head(const uint8_t *buf, size_t len, struct http_req *req);

/*
 * Rewrite the head in place for forwarding.  buf[0..req->head_len) is the
 * head that http_parse_head() accepted into req; buf[req->head_len..len)
 * are bytes that followed it (body or a pipelined request, may be none);
 * cap is the size of buf.
 *
 * Drops every X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Port,
 * X-Real-IP, Forwarded, X-Client-Cert-Subject, Client-Cert and
 * Client-Cert-Chain line (whatever fwd->flags says), appends the
 * headers fwd asks for before the final CRLF, keeps every other line
 * in order, and moves the following bytes to stay right behind the new
 * head.  With a cert the head may grow by HTTP_CERT_SLACK beyond
 * HTTP_FWD_SLACK, with a chain by HTTP_CHAIN_SLACK more.
 *
 * The new head may have up to 5 field lines more than HTTP_MAX_FIELDS.
 *
 * Returns the new head length: the new contents are that many head bytes
 * then the len - req->head_len following bytes.  Returns 0, with buf
 * untouched, if the result would not fit in cap, if len > cap or
 * req->head_len > len, or if fwd->peer is not a plausible IP address.
 */
size_t	http_rewrite_head(uint8_t *buf, size_t len, size_t cap,
	    const struct http_req *req, const struct http_fwd *fwd);

/* Start walking a new chunked body. */
void	http_chunk_init(struct http_chunk *ch);

/*
 * Walk the next len bytes of a chunked body: chunk-size lines (with
 * optional chunk extensions), data, CRLFs, the last chunk, trailer
 * fields and the final CRLF.  Nothing is copied: the caller forwards the
 * bytes consumed unchanged.
 *
 * Sets *consumed to the bytes of buf that belong to the body.  Returns
 * HTTP_MORE (all len consumed, body not finished), HTTP_OK (the body
 * ended after *consumed bytes: the next head starts at buf + *consumed),
 * or an HTTP_E_CHUNK_* / HTTP_E_TRAILER* / HTTP_E_BARE_* / HTTP_E_CTL /
 * HTTP_E_OBS_FOLD reason (*consumed bytes were valid; the connection must
 * be closed).  An error is sticky; after HTTP_OK every call returns
 * HTTP_OK with *consumed = 0.
 */
int	http_chunk_feed(struct http_chunk *ch, const uint8_t *buf, size_t len,
	    size_t *consumed);

/*
 * Read the status code of a backend response starting at buf[0..len):
 * `HTTP/1.x SP 3DIGIT SP` (or CR for a missing reason phrase).  Returns
 * HTTP_OK with *status set (100-199 is interim: a final status follows;
 * 101 switches protocols), HTTP_MORE if what is there is a valid prefix,
 * or HTTP_E_RESP.
 */
int	http_resp_status(const uint8_t *buf, size_t len, int *status);

/* A parsed response head: how its body is framed. */
struct http_resp {
	int		status;
	int		body;		/* HTTP_BODY_*, before a HEAD's rule */
	uint64_t	body_len;	/* for HTTP_BODY_LENGTH */
	int		keep_alive;	/* HTTP/1.1 without Connection: close */
};
/*
 * Parse the complete response head buf[0..len) (its end found with
 * http_head_end()) with the request head's field rules: one
 * Content-Length, only a single "chunked" Transfer-Encoding, never both.
 * 1xx, 204 and 304 have no body; a response without either framing
 * header, or an HTTP/1.0 one with Transfer-Encoding, ends when the
 * backend closes.  Returns HTTP_OK or an HTTP_E_* reason: the caller
 * then cannot know where the response ends.
 */
int	http_parse_resp(const uint8_t *buf, size_t len, struct http_resp *resp);
/*
 * The 308 Permanent Redirect for the head buf[0..req->head_len) that
 * http_parse_head() accepted into req, written in place into buf (cap
 * bytes, at least req->head_len + 360): Location is https://, the host
 * without its port (of an absolute-form target, else of Host, else own,
 * an address of ours), ":port" unless port is 443, then the target's
 * path and query ("/" for "*").  Returns its length, or 0 if that host
 * is not a DNS name or an IP literal (answer 400).
 */
size_t	http_redirect(uint8_t *buf, size_t cap, const struct http_req *req,
	    const char *own, unsigned port);

/*
 * tlsgate's own response for status 400, 408, 431, 502, 503 or 504: a
 * complete `Connection: close` response with a one-line text body.
 * Returns a static string and sets *len, or NULL for another status.
 */
const char *http_error_page(int status, size_t *len);

/* The HTTP status to answer a parse error with: 431 or 400. */
int	http_err_status(int rc);

/* A short fixed name for a return code, for log lines ("bare-lf"). */
const char *http_strerror(int rc);

#endif
