/* SPDX-License-Identifier: ISC */
/*
 * slot.h - the connection slots: a static table, and one connection's
 * state machine from accept to close.
 *
 *   tcp:   HANDSHAKE --done--> CONNECT --connected--> RELAY
 *   http:  HANDSHAKE --done--> RELAY --first head--> CONNECT --connected-->
 *          RELAY (later requests reuse the backend connection)
 *
 *   RELAY --backend EOF, error page, idle timeout, drain--> CLOSING
 *   CONNECT --refused, timed out (http: after a 502/504)--> CLOSING
 *   CLOSING --close_notify out, client EOF--> FREE (2 s after our FIN:
 *     closed without a reset; close_notify not out in idle_timeout: reset)
 *   HANDSHAKE, RELAY --client EOF, nothing owed--> FREE
 *   HANDSHAKE --timeout--> FREE (reset)
 *   HANDSHAKE, from a proxy_from source: its PROXY header is read first,
 *     before the hello (bad: LINGER)
 *   any TLS failure --alert, FIN--> LINGER --client EOF or 2 s--> FREE
 *   any --evicted, shut down--> FREE (reset, unless LINGER)
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
#include "conn.h"
#include "defaults.h"
#include "forward.h"
#include "port.h"
#include "tls.h"

enum slot_state {
	SLOT_HANDSHAKE,		/* TLS handshake with the client */
	SLOT_CONNECT,		/* handshake done, backend connect pending */
	SLOT_RELAY,		/* plaintext both ways */
	SLOT_CLOSING,		/* close_notify queued; waiting to send it */
	SLOT_LINGER,		/* TLS failed: alert and FIN sent; dropping input */
};

/* flags */
#define SLOT_F_CRD	0x001	/* client readable: poll said so */
#define SLOT_F_CWB	0x002	/* client write blocked: wait for POLLOUT */
#define SLOT_F_BRD	0x004	/* backend readable: poll said so */
#define SLOT_F_BWB	0x008	/* backend write blocked: wait for POLLOUT */
#define SLOT_F_CEOF	0x010	/* client closed its side (TCP) */
#define SLOT_F_BEOF	0x020	/* backend closed its side, or failed */
#define SLOT_F_BSHUT	0x040	/* we shut the backend's write side */
#define SLOT_F_CSHUT	0x080	/* we shut (or lost) the client's write side */
#define SLOT_F_HSDONE	0x100	/* handshake completed */
#define SLOT_F_REUSED	0x200	/* the backend connection came from the pool */
#define SLOT_F_PROXY	0x400	/* a PROXY header is owed (proxy_from) */
#define SLOT_F_LOCAL	0x800	/* it was LOCAL: the balancer's own check */

struct slot {
	struct conn		 c;		/* first: see conn.h */
	struct tls_conn		 tls;
	enum slot_state		 state;
	unsigned		 flags;
	unsigned long long	 c2b, b2c;	/* plaintext bytes */
	/* Record bytes read ahead of what the engine asked for, in ibuf. */
	size_t			 ra_off, ra_len;
	int			 err;		/* the engine's, if no outcome */
	unsigned		 alert;		/* the fatal alert sent, or 0 */
	int			 status;	/* our own HTTP answer, if any */
	/* The client and where it connected: a PROXY header's if any. */
	struct port_addr	 peer, local;
	struct port_addr	 via;		/* the TCP peer (a balancer) */
	const struct service	*svc;
	int			 pending_status; /* our page, at backend EOF */
	struct fwd		 fwd;
	unsigned char		 ibuf[ENG_IBUF_SIZE];
	unsigned char		 obuf[TLSGATE_OBUF_SIZE];
};

/*
 * Configure the first cfg->slots slots (TLS contexts included).  The
 * services a slot serves come with each slot_open().
 */
void	slot_table_init(const struct config *);
/*
 * Take a free slot (the caller made sure one is) for a client accepted
 * at t_accept, its hello whole in the socket (pend.h).  The loop runs it
 * through its class (conn.h).
 */
struct slot *slot_open(int cfd, const struct port_addr *peer,
	    const struct port_addr *local, const struct service *,
	    uint64_t t_accept);
/* The live slots and the free ones. */
extern struct connset slot_set;

#endif
