/* SPDX-License-Identifier: ISC */
/*
 * loop.c - see loop.h.
 */
#include "http.h"
#include "loop.h"
#include "log.h"
#include "metrics.h"
#include "pend.h"
#include "plain.h"
#include "pool.h"
#include "precomp.h"
#include "slot.h"
#include "turn.h"

#define ACCEPT_BURST	32	/* accepts per turn: live slots go first */
#define EMFILE_PAUSE_MS	100

#define MAX_LISTENERS	(TLSGATE_MAX_SERVICES * TLSGATE_MAX_LISTEN * 2)
#define MAX_CONNS	(TLSGATE_MAX_SLOTS + TLSGATE_MAX_PLAIN + \
	TLSGATE_MAX_PENDING)

/* A pending entry polls its client only. */
static struct port_pfd pfd[MAX_LISTENERS + 1 + 2 * MAX_CONNS -
    TLSGATE_MAX_PENDING];
/* The connections polled this turn, of every kind (conn.h). */
static struct conn *turn[MAX_CONNS];
/* When this turn began (port_now_us()): its time budget's start. */
static uint64_t turn_start;
/* The connections of every kind: sets[plain] are a kind's slots. */
static struct connset *const sets[] = { &slot_set, &plain_set, &pend_set };
#define NSETS	(sizeof(sets) / sizeof(sets[0]))

size_t
loop_static_bytes(void)
{
	return sizeof(pfd) + sizeof(turn) + turn_static_bytes();
}

/* The counters kept elsewhere into stats, for a report. */
static void
stats_sync(void)
{
	turn_report();
	stats.live = slot_set.nlive;
	stats.pending = pend_set.nlive;
}

static void
log_stats(void)
{
	char buf[2048];
	size_t n;

	stats_sync();
	n = stats_text(buf, sizeof(buf), "=", " ");
	log_msg(LOG_INFO, "stats %.*s", (int)(n > 0 ? n - 1 : 0), buf);
}

/*
 * The one stats client being served; the next ones wait in the listen
 * queue.  It has STATS_MS to send its request and take the answer.
 */
#define STATS_MS	2000
static struct {
	int		fd;
	uint64_t	deadline;
	size_t		len, off, outlen;
	const char	*out;		/* NULL while the request is read */
	uint8_t		req[METRICS_REQ_MAX];
} sc = { .fd = -1 };

static void
stats_close(void)
{
	int i = 0;

	/*
	 * What is left of a request unread would turn the close into a
	 * reset, which may take the answer with it.
	 */
	while (i++ < 8 && port_read(sc.fd, sc.req, sizeof(sc.req)) > 0)
		;
	port_close(sc.fd, 0);
	sc.fd = -1;
}

static void
stats_accept(int fd)
{
	struct port_addr peer, local;
	int emfile;

	sc.fd = port_accept(fd, &peer, &local, &emfile);
	sc.deadline = conn_now + STATS_MS;
	sc.len = sc.off = 0;
	sc.out = NULL;
}

/* Out of time: a request not yet whole gets its 400 if it fits. */
static void
stats_expire(void)
{
	const char *page;
	size_t n;

	if (sc.out == NULL && (page = http_error_page(400, &n)) != NULL)
		(void)port_write(sc.fd, page, n);
	stats_close();
}

/* The request, then the answer, as the socket takes them. */
static void
stats_serve(const struct config *cfg)
{
	struct metrics_live live;
	long n;

	if (sc.out == NULL) {
		n = port_read(sc.fd, sc.req + sc.len, sizeof(sc.req) - sc.len);
		if (n == PORT_AGAIN)
			return;
		if (n <= 0) {
			stats_close();
			return;
		}
		sc.len += (size_t)n;
		stats_sync();
		live.slots_used = slot_set.nlive;
		live.redirect_used = plain_set.nlive;
		live.pending = pend_set.nlive;
		if (metrics_answer(sc.req, sc.len, cfg, &live, &sc.out,
		    &sc.outlen) == HTTP_MORE)
			return;
	}
	n = port_write(sc.fd, sc.out + sc.off, sc.outlen - sc.off);
	if (n == PORT_AGAIN)
		return;
	if (n > 0)
		sc.off += (size_t)n;
	if (n <= 0 || sc.off == sc.outlen)
		stats_close();
}

/*
 * A listener's clients, to the pending table (pend.h): accepting costs
 * an entry, never a slot, so the listeners are always polled.
 */
static uint64_t
accept_some(const struct listener *l)
{
	struct port_addr peer;
	int emfile, fd;

	for (int i = 0; i < ACCEPT_BURST; i++) {
		fd = port_accept(l->fd, &peer, NULL, &emfile);
		if (fd == PORT_AGAIN)
			break;
		if (fd < 0) {
			if (emfile) {
				log_msg(LOG_WARN, "accept: out of descriptors; "
				    "pausing %d ms", EMFILE_PAUSE_MS);
				return conn_now + EMFILE_PAUSE_MS;
			}
			break;
		}
		pend_add(fd, &peer, l->svc, l->plain);
		turn_work.accepts++;
	}
	return 0;
}

/*
 * A free slot of the kind, or one taken from the slot that has waited
 * longest (TLSGATE_EVICT_MS at least) for a second flight or a request
 * head.
 */
static int
room(int plain)
{
	struct connset *set = sets[plain];
	struct conn *c;

	if (set->nfree > 0)
		return 1;
	c = connset_oldest_waiting(set, conn_now > TLSGATE_EVICT_MS ?
	    conn_now - TLSGATE_EVICT_MS : 0);
	if (c == NULL)
		return 0;
	c->cls->abort(c, "evicted");
	stats.evicted++;
	return 1;
}

/*
 * Whether the turn may start another handshake step: its first one,
 * or while the turn has taken less than TLSGATE_TURN_BUDGET_US.
 */
static int
budget_left(void)
{
	return turn_work.costly == 0 ||
	    port_now_us() - turn_start < TLSGATE_TURN_BUDGET_US;
}

/* A pending entry, its message whole, into a slot, which reads it now. */
static void
serve(const struct config *cfg, struct pend *e)
{
	const struct service *svc = &cfg->svc[e->svc];
	struct port_addr peer, local;
	uint64_t t = e->c.t_accept;
	unsigned si = e->svc;
	int plain = e->plain, fd;
	struct conn *c;

	/* A balancer is not limited: its clients are (conn_take_proxy()). */
	pend_peer(e, &peer);
	if (svc->max_per_source > 0 &&
	    !config_proxy_trusted(svc, &peer) &&
	    conn_count_peer(&peer) >= svc->max_per_source) {
		stats.refused++;
		pend_close(e, "per-source-limit", 1);
		return;
	}
	fd = pend_take(e);
	turn_work.served++;
	port_local(fd, &local);
	/* room() made one of the kind free. */
	c = plain ? (struct conn *)plain_open(fd, &peer, &local, si, t) :
	    (struct conn *)slot_open(fd, &peer, &local, svc, t);
	c->cls->io(c, PORT_IN, 0);
	if (c->pos != CONN_FREE && conn_now >= c->deadline)
		c->cls->expire(c);
}

/*
 * Whole messages to slots: plain ones while a plain slot is free, TLS
 * ones while a slot is free and the turn's time budget lasts.
 *
 * The overload policy, as CoDel tells a standing queue from a burst:
 * hellos are served oldest first until the ones waiting would take
 * more than TLSGATE_QUEUE_TARGET_MS to serve, at the rate hellos were
 * served in the last TLSGATE_QUEUE_INTERVAL_MS, and have for a whole
 * interval.  The CPU is then the limit: newest first, so that the
 * clients served are those still waiting (adaptive LIFO), and a hello
 * that has waited TLSGATE_QUEUE_MAX_MS is closed, counted in `shed`.
 * It has cost a peek; serving it would cost a handshake its client may
 * no longer wait for, and delay every hello behind it.  The measure is
 * the queue's length, not its oldest entry's age: newest first leaves
 * old ones behind, which must not keep the policy on.
 */
static void
promote(const struct config *cfg)
{
	static uint64_t above_since, window;
	static unsigned served, rate;
	struct pend *e;
	int over, spent = 0;

	if (conn_now - window >= TLSGATE_QUEUE_INTERVAL_MS) {
		/* Idle for an interval or more: no rate to go by. */
		rate = conn_now - window >= (uint64_t)2 *
		    TLSGATE_QUEUE_INTERVAL_MS ? 0 : served;
		served = 0;
		window = conn_now;
	}
	over = above_since != 0 &&
	    conn_now >= above_since + TLSGATE_QUEUE_INTERVAL_MS;
	while (pend_ready(1) > 0 && room(1))
		serve(cfg, pend_pick(1, 0));
	while (pend_ready(0) > 0) {
		if (!budget_left()) {
			spent = 1;
			break;
		}
		if (!room(0))
			break;
		turn_work.costly++;
		serve(cfg, pend_pick(0, over));
		served++;
	}
	/* Here ready * interval / rate is the queue's wait, in ms. */
	if ((uint64_t)pend_ready(0) * TLSGATE_QUEUE_INTERVAL_MS <=
	    (uint64_t)(rate > 0 ? rate : 1) * TLSGATE_QUEUE_TARGET_MS) {
		above_since = 0;
		return;
	}
	if (above_since == 0)
		above_since = conn_now;
	if (!over || !spent)
		return;
	/* Backwards: a closed entry's place takes the last one, seen. */
	for (uint32_t j = pend_set.nlive; j-- > 0;) {
		e = (struct pend *)pend_set.live[j];
		if (!e->plain && e->t_ready != 0 &&
		    conn_now >= e->t_ready + TLSGATE_QUEUE_MAX_MS) {
			stats.shed++;
			pend_close(e, "shed", 1);
		}
	}
}

/* Add fd to the poll table; returns its index there. */
static int
poll_add(size_t *n, int fd, short events)
{
	pfd[*n] = (struct port_pfd){ fd, events, 0 };
	return (int)(*n)++;
}

/*
 * Whole messages of the kind waiting: a turn now if a slot is free,
 * else when one may be taken from a slow handshake or head.
 */
static uint64_t
ready_next(int plain, uint64_t next)
{
	struct connset *set = sets[plain];
	struct conn *c;

	if (pend_ready(plain) == 0)
		return next;
	if (set->nfree > 0)
		return conn_now;
	c = connset_oldest_waiting(set, UINT64_MAX);
	if (c != NULL && c->cls->wait_since(c) + TLSGATE_EVICT_MS < next)
		return c->cls->wait_since(c) + TLSGATE_EVICT_MS;
	return next;
}

/* Every connection to the poll table, and into turn[]; their count. */
static unsigned
poll_conns(size_t *n, uint64_t *next)
{
	unsigned nt = 0;

	for (unsigned k = 0; k < NSETS; k++)
		for (uint32_t i = 0; i < sets[k]->nlive; i++) {
			struct conn *c = sets[k]->live[i];
			short ce, be;

			c->cls->events(c, &ce, &be);
			c->ci = ce != 0 ? poll_add(n, c->cfd, ce) : -1;
			c->bi = be != 0 ? poll_add(n, c->bfd, be) : -1;
			if (c->deadline < *next)
				*next = c->deadline;
			turn[nt++] = c;
		}
	return nt;
}

/*
 * Established connections and pending entries first, then handshake
 * steps (public-key work) while the turn's time budget lasts: a burst
 * of new clients delays the requests of the others by about one
 * handshake, not by the burst.  Handshakes under way go before new
 * ones (promote()); those left over are still readable at the next
 * poll, and the start rotates so that none waits for ever.
 */
static void
run_conns(unsigned nt, unsigned rotate)
{
	for (int pass = 0; pass < 2; pass++)
		for (unsigned j = 0; j < nt; j++) {
			struct conn *c = turn[(j + rotate) % nt];
			int cr = c->ci >= 0 ? pfd[c->ci].revents : 0;
			int br = c->bi >= 0 ? pfd[c->bi].revents : 0;

			/* Closed this turn: nothing opens before promote(). */
			if (c->pos == CONN_FREE ||
			    (c->cls->costly != NULL && c->cls->costly(c)) != pass)
				continue;
			if ((cr != 0 || br != 0) && (!pass || budget_left())) {
				turn_work.io++;
				turn_work.costly += (unsigned)pass;
				c->cls->io(c, cr, br);
			}
			if (c->pos != CONN_FREE && conn_now >= c->deadline) {
				turn_work.expired++;
				c->cls->expire(c);
			}
		}
}

static unsigned
live_count(void)
{
	unsigned n = 0;

	for (unsigned k = 0; k < NSETS; k++)
		n += sets[k]->nlive;
	return n;
}

/* SIGTERM: every connection ends now if it can, else at its end. */
static void
drain(int drain_timeout)
{
	/* Backwards: a connection that closes moves the last one down. */
	for (unsigned k = 0; k < NSETS; k++)
		for (uint32_t i = sets[k]->nlive; i-- > 0;) {
			struct conn *c = sets[k]->live[i];

			if (drain_timeout || c->cls->drain == NULL)
				c->cls->abort(c, drain_timeout ? "drain-timeout" :
				    "drained");
			else
				c->cls->drain(c);
		}
}

int
loop_run(const struct config *cfg, const struct listener *lst, unsigned nl,
    int stats_fd, const struct config *(*reload)(void))
{
	uint64_t accept_after = 0, drain_end = 0;
	unsigned rotate = 0;
	int draining = 0, li[MAX_LISTENERS];

	turn_begin(port_now_us());
	conn_now = port_now_ms();
	conn_cfg = cfg;
	log_msg(LOG_INFO, "ready slots=%u services=%u listeners=%u pending=%u",
	    cfg->slots, cfg->nsvc, nl, cfg->pending);
	for (;;) {
		uint64_t next = pool_sweep(conn_now);
		unsigned sig, nt;
		size_t n = 0;
		int timeout, ready, idle, spolled = -1;

		nt = poll_conns(&n, &next);
		next = ready_next(0, ready_next(1, next));
		for (unsigned i = 0; i < nl; i++)
			li[i] = !draining && conn_now >= accept_after ?
			    poll_add(&n, lst[i].fd, PORT_IN) : -1;
		if (!draining && accept_after > conn_now && accept_after < next)
			next = accept_after;
		if (sc.fd >= 0) {
			spolled = poll_add(&n, sc.fd, sc.out == NULL ? PORT_IN :
			    PORT_OUT);
			if (sc.deadline < next)
				next = sc.deadline;
		} else if (stats_fd >= 0) {
			spolled = poll_add(&n, stats_fd, PORT_IN);
		}
		if (draining && drain_end < next)
			next = drain_end;
		timeout = next == UINT64_MAX ? -1 : next <= conn_now ? 0 :
		    next - conn_now > 60000 ? 60000 : (int)(next - conn_now);
		/*
		 * Key pairs to make ahead, when nothing is due (hellos queued
		 * for a slot are, though no socket says so): look, but do not
		 * sleep.
		 */
		idle = timeout != 0 && !draining && precomp_wanted();
		if (idle)
			timeout = 0;
		/* The turn ends here: all but the wait for readiness. */
		turn_work.polled = nt;
		turn_end(port_now_us());
		ready = port_poll(pfd, n, timeout);
		turn_start = port_now_us();
		conn_now = turn_start / 1000;
		turn_begin(turn_start);
		/* Nothing to serve: one pair, a few hundred microseconds. */
		if (idle && ready == 0)
			(void)precomp_fill();

		run_conns(nt, rotate++);
		if (!draining)
			promote(cfg);
		for (unsigned i = 0; i < nl; i++)
			if (li[i] >= 0 && (pfd[li[i]].revents & PORT_IN)) {
				uint64_t a = accept_some(&lst[i]);

				if (a > accept_after)
					accept_after = a;
			}
		if (spolled >= 0 && pfd[spolled].revents != 0) {
			if (sc.fd < 0)
				stats_accept(stats_fd);
			else
				stats_serve(cfg);
		}
		if (sc.fd >= 0 && conn_now >= sc.deadline)
			stats_expire();

		sig = port_signals();
		if (sig & PORT_SIG_USR1)
			log_stats();
		if ((sig & PORT_SIG_HUP) && !draining) {
			const struct config *c = reload();

			/* A service may now point at another backend. */
			if (c != NULL) {
				cfg = conn_cfg = c;
				pool_flush();
			}
		}
		if ((sig & PORT_SIG_TERM) && !draining) {
			draining = conn_draining = 1;
			drain_end = conn_now + cfg->drain_ms;
			for (unsigned i = 0; i < nl; i++)
				port_close(lst[i].fd, 0);
			log_msg(LOG_INFO, "draining live=%u drain_ms=%u",
			    slot_set.nlive, cfg->drain_ms);
			drain(0);
		}
		if (draining && (live_count() == 0 || conn_now >= drain_end)) {
			drain(1);
			log_stats();
			log_msg(LOG_INFO, "exit");
			return 0;
		}
	}
}
