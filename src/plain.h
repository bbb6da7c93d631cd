/* SPDX-License-Identifier: ISC */
/*
 * plain.h - the plain-HTTP port (a service's `redirect` addresses).
 *
 * Admins type the device's address without https://.  Every request
 * read here gets 308 Permanent Redirect to the same host and target on
 * the service's TLS port; with acme_passthrough, a GET or HEAD for
 * /.well-known/acme-challenge/ goes to the service's backend instead, so
 * that an ACME client on the device can prove the name (RFC 8555 8.3).
 *
 * One request a connection (every answer ends it).  A plain slot has no
 * TLS context and no TLS buffers: one head buffer, which then holds the
 * answer, ours or the backend's on its way.  The head is parsed by the
 * same strict parser as on TLS; the timeouts, per-source limit and
 * eviction are the TLS slots' (conn.c counts both tables).  A proxy_from
 * source's PROXY header is read first, as slot.c reads it before a hello.
 *
 *   HEAD --308, 400, 408, 431--> WRITE --written--> LINGER
 *   HEAD --ACME--> CONNECT --> TOBACK --head written--> RELAY
 *   RELAY --backend EOF, answer written--> LINGER
 *   CONNECT, TOBACK --refused, timed out--> WRITE (502, 504)
 *   LINGER --client EOF or 2 s--> FREE
 */
#ifndef TLSGATE_PLAIN_H
#define TLSGATE_PLAIN_H

#include <stdint.h>

#include "conn.h"
#include "defaults.h"
#include "http.h"
#include "port.h"

enum plain_state {
	PLAIN_HEAD,		/* reading the request head */
	PLAIN_WRITE,		/* writing our answer */
	PLAIN_CONNECT,		/* ACME: backend connect pending */
	PLAIN_TOBACK,		/* ACME: writing the head to the backend */
	PLAIN_RELAY,		/* ACME: the backend's answer to the client */
	PLAIN_LINGER,		/* FIN sent: dropping input until EOF */
};

struct plain {
	struct conn		 c;		/* first: see conn.h */
	enum plain_state	 state;
	unsigned		 svc;		/* index in the config */
	/* The client and where it connected: a PROXY header's if any. */
	struct port_addr	 peer, local;
	struct port_addr	 via;		/* the TCP peer (a balancer) */
	int			 proxy;		/* a PROXY header is owed */
	int			 lb_local;	/* it was LOCAL: a health check */
	size_t			 len, off, scan; /* buf: filled, written, scanned */
	unsigned long long	 in, out;
	int			 status;
	unsigned char		 buf[TLSGATE_HEAD_MAX + HTTP_FWD_SLACK];
};

/* n plain slots, serving the services of conn_cfg (conn.h). */
void	plain_init(unsigned n);
/* As slot_open(), its head whole in the socket. */
struct plain *plain_open(int cfd, const struct port_addr *peer,
	    const struct port_addr *local, unsigned svc, uint64_t t_accept);
extern struct connset plain_set;

#endif
