/*
 * tls.h - everything tlsgate asks of BearSSL on the server side.
 *
 * Owns the certificate chain and private key (decoded from PEM into
 * static storage, checked to match), the TLS policy (versions, suites,
 * flags), the process-wide session cache with its counters, and the
 * entropy each connection context is seeded with.  Never allocates.
 * The private key is wiped by tls_wipe().
 */
#ifndef TLSGATE_TLS_H
#define TLSGATE_TLS_H

#include <stddef.h>
#include <stdint.h>
#include <bearssl.h>

#include "config.h"

struct tls_stats {
	unsigned long long	cache_hits, cache_misses, cache_saves;
};
extern struct tls_stats tls_stats;

/*
 * Load cert chain and key, seed the entropy pool, set up the session
 * cache.  Returns 0, or -1 with a message naming the file in err.
 */
int	tls_setup(const struct config *, char *err, size_t cap);
/*
 * One connection's TLS state.  The server context comes first so that
 * the session cache callbacks, which get the server context, can find
 * the flags that say whether this handshake resumed a session.
 */
struct tls_conn {
	br_ssl_server_context	sc;
	unsigned char		cache_hit, cache_saved;
};

/* Prepare one slot's context once, on its own buffers. */
void	tls_conn_init(struct tls_conn *, void *ibuf, size_t ilen,
	    void *obuf, size_t olen);
/* Make the context ready for a new connection.  Returns 0 or -1. */
int	tls_conn_reset(struct tls_conn *);
/* Was the handshake a resumption?  Valid once it is done. */
int	tls_resumed(const struct tls_conn *);

const char *tls_suite_name(unsigned suite);
const char *tls_version_name(unsigned version);
/* Short name for an engine error (BR_ERR_* or an alert), for logs. */
const char *tls_error_name(int err);
size_t	tls_static_bytes(void);
void	tls_wipe(void);

#endif
