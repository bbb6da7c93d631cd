/* SPDX-License-Identifier: ISC */
/*
 * metrics.h - what the stats address answers: the Prometheus text
 * exposition format (0.0.4) at GET /metrics, the counters as
 * "name value" lines at GET /stats, 400 to anything else.
 *
 * Owns the counters only the exposition shows (handshakes by service,
 * version and kind; the handshake-time histogram), each certificate's
 * end, and the fixed buffer an answer is written into.  Never
 * allocates and never does I/O: the loop reads the request, hands it
 * here, and writes what comes back.  No request can make an answer
 * longer than TLSGATE_METRICS_BUF (defaults.h): its size follows from
 * the config (services and certificates), which metrics_worst()
 * measures for -t and the start-up and reload checks.
 *
 * Typical use, in the loop (one stats client at a time):
 *
 *	rc = metrics_answer(req, len, cfg, &live, &out, &n);
 *	  HTTP_MORE: read more (the loop's deadline ends a slow one)
 *	  HTTP_OK: write out[0..n), close
 *	metrics_handshake(svc, version, resumed, ms);	at each handshake
 */
#ifndef TLSGATE_METRICS_H
#define TLSGATE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define METRICS_REQ_MAX	1024	/* bytes of a request head */

/* Live state the loop owns, at the time of the request. */
struct metrics_live {
	unsigned	slots_used, redirect_used, pending;
};

/*
 * The answer to the request head in req[0..len): HTTP_MORE while the
 * head is incomplete and shorter than METRICS_REQ_MAX, else HTTP_OK
 * with *out (a static buffer) and *outlen set to a whole
 * "Connection: close" response: 200 for GET /metrics and GET /stats,
 * 400 for anything else (another method or target, a body, a bad or
 * too long head).
 */
int	metrics_answer(const uint8_t *req, size_t len,
	    const struct config *cfg, const struct metrics_live *live,
	    const char **out, size_t *outlen);

/* A handshake of service svc (its index) ended, ms after the accept. */
void	metrics_handshake(unsigned svc, unsigned version, int resumed,
	    uint64_t ms);
/* A client certificate refused: revoked, or its CRL stale. */
void	metrics_refused_cert(int stale);
/* Service svc has n CRLs, the soonest stale at next_update (-1: none). */
void	metrics_crl(unsigned svc, unsigned n, int64_t next_update);
/* Certificate i of service svc ends at not_after (-1: unknown). */
void	metrics_cert(unsigned svc, unsigned i, int64_t not_after);

/*
 * The longest answer to GET /metrics cfg can give: every counter at its
 * largest value.  Above TLSGATE_METRICS_BUF the config is refused.
 */
size_t	metrics_worst(const struct config *cfg);
size_t	metrics_static_bytes(void);

#endif
