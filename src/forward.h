/*
 * forward.h - what the client's plaintext becomes on its way to the
 * backend: raw bytes (tcp mode, optionally behind a PROXY protocol
 * header), or, in http mode, one strictly parsed and rewritten request
 * head after another, each followed by exactly the body its framing
 * says.
 *
 * Owns the per-request state in struct slot (phase, head buffer, body
 * counters).  Never allocates, never copies a body: bodies go from the
 * TLS engine's buffer straight to the backend socket; only heads are
 * staged.  Never lets a byte through that the parser did not frame.
 */
#ifndef TLSGATE_FORWARD_H
#define TLSGATE_FORWARD_H

#include "slot.h"

/* The handshake is done: pick the first phase. */
void	fwd_begin(struct slot *);
/* The backend is connected (queues a PROXY header in tcp mode). */
void	fwd_connected(struct slot *);
/*
 * Move what can move toward the backend now; st is the engine state.
 * Returns 1 if anything moved.  May call slot_backend_connect() or
 * slot_http_error().
 */
int	fwd_client(struct slot *, unsigned st);
/* The backend sent these bytes to the client (watches for 101). */
void	fwd_backend_bytes(struct slot *, const unsigned char *, size_t);
/* The backend is gone: the status to answer with (502), or 0. */
int	fwd_backend_gone(const struct slot *);

#endif
