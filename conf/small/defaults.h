/*
 * small/defaults.h - the compiled-in defaults and compile-time limits of
 * tlsgate for a 64 MB appliance (make CONF=conf/small).
 *
 * A complete replacement of conf/defaults.h: it defines every macro that
 * one does, and nothing else.  It owns only numbers; it must never add
 * code or a macro the sources do not read.  The TLSGATE_MAX_* values size
 * the static storage, so they are the worst case the process can use;
 * `tlsgate -t` prints what they add up to (about 1.1 MB here, against
 * about 48 MB for conf/defaults.h).  Where a value differs from
 * conf/defaults.h, the comment says why.
 */
#ifndef TLSGATE_DEFAULTS_H
#define TLSGATE_DEFAULTS_H

/* Compile-time limits: these size the static storage. */
/* One admin's browser opens about 6 connections: room for a few admins. */
#define TLSGATE_MAX_SLOTS	32	/* connection slots */
#define TLSGATE_MAX_WORKERS	4	/* worker processes */
/* Few distinct clients; 256 x ~100 bytes keeps all of them resumable. */
#define TLSGATE_MAX_CACHE	256	/* TLS sessions in the resumption cache */
/* Storage for one chain and one file only, not per slot: kept as is. */
#define TLSGATE_MAX_CHAIN	16384	/* bytes of DER in the certificate chain */
#define TLSGATE_MAX_CERTS	8	/* certificates in one chain */
#define TLSGATE_MAX_SERVICES	2	/* [sections] */
#define TLSGATE_MAX_LISTEN	2	/* listen addresses of one service */
#define TLSGATE_MAX_SVC_CERTS	2	/* certificates (SNI) of one service */
#define TLSGATE_MAX_CREDS	4	/* certificate+key pairs in all */
#define TLSGATE_MAX_ANCHORS	4	/* client-auth CA certificates in all */
#define TLSGATE_MAX_FILE	65536	/* bytes of a config or PEM file */
/*
 * Per slot.  A web UI's request heads (a session cookie, a token) fit in
 * 4 KiB; a larger head gets 431, as from most servers.
 */
#define TLSGATE_HEAD_MAX	4096	/* bytes of an HTTP request head (http mode) */
/*
 * Outgoing TLS record buffer, per slot: records of at most 4 KiB of
 * plaintext.  Saves 12 KiB a slot; tests/cross.md measures what it
 * costs in throughput and syscalls per MB.  The input buffer stays full
 * size: the client chooses its record size.
 */
#define TLSGATE_OBUF_SIZE	(4096 + 85)

/* Defaults for the runtime values (all overridable by the config file). */
#define TLSGATE_LISTEN		"0.0.0.0:8443"
#define TLSGATE_BACKEND		"127.0.0.1:8080"
#define TLSGATE_CERT		"tlsgate.crt"
#define TLSGATE_KEY		"tlsgate.key"
#define TLSGATE_SLOTS		32
#define TLSGATE_WORKERS		1
#define TLSGATE_CACHE		256
#define TLSGATE_TLS_MIN		0x0303	/* TLS 1.2 */
#define TLSGATE_MODE		1	/* 0 tcp relay, 1 http */
#define TLSGATE_PROXY_PROTOCOL	0	/* tcp mode: 0 off, 1 v1, 2 v2 */
#define TLSGATE_HANDSHAKE_MS	10000	/* absolute, from accept */
#define TLSGATE_HEAD_MS		10000	/* absolute, from a head's first byte */
#define TLSGATE_CONNECT_MS	5000	/* backend connect */
/* With 32 slots, idle keep-alive connections must not hold them long. */
#define TLSGATE_IDLE_MS		60000	/* no byte either way */
#define TLSGATE_DRAIN_MS	10000	/* SIGTERM: let live connections end */
/* Clients beyond the slots wait here; more than a few turns is a flood. */
#define TLSGATE_BACKLOG		128
/*
 * Slot table full: a new client may evict the slot that has waited the
 * longest for its client's handshake or request head, if that is at least
 * this long (slowloris defence that does not thrash a burst of real
 * handshakes).
 */
#define TLSGATE_EVICT_MS	1000
#define TLSGATE_HANDSHAKES_PER_TURN	2	/* a slower CPU: shorter turns */
#define TLSGATE_LOG_LEVEL	2	/* 0 error, 1 warn, 2 info, 3 debug */
/* A small flash log or a serial console: fewer lines a second. */
#define TLSGATE_LOG_RATE	100	/* lines per second; 0 = no limit */
/* One client must not take every slot of a table this small. */
#define TLSGATE_MAX_PER_SOURCE	8	/* slots one client IP may hold; 0 = any */
/* After start-up: chroot here and run as this user/group ("" = stay). */
#define TLSGATE_CHROOT		""
#define TLSGATE_USER		""
#define TLSGATE_GROUP		""
#define TLSGATE_SECCOMP		0	/* Linux: allow only the loop's syscalls */

#endif
