/*
 * loop.c - see loop.h.
 */
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

static struct port_pfd pfd[1 + 2 * TLSGATE_MAX_SLOTS];
static struct turn turn[TLSGATE_MAX_SLOTS];
static unsigned long long refused;

size_t
loop_static_bytes(void)
{
	return sizeof(pfd) + sizeof(turn);
}

static void
log_stats(void)
{
	log_msg(LOG_INFO, "stats accepted=%llu closed=%llu live=%u "
	    "high_water=%u handshakes=%llu resumed=%llu tls_errors=%llu "
	    "timeouts=%llu backend_errors=%llu evicted=%llu refused=%llu "
	    "cache_hits=%llu cache_misses=%llu", slot_stats.accepted,
	    slot_stats.closed,
	    slot_stats.live, slot_stats.high_water, slot_stats.handshakes,
	    slot_stats.resumed, slot_stats.tls_errors, slot_stats.timeouts,
	    slot_stats.backend_errors, slot_stats.evicted, refused,
	    tls_stats.cache_hits,
	    tls_stats.cache_misses);
}

static uint64_t
accept_some(const struct config *cfg, int lfd)
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
		if (cfg->max_per_source > 0 &&
		    slot_count_peer(&peer) >= cfg->max_per_source) {
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
		if (slot_open(fd, &peer, &local) == NULL) {
			log_msg(LOG_ERROR, "accept: cannot reset a TLS context");
			port_close(fd, 1);
			break;
		}
	}
	return 0;
}

int
loop_run(const struct config *cfg, int lfd)
{
	uint64_t accept_after = 0, drain_end = 0;
	int draining = 0;

	slot_now = port_now_ms();
	log_msg(LOG_INFO, "ready slots=%u session_cache=%u", cfg->slots,
	    cfg->cache);
	for (;;) {
		uint64_t next = UINT64_MAX, oldest_hs = UINT64_MAX;
		unsigned sig, nt = 0;
		size_t n = 0;
		int timeout, lpolled = 0;

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
			if (slot_wait_since(s) < oldest_hs)
				oldest_hs = slot_wait_since(s);
			nt++;
		}
		/*
		 * The listener goes last in pfd[]: polled only while a slot
		 * is free or can be taken from a slow handshake.
		 */
		if (!draining && slot_now >= accept_after &&
		    (slot_free_count() > 0 || (oldest_hs != UINT64_MAX &&
		    slot_now >= oldest_hs + TLSGATE_EVICT_MS))) {
			lpolled = (int)n + 1;
			pfd[n].fd = lfd;
			pfd[n].events = PORT_IN;
			pfd[n++].revents = 0;
		} else if (!draining && accept_after > slot_now) {
			if (accept_after < next)
				next = accept_after;
		} else if (!draining && oldest_hs != UINT64_MAX &&
		    oldest_hs + TLSGATE_EVICT_MS < next)
			next = oldest_hs + TLSGATE_EVICT_MS;
		if (draining && drain_end < next)
			next = drain_end;
		timeout = next == UINT64_MAX ? -1 : next <= slot_now ? 0 :
		    next - slot_now > 60000 ? 60000 : (int)(next - slot_now);
		(void)port_poll(pfd, n, timeout);
		slot_now = port_now_ms();

		for (unsigned i = 0; i < nt; i++) {
			struct slot *s = turn[i].s;
			int cr = turn[i].ci >= 0 ? pfd[turn[i].ci].revents : 0;
			int br = turn[i].bi >= 0 ? pfd[turn[i].bi].revents : 0;

			/* A slot closed earlier in this turn stays FREE. */
			if (s->state != SLOT_FREE && (cr != 0 || br != 0))
				slot_io(s, cr, br);
			if (s->state != SLOT_FREE && slot_now >= s->deadline)
				slot_expire(s);
		}
		if (lpolled && (pfd[lpolled - 1].revents & PORT_IN))
			accept_after = accept_some(cfg, lfd);

		sig = port_signals();
		if (sig & PORT_SIG_USR1)
			log_stats();
		if ((sig & PORT_SIG_TERM) && !draining) {
			draining = slot_draining = 1;
			drain_end = slot_now + cfg->drain_ms;
			port_close(lfd, 0);
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
