/*
 * defaults.h - every compiled-in default and compile-time limit of tlsgate.
 *
 * A firmware build replaces this header (make CONF=dir, with its own
 * dir/defaults.h) to change defaults or to shrink the limits.  The
 * TLSGATE_MAX_* values size
 * the static storage: they are the worst case the process can ever use,
 * and `tlsgate -t` prints what they add up to.  Runtime values from the
 * config file may only go up to them.
 */
#ifndef TLSGATE_DEFAULTS_H
#define TLSGATE_DEFAULTS_H

/* Compile-time limits: these size the static storage. */
#define TLSGATE_MAX_SLOTS	1024	/* connection slots (of each worker) */
#define TLSGATE_MAX_WORKERS	16	/* worker processes */
#define TLSGATE_MAX_CACHE	4096	/* TLS sessions in the resumption cache */
#define TLSGATE_MAX_CHAIN	16384	/* bytes of DER in the certificate chain */
#define TLSGATE_MAX_CERTS	8	/* certificates in one chain */
#define TLSGATE_MAX_SERVICES	8	/* [sections] */
#define TLSGATE_MAX_LISTEN	4	/* listen addresses of one service */
#define TLSGATE_MAX_SVC_CERTS	4	/* certificates (SNI) of one service */
#define TLSGATE_MAX_CREDS	16	/* certificate+key pairs in all */
#define TLSGATE_MAX_ANCHORS	16	/* client-auth CA certificates in all */
#define TLSGATE_MAX_FILE	65536	/* bytes of a config or PEM file */
#define TLSGATE_HEAD_MAX	8192	/* bytes of an HTTP request head (http mode) */
/*
 * Outgoing TLS record buffer.  16384 + 85 lets BearSSL send full-size
 * records (fewest writes per MB); a small-memory build may go down to
 * 512 + 85, at the price of more records and syscalls per MB.  The input
 * buffer is always full size: the client chooses its record size.
 */
#define TLSGATE_OBUF_SIZE	(16384 + 85)

/* Defaults for the runtime values (all overridable by the config file). */
#define TLSGATE_LISTEN		"0.0.0.0:8443"
#define TLSGATE_BACKEND		"127.0.0.1:8080"
#define TLSGATE_CERT		"tlsgate.crt"
#define TLSGATE_KEY		"tlsgate.key"
#define TLSGATE_SLOTS		256
#define TLSGATE_WORKERS		1
#define TLSGATE_CACHE		1024
#define TLSGATE_TLS_MIN		0x0303	/* TLS 1.2 */
#define TLSGATE_MODE		1	/* 0 tcp relay, 1 http */
#define TLSGATE_PROXY_PROTOCOL	0	/* tcp mode: 0 off, 1 v1, 2 v2 */
#define TLSGATE_HANDSHAKE_MS	10000	/* absolute, from accept */
#define TLSGATE_HEAD_MS		10000	/* absolute, from a head's first byte */
#define TLSGATE_CONNECT_MS	5000	/* backend connect */
#define TLSGATE_IDLE_MS		300000	/* no byte either way */
#define TLSGATE_DRAIN_MS	10000	/* SIGTERM: let live connections end */
#define TLSGATE_BACKLOG		1024
/*
 * Slot table full: a new client may evict the slot that has waited the
 * longest for its client's handshake or request head, if that is at least
 * this long (slowloris defence that does not thrash a burst of real
 * handshakes).
 */
#define TLSGATE_EVICT_MS	1000
/*
 * Handshakes one loop turn may advance (each costs ~1 ms of CPU with
 * ECDSA P-256): bounds how long a burst of new clients can delay the
 * requests on established connections.
 */
#define TLSGATE_HANDSHAKES_PER_TURN	4
#define TLSGATE_LOG_LEVEL	2	/* 0 error, 1 warn, 2 info, 3 debug */
#define TLSGATE_LOG_RATE	1000	/* lines per second; 0 = no limit */
#define TLSGATE_MAX_PER_SOURCE	0	/* slots one client IP may hold; 0 = any */
/* After start-up: chroot here and run as this user/group ("" = stay). */
#define TLSGATE_CHROOT		""
#define TLSGATE_USER		""
#define TLSGATE_GROUP		""
#define TLSGATE_SECCOMP		0	/* Linux: allow only the loop's syscalls */

#endif
