/*
 * loop.c - see loop.h.
 */
#include <stdio.h>

#include "loop.h"
#include "log.h"
#include "pend.h"
#include "plain.h"
#include "pool.h"
#include "slot.h"
#include "tls.h"

#define ACCEPT_BURST	32	/* accepts per turn: live slots go first */
#define EMFILE_PAUSE_MS	100

/* One entry per polled slot: where its two fds sit in pfd[]. */
struct turn {
	struct slot	*s;
	int		 ci, bi;
};
struct pturn {
	struct plain	*p;
	int		 ci, bi;
};

#define MAX_LISTENERS	(TLSGATE_MAX_SERVICES * TLSGATE_MAX_LISTEN * 2)

static struct port_pfd pfd[MAX_LISTENERS + 1 + 2 * TLSGATE_MAX_SLOTS +
    2 * TLSGATE_MAX_PLAIN + TLSGATE_MAX_PENDING];
static struct turn turn[TLSGATE_MAX_SLOTS];
static struct pturn pturn[TLSGATE_MAX_PLAIN];

size_t
loop_static_bytes(void)
{
	return sizeof(pfd) + sizeof(turn) + sizeof(pturn);
}

static void
log_stats(void)
{
	char buf[2048];
	size_t n = stats_text(buf, sizeof(buf), "=", " ");

	log_msg(LOG_INFO, "stats %.*s", (int)(n > 0 ? n - 1 : 0), buf);
}

/* A stats client: one answer, "name value" a line, then close. */
static void
serve_stats(int fd)
{
	struct port_addr peer, local;
	char buf[2048];
	int c, emfile;

	c = port_accept(fd, &peer, &local, &emfile);
	if (c < 0)
		return;
	(void)port_write(c, buf, stats_text(buf, sizeof(buf), " ", "\n"));
	port_close(c, 0);
}

/*
 * A listener's clients, to the pending table (pend.h): accepting costs
 * an entry, never a slot, so the listeners are always polled.
 */
static uint64_t
accept_some(const struct config *cfg, const struct listener *l)
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
				return slot_now + EMFILE_PAUSE_MS;
			}
			break;
		}
		pend_add(cfg, fd, &peer, l->svc, l->plain);
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
	uint64_t before = slot_now > TLSGATE_EVICT_MS ?
	    slot_now - TLSGATE_EVICT_MS : 0;
	struct plain *pv;
	struct slot *sv;

	if (plain ? plain_free_count() > 0 : slot_free_count() > 0)
		return 1;
	if (plain && (pv = plain_oldest_waiting(before)) != NULL)
		plain_abort(pv, "evicted");
	else if (!plain && (sv = slot_oldest_waiting(before)) != NULL)
		slot_abort(sv, "evicted");
	else
		return 0;
	stats.evicted++;
	return 1;
}

/* Pending entry i, its message whole, into a slot, which reads it now. */
static void
serve(const struct config *cfg, unsigned i)
{
	const struct pend *e = pend_at(i);
	const struct service *svc = &cfg->svc[e->svc];
	struct port_addr peer, local;
	uint64_t t = e->t_accept;
	unsigned si = e->svc;
	int plain = e->plain, fd;

	/* A balancer is not limited: its clients are, once its PROXY
	 * header names them (slot.c, plain.c). */
	pend_peer(e, &peer);
	if (svc->max_per_source > 0 &&
	    !config_proxy_trusted(svc, &peer) && slot_count_peer(&peer) +
	    plain_count_peer(&peer) >= svc->max_per_source) {
		stats.refused++;
		pend_close(cfg, i, "per-source-limit", 1);
		return;
	}
	fd = pend_take(i);
	port_local(fd, &local);
	if (plain) {
		struct plain *p = plain_open(fd, &peer, &local, si, t);

		plain_io(p, PORT_IN, 0);
		if (p->state != PLAIN_FREE && slot_now >= p->deadline)
			plain_expire(p);
	} else {
		struct slot *s = slot_open(fd, &peer, &local, svc, t);

		if (s == NULL) {
			log_msg(LOG_ERROR, "accept: cannot reset a TLS context");
			port_close(fd, 1);
			stats.closed++;
			return;
		}
		slot_io(s, PORT_IN, 0);
	}
}

/*
 * Whole messages to slots: plain ones while a plain slot is free, TLS
 * ones while a slot is free and the turn's handshake budget lasts.
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
promote(const struct config *cfg, unsigned budget)
{
	static uint64_t above_since, window;
	static unsigned served, rate;
	unsigned nready;
	int i, over;

	if (slot_now - window >= TLSGATE_QUEUE_INTERVAL_MS) {
		/* Idle for an interval or more: no rate to go by. */
		rate = slot_now - window >= (uint64_t)2 *
		    TLSGATE_QUEUE_INTERVAL_MS ? 0 : served;
		served = 0;
		window = slot_now;
	}
	over = above_since != 0 &&
	    slot_now >= above_since + TLSGATE_QUEUE_INTERVAL_MS;
	while ((i = pend_pick(1, 0, &nready)) >= 0 && room(1))
		serve(cfg, (unsigned)i);
	while ((i = pend_pick(0, over, &nready)) >= 0 && budget > 0 &&
	    room(0)) {
		serve(cfg, (unsigned)i);
		served++;
		budget--;
	}
	/* Here nready * interval / rate is the queue's wait, in ms. */
	if ((uint64_t)nready * TLSGATE_QUEUE_INTERVAL_MS <=
	    (uint64_t)(rate > 0 ? rate : 1) * TLSGATE_QUEUE_TARGET_MS) {
		above_since = 0;
		return;
	}
	if (above_since == 0)
		above_since = slot_now;
	if (!over || budget > 0)
		return;
	for (unsigned j = pend_count(); j-- > 0;) {
		const struct pend *e = pend_at(j);

		if (!e->plain && e->t_ready != 0 &&
		    slot_now >= e->t_ready + TLSGATE_QUEUE_MAX_MS) {
			stats.shed++;
			pend_close(cfg, j, "shed", 1);
		}
	}
}

/* Entry i's deadline passed, its message not whole. */
static void
pend_expire(const struct config *cfg, unsigned i)
{
	struct pend *e = pend_at(i);

	/* A partial head gets the plain slot's 408, when one is free. */
	if (e->plain && e->t_ready != 0)
		return;
	if (e->plain && !e->proxy && e->len > 0) {
		e->t_ready = slot_now;
		return;
	}
	stats.timeouts++;
	if (e->proxy)
		stats.proxy_errors++;
	pend_close(cfg, i, e->proxy ? "proxy-timeout" : e->plain ?
	    "head-timeout" : "handshake-timeout", !e->plain || e->proxy);
}

/* Add fd to the poll table; returns its index there. */
static int
poll_add(size_t *n, int fd, short events)
{
	pfd[*n].fd = fd;
	pfd[*n].events = events;
	pfd[*n].revents = 0;
	return (int)(*n)++;
}

int
loop_run(const struct config *cfg, const struct listener *lst, unsigned nl,
    int stats_fd, loop_reload_fn reload)
{
	uint64_t accept_after = 0, drain_end = 0;
	unsigned rotate = 0, budget;
	int draining = 0, li[MAX_LISTENERS];

	slot_now = port_now_ms();
	log_msg(LOG_INFO, "ready slots=%u services=%u listeners=%u pending=%u",
	    cfg->slots, cfg->nsvc, nl, cfg->pending);
	for (;;) {
		uint64_t next = pool_sweep(slot_now), oldest_wait = UINT64_MAX;
		uint64_t poldest = UINT64_MAX, t;
		unsigned sig, nt = 0, np = 0;
		size_t n = 0;
		int timeout, spolled = -1, ready[2] = { 0, 0 };

		for (unsigned i = 0; i < slot_live_count(); i++) {
			struct slot *s = slot_live(i);
			short ce, be;

			slot_events(s, &ce, &be);
			turn[nt].s = s;
			turn[nt].ci = ce != 0 ? poll_add(&n, s->cfd, ce) : -1;
			turn[nt].bi = be != 0 ? poll_add(&n, s->bfd, be) : -1;
			if (s->deadline < next)
				next = s->deadline;
			if (slot_wait_since(s) < oldest_wait)
				oldest_wait = slot_wait_since(s);
			nt++;
		}
		for (unsigned i = 0; i < plain_count(); i++) {
			struct plain *p = plain_at(i);
			short ce, be;

			if (p->state == PLAIN_FREE)
				continue;
			plain_events(p, &ce, &be);
			pturn[np].p = p;
			pturn[np].ci = ce != 0 ? poll_add(&n, p->cfd, ce) : -1;
			pturn[np].bi = be != 0 ? poll_add(&n, p->bfd, be) : -1;
			if (p->deadline < next)
				next = p->deadline;
			if (plain_wait_since(p) < poldest)
				poldest = plain_wait_since(p);
			np++;
		}
		/* A whole message is read once it has a slot, not polled. */
		for (unsigned i = 0; i < pend_count(); i++) {
			struct pend *e = pend_at(i);

			e->pi = e->t_ready == 0 ? poll_add(&n, e->fd, PORT_IN) : -1;
			ready[e->plain] |= e->t_ready != 0;
			if ((t = pend_deadline(cfg, e)) < next)
				next = t;
		}
		/*
		 * Whole messages waiting: now if a slot is free, else when
		 * one may be taken from a slow handshake or head.
		 */
		if (ready[0])
			next = slot_free_count() > 0 ? slot_now :
			    oldest_wait != UINT64_MAX &&
			    oldest_wait + TLSGATE_EVICT_MS < next ?
			    oldest_wait + TLSGATE_EVICT_MS : next;
		if (ready[1])
			next = plain_free_count() > 0 ? slot_now :
			    poldest != UINT64_MAX &&
			    poldest + TLSGATE_EVICT_MS < next ?
			    poldest + TLSGATE_EVICT_MS : next;
		for (unsigned i = 0; i < nl; i++)
			li[i] = !draining && slot_now >= accept_after ?
			    poll_add(&n, lst[i].fd, PORT_IN) : -1;
		if (!draining && accept_after > slot_now && accept_after < next)
			next = accept_after;
		if (stats_fd >= 0)
			spolled = poll_add(&n, stats_fd, PORT_IN);
		if (draining && drain_end < next)
			next = drain_end;
		timeout = next == UINT64_MAX ? -1 : next <= slot_now ? 0 :
		    next - slot_now > 60000 ? 60000 : (int)(next - slot_now);
		(void)port_poll(pfd, n, timeout);
		slot_now = port_now_ms();

		/*
		 * Established connections first, then at most
		 * TLSGATE_HANDSHAKES_PER_TURN handshakes, each ~1 ms of
		 * public-key work: a burst of new clients delays the
		 * requests of the others by a few ms, not by the burst.
		 * Handshakes under way go before new ones (promote()); those
		 * left over are still readable at the next poll, and the
		 * start rotates so that none waits for ever.
		 */
		budget = TLSGATE_HANDSHAKES_PER_TURN;
		for (unsigned pass = 0; pass < 2; pass++)
			for (unsigned j = 0; j < nt; j++) {
				unsigned i = (j + rotate) % nt;
				struct slot *s = turn[i].s;
				int cr = turn[i].ci >= 0 ?
				    pfd[turn[i].ci].revents : 0;
				int br = turn[i].bi >= 0 ?
				    pfd[turn[i].bi].revents : 0;

				/* A slot closed this turn stays FREE. */
				if (s->state == SLOT_FREE ||
				    (s->state == SLOT_HANDSHAKE) != pass)
					continue;
				if ((cr != 0 || br != 0) && (!pass || budget > 0)) {
					budget -= pass;
					slot_io(s, cr, br);
				}
				if (s->state != SLOT_FREE &&
				    slot_now >= s->deadline)
					slot_expire(s);
			}
		rotate++;
		for (unsigned i = 0; i < np; i++) {
			struct plain *p = pturn[i].p;
			int cr = pturn[i].ci >= 0 ? pfd[pturn[i].ci].revents : 0;
			int br = pturn[i].bi >= 0 ? pfd[pturn[i].bi].revents : 0;

			if (p->state != PLAIN_FREE && (cr != 0 || br != 0))
				plain_io(p, cr, br);
			if (p->state != PLAIN_FREE && slot_now >= p->deadline)
				plain_expire(p);
		}
		/*
		 * Backwards: closing entry i moves the last one, already
		 * seen, into its place.
		 */
		for (unsigned i = pend_count(); i-- > 0;) {
			struct pend *e = pend_at(i);
			unsigned had = pend_count();

			if (e->pi >= 0 && pfd[e->pi].revents != 0) {
				pend_peek(cfg, i);
				if (pend_count() < had)
					continue;
			}
			if (slot_now >= pend_deadline(cfg, e))
				pend_expire(cfg, i);
		}
		if (!draining)
			promote(cfg, budget);
		for (unsigned i = 0; i < nl; i++)
			if (li[i] >= 0 && (pfd[li[i]].revents & PORT_IN)) {
				uint64_t a = accept_some(cfg, &lst[i]);

				if (a > accept_after)
					accept_after = a;
			}
		if (spolled >= 0 && (pfd[spolled].revents & PORT_IN))
			serve_stats(stats_fd);

		sig = port_signals();
		if (sig & PORT_SIG_USR1)
			log_stats();
		if ((sig & PORT_SIG_HUP) && !draining) {
			const struct config *c = reload();

			/* A service may now point at another backend. */
			if (c != NULL) {
				cfg = c;
				pool_flush();
				plain_reconfig(c);
			}
		}
		if ((sig & PORT_SIG_TERM) && !draining) {
			draining = slot_draining = 1;
			drain_end = slot_now + cfg->drain_ms;
			for (unsigned i = 0; i < nl; i++)
				port_close(lst[i].fd, 0);
			log_msg(LOG_INFO, "draining live=%u drain_ms=%u",
			    slot_live_count(), cfg->drain_ms);
			/* No request yet: nothing to finish. */
			while (pend_count() > 0)
				pend_close(cfg, 0, "drained", 1);
			/* Backwards: a slot that closes moves the last one down. */
			for (unsigned i = slot_live_count(); i-- > 0;)
				slot_drain(slot_live(i));
			for (unsigned i = 0; i < plain_count(); i++)
				plain_drain(plain_at(i));
		}
		if (draining && ((slot_live_count() == 0 &&
		    plain_free_count() == plain_count()) ||
		    slot_now >= drain_end)) {
			while (slot_live_count() > 0)
				slot_abort(slot_live(0), "drain-timeout");
			for (unsigned i = 0; i < plain_count(); i++)
				if (plain_at(i)->state != PLAIN_FREE)
					plain_abort(plain_at(i), "drain-timeout");
			log_stats();
			log_msg(LOG_INFO, "exit");
			return 0;
		}
	}
}
