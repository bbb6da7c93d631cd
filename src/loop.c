/*
 * loop.c - see loop.h.
 */
#include <stdio.h>

#include "loop.h"
#include "log.h"
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
    2 * TLSGATE_MAX_PLAIN];
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
 * A listener's clients: TLS ones to the slots, plain HTTP ones to the
 * plain slots; either table evicts its own longest waiting one when full.
 */
static uint64_t
accept_some(const struct service *svc, const struct listener *l)
{
	uint64_t before = slot_now > TLSGATE_EVICT_MS ?
	    slot_now - TLSGATE_EVICT_MS : 0;
	struct port_addr peer, local;
	int emfile, lfd = l->fd;

	for (int i = 0; i < ACCEPT_BURST; i++) {
		struct slot *victim = NULL;
		struct plain *pvictim = NULL;
		int fd;

		if (l->plain && plain_free_count() == 0) {
			if ((pvictim = plain_oldest_waiting(before)) == NULL)
				break;
		} else if (!l->plain && slot_free_count() == 0) {
			if ((victim = slot_oldest_waiting(before)) == NULL)
				break;
		}
		fd = port_accept(lfd, &peer, &local, &emfile);
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
		/* A balancer is not limited: its clients are, once its
		 * PROXY header names them (slot.c, plain.c). */
		if (svc->max_per_source > 0 &&
		    !config_proxy_trusted(svc, &peer) && slot_count_peer(&peer) +
		    plain_count_peer(&peer) >= svc->max_per_source) {
			char a[64];

			port_addr_str(&peer, a, sizeof(a));
			log_msg(LOG_INFO, "conn peer=%s outcome=per-source-limit",
			    a);
			stats.refused++;
			port_close(fd, 1);
			continue;
		}
		if (victim != NULL || pvictim != NULL)
			stats.evicted++;
		if (victim != NULL)
			slot_abort(victim, "evicted");
		if (pvictim != NULL)
			plain_abort(pvictim, "evicted");
		if (l->plain) {
			(void)plain_open(fd, &peer, &local, l->svc);
			continue;
		}
		if (slot_open(fd, &peer, &local, svc) == NULL) {
			log_msg(LOG_ERROR, "accept: cannot reset a TLS context");
			port_close(fd, 1);
			break;
		}
	}
	return 0;
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
	log_msg(LOG_INFO, "ready slots=%u services=%u listeners=%u",
	    cfg->slots, cfg->nsvc, nl);
	for (;;) {
		uint64_t next = pool_sweep(slot_now), oldest_wait = UINT64_MAX;
		uint64_t poldest = UINT64_MAX;
		unsigned sig, nt = 0, np = 0;
		size_t n = 0;
		int timeout, room, proom, spolled = -1;

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
		/*
		 * The listeners go last in pfd[]: each polled only while its
		 * table has a free slot or one to take from a slow
		 * handshake or head.
		 */
		room = slot_free_count() > 0 || (oldest_wait != UINT64_MAX &&
		    slot_now >= oldest_wait + TLSGATE_EVICT_MS);
		proom = plain_free_count() > 0 || (poldest != UINT64_MAX &&
		    slot_now >= poldest + TLSGATE_EVICT_MS);
		for (unsigned i = 0; i < nl; i++)
			li[i] = !draining && slot_now >= accept_after &&
			    (lst[i].plain ? proom : room) ?
			    poll_add(&n, lst[i].fd, PORT_IN) : -1;
		if (!draining && accept_after > slot_now) {
			if (accept_after < next)
				next = accept_after;
		} else if (!draining) {
			if (!room && oldest_wait != UINT64_MAX &&
			    oldest_wait + TLSGATE_EVICT_MS < next)
				next = oldest_wait + TLSGATE_EVICT_MS;
			if (!proom && poldest != UINT64_MAX &&
			    poldest + TLSGATE_EVICT_MS < next)
				next = poldest + TLSGATE_EVICT_MS;
		}
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
		 * requests of the others by a few ms, not by the burst.  The
		 * handshakes left over are still readable at the next poll;
		 * the start rotates so that none waits for ever.
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
				if ((cr != 0 || br != 0) && (!pass || budget-- > 0))
					slot_io(s, cr, br);
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
		for (unsigned i = 0; i < nl; i++)
			if (li[i] >= 0 && (pfd[li[i]].revents & PORT_IN)) {
				uint64_t t = accept_some(&cfg->svc[lst[i].svc],
				    &lst[i]);

				if (t > accept_after)
					accept_after = t;
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
