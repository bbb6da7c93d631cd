/*
 * forward.h - what the client's plaintext becomes on its way to the
 * backend: raw bytes (tcp mode, optionally behind a PROXY protocol
 * header), or, in http mode, one strictly parsed and rewritten request
 * head after another, each followed by exactly the body its framing
 * says.
 *
 * Owns struct fwd and nothing else: it reads the slot (engine, service,
 * addresses) but never changes its state, its sockets or its deadlines.
 * Each call returns a verdict that slot.c acts on.  Never allocates,
 * never copies a body: bodies go from the TLS engine's buffer straight to
 * the backend socket; only heads are staged.  Never lets a byte through
 * that the parser did not frame.
 */
#ifndef TLSGATE_FORWARD_H
#define TLSGATE_FORWARD_H

#include <stdint.h>

#include "defaults.h"
#include "http.h"

struct slot;

enum fwd_phase {
	FWD_RAW,		/* bytes as they come (tcp mode, upgraded) */
	FWD_HEAD,		/* staging a request head in hbuf */
	FWD_HEAD_OUT,		/* writing the rewritten head from hbuf */
	FWD_BODY,		/* body bytes, body_left at a time */
	FWD_PAUSED,		/* upgrade asked: wait for the backend's status */
	FWD_DONE,		/* no more requests: discard what comes */
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
	unsigned char		 stash[16];	/* start of an upgrade answer */
	size_t			 stash_len;
	unsigned char		 hbuf[TLSGATE_HEAD_MAX + HTTP_FWD_SLACK];
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

/* The handshake is done: pick the first phase. */
void	fwd_begin(struct slot *);
/* The backend is connected (queues a PROXY header in tcp mode). */
void	fwd_connected(struct slot *);
/*
 * What the client's plaintext (st: the engine state) asks for now.
 * FWD_WRITE sets *buf and *len.
 */
enum fwd_verdict fwd_client(struct slot *, unsigned st,
	    const unsigned char **buf, size_t *len);
/* n bytes of the FWD_WRITE went out: FWD_MOVED or FWD_LAST. */
enum fwd_verdict fwd_wrote(struct slot *, size_t n);
/* The backend sent these bytes to the client (watches for 101). */
void	fwd_backend_bytes(struct fwd *, const unsigned char *, size_t);
/* Refused or ending: no more requests; what comes is dropped. */
void	fwd_stop(struct fwd *);

/* Since when a request head has been arriving; UINT64_MAX: none is. */
uint64_t fwd_head_since(const struct fwd *);
/* Between two requests (http mode), nothing of the next one read. */
int	fwd_between(const struct fwd *);
/* Is a request's answer still owed by the backend? */
int	fwd_awaiting(const struct fwd *);
/* Anything staged still to be written to the backend? */
int	fwd_staged(const struct fwd *);

#endif
