/* SPDX-License-Identifier: ISC */
/*
 * forward.c - see forward.h.
 *
 * http mode, per request:  HEAD (stage, parse, rewrite) -> HEAD_OUT
 * (write the new head) -> BODY (Content-Length bytes, or what the chunk
 * walker passes) -> HEAD again, or DONE when the request said close.
 * An upgrade request goes to PAUSED until the backend's status line is
 * seen: 101 makes the rest RAW, anything else carries on with HEAD.
 *
 * Responses are framed as they pass (NONE -> HEAD -> BODY or CHUNKED ->
 * NONE), so that the end of the last one is known without the backend
 * closing: the backend connection can then serve the next client.  A
 * head is sent only when the answer before it is complete (as nginx
 * does upstream), which keeps one response head at a time in hbuf.
 * Anything not understood makes the rest RAW: relayed as before, and
 * the connection is never reused.
 *
 * Heads are copied from the engine's plaintext into hbuf without being
 * acknowledged first; once the head's end is known, only the bytes up
 * to it are acknowledged, so whatever follows (body, next request) is
 * still in the engine and takes the zero-copy path.
 */
#include <stdio.h>
#include <string.h>

#include "conn.h"
#include "forward.h"
#include "proxyin.h"
#include "tls.h"
#include "tlswire.h"

void
fwd_begin(struct fwd *f, const struct service *svc)
{

	memset(f, 0, offsetof(struct fwd, hbuf));
	f->phase = svc->mode == MODE_HTTP ? FWD_HEAD : FWD_RAW;
	f->resp = svc->mode == MODE_HTTP ? FWD_R_NONE : FWD_R_RAW;
}

/*
 * A client_ca service's PROXY v2 header ends with the SSL TLV
 * (PP2_TYPE_SSL) as haproxy's send-proxy-v2-ssl-cn sends it: the
 * client flags (SSL, and a certificate on this connection, or, when it
 * resumed, on its session: the ticket's), verify 0
 * for a verified certificate, the version, and the subject's CN.
 */
static void
ssl_tlv(const struct fwd_peer *s, struct tw *w)
{
	struct eng_result r;
	int cert = tls_client_verified(s->tls);
	char cn[TLS_SUBJ_LEN];
	size_t k = cert ? tls_client_cn(s->tls, cn, sizeof(cn)) : 0;

	eng_result(&s->tls->eng, &r);
	tw_u8(w, 0x20);				/* PP2_TYPE_SSL */
	tw_open(w, 2);
	tw_u8(w, 0x01 | (!cert ? 0 : r.resumed ? 0x04 : 0x02));
	tw_put(w, cert ? "\0\0\0\0" : "\0\0\0\1", 4);
	tw_u8(w, 0x21);				/* PP2_SUBTYPE_SSL_VERSION */
	tw_open(w, 2);
	tw_put(w, r.version == 0x0304 ? "TLSv1.3" : "TLSv1.2", 7);
	tw_close(w);
	if (k > 0) {
		tw_u8(w, 0x22);			/* PP2_SUBTYPE_SSL_CN */
		tw_open(w, 2);
		tw_put(w, cn, k);
		tw_close(w);
	}
	tw_close(w);
}

/* PROXY protocol v1 (text) or v2 (binary), before the first byte. */
static size_t
proxy_header(const struct fwd_peer *s, unsigned char *out, size_t cap)
{
	uint8_t src[16], dst[16];
	size_t alen = port_addr_raw(s->peer, src);
	unsigned sp = port_addr_port(s->peer), dp = port_addr_port(s->local);
	char a[48], b[48];
	struct tw w;
	int n;

	(void)port_addr_raw(s->local, dst);
	if (s->svc->proxy == PROXY_V1) {
		port_addr_ip(s->peer, a, sizeof(a));
		port_addr_ip(s->local, b, sizeof(b));
		n = snprintf((char *)out, cap, "PROXY %s %s %s %u %u\r\n",
		    alen == 4 ? "TCP4" : "TCP6", a, b, sp, dp);
		return n > 0 && (size_t)n < cap ? (size_t)n : 0;
	}
	tw_init(&w, out, cap);
	tw_put(&w, proxyin_v2sig, 12);
	tw_u8(&w, 0x21);			/* version 2, PROXY */
	tw_u8(&w, alen == 4 ? 0x11 : 0x21);	/* TCP over IPv4 / IPv6 */
	tw_open(&w, 2);
	tw_put(&w, src, alen);
	tw_put(&w, dst, alen);
	tw_u16(&w, sp);
	tw_u16(&w, dp);
	if (s->tls->client_auth)
		ssl_tlv(s, &w);
	tw_close(&w);
	return tw_len(&w);
}

void
fwd_connected(struct fwd *f, const struct fwd_peer *s)
{
	f->reuse = s->svc->mode == MODE_HTTP;
	if (s->svc->mode == MODE_TCP && s->svc->proxy != PROXY_OFF) {
		f->hout_off = 0;
		f->hout_len = proxy_header(s, f->hbuf, sizeof(f->hbuf));
	}
}

/* The rest of what the backend sends ends only at its EOF. */
static void
unframed(struct fwd *f)
{
	f->resp = FWD_R_RAW;
	f->reuse = 0;
}

/* RFC 9110 9.2.2: may be sent twice; PUT and DELETE carry a body here. */
static int
idempotent(const unsigned char *m, size_t len)
{
	static const char *const safe[] = { "GET", "HEAD", "OPTIONS",
	    "TRACE" };

	for (size_t i = 0; i < sizeof(safe) / sizeof(safe[0]); i++)
		if (strlen(safe[i]) == len && memcmp(m, safe[i], len) == 0)
			return 1;
	return 0;
}

static enum fwd_verdict
refuse(struct fwd *f, int status, const char *why)
{
	f->status = status;
	f->why = why;
	return FWD_REFUSE;
}

/* The request (head and body) is through: what comes next. */
static enum fwd_verdict
request_done(struct fwd *f)
{
	f->phase = f->upgrade ? FWD_PAUSED : f->keep_alive ? FWD_HEAD :
	    FWD_DONE;
	/* The last request: a backend that would keep the connection open
	 * sees the end and answers, then closes. */
	return f->phase == FWD_DONE ? FWD_LAST : FWD_MOVED;
}

_Static_assert(ENG_CHAIN_MAX - 1 <= HTTP_CHAIN_CERTS,
    "Client-Cert-Chain has room for every certificate after the leaf");

/* A complete head is in hbuf[0..hlen): check it, rewrite it, stage it. */
static enum fwd_verdict
head_complete(const struct fwd_peer *s, struct fwd *f)
{
	const struct service *svc = s->svc;
	struct http_req req;
	struct http_fwd hf;
	char ip[48], subject[HTTP_SUBJECT_MAX + 1];
	size_t n;
	int rc, again;

	rc = http_parse_head(f->hbuf, f->hlen, &req);
	if (rc != HTTP_OK)
		return refuse(f, http_err_status(rc), http_strerror(rc));
	if (conn_draining)
		return refuse(f, 503, "draining");
	/* Without parsing responses, a 101 is only placed safely first. */
	if (req.upgrade && f->nreq > 0)
		return refuse(f, 400, "upgrade-not-first");
	port_addr_ip(s->peer, ip, sizeof(ip));
	hf.flags = (svc->xff ? HTTP_FWD_FOR : 0) | (svc->xfproto ?
	    HTTP_FWD_PROTO : 0) | (svc->xfport ? HTTP_FWD_PORT : 0);
	hf.peer = ip;
	hf.peer_len = strlen(ip);
	hf.port = port_addr_port(s->local);
	hf.subject = subject;
	hf.subject_len = tls_client_subject(s->tls, subject, sizeof(subject));
	hf.cert = tls_client_cert(s->tls, &hf.cert_len);
	hf.chain = tls_client_chain(s->tls, &hf.chain_len, &hf.nchain);
	f->head_req = req.method_len == 4 && memcmp(f->hbuf, "HEAD", 4) == 0;
	f->last_req = !req.fwd_keep_alive;
	again = idempotent(f->hbuf, req.method_len) && !req.upgrade &&
	    (req.body == HTTP_BODY_NONE || (req.body == HTTP_BODY_LENGTH &&
	    req.body_len == 0));
	n = http_rewrite_head(f->hbuf, f->hlen, sizeof(f->hbuf), &req, &hf);
	if (n == 0)
		return refuse(f, 431, "head-too-big");
	f->retry_len = again ? n : 0;
	f->hout_off = 0;
	f->hout_len = n;
	f->hlen = f->hscan = 0;
	f->body_chunked = req.body == HTTP_BODY_CHUNKED;
	f->body_left = req.body == HTTP_BODY_LENGTH ? req.body_len : 0;
	f->keep_alive = req.keep_alive;
	f->upgrade = req.upgrade;
	f->nreq++;
	f->awaiting = 1;
	if (f->resp == FWD_R_NONE) {
		f->resp = FWD_R_HEAD;
		f->rlen = f->rscan = 0;
	}
	f->phase = FWD_HEAD_OUT;
	return FWD_READY;
}

/* Stage plaintext into hbuf until the head's end. */
static enum fwd_verdict
stage_head(const struct fwd_peer *s, struct fwd *f, const unsigned char *buf,
    size_t len, size_t *used)
{
	size_t room = TLSGATE_HEAD_MAX - f->hlen, n = len < room ? len : room;
	size_t before = f->hlen;
	int rc;

	memcpy(f->hbuf + f->hlen, buf, n);
	if (f->hlen == 0) {
		f->t_head = conn_now;
		f->retry_len = 0;
	}
	rc = http_head_end(f->hbuf, f->hlen + n, &f->hscan);
	if (rc != HTTP_OK) {
		*used = n;
		f->hlen += n;
		if (rc != HTTP_MORE)
			return refuse(f, http_err_status(rc), http_strerror(rc));
		return f->hlen == TLSGATE_HEAD_MAX ? refuse(f, 431,
		    "head-too-big") : FWD_MOVED;
	}
	/* Only the head's own bytes leave the engine. */
	*used = f->hscan - before;
	f->hlen = f->hscan;
	return head_complete(s, f);
}

enum fwd_verdict
fwd_client(struct fwd *f, const struct fwd_peer *s, const unsigned char *in,
    size_t inlen, size_t *used, const unsigned char **buf, size_t *len)
{
	size_t chunk;
	int rc;

	*used = 0;
	if (f->hout_len > 0) {
		*buf = f->hbuf + f->hout_off;
		*len = f->hout_len;
		return FWD_WRITE;
	}
	if (in == NULL)
		return FWD_IDLE;
	*buf = in;
	*len = inlen;
	switch (f->phase) {
	case FWD_HEAD:
		/* One answer at a time: the next head waits in the engine. */
		if (f->resp != FWD_R_NONE && f->resp != FWD_R_RAW)
			return FWD_IDLE;
		return stage_head(s, f, in, inlen, used);
	case FWD_DONE:
		*used = inlen;
		return FWD_MOVED;
	case FWD_RAW:
		return FWD_WRITE;
	case FWD_BODY:
		break;
	default:
		return FWD_IDLE;
	}
	/* How many of the bytes belong to the current body. */
	if (f->body_left == 0 && f->body_chunked && !f->body_end) {
		rc = http_chunk_feed(&f->chunk, in, *len, &chunk);
		if (rc != HTTP_OK && rc != HTTP_MORE)
			return refuse(f, 400, http_strerror(rc));
		f->body_left = chunk;
		f->body_end = rc == HTTP_OK;
	}
	if (f->body_left == 0)		/* a chunked body that ended */
		return f->body_end ? request_done(f) : FWD_IDLE;
	if (f->body_left < *len)
		*len = (size_t)f->body_left;
	return FWD_WRITE;
}

enum fwd_verdict
fwd_wrote(struct fwd *f, size_t n, size_t *used)
{

	*used = 0;
	if (f->hout_len > 0) {
		f->hout_off += n;
		f->hout_len -= n;
		if (f->hout_len > 0 || f->phase != FWD_HEAD_OUT)
			return FWD_MOVED;
		/* The head is out: its body, if it has one. */
		if (f->body_chunked) {
			http_chunk_init(&f->chunk);
			f->body_left = 0;
			f->body_end = 0;
		} else if (f->body_left > 0)
			f->body_end = 1;
		else
			return request_done(f);
		f->phase = FWD_BODY;
		return FWD_MOVED;
	}
	*used = n;
	if (f->phase == FWD_BODY) {
		f->body_left -= n;
		if (f->body_left == 0 && f->body_end)
			return request_done(f);
	}
	return FWD_MOVED;
}

/* Stage and parse a response head; returns the bytes of buf used. */
static size_t
resp_head(struct fwd *f, const unsigned char *buf, size_t len)
{
	size_t room = TLSGATE_HEAD_MAX - f->rlen, n = len < room ? len : room;
	size_t before = f->rlen;
	struct http_resp r;
	int rc;

	/* A head still going out, or a response head too big to parse. */
	if (f->hout_len > 0 || n == 0) {
		unframed(f);
		return len;
	}
	memcpy(f->hbuf + f->rlen, buf, n);
	f->rlen += n;
	rc = http_head_end(f->hbuf, f->rlen, &f->rscan);
	if (rc == HTTP_MORE)
		return n;
	if (rc != HTTP_OK || http_parse_resp(f->hbuf, f->rscan, &r) != HTTP_OK) {
		unframed(f);
		return len;
	}
	n = f->rscan - before;
	f->rlen = f->rscan = 0;
	if (r.status == 101) {
		if (f->phase == FWD_PAUSED)
			f->phase = FWD_RAW;
		unframed(f);
		return n;
	}
	if (r.status < 200)		/* interim: the final one follows */
		return n;
	if (f->phase == FWD_PAUSED)
		f->phase = f->keep_alive ? FWD_HEAD : FWD_DONE;
	f->reuse &= r.keep_alive && !f->last_req;
	if (f->head_req || r.body == HTTP_BODY_NONE ||
	    (r.body == HTTP_BODY_LENGTH && r.body_len == 0))
		f->resp = FWD_R_NONE;
	else if (r.body == HTTP_BODY_CHUNKED) {
		http_chunk_init(&f->rchunk);
		f->resp = FWD_R_CHUNKED;
	} else if (r.body == HTTP_BODY_LENGTH) {
		f->resp_left = r.body_len;
		f->resp = FWD_R_BODY;
	} else
		unframed(f);
	return n;
}

void
fwd_backend_bytes(struct fwd *f, const unsigned char *buf, size_t len)
{
	size_t n;
	int rc;

	f->awaiting = 0;
	f->retry_len = 0;
	while (len > 0 && f->resp != FWD_R_RAW) {
		switch (f->resp) {
		case FWD_R_HEAD:
			n = resp_head(f, buf, len);
			break;
		case FWD_R_BODY:
			n = len < f->resp_left ? len : (size_t)f->resp_left;
			f->resp_left -= n;
			if (f->resp_left == 0)
				f->resp = FWD_R_NONE;
			break;
		case FWD_R_CHUNKED:
			rc = http_chunk_feed(&f->rchunk, buf, len, &n);
			if (rc == HTTP_OK)
				f->resp = FWD_R_NONE;
			else if (rc != HTTP_MORE)
				unframed(f);
			break;
		default:		/* bytes no request asked for */
			unframed(f);
			n = len;
		}
		buf += n;
		len -= n;
	}
}

void
fwd_stop(struct fwd *f)
{
	/* A request half written: the backend may read the rest as a new
	 * one, or wait for it; its EOF ends the connection. */
	if (f->phase == FWD_BODY || (f->phase == FWD_HEAD_OUT &&
	    f->hout_off > 0))
		unframed(f);
	else if (f->phase == FWD_HEAD_OUT && f->resp == FWD_R_HEAD) {
		f->resp = FWD_R_NONE;	/* it never left */
		f->awaiting = 0;
	}
	f->phase = FWD_DONE;
	f->hout_len = 0;
}

size_t
fwd_retry(struct fwd *f)
{
	f->hout_off = 0;
	f->hout_len = f->retry_len;
	f->retry_len = 0;
	f->phase = FWD_HEAD_OUT;
	return f->hout_len;
}

uint64_t
fwd_head_since(const struct fwd *f)
{
	return f->phase == FWD_HEAD && f->hlen > 0 ? f->t_head : UINT64_MAX;
}

int
fwd_between(const struct fwd *f)
{
	return f->phase == FWD_HEAD && f->hlen == 0;
}

enum fwd_answer
fwd_answer(const struct fwd *f)
{
	if (f->resp == FWD_R_RAW || f->phase == FWD_BODY ||
	    f->phase == FWD_PAUSED || (f->phase == FWD_HEAD_OUT &&
	    f->hout_off > 0))
		return FWD_ANS_EOF;
	return f->resp == FWD_R_NONE ? FWD_ANS_DONE : FWD_ANS_OWED;
}
