/* SPDX-License-Identifier: ISC */
/*
 * slot.c - see slot.h.
 *
 * I/O discipline, which keeps the syscall count per request small:
 * - A socket is read only after poll() said it is readable, and only
 *   until a short read (a stream socket that returned less than asked
 *   is drained; poll will tell when more comes).
 * - Writes are attempted at once (sockets are nearly always writable);
 *   POLLOUT is asked for only after a write came back short.
 * - The engine asks for a record's 5-byte header, then for its body: two
 *   tiny reads a record.  Instead the client socket is read into all of
 *   the input buffer's free space, and the engine is fed from that
 *   read-ahead (ra_off/ra_len).  The engine leaves bytes past the
 *   current record alone (it decrypts in place and only reads the
 *   plaintext), so the read-ahead can stay where it landed and is
 *   moved down only when the engine starts the next record.
 */
#include <string.h>

#include "forward.h"
#include "log.h"
#include "metrics.h"
#include "pool.h"
#include "slot.h"
#include "slotint.h"

static struct slot slots[TLSGATE_MAX_SLOTS];
static struct conn *live[TLSGATE_MAX_SLOTS];
static uint32_t freel[TLSGATE_MAX_SLOTS];
struct connset slot_set = CONNSET(slots, live, freel);
static const struct conn_class slot_class;

void
slot_table_init(const struct config *c)
{
	pool_init(c->backend_pool);
	connset_init(&slot_set, &slot_class, c->slots);
	for (unsigned i = 0; i < c->slots; i++) {
		struct slot *s = &slots[i];

		tls_conn_init(&s->tls, s->ibuf, sizeof(s->ibuf), s->obuf,
		    sizeof(s->obuf));
	}
}

static uint64_t
wait_since(const struct conn *c)
{
	const struct slot *s = (const struct slot *)c;

	/* A lingering slot has nothing left to serve: the first to go. */
	if (s->state == SLOT_LINGER)
		return 0;
	if (s->state == SLOT_HANDSHAKE)
		return s->c.t_accept;
	return s->state == SLOT_RELAY ? fwd_head_since(&s->fwd) : UINT64_MAX;
}

static int
costly(const struct conn *c)
{
	return ((const struct slot *)c)->state == SLOT_HANDSHAKE;
}

static const struct port_addr *
peer(const struct conn *c)
{
	return &((const struct slot *)c)->peer;
}

struct slot *
slot_open(int cfd, const struct port_addr *peer, const struct port_addr *local,
    const struct service *svc, uint64_t t_accept)
{
	struct slot *s = (struct slot *)connset_new(&slot_set);

	memset(&s->state, 0, offsetof(struct slot, fwd) -
	    offsetof(struct slot, state));
	s->svc = svc;
	tls_conn_reset(&s->tls, svc->index);
	s->state = SLOT_HANDSHAKE;
	s->c.cfd = cfd;
	s->flags = config_proxy_trusted(svc, peer) ? SLOT_F_PROXY : 0;
	s->c.t_accept = t_accept;
	s->c.deadline = t_accept + s->svc->handshake_ms;
	fwd_begin(&s->fwd, s->svc);
	s->peer = s->via = *peer;
	s->local = *local;
	if (slot_set.nlive > stats.high_water)
		stats.high_water = slot_set.nlive;
	return s;
}

/*
 * Done with the backend connection: kept for the next client if it is
 * at a clean end (http mode), else closed (reset with abort).
 */
static void
backend_release(struct slot *s, int abort)
{
	if (s->c.bfd < 0)
		return;
	if (s->state != SLOT_CONNECT && !conn_draining &&
	    !(s->flags & (SLOT_F_BEOF | SLOT_F_BSHUT | SLOT_F_BWB)) &&
	    s->fwd.reuse && fwd_answer(&s->fwd) == FWD_ANS_DONE)
		pool_put(s->c.bfd, s->svc, conn_now);
	else
		port_close(s->c.bfd, abort);
	s->c.bfd = -1;
}

static void
slot_close(struct slot *s, int abort)
{
	char head[CONN_LOG_HEAD], sni[256];
	int hs = (s->flags & SLOT_F_HSDONE) != 0;
	struct eng_result r;

	eng_result(&s->tls.eng, &r);
	conn_log_head(head, &s->c, "conn", 1, s->svc, &s->peer, &s->via);
	log_name(s->tls.sni, sni, sizeof(sni));
	log_msg(LOG_INFO, "%s in=%llu out=%llu requests=%u resumed=%s "
	    "version=%s suite=%s group=%s sni=%s status=%d alert=%u "
	    "outcome=%s", head,
	    s->c2b, s->b2c, s->fwd.nreq,
	    hs && r.resumed ? "yes" : "no",
	    hs ? tls_version_name(r.version) : "none",
	    hs ? tls_suite_name(r.suite) : "none",
	    hs ? tls_group_name(r.group) : "none",
	    sni, s->status, s->alert, s->c.outcome != NULL ? s->c.outcome :
	    tls_error_name(s->err));
	stats.bytes_in += s->c2b;
	stats.bytes_out += s->b2c;
	if (s->status != 0)
		stats.http_errors++;
	tls_conn_release(&s->tls);
	port_close(s->c.cfd, abort);
	backend_release(s, abort);
	connset_delete(&slot_set, &s->c);
	stats.closed++;
}

/*
 * Stop relaying: queue close_notify after what is still to go out.
 * That goes at the client's pace, as any byte does (idle_timeout); from
 * our FIN on, the client has CONN_LINGER_MS to close (step()).  The backend
 * is let go at once: after our close_notify nothing more goes to the
 * client.
 */
static void
start_closing(struct slot *s, const char *why)
{
	size_t len;

	conn_set_outcome(&s->c, why);
	/* After eng_close() unread plaintext would block input. */
	while (eng_recvapp_buf(&s->tls.eng, &len) != NULL)
		eng_recvapp_ack(&s->tls.eng, len);
	backend_release(s, 0);
	eng_close(&s->tls.eng);
	s->state = SLOT_CLOSING;
	s->c.deadline = conn_now + s->svc->idle_ms;
}

/*
 * The engine failed: the fatal alert that says why (unless the client
 * sent one) is out, as the engine wrote it; then an orderly close.
 */
static void
tls_failed(struct slot *s, int err)
{
	stats.tls_errors++;
	conn_set_outcome(&s->c, eng_reason(&s->tls.eng));
	if (s->c.outcome == NULL)
		s->err = err;
	s->alert = eng_alert(&s->tls.eng);
	backend_release(s, 0);
	slotin_linger(s);
}

/* Lingering: drop what the client sends; close at its EOF. */
static void
linger_read(struct slot *s)
{
	long n;

	do
		n = port_read(s->c.cfd, s->ibuf, sizeof(s->ibuf));
	while (n > 0);
	if (n != PORT_AGAIN)
		slot_close(s, 0);
}

/* No more requests for the backend: shut its write side, once. */
static void
backend_shut(struct slot *s)
{
	if (s->c.bfd >= 0 && !(s->flags & SLOT_F_BSHUT)) {
		port_shutdown_wr(s->c.bfd);
		s->flags |= SLOT_F_BSHUT;
	}
}

static void backend_connect(struct slot *, int fresh);
static void http_error(struct slot *, int status, const char *why);

/*
 * No request will follow: end when the last answer is out, which only
 * the backend's EOF may tell (then it gets ours first, as it waits for
 * more); with known framing it may go back to the pool.  Called again
 * by step() until the slot closes.
 */
static void
finish(struct slot *s)
{
	switch (fwd_answer(&s->fwd)) {
	case FWD_ANS_OWED:
		return;
	case FWD_ANS_EOF:
		backend_shut(s);
		return;
	case FWD_ANS_DONE:
		if (s->pending_status != 0)
			http_error(s, s->pending_status, NULL);
		else
			start_closing(s, NULL);
	}
}

/* The client's plaintext to the backend, as forward.c frames it. */
static int
to_backend(struct slot *s, unsigned st)
{
	const struct fwd_peer fp = { s->svc, &s->peer, &s->local, &s->tls };
	const unsigned char *in = NULL, *buf;
	size_t inlen = 0, used, len;
	enum fwd_verdict v;
	long n;

	if (s->state != SLOT_RELAY && s->state != SLOT_CONNECT)
		return 0;
	if (st & BR_SSL_RECVAPP)
		in = eng_recvapp_buf(&s->tls.eng, &inlen);
	v = fwd_client(&s->fwd, &fp, in, inlen, &used, &buf, &len);
	if (used > 0)
		eng_recvapp_ack(&s->tls.eng, used);
	switch (v) {
	case FWD_IDLE:
		return 0;
	case FWD_READY:
		if (s->c.bfd < 0)
			backend_connect(s, 0);
		return 1;
	case FWD_REFUSE:
		http_error(s, s->fwd.status, s->fwd.why);
		return 1;
	case FWD_LAST:
		finish(s);
		return 1;
	case FWD_MOVED:
		return 1;
	case FWD_WRITE:
		break;
	}
	if (s->state != SLOT_RELAY || s->c.bfd < 0 ||
	    (s->flags & (SLOT_F_BWB | SLOT_F_BEOF)))
		return 0;
	n = port_write(s->c.bfd, buf, len);
	if (n == PORT_AGAIN || (n > 0 && (size_t)n < len))
		s->flags |= SLOT_F_BWB;
	else if (n < 0)
		backend_lost(s);
	if (n <= 0)
		return 0;
	s->c2b += (unsigned long long)n;
	v = fwd_wrote(&s->fwd, (size_t)n, &used);
	if (used > 0)
		eng_recvapp_ack(&s->tls.eng, used);
	if (v == FWD_LAST)
		finish(s);
	return 1;
}

/*
 * Move bytes until nothing more can move without waiting.  Returns the
 * engine state at the end.
 */
static unsigned
pump(struct slot *s)
{
	unsigned st;
	int moved;

	do {
		st = eng_state(&s->tls.eng);
		if (st == BR_SSL_CLOSED)
			return st;
		/* Let step() see the handshake end before a close follows. */
		if (s->state == SLOT_HANDSHAKE &&
		    (st & (BR_SSL_SENDAPP | BR_SSL_RECVAPP)))
			return st;
		/* Each move may change what the engine wants next. */
		moved = to_client(s, st);
		st = eng_state(&s->tls.eng);
		moved |= to_backend(s, st);
		st = eng_state(&s->tls.eng);
		moved |= from_client(s, st);
		st = eng_state(&s->tls.eng);
		moved |= from_backend(s, st);
	} while (moved);
	return st;
}

/* The handshake is done: tcp mode connects now, http at its first head. */
static void
handshake_done(struct slot *s)
{
	struct eng_result r;

	eng_result(&s->tls.eng, &r);
	s->flags |= SLOT_F_HSDONE;
	stats.handshakes++;
	if (r.resumed)
		stats.resumed++;
	else
		stats.handshakes_full++;
	if (r.version == 0x0304) {
		stats.tls13++;
		stats.hrr += (unsigned long long)r.hrr;
	}
	metrics_handshake(s->svc->index, r.version, r.resumed,
	    conn_now > s->c.t_accept ? conn_now - s->c.t_accept : 0);
	s->state = SLOT_RELAY;
	s->c.deadline = conn_now + s->svc->idle_ms;
	if (s->svc->mode == MODE_TCP)
		backend_connect(s, 1);
}

/* why: the port layer's reason, for the log; outcome: for the conn line. */
static void
backend_failed(struct slot *s, const char *why, int status,
    const char *outcome)
{
	log_msg(LOG_WARN, "backend id=%u connect: %s", s->c.id, why);
	stats.backend_errors++;
	if (s->svc->mode == MODE_HTTP)
		http_error(s, status, outcome);
	else
		start_closing(s, outcome);
}

/* The backend connection is up, or why is why it could not be. */
static void
backend_up(struct slot *s, const char *why)
{
	const struct fwd_peer fp = { s->svc, &s->peer, &s->local, &s->tls };

	if (why != NULL) {
		backend_failed(s, why, 502, "backend-refused");
		return;
	}
	s->state = SLOT_RELAY;
	s->c.deadline = conn_now + s->svc->idle_ms;
	fwd_connected(&s->fwd, &fp);
}

/* An idle connection from the pool, unless fresh; else a new one. */
static void
backend_connect(struct slot *s, int fresh)
{
	const char *why;
	int fd = fresh ? -1 : pool_take(s->svc, conn_now);

	s->flags &= ~(SLOT_F_BRD | SLOT_F_BWB | SLOT_F_BEOF | SLOT_F_BSHUT |
	    SLOT_F_REUSED);
	if (fd >= 0) {
		stats.backend_reused++;
		s->c.bfd = fd;
		s->flags |= SLOT_F_REUSED;
		backend_up(s, NULL);
		return;
	}
	stats.backend_connects++;
	fd = port_connect(&s->svc->backend, &why);
	if (fd < 0) {
		backend_failed(s, why, 502, "backend-refused");
		return;
	}
	s->c.bfd = fd;
	s->state = SLOT_CONNECT;
	s->c.deadline = conn_now + s->svc->connect_ms;
}

/*
 * Answer the client with our own error page and close; why is the log's
 * outcome.  Answers to requests already with the backend go first: ours
 * waits for the backend's EOF.
 */
static void
http_error(struct slot *s, int status, const char *why)
{
	const char *page;
	unsigned char *buf;
	size_t plen, len;

	if (s->status == 0)
		s->status = status;
	conn_set_outcome(&s->c, why);
	fwd_stop(&s->fwd);
	if (s->state == SLOT_RELAY && s->c.bfd >= 0 &&
	    !(s->flags & SLOT_F_BEOF) && fwd_answer(&s->fwd) != FWD_ANS_DONE) {
		s->pending_status = status;
		finish(s);
		return;
	}
	page = http_error_page(status, &plen);
	buf = eng_sendapp_buf(&s->tls.eng, &len);
	if (page != NULL && buf != NULL && len >= plen) {
		memcpy(buf, page, plen);
		eng_sendapp_ack(&s->tls.eng, plen);
		eng_flush(&s->tls.eng);
	}
	start_closing(s, NULL);
}

/* Run the slot after an event, until it must wait again. */
static void
step(struct slot *s)
{
	unsigned st;

	for (;;) {
		enum slot_state before = s->state;

		st = pump(s);
		if (st == BR_SSL_CLOSED) {
			int err = eng_last_error(&s->tls.eng);

			if (err == BR_ERR_OK) {
				slot_close(s, 0);
				return;
			}
			tls_failed(s, err);
			/* The client may have closed already. */
			linger_read(s);
			return;
		}
		switch (s->state) {
		case SLOT_HANDSHAKE:
			if (st & (BR_SSL_SENDAPP | BR_SSL_RECVAPP))
				handshake_done(s);
			else if (s->flags & SLOT_F_CEOF) {
				slotin_eof(s);
				slot_close(s, 0);
				return;
			}
			break;
		case SLOT_RELAY:
			if ((s->flags & SLOT_F_BEOF) && retryable(s)) {
				port_close(s->c.bfd, 1);
				s->c.bfd = -1;
				/* "in" counts the client's bytes once. */
				s->c2b -= fwd_retry(&s->fwd);
				stats.backend_retries++;
				backend_connect(s, 1);
			} else if (s->flags & SLOT_F_BEOF) {
				int status = s->pending_status ? s->pending_status :
				    s->fwd.awaiting ? 502 : 0;

				if (status != 0)
					http_error(s, status, "backend-closed");
				else
					start_closing(s, NULL);
			} else if (s->flags & SLOT_F_CEOF) {
				if (s->c.bfd < 0) {
					slot_close(s, 0);
					return;
				}
				/* Half-close: the backend may still answer. */
				if (!(st & BR_SSL_RECVAPP) && s->fwd.hout_len == 0)
					finish(s);
				if (s->state == SLOT_RELAY &&
				    (s->flags & SLOT_F_CSHUT))
					start_closing(s, NULL);
			} else if (eng_peer_closed(&s->tls.eng)) {
				/* close_notify ends the client's side
				 * only: what is owed still goes out. */
				if (s->c.bfd < 0)
					start_closing(s, NULL);
				else if (!(st & BR_SSL_RECVAPP) &&
				    s->fwd.hout_len == 0)
					finish(s);
			} else if (s->fwd.phase == FWD_DONE)
				finish(s);
			break;
		case SLOT_CLOSING:
			if (st & BR_SSL_SENDREC && !(s->flags & SLOT_F_CSHUT))
				break;
			if (s->flags & SLOT_F_CEOF) {
				slot_close(s, 0);
				return;
			}
			if (!(s->flags & SLOT_F_CSHUT)) {
				port_shutdown_wr(s->c.cfd);
				s->flags |= SLOT_F_CSHUT;
				s->c.deadline = conn_now + CONN_LINGER_MS;
			}
			break;
		default:
			break;
		}
		if (s->state == before)
			return;
	}
}

static void
events(const struct conn *c, short *cev, short *bev)
{
	const struct slot *s = (const struct slot *)c;
	unsigned st = eng_state(&s->tls.eng);

	*cev = *bev = 0;
	if (s->state == SLOT_LINGER) {
		*cev = PORT_IN;
		return;
	}
	if ((st & BR_SSL_SENDREC) && !(s->flags & SLOT_F_CSHUT))
		*cev |= PORT_OUT;
	if ((st & BR_SSL_RECVREC) && (s->ra_len == 0 ||
	    s->tls.peek) && !(s->flags & SLOT_F_CEOF))
		*cev |= PORT_IN;
	if (s->state == SLOT_CONNECT)
		*bev = PORT_OUT;
	else if (s->state == SLOT_RELAY && s->c.bfd >= 0) {
		if (s->flags & SLOT_F_BWB)
			*bev |= PORT_OUT;
		if ((st & BR_SSL_SENDAPP) && !(s->flags & SLOT_F_BEOF))
			*bev |= PORT_IN;
	}
}

/* Idle deadline, or the request head's absolute one if that is sooner. */
static void
set_deadline(struct slot *s)
{
	uint64_t d = conn_now + s->svc->idle_ms, t = fwd_head_since(&s->fwd);

	s->c.deadline = t != UINT64_MAX && t + s->svc->head_ms < d ?
	    t + s->svc->head_ms : d;
}

static void
io(struct conn *c, int crev, int brev)
{
	struct slot *s = (struct slot *)c;

	if (crev & (PORT_IN | PORT_ERRS))
		s->flags |= SLOT_F_CRD;
	if (crev & (PORT_OUT | PORT_ERRS))
		s->flags &= ~SLOT_F_CWB;
	if (brev & (PORT_IN | PORT_ERRS))
		s->flags |= SLOT_F_BRD;
	if (brev & (PORT_OUT | PORT_ERRS))
		s->flags &= ~SLOT_F_BWB;
	if (s->state == SLOT_CONNECT && brev != 0)
		backend_up(s, port_connect_result(s->c.bfd));
	if (s->state == SLOT_CLOSING && (s->flags & SLOT_F_CEOF)) {
		slot_close(s, 0);
		return;
	}
	if (s->state == SLOT_LINGER) {
		linger_read(s);
		return;
	}
	step(s);
	if (s->c.pos != CONN_FREE && s->state == SLOT_RELAY)
		set_deadline(s);
}

static void
expire(struct conn *c)
{
	struct slot *s = (struct slot *)c;

	switch (s->state) {
	case SLOT_HANDSHAKE:
		stats.timeouts++;
		if (s->flags & SLOT_F_PROXY)
			stats.proxy_errors++;
		conn_set_outcome(&s->c, s->flags & SLOT_F_PROXY ? "proxy-timeout" :
		    "handshake-timeout");
		slot_close(s, 1);
		return;
	case SLOT_CONNECT:
		backend_failed(s, "timed out", 504, "backend-timeout");
		break;
	case SLOT_RELAY:
		stats.timeouts++;
		if (fwd_head_since(&s->fwd) != UINT64_MAX &&
		    conn_now >= fwd_head_since(&s->fwd) + s->svc->head_ms)
			http_error(s, 408, "head-timeout");
		else {
			start_closing(s, "idle-timeout");
			/* It took nothing for idle_timeout: no more now. */
			s->c.deadline = conn_now + CONN_LINGER_MS;
		}
		break;
	case SLOT_CLOSING:
		/*
		 * After our FIN, no reset: the kernel may still hold the
		 * end of a response (a slow reader, a balancer between),
		 * which a reset would throw away.
		 */
		slot_close(s, !(s->flags & SLOT_F_CSHUT));
		return;
	case SLOT_LINGER:
		slot_close(s, 0);
		return;
	}
	step(s);
}

/*
 * Between requests, a connection that never reached the backend can
 * close now.  One that did gets its backend's write side shut: the
 * backend finishes what it is answering, closes, and so do we (without
 * parsing responses, that is the only safe end of the last one).
 */
static void
drain(struct conn *c)
{
	struct slot *s = (struct slot *)c;

	if (s->state != SLOT_RELAY || !fwd_between(&s->fwd) ||
	    (eng_state(&s->tls.eng) & BR_SSL_RECVAPP))
		return;
	if (s->c.bfd < 0 || fwd_answer(&s->fwd) == FWD_ANS_DONE) {
		start_closing(s, "drained");
		step(s);
	} else
		backend_shut(s);
}

static void
close_now(struct conn *c, const char *outcome)
{
	struct slot *s = (struct slot *)c;

	conn_set_outcome(&s->c, outcome);
	/* A lingering slot has said all it had to: no reset over it. */
	slot_close(s, s->state != SLOT_LINGER);
}

static const struct conn_class slot_class = {
	events, io, expire, drain, close_now, wait_since, costly, peer
};
