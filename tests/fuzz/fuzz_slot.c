/* SPDX-License-Identifier: ISC */
/*
 * fuzz_slot.c - libFuzzer target for the connection state machine
 * (src/slot.c, src/forward.c) over the in-memory port of fakeport.c.
 *
 * The harness plays loop.c (poll turns, accepts, deadlines) and every
 * peer: up to NCONN TLS clients (BearSSL's TLS 1.2 client engines, which
 * trust the server's known key, as a benchmark tool would) and their
 * backends.  The server side is tlsgate's whole: tls.c's policy and
 * caches on its own engine (eng.h).
 * The input is a program:
 *   byte 0: mode, PROXY version, X-Forwarded-* flags, and whether the
 *           peers are a balancer (proxy_from) that sends a v1 or v2
 *           header naming one of two clients before each hello, or one
 *           with a bit flipped (which src/proxyin.c, as the oracle,
 *           says is refused or names whom);
 *   byte 1: slots (1-4), client suite, IPv6 peers, the backend pool
 *           (off or 2), per-source limit;
 *   then operations: one byte (op = b & 15, conn = b >> 4 & 3, v = b >> 6)
 *   and their arguments, see run_op().
 * TLS 1.3 is on (tls_max): the 1.2 clients are served by hs12.c with
 * the downgrade sentinel, and raw bytes (seeds: real 1.3 hellos) reach
 * hs13.c.  Each input starts from a fresh slot_table_init(), a fresh
 * tls_init() (its random generator seeded from fakeport.c's fixed
 * entropy), the session cache as boot() left it, and a fake clock, so
 * that it always takes the same path.  tls_load() runs once: its key
 * check alone cost a fifth of a run.
 *
 * Checked when a client's handshake completes (abort on violation):
 *  - the server's first record is a TLS 1.2 ServerHello whose random
 *    ends with the downgrade sentinel, "DOWNGRD" 01 (RFC 8446 4.1.3):
 *    BearSSL 0.6's client does not look for it, so this harness does;
 * checked after every operation:
 *  - live slots <= the table, live + free = the table, every live slot's
 *    descriptors open (fakeport.c aborts on any use of a closed one), and
 *    its byte counters equal what its backend socket saw;
 *  - no busy loop: after a turn, further turns with no new input must
 *    soon be quiet: no ready descriptor, no I/O call, no deadline passed;
 * and for each connection when it ends:
 *  - at most one backend connection per client connection;
 *  - tcp mode: the backend got the PROXY header (if on) naming the client
 *    (the balancer's header's, if any), then a prefix of the client's
 *    plaintext;
 *  - http mode: the backend got heads that http_parse_head() accepts,
 *    each carrying exactly the X-Forwarded-* lines configured, each with
 *    the body its framing says (the last one may be cut short), nothing
 *    after a "close" request; after an upgrade request nothing is checked;
 *  - the client got a prefix of what tlsgate read from the backend, then
 *    (http mode) possibly a prefix of one of tlsgate's error pages;
 * and at the end, after the clock jumped by an hour a few times, every
 * slot is free and every descriptor was closed exactly once.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bearssl.h>

#include "config.h"
#include "http.h"
#include "log.h"
#include "pend.h"
#include "pool.h"
#include "proxyin.h"
#include "slot.h"
#include "hello.h"
#include "tls.h"

/* fakeport.c */
extern uint64_t fake_now;
extern char fake_last_log[512];
extern int fake_verbose;
extern const unsigned char fake_ec_pub[65];
void	fake_reset(void);
int	fake_socket(int backend, int owner);
int	fake_is_open(int fd);
int	fake_open_count(void);
size_t	fake_push(int fd, const void *buf, size_t len);
void	fake_peer_eof(int fd);
void	fake_peer_reset(int fd);
void	fake_set_cap(int fd, size_t cap);
const unsigned char *fake_written(int fd, size_t *len);
const unsigned char *fake_sent(int fd, size_t *len, size_t *nread);
int	fake_backend_of(int owner, int n);
void	fake_set_owner(int cfd);
void	fake_connect_mode(int mode);
void	fake_connects_finish(void);
unsigned long fake_calls(void);
void	*fake_shared(size_t *len);

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define NCONN		4
#define STREAM_MAX	65536
#define SETTLE_ROUNDS	4
#define QUIET_TURNS	6
#define MAX_ACCEPTS	8	/* handshakes are most of the cost */

#define check(ok) do {							\
	if (!(ok)) {							\
		fprintf(stderr, "fuzz_slot.c:%d: %s (last log: %s)\n",	\
		    __LINE__, #ok, fake_last_log);			\
		abort();						\
	}								\
} while (0)

/* One TLS client and what it sent and received. */
struct fconn {
	int			 used, cfd;
	int			 done;		/* its handshake completed */
	br_ssl_client_context	 cc;
	unsigned char		 iobuf[BR_SSL_BUFSIZE_BIDI];
	size_t			 seen;		/* of what tlsgate wrote */
	unsigned char		 plain[STREAM_MAX];
	size_t			 plain_len;
	unsigned char		 rx[STREAM_MAX];
	size_t			 rx_len;
	struct port_addr	 peer, local;
	/* The backend connection last seen on its slot (it may be one an
	 * earlier client left in the pool), and its byte counts then. */
	int			 bfd;
	size_t			 wbase, rbase;
	/* Where the next client's bytes begin, once one took it. */
	size_t			 rend;
};

static struct fconn conns[NCONN];
static struct config cfg;
static struct service *sv = &cfg.svc[0];	/* the one service */
static br_x509_minimal_context x509_unused;
static br_x509_knownkey_context known;
static br_ssl_session_parameters saved;
static br_ssl_session_parameters boot_session;
static int have_saved, client_suite, peer_v6;
/*
 * 0: clients connect directly; 1, 2: through a balancer, PROXY v1, v2;
 * 3: either, one bit of each header flipped.
 */
static int balancer;
static unsigned seq, seq_base;	/* clients opened (seeds) */
static unsigned char boot_caches[1 << 20];	/* as boot() left them */
static size_t boot_caches_len;

static const char *const requests[4] = {
	"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
	"POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
	"POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "5\r\nhello\r\n0\r\n\r\n",
	"GET /ws HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\n"
	    "Upgrade: websocket\r\n\r\n",
};
static const char *const responses[4] = {
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
	"HTTP/1.1 100 Continue\r\n\r\n",
	"HTTP/1.1 204 No Content\r\n\r\n",
};

/*
 * BearSSL seeds every fresh client engine from the OS as well as from
 * injected entropy; this definition takes the place of the library's
 * (which the engine calls through the PLT), so that runs are
 * reproducible.
 */
br_prng_seeder
br_prng_seeder_system(const char **name)
{
	if (name != NULL)
		*name = "none";
	return 0;
}

/*
 * The client takes the server's ServerKeyExchange signature on trust but
 * in boot()'s handshake: checking every one would cost a third of a run,
 * and the signer (src/ecdsa.c) has its own tests, against BearSSL's.
 */
static int verify_sigs;

static uint32_t
vrfy_any(const br_ec_impl *impl, const void *hash, size_t hlen,
    const br_ec_public_key *pk, const void *sig, size_t slen)
{
	if (verify_sigs)
		return br_ecdsa_vrfy_asn1_get_default()(impl, hash, hlen, pk,
		    sig, slen);
	return 1;
}

/* Input reader: past the end, every byte is 0. */
struct input {
	const uint8_t	*p;
	size_t		 len, off;
};

static unsigned
next(struct input *in)
{
	return in->off < in->len ? in->p[in->off++] : 0;
}

static const uint8_t *
take(struct input *in, size_t *n)
{
	const uint8_t *p = in->p + in->off;

	if (*n > in->len - in->off)
		*n = in->len - in->off;
	in->off += *n;
	return p;
}

static size_t
cap_of(unsigned arg)
{
	return arg == 255 ? (size_t)-1 : (size_t)arg * 16;
}

/*
 * A 1.2 handshake completed: it began with tlsgate's ServerHello (header,
 * type, length, version, then the random), and as TLS 1.3 is on, the
 * random ends with the downgrade sentinel.
 */
static void
check_sentinel(const unsigned char *w, size_t wlen)
{
	check(wlen >= 5 + 4 + 2 + 32);
	check(w[0] == 22 && w[5] == 2 && w[9] == 3 && w[10] == 3);
	check(memcmp(w + 5 + 4 + 2 + 24, "DOWNGRD\1", 8) == 0);
}

/* The client engine reads what tlsgate wrote and keeps the plaintext. */
static void
client_pump(struct fconn *k)
{
	br_ssl_engine_context *eng = &k->cc.eng;
	const unsigned char *w;
	unsigned char *buf;
	size_t wlen, len, n;

	w = fake_written(k->cfd, &wlen);
	for (int guard = 0; guard < 1000; guard++) {
		unsigned st = br_ssl_engine_current_state(eng);
		int moved = 0;

		if (st == BR_SSL_CLOSED)
			return;
		if (st & BR_SSL_RECVAPP) {
			buf = br_ssl_engine_recvapp_buf(eng, &len);
			n = len < STREAM_MAX - k->rx_len ? len :
			    STREAM_MAX - k->rx_len;
			memcpy(k->rx + k->rx_len, buf, n);
			k->rx_len += n;
			br_ssl_engine_recvapp_ack(eng, len);
			moved = 1;
		}
		if ((st & BR_SSL_RECVREC) && k->seen < wlen) {
			buf = br_ssl_engine_recvrec_buf(eng, &len);
			n = wlen - k->seen < len ? wlen - k->seen : len;
			memcpy(buf, w + k->seen, n);
			k->seen += n;
			br_ssl_engine_recvrec_ack(eng, n);
			moved = 1;
		}
		if ((st & BR_SSL_SENDAPP) && !k->done) {
			k->done = 1;
			check_sentinel(w, wlen);
		}
		if ((st & BR_SSL_SENDAPP) && !have_saved) {	/* boot() only */
			br_ssl_engine_get_session_parameters(eng, &saved);
			have_saved = 1;
		}
		if (!moved)
			return;
	}
	check(!"client engine does not settle");
}

static void
client_open(struct fconn *k, int fd, int resume)
{
	static const uint16_t suites[] = {
		BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
		BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
		BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	};
	br_ssl_engine_context *eng = &k->cc.eng;
	unsigned char seed[32];

	k->used = 1;
	k->done = 0;
	k->cfd = fd;
	k->bfd = -1;
	k->rend = SIZE_MAX;
	k->seen = k->plain_len = k->rx_len = 0;
	br_ssl_client_init_full(&k->cc, &x509_unused, NULL, 0);
	br_ssl_engine_set_x509(eng, &known.vtable);
	br_ssl_engine_set_ecdsa(eng, vrfy_any);
	br_ssl_engine_set_versions(eng, BR_TLS12, BR_TLS12);
	if (client_suite > 0)
		br_ssl_engine_set_suites(eng, &suites[client_suite - 1], 1);
	br_ssl_engine_set_buffer(eng, k->iobuf, sizeof(k->iobuf), 1);
	memset(seed, (int)(++seq & 0xff), sizeof(seed));
	br_ssl_engine_inject_entropy(eng, seed, sizeof(seed));
	if (resume && have_saved)
		br_ssl_engine_set_session_parameters(eng, &saved);
	check(br_ssl_client_reset(&k->cc, "tlsgate.test", resume && have_saved));
}

static void
client_send(struct fconn *k, const void *p, size_t n)
{
	br_ssl_engine_context *eng = &k->cc.eng;
	unsigned char *buf;
	size_t len;

	if (!(br_ssl_engine_current_state(eng) & BR_SSL_SENDAPP))
		return;
	buf = br_ssl_engine_sendapp_buf(eng, &len);
	if (n > len)
		n = len;
	if (n > STREAM_MAX - k->plain_len)
		n = STREAM_MAX - k->plain_len;
	memcpy(buf, p, n);
	memcpy(k->plain + k->plain_len, p, n);
	k->plain_len += n;
	br_ssl_engine_sendapp_ack(eng, n);
}

/*
 * Flush the plaintext sent so far into records, and move want (0: all)
 * pending record bytes to tlsgate, one byte flipped if x.
 */
static void
client_deliver(struct fconn *k, size_t want, size_t pos, unsigned x)
{
	br_ssl_engine_context *eng = &k->cc.eng;
	unsigned char tmp[BR_SSL_BUFSIZE_OUTPUT], *buf;
	size_t len;

	br_ssl_engine_flush(eng, 0);
	if (!fake_is_open(k->cfd) ||
	    !(br_ssl_engine_current_state(eng) & BR_SSL_SENDREC))
		return;
	buf = br_ssl_engine_sendrec_buf(eng, &len);
	if (want > 0 && want < len)
		len = want;
	memcpy(tmp, buf, len);
	if (x != 0)
		tmp[pos % len] ^= (unsigned char)x;
	br_ssl_engine_sendrec_ack(eng, fake_push(k->cfd, tmp, len));
}

static struct fconn *
conn_of(int cfd)
{
	for (int c = 0; c < NCONN; c++)
		if (conns[c].used && conns[c].cfd == cfd)
			return &conns[c];
	abort();
}

static void
check_tables(void)
{
	const struct connset *set = &slot_set;
	unsigned live = set->nlive;
	size_t w, n, r;

	check(live <= cfg.slots);
	check(live + set->nfree == cfg.slots);
	for (unsigned i = 0; i < live; i++) {
		struct slot *s = (struct slot *)set->live[i];

		check(s->c.pos != CONN_FREE);
		check(fake_is_open(s->c.cfd));
		check(s->c.bfd == -1 || fake_is_open(s->c.bfd));
		if (s->c.bfd >= 0) {
			struct fconn *k = conn_of(s->c.cfd);

			(void)fake_written(s->c.bfd, &w);
			(void)fake_sent(s->c.bfd, &n, &r);
			/* Taken from the pool (this turn, maybe with bytes
			 * moved since): the rest is its earlier clients'. */
			if (k->bfd != s->c.bfd) {
				k->bfd = s->c.bfd;
				k->wbase = w - s->c2b;
				k->rbase = r - s->b2c;
				check((s->flags & SLOT_F_REUSED) ||
				    (k->wbase == 0 && k->rbase == 0));
				for (int c = 0; c < NCONN; c++)
					if (&conns[c] != k &&
					    conns[c].bfd == k->bfd &&
					    conns[c].rend == SIZE_MAX)
						conns[c].rend = k->rbase;
			}
			/* The log line's byte counts are the bytes moved. */
			check(s->c2b == w - k->wbase && s->b2c == r - k->rbase);
		}
	}
}

/*
 * One turn of loop.c: events from every live slot, one poll, then I/O
 * and deadlines.  Returns 1 if the turn was quiet: nothing ready, no
 * I/O call, no deadline passed.
 */
static int
run_turn(void)
{
	static struct port_pfd pfd[2 * TLSGATE_MAX_SLOTS];
	static struct { struct slot *s; int ci, bi; } t[TLSGATE_MAX_SLOTS];
	unsigned long calls = fake_calls();
	unsigned nt = 0;
	size_t n = 0;
	int ready, late = 0;

	(void)pool_sweep(conn_now);

	for (unsigned i = 0; i < slot_set.nlive; i++) {
		struct slot *s = (struct slot *)slot_set.live[i];
		short ce, be;

		s->c.cls->events(&s->c, &ce, &be);
		t[nt].s = s;
		t[nt].ci = t[nt].bi = -1;
		if (ce != 0) {
			t[nt].ci = (int)n;
			pfd[n].fd = s->c.cfd;
			pfd[n++].events = ce;
		}
		if (be != 0) {
			check(s->c.bfd >= 0);
			t[nt].bi = (int)n;
			pfd[n].fd = s->c.bfd;
			pfd[n++].events = be;
		}
		nt++;
	}
	ready = port_poll(pfd, n, 0);
	conn_now = port_now_ms();
	for (unsigned i = 0; i < nt && fake_verbose; i++)
		fprintf(stderr, "  slot %u state %d flags %#x engine %#x "
		    "cev %#x/%#x bev %#x/%#x ra %zu\n", t[i].s->c.id, t[i].s->state,
		    t[i].s->flags, eng_state(&t[i].s->tls.eng),
		    t[i].ci >= 0 ? pfd[t[i].ci].events : 0,
		    t[i].ci >= 0 ? pfd[t[i].ci].revents : 0,
		    t[i].bi >= 0 ? pfd[t[i].bi].events : 0,
		    t[i].bi >= 0 ? pfd[t[i].bi].revents : 0, t[i].s->ra_len);
	for (unsigned i = 0; i < nt; i++) {
		struct slot *s = t[i].s;
		int cr = t[i].ci >= 0 ? pfd[t[i].ci].revents : 0;
		int br = t[i].bi >= 0 ? pfd[t[i].bi].revents : 0;

		fake_set_owner(s->c.cfd);
		if (s->c.pos != CONN_FREE && (cr != 0 || br != 0))
			s->c.cls->io(&s->c, cr, br);
		if (s->c.pos != CONN_FREE && conn_now >= s->c.deadline) {
			late = 1;
			s->c.cls->expire(&s->c);
		}
	}
	check_tables();
	if (fake_verbose)
		fprintf(stderr, "turn: %zu polled, %d ready, %lu calls%s\n", n,
		    ready, fake_calls() - calls, late ? ", late" : "");
	return ready == 0 && !late && fake_calls() == calls;
}

/*
 * A poll turn, and the clients' answer to it (which tlsgate sees only at
 * the next delivery).  Then, with no new input, turns must go quiet
 * within QUIET_TURNS: a read that came back short ends a drain, so an
 * EOF queued behind data legitimately takes one more turn; a slot that
 * polls for something it cannot act on spins forever.
 */
static void
turn(void)
{
	int quiet = 0;

	fake_connects_finish();
	(void)run_turn();
	for (int c = 0; c < NCONN; c++)
		if (conns[c].used)
			client_pump(&conns[c]);
	for (int i = 0; i < QUIET_TURNS && !quiet; i++)
		quiet = run_turn();
	check(quiet);
}

/* Two client addresses (for the per-source limit), and ours. */
static void
addresses(int c, struct port_addr *peer, struct port_addr *local)
{
	static const char *const ip[2][3] = {
		{ "127.0.0.1:40000", "127.0.0.2:40001", "127.0.0.1:8443" },
		{ "[::1]:40000", "[::2]:40001", "[::1]:8443" },
	};
	const char *why, *p = ip[peer_v6][c & 1], *l = ip[peer_v6][2];

	check(port_addr_parse(peer, p, strlen(p), &why) == 0);
	check(port_addr_parse(local, l, strlen(l), &why) == 0);
}

static size_t proxy_expected(const struct port_addr *,
	    const struct port_addr *, unsigned, unsigned char *, size_t);

/*
 * The balancer's header for client c & 1 (its v4 or v6 address, as the
 * peers'): returns its length; *peer and *local become its addresses.
 */
static size_t
balancer_header(int c, unsigned char *out, size_t cap, struct port_addr *peer,
    struct port_addr *local)
{
	static const char *const ip[2][3] = {
		{ "192.0.2.10:2000", "192.0.2.11:2001", "198.51.100.1:443" },
		{ "[2001:db8::10]:2000", "[2001:db8::11]:2001",
		    "[2001:db8::1]:443" },
	};
	const char *why, *p = ip[peer_v6][c & 1], *l = ip[peer_v6][2];

	check(port_addr_parse(peer, p, strlen(p), &why) == 0);
	check(port_addr_parse(local, l, strlen(l), &why) == 0);
	return proxy_expected(peer, local, balancer == 1 ||
	    (balancer == 3 && (seq & 1)) ? PROXY_V1 : PROXY_V2, out, cap);
}

/* loop.c's accept: evict the slowest waiter when full, per-source limit. */
static void
accept_client(int c, int resume)
{
	struct fconn *k = &conns[c];
	struct port_addr peer, local;
	struct conn *victim = NULL;
	int fd;

	conn_now = port_now_ms();
	if ((k->used && fake_is_open(k->cfd)) || seq == seq_base + MAX_ACCEPTS)
		return;
	if (slot_set.nfree == 0) {
		victim = connset_oldest_waiting(&slot_set,
		    conn_now > TLSGATE_EVICT_MS ?
		    conn_now - TLSGATE_EVICT_MS : 0);
		if (victim == NULL)
			return;		/* waits in the backlog: not modelled */
	}
	addresses(c, &peer, &local);
	fd = fake_socket(0, -1);
	if (fd < 0)
		return;
	if (sv->max_per_source > 0 && !config_proxy_trusted(sv, &peer) &&
	    conn_count_peer(&peer) >= sv->max_per_source) {
		port_close(fd, 1);
		return;
	}
	if (victim != NULL) {
		fake_set_owner(victim->cfd);
		victim->cls->abort(victim, "evicted");
	}
	check(slot_open(fd, &peer, &local, sv, conn_now) != NULL);
	client_open(k, fd, resume);
	if (balancer) {
		struct port_addr lb = peer, lbl = local;
		struct proxyin_hdr h;
		unsigned char hdr[128];
		size_t n = balancer_header(c, hdr, sizeof(hdr), &peer, &local);

		if (balancer == 3) {
			hdr[seq * 7 % n] ^= (unsigned char)(1u << seq % 8);
			/* Whom tlsgate will take the client for, if anyone. */
			if (proxyin_parse(hdr, n, &h) == PROXYIN_OK &&
			    h.alen != 0) {
				port_addr_make(&peer, h.src, h.alen, h.sport);
				port_addr_make(&local, h.dst, h.alen, h.dport);
			} else {
				peer = lb;
				local = lbl;
			}
		}
		check(fake_push(fd, hdr, n) > 0);
	}
	k->peer = peer;
	k->local = local;
}

/* The PROXY header (version: PROXY_V1, V2) naming these addresses. */
static size_t
proxy_expected(const struct port_addr *peer, const struct port_addr *local,
    unsigned version, unsigned char *out, size_t cap)
{
	static const unsigned char sig[12] = "\r\n\r\n\0\r\nQUIT\n";
	unsigned sp = port_addr_port(peer), dp = port_addr_port(local);
	uint8_t a[16], b[16];
	size_t al = port_addr_raw(peer, a);
	char ia[64], ib[64];

	(void)port_addr_raw(local, b);
	if (version == PROXY_V1) {
		port_addr_ip(peer, ia, sizeof(ia));
		port_addr_ip(local, ib, sizeof(ib));
		return (size_t)snprintf((char *)out, cap, "PROXY %s %s %s %u %u\r\n",
		    al == 4 ? "TCP4" : "TCP6", ia, ib, sp, dp);
	}
	memcpy(out, sig, 12);
	out[12] = 0x21;
	out[13] = al == 4 ? 0x11 : 0x21;
	out[14] = 0;
	out[15] = (unsigned char)(2 * al + 4);
	memcpy(out + 16, a, al);
	memcpy(out + 16 + al, b, al);
	out[16 + 2 * al] = (unsigned char)(sp >> 8);
	out[17 + 2 * al] = (unsigned char)sp;
	out[18 + 2 * al] = (unsigned char)(dp >> 8);
	out[19 + 2 * al] = (unsigned char)dp;
	return 20 + 2 * al;
}

static unsigned
popcount(const uint32_t *w, size_t n)
{
	unsigned c = 0;

	for (size_t i = 0; i < n; i++)
		for (uint32_t v = w[i]; v != 0; v &= v - 1)
			c++;
	return c;
}

/* http mode: heads and framed bodies, as the backend received them. */
static void
check_http_stream(const unsigned char *w, size_t n)
{
	unsigned want = sv->xff + sv->xfproto + sv->xfport;
	struct http_req req;
	struct http_chunk ch;
	size_t pos = 0, hl, used;
	int rc;

	while (pos < n) {
		hl = 0;
		rc = http_head_end(w + pos, n - pos, &hl);
		if (rc == HTTP_MORE) {
			/* A head cut short by the end of the run. */
			check(n - pos < TLSGATE_HEAD_MAX + HTTP_FWD_SLACK);
			return;
		}
		check(rc == HTTP_OK);
		check(http_parse_head(w + pos, hl, &req) == HTTP_OK);
		check(popcount(req.drop, sizeof(req.drop) / 4) == want);
		pos += hl;
		if (req.body == HTTP_BODY_LENGTH) {
			if (req.body_len > n - pos)
				return;
			pos += (size_t)req.body_len;
		} else if (req.body == HTTP_BODY_CHUNKED) {
			http_chunk_init(&ch);
			rc = http_chunk_feed(&ch, w + pos, n - pos, &used);
			check(rc == HTTP_OK || rc == HTTP_MORE);
			pos += used;
			if (rc == HTTP_MORE)
				return;
		}
		if (req.upgrade)
			return;
		if (!req.keep_alive) {
			check(pos == n);
			return;
		}
	}
}

/* The client side: backend bytes tlsgate read, then maybe our page. */
static void
check_client_stream(const struct fconn *k, int bfd, size_t base)
{
	static const int pages[] = { 400, 408, 431, 502, 503, 504 };
	const unsigned char *sent = NULL;
	size_t slen = 0, nread = 0, m, plen, rest;
	const char *page;
	int ok = 0;

	/* Only what the backend sent after this client took it: never a
	 * byte of an earlier client's answers. */
	if (bfd >= 0) {
		sent = fake_sent(bfd, &slen, &nread) + base;
		if (nread > k->rend)
			nread = k->rend;
		nread -= base;
	}
	m = k->rx_len < nread ? k->rx_len : nread;
	check(m == 0 || memcmp(k->rx, sent, m) == 0);
	if (k->rx_len == m)
		return;
	check(sv->mode == MODE_HTTP);
	rest = k->rx_len - m;
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		page = http_error_page(pages[i], &plen);
		ok |= page != NULL && rest <= plen &&
		    memcmp(k->rx + m, page, rest) == 0;
	}
	check(ok);
}

static void
check_streams(const struct fconn *k)
{
	unsigned char hdr[128];
	const unsigned char *w = NULL;
	size_t n = 0, h;
	int bfd = k->bfd >= 0 ? k->bfd : fake_backend_of(k->cfd, 0);

	/* A second only for a retry after a pooled one failed. */
	check(fake_backend_of(k->cfd, 1) < 0 || (cfg.backend_pool > 0 &&
	    fake_backend_of(k->cfd, 2) < 0));
	check_client_stream(k, bfd, k->bfd >= 0 ? k->rbase : 0);
	if (bfd < 0)
		return;
	w = fake_written(bfd, &n);
	if (sv->mode == MODE_HTTP) {
		check_http_stream(w, n);
		return;
	}
	h = sv->proxy == PROXY_OFF ? 0 : proxy_expected(&k->peer, &k->local,
	    sv->proxy, hdr, sizeof(hdr));
	check(memcmp(w, hdr, n < h ? n : h) == 0);
	if (n <= h)
		return;
	check(n - h <= k->plain_len);
	check(memcmp(w + h, k->plain, n - h) == 0);
}

/* Start of an input: a fresh config, key load, table and network. */
static void
setup(struct input *in)
{
	static int loaded;
	unsigned a = next(in), b = next(in);
	const char *why;
	char err[256];
	size_t n;

	if (config_defaults(&cfg, err, sizeof(err)) < 0)
		abort();
	snprintf(sv->certs[0].cert, sizeof(sv->certs[0].cert), "cert");
	snprintf(sv->certs[0].key, sizeof(sv->certs[0].key), "key");
	sv->mode = a & 1 ? MODE_HTTP : MODE_TCP;
	/* BearSSL's client offers 1.2 at most: 1.3 comes as raw hellos. */
	sv->tls_max = 0x0304;
	sv->proxy = (a >> 1 & 3) % 3;
	sv->xff = a >> 3 & 1;
	sv->xfproto = a >> 4 & 1;
	sv->xfport = a >> 5 & 1;
	balancer = (int)(a >> 6 & 3);
	sv->nproxy_from = 0;
	if (balancer) {
		const char *net = "127.0.0.0/8 ::/0";

		check(proxyin_net_parse(&sv->proxy_from[0], net, 11) == NULL);
		check(proxyin_net_parse(&sv->proxy_from[1], net + 12, 4) == NULL);
		sv->nproxy_from = 2;
	}
	cfg.slots = 1 + (b & 3);
	client_suite = (int)(b >> 2 & 3);
	peer_v6 = (int)(b >> 4 & 1);
	sv->cache = 2 * MAX_ACCEPTS;
	sv->max_per_source = b >> 6 & 1;
	cfg.backend_pool = b >> 5 & 1 ? 2 : 0;
	log_level = LOG_DEBUG;
	fake_reset();
	fake_now = 1000000;
	conn_now = fake_now;
	conn_draining = 0;
	saved = boot_session;
	have_saved = seq_base == 0;
	seq = seq_base;
	for (int c = 0; c < NCONN; c++)
		memset(&conns[c], 0, offsetof(struct fconn, iobuf));
	/*
	 * The engines draw from tls.c's one generator: seeded afresh, and
	 * the session caches (in fakeport.c's shared block) as boot() left
	 * them, every run takes the same path whatever ran before.
	 */
	if (tls_init(&cfg, 1, &why) < 0) {
		fprintf(stderr, "tls_init: %s\n", why);
		abort();
	}
	if (boot_caches_len > 0)
		memcpy(fake_shared(&n), boot_caches, boot_caches_len);
	if (!loaded) {
		if (tls_load(&cfg, err, sizeof(err)) < 0) {
			fprintf(stderr, "tls_load: %s\n", err);
			abort();
		}
		tls_commit();
	}
	loaded = 1;
	slot_table_init(&cfg);
}

static void
run_op(struct input *in)
{
	unsigned b = next(in), op = b & 15, v = b >> 6;
	struct fconn *k = &conns[b >> 4 & 3];
	int live = k->used && fake_is_open(k->cfd);
	int bfd = k->used ? fake_backend_of(k->cfd, 0) : -1;
	const uint8_t *p;
	size_t n;

	if (bfd >= 0 && !fake_is_open(bfd))
		bfd = -1;
	if (fake_verbose)
		fprintf(stderr, "op %u conn %d v %u at %zu\n", op,
		    (int)(k - conns), v, in->off - 1);
	switch (op) {
	case 0:		/* accept a client: resumes boot()'s session, v == 3: full */
		if (k->used && !live)
			check_streams(k);
		accept_client((int)(k - conns), v != 3);
		break;
	case 1:		/* the client sends plaintext; v == 3: one byte, many times */
		n = next(in) + 1 + 256 * (size_t)v;
		if (v == 3) {
			unsigned char fill[16384];

			n = (n - 768) * 64;
			memset(fill, (int)next(in), n);
			if (k->used)
				client_send(k, fill, n);
			break;
		}
		p = take(in, &n);
		if (k->used)
			client_send(k, p, n);
		break;
	case 2: {	/* deliver records: arg bytes (0: all); v & 1: flip one */
		size_t want = next(in), pos = v & 1 ? next(in) : 0;
		unsigned x = v & 1 ? next(in) | 1 : 0;

		if (k->used)
			client_deliver(k, want, pos, x);
		break;
	}
	case 3:		/* raw bytes toward the server */
		n = next(in) + 1;
		p = take(in, &n);
		if (live)
			(void)fake_push(k->cfd, p, n);
		break;
	case 4:		/* client ends: 0 EOF, 1 close_notify, 2 reset, 3 both */
		if (!live)
			break;
		if (v & 1) {
			br_ssl_engine_close(&k->cc.eng);
			client_deliver(k, 0, 0, 0);
		}
		if (v == 0 || v == 3)
			fake_peer_eof(k->cfd);
		if (v == 2)
			fake_peer_reset(k->cfd);
		break;
	case 5:		/* how much the client socket takes */
		n = cap_of(next(in));
		if (live)
			fake_set_cap(k->cfd, n);
		break;
	case 6:		/* the backend sends bytes from the input */
		n = next(in) + 1 + 256 * (size_t)v;
		p = take(in, &n);
		if (bfd >= 0)
			(void)fake_push(bfd, p, n);
		break;
	case 7:		/* how much the backend socket takes */
		n = cap_of(next(in));
		if (bfd >= 0)
			fake_set_cap(bfd, n);
		break;
	case 8:		/* the backend ends: v & 1 reset, else EOF */
		if (bfd >= 0 && (v & 1))
			fake_peer_reset(bfd);
		else if (bfd >= 0)
			fake_peer_eof(bfd);
		break;
	case 9:		/* next connects: ok, fail, refused, hang */
		fake_connect_mode((int)v);
		break;
	case 10:	/* time passes: up to about 9 minutes */
		n = next(in);
		fake_now += (uint64_t)n * n * 8;
		break;
	case 11:	/* a poll turn; v == 3: SIGTERM (draining) first */
		if (v == 3 && !conn_draining) {
			conn_draining = 1;
			/* Downwards: a slot that closes takes the last one's place. */
			for (unsigned i = slot_set.nlive; i-- > 0;) {
				struct conn *c = slot_set.live[i];

				fake_set_owner(c->cfd);
				c->cls->drain(c);
			}
		}
		turn();
		break;
	case 12:	/* drain time is up: every slot aborted */
		if (v != 3)
			break;
		while (slot_set.nlive > 0) {
			struct conn *c = slot_set.live[0];

			fake_set_owner(c->cfd);
			c->cls->abort(c, "drain-timeout");
		}
		break;
	case 13:	/* the backend sends a canned response */
		if (bfd >= 0)
			(void)fake_push(bfd, responses[v], strlen(responses[v]));
		break;
	case 14:	/* the client sends a canned request */
		if (k->used)
			client_send(k, requests[v], strlen(requests[v]));
		break;
	case 15:	/* settle: deliver everything and turn, a few times */
		for (int r = 0; r < SETTLE_ROUNDS; r++) {
			for (int c = 0; c < NCONN; c++)
				if (conns[c].used)
					client_deliver(&conns[c], 0, 0, 0);
			turn();
		}
		break;
	}
	check_tables();
}

static void
run(const uint8_t *data, size_t size)
{
	struct input in = { data, size, 0 };

	setup(&in);
	while (in.off < in.len)
		run_op(&in);
	/* The end: every deadline passes, every slot must come free and
	 * every idle backend connection age out, closing its socket. */
	for (int r = 0; r < 4 && (slot_set.nlive > 0 ||
	    fake_open_count() > 0); r++) {
		fake_now += 3600 * 1000;
		turn();
	}
	check(slot_set.nlive == 0);
	check(fake_open_count() == 0);
	for (int c = 0; c < NCONN; c++)
		if (conns[c].used)
			check_streams(&conns[c]);
	for (int c = 0; c < NCONN && fake_verbose; c++) {
		int bfd = conns[c].used ? fake_backend_of(conns[c].cfd, 0) : -1;
		size_t n = 0, m = 0, r = 0;

		if (bfd >= 0) {
			(void)fake_written(bfd, &n);
			(void)fake_sent(bfd, &m, &r);
		}
		if (conns[c].used)
			fprintf(stderr, "conn %d: client sent %zu got %zu, "
			    "backend got %zu sent %zu (%zu read)\n", c,
			    conns[c].plain_len, conns[c].rx_len, n, m, r);
	}
}

/*
 * Once: the client's known key, and one full handshake whose session
 * every run may resume, so that most runs skip the costly full
 * handshake.  Its seeds differ from any run's, and the cache has room
 * for every session ID a run can make, so no run depends on another.
 */
static void
boot(void)
{
	static const uint8_t prog[] = { 0, 0, 0x40, 0x0f };
	static br_ec_public_key pub;
	const void *caches;

	fake_verbose = getenv("FUZZ_SLOT_VERBOSE") != NULL;
	pub.curve = BR_EC_secp256r1;
	pub.q = (unsigned char *)(uintptr_t)fake_ec_pub;
	pub.qlen = sizeof(fake_ec_pub);
	br_x509_knownkey_init_ec(&known, &pub, BR_KEYTYPE_KEYX | BR_KEYTYPE_SIGN);
	seq_base = 100;
	verify_sigs = 1;
	run(prog, sizeof(prog));
	verify_sigs = 0;
	check(have_saved);
	boot_session = saved;
	caches = fake_shared(&boot_caches_len);
	check(boot_caches_len > 0 && boot_caches_len <= sizeof(boot_caches));
	memcpy(boot_caches, caches, boot_caches_len);
	seq_base = 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int booted;

	if (!booted)
		boot();
	booted = 1;
	run(data, size);
	return 0;
}
