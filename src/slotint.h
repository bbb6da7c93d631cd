/* SPDX-License-Identifier: ISC */
/*
 * slotint.h - what slot.c, slotin.c and slotio.c share of a TLS slot, for
 * those files only: slot.h is the loop's contract.
 */
#ifndef TLSGATE_SLOTINT_H
#define TLSGATE_SLOTINT_H

#include <stddef.h>

#include "slot.h"

/*
 * Our last bytes are written: send FIN, and read and drop what the
 * client still sends until it closes or CONN_LINGER_MS pass.
 */
void	slotin_linger(struct slot *);
/* Read the client into dst[0..room). */
size_t	slotin_read(struct slot *, unsigned char *dst, size_t room);
/*
 * The first flight, while the engine peeks: read what the client sent,
 * then the PROXY header owed, if any, and the hello.  1 if anything
 * moved; 0 to wait, or when the slot ended (it lingers).
 */
int	slotin_hello(struct slot *);
/* The client closed before its hello was whole: the outcome that says so. */
void	slotin_eof(struct slot *);

/*
 * slotio.c: the relay's moves, each given the engine state st; 1 if
 * anything moved.
 */
int	to_client(struct slot *, unsigned st);
int	from_client(struct slot *, unsigned st);
int	from_backend(struct slot *, unsigned st);
/* May the request go again on a fresh backend connection? */
int	retryable(const struct slot *);
/* A reset from the backend. */
void	backend_lost(struct slot *);

#endif
