/* SPDX-License-Identifier: ISC */
/*
 * tlsclient.h - client certificates of tls.c's connections: the
 * validator the engine is given (BearSSL's minimal one, the CRL check
 * of crl.h after it), what tls.h's tls_client_*() tell of the
 * certificate, a ticket's certificate checked again, and the report of
 * the CRLs.
 *
 * Owns no storage: everything lives in the connection (tls.h's
 * tls_conn), and the CAs and CRLs in tls.c's area, which outlives it.
 * Never allocates, never reads the configuration but the service it is
 * handed.
 */
#ifndef TLSGATE_TLSCLIENT_H
#define TLSGATE_TLSCLIENT_H

#include <stddef.h>

#include "tls.h"

/*
 * Ready t's validator for a new connection: the CAs ta[0..nta), the
 * CRLs lists[crl0 .. crl0 + ncrl) of crls, the service's settings in
 * svc.  All must outlive the connection.
 */
void	tls_client_setup(struct tls_conn *t, const br_x509_trust_anchor *ta,
	    size_t nta, const struct crl_set *crls, unsigned crl0,
	    unsigned ncrl, const struct service *svc);

/*
 * A ticket's certificate and its chain (the DER of each, back to back)
 * through the validator as if the client had sent them: 1 if the CAs
 * and CRLs of today still take them (they are then the connection's,
 * should the ticket resume), 0 otherwise (logged, not counted as a
 * refusal: a full handshake follows).
 */
int	tls_client_recheck(struct tls_conn *, const unsigned char *, size_t);

/*
 * Service i's CRLs, crls->lists[crl0 .. crl0 + ncrl), as
 * tls_crl_report() (tls.h) says them.
 */
void	tls_client_crl_report(const struct crl_set *crls, unsigned crl0,
	    unsigned ncrl, const struct service *svc, unsigned i,
	    int (*put)(const char *));

#endif
