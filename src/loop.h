/*
 * loop.h - the one poll() loop.
 *
 * Owns the pollfd array (rebuilt each turn from the slots' states),
 * accepting, deadlines and signals.  The listener is polled only while
 * a slot is free, so excess clients wait in the kernel's backlog.
 * Never allocates; never blocks anywhere but in poll().
 */
#ifndef TLSGATE_LOOP_H
#define TLSGATE_LOOP_H

#include "config.h"

/* Run until SIGTERM/SIGINT and the drain are over.  Returns exit code. */
int	loop_run(const struct config *, int lfd);
size_t	loop_static_bytes(void);

#endif
