/* SPDX-License-Identifier: ISC */
/*
 * http.c - strict HTTP/1.x request framing for http mode; see http.h.
 */
#include <string.h>

#include "http.h"
#include "httpchar.h"

/* Per-request parse state that does not go into struct http_req. */
struct fields {
	unsigned	cl, te, host, upgrade, close;
	int		keep, conn_upgrade;
	unsigned	conn_other;	/* Connection tokens but close */
	unsigned	close_dropped;	/* close tokens in dropped lines */
};

static const char *const http_names[HTTP_E_COUNT] = {
	[HTTP_OK] = "ok",
	[HTTP_MORE] = "more",
	[HTTP_E_INCOMPLETE] = "head-incomplete",
	[HTTP_E_CTL] = "control-char",
	[HTTP_E_BARE_CR] = "bare-cr",
	[HTTP_E_BARE_LF] = "bare-lf",
	[HTTP_E_METHOD] = "bad-method",
	[HTTP_E_CONNECT] = "connect-method",
	[HTTP_E_TARGET] = "bad-target",
	[HTTP_E_VERSION] = "bad-version",
	[HTTP_E_REQLINE] = "bad-request-line",
	[HTTP_E_OBS_FOLD] = "obs-fold",
	[HTTP_E_FIELD_NAME] = "bad-field-name",
	[HTTP_E_FIELD_WS] = "space-before-colon",
	[HTTP_E_TOO_MANY_FIELDS] = "too-many-fields",
	[HTTP_E_CL_TE] = "cl-and-te",
	[HTTP_E_CL_DUP] = "duplicate-cl",
	[HTTP_E_CL_BAD] = "bad-cl",
	[HTTP_E_TE_DUP] = "duplicate-te",
	[HTTP_E_TE_BAD] = "bad-te",
	[HTTP_E_TE_HTTP10] = "te-in-http10",
	[HTTP_E_HOST] = "bad-host-count",
	[HTTP_E_CONNECTION] = "bad-connection",
	[HTTP_E_CHUNK_SIZE] = "bad-chunk-size",
	[HTTP_E_CHUNK_EXT] = "bad-chunk-ext",
	[HTTP_E_CHUNK_DATA] = "bad-chunk-end",
	[HTTP_E_TRAILER] = "bad-trailer",
	[HTTP_E_TRAILER_BIG] = "trailer-too-big",
	[HTTP_E_RESP] = "bad-status-line",
};

/*
 * Headers a client could use to lie about itself to the backend: always
 * dropped, and never allowed as Connection options (a proxying backend
 * would then drop the true ones we add).
 */
static const char *const http_spoofable[] = {
	"x-forwarded-for", "x-forwarded-proto", "x-forwarded-port",
	"x-real-ip", "forwarded", "x-client-cert-subject", "client-cert",
	"client-cert-chain"
};
#define NSPOOFABLE (sizeof(http_spoofable) / sizeof(http_spoofable[0]))

#define PAGE(code, reason, n)						\
	"HTTP/1.1 " code " " reason "\r\nContent-Type: text/plain\r\n"	\
	"Content-Length: " n "\r\nConnection: close\r\n\r\n" reason "\n"

static const struct {
	int		status;
	const char	*text;
} http_pages[] = {
	{ 400, PAGE("400", "Bad Request", "12") },
	{ 408, PAGE("408", "Request Timeout", "16") },
	{ 431, PAGE("431", "Request Header Fields Too Large", "32") },
	{ 502, PAGE("502", "Bad Gateway", "12") },
	{ 503, PAGE("503", "Service Unavailable", "20") },
	{ 504, PAGE("504", "Gateway Timeout", "16") },
};

/*
 * Case-insensitive match of p[from..to) against lower-case s.  The
 * parsers pass offsets into the one buffer, not pointer and length
 * pairs: an analyser then bounds each read by the buffer's length
 * (make prove).  i < to and k < n are the same test, kept both for it.
 */
static int
eq_ci(const uint8_t *p, size_t from, size_t to, const char *s)
{
	size_t i, k, n = strlen(s);

	if (to - from != n)
		return 0;
	for (i = from, k = 0; i < to && k < n; i++, k++)
		if (to_lower(p[i]) != (uint8_t)s[k])
			return 0;
	return 1;
}

/*
 * CGI-style backends map '-' and '_' in field names to the same
 * variable (RFC 3875 4.1.18): X_Forwarded_For is a spoof too.
 */
static int
is_spoofable(const uint8_t *p, size_t from, size_t to)
{
	uint8_t name[32] = { 0 };	/* all of it, for an analyser */
	size_t i, k;

	if (to - from > sizeof(name))
		return 0;
	for (i = from, k = 0; i < to && k < sizeof(name); i++, k++)
		name[k] = p[i] == '_' ? '-' : p[i];
	for (i = 0; i < NSPOOFABLE; i++)
		if (eq_ci(name, 0, k, http_spoofable[i]))
			return 1;
	return 0;
}

/* Offset of the first CR in buf[from..end), or end. */
static size_t
find_cr(const uint8_t *buf, size_t from, size_t end)
{
	while (from < end && buf[from] != '\r')
		from++;
	return from < end ? from : end;
}

int
http_head_end(const uint8_t *buf, size_t len, size_t *head_len)
{
	size_t i;

	/* A resume point past len is a caller bug: rescanning is safe. */
	i = *head_len <= len ? *head_len : 0;
	for (; i < len; i++) {
		if (buf[i] == '\r') {
			if (i + 1 >= len)
				break;
			if (buf[i + 1] != '\n')
				return HTTP_E_BARE_CR;
		} else if (buf[i] == '\n') {
			if (i == 0 || buf[i - 1] != '\r')
				return HTTP_E_BARE_LF;
			/* An LF two back was checked to follow a CR. */
			if (i == 1 || buf[i - 2] == '\n') {
				*head_len = i + 1;
				return HTTP_OK;
			}
		}
	}
	*head_len = i;
	return HTTP_MORE;
}

/*
 * Line endings and control bytes of the whole head, so that the rest of
 * the parse may treat every CR as the start of a CRLF.
 */
static int
check_bytes(const uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\r') {
			if (i + 1 >= len || buf[i + 1] != '\n')
				return HTTP_E_BARE_CR;
			i++;
		} else if (buf[i] == '\n')
			return HTTP_E_BARE_LF;
		else if (is_ctl(buf[i]))
			return HTTP_E_CTL;
	}
	return HTTP_OK;
}

/* METHOD SP target SP HTTP/1.x; eol is the offset of its CR. */
static int
parse_reqline(const uint8_t *buf, size_t eol, struct http_req *req)
{
	size_t m, t, v, k;

	for (m = 0; m < eol && is_tchar(buf[m]); m++)
		;
	if (m >= eol)
		return HTTP_E_REQLINE;
	if (m == 0 || buf[m] != ' ')
		return HTTP_E_METHOD;
	/* Methods are case-sensitive, but a lax backend must not tunnel. */
	if (eq_ci(buf, 0, m, "connect"))
		return HTTP_E_CONNECT;
	for (t = m + 1; t < eol && buf[t] > 0x20 && buf[t] < 0x7f; t++)
		;
	if (t == m + 1)
		return t < eol && buf[t] != ' ' ? HTTP_E_TARGET : HTTP_E_REQLINE;
	if (t >= eol)
		return HTTP_E_REQLINE;
	if (buf[t] != ' ')
		return HTTP_E_TARGET;
	/* Byte by byte below eol, not memcmp(): make prove bounds each. */
	for (v = t + 1, k = 0; v < eol && k < 7 &&
	    buf[v] == (uint8_t)"HTTP/1."[k]; v++, k++)
		;
	if (k < 7 || v >= eol || eol - v != 1 ||
	    (buf[v] != '0' && buf[v] != '1'))
		return HTTP_E_VERSION;
	req->method_len = m;
	req->target_off = m + 1;
	req->target_len = t - (m + 1);
	req->minor = buf[v] - '0';
	return HTTP_OK;
}

/* Content-Length: 1*DIGIT that fits 64 bits. */
static int
parse_length(const uint8_t *p, size_t from, size_t to, uint64_t *v)
{
	uint64_t x;
	size_t i;
	unsigned d;

	if (from >= to)
		return HTTP_E_CL_BAD;
	for (x = 0, i = from; i < to; i++) {
		if (p[i] < '0' || p[i] > '9')
			return HTTP_E_CL_BAD;
		d = p[i] - '0';
		if (x > (UINT64_MAX - d) / 10)
			return HTTP_E_CL_BAD;
		x = x * 10 + d;
	}
	*v = x;
	return HTTP_OK;
}

/*
 * Connection: #token in p[from..to); empty list elements are allowed
 * (RFC 9110 5.6.1).
 */
static int
parse_connection(const uint8_t *p, size_t from, size_t to,
    struct fields *f)
{
	size_t i, s, e;

	for (i = from; i < to;) {
		while (i < to && (is_ws(p[i]) || p[i] == ','))
			i++;
		for (s = i; i < to && is_tchar(p[i]); i++)
			;
		if (i == s) {
			if (i < to)
				return HTTP_E_CONNECTION;
			break;
		}
		e = i;
		while (i < to && is_ws(p[i]))
			i++;
		if (i < to && p[i] != ',')
			return HTTP_E_CONNECTION;
		f->conn_other += !eq_ci(p, s, e, "close");
		if (eq_ci(p, s, e, "close"))
			f->close++;
		else if (eq_ci(p, s, e, "keep-alive"))
			f->keep = 1;
		else if (eq_ci(p, s, e, "upgrade"))
			f->conn_upgrade = 1;
		else if (eq_ci(p, s, e, "content-length") ||
		    eq_ci(p, s, e, "transfer-encoding") ||
		    eq_ci(p, s, e, "host") || is_spoofable(p, s, e))
			return HTTP_E_CONNECTION;
	}
	return HTTP_OK;
}

/* One field line buf[from..eol) (no CRLF), field number idx. */
static int
parse_field(const uint8_t *buf, size_t from, size_t eol, unsigned idx,
    struct http_req *req, struct fields *f)
{
	size_t n, v, e;

	if (from >= eol || is_ws(buf[from]))
		return HTTP_E_OBS_FOLD;
	for (n = from; n < eol && is_tchar(buf[n]); n++)
		;
	if (n > from && n < eol && is_ws(buf[n]))
		return HTTP_E_FIELD_WS;
	if (n == from || n >= eol || buf[n] != ':')
		return HTTP_E_FIELD_NAME;
	for (v = n + 1; v < eol && is_ws(buf[v]); v++)
		;
	for (e = eol; e > v && is_ws(buf[e - 1]); e--)
		;

	if (eq_ci(buf, from, n, "content-length"))
		return f->cl++ > 0 ? HTTP_E_CL_DUP :
		    parse_length(buf, v, e, &req->body_len);
	if (eq_ci(buf, from, n, "transfer-encoding"))
		return f->te++ > 0 ? HTTP_E_TE_DUP :
		    eq_ci(buf, v, e, "chunked") ? HTTP_OK : HTTP_E_TE_BAD;
	if (eq_ci(buf, from, n, "host")) {
		if (f->host++ > 0)
			return HTTP_E_HOST;
		req->host_off = v;
		req->host_len = e - v;
	} else if (eq_ci(buf, from, n, "connection")) {
		unsigned other = f->conn_other, closes = f->close;
		int rc = parse_connection(buf, v, e, f);

		/* "close" alone is hop-by-hop (RFC 9112 9.6): the backend
		 * connection may outlive the client's, whose end is ours. */
		if (rc == HTTP_OK && f->conn_other == other) {
			req->drop[idx / 32] |= (uint32_t)1 << (idx % 32);
			f->close_dropped += f->close - closes;
		}
		return rc;
	} else if (eq_ci(buf, from, n, "upgrade"))
		f->upgrade += e > v;
	else if (is_spoofable(buf, from, n))
		req->drop[idx / 32] |= (uint32_t)1 << (idx % 32);
	return HTTP_OK;
}

/*
 * The field lines from offset i (after the start line) to the empty line
 * that must end buf[0..len); then the framing headers must not clash.
 * Requests and responses are framed by the same rules.
 */
static int
parse_fields(const uint8_t *buf, size_t i, size_t len, struct http_req *req,
    struct fields *f)
{
	size_t eol;
	int rc;

	/* check_bytes() made every CR the start of a CRLF. */
	for (;; i = eol + 2) {
		eol = find_cr(buf, i, len);
		if (eol == len)
			return HTTP_E_INCOMPLETE;
		if (eol == i)
			break;
		if (req->nfields >= HTTP_MAX_FIELDS)
			return HTTP_E_TOO_MANY_FIELDS;
		rc = parse_field(buf, i, eol, req->nfields, req, f);
		if (rc != HTTP_OK)
			return rc;
		req->nfields++;
	}
	if (eol + 2 != len)
		return HTTP_E_INCOMPLETE;
	return f->cl > 0 && f->te > 0 ? HTTP_E_CL_TE : HTTP_OK;
}

int
http_parse_head(const uint8_t *buf, size_t len, struct http_req *req)
{
	struct fields f;
	size_t eol;
	int rc;

	memset(req, 0, sizeof(*req));
	memset(&f, 0, sizeof(f));
	if ((rc = check_bytes(buf, len)) != HTTP_OK)
		return rc;
	eol = find_cr(buf, 0, len);
	if (eol == len)
		return HTTP_E_INCOMPLETE;
	if ((rc = parse_reqline(buf, eol, req)) != HTTP_OK)
		return rc;
	if ((rc = parse_fields(buf, eol + 2, len, req, &f)) != HTTP_OK)
		return rc;
	/* RFC 9112 6.1: TE in HTTP/1.0 means faulty framing. */
	if (f.te > 0 && req->minor == 0)
		return HTTP_E_TE_HTTP10;
	if (req->minor == 1 && f.host != 1)
		return HTTP_E_HOST;
	req->head_len = len;
	if (f.te > 0)
		req->body = HTTP_BODY_CHUNKED;
	else if (f.cl > 0)
		req->body = HTTP_BODY_LENGTH;
	req->keep_alive = (req->minor == 1 || f.keep) && !f.close;
	/* What the backend reads in the rewritten head. */
	req->fwd_keep_alive = (req->minor == 1 || f.keep) &&
	    f.close == f.close_dropped;
	/* RFC 9110 7.8: Upgrade is ignored in HTTP/1.0. */
	req->upgrade = req->minor == 1 && f.conn_upgrade && f.upgrade > 0;
	return HTTP_OK;
}

/*
 * Length of the head without its dropped lines (final CRLF included);
 * with move set, also slide the kept lines down into place.  Lines are
 * read at or after where they are written, so one pass suffices.
 */
static size_t
compact(uint8_t *buf, const struct http_req *req, int move)
{
	size_t r, w, eol, n, line;

	for (r = w = 0, line = 0; r < req->head_len; r = eol + 2, line++) {
		eol = find_cr(buf, r, req->head_len);
		if (eol + 2 > req->head_len)
			break;
		n = eol + 2 - r;
		/* Line 0 is the request line, field i is line i + 1. */
		if (line > 0 && line - 1 < HTTP_MAX_FIELDS &&
		    (req->drop[(line - 1) / 32] >> ((line - 1) % 32) & 1))
			continue;
		if (move && w != r)
			memmove(buf + w, buf + r, n);
		w += n;
	}
	return w;
}

static int
peer_ok(const char *p, size_t len)
{
	size_t i;

	if (p == NULL || len == 0 || len > HTTP_PEER_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (hexval((uint8_t)p[i]) < 0 && p[i] != '.' && p[i] != ':')
			return 0;
	return 1;
}

static size_t
put(char *out, size_t w, const char *s, size_t len)
{
	memcpy(out + w, s, len);
	return w + len;
}
#define PUT_LIT(out, w, lit)	put(out, w, lit, sizeof(lit) - 1)

/* A port number's decimal digits into out[5]: no printf, no locale. */
static size_t
digits(unsigned port, char *out)
{
	size_t n = port >= 10000 ? 5 : port >= 1000 ? 4 : port >= 100 ? 3 :
	    port >= 10 ? 2 : 1;

	for (size_t i = n; i-- > 0; port /= 10)
		out[i] = (char)('0' + port % 10);
	return n;
}

/* RFC 4648 base64, padded, of p[0..n) at out + w; the new w. */
static size_t
base64(const uint8_t *p, size_t n, char *out, size_t w)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t v;

	for (size_t i = 0; i < n; i += 3) {
		v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 :
		    0) | (i + 2 < n ? p[i + 2] : 0);
		out[w++] = b64[v >> 18];
		out[w++] = b64[(v >> 12) & 63];
		out[w++] = (char)(i + 1 < n ? b64[(v >> 6) & 63] : '=');
		out[w++] = (char)(i + 2 < n ? b64[v & 63] : '=');
	}
	return w;
}

/*
 * Client-Cert-Chain at out + w, if fwd's chain is one to hand on (at
 * most HTTP_CHAIN_SLACK bytes); the new w, or 0 if it is not.
 */
static size_t
fwd_chain(const struct http_fwd *fwd, char *out, size_t w)
{
	const uint8_t *p = fwd->chain;
	size_t total = 0;

	if (fwd->nchain == 0 || fwd->nchain > HTTP_CHAIN_CERTS)
		return 0;
	for (unsigned i = 0; i < fwd->nchain; i++) {
		if (fwd->chain_len[i] == 0 ||
		    fwd->chain_len[i] > HTTP_CHAIN_MAX - total)
			return 0;
		total += fwd->chain_len[i];
	}
	w = PUT_LIT(out, w, "Client-Cert-Chain: ");
	for (unsigned i = 0; i < fwd->nchain; i++) {
		if (i > 0)
			w = PUT_LIT(out, w, ", ");
		out[w++] = ':';
		w = base64(p, fwd->chain_len[i], out, w);
		out[w++] = ':';
		p += fwd->chain_len[i];
	}
	return PUT_LIT(out, w, "\r\n");
}

/*
 * The headers fwd asks for, into out[HTTP_FWD_SLACK + HTTP_CERT_SLACK +
 * HTTP_CHAIN_SLACK] (Client-Cert's up to HTTP_CERT_SLACK,
 * Client-Cert-Chain's up to HTTP_CHAIN_SLACK, the rest at most 17 + 45 +
 * 2 + 26 + 18 + 5 + 2 + 23 + 300 + 2 + 19 = 459 bytes).  Returns -1 if fwd is
 * implausible.
 */
static int
fwd_headers(const struct http_fwd *fwd, char *out, size_t *len)
{
	char port[5];
	size_t w = 0, n;

	if (fwd->flags & HTTP_FWD_FOR) {
		if (!peer_ok(fwd->peer, fwd->peer_len))
			return -1;
		w = PUT_LIT(out, w, "X-Forwarded-For: ");
		w = put(out, w, fwd->peer, fwd->peer_len);
		w = PUT_LIT(out, w, "\r\n");
	}
	if (fwd->flags & HTTP_FWD_PROTO)
		w = PUT_LIT(out, w, "X-Forwarded-Proto: https\r\n");
	if (fwd->flags & HTTP_FWD_PORT) {
		if (fwd->port == 0 || fwd->port > 65535)
			return -1;
		n = digits(fwd->port, port);
		w = PUT_LIT(out, w, "X-Forwarded-Port: ");
		w = put(out, w, port, n);
		w = PUT_LIT(out, w, "\r\n");
	}
	if (fwd->subject_len > 0) {
		if (fwd->subject_len > HTTP_SUBJECT_MAX)
			return -1;
		for (size_t i = 0; i < fwd->subject_len; i++)
			if (fwd->subject[i] < 0x20 || fwd->subject[i] > 0x7e)
				return -1;
		w = PUT_LIT(out, w, "X-Client-Cert-Subject: ");
		w = put(out, w, fwd->subject, fwd->subject_len);
		w = PUT_LIT(out, w, "\r\n");
	}
	if (fwd->cert != NULL) {
		if (fwd->cert_len == 0 || fwd->cert_len > HTTP_CERT_MAX)
			return -1;
		w = PUT_LIT(out, w, "Client-Cert: :");
		w = base64(fwd->cert, fwd->cert_len, out, w);
		w = PUT_LIT(out, w, ":\r\n");
	}
	if (fwd->chain != NULL && (w = fwd_chain(fwd, out, w)) == 0)
		return -1;
	if (fwd->flags & HTTP_FWD_CLOSE)
		w = PUT_LIT(out, w, "Connection: close\r\n");
	*len = w;
	return 0;
}

size_t
http_rewrite_head(uint8_t *buf, size_t len, size_t cap,
    const struct http_req *req, const struct http_fwd *fwd)
{
	char add[HTTP_FWD_SLACK + HTTP_CERT_SLACK + HTTP_CHAIN_SLACK];
	size_t alen, keep, tail, nlen;

	if (len > cap || req->head_len > len || req->head_len < 4 ||
	    memcmp(buf + req->head_len - 4, "\r\n\r\n", 4) != 0)
		return 0;
	if (fwd_headers(fwd, add, &alen) != 0)
		return 0;
	keep = compact(buf, req, 0);
	if (keep < 4)
		return 0;
	nlen = keep + alen;
	tail = len - req->head_len;
	if (nlen > cap || tail > cap - nlen)
		return 0;

	/* Nothing may change before this point: on failure buf is as given. */
	compact(buf, req, 1);
	memmove(buf + nlen, buf + req->head_len, tail);
	memcpy(buf + keep - 2, add, alen);
	memcpy(buf + nlen - 2, "\r\n", 2);
	return nlen;
}

int
http_resp_status(const uint8_t *buf, size_t len, int *status)
{
	size_t i;
	uint8_t c;
	int ok;

	/* "HTTP/1.x ddd " with x 0 or 1, ddd 100-599, a CR for the SP. */
	for (i = 0; i < len && i < 13; i++) {
		c = buf[i];
		if (i == 7)
			ok = c == '0' || c == '1';
		else if (i == 9)
			ok = c >= '1' && c <= '5';
		else if (i == 10 || i == 11)
			ok = c >= '0' && c <= '9';
		else if (i == 12)
			ok = c == ' ' || c == '\r';
		else
			ok = c == (uint8_t)"HTTP/1.x ddd "[i];
		if (!ok)
			return HTTP_E_RESP;
	}
	if (i < 13)
		return HTTP_MORE;
	*status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	return HTTP_OK;
}

int
http_parse_resp(const uint8_t *buf, size_t len, struct http_resp *resp)
{
	struct http_req scratch;
	struct fields f;
	size_t eol;
	int rc;

	memset(resp, 0, sizeof(*resp));
	memset(&scratch, 0, sizeof(scratch));
	memset(&f, 0, sizeof(f));
	if ((rc = check_bytes(buf, len)) != HTTP_OK)
		return rc;
	eol = find_cr(buf, 0, len);
	if (eol == len || http_resp_status(buf, eol, &resp->status) != HTTP_OK)
		return HTTP_E_RESP;
	if ((rc = parse_fields(buf, eol + 2, len, &scratch, &f)) != HTTP_OK)
		return rc;
	/* RFC 9112 6.3: these never have a body, whatever they say. */
	if (resp->status < 200 || resp->status == 204 || resp->status == 304)
		resp->body = HTTP_BODY_NONE;
	else if (f.te > 0)
		resp->body = buf[7] == '1' ? HTTP_BODY_CHUNKED : HTTP_BODY_CLOSE;
	else if (f.cl > 0) {
		resp->body = HTTP_BODY_LENGTH;
		resp->body_len = scratch.body_len;
	} else
		resp->body = HTTP_BODY_CLOSE;
	resp->keep_alive = buf[7] == '1' && !f.close;
	return HTTP_OK;
}

/* The host a client asked for, if it is a DNS name or an IP literal. */
static int
host_ok(const uint8_t *h, size_t n)
{
	size_t i = 0;

	if (n == 0 || n > 255)
		return 0;
	if (h[0] == '[') {
		while (++i < n && h[i] != ']')
			if (hexval(h[i]) < 0 && h[i] != ':' && h[i] != '.')
				return 0;
		return i + 1 == n && i > 1;
	}
	for (; i < n; i++)
		if (!is_alnum(h[i]) && h[i] != '.' && h[i] != '-' &&
		    h[i] != '_')
			return 0;
	return 1;
}

/* An authority without its ":port" (digits only), or 0 if malformed. */
static size_t
strip_port(const uint8_t *a, size_t n)
{
	size_t i = n;

	while (i > 0 && a[i - 1] >= '0' && a[i - 1] <= '9')
		i--;
	if (i == n || i == 0 || a[i - 1] != ':')
		return n;
	i--;
	/* "[v6]:port", or "name:port" with no other colon. */
	if (a[0] == '[' ? i > 0 && a[i - 1] == ']' : memchr(a, ':', i) == NULL)
		return i;
	return 0;
}

size_t
http_redirect(uint8_t *buf, size_t cap, const struct http_req *req,
    const char *own, unsigned port)
{
	static const char pre[] = "HTTP/1.1 308 Permanent Redirect\r\n"
	    "Location: https://";
	static const char post[] = "\r\nContent-Length: 0\r\n"
	    "Connection: close\r\n\r\n";
	const uint8_t *t = buf + req->target_off, *host, *path;
	size_t tlen = req->target_len, hlen, plen, at, i;
	char h[260], pt[6];
	size_t ptlen = 0;

	/* RFC 9112 3.2.2: an absolute-form target's authority wins. */
	if (tlen > 7 && (memcmp(t, "http://", 7) == 0 ||
	    memcmp(t, "HTTP://", 7) == 0)) {
		for (i = 7; i < tlen && t[i] != '/' && t[i] != '?'; i++)
			;
		host = t + 7;
		hlen = i - 7;
		path = t + i;
		plen = tlen - i;
	} else {
		host = buf + req->host_off;
		hlen = req->host_len;
		path = t;
		plen = t[0] == '/' ? tlen : 0;
	}
	if (hlen == 0) {
		host = (const uint8_t *)own;
		hlen = strlen(own);
	}
	hlen = strip_port(host, hlen);
	if (!host_ok(host, hlen))
		return 0;
	memcpy(h, host, hlen);
	if (port != 443 && port > 0 && port <= 65535) {
		ptlen = digits(port, pt + 1) + 1;
		pt[0] = ':';
	}
	/* The path moves first: what goes before it is not from buf. */
	at = sizeof(pre) - 1 + hlen + ptlen;
	if (at + 1 + plen + sizeof(post) - 1 > cap)
		return 0;
	if (plen == 0 || path[0] != '/') {
		memmove(buf + at + 1, path, plen);
		buf[at] = '/';
		plen++;
	} else
		memmove(buf + at, path, plen);
	memcpy(buf, pre, sizeof(pre) - 1);
	memcpy(buf + sizeof(pre) - 1, h, hlen);
	memcpy(buf + sizeof(pre) - 1 + hlen, pt, ptlen);
	memcpy(buf + at + plen, post, sizeof(post) - 1);
	return at + plen + sizeof(post) - 1;
}

const char *
http_error_page(int status, size_t *len)
{
	for (size_t i = 0; i < sizeof(http_pages) / sizeof(http_pages[0]); i++)
		if (http_pages[i].status == status) {
			*len = strlen(http_pages[i].text);
			return http_pages[i].text;
		}
	return NULL;
}

int
http_err_status(int rc)
{
	return rc == HTTP_E_TOO_MANY_FIELDS ? 431 : 400;
}

const char *
http_strerror(int rc)
{
	if (rc < 0 || rc >= HTTP_E_COUNT || http_names[rc] == NULL)
		return "unknown";
	return http_names[rc];
}
