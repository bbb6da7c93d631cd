/* SPDX-License-Identifier: ISC */
/*
 * tls.h - tlsgate's TLS policy: credentials, versions, suites, the
 * choice a hello gets, the session caches, and each connection's engine.
 *
 * Owns the storage of the credentials (decoded and checked by cred.c,
 * which never sees a connection), the TLS policy of each service
 * (versions, suites, groups, SNI choice of a certificate, ALPN, client
 * certificates, the extended master secret), each connection's engine
 * (eng.h, which the loop drives directly), the per-service session
 * caches with their counters, and the entropy every connection draws
 * from.
 *
 * All of that but the caches lives in one of two static areas: a reload
 * loads the new configuration into the area no connection uses, and
 * only then makes it the active one, so established connections keep
 * theirs.  The session caches are set up once and outlive reloads.  Never
 * allocates.  Private keys are wiped when an area is reused and at exit.
 */
#ifndef TLSGATE_TLS_H
#define TLSGATE_TLS_H

#include <stddef.h>
#include <stdint.h>
#include <bearssl.h>

#include "cache.h"
#include "config.h"
#include "crl.h"
#include "eng.h"

/* The bytes one session takes in a session cache. */
#define TLS_CACHE_ENTRY	sizeof(struct cache_entry)

/* Client-certificate subject elements kept for X-Client-Cert-Subject. */
#define TLS_SUBJ_ELTS	4
#define TLS_SUBJ_LEN	64

/* One connection's TLS state: the engine first. */
struct tls_conn {
	struct eng		 eng;
	unsigned char		 client_auth;
	unsigned char		 peek;		/* tls_hello() still to look */
	unsigned		 area, svc;
	br_x509_minimal_context	 x509;		/* client certificates */
	/* BearSSL's validator behind ours, which adds the CRL check. */
	const br_x509_class	*crl_vt;
	struct crl_leaf		 leaf;		/* the first certificate's */
	const struct crl_set	*crls;		/* the service's CRLs, */
	unsigned		 crl0, ncrl;	/* ... these of crls */
	const struct service	*cfg;		/* ... and its settings */
	unsigned		 ncert;
	/* The certificate is a ticket's (tlsclient.h), being checked. */
	unsigned char		 from_ticket, rechecking;
	/* Its DER, for Client-Cert (all of it counted, what fits kept). */
	size_t			 leaf_len;
	unsigned char		 leaf_der[TLSGATE_CLIENT_CERT_MAX];
	/*
	 * The certificates after it, as sent, for Client-Cert-Chain: their
	 * DER back to back (all counted, what fits kept) and each one's
	 * length.
	 */
	size_t			 chain_used;
	size_t			 chain_len[ENG_CHAIN_MAX - 1];
	unsigned char		 chain_der[TLSGATE_CLIENT_CHAIN_MAX];
	br_name_element		 subj[TLS_SUBJ_ELTS];
	char			 subj_buf[TLS_SUBJ_ELTS][TLS_SUBJ_LEN];
	unsigned char		*ibuf, *obuf;	/* the engine's */
	size_t			 ilen, olen;
	char			 sni[256];	/* its server name */
	struct eng_ops		 ops;		/* the engine's view of us */
};

/*
 * Once, before anything else here: seed the entropy pool from the OS and
 * set up each service's session cache and their lock, in memory shared
 * with processes forked later (workers) if shared.  0, or -1 with *why.
 */
int	tls_init(const struct config *, int shared, const char **why);
/*
 * Load every service's certificates, keys and client CAs into the area
 * not in use.  Returns 0, or -1 with a message naming the file in err
 * (the active area is untouched either way).
 */
int	tls_load(const struct config *, char *err, size_t cap);
/* After fork: fresh entropy for this process's connections and pools. */
int	tls_reseed(void);
/* Make the area tls_load() filled the one new connections use. */
void	tls_commit(void);
/*
 * Each service's CRLs (client_crl) in the area tls_load() filled: a
 * line each through put (-t), or to the log (put NULL: a warning for
 * one past nextUpdate), and each service's soonest nextUpdate to the
 * metrics.
 */
void	tls_crl_report(int (*put)(const char *));
/* Connections still on the area a tls_load() would overwrite. */
unsigned tls_inactive_refs(void);

/* Prepare one slot's context once, on its own buffers. */
void	tls_conn_init(struct tls_conn *, void *ibuf, size_t ilen,
	    void *obuf, size_t olen);
/* Ready the context for a new connection to service svc. */
void	tls_conn_reset(struct tls_conn *, unsigned svc);
/*
 * The client's first bytes buf[0..len), before the engine reads them:
 * in the engine's input buffer or, for a hello longer than that, in one
 * of HELLO_WIRE_MAX bytes; scratch, HELLO_WIRE_MAX bytes the engine may
 * use inside a call (a second hello).  TLS_HELLO_MORE: the hello is not
 * all there yet (if buf is full, it is longer than buf).
 * TLS_HELLO_STARTED: the engine has started on the hello, which took
 * buf[0..*end) (an alert may be what it answers: the state says).  TLS_HELLO_REFUSE: the first
 * flight is no hello the engine can read: *alert in the clear, and *why
 * for the log.
 */
enum { TLS_HELLO_MORE, TLS_HELLO_STARTED, TLS_HELLO_REFUSE };
int	tls_hello(struct tls_conn *, unsigned char *buf, size_t len,
	    unsigned char *scratch, size_t *end, unsigned *alert,
	    const char **why);
/* The connection is over: its area may be reused, its secrets go. */
void	tls_conn_release(struct tls_conn *);
/*
 * The verified client certificate's subject as "CN=..,O=..,OU=..,C=..",
 * printable ASCII only, into buf; returns its length (0: none).
 */
size_t	tls_client_subject(const struct tls_conn *, char *buf, size_t cap);
/*
 * Whether the client presented a certificate (and it was verified): on
 * a resumed connection, the one its ticket carried, checked again.
 */
int	tls_client_verified(const struct tls_conn *);
/*
 * The verified client certificate's subject CN, printable ASCII ('?'
 * for other bytes), into buf (cap); its length, 0 if none.
 */
size_t	tls_client_cn(const struct tls_conn *, char *buf, size_t cap);
/* The verified client certificate's DER and its length, or NULL. */
const unsigned char *tls_client_cert(const struct tls_conn *, size_t *len);
/*
 * The certificates the verified client sent after its own, their DER
 * back to back, and in *lens each one's length (*n of them); NULL if
 * it sent none, and on a resumed connection (a ticket has no room).
 */
const unsigned char *tls_client_chain(const struct tls_conn *,
	    const size_t **lens, unsigned *n);
/* The validator's error for a client certificate too large to hand on. */
#define TLS_ERR_CERT_TOO_BIG	98

const char *tls_suite_name(unsigned suite);
/* A group's name as `groups` spells it (x25519mlkem768 ..), or "none". */
const char *tls_group_name(unsigned group);
const char *tls_version_name(unsigned version);
/*
 * Short name for an engine error (BR_ERR_* or an alert), for logs.  The
 * name may be in one static buffer of TLS_ERR_NAME bytes, which the next
 * call overwrites.
 */
#define TLS_ERR_NAME	32
const char *tls_error_name(int err);
/* The leaf of service svc's certificate j, in the active area. */
const br_x509_certificate *tls_leaf(unsigned svc, unsigned j);
/* The ticket key store, as -t shows it, one line through put(). */
void	tls_ticket_report(int (*put)(const char *));
/* Static bytes, the session cache store aside. */
size_t	tls_static_bytes(void);
void	tls_wipe(void);

#endif
