/* SPDX-License-Identifier: ISC */
/*
 * pend.h - the pending table: clients accepted, not yet given a slot.
 *
 * An accepted connection waits here, in an entry of a few tens of
 * bytes, until its first message is whole in the kernel's receive
 * buffer (looked at with MSG_PEEK, nothing read): the ClientHello on a
 * TLS address, after the PROXY header a proxy_from source owes; the
 * request head on a redirect address.  Only then does it take a slot,
 * and the handshake starts on a whole hello.  A slow or silent client
 * so costs an entry, not a slot: FreeBSD's accf_data and accf_http do
 * this in the kernel; Linux's TCP_DEFER_ACCEPT waits for one byte only.
 * The kernel widens a receive window only as its application reads: a
 * hello longer than a record gets the socket room for all of it
 * (port_rcvbuf()), or the longest ones would stop at the first window.
 *
 * Bounds: an entry whose message never completes is closed at its
 * service's handshake_timeout (head_timeout on a redirect address,
 * where a partial head then goes to a slot for its 408), counted from
 * accept; when the table is full, a new client closes the
 * entry that has waited longest.  Neither has cost any CPU but a peek.
 *
 * Which ready entry gets the next slot is the overload policy, in
 * loop.c.  What is not whole is judged by the slot: a message
 * that can never be whole (not a hello, too long, a bad PROXY header)
 * counts as ready, so that every refusal is made, and logged, in one
 * place.
 */
#ifndef TLSGATE_PEND_H
#define TLSGATE_PEND_H

#include <stdint.h>

#include "conn.h"
#include "port.h"

struct pend {
	struct conn	 c;		/* first: see conn.h */
	uint64_t	 t_ready;	/* the message became whole; 0: not */
	uint8_t		 ip[16];	/* the TCP peer, port_addr_raw()'s */
	uint32_t	 len;		/* bytes seen at the last peek */
	uint16_t	 port;
	unsigned char	 iplen;		/* 4 or 16 */
	unsigned char	 svc;		/* index into config.svc[] */
	unsigned char	 plain;		/* from a redirect address */
	unsigned char	 proxy;		/* a PROXY header is owed first */
	unsigned char	 lowat;		/* port_rcvlowat() was called */
	unsigned char	 stalled;	/* the last look found nothing new */
	unsigned char	 room;		/* port_rcvbuf() was called */
};

/* n entries, for the services of conn_cfg (conn.h). */
void	pend_init(unsigned n);
extern struct connset pend_set;

/*
 * A new client (peer: its TCP peer).  With the table full, the entry
 * that has waited longest is closed first (outcome=evicted).
 */
void	pend_add(int fd, const struct port_addr *peer, unsigned svc, int plain);
/* How many entries of the kind have a whole message. */
unsigned pend_ready(int plain);
/*
 * The ready entry that has waited longest among the plain or the TLS
 * ones, or with lifo the newest; NULL if none.
 */
struct pend *pend_pick(int plain, int lifo);
/* Close an entry (abort: with a reset) and log it with the outcome. */
void	pend_close(struct pend *, const char *outcome, int abort);
/* The entry's TCP peer. */
void	pend_peer(const struct pend *, struct port_addr *);
/* Take the entry out of the table: its fd. */
int	pend_take(struct pend *);

#endif
