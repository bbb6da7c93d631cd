/* SPDX-License-Identifier: ISC */
/*
 * loop.h - the one poll() loop.
 *
 * Owns the pollfd array (rebuilt each turn from the slots' states),
 * accepting, deadlines, signals and the stats socket, and which
 * pending client (pend.h) gets a slot when: the overload policy.  Never
 * allocates; never blocks anywhere but in poll().
 */
#ifndef TLSGATE_LOOP_H
#define TLSGATE_LOOP_H

#include "config.h"

struct listener {
	int		fd;
	unsigned	svc;		/* index into config.svc[] */
	int		plain;		/* a redirect address (plain.h) */
};

/*
 * Run until SIGTERM/SIGINT and the drain are over.  stats_fd is a
 * listening socket for the stats text, or -1.  reload re-reads the
 * configuration (SIGHUP): it returns the new one, now in force, or NULL
 * (the old one stays; the reason was logged).  Returns the exit code.
 */
int	loop_run(const struct config *, const struct listener *, unsigned n,
	    int stats_fd, const struct config *(*reload)(void));
size_t	loop_static_bytes(void);

#endif
