/*
 * loop.c - see loop.h.
 */
#include <stdio.h>

#include "loop.h"
#include "log.h"
#include "slot.h"
#include "tls.h"

#define ACCEPT_BURST	32	/* accepts per turn: live slots go first */
#define EMFILE_PAUSE_MS	100

/* One entry per polled slot: where its two fds sit in pfd[]. */
struct turn {
	struct slot	*s;
	int		 ci, bi;
};

#define MAX_LISTENERS	(TLSGATE_MAX_SERVICES * TLSGATE_MAX_LISTEN)

static struct port_pfd pfd[MAX_LISTENERS + 1 + 2 * TLSGATE_MAX_SLOTS];
static struct turn turn[TLSGATE_MAX_SLOTS];
static unsigned long long refused;

size_t
loop_static_bytes(void)
{
	return sizeof(pfd) + sizeof(turn);
}

/* The counters, as "name value" lines (stats socket) or one log line. */
static size_t
stats_text(char *buf, size_t cap, const char *sep)
{
	int n;

	n = snprintf(buf, cap, "accepted%s%llu%sclosed%s%llu%slive%s%u%s"
	    "high_water%s%u%shandshakes%s%llu%shandshakes_full%s%llu%s"
	    "resumed%s%llu%s"
	    "cache_hits%s%llu%scache_misses%s%llu%scache_saves%s%llu%s"
	    "tls_errors%s%llu%stimeouts%s%llu%sbackend_errors%s%llu%s"
	    "http_errors%s%llu%sevicted%s%llu%srefused%s%llu%s"
	    "bytes_in%s%llu%sbytes_out%s%llu",
	    sep, slot_stats.accepted, " ", sep, slot_stats.closed, " ", sep,
	    slot_stats.live, " ", sep, slot_stats.high_water, " ", sep,
	    slot_stats.handshakes, " ", sep, slot_stats.handshakes -
	    slot_stats.resumed, " ", sep, slot_stats.resumed, " ", sep,
	    tls_stats.cache_hits, " ", sep, tls_stats.cache_misses, " ", sep,
	    tls_stats.cache_saves, " ", sep, slot_stats.tls_errors, " ", sep,
	    slot_stats.timeouts, " ", sep, slot_stats.backend_errors, " ", sep,
	    slot_stats.http_errors, " ", sep, slot_stats.evicted, " ", sep,
	    refused, " ", sep, slot_stats.bytes_in, " ", sep,
	    slot_stats.bytes_out);
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

static void
log_stats(void)
{
	char buf[560];

	stats_text(buf, sizeof(buf), "=");
	log_msg(LOG_INFO, "stats %s", buf);
}

/* A stats client: one answer, then close.  Never waits for it. */
static void
serve_stats(int fd)
{
	struct port_addr peer, local;
	char buf[560];
	size_t n;
	int c, emfile;

	c = port_accept(fd, &peer, &local, &emfile);
	if (c < 0)
		return;
	n = stats_text(buf, sizeof(buf) - 1, " ");
	/* One "name value" a line. */
	for (size_t i = 0, k = 0; i < n; i++)
		if (buf[i] == ' ' && ++k % 2 == 0)
			buf[i] = '\n';
	buf[n++] = '\n';
	(void)port_write(c, buf, n);
	port_close(c, 0);
}

static uint64_t
accept_some(const struct service *svc, int lfd)
{
	struct port_addr peer, local;
	int emfile;

	for (int i = 0; i < ACCEPT_BURST; i++) {
		struct slot *victim = NULL;
		int fd;

		if (slot_free_count() == 0) {
			victim = slot_oldest_waiting(slot_now >
			    TLSGATE_EVICT_MS ? slot_now - TLSGATE_EVICT_MS : 0);
			if (victim == NULL)
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
		if (svc->max_per_source > 0 &&
		    slot_count_peer(&peer) >= svc->max_per_source) {
			char a[64];

			port_addr_str(&peer, a, sizeof(a));
			log_msg(LOG_INFO, "conn peer=%s outcome=per-source-limit",
			    a);
			refused++;
			port_close(fd, 1);
			continue;
		}
		if (victim != NULL) {
			slot_stats.evicted++;
			slot_abort(victim, "evicted");
		}
		if (slot_open(fd, &peer, &local, svc) == NULL) {
			log_msg(LOG_ERROR, "accept: cannot reset a TLS context");
			port_close(fd, 1);
			break;
		}
	}
	return 0;
}

int
loop_run(const struct config *cfg, const struct listener *lst, unsigned nl,
    int stats_fd, loop_reload_fn reload)
{
	uint64_t accept_after = 0, drain_end = 0;
	unsigned rotate = 0, budget;
	int draining = 0;

	slot_now = port_now_ms();
	log_msg(LOG_INFO, "ready slots=%u services=%u listeners=%u",
	    cfg->slots, cfg->nsvc, nl);
	for (;;) {
		uint64_t next = UINT64_MAX, oldest_wait = UINT64_MAX;
		unsigned sig, nt = 0;
		size_t n = 0, l0;
		int timeout, lpolled = 0, spolled = -1;

		for (unsigned i = 0; i < slot_live_count(); i++) {
			struct slot *s = slot_live(i);
			short ce, be;

			slot_events(s, &ce, &be);
			turn[nt].s = s;
			turn[nt].ci = turn[nt].bi = -1;
			if (ce != 0) {
				turn[nt].ci = (int)n;
				pfd[n].fd = s->cfd;
				pfd[n].events = ce;
				pfd[n++].revents = 0;
			}
			if (be != 0) {
				turn[nt].bi = (int)n;
				pfd[n].fd = s->bfd;
				pfd[n].events = be;
				pfd[n++].revents = 0;
			}
			if (s->deadline < next)
				next = s->deadline;
			if (slot_wait_since(s) < oldest_wait)
				oldest_wait = slot_wait_since(s);
			nt++;
		}
		/*
		 * The listeners go last in pfd[]: polled only while a slot
		 * is free or can be taken from a slow handshake or head.
		 */
		l0 = n;
		if (!draining && slot_now >= accept_after &&
		    (slot_free_count() > 0 || (oldest_wait != UINT64_MAX &&
		    slot_now >= oldest_wait + TLSGATE_EVICT_MS))) {
			lpolled = 1;
			for (unsigned i = 0; i < nl; i++) {
				pfd[n].fd = lst[i].fd;
				pfd[n].events = PORT_IN;
				pfd[n++].revents = 0;
			}
		} else if (!draining && accept_after > slot_now) {
			if (accept_after < next)
				next = accept_after;
		} else if (!draining && oldest_wait != UINT64_MAX &&
		    oldest_wait + TLSGATE_EVICT_MS < next)
			next = oldest_wait + TLSGATE_EVICT_MS;
		if (stats_fd >= 0) {
			spolled = (int)n;
			pfd[n].fd = stats_fd;
			pfd[n].events = PORT_IN;
			pfd[n++].revents = 0;
		}
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
		for (unsigned i = 0; lpolled && i < nl; i++)
			if (pfd[l0 + i].revents & PORT_IN) {
				uint64_t t = accept_some(&cfg->svc[lst[i].svc],
				    lst[i].fd);

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

			if (c != NULL)
				cfg = c;
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
		}
		if (draining && (slot_live_count() == 0 ||
		    slot_now >= drain_end)) {
			while (slot_live_count() > 0)
				slot_abort(slot_live(0), "drain-timeout");
			log_stats();
			log_msg(LOG_INFO, "exit");
			return 0;
		}
	}
}
