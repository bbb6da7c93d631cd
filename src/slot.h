/*
 * slot.h - the connection slots: a static table, and one connection's
 * state machine from accept to close.
 *
 *   HANDSHAKE --done--> CONNECT --connected--> RELAY --backend EOF-->
 *   CLOSING --close_notify sent and client gone--> FREE
 *
 * Owns every byte of a connection: the TLS engine and its buffers, the
 * client and backend sockets, deadlines and counters.  Never allocates;
 * never grows a buffer: a side that cannot take more data simply stops
 * the other side from being read (backpressure through the engine).
 */
#ifndef TLSGATE_SLOT_H
#define TLSGATE_SLOT_H

#include <stdint.h>

#include "config.h"
#include "defaults.h"
#include "port.h"
#include "tls.h"

enum slot_state {
	SLOT_FREE,
	SLOT_HANDSHAKE,		/* TLS handshake with the client */
	SLOT_CONNECT,		/* handshake done, backend connect pending */
	SLOT_RELAY,		/* plaintext both ways */
	SLOT_CLOSING,		/* close_notify queued; waiting to send it */
};

struct slot {
	struct tls_conn		 tls;
	enum slot_state		 state;
	int			 cfd, bfd;
	unsigned		 flags;
	unsigned		 id;
	uint64_t		 t_accept, deadline;
	unsigned long long	 c2b, b2c;	/* plaintext bytes */
	/* Record bytes read ahead of what the engine asked for, in ibuf. */
	size_t			 ra_off, ra_len;
	const char		*outcome;
	struct port_addr	 peer, local;
	unsigned char		 ibuf[BR_SSL_BUFSIZE_INPUT];
	unsigned char		 obuf[TLSGATE_OBUF_SIZE];
};

struct slot_stats {
	unsigned long long	accepted, closed, handshakes, resumed;
	unsigned long long	tls_errors, timeouts, backend_errors, evicted;
	unsigned		live, high_water;
};
extern struct slot_stats slot_stats;
/* The loop's clock: set once per turn, read by every slot. */
extern uint64_t slot_now;

/* Configure the first cfg->slots slots (TLS contexts included). */
void	slot_table_init(const struct config *);
/* Take a free slot for a new client; NULL when the table is full. */
struct slot *slot_open(int cfd, const struct port_addr *peer,
	    const struct port_addr *local);
unsigned slot_free_count(void);
/* The slot longest in its handshake, accepted no later than the bound. */
struct slot *slot_oldest_handshake(uint64_t accepted_before);
/* Live slots whose client has this IP address. */
unsigned slot_count_peer(const struct port_addr *);
unsigned slot_live_count(void);
struct slot *slot_live(unsigned i);

/* What each socket waits for, from the engine state and relay flags. */
void	slot_events(const struct slot *, short *cev, short *bev);
/* Readiness from poll (0 for a side not polled); runs the slot. */
void	slot_io(struct slot *, short crev, short brev);
/* Deadline passed: act on it (timeouts, linger end). */
void	slot_expire(struct slot *);
/* Close with an outcome, for shutdown. */
void	slot_abort(struct slot *, const char *outcome);

size_t	slot_table_bytes(unsigned nslots);

#endif
