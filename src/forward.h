/* SPDX-License-Identifier: ISC */
/*
 * forward.h - what the client's plaintext becomes on its way to the
 * backend: raw bytes (tcp mode, optionally behind a PROXY protocol
 * header), or, in http mode, one strictly parsed and rewritten request
 * head after another, each followed by exactly the body its framing
 * says.
 *
 * Owns struct fwd and nothing else: it reads the connection's struct
 * fwd_peer (service, addresses, engine) but knows no slot: never its
 * state, its sockets or its deadlines.  Each call returns a verdict that
 * slot.c acts on.  Never allocates,
 * never copies a body: bodies go from the TLS engine's buffer straight to
 * the backend socket; only heads are staged.  Never lets a byte through
 * that the parser did not frame.
 */
#ifndef TLSGATE_FORWARD_H
#define TLSGATE_FORWARD_H

#include <stdint.h>

#include "defaults.h"
#include "http.h"

struct port_addr;
struct service;
struct tls_conn;

/* The connection a struct fwd serves, as its slot holds it. */
struct fwd_peer {
	const struct service	*svc;
	const struct port_addr	*peer, *local;
	const struct tls_conn	*tls;		/* the client's certificate */
};

enum fwd_phase {
	FWD_RAW,		/* bytes as they come (tcp mode, upgraded) */
	FWD_HEAD,		/* staging a request head in hbuf */
	FWD_HEAD_OUT,		/* writing the rewritten head from hbuf */
	FWD_BODY,		/* body bytes, body_left at a time */
	FWD_PAUSED,		/* upgrade asked: wait for the backend's status */
	FWD_DONE,		/* no more requests: discard what comes */
};

/* What the backend's bytes are (http mode; tcp mode is FWD_R_RAW). */
enum fwd_resp {
	FWD_R_NONE,		/* no answer owed: a byte now is unasked for */
	FWD_R_HEAD,		/* a response head, staged in hbuf */
	FWD_R_BODY,		/* resp_left bytes of a Content-Length body */
	FWD_R_CHUNKED,		/* a chunked body, walked */
	FWD_R_RAW,		/* unframed: only the backend's EOF ends it */
};

struct fwd {
	enum fwd_phase		 phase;
	size_t			 hlen, hscan;	/* head bytes staged, scanned */
	size_t			 hout_off, hout_len; /* hbuf bytes to write */
	uint64_t		 t_head;	/* first byte of the head */
	uint64_t		 body_left;	/* may pass before re-parsing */
	int			 body_chunked, body_end, keep_alive, upgrade;
	struct http_chunk	 chunk;
	unsigned		 nreq;		/* requests forwarded */
	int			 awaiting;	/* no response byte since */
	int			 status;	/* FWD_REFUSE: answer this */
	const char		*why;		/* FWD_REFUSE: log this */
	enum fwd_resp		 resp;
	uint64_t		 resp_left;
	struct http_chunk	 rchunk;
	size_t			 rlen, rscan;	/* response head staged, scanned */
	int			 head_req;	/* the answer owed is to a HEAD */
	int			 last_req;	/* ... to a request the backend
						   may close after */
	int			 reuse;		/* the backend may serve another */
	size_t			 retry_len;	/* hbuf still holds this head */
	unsigned char		 hbuf[TLSGATE_HEAD_MAX + HTTP_FWD_SLACK +
				    HTTP_CERT_SLACK + HTTP_CHAIN_SLACK];
};

/* What the slot must do after a forwarding call. */
enum fwd_verdict {
	FWD_IDLE,		/* nothing can move until more comes */
	FWD_MOVED,		/* bytes were staged or dropped: call again */
	FWD_WRITE,		/* write buf to the backend, then fwd_wrote() */
	FWD_READY,		/* a head is ready: it needs a backend */
	FWD_REFUSE,		/* answer status, log why, end the connection */
	FWD_LAST,		/* last request through: shut the backend's write */
};

/* A new connection: the first phase, by the service's mode. */
void	fwd_begin(struct fwd *, const struct service *);
/* The backend is connected (queues a PROXY header in tcp mode). */
void	fwd_connected(struct fwd *, const struct fwd_peer *);
/*
 * What the client's plaintext in[0..inlen) (in NULL: none is ready)
 * asks for now.  The first *used bytes of it are taken: the caller gives
 * them back to the engine.  FWD_WRITE sets *buf and *len.
 */
enum fwd_verdict fwd_client(struct fwd *, const struct fwd_peer *,
	    const unsigned char *in, size_t inlen, size_t *used,
	    const unsigned char **buf, size_t *len);
/*
 * n bytes of the FWD_WRITE went out: FWD_MOVED or FWD_LAST; *used of
 * them were the client's plaintext.
 */
enum fwd_verdict fwd_wrote(struct fwd *, size_t n, size_t *used);
/*
 * The backend sent these bytes to the client: they are framed as
 * responses (a copy of each head is parsed) but never held back.
 */
void	fwd_backend_bytes(struct fwd *, const unsigned char *, size_t);
/* Refused or ending: no more requests; what comes is dropped. */
void	fwd_stop(struct fwd *);
/* Stage again the head retry_len keeps, for a fresh backend; its length. */
size_t	fwd_retry(struct fwd *);

/* Since when a request head has been arriving; UINT64_MAX: none is. */
uint64_t fwd_head_since(const struct fwd *);
/* Between two requests (http mode), nothing of the next one read. */
int	fwd_between(const struct fwd *);

enum fwd_answer {
	FWD_ANS_DONE,		/* every request sent has its whole answer */
	FWD_ANS_OWED,		/* an answer is coming, with known framing */
	FWD_ANS_EOF,		/* only the backend's EOF can end it */
};
enum fwd_answer fwd_answer(const struct fwd *);

#endif
