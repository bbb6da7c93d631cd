/* SPDX-License-Identifier: ISC */
/*
 * confkeys.c - every key of the file: its name, kind, scope, field,
 * range and the names it takes, in the order -t prints them.  config.c
 * reads by these rows and confprint.c prints by them, so that adding a
 * key is one row here (and its default in defaults.h).
 */
#include <stddef.h>

#include "confint.h"
#include "log.h"
#include "tlswire.h"

static const struct config_name onoff[] = { { "off", 0 }, { "on", 1 },
	{ NULL, 0 } };
static const struct config_name seccomps[] = { { "off", SECCOMP_OFF },
	{ "on", SECCOMP_ON }, { "auto", SECCOMP_AUTO }, { NULL, 0 } };
static const struct config_name modes[] = { { "tcp", MODE_TCP },
	{ "http", MODE_HTTP }, { NULL, 0 } };
static const struct config_name proxies[] = { { "off", PROXY_OFF },
	{ "v1", PROXY_V1 }, { "v2", PROXY_V2 }, { NULL, 0 } };
static const struct config_name logto[] = { { "stderr", LOG_TO_STDERR },
	{ "syslog", LOG_TO_SYSLOG }, { NULL, 0 } };
/* syslog(3) facility codes: the same on every system that has them. */
static const struct config_name facilities[] = { { "user", 1 },
	{ "daemon", 3 }, { "auth", 4 }, { "authpriv", 10 }, { "local0", 16 },
	{ "local1", 17 }, { "local2", 18 }, { "local3", 19 }, { "local4", 20 },
	{ "local5", 21 }, { "local6", 22 }, { "local7", 23 }, { NULL, 0 } };
static const struct config_name profiles[] = { { "default", PROFILE_DEFAULT },
	{ "bsi", PROFILE_BSI }, { "modern", PROFILE_MODERN },
	{ "cnsa2", PROFILE_CNSA2 }, { NULL, 0 } };
static const struct config_name ems_modes[] = { { "optional", 0 },
	{ "required", 1 }, { NULL, 0 } };
/* A CRL past nextUpdate: refuse its CA's clients, or keep using it. */
static const struct config_name crl_modes[] = { { "refuse", 0 },
	{ "keep", 1 }, { NULL, 0 } };
static const struct config_name verify_modes[] = { { "required", 0 },
	{ "optional", 1 }, { NULL, 0 } };

const char *
config_row(const struct key *k, size_t i, unsigned *code, unsigned *profiles)
{
	*code = (unsigned)i;
	*profiles = 0;
	if (k->kind == K_SUITES && i < TLS_NSUITES) {
		*profiles = tls_suites[i].profiles;
		return tls_suites[i].cipher;
	}
	if (k->kind == K_GROUPS && i < tls_ngroups) {
		*code = tls_groups[i].code;
		*profiles = tls_groups[i].profiles;
		return tls_groups[i].name;
	}
	if (k->kind == K_LEVEL)
		return log_level_names[i];
	if (k->kind != K_ENUM)
		return NULL;
	*code = k->names[i].code;
	return k->names[i].name;
}

#define G(f)	GLOBAL, offsetof(struct config, f)
#define S(f)	SERVICE, offsetof(struct service, f)
#define H	3600000
const struct key config_keys[] = {
	{ "slots",		K_UINT,	G(slots), 1, TLSGATE_MAX_SLOTS, NULL },
	{ "workers",		K_UINT,	G(workers), 1, TLSGATE_MAX_WORKERS, NULL },
	{ "backend_pool",	K_UINT,	G(backend_pool), 0, TLSGATE_MAX_POOL, NULL },
	{ "redirect_slots",	K_UINT,	G(redirect_slots), 1, TLSGATE_MAX_PLAIN,
	    NULL },
	{ "pending",		K_UINT,	G(pending), 1, TLSGATE_MAX_PENDING, NULL },
	{ "drain_timeout",	K_MS,	G(drain_ms), 0, H, NULL },
	{ "log_level",		K_LEVEL, G(log_level), 0, 0, NULL },
	{ "log_rate",		K_UINT,	G(log_rate), 0, 1000000, NULL },
	{ "log",		K_ENUM,	G(log_to), 0, 0, logto },
	{ "syslog_facility",	K_ENUM,	G(syslog_facility), 0, 0, facilities },
	{ "syslog_socket",	K_STR,	G(syslog_socket), 0, 0, NULL },
	{ "stats",		K_ADDR,	G(stats), 0, 0, NULL },
	{ "user",		K_STR,	G(user), 0, CONFIG_USER_MAX, NULL },
	{ "group",		K_STR,	G(group), 0, CONFIG_USER_MAX, NULL },
	{ "chroot",		K_STR,	G(chroot), 0, 0, NULL },
	{ "seccomp",		K_ENUM,	G(seccomp), 0, 0, seccomps },
	{ "ticket_key_file",	K_STR,	G(ticket_key_file), 0, 0, NULL },
	{ "ticket_key_rotate",	K_MS,	G(ticket_rotate_ms), 0, 7 * 24 * H, NULL },
	{ "listen",		K_LISTEN, S(listen), 0, 0, NULL },
	{ "redirect",		K_REDIRECT, S(redirect), 0, 0, NULL },
	{ "acme_passthrough",	K_ENUM,	S(acme), 0, 0, onoff },
	{ "backend",		K_ADDR,	S(backend), 0, 0, NULL },
	{ "cert",		K_CERT,	S(certs), 0, 0, NULL },
	{ "key",		K_KEY,	S(certs), 0, 0, NULL },
	{ "client_ca",		K_STR,	S(client_ca), 0, 0, NULL },
	{ "client_crl",		K_STR,	S(client_crl), 0, 0, NULL },
	{ "client_crl_expired",	K_ENUM,	S(crl_keep), 0, 0, crl_modes },
	{ "client_verify",	K_ENUM,	S(verify_optional), 0, 0, verify_modes },
	{ "session_cache",	K_UINT,	S(cache), 0, TLSGATE_MAX_CACHE, NULL },
	{ "session_lifetime",	K_MS,	S(lifetime_ms), 1000, 7 * 24 * H, NULL },
	{ "tickets",		K_ENUM,	S(tickets), 0, 0, onoff },
	{ "tls_min",		K_TLS,	S(tls_min), 0x0303, 0x0304, NULL },
	{ "tls_max",		K_TLS,	S(tls_max), 0x0303, 0x0304, NULL },
	{ "ems",		K_ENUM,	S(ems_required), 0, 0, ems_modes },
	{ "tls_profile",	K_ENUM,	S(profile), 0, 0, profiles },
	{ "suites",		K_SUITES, S(suites), 0, 0, NULL },
	{ "groups",		K_GROUPS, S(groups), 0, 0, NULL },
	{ "mode",		K_ENUM,	S(mode), 0, 0, modes },
	{ "proxy_protocol",	K_ENUM,	S(proxy), 0, 0, proxies },
	{ "proxy_from",		K_NETS,	S(proxy_from), 0, 0, NULL },
	{ "handshake_timeout",	K_MS,	S(handshake_ms), 100, H, NULL },
	{ "head_timeout",	K_MS,	S(head_ms), 100, H, NULL },
	{ "connect_timeout",	K_MS,	S(connect_ms), 100, H, NULL },
	{ "idle_timeout",	K_MS,	S(idle_ms), 100, 24 * H, NULL },
	{ "x_forwarded_for",	K_ENUM,	S(xff), 0, 0, onoff },
	{ "x_forwarded_proto",	K_ENUM,	S(xfproto), 0, 0, onoff },
	{ "x_forwarded_port",	K_ENUM,	S(xfport), 0, 0, onoff },
	{ "hybrid_retry",	K_ENUM,	S(hybrid_retry), 0, 0, onoff },
	{ "max_per_source",	K_UINT,	S(max_per_source), 0, TLSGATE_MAX_SLOTS,
	    NULL },
	{ "cert_generate",	K_ENUM,	S(cert_generate), 0, 0, onoff },
	{ "cert_names",		K_NAMES, S(cert_names), 0, 0, NULL },
};
const size_t config_nkeys = sizeof(config_keys) / sizeof(config_keys[0]);
_Static_assert(sizeof(config_keys) / sizeof(config_keys[0]) <=
    CONFIG_KEYS_MAX, "CONFIG_KEYS_MAX");
