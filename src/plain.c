/* SPDX-License-Identifier: ISC */
/*
 * plain.c - see plain.h.
 */
#include <string.h>

#include "log.h"
#include "plain.h"
#include "proxyin.h"

static struct plain ptab[TLSGATE_MAX_PLAIN];
static struct conn *live[TLSGATE_MAX_PLAIN];
static uint32_t freel[TLSGATE_MAX_PLAIN];
struct connset plain_set = CONNSET(ptab, live, freel);
static const struct conn_class plain_class;

void
plain_init(unsigned n)
{
	connset_init(&plain_set, &plain_class, n);
}

/*
 * Eviction order (conn.h): a lingering one first, it has been served;
 * one reading its head since it came; one being answered never.
 */
static uint64_t
wait_since(const struct conn *c)
{
	const struct plain *p = (const struct plain *)c;

	if (p->state == PLAIN_LINGER)
		return 0;
	return p->state == PLAIN_HEAD ? p->c.t_accept : UINT64_MAX;
}

static const struct port_addr *
peer(const struct conn *c)
{
	return &((const struct plain *)c)->peer;
}

static const struct service *
svc_of(const struct plain *p)
{
	return &conn_cfg->svc[p->svc];
}

struct plain *
plain_open(int cfd, const struct port_addr *peer,
    const struct port_addr *local, unsigned svc, uint64_t t_accept)
{
	struct plain *p = (struct plain *)connset_new(&plain_set);

	memset(&p->state, 0, offsetof(struct plain, buf) -
	    offsetof(struct plain, state));
	p->state = PLAIN_HEAD;
	p->c.cfd = cfd;
	p->svc = svc;
	p->c.t_accept = t_accept;
	p->c.deadline = t_accept + svc_of(p)->head_ms;
	p->peer = p->via = *peer;
	p->local = *local;
	p->proxy = config_proxy_trusted(svc_of(p), peer);
	return p;
}

static void
plain_close(struct plain *p, int abort)
{
	char head[CONN_LOG_HEAD];

	conn_log_head(head, &p->c, "plain", 1, svc_of(p), &p->peer, &p->via);
	log_msg(LOG_INFO, "%s in=%llu out=%llu status=%d outcome=%s", head,
	    p->in, p->out, p->status, p->c.outcome != NULL ? p->c.outcome :
	    "-");
	if (p->status >= 400)
		stats.http_errors++;
	port_close(p->c.cfd, abort);
	if (p->c.bfd >= 0)
		port_close(p->c.bfd, abort);
	connset_delete(&plain_set, &p->c);
	stats.closed++;
}

/* Close it now, with a reset unless it lingers. */
static void
plain_abort(struct conn *c, const char *outcome)
{
	struct plain *p = (struct plain *)c;

	conn_set_outcome(c, outcome);
	plain_close(p, p->state != PLAIN_LINGER);
}

/* Our last byte is out: FIN, then drop what comes until EOF or 2 s. */
static void
linger(struct plain *p)
{
	if (p->c.bfd >= 0)
		port_close(p->c.bfd, 0);
	p->c.bfd = -1;
	port_shutdown_wr(p->c.cfd);
	p->state = PLAIN_LINGER;
	p->c.deadline = conn_now + CONN_LINGER_MS;
}

/* buf[off..len) to fd; 1 when all of it is out, 0 blocked, -1 failed. */
static int
flush(struct plain *p, int fd)
{
	long n = port_write(fd, p->buf + p->off, p->len - p->off);

	if (n < 0 && n != PORT_AGAIN)
		return -1;
	if (n > 0) {
		p->off += (size_t)n;
		if (fd == p->c.cfd)
			p->out += (unsigned long long)n;
	}
	return p->off == p->len;
}

static void	io(struct conn *, int, int);

/* Answer with our page, or the 308 already in buf, then linger. */
static void
answer(struct plain *p, int status, const char *why)
{
	const char *page;
	size_t n;

	p->status = status;
	conn_set_outcome(&p->c, why);
	if (status == 502 || status == 504)
		stats.backend_errors++;
	if (p->c.bfd >= 0)
		port_close(p->c.bfd, 1);
	p->c.bfd = -1;
	if (status != 308) {
		page = http_error_page(status, &n);
		memcpy(p->buf, page, n);
		p->len = n;
	}
	p->off = 0;
	p->state = PLAIN_WRITE;
	p->c.deadline = conn_now + svc_of(p)->idle_ms;
	io(&p->c, 0, 0);
}

/*
 * RFC 8555 8.3's http-01 challenge: the CA fetches
 * /.well-known/acme-challenge/<token> over plain HTTP, port 80, with GET
 * (HEAD does no harm).  Anything with a body or an upgrade is no
 * challenge, and the backend never sees it.
 */
static int
is_acme(const uint8_t *b, const struct http_req *r)
{
	static const char pfx[] = "/.well-known/acme-challenge/";

	return ((r->method_len == 3 && memcmp(b, "GET", 3) == 0) ||
	    (r->method_len == 4 && memcmp(b, "HEAD", 4) == 0)) &&
	    !r->upgrade && (r->body == HTTP_BODY_NONE ||
	    (r->body == HTTP_BODY_LENGTH && r->body_len == 0)) &&
	    r->target_len > sizeof(pfx) - 1 &&
	    memcmp(b + r->target_off, pfx, sizeof(pfx) - 1) == 0;
}

/* The ACME request, closing, to the backend: the answer ends at its EOF. */
static void
to_backend(struct plain *p, struct http_req *req)
{
	const struct service *svc = svc_of(p);
	struct http_fwd hf;
	const char *why;
	char ip[48];

	port_addr_ip(&p->peer, ip, sizeof(ip));
	memset(&hf, 0, sizeof(hf));
	hf.flags = HTTP_FWD_CLOSE | (svc->xff ? HTTP_FWD_FOR : 0);
	hf.peer = ip;
	hf.peer_len = strlen(ip);
	p->len = http_rewrite_head(p->buf, req->head_len, sizeof(p->buf), req,
	    &hf);
	if (p->len == 0) {
		answer(p, 431, "head-too-big");
		return;
	}
	stats.backend_connects++;
	p->c.bfd = port_connect(&svc->backend, &why);
	if (p->c.bfd < 0) {
		log_msg(LOG_WARN, "backend plain id=%u connect: %s", p->c.id, why);
		answer(p, 502, "backend-refused");
		return;
	}
	stats.acme_forwarded++;
	p->off = 0;
	p->state = PLAIN_CONNECT;
	p->c.deadline = conn_now + svc->connect_ms;
}

/*
 * The 308 into buf: the host is ours if the client gave none.  308, not
 * 301 (RFC 9110 15.4.9): the method and body are kept, so a POST to the
 * http URL is not turned into a GET.
 */
static size_t
redirect(struct plain *p, const struct http_req *req)
{
	char own[64];

	port_addr_str(&p->local, own, sizeof(own));
	return http_redirect(p->buf, sizeof(p->buf), req, own,
	    port_addr_port(&svc_of(p)->listen[0]));
}

/* The head is complete: the 308, the ACME request, or an error page. */
static void
head_done(struct plain *p)
{
	struct http_req req;
	int rc = http_parse_head(p->buf, p->scan, &req);

	/* A draining process still answers what it has: 503, not a reset. */
	if (rc != HTTP_OK)
		answer(p, http_err_status(rc), http_strerror(rc));
	else if (conn_draining)
		answer(p, 503, "draining");
	else if (svc_of(p)->acme && is_acme(p->buf, &req))
		to_backend(p, &req);
	else if ((p->len = redirect(p, &req)) == 0)
		answer(p, 400, "bad-host");
	else {
		stats.redirects++;
		answer(p, 308, "redirect");
	}
}

/* The client closed before its head was whole. */
static const char *
head_eof(struct plain *p)
{
	if (p->lb_local && p->len == 0)
		return "proxy-local";
	if (p->proxy && p->len > 0) {
		stats.proxy_errors++;
		return proxyin_strerror(PROXYIN_MORE);
	}
	return p->len > 0 ? "client-closed" : "no-request";
}

static void
read_head(struct plain *p)
{
	long n = port_read(p->c.cfd, p->buf + p->len, TLSGATE_HEAD_MAX - p->len);
	int rc;

	if (n == PORT_AGAIN)
		return;
	if (n <= 0) {
		plain_abort(&p->c, head_eof(p));
		return;
	}
	p->len += (size_t)n;
	p->in += (unsigned long long)n;
	/*
	 * A proxy_from source's PROXY header first (PROXYIN_MAX is below
	 * TLSGATE_HEAD_MAX: it fits): its addresses become the connection's;
	 * where the client connected is the Location's host if the request
	 * names none.
	 */
	if (p->proxy) {
		rc = conn_take_proxy(&p->c, svc_of(p), p->buf, &p->len,
		    &p->peer, &p->local, &p->lb_local);
		if (rc == CONN_PROXY_BAD)
			linger(p);
		else if (rc == CONN_PROXY_LIMIT)
			plain_abort(&p->c, "per-source-limit");
		else if (rc == CONN_PROXY_OK)
			p->proxy = 0;
		if (rc != CONN_PROXY_OK || p->len == 0)
			return;
	}
	rc = http_head_end(p->buf, p->len, &p->scan);
	if (rc == HTTP_OK)
		head_done(p);
	else if (rc != HTTP_MORE)
		answer(p, 400, http_strerror(rc));
	else if (p->len == TLSGATE_HEAD_MAX)
		answer(p, 431, "head-too-big");
}

/* The backend's answer, a buffer at a time, to the client. */
static void
relay(struct plain *p, int brev)
{
	long n;

	if (p->off < p->len && flush(p, p->c.cfd) < 0) {
		plain_abort(&p->c, "client-reset");
		return;
	}
	if (p->off < p->len || !brev)
		return;
	n = port_read(p->c.bfd, p->buf, sizeof(p->buf));
	if (n == PORT_AGAIN)
		return;
	if (n < 0 || (n == 0 && p->out == 0)) {
		answer(p, 502, n < 0 ? "backend-reset" : "backend-closed");
		return;
	}
	if (n == 0) {
		conn_set_outcome(&p->c, "acme");
		linger(p);
		return;
	}
	p->len = (size_t)n;
	p->off = 0;
	p->c.deadline = conn_now + svc_of(p)->idle_ms;
	if (flush(p, p->c.cfd) < 0)
		plain_abort(&p->c, "client-reset");
}

static void
events(const struct conn *c, short *cev, short *bev)
{
	const struct plain *p = (const struct plain *)c;

	*cev = *bev = 0;
	switch (p->state) {
	case PLAIN_HEAD:
	case PLAIN_LINGER:
		*cev = PORT_IN;
		break;
	case PLAIN_WRITE:
		*cev = PORT_OUT;
		break;
	case PLAIN_CONNECT:
	case PLAIN_TOBACK:
		*bev = PORT_OUT;
		break;
	case PLAIN_RELAY:
		if (p->off < p->len)
			*cev = PORT_OUT;
		else
			*bev = PORT_IN;
		break;
	}
}

static void
io(struct conn *c, int crev, int brev)
{
	struct plain *p = (struct plain *)c;
	const char *why;
	long n;

	switch (p->state) {
	case PLAIN_HEAD:
		read_head(p);
		break;
	case PLAIN_WRITE:
		if ((n = flush(p, p->c.cfd)) < 0)
			plain_abort(&p->c, "client-reset");
		else if (n > 0)
			linger(p);
		break;
	case PLAIN_CONNECT:
		if ((why = port_connect_result(p->c.bfd)) != NULL) {
			log_msg(LOG_WARN, "backend plain id=%u connect: %s",
			    p->c.id, why);
			answer(p, 502, "backend-refused");
			break;
		}
		p->state = PLAIN_TOBACK;
		/* FALLTHROUGH */
	case PLAIN_TOBACK:
		if ((n = flush(p, p->c.bfd)) < 0) {
			answer(p, 502, "backend-reset");
		} else if (n > 0) {
			p->len = p->off = 0;
			p->state = PLAIN_RELAY;
			p->c.deadline = conn_now + svc_of(p)->idle_ms;
		}
		break;
	case PLAIN_RELAY:
		relay(p, brev | crev);
		break;
	case PLAIN_LINGER:
		do
			n = port_read(p->c.cfd, p->buf, sizeof(p->buf));
		while (n > 0);
		if (n != PORT_AGAIN)
			plain_close(p, 0);
		break;
	}
}

static void
expire(struct conn *c)
{
	struct plain *p = (struct plain *)c;

	switch (p->state) {
	case PLAIN_HEAD:
		stats.timeouts++;
		if (p->proxy) {
			stats.proxy_errors++;
			plain_abort(&p->c, "proxy-timeout");
		} else if (p->len > 0)
			answer(p, 408, "head-timeout");
		else {
			/* As a server's keep-alive timeout: an orderly close. */
			conn_set_outcome(&p->c, "head-timeout");
			plain_close(p, 0);
		}
		break;
	case PLAIN_CONNECT:
	case PLAIN_TOBACK:
		answer(p, 504, "backend-timeout");
		break;
	case PLAIN_WRITE:
	case PLAIN_RELAY:
		stats.timeouts++;
		plain_abort(&p->c, "idle-timeout");
		break;
	case PLAIN_LINGER:
		plain_close(p, 0);
		break;
	}
}

static void
drain(struct conn *c)
{
	struct plain *p = (struct plain *)c;

	if (p->state == PLAIN_HEAD && p->len == 0)
		plain_abort(&p->c, "drained");
}

static const struct conn_class plain_class = {
	events, io, expire, drain, plain_abort, wait_since, NULL, peer
};
