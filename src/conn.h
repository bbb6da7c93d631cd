/* SPDX-License-Identifier: ISC */
/*
 * conn.h - what the loop knows of a connection, whatever its kind.
 *
 * Three kinds of connection share the loop: a pending entry (pend.h),
 * waiting for its first message; a TLS slot (slot.h); a plain slot
 * (plain.h).  Each begins with a struct conn, whose class says how to
 * poll it, run it, time it out, drain it and abort it: BearSSL's class
 * idiom, a const table of functions the object points to.  The loop
 * (loop.c) sees only this header's types, and runs each pass once over
 * every live connection; another kind later is a class, not a copy.
 *
 * Each kind keeps its objects in a connset: caller-owned static storage
 * and a stack of free entries, in the shape of skalibs's genset, plus
 * the dense list of live ones the loop walks.  Never allocates.
 *
 * Typical use, in a kind's module:
 *
 *	static struct slot tab[TLSGATE_MAX_SLOTS];
 *	static struct conn *live[TLSGATE_MAX_SLOTS];
 *	static uint32_t freel[TLSGATE_MAX_SLOTS];
 *	struct connset slot_set = CONNSET(tab, live, freel);   for loop.c
 *
 *	connset_init(&slot_set, &slot_class, n);
 *	struct slot *s = (struct slot *)connset_new(&slot_set);   NULL: full
 *	...
 *	connset_delete(&slot_set, &s->c);
 */
#ifndef TLSGATE_CONN_H
#define TLSGATE_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "hello.h"
#include "port.h"

#define CONN_FREE	UINT32_MAX	/* conn.pos of an entry not in use */
/*
 * After our close_notify, fatal alert or last byte: how long the peer
 * has to close.  Meanwhile what it sends is read and dropped, so that
 * the kernel does not answer it with a reset while our last bytes are
 * on their way.
 */
#define CONN_LINGER_MS	2000

struct conn;

struct conn_class {
	/* What each socket waits for (PORT_IN, PORT_OUT; 0: not polled). */
	void	(*events)(const struct conn *, short *cev, short *bev);
	/* Readiness from poll (0 for a side not polled): run it. */
	void	(*io)(struct conn *, int crev, int brev);
	/* Its deadline passed: act on it (timeouts, linger end). */
	void	(*expire)(struct conn *);
	/* SIGTERM: end it now if no request is under way; NULL: always. */
	void	(*drain)(struct conn *);
	/* Close it at once with an outcome (eviction, shutdown). */
	void	(*abort)(struct conn *, const char *outcome);
	/*
	 * Since when it has been waiting for its client (a handshake, a
	 * request head), the order of eviction: 0 first (nothing left to
	 * serve), UINT64_MAX never.
	 */
	uint64_t (*wait_since)(const struct conn *);
	/* Whether its next I/O may cost public-key work; NULL: never. */
	int	(*costly)(const struct conn *);
	/*
	 * The client it serves, for max_per_source; NULL for a kind that
	 * serves nobody yet (a pending entry is counted when it is taken).
	 */
	const struct port_addr *(*peer)(const struct conn *);
};

struct conn {
	const struct conn_class	*cls;
	int			 cfd, bfd;	/* client, backend; -1: none */
	int			 ci, bi;	/* rows in this turn's poll table */
	uint32_t		 id;		/* index in its set's storage */
	uint32_t		 pos;		/* in its set's live list */
	uint64_t		 t_accept, deadline;
	const char		*outcome;	/* why it ends; first one wins */
};

struct connset {
	unsigned char	*storage;
	size_t		 esize;
	struct conn	**live;
	uint32_t	*freel;
	uint32_t	 nfree, nlive;
};

#define CONNSET(tab, live, freel) \
	{ (unsigned char *)(tab), sizeof((tab)[0]), (live), (freel), 0, 0 }

/*
 * The first n entries of the storage, every one free, of class cls.
 * n must not exceed the storage's.
 */
void	connset_init(struct connset *, const struct conn_class *, uint32_t n);
/* A free entry, now live (its kind fills it); NULL when none is free. */
struct conn *connset_new(struct connset *);
/*
 * Back to the free ones.  The last live entry takes its place in the
 * live list: walk it backwards to delete while walking.
 */
void	connset_delete(struct connset *, struct conn *);
/* The live entry waiting longest, if it has since before the bound. */
struct conn *connset_oldest_waiting(const struct connset *, uint64_t before);
/* Bytes a set of n entries of esize costs, its two lists included. */
size_t	connset_bytes(size_t esize, uint32_t n);

/*
 * Live connections of every set whose class has a peer, from the same
 * IP address as peer: max_per_source counts them all, whatever kind.
 */
unsigned conn_count_peer(const struct port_addr *peer);

/*
 * A proxy_from source's PROXY header (proxyin.h) at the start of
 * buf[0..*len).  CONN_PROXY_MORE: not whole yet.  CONN_PROXY_OK: taken
 * out of buf; *peer and *local are the addresses it carries, unless it
 * was LOCAL (a balancer's health check: *lb_local is set).
 * CONN_PROXY_BAD (a bad header) and CONN_PROXY_LIMIT (its client is
 * over svc's max_per_source) set the outcome: the caller ends the
 * connection, with no TLS alert: its peer has not spoken TLS.
 */
#define CONN_PROXY_OK		1
#define CONN_PROXY_MORE		0
#define CONN_PROXY_BAD		(-1)
#define CONN_PROXY_LIMIT	(-2)
int	conn_take_proxy(struct conn *, const struct service *svc,
	    unsigned char *buf, size_t *len, struct port_addr *peer,
	    struct port_addr *local, int *lb_local);

/* The loop's clock: set once per turn, read by every connection. */
extern uint64_t conn_now;
/* This process's worker number (0 without workers), for the logs. */
extern unsigned conn_worker;
/* Set at SIGTERM: new requests get 503. */
extern int conn_draining;
/*
 * The loop's scratch, one user at a time inside a call: a first flight
 * (pend.c), a hello longer than a slot's ibuf (slotin.c), the engine's
 * second hello (tls_hello()).
 */
extern unsigned char conn_scratch[PROXYIN_MAX + HELLO_WIRE_MAX];
/*
 * The config the connections serve, set by the loop at start and at a
 * reload (which keeps the services, by name and count: only their
 * values change).
 */
extern const struct config *conn_cfg;

/* Record why a connection ends; the first reason (not NULL) wins. */
void	conn_set_outcome(struct conn *, const char *why);
/*
 * The fields every kind's closing line starts with, into buf (of at
 * least CONN_LOG_HEAD bytes): "<kind> id=<id, or - for a connection in
 * no slot> worker= svc= peer=[ via=] ms=", via only for a balancer of
 * the service (proxy_from).  The kind's own fields follow, one parser
 * reading them all.
 */
#define CONN_LOG_HEAD	256
void	conn_log_head(char *buf, const struct conn *, const char *kind,
	    int slotted, const struct service *, const struct port_addr *peer,
	    const struct port_addr *via);

#endif
