/* SPDX-License-Identifier: ISC */
/*
 * main.c - start-up: arguments, config, keys, listeners, then the loop;
 * and the reload that SIGHUP asks the loop for.
 *
 * Exit codes: 0 after a drain (SIGTERM), -t or -g; 2 bad usage, config,
 * certificate or key: nothing was started; 111 the system refused what
 * start-up needs (entropy, shared memory, listening, the descriptor
 * limit, privileges, seccomp, syslog, workers, writing a key or
 * certificate).
 *
 * Certificates of its own (certgen.h) are made first, with -g for every
 * service and else for those with cert_generate = on: before anything
 * is bound, chrooted or dropped, since the files are written where the
 * config says.  -t writes nothing: it checks the pairs that are there
 * and says which ones start-up will make, so that the check an init
 * script runs before the first start passes and means the same.
 *
 * Two configurations exist, like the two TLS areas: the one in force,
 * and the one a reload fills.  A reload that fails leaves everything as
 * it was; one that succeeds changes what new connections get, while
 * established ones finish on the old.  What a reload cannot change
 * (slots, services, listen addresses: sockets are bound before
 * privileges are dropped) needs a restart, and such a reload is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certgen.h"
#include "config.h"
#include "defaults.h"
#include "log.h"
#include "loop.h"
#include "metrics.h"
#include "pend.h"
#include "plain.h"
#include "pool.h"
#include "precomp.h"
#include "prim.h"
#include "port.h"
#include "slot.h"
#include "tls.h"
#include "tlswire.h"

static struct config cfgs[2];
static unsigned cur;
static const char *cfg_path;
/* Listeners: worker k polls lst[k * nl .. k * nl + nl). */
static struct listener lst[TLSGATE_MAX_WORKERS * TLSGATE_MAX_SERVICES *
    TLSGATE_MAX_LISTEN * 2];
static int stats_fd = -1;
static unsigned nl;
static int gen_only;		/* -g */

/* Sizes of the static objects, as the compiler lays them out. */
static void
print_footprint(const struct config *c)
{
#define SLOT(f)	sizeof(((struct slot *)0)->f)
	size_t slot = connset_bytes(sizeof(struct slot), 1);
	size_t plain = connset_bytes(sizeof(struct plain), 1);
	size_t pend = connset_bytes(sizeof(struct pend), 1);
	size_t cache, other, total, max, certs;
	unsigned nsess = 0;

	for (unsigned i = 0; i < c->nsvc; i++)
		nsess += c->svc[i].cache;
	cache = (size_t)nsess * TLS_CACHE_ENTRY;
	other = tls_static_bytes() + loop_static_bytes() + pool_static_bytes() +
	    config_static_bytes() + sizeof(cfgs) + sizeof(lst) +
	    port_static_bytes() + certgen_static_bytes() +
	    sizeof(conn_scratch) + precomp_static_bytes() +
	    metrics_static_bytes();
	total = slot * c->slots + plain * config_plain_slots(c) + cache +
	    pend * c->pending + other;
	max = slot * TLSGATE_MAX_SLOTS + plain * TLSGATE_MAX_PLAIN +
	    (size_t)TLSGATE_MAX_CACHE * TLS_CACHE_ENTRY +
	    pend * TLSGATE_MAX_PENDING + other;
	printf("# footprint (bytes)\n");
	certs = SLOT(tls.leaf_der) + SLOT(tls.chain_der);
	printf("slot = %zu (TLS engine %zu + input buffer %zu + output "
	    "buffer %zu + head buffer %zu + client auth %zu + client "
	    "certificates %zu + state %zu)\n", slot, SLOT(tls.eng), SLOT(ibuf),
	    SLOT(obuf), SLOT(fwd.hbuf), SLOT(tls.x509), certs, slot -
	    SLOT(tls.eng) - SLOT(ibuf) - SLOT(obuf) - SLOT(fwd.hbuf) -
	    SLOT(tls.x509) - certs);
	printf("client certificates = %d + %d (Client-Cert, Client-Cert-Chain "
	    "DER kept per slot; their base64 is in the head buffer)\n",
	    TLSGATE_CLIENT_CERT_MAX, TLSGATE_CLIENT_CHAIN_MAX);
	printf("slots = %u x %zu = %zu\n", c->slots, slot, slot * c->slots);
	printf("redirect slots = %u x %zu = %zu (plain HTTP: no TLS state)\n",
	    config_plain_slots(c), plain, plain * config_plain_slots(c));
	printf("pending = %u x %zu = %zu (clients not yet in a slot)\n",
	    c->pending, pend, pend * c->pending);
	printf("session_cache = %u x %zu = %zu (TLS 1.2 session IDs; TLS 1.3 "
	    "too where tickets = off)\n", nsess, TLS_CACHE_ENTRY, cache);
	tls_ticket_report(puts);
	printf("other static = %zu (certificates and keys twice, for reload; "
	    "buffers; poll table)\n", other);
	printf("revoked serials = 2 x %zu = %zu (client_crl: %d serials at "
	    "most, %zu bytes each; a second table for reload)\n",
	    sizeof(struct crl_set), 2 * sizeof(struct crl_set),
	    TLSGATE_MAX_REVOKED, sizeof(struct crl_serial));
	printf("metrics = %zu (the GET /metrics answer: at most %zu for "
	    "this config, whatever is asked)\n", (size_t)TLSGATE_METRICS_BUF,
	    metrics_worst(c));
	printf("total = %zu (worst case for this config)\n", total);
	printf("compile-time maximum = %zu (%d slots, %d redirect slots, %d "
	    "pending, %d sessions)\n", max, TLSGATE_MAX_SLOTS,
	    TLSGATE_MAX_PLAIN, TLSGATE_MAX_PENDING, TLSGATE_MAX_CACHE);
	/*
	 * A hybrid's client share (1,216, 1,249 or 1,665 bytes) is read
	 * where it lies in the input buffer; the answer is made on the stack
	 * (gcc -fstack-usage, x86-64: hs13_hello 2.5 KB, K-PKE.Encrypt 3.7
	 * KB, either parameter set).  The registry has them if built.
	 */
	printf("x25519mlkem768 secp256r1mlkem768 secp384r1mlkem1024 = %s\n",
	    tls_group_find(GROUP_X25519MLKEM768) != NULL ? "built in, 0 per "
	    "slot (the client's share, up to 1,665 bytes, stays in the input "
	    "buffer; about 7 KB of stack at the ServerHello)" :
	    "not built in (PQ=0)");
#undef SLOT
}

static void
wrote(const struct service *s, const char *path, const char *reason)
{
	if (gen_only)
		printf("wrote %s reason=%s\n", path, reason);
	else
		log_msg(LOG_INFO, "certgen svc=%s wrote=%s reason=%s", s->name,
		    path, reason);
}

/*
 * A cert file two services make for different names would be remade at
 * every start, its fingerprint never the same twice: refuse that.
 */
static void
check_shared(const struct service *a, const struct service *b)
{
	char na[CERTNAME_MAX][CERTNAME_LEN], nb[CERTNAME_MAX][CERTNAME_LEN];
	unsigned n = certgen_names(a, na), same = n == certgen_names(b, nb);

	for (unsigned k = 0; same && k < n; k++)
		same = strcmp(na[k], nb[k]) == 0;
	for (unsigned i = 0; !same && i < a->ncerts; i++)
		for (unsigned j = 0; j < b->ncerts; j++)
			if (strcmp(a->certs[i].cert, b->certs[j].cert) == 0)
				log_fatal(2, "[%s] cert %s: also [%s]'s, for other "
				    "names: give each its own file, or both the "
				    "same cert_names", b->name, b->certs[j].cert,
				    a->name);
}

/* Make and renew certificates of our own: every service's with -g. */
static void
generate(const struct config *c)
{
	char err[512];

	for (unsigned i = 0; i < c->nsvc; i++)
		for (unsigned j = 0; j < i; j++)
			if ((gen_only || c->svc[i].cert_generate) &&
			    (gen_only || c->svc[j].cert_generate))
				check_shared(&c->svc[j], &c->svc[i]);
	for (unsigned i = 0; i < c->nsvc; i++)
		if ((gen_only || c->svc[i].cert_generate) &&
		    certgen_service(&c->svc[i], port_time(), wrote, err,
		    sizeof(err)) < 0)
			log_fatal(111, "[%s] certgen: %s", c->svc[i].name, err);
}

/*
 * For -t, which writes nothing: c less the pairs start-up will make (a
 * file of the pair missing, cert_generate on), said on stdout, in out.
 */
static struct config *
without_generated(const struct config *c, struct config *out)
{
	const char *why;
	int cert, key;

	*out = *c;
	for (unsigned i = 0; i < out->nsvc; i++) {
		struct service *s = &out->svc[i];

		for (unsigned j = 0; s->cert_generate && j < s->ncerts; j++) {
			if ((cert = port_exists(s->certs[j].cert, &why)) < 0 ||
			    (key = port_exists(s->certs[j].key, &why)) < 0)
				log_fatal(2, "[%s] cert %s: %s", s->name,
				    s->certs[j].cert, why);
			if (cert && key)
				continue;
			printf("# cert svc=%s path=%s: missing: start-up makes it "
			    "(cert_generate = on)\n", s->name, s->certs[j].cert);
			memmove(&s->certs[j], &s->certs[j + 1], (s->ncerts - j -
			    1) * sizeof(s->certs[0]));
			s->ncerts--;
			j--;
		}
	}
	return out;
}

/* A certificate that is not there: where the config names it, the fix. */
static void
require_certs(const struct config *c)
{
	const char *why;
	char at[CONFIG_PATH_MAX + 16];

	for (unsigned i = 0; i < c->nsvc; i++)
		for (unsigned j = 0; j < c->svc[i].ncerts; j++) {
			const struct svc_cert *p = &c->svc[i].certs[j];

			if (port_exists(p->cert, &why) != 0)
				continue;	/* there, or tls_load() says why */
			if (p->line > 0)
				snprintf(at, sizeof(at), "%s:%u", cfg_path,
				    p->line);
			else
				snprintf(at, sizeof(at), "%s", cfg_path != NULL ?
				    cfg_path : "defaults.h");
			log_fatal(2, "%s: cert %s: no such file: make one with "
			    "tlsgate -g%s%s, or set cert_generate = on", at,
			    p->cert, cfg_path != NULL ? " -c " : "",
			    cfg_path != NULL ? cfg_path : "");
		}
}

/*
 * Each certificate served: its fingerprint, as openssl prints it, and
 * the days it has left; the soonest end goes to the stats.
 */
static void
report_certs(const struct config *c, int check)
{
	char fp[CERTGEN_FP_LEN], days[24], line[512];
	int64_t now = port_time(), soonest = INT64_MAX, end, left;

	for (unsigned i = 0; i < c->nsvc; i++)
		for (unsigned j = 0; j < c->svc[i].ncerts; j++) {
			const br_x509_certificate *x = tls_leaf(i, j);

			certgen_fingerprint(x->data, x->data_len, fp);
			end = certgen_not_after(x->data, x->data_len);
			left = end - now;
			/* Whole days left; an expired one counts down from -1. */
			left = left >= 0 ? left / 86400 : -((86399 - left) /
			    86400);
			if (end < 0)
				snprintf(days, sizeof(days), "unknown");
			else
				snprintf(days, sizeof(days), "%lld",
				    (long long)left);
			if (end >= 0 && end < soonest)
				soonest = end;
			metrics_cert(i, j, end);
			snprintf(line, sizeof(line), "cert svc=%s path=%s "
			    "sha256=%s days_left=%s", c->svc[i].name,
			    c->svc[i].certs[j].cert, fp, days);
			if (check)
				puts(line);
			else
				log_msg(LOG_INFO, "%s", line);
		}
	stats_cert_end = soonest == INT64_MAX ? 0 : soonest;
	tls_crl_report(check ? puts : NULL);
}

/* The largest GET /metrics answer of c must fit the fixed buffer. */
static int
metrics_fit(const struct config *c, char *err, size_t cap)
{
	size_t n = metrics_worst(c);

	if (n <= TLSGATE_METRICS_BUF)
		return 0;
	snprintf(err, cap, "metrics: %u services and their certificates "
	    "need more than the %d bytes of the /metrics buffer", c->nsvc,
	    TLSGATE_METRICS_BUF);
	return -1;
}

/* What a reload may not change; NULL if nothing of that changed. */
static const char *
needs_restart(const struct config *a, const struct config *b)
{
	if (a->slots != b->slots || a->pending != b->pending ||
	    config_plain_slots(a) != config_plain_slots(b))
		return "slots";
	if (a->workers != b->workers)
		return "workers";
	if (a->stats_on != b->stats_on || (a->stats_on &&
	    memcmp(&a->stats, &b->stats, sizeof(a->stats)) != 0))
		return "stats";
	/* Set up once, before privileges go: */
	if (a->log_to != b->log_to || a->syslog_facility !=
	    b->syslog_facility ||
	    strcmp(a->syslog_socket, b->syslog_socket) != 0)
		return "log";
	if (strcmp(a->user, b->user) != 0 || strcmp(a->group, b->group) != 0 ||
	    strcmp(a->chroot, b->chroot) != 0 || a->seccomp != b->seccomp)
		return "privileges (user, group, chroot, seccomp)";
	/* Every worker's keys follow one rotation, set at start-up. */
	if (a->ticket_rotate_ms != b->ticket_rotate_ms)
		return "ticket_key_rotate";
	if (a->nsvc != b->nsvc)
		return "the services";
	for (unsigned i = 0; i < a->nsvc; i++) {
		if (strcmp(a->svc[i].name, b->svc[i].name) != 0)
			return "the services";
		if (a->svc[i].cache != b->svc[i].cache)
			return "session_cache";
		if (a->svc[i].nlisten != b->svc[i].nlisten ||
		    memcmp(a->svc[i].listen, b->svc[i].listen,
		    sizeof(a->svc[i].listen)) != 0)
			return "listen addresses";
		if (a->svc[i].nredirect != b->svc[i].nredirect ||
		    memcmp(a->svc[i].redirect, b->svc[i].redirect,
		    sizeof(a->svc[i].redirect)) != 0)
			return "redirect addresses";
	}
	return NULL;
}

static const struct config *
reload(void)
{
	struct config *next = &cfgs[cur ^ 1];
	const char *what = NULL;
	char err[512];
	unsigned refs;

	if (cfg_path == NULL) {
		log_msg(LOG_WARN, "reload: no config file (-c) to read");
		return NULL;
	}
	if ((refs = tls_inactive_refs()) > 0) {
		log_msg(LOG_WARN, "reload: refused: %u connections still use "
		    "the configuration before the current one", refs);
		return NULL;
	}
	if (config_defaults(next, err, sizeof(err)) < 0 ||
	    config_load(next, cfg_path, err, sizeof(err)) < 0 ||
	    (what = needs_restart(&cfgs[cur], next)) != NULL ||
	    tls_load(next, err, sizeof(err)) < 0 ||
	    metrics_fit(next, err, sizeof(err)) < 0) {
		if (what != NULL)
			log_msg(LOG_ERROR, "reload: refused: %s changed: that "
			    "needs a restart", what);
		else
			log_msg(LOG_ERROR, "reload: refused: %s", err);
		return NULL;
	}
	tls_commit();
	cur ^= 1;
	log_level = (int)next->log_level;
	log_rate = next->log_rate;
	report_certs(next, 0);
	log_msg(LOG_INFO, "reload: done services=%u", next->nsvc);
	return next;
}

/* Service i's listeners, TLS then plain HTTP, for worker w. */
static struct listener *
listen_all(const struct config *cfg, unsigned i, unsigned w,
    struct listener *l)
{
	const struct service *s = &cfg->svc[i];
	const char *why;
	char addr[128];

	for (unsigned j = 0; j < s->nlisten + s->nredirect; j++, l++) {
		const struct port_addr *a = j < s->nlisten ? &s->listen[j] :
		    &s->redirect[j - s->nlisten];

		port_addr_str(a, addr, sizeof(addr));
		l->fd = port_listen(a, TLSGATE_BACKLOG, cfg->workers > 1, &why);
		if (l->fd < 0)
			log_fatal(111, "[%s] %s %s: %s", s->name, j < s->nlisten ?
			    "listen" : "redirect", addr, why);
		l->svc = i;
		l->plain = j >= s->nlisten;
		if (w == 0)
			log_msg(LOG_INFO, "listening svc=%s on %s%s", s->name,
			    addr, l->plain ? " (plain HTTP: redirect)" : "");
	}
	return l;
}

/* One worker: its slots, its sockets, its privileges, its loop. */
static int
run_worker(unsigned k)
{
	const struct config *cfg = &cfgs[cur];
	const char *why;
	int rc;

	if (tls_reseed() < 0)
		log_fatal(111, "no entropy from the operating system");
	conn_worker = k;
	port_signals_init();
	slot_table_init(cfg);
	plain_init(config_plain_slots(cfg));
	pend_init(cfg->pending);
	if (port_drop_privileges(cfg->user, cfg->group, cfg->chroot, &why) < 0)
		log_fatal(111, "dropping privileges (user \"%s\", group \"%s\", "
		    "chroot \"%s\"): %s", cfg->user, cfg->group, cfg->chroot,
		    why);
	/* auto: a kernel without seccomp (or qemu-user) does without. */
	if (cfg->seccomp == SECCOMP_ON && port_sandbox(&why) < 0)
		log_fatal(111, "seccomp: %s", why);
	if (cfg->seccomp == SECCOMP_AUTO && port_sandbox_missing() == NULL &&
	    port_sandbox(&why) < 0 && k == 0)
		log_msg(LOG_WARN, "seccomp: auto: the kernel refused the "
		    "filter (%s): running without it", why);
	/* Counters are per worker: the first one answers the stats socket. */
	rc = loop_run(cfg, lst + (size_t)k * nl, nl, k == 0 ? stats_fd : -1,
	    reload);
	tls_wipe();
	return rc;
}

int
main(int argc, char **argv)
{
	struct config *cfg = &cfgs[0], *loaded;
	const char *why;
	char err[512], addr[128], prims[160];
	int check = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-t") == 0 && !gen_only)
			check = 1;
		else if (strcmp(argv[i], "-g") == 0 && !check)
			gen_only = 1;
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			cfg_path = argv[++i];
		else {
			fprintf(stderr, "usage: tlsgate [-t | -g] [-c file]\n"
			    "  -c file  read the configuration from file\n"
			    "  -t       check the configuration, print it and "
			    "the memory footprint, exit\n"
			    "  -g       make each service's key and certificate "
			    "that are missing, exit\n");
			return 2;
		}
	}
	if (config_defaults(cfg, err, sizeof(err)) < 0 || (cfg_path != NULL &&
	    config_load(cfg, cfg_path, err, sizeof(err)) < 0))
		log_fatal(2, "%s", err);
	log_level = (int)cfg->log_level;
	log_rate = cfg->log_rate;
	if (port_run_user(cfg->user, cfg->group, &why) < 0)
		log_fatal(111, "dropping privileges (user \"%s\", group \"%s\", "
		    "chroot \"%s\"): %s", cfg->user, cfg->group, cfg->chroot,
		    why);
	if (!check)
		generate(cfg);
	if (gen_only)
		return 0;
	if (tls_init(cfg, cfg->workers > 1 && !check, &why) < 0)
		log_fatal(111, "%s", why);
	/* -t loads what is there, as cfgs[1], which no reload has used yet. */
	loaded = check ? without_generated(cfg, &cfgs[1]) : cfg;
	require_certs(loaded);
	if (tls_load(loaded, err, sizeof(err)) < 0 ||
	    metrics_fit(cfg, err, sizeof(err)) < 0)
		log_fatal(2, "%s", err);
	tls_commit();
	if (prim_choose(getenv("TLSGATE_PRIMITIVES")) < 0)
		log_fatal(2, "TLSGATE_PRIMITIVES: not a choice of primitives "
		    "this CPU has (as -t prints them)");
	prim_describe(prims, sizeof(prims));
	if (check) {
		config_print(cfg, puts);
		printf("# primitives (fastest here): %s\n", prims);
		if (cfg->seccomp == SECCOMP_AUTO)
			printf("# seccomp = auto: %s\n", (why =
			    port_sandbox_missing()) == NULL ? "on here (off if "
			    "the kernel refuses the filter)" : why);
		printf("# certificates\n");
		report_certs(loaded, 1);
		print_footprint(cfg);
		tls_wipe();
		return 0;
	}
	if (cfg->log_to == LOG_TO_SYSLOG && port_syslog_open(cfg->syslog_socket,
	    (int)cfg->syslog_facility, &why) < 0)
		log_fatal(111, "syslog %s: %s", cfg->syslog_socket, why);
	log_msg(LOG_INFO, "primitives %s", prims);
	report_certs(cfg, 0);
	if (port_fd_limit(cfg->workers * (2 * cfg->slots + 2 *
	    config_plain_slots(cfg) + cfg->pending + cfg->backend_pool +
	    32), &why) < 0)
		log_fatal(111, "%s", why);
	for (unsigned i = 0; i < cfg->nsvc; i++)
		nl += cfg->svc[i].nlisten + cfg->svc[i].nredirect;
	/* Each worker its own sockets: a restarted one finds its queue. */
	for (unsigned w = 0; w < cfg->workers; w++) {
		struct listener *l = lst + (size_t)w * nl;

		for (unsigned i = 0; i < cfg->nsvc; i++)
			l = listen_all(cfg, i, w, l);
	}
	if (cfg->stats_on) {
		port_addr_str(&cfg->stats, addr, sizeof(addr));
		stats_fd = port_listen(&cfg->stats, 16, 0, &why);
		if (stats_fd < 0)
			log_fatal(111, "stats %s: %s", addr, why);
	}
	return cfg->workers == 1 ? run_worker(0) :
	    port_run_workers(cfg->workers, run_worker);
}
