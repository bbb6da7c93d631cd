/*
 * forward.c - see forward.h.
 *
 * http mode, per request:  HEAD (stage, parse, rewrite) -> HEAD_OUT
 * (write the new head) -> BODY (Content-Length bytes, or what the chunk
 * walker passes) -> HEAD again, or DONE when the request said close.
 * An upgrade request goes to PAUSED until the backend's status line is
 * seen: 101 makes the rest RAW, anything else carries on with HEAD.
 *
 * Heads are copied from the engine's plaintext into hbuf without being
 * acknowledged first; once the head's end is known, only the bytes up
 * to it are acknowledged, so whatever follows (body, next request) is
 * still in the engine and takes the zero-copy path.
 */
#include <stdio.h>
#include <string.h>

#include "forward.h"
#include "log.h"

void
fwd_begin(struct slot *s)
{
	s->phase = s->svc->mode == MODE_HTTP ? FWD_HEAD : FWD_RAW;
	s->hlen = s->hscan = s->hout_off = s->hout_len = 0;
	s->nreq = 0;
	s->awaiting = s->pending_status = 0;
	s->stash_len = 0;
}

/* PROXY protocol v1 (text) or v2 (binary), before the first byte. */
static size_t
proxy_header(const struct slot *s, unsigned char *out, size_t cap)
{
	static const unsigned char sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00,
	    0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };
	uint8_t src[16], dst[16];
	size_t alen = port_addr_raw(&s->peer, src);
	unsigned sp = port_addr_port(&s->peer), dp = port_addr_port(&s->local);
	char a[48], b[48];
	int n;

	(void)port_addr_raw(&s->local, dst);
	if (s->svc->proxy == PROXY_V1) {
		port_addr_ip(&s->peer, a, sizeof(a));
		port_addr_ip(&s->local, b, sizeof(b));
		n = snprintf((char *)out, cap, "PROXY %s %s %s %u %u\r\n",
		    alen == 4 ? "TCP4" : "TCP6", a, b, sp, dp);
		return n > 0 && (size_t)n < cap ? (size_t)n : 0;
	}
	memcpy(out, sig, 12);
	out[12] = 0x21;				/* version 2, PROXY */
	out[13] = alen == 4 ? 0x11 : 0x21;	/* TCP over IPv4 / IPv6 */
	out[14] = 0;
	out[15] = (unsigned char)(2 * alen + 4);
	memcpy(out + 16, src, alen);
	memcpy(out + 16 + alen, dst, alen);
	out[16 + 2 * alen] = (unsigned char)(sp >> 8);
	out[17 + 2 * alen] = (unsigned char)sp;
	out[18 + 2 * alen] = (unsigned char)(dp >> 8);
	out[19 + 2 * alen] = (unsigned char)dp;
	return 20 + 2 * alen;
}

void
fwd_connected(struct slot *s)
{
	if (s->svc->mode == MODE_TCP && s->svc->proxy != PROXY_OFF) {
		s->hout_off = 0;
		s->hout_len = proxy_header(s, s->hbuf, sizeof(s->hbuf));
	}
}

/* The request (head and body) is through: what comes next. */
static void
request_done(struct slot *s)
{
	if (s->upgrade)
		s->phase = FWD_PAUSED;
	else if (s->keep_alive)
		s->phase = FWD_HEAD;
	else {
		/* The last request: a backend that would keep the
		 * connection open sees the end and answers, then closes. */
		s->phase = FWD_DONE;
		if (s->bfd >= 0 && !(s->flags & SLOT_F_BSHUT)) {
			port_shutdown_wr(s->bfd);
			s->flags |= SLOT_F_BSHUT;
		}
	}
}

static void
head_out_done(struct slot *s)
{
	if (s->body_chunked) {
		http_chunk_init(&s->chunk);
		s->body_left = 0;
		s->body_end = 0;
		s->phase = FWD_BODY;
	} else if (s->body_left > 0) {
		s->body_end = 1;
		s->phase = FWD_BODY;
	} else
		request_done(s);
}

/* A complete head is in hbuf[0..hlen): check it, rewrite it, send it. */
static void
head_complete(struct slot *s)
{
	const struct service *svc = s->svc;
	struct http_req req;
	struct http_fwd f;
	char ip[48], subject[HTTP_SUBJECT_MAX + 1];
	size_t n;
	int rc;

	rc = http_parse_head(s->hbuf, s->hlen, &req);
	if (rc != HTTP_OK) {
		slot_http_error(s, http_err_status(rc), http_strerror(rc));
		return;
	}
	if (slot_draining) {
		slot_http_error(s, 503, "draining");
		return;
	}
	if (req.upgrade && s->nreq > 0) {
		/* Without parsing responses, a 101 is only placed safely first. */
		slot_http_error(s, 400, "upgrade-not-first");
		return;
	}
	port_addr_ip(&s->peer, ip, sizeof(ip));
	f.flags = (svc->xff ? HTTP_FWD_FOR : 0) | (svc->xfproto ?
	    HTTP_FWD_PROTO : 0) | (svc->xfport ? HTTP_FWD_PORT : 0);
	f.peer = ip;
	f.peer_len = strlen(ip);
	f.port = port_addr_port(&s->local);
	f.subject = subject;
	f.subject_len = tls_client_subject(&s->tls, subject, sizeof(subject));
	if (f.subject_len > 0)
		f.flags |= HTTP_FWD_SUBJECT;
	n = http_rewrite_head(s->hbuf, s->hlen, sizeof(s->hbuf), &req, &f);
	if (n == 0) {
		slot_http_error(s, 431, "head-too-big");
		return;
	}
	s->hout_off = 0;
	s->hout_len = n;
	s->hlen = s->hscan = 0;
	s->body_chunked = req.body == HTTP_BODY_CHUNKED;
	s->body_left = req.body == HTTP_BODY_LENGTH ? req.body_len : 0;
	s->keep_alive = req.keep_alive;
	s->upgrade = req.upgrade;
	s->nreq++;
	s->awaiting = 1;
	s->stash_len = 0;
	s->phase = FWD_HEAD_OUT;
	if (s->bfd < 0)
		slot_backend_connect(s);
}

/* Stage plaintext into hbuf until the head's end; returns 1 if moved. */
static int
stage_head(struct slot *s, const unsigned char *buf, size_t len)
{
	br_ssl_engine_context *eng = &s->tls.sc.eng;
	size_t room = TLSGATE_HEAD_MAX - s->hlen, n = len < room ? len : room;
	size_t before = s->hlen;
	int rc;

	memcpy(s->hbuf + s->hlen, buf, n);
	if (s->hlen == 0)
		s->t_head = slot_now;
	rc = http_head_end(s->hbuf, s->hlen + n, &s->hscan);
	if (rc == HTTP_MORE) {
		br_ssl_engine_recvapp_ack(eng, n);
		s->hlen += n;
		if (s->hlen == TLSGATE_HEAD_MAX)
			slot_http_error(s, 431, "head-too-big");
		return 1;
	}
	if (rc != HTTP_OK) {
		br_ssl_engine_recvapp_ack(eng, n);
		slot_http_error(s, http_err_status(rc), http_strerror(rc));
		return 1;
	}
	/* Only the head's own bytes leave the engine. */
	br_ssl_engine_recvapp_ack(eng, s->hscan - before);
	s->hlen = s->hscan;
	head_complete(s);
	return 1;
}

/* How many of buf's bytes belong to the current body; 0 if none. */
static size_t
body_allow(struct slot *s, const unsigned char *buf, size_t len)
{
	size_t used;
	int rc;

	if (s->body_left == 0 && s->body_chunked && !s->body_end) {
		rc = http_chunk_feed(&s->chunk, buf, len, &used);
		if (rc != HTTP_OK && rc != HTTP_MORE) {
			slot_http_error(s, 400, http_strerror(rc));
			return 0;
		}
		s->body_left = used;
		s->body_end = rc == HTTP_OK;
	}
	return s->body_left < len ? (size_t)s->body_left : len;
}

static long
to_backend(struct slot *s, const unsigned char *buf, size_t len)
{
	long n = port_write(s->bfd, buf, len);

	if (n == PORT_AGAIN || (n > 0 && (size_t)n < len))
		s->flags |= SLOT_F_BWB;
	if (n < 0 && n != PORT_AGAIN) {
		slot_stats.backend_errors++;
		s->flags |= SLOT_F_BEOF;
		if (s->outcome == NULL)
			s->outcome = "backend-reset";
	}
	return n;
}

int
fwd_client(struct slot *s, unsigned st)
{
	br_ssl_engine_context *eng = &s->tls.sc.eng;
	int writable = s->state == SLOT_RELAY && s->bfd >= 0 &&
	    !(s->flags & (SLOT_F_BWB | SLOT_F_BEOF));
	unsigned char *buf;
	size_t len;
	long n;

	if (s->hout_len > 0) {
		if (!writable)
			return 0;
		n = to_backend(s, s->hbuf + s->hout_off, s->hout_len);
		if (n <= 0)
			return 0;
		s->hout_off += (size_t)n;
		s->hout_len -= (size_t)n;
		s->c2b += (unsigned long long)n;
		if (s->hout_len == 0 && s->phase == FWD_HEAD_OUT)
			head_out_done(s);
		return 1;
	}
	if (!(st & BR_SSL_RECVAPP))
		return 0;
	buf = br_ssl_engine_recvapp_buf(eng, &len);
	switch (s->phase) {
	case FWD_HEAD:
		return stage_head(s, buf, len);
	case FWD_DONE:
		br_ssl_engine_recvapp_ack(eng, len);
		return 1;
	case FWD_BODY:
		if (!writable)
			return 0;
		len = body_allow(s, buf, len);
		if (len == 0) {
			/* A chunked body that ended, or a bad one (closing). */
			if (s->phase == FWD_BODY && s->body_end)
				request_done(s);
			return 1;
		}
		break;
	case FWD_RAW:
		if (!writable)
			return 0;
		break;
	default:
		return 0;
	}
	n = to_backend(s, buf, len);
	if (n <= 0)
		return 0;
	br_ssl_engine_recvapp_ack(eng, (size_t)n);
	s->c2b += (unsigned long long)n;
	if (s->phase == FWD_BODY) {
		s->body_left -= (uint64_t)n;
		if (s->body_left == 0 && s->body_end)
			request_done(s);
	}
	return 1;
}

void
fwd_backend_bytes(struct slot *s, const unsigned char *buf, size_t len)
{
	size_t n;
	int rc, status;

	s->awaiting = 0;
	if (s->phase != FWD_PAUSED)
		return;
	n = sizeof(s->stash) - s->stash_len;
	if (n > len)
		n = len;
	memcpy(s->stash + s->stash_len, buf, n);
	s->stash_len += n;
	rc = http_resp_status(s->stash, s->stash_len, &status);
	if (rc == HTTP_MORE && s->stash_len < sizeof(s->stash))
		return;
	if (rc == HTTP_OK && status == 101)
		s->phase = FWD_RAW;
	else
		s->phase = s->keep_alive ? FWD_HEAD : FWD_DONE;
}

int
fwd_backend_gone(const struct slot *s)
{
	if (s->pending_status)
		return s->pending_status;
	return s->svc->mode == MODE_HTTP && s->awaiting ? 502 : 0;
}
