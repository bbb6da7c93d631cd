/*
 * tls.h - everything tlsgate asks of BearSSL on the server side.
 *
 * Owns the storage of the credentials (decoded and checked by cred.c,
 * which never sees a connection), the TLS policy of each service
 * (versions, suites, SNI choice of a certificate, ALPN),
 * each connection's context, the alert a failed one owes its client, the
 * per-service session caches with their counters, and the entropy every
 * connection is seeded with.
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

#include "config.h"
#include "t13.h"

/*
 * BEARSSL-INTERNAL: the bytes one session takes in BearSSL's LRU cache
 * (LRU_ENTRY_LEN in ssl_lru.c): the cache's memory is sessions times this.
 */
#define TLS_CACHE_ENTRY	100

/* The longest client chain taken: its certificates, the client's own first. */
#define TLS_CHAIN_MAX	8

/* Client-certificate subject elements kept for X-Client-Cert-Subject. */
#define TLS_SUBJ_ELTS	4
#define TLS_SUBJ_LEN	64

/*
 * One connection's TLS state.  The server context comes first so that
 * the session cache callbacks, which get the server context, can find
 * the flags that say whether this handshake resumed a session.
 */
struct tls_conn {
	br_ssl_server_context	 sc;
	unsigned char		 cache_hit, cache_saved, client_auth;
	unsigned char		 peek;		/* tls_peek() still to look */
	const br_ssl_server_policy_class *policy;	/* picks by SNI */
	unsigned		 area, svc, cred;
	br_x509_minimal_context	 x509;		/* client certificates */
	const br_x509_class	*bounded;	/* x509, TLS_CHAIN_MAX at most */
	unsigned		 ncert;
	br_name_element		 subj[TLS_SUBJ_ELTS];
	char			 subj_buf[TLS_SUBJ_ELTS][TLS_SUBJ_LEN];
	unsigned char		*ibuf, *obuf;	/* the engine's, for each reset */
	size_t			 ilen, olen;
	int			 t13on;		/* the TLS 1.3 engine has it */
	int			 v13;		/* 1.3 allowed: sentinel in 1.2 */
	char			 sni[256];	/* its server name */
	struct t13_ops		 ops;		/* the engine's view of us */
	struct t13_conn		 t13;
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
/* After fork: fresh entropy for this process's connections. */
int	tls_reseed(void);
/* Make the area tls_load() filled the one new connections use. */
void	tls_commit(void);
/* Connections still on the area a tls_load() would overwrite. */
unsigned tls_inactive_refs(void);

/* Prepare one slot's context once, on its own buffers. */
void	tls_conn_init(struct tls_conn *, void *ibuf, size_t ilen,
	    void *obuf, size_t olen);
/*
 * Ready the context for a new connection to service svc: a fresh copy of
 * the configured context, whatever the last connection did to it; only
 * its DRBG carries on.  0 or -1.
 */
int	tls_conn_reset(struct tls_conn *, unsigned svc);
/*
 * The client's first bytes buf[0..len), in the engines' input buffer,
 * before an engine reads them: which engine gets the connection
 * (t13hello.h).  TLS_HELLO_MORE: the hello is not all there yet.
 * TLS_HELLO_BR: BearSSL's, from buf[0] (an http mode service answers
 * ALPN http/1.1 if the hello offers it).  TLS_HELLO_T13: the TLS 1.3
 * engine has started on the hello, which took buf[0..*end).
 * TLS_HELLO_REFUSE: *alert in the clear, and *why for the log.
 */
enum { TLS_HELLO_MORE, TLS_HELLO_BR, TLS_HELLO_T13, TLS_HELLO_REFUSE };
int	tls_hello(struct tls_conn *, unsigned char *buf, size_t len,
	    size_t *end, unsigned *alert, const char **why);
/* Is tls_hello() still to decide? */
int	tls_peeking(const struct tls_conn *);

/*
 * The engine's calls, to whichever engine has the connection: BearSSL's
 * (br_ssl_engine_*) or the TLS 1.3 one (t13.h), with BearSSL's meaning.
 */
unsigned tls_state(const struct tls_conn *);
unsigned char *tls_recvrec_buf(struct tls_conn *, size_t *len);
void	tls_recvrec_ack(struct tls_conn *, size_t len);
unsigned char *tls_sendrec_buf(struct tls_conn *, size_t *len);
void	tls_sendrec_ack(struct tls_conn *, size_t len);
unsigned char *tls_recvapp_buf(struct tls_conn *, size_t *len);
void	tls_recvapp_ack(struct tls_conn *, size_t len);
unsigned char *tls_sendapp_buf(struct tls_conn *, size_t *len);
void	tls_sendapp_ack(struct tls_conn *, size_t len);
void	tls_flush(struct tls_conn *);
void	tls_close(struct tls_conn *);
int	tls_last_error(const struct tls_conn *);
/* TLS 1.3 only: the client's close_notify came; it may still read. */
int	tls_peer_closed(const struct tls_conn *);
unsigned tls_version(const struct tls_conn *);
unsigned tls_suite(const struct tls_conn *);
const char *tls_server_name(const struct tls_conn *);
/* The connection is over: its area may be reused. */
void	tls_conn_release(struct tls_conn *);
/* Was the handshake a resumption?  Valid once it is done. */
int	tls_resumed(const struct tls_conn *);
/*
 * The verified client certificate's subject as "CN=..,O=..,OU=..,C=..",
 * printable ASCII only, into buf; returns its length (0: none).
 */
size_t	tls_client_subject(const struct tls_conn *, char *buf, size_t cap);

const char *tls_suite_name(unsigned suite);
const char *tls_version_name(unsigned version);
/*
 * Short name for an engine error (BR_ERR_* or an alert), for logs.  The
 * name may be in one static buffer, which the next call overwrites.
 */
const char *tls_error_name(int err);
/* The fatal alert that reports the engine's failure err (0: none). */
unsigned tls_fail_alert(const struct tls_conn *, int err);
/*
 * The engine failed with err, and BearSSL sent no alert: the record of
 * the fatal alert that tells the client why, protected as the engine's
 * write direction is (plaintext before the server's ChangeCipherSpec),
 * built in the engine's output buffer.  NULL when none is owed: the
 * engine is not closed, the peer sent the alert, BearSSL already did.
 */
const unsigned char *tls_fail_record(struct tls_conn *, int err,
	    size_t *len);
/* The leaf of service svc's certificate j, in the active area. */
const br_x509_certificate *tls_leaf(unsigned svc, unsigned j);
/* Static bytes, the session cache store aside. */
size_t	tls_static_bytes(void);
void	tls_wipe(void);

#endif
