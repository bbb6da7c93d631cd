/* SPDX-License-Identifier: ISC */
/*
 * pool.c - see pool.h.
 *
 * Kept oldest first: put appends, take searches from the newest (the
 * warmest connection, and the others age out), sweep trims the front.
 */
#include <string.h>

#include "defaults.h"
#include "pool.h"
#include "port.h"

struct idle {
	int		 fd;
	const void	*key;
	uint64_t	 since;
};

static struct idle idle[TLSGATE_MAX_POOL];
static unsigned nidle, cap;

static void
drop(unsigned i)
{
	memmove(&idle[i], &idle[i + 1], (nidle - i - 1) * sizeof(idle[0]));
	nidle--;
}

void
pool_init(unsigned n)
{
	cap = n < TLSGATE_MAX_POOL ? n : TLSGATE_MAX_POOL;
	nidle = 0;
}

void
pool_put(int fd, const void *key, uint64_t now)
{
	if (nidle == cap) {
		port_close(fd, 0);
		return;
	}
	idle[nidle++] = (struct idle){ fd, key, now };
}

int
pool_take(const void *key, uint64_t now)
{
	uint64_t since;
	int fd;

	for (unsigned i = nidle; i-- > 0;) {
		if (idle[i].key != key)
			continue;
		fd = idle[i].fd;
		since = idle[i].since;
		drop(i);
		/* Idle means silent: any byte, EOF or error ends its use. */
		if (now - since < POOL_IDLE_MS &&
		    port_poll(&(struct port_pfd){ fd, PORT_IN, 0 }, 1, 0) == 0)
			return fd;
		port_close(fd, 0);
	}
	return -1;
}

uint64_t
pool_sweep(uint64_t now)
{
	while (nidle > 0 && now - idle[0].since >= POOL_IDLE_MS) {
		port_close(idle[0].fd, 0);
		drop(0);
	}
	return nidle > 0 ? idle[0].since + POOL_IDLE_MS : UINT64_MAX;
}

void
pool_flush(void)
{
	while (nidle > 0)
		port_close(idle[--nidle].fd, 0);
}

size_t
pool_static_bytes(void)
{
	return sizeof(idle);
}
