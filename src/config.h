/* SPDX-License-Identifier: ISC */
/*
 * config.h - the resolved configuration: compiled-in defaults from
 * conf/defaults.h, overridden by a small "key = value" text file with
 * optional [service] sections.
 *
 * Owns parsing and range checks.  Every error names file:line and key;
 * the caller refuses to start.  Never allocates: the file is read into a
 * static buffer and every value is copied into fixed-size fields.
 */
#ifndef TLSGATE_CONFIG_H
#define TLSGATE_CONFIG_H

#include <stddef.h>

#include "certname.h"
#include "defaults.h"
#include "port.h"
#include "proxyin.h"

#define CONFIG_PATH_MAX	256
#define CONFIG_NAME_MAX	32
#define CONFIG_USER_MAX	64	/* user, group */

enum { MODE_TCP, MODE_HTTP };
enum { PROXY_OFF, PROXY_V1, PROXY_V2 };
enum { LOG_TO_STDERR, LOG_TO_SYSLOG };
/* auto: on where the platform has a filter for this CPU (port_sandbox). */
enum { SECCOMP_OFF, SECCOMP_ON, SECCOMP_AUTO };
#define CONFIG_LIST_MAX	8

/* An ordered list of codes from one config_name table, no duplicates. */
struct config_list {
	unsigned short	v[CONFIG_LIST_MAX];	/* codes: groups need 16 bits */
	unsigned	n;
};

struct svc_cert {
	char		cert[CONFIG_PATH_MAX];
	char		key[CONFIG_PATH_MAX];
	unsigned	line;	/* of the cert in the file; 0: the default's */
};

/* One service: where clients come in, how, and where they go. */
struct service {
	char		name[CONFIG_NAME_MAX];
	unsigned	index;
	struct port_addr listen[TLSGATE_MAX_LISTEN];
	unsigned	nlisten;
	struct port_addr redirect[TLSGATE_MAX_LISTEN];	/* plain HTTP */
	unsigned	nredirect;
	unsigned	acme;		/* ACME challenges to the backend */
	struct port_addr backend;
	struct svc_cert	certs[TLSGATE_MAX_SVC_CERTS];	/* first: default */
	unsigned	ncerts;
	char		client_ca[CONFIG_PATH_MAX];	/* "": no client auth */
	char		client_crl[CONFIG_PATH_MAX];	/* "": none */
	unsigned	crl_keep;	/* a stale CRL still counts */
	unsigned	verify_optional;	/* no certificate: served */
	unsigned	cache;		/* TLS 1.2 sessions (and 1.3, tickets off) */
	unsigned	lifetime_ms;	/* of a session or ticket */
	unsigned	tickets;	/* stateless tickets (ticket.h) */
	unsigned	tls_min;	/* 0x0303 or 0x0304 */
	unsigned	tls_max;	/* 0x0303 or 0x0304 */
	unsigned	ems_required;	/* TLS 1.2 without EMS: refused */
	unsigned	profile;	/* PROFILE_* (tlswire.h), as given */
	struct config_list suites;	/* tls_suites[] indexes, our order */
	struct config_list groups;	/* TLS group (curve) IDs, our order */
	unsigned	mode;		/* MODE_* */
	unsigned	proxy;		/* PROXY_* (tcp mode) */
	/* Sources whose connections begin with a PROXY header. */
	struct proxyin_net proxy_from[TLSGATE_MAX_PROXY_FROM];
	unsigned	nproxy_from;
	unsigned	handshake_ms, head_ms, connect_ms, idle_ms;
	unsigned	xff, xfproto, xfport;	/* add X-Forwarded-* */
	unsigned	hybrid_retry;	/* HRR for x25519mlkem768 */
	unsigned	max_per_source;	/* 0: no limit */
	unsigned	cert_generate;	/* make and renew our own (certgen.h) */
	char		cert_names[CERTNAME_MAX][CERTNAME_LEN];	/* DNS or IP */
	unsigned	ncert_names;	/* 0: derived (certgen_names()) */
};

struct config {
	unsigned	slots;
	unsigned	workers;
	unsigned	backend_pool;	/* idle backend connections kept */
	unsigned	redirect_slots;	/* plain-HTTP slots (plain.h) */
	unsigned	pending;	/* the pending table's entries (pend.h) */
	unsigned	drain_ms;
	unsigned	log_level;	/* enum log_level */
	unsigned	log_rate;	/* lines per second, 0: no limit */
	unsigned	log_to;		/* LOG_TO_* */
	unsigned	syslog_facility;	/* syslog(3) code */
	char		syslog_socket[CONFIG_PATH_MAX];
	struct port_addr stats;		/* stats socket, if stats_on */
	unsigned	stats_on;
	char		user[CONFIG_USER_MAX];
	char		group[CONFIG_USER_MAX];
	char		chroot[CONFIG_PATH_MAX];
	unsigned	seccomp;	/* SECCOMP_* */
	/* Ticket keys: from this file ("": drawn at start-up, rotating). */
	char		ticket_key_file[CONFIG_PATH_MAX];
	unsigned	ticket_rotate_ms;	/* 0: half the longest lifetime */
	struct service	svc[TLSGATE_MAX_SERVICES];
	unsigned	nsvc;
};

/* One table per enumeration: each name the file may give, its code. */
struct config_name {
	const char	*name;
	unsigned	 code;
};

/*
 * The compiled-in defaults (TLSGATE_CONFIG in defaults.h), through the
 * parser and its checks.  0, or -1 with a message in err.
 */
int	config_defaults(struct config *, char *err, size_t cap);
/*
 * Parse text (len bytes, from a file named name) over the defaults
 * already in cfg.  Returns 0, or -1 with a message "name:line: key:
 * reason" in err.
 */
int	config_parse(struct config *, const char *name, const char *text,
	    size_t len, char *err, size_t errcap);
/* config_parse on a file's contents; a missing file is an error too. */
int	config_load(struct config *, const char *path, char *err, size_t cap);
/* Static bytes the parser keeps (its file buffer and state). */
size_t	config_static_bytes(void);
/* Is this a proxy_from source of the service (its connections begin
 * with a PROXY header)? */
int	config_proxy_trusted(const struct service *, const struct port_addr *);
/*
 * The ticket keys' lifetime rule: the longest session_lifetime L of the
 * services with tickets (ms, 0: none has them), and into *rotate_ms how
 * often a new key comes: ticket_key_rotate (checked to lie in L / 7 ..
 * L), else L / 2, 1 s at the least, so that three keys are kept and
 * none lives longer than 1.5 L.
 */
unsigned config_ticket_life(const struct config *, unsigned *rotate_ms);
/* The redirect slots: there only if a service listens for them. */
unsigned config_plain_slots(const struct config *);
/* Print every resolved value as "key = value" lines through put(). */
void	config_print(const struct config *, int (*put)(const char *));

#endif
