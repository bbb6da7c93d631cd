/* SPDX-License-Identifier: ISC */
/*
 * small/defaults.h - the compiled-in defaults and compile-time limits of
 * tlsgate for a 64 MB appliance (make CONF=conf/small).
 *
 * A complete replacement of conf/defaults.h: it defines every macro that
 * one does, and nothing else.  It owns only values; it must never add
 * code or a macro the sources do not read.  The TLSGATE_MAX_* values size
 * the static storage, so they are the worst case the process can use;
 * `tlsgate -t` prints what they add up to.  Where a value differs from
 * conf/defaults.h, the comment says why.
 */
#ifndef TLSGATE_DEFAULTS_H
#define TLSGATE_DEFAULTS_H

/* Compile-time limits: these size the static storage. */
/* One admin's browser opens about 6 connections: room for a few admins. */
#define TLSGATE_MAX_SLOTS	32	/* connection slots */
#define TLSGATE_MAX_POOL	8	/* idle backend connections kept */
#define TLSGATE_MAX_PLAIN	8	/* plain-HTTP (redirect) slots */
/* About 100 bytes each: a flood of silent clients costs ~100 KiB. */
#define TLSGATE_MAX_PENDING	1024	/* clients not yet in a slot */
#define TLSGATE_MAX_WORKERS	4	/* worker processes */
/* Few distinct clients: 256 sessions keep all of them resumable. */
#define TLSGATE_MAX_CACHE	256	/* TLS sessions in the resumption cache */
/* Storage for one chain and one file only, not per slot: kept as is. */
#define TLSGATE_MAX_CHAIN	16384	/* bytes of DER in the certificate chain */
#define TLSGATE_MAX_CERTS	8	/* certificates in one chain */
#define TLSGATE_MAX_SERVICES	2	/* [sections] */
#define TLSGATE_MAX_LISTEN	2	/* listen addresses of one service */
#define TLSGATE_MAX_SVC_CERTS	2	/* certificates (SNI) of one service */
#define TLSGATE_MAX_CREDS	4	/* certificate+key pairs in all */
#define TLSGATE_MAX_ANCHORS	4	/* client-auth CA certificates in all */
#define TLSGATE_MAX_REVOKED	64	/* revoked serials of client_crl, in all */
#define TLSGATE_CLIENT_CERT_MAX	1024	/* Client-Cert DER (conf/defaults.h) */
#define TLSGATE_CLIENT_CHAIN_MAX 1024	/* Client-Cert-Chain DER, in all */
#define TLSGATE_MAX_PROXY_FROM	4	/* proxy_from prefixes of one service */
#define TLSGATE_MAX_FILE	65536	/* bytes of a config or PEM file */
/* GET /metrics: these limits fill 13.5 KB at most (conf/defaults.h). */
#define TLSGATE_METRICS_BUF	16384
/*
 * Per slot.  A web UI's request heads (a session cookie, a token) fit in
 * 4 KiB; a larger head gets 431, as from most servers.
 */
#define TLSGATE_HEAD_MAX	4096	/* bytes of an HTTP request head (http mode) */
/*
 * Outgoing TLS record buffer, per slot: records of at most 4 KiB of
 * plaintext.  Saves 12 KiB a slot; docs/cross.md measures what it
 * costs in throughput and syscalls per MB.  The input buffer stays full
 * size: the client chooses its record size.
 */
#define TLSGATE_OBUF_SIZE	(4096 + 85)

/* Clients beyond the slots wait here; more than a few turns is a flood. */
#define TLSGATE_BACKLOG		128
/*
 * Slot table full: a new client may evict the slot that has waited the
 * longest for its client's handshake or request head, if that is at least
 * this long (slowloris defence that does not thrash a burst of real
 * handshakes).
 */
#define TLSGATE_EVICT_MS	1000
#define TLSGATE_TURN_BUDGET_US	500	/* see conf/defaults.h */
#define TLSGATE_QUEUE_TARGET_MS	50
#define TLSGATE_QUEUE_INTERVAL_MS	250
#define TLSGATE_QUEUE_MAX_MS	250

/*
 * The post-quantum hybrid groups lead the groups when built in (make
 * PQ=0 leaves them out, and they must then not be named).
 */
#ifndef TLSGATE_NO_MLKEM
#define TLSGATE_PQ_FIRST	"x25519mlkem768 secp256r1mlkem768 " \
				"secp384r1mlkem1024 "
#else
#define TLSGATE_PQ_FIRST	""
#endif

/* The runtime defaults, as a config file spells them (see conf/defaults.h). */
#define TLSGATE_CONFIG \
	"slots = 32\n" \
	"workers = 1\n" \
	"backend_pool = 4\n"		/* idle backend connections; 0: none */ \
	"redirect_slots = 4\n"		/* each is 8.9 KB: a few browsers */ \
	"pending = 1024\n" \
	"drain_timeout = 10s\n" \
	"log_level = info\n" \
	"log_rate = 100\n"		/* a small flash log, a serial console */ \
	"log = stderr\n" \
	"syslog_facility = daemon\n" \
	"syslog_socket = /dev/log\n" \
	"seccomp = auto\n"		/* on where a filter exists */ \
	"ticket_key_rotate = 0\n"	/* half the longest session_lifetime */ \
	"listen = 0.0.0.0:8443\n" \
	"backend = 127.0.0.1:8080\n" \
	"cert = tlsgate.crt\n" \
	"key = tlsgate.key\n" \
	"session_cache = 256\n" \
	"session_lifetime = 120m\n"	/* 1.2 sessions, 1.3 tickets; 7 days at most */ \
	"tickets = on\n"		/* stateless, RFC 5077 and RFC 8446 */ \
	"tls_min = 1.2\n" \
	"tls_max = 1.3\n" \
	"ems = optional\n" \
	"tls_profile = default\n" \
	"suites = aes128-gcm aes256-gcm chacha20-poly1305\n" \
	"groups = " TLSGATE_PQ_FIRST "x25519 secp256r1 secp384r1 secp521r1\n" \
	"hybrid_retry = off\n"	/* HRR for a hybrid: see README */ \
	"mode = http\n" \
	"proxy_protocol = off\n" \
	"proxy_from = none\n" \
	"handshake_timeout = 10s\n" \
	"head_timeout = 10s\n" \
	"connect_timeout = 5s\n" \
	/* With 32 slots, idle keep-alive connections must not hold them long. */ \
	"idle_timeout = 1m\n" \
	"x_forwarded_for = on\n" \
	"x_forwarded_proto = on\n" \
	"x_forwarded_port = on\n" \
	/* One client must not take every slot of a table this small. */ \
	"max_per_source = 8\n" \
	"acme_passthrough = off\n" \
	"client_crl_expired = refuse\n" \
	"client_verify = required\n" \
	"cert_generate = off\n"		/* make our own certificate: certgen.h */

#endif
