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
 *
 * Bounds: an entry whose message never completes is closed at its
 * service's handshake_timeout (head_timeout on a redirect address),
 * counted from accept; when the table is full, a new client closes the
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

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "port.h"

struct pend {
	int		 fd;
	int		 pi;		/* its row in the poll table, or -1 */
	uint64_t	 t_accept;
	uint64_t	 t_ready;	/* the message became whole; 0: not */
	uint8_t		 ip[16];	/* the TCP peer, port_addr_raw()'s */
	uint16_t	 port;
	uint16_t	 len;		/* bytes seen at the last peek */
	unsigned char	 iplen;		/* 4 or 16 */
	unsigned char	 svc;		/* index into config.svc[] */
	unsigned char	 plain;		/* from a redirect address */
	unsigned char	 proxy;		/* a PROXY header is owed first */
	unsigned char	 lowat;		/* port_rcvlowat() was called */
};

void	pend_init(unsigned n);
size_t	pend_table_bytes(unsigned n);
size_t	pend_static_bytes(void);	/* the one peek buffer */
unsigned pend_count(void);
struct pend *pend_at(unsigned i);

/*
 * A new client (peer: its TCP peer).  With the table full, the entry
 * that has waited longest is closed first (outcome=evicted).
 */
void	pend_add(const struct config *, int fd, const struct port_addr *peer,
	    unsigned svc, int plain);
/*
 * Entry i was readable: look at what it sent.  It stays (not whole
 * yet), becomes ready, or is closed (EOF, reset).  Removing an entry
 * moves the last one into its place.
 */
void	pend_peek(const struct config *, unsigned i);
/* Until when entry i may wait for its message. */
uint64_t pend_deadline(const struct config *, const struct pend *);
/* Close entry i (abort: with a reset) and log it with the outcome. */
void	pend_close(const struct config *, unsigned i, const char *outcome,
	    int abort);
/*
 * The ready entry that has waited longest among the plain or the TLS
 * ones, or with lifo the newest; -1 if none.  *nready: how many are.
 */
int	pend_pick(int plain, int lifo, unsigned *nready);
/* Entry i's TCP peer. */
void	pend_peer(const struct pend *, struct port_addr *);
/* Take entry i out of the table: its fd. */
int	pend_take(unsigned i);

#endif
