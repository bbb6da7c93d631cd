/* SPDX-License-Identifier: ISC */
/*
 * defaults.h - every compiled-in default and compile-time limit of tlsgate.
 *
 * A firmware build replaces this header (make CONF=dir, with its own
 * dir/defaults.h) to change defaults or to shrink the limits.  The
 * TLSGATE_MAX_* values size the static storage: they are the worst case
 * the process can ever use, and `tlsgate -t` prints what they add up to.
 * Runtime values from the config file may only go up to them.
 */
#ifndef TLSGATE_DEFAULTS_H
#define TLSGATE_DEFAULTS_H

/* Compile-time limits: these size the static storage. */
#define TLSGATE_MAX_SLOTS	1024	/* connection slots (of each worker) */
#define TLSGATE_MAX_POOL	64	/* idle backend connections kept (of each worker) */
#define TLSGATE_MAX_PLAIN	64	/* plain-HTTP (redirect) slots (of each worker) */
#define TLSGATE_MAX_PENDING	16384	/* clients not yet in a slot (pend.h) */
#define TLSGATE_MAX_WORKERS	16	/* worker processes */
#define TLSGATE_MAX_CACHE	4096	/* TLS sessions in the resumption cache */
#define TLSGATE_MAX_CHAIN	16384	/* bytes of DER in the certificate chain */
#define TLSGATE_MAX_CERTS	8	/* certificates in one chain */
#define TLSGATE_MAX_SERVICES	8	/* [sections] */
#define TLSGATE_MAX_LISTEN	4	/* listen addresses of one service */
#define TLSGATE_MAX_SVC_CERTS	4	/* certificates (SNI) of one service */
#define TLSGATE_MAX_CREDS	16	/* certificate+key pairs in all */
#define TLSGATE_MAX_ANCHORS	16	/* client-auth CA certificates in all */
#define TLSGATE_MAX_REVOKED	1024	/* revoked serials of client_crl, in all */
/*
 * Bytes of DER of a client certificate handed on as RFC 9440
 * Client-Cert (http mode), per slot, and its base64 in the head
 * buffer: about 4.8 KB a slot in all.  A larger one is refused there.
 */
#define TLSGATE_CLIENT_CERT_MAX	2048
/*
 * Bytes of DER of the certificates a client sends after its own, all
 * of them, handed on as RFC 9440 Client-Cert-Chain (http mode), per
 * slot, and their base64 in the head buffer: about 4.8 KB a slot in
 * all, one RSA or two ECDSA intermediates.  A longer chain is refused.
 */
#define TLSGATE_CLIENT_CHAIN_MAX	2048
#define TLSGATE_MAX_PROXY_FROM	16	/* proxy_from prefixes of one service */
#define TLSGATE_MAX_FILE	65536	/* bytes of a config or PEM file */
/*
 * The stats address's answer to GET /metrics, built in one static
 * buffer.  The limits above can fill 23.5 KB of it (eight services of
 * 31-character names, sixteen certificates of 255-byte paths, every
 * counter at 2^64 - 1); a config that would need more is refused.
 */
#define TLSGATE_METRICS_BUF	28672
#define TLSGATE_HEAD_MAX	8192	/* bytes of an HTTP request head (http mode) */
/*
 * Outgoing TLS record buffer.  16384 + 85 lets BearSSL send full-size
 * records (fewest writes per MB); a small-memory build may go down to
 * 512 + 85, at the price of more records and syscalls per MB.  The input
 * buffer is always full size: the client chooses its record size.
 */
#define TLSGATE_OBUF_SIZE	(16384 + 85)

#define TLSGATE_BACKLOG		1024	/* kernel queue of clients not yet taken */
/*
 * Slot table full: a new client may evict the slot that has waited the
 * longest for its client's handshake or request head, if that is at least
 * this long (slowloris defence that does not thrash a burst of real
 * handshakes).
 */
#define TLSGATE_EVICT_MS	1000
/*
 * Microseconds of a loop turn after which it starts no more public-key
 * work (a handshake step, ~0.2-0.5 ms with ECDSA P-256) and polls
 * again: a connection that becomes ready waits behind about one
 * handshake's worth of work, not behind a burst of them.  A budget in
 * time, not in count, so that a slower CPU or a costlier key makes the
 * turns no longer.  A turn always takes at least one step.
 */
#define TLSGATE_TURN_BUDGET_US	500
/*
 * Overload (loop.c's promote()): whole hellos get slots oldest first
 * until those waiting would take over TLSGATE_QUEUE_TARGET_MS to serve,
 * for TLSGATE_QUEUE_INTERVAL_MS; then newest first, and a hello that
 * has waited TLSGATE_QUEUE_MAX_MS is closed (outcome=shed): the bound
 * on the wait of a client that gets served in an overload.
 */
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

/*
 * The runtime defaults, as a config file spells them.  They go through
 * the file's parser and range checks before any file is read, so a bad
 * value here stops start-up with the message a bad file line gets.  A
 * file overrides any of them; chroot, user, group and stats are unset.
 */
#define TLSGATE_CONFIG \
	"slots = 256\n" \
	"workers = 1\n" \
	"backend_pool = 16\n"		/* idle backend connections; 0: none */ \
	"redirect_slots = 16\n"		/* plain-HTTP connections (redirect) */ \
	"pending = 2048\n"		/* clients waiting for their first message */ \
	"drain_timeout = 10s\n"		/* SIGTERM: live ones may end */ \
	"log_level = info\n" \
	"log_rate = 1000\n"		/* lines a second; 0: no limit */ \
	"log = stderr\n" \
	"syslog_facility = daemon\n" \
	"syslog_socket = /dev/log\n" \
	"seccomp = auto\n"		/* on where a filter exists */ \
	"ticket_key_rotate = 0\n"	/* half the longest session_lifetime */ \
	"listen = 0.0.0.0:8443\n" \
	"backend = 127.0.0.1:8080\n" \
	"cert = tlsgate.crt\n" \
	"key = tlsgate.key\n" \
	"session_cache = 256\n"		/* 1.2 session IDs: tickets do the rest */ \
	"session_lifetime = 120m\n"	/* 1.2 sessions, 1.3 tickets; 7 days at most */ \
	"tickets = on\n"		/* stateless, RFC 5077 and RFC 8446 */ \
	"tls_min = 1.2\n" \
	"tls_max = 1.3\n" \
	"ems = optional\n"		/* required: TLS 1.2 only with RFC 7627 */ \
	"tls_profile = default\n"	/* bsi, modern, cnsa2: docs/engine.md */ \
	"suites = aes128-gcm aes256-gcm chacha20-poly1305\n" /* our order */ \
	"groups = " TLSGATE_PQ_FIRST "x25519 secp256r1 secp384r1 secp521r1\n" \
	"hybrid_retry = off\n"	/* HRR for a hybrid: see README */ \
	"mode = http\n" \
	"proxy_protocol = off\n" \
	"proxy_from = none\n"		/* balancers that send PROXY headers */ \
	"handshake_timeout = 10s\n"	/* absolute, from accept */ \
	"head_timeout = 10s\n"		/* absolute, from its first byte */ \
	"connect_timeout = 5s\n" \
	"idle_timeout = 5m\n"		/* no byte either way */ \
	"x_forwarded_for = on\n" \
	"x_forwarded_proto = on\n" \
	"x_forwarded_port = on\n" \
	"max_per_source = 0\n"		/* slots one client IP may hold */ \
	"acme_passthrough = off\n"	/* ACME challenges on redirect: backend */ \
	"client_crl_expired = refuse\n"	/* a CRL past nextUpdate */ \
	"client_verify = required\n"	/* with client_ca; or optional */ \
	"cert_generate = off\n"		/* make our own certificate: certgen.h */

#endif
