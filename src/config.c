/* SPDX-License-Identifier: ISC */
/*
 * config.c - see config.h.
 *
 * The grammar, all of it: lines of "key = value" or "[name]"; blank
 * lines; '#' starts a comment at the start of a line or after white
 * space.  Global keys come before the first [section].  Service keys
 * before it are defaults that every section inherits (all but listen);
 * a file without sections describes one service named "default".  A key
 * appears at most once per scope, except listen (up to
 * TLSGATE_MAX_LISTEN) and cert/key pairs (up to TLSGATE_MAX_SVC_CERTS;
 * the first is the default, the others are chosen by SNI).  Numbers are
 * decimal, range-checked against conf/defaults.h; durations take a unit
 * (ms, s, m, h, d; bare = seconds).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "confint.h"
#include "httpchar.h"

/*
 * Suites that went with TLS 1.0 and 1.1 (RFC 8996): a file that still
 * names one is told so, not just that the name is unknown.
 */
static const struct config_name removed_suites[] = { { "aes128-cbc", 0 },
	{ "aes256-cbc", 0 }, { NULL, 0 } };
/*
 * What a profile sets: values for profile_keys[], spelled as in the file,
 * and the suites and groups whose registry rows (tlswire.c) name it
 * (docs/engine.md and tlsgate.conf(5) quote the sources).
 * bsi: BSI TR-02102-2's TLS 1.2 and 1.3 suites and groups that tlsgate
 * has, the extended master secret it asks of TLS 1.2, and no stateless
 * tickets: their key, not the session, then decides forward secrecy, and
 * the guideline prefers resumption state the server keeps; the session
 * cache resumes both versions instead.  modern: Mozilla's, TLS 1.3 only,
 * where EMS does not apply.  cnsa2: CNSA 2.0, TLS 1.3 only; hybrid_retry
 * asks a client that lists secp384r1mlkem1024 without its share for it,
 * as CNSA 2.0's transition has servers "support and prefer" it; no
 * stateless tickets, as bsi.  Its certificates: tls.c.
 */
static const char *const profile_keys[] = { "tls_min", "tls_max", "ems",
	"tickets", "hybrid_retry" };
#define NPROFILE_KEYS	(sizeof(profile_keys) / sizeof(profile_keys[0]))
static const char *const profile_sets[][NPROFILE_KEYS] = {
	{ "1.2", "1.3", "optional", "on", "off" },
	{ "1.2", "1.3", "required", "off", "off" },
	{ "1.3", "1.3", "optional", "on", "off" },
	{ "1.3", "1.3", "optional", "off", "on" },
};

/* Parser state: the current scope and what was set where. */
struct parse {
	struct config	*c;
	struct service	 tmpl;		/* service keys before any section */
	struct service	*cur;		/* &tmpl, or the current section */
	unsigned	 seen[CONFIG_KEYS_MAX];	/* by key: line, 0 if not */
	unsigned	 section_line[TLSGATE_MAX_SERVICES];
	unsigned	 listen_line;	/* of a listen or redirect outside */
	const char	*listen_key;
	int		 cert_here;	/* a cert line in this scope */
	char		 pending_key[CONFIG_PATH_MAX];
	unsigned	 pending_line;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
fail(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	return -1;
}

/* strtonum-style: all digits, no sign, no overflow past max. */
static const char *
parse_uint(const char *v, size_t len, unsigned long long max,
    unsigned long long *out)
{
	unsigned long long n = 0;

	if (len == 0)
		return "expected a number";
	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return "expected a number";
		n = n * 10 + (unsigned)(v[i] - '0');
		if (n > max)
			return "too large";
	}
	*out = n;
	return NULL;
}

static const char *
copy_str(char *dst, size_t cap, const char *v, size_t len)
{
	if (len >= cap)
		return "too long";
	memcpy(dst, v, len);
	dst[len] = '\0';
	return NULL;
}

/*
 * Lists (cert_names, suites, groups, proxy_from) separate their items
 * by commas or blanks: skip to the next item from *at and return its
 * length, 0 when none is left.
 */
static size_t
next_token(const char *v, size_t len, size_t *at)
{
	size_t i = *at, j;

	while (i < len && (v[i] == ',' || is_ws(v[i])))
		i++;
	for (j = i; j < len && v[j] != ',' && !is_ws(v[j]); j++)
		;
	*at = i;
	return j - i;
}

/* cert_names: DNS names and IP addresses. */
static const char *
set_names(struct service *s, const char *v, size_t len, char *msg,
    size_t msgcap)
{
	size_t i = 0, n;
	uint8_t ip[16];

	s->ncert_names = 0;
	for (; (n = next_token(v, len, &i)) > 0; i += n) {
		if (port_ip_parse(v + i, n, ip) == 0 &&
		    !certname_is_host(v + i, n)) {
			snprintf(msg, msgcap, "\"%.*s\" is neither a host name "
			    "nor an IP address", (int)n, v + i);
			return msg;
		}
		if (s->ncert_names == CERTNAME_MAX)
			return "more than 8 names (CERTNAME_MAX)";
		if (n >= CERTNAME_LEN)
			return "a name longer than 63 bytes";
		for (size_t k = 0; k < n; k++)
			s->cert_names[s->ncert_names][k] = (char)to_lower(
			    (uint8_t)v[i + k]);
		s->cert_names[s->ncert_names++][n] = '\0';
	}
	return s->ncert_names == 0 ? "no name" : NULL;
}

/* proxy_from: IPv4 and IPv6 addresses or prefixes, or "none". */
static const char *
set_nets(struct service *s, const char *v, size_t len, char *msg,
    size_t msgcap)
{
	size_t i = 0, n;
	const char *why;

	s->nproxy_from = 0;
	if (len == 4 && memcmp(v, "none", 4) == 0)
		return NULL;
	for (; (n = next_token(v, len, &i)) > 0; i += n) {
		if (s->nproxy_from == TLSGATE_MAX_PROXY_FROM)
			return "too many prefixes (TLSGATE_MAX_PROXY_FROM)";
		why = proxyin_net_parse(&s->proxy_from[s->nproxy_from], v + i,
		    n);
		if (why != NULL) {
			snprintf(msg, msgcap, "\"%.*s\": %s", (int)n, v + i, why);
			return msg;
		}
		s->nproxy_from++;
	}
	return s->nproxy_from == 0 ? "an empty list (none: no source)" : NULL;
}

int
config_proxy_trusted(const struct service *s, const struct port_addr *a)
{
	uint8_t ip[16];
	size_t n = port_addr_raw(a, ip);

	return proxyin_trusted(s->proxy_from, s->nproxy_from, ip, n);
}

/* The entry of names spelled v (len bytes), or NULL. */
static const struct config_name *
find_name(const struct config_name *e, const char *v, size_t len)
{
	for (; e->name != NULL; e++)
		if (strlen(e->name) == len && memcmp(e->name, v, len) == 0)
			return e;
	return NULL;
}

/*
 * suites, groups: names from one registry, in order, each at most once
 * (so no more than the registry has).
 */
static const char *
set_list(struct config_list *l, const struct key *k, const char *v,
    size_t len, char *msg, size_t msgcap)
{
	const char *e;
	size_t i = 0, j, n, r;
	unsigned code, prof;

	l->n = 0;
	for (; (j = next_token(v, len, &i)) > 0; i += j) {
		for (r = 0; (e = config_row(k, r, &code, &prof)) != NULL; r++)
			if (strlen(e) == j && memcmp(e, v + i, j) == 0)
				break;
		if (e == NULL) {
			n = (size_t)snprintf(msg, msgcap, k->kind == K_SUITES &&
			    find_name(removed_suites, v + i, j) != NULL ?
			    "\"%.*s\": the CBC suites were removed with TLS 1.0 "
			    "and 1.1; the AEAD ones remain:" :
			    "unknown name \"%.*s\", not one of", (int)j, v + i);
			for (r = 0; n < msgcap && (e = config_row(k, r, &code,
			    &prof)) != NULL; r++)
				n += (size_t)snprintf(msg + n, msgcap - n, " %s",
				    e);
			return msg;
		}
		for (unsigned q = 0; q < l->n; q++)
			if (l->v[q] == code) {
				snprintf(msg, msgcap, "\"%.*s\" named twice",
				    (int)j, v + i);
				return msg;
			}
		if (l->n == CONFIG_LIST_MAX)
			return "too many names";
		l->v[l->n++] = (unsigned short)code;
	}
	return l->n == 0 ? "an empty list" : NULL;
}

static const struct key *
find_key(const char *name, size_t len)
{
	for (size_t i = 0; i < config_nkeys; i++)
		if (strlen(config_keys[i].name) == len &&
		    memcmp(config_keys[i].name, name, len) == 0)
			return &config_keys[i];
	return NULL;
}

/* Where a key was set in this scope (a service key: in this section). */
static unsigned
line_of(const struct parse *p, const char *name)
{
	const struct key *k = find_key(name, strlen(name));

	return p->seen[k - config_keys];
}

/* Duration units, longest first: the printer takes the first that fits. */
static const struct config_name units[] = { { "d", 86400000 },
	{ "h", 3600000 }, { "m", 60000 }, { "s", 1000 }, { "ms", 1 },
	{ NULL, 0 } };

/*
 * A duration's unit off the end of v (*len shortened), its milliseconds
 * in *mul; a bare number is seconds.  NULL, or why not.
 */
static const char *
duration_unit(const char *v, size_t *len, unsigned long long *mul)
{
	const struct config_name *u;
	size_t n = *len;

	*mul = 1000;
	while (n > 0 && (v[n - 1] < '0' || v[n - 1] > '9'))
		n--;
	if (n == *len)
		return NULL;
	if ((u = find_name(units, v + n, *len - n)) == NULL)
		return "expected a number and a unit: ms, s, m, h or d";
	*mul = u->code;
	*len = n;
	return NULL;
}

void
config_value_str(const struct key *k, unsigned u, char *buf, size_t cap)
{
	const struct config_name *e = units;

	if (k->kind != K_MS || u == 0) {
		snprintf(buf, cap, "%u", u);
		return;
	}
	while (u % e->code != 0)
		e++;
	snprintf(buf, cap, "%u%s", u / e->code, e->name);
}

/* Returns NULL or the reason; msg has room for a formatted reason. */
static const char *
set_value(struct parse *p, const struct key *k, const char *v, size_t len,
    unsigned line, char *msg, size_t msgcap)
{
	struct service *s = p->cur;
	char *field = (k->scope == GLOBAL ? (char *)p->c : (char *)s) + k->off;
	unsigned long long n = 0, mul = 1;
	struct svc_cert *ce;
	struct port_addr *addrs;
	unsigned *na, u, prof;
	const char *why, *unit;
	uint8_t ip[16];

	/* Unset, as -t prints what is not set. */
	if ((k->kind == K_REDIRECT || (k->kind == K_ADDR && k->scope ==
	    GLOBAL)) && len == 4 && memcmp(v, "none", 4) == 0)
		return NULL;
	switch (k->kind) {
	case K_ADDR:
		return port_addr_parse((struct port_addr *)(void *)field, v, len,
		    &why) < 0 ? why : NULL;
	case K_LISTEN:
	case K_REDIRECT:
		addrs = k->kind == K_LISTEN ? s->listen : s->redirect;
		na = k->kind == K_LISTEN ? &s->nlisten : &s->nredirect;
		if (*na == TLSGATE_MAX_LISTEN)
			return "too many addresses (TLSGATE_MAX_LISTEN)";
		if (port_addr_parse(&addrs[*na], v, len, &why) < 0)
			return why;
		/* A certificate, PROXY and per-source limits need an IP. */
		if (port_addr_raw(&addrs[*na], ip) == 0)
			return "expected ip:port or [ipv6]:port, not a path";
		(*na)++;
		/* The check after the last line names one outside. */
		if (s == &p->tmpl && p->listen_line == 0) {
			p->listen_line = line;
			p->listen_key = k->name;
		}
		return NULL;
	case K_CERT:
		if (!p->cert_here)
			s->ncerts = 0;	/* the first cert line replaces */
		p->cert_here = 1;
		if (s->ncerts == TLSGATE_MAX_SVC_CERTS)
			return "too many certificates (TLSGATE_MAX_SVC_CERTS)";
		ce = &s->certs[s->ncerts];
		if ((why = copy_str(ce->cert, sizeof(ce->cert), v, len)) != NULL)
			return why;
		memcpy(ce->key, p->pending_key, sizeof(ce->key));
		ce->line = line;
		p->pending_key[0] = '\0';
		s->ncerts++;
		return NULL;
	case K_KEY:
		ce = &s->certs[s->ncerts > 0 ? s->ncerts - 1 : 0];
		if (p->cert_here && ce->key[0] == '\0')
			return copy_str(ce->key, sizeof(ce->key), v, len);
		if (p->pending_key[0] != '\0')
			return "two keys without a cert between them";
		p->pending_line = line;
		return copy_str(p->pending_key, sizeof(p->pending_key), v, len);
	case K_NAMES:
		return set_names(s, v, len, msg, msgcap);
	case K_NETS:
		return set_nets(s, v, len, msg, msgcap);
	case K_STR:
		return copy_str(field, k->max > 0 ? k->max : CONFIG_PATH_MAX, v,
		    len);
	case K_ENUM:
	case K_LEVEL:
		for (size_t i = 0; (why = config_row(k, i, &u, &prof)); i++)
			if (strlen(why) == len && memcmp(why, v, len) == 0) {
				*(unsigned *)(void *)field = u;
				return NULL;
			}
		n = (unsigned long long)snprintf(msg, msgcap, "expected");
		for (size_t i = 0; (why = config_row(k, i, &u, &prof)) != NULL &&
		    n < msgcap; i++)
			n += (unsigned long long)snprintf(msg + n, msgcap - n,
			    "%s %s", i == 0 ? "" :
			    config_row(k, i + 1, &u, &prof) == NULL ? " or" : ",",
			    why);
		return msg;
	case K_SUITES:
	case K_GROUPS:
		return set_list((struct config_list *)(void *)field, k, v,
		    len, msg, msgcap);
	case K_MS:
		if ((unit = duration_unit(v, &len, &mul)) != NULL)
			return unit;
		/* FALLTHROUGH */
	case K_UINT:
		if ((why = parse_uint(v, len, 1ULL << 34, &n)) != NULL)
			return why;
		n *= mul;
		if (n < k->min || n > k->max) {
			char lo[16], hi[16];

			config_value_str(k, k->min, lo, sizeof(lo));
			config_value_str(k, k->max, hi, sizeof(hi));
			snprintf(msg, msgcap, "must be between %s and %s%s", lo,
			    hi, k->kind == K_UINT &&
			    (k->max == TLSGATE_MAX_SLOTS || k->max ==
			    TLSGATE_MAX_CACHE || k->max == TLSGATE_MAX_WORKERS) ?
			    " (the compile-time limit in defaults.h)" : "");
			return msg;
		}
		*(unsigned *)(void *)field = (unsigned)n;
		return NULL;
	case K_TLS:
		if (len == 3 && memcmp(v, "1.", 2) == 0)
			n = 0x0301u + (unsigned char)v[2] - '0';
		/* Once valid: a file that names them is told why they went. */
		if (n == 0x0301 || n == 0x0302)
			return "TLS 1.0 and 1.1 are no longer supported "
			    "(RFC 8996)";
		if (n >= k->min && n <= k->max) {
			*(unsigned *)(void *)field = (unsigned)n;
			return NULL;
		}
		snprintf(msg, msgcap, "expected 1.%u to 1.%u", k->min - 0x0301,
		    k->max - 0x0301);
		return msg;
	}
	return "internal error";
}

/*
 * After a tls_profile line: set profile_keys[], but not those that this
 * scope sets itself, before or after it.
 */
static void
set_profile(struct parse *p)
{
	static const char *const lists[] = { "suites", "groups" };
	const struct key *k;
	struct config_list *l;
	const char *v;
	char msg[8];
	unsigned code, prof;

	for (size_t i = 0; i < NPROFILE_KEYS; i++) {
		v = profile_sets[p->cur->profile][i];
		if (!line_of(p, profile_keys[i]))
			(void)set_value(p, find_key(profile_keys[i],
			    strlen(profile_keys[i])), v, strlen(v), 0, msg,
			    sizeof(msg));
	}
	for (size_t i = 0; i < 2; i++) {
		if (line_of(p, lists[i]))
			continue;
		k = find_key(lists[i], strlen(lists[i]));
		l = (struct config_list *)(void *)((char *)p->cur + k->off);
		l->n = 0;
		for (size_t r = 0; config_row(k, r, &code, &prof) != NULL; r++)
			if (prof & 1u << p->cur->profile)
				l->v[l->n++] = (unsigned short)code;
	}
}

/* "[name]": start a section that inherits the service defaults. */
static const char *
open_section(struct parse *p, const char *v, size_t len, unsigned line)
{
	struct config *c = p->c;
	struct service *s;

	if (len == 0 || len >= CONFIG_NAME_MAX)
		return "section name must be 1 to 31 characters";
	for (size_t i = 0; i < len; i++)
		if (!is_alnum((uint8_t)v[i]) && v[i] != '-' && v[i] != '_')
			return "section name may have only letters, digits, - "
			    "and _";
	if (p->cur == &p->tmpl)
		c->nsvc = 0;
	for (unsigned i = 0; i < c->nsvc; i++)
		if (strlen(c->svc[i].name) == len &&
		    memcmp(c->svc[i].name, v, len) == 0)
			return "section already defined";
	if (c->nsvc == TLSGATE_MAX_SERVICES)
		return "too many sections (TLSGATE_MAX_SERVICES)";
	if (p->pending_key[0] != '\0')
		return "the key before it has no cert";
	s = &c->svc[c->nsvc];
	*s = p->tmpl;
	s->nlisten = s->nredirect = 0;
	memcpy(s->name, v, len);
	s->name[len] = '\0';
	s->index = c->nsvc;
	p->section_line[c->nsvc++] = line;
	p->cur = s;
	for (size_t i = 0; i < config_nkeys; i++)
		if (config_keys[i].scope == SERVICE)
			p->seen[i] = 0;
	p->cert_here = 0;
	return NULL;
}

/*
 * ticket_key_rotate against the longest session_lifetime of a service
 * with tickets, L: at most L, so that no key outlives 2 L (a key seals
 * for one period and opens until its last ticket expires), and at least
 * L / 7, so that the keys kept (1 + L / rotate, rounded up) fit the
 * store's 8 (ticket.h).  1 s at the least.
 */
static int
check_rotate(struct parse *p, const char *name, char *err, size_t cap)
{
	unsigned long long r = p->c->ticket_rotate_ms, l;
	unsigned def;

	l = config_ticket_life(p->c, &def);
	if (r == 0 || l == 0)
		return 0;
	if (r < 1000)
		return fail(err, cap, "%s:%u: ticket_key_rotate: 1s at the "
		    "least", name, line_of(p, "ticket_key_rotate"));
	if (r > l)
		return fail(err, cap, "%s:%u: ticket_key_rotate: longer than "
		    "session_lifetime (%llus): a key would outlive twice it",
		    name, line_of(p, "ticket_key_rotate"), l / 1000);
	if ((l / 1000 + r / 1000 - 1) / (r / 1000) > 7)
		return fail(err, cap, "%s:%u: ticket_key_rotate: shorter than "
		    "session_lifetime / 7 (%llus): more than 8 keys to keep",
		    name, line_of(p, "ticket_key_rotate"), l / 7000);
	return 0;
}

unsigned
config_ticket_life(const struct config *c, unsigned *rotate_ms)
{
	unsigned l = 0;

	for (unsigned i = 0; i < c->nsvc; i++)
		if (c->svc[i].tickets && c->svc[i].lifetime_ms > l)
			l = c->svc[i].lifetime_ms;
	*rotate_ms = c->ticket_rotate_ms != 0 ? c->ticket_rotate_ms :
	    l / 2 >= 1000 ? l / 2 : 1000;
	return l;
}

unsigned
config_plain_slots(const struct config *c)
{
	for (unsigned i = 0; i < c->nsvc; i++)
		if (c->svc[i].nredirect > 0)
			return c->redirect_slots;
	return 0;
}

/* After the last line: every service complete, limits kept. */
static int
check_services(struct parse *p, const char *name, char *err, size_t cap)
{
	struct config *c = p->c;
	unsigned cache = 0, creds = 0, ln;
	const char *why;

	if (p->pending_key[0] != '\0')
		return fail(err, cap, "%s:%u: key: no cert line goes with it",
		    name, p->pending_line);
	if (p->cur == &p->tmpl) {
		/* No sections: the defaults are the one service. */
		struct port_addr l = c->svc[0].listen[0];

		c->svc[0] = p->tmpl;
		snprintf(c->svc[0].name, sizeof(c->svc[0].name), "default");
		if (c->svc[0].nlisten == 0) {
			c->svc[0].listen[0] = l;
			c->svc[0].nlisten = 1;
		}
		c->nsvc = 1;
	} else if (p->tmpl.nlisten > 0 || p->tmpl.nredirect > 0)
		return fail(err, cap, "%s:%u: %s: outside a [section] while "
		    "sections are used", name, p->listen_line, p->listen_key);
	for (unsigned i = 0; i < c->nsvc; i++) {
		struct service *s = &c->svc[i];

		if (s->nlisten == 0)
			return fail(err, cap, "%s:%u: [%s]: no listen address",
			    name, p->section_line[i], s->name);
		for (unsigned j = 0; j < s->ncerts; j++)
			if (s->certs[j].key[0] == '\0')
				return fail(err, cap, "%s: [%s]: cert %s: no key "
				    "line goes with it", name, s->name,
				    s->certs[j].cert);
		ln = p->cur != &p->tmpl ? p->section_line[i] :
		    line_of(p, "tls_min") > line_of(p, "tls_max") ?
		    line_of(p, "tls_min") : line_of(p, "tls_max");
		if (ln < line_of(p, "tls_profile") && p->cur == &p->tmpl)
			ln = line_of(p, "tls_profile");
		if (s->tls_min > s->tls_max)
			return fail(err, cap, "%s:%u: [%s]: tls_min: 1.%u is above "
			    "tls_max", name, ln, s->name, s->tls_min - 0x0301);
		if (s->client_crl[0] != '\0' && s->client_ca[0] == '\0')
			return fail(err, cap, "%s:%u: [%s]: client_crl: without "
			    "client_ca, no client certificate is asked for",
			    name, p->cur == &p->tmpl ? line_of(p, "client_crl") :
			    p->section_line[i], s->name);
		if (s->acme && s->proxy != PROXY_OFF)
			return fail(err, cap, "%s:%u: [%s]: acme_passthrough: "
			    "the backend expects a PROXY header "
			    "(proxy_protocol)", name, p->cur == &p->tmpl ?
			    line_of(p, "acme_passthrough") : p->section_line[i],
			    s->name);
		cache += s->cache;
		creds += s->ncerts;
	}
	if (cache > TLSGATE_MAX_CACHE)
		return fail(err, cap, "%s: session_cache: %u in all, more than "
		    "the compile-time limit %u", name, cache,
		    (unsigned)TLSGATE_MAX_CACHE);
	if (check_rotate(p, name, err, cap) < 0)
		return -1;
	/* Else -t would pass what start-up then refuses, in a respawn loop. */
	if (c->seccomp == SECCOMP_ON && (why = port_sandbox_missing()) != NULL)
		return fail(err, cap, "%s:%u: seccomp: on, but %s: set auto or "
		    "off", name, line_of(p, "seccomp"), why);
	if (creds > TLSGATE_MAX_CREDS)
		return fail(err, cap, "%s: cert: %u in all, more than the "
		    "compile-time limit %u", name, creds,
		    (unsigned)TLSGATE_MAX_CREDS);
	return 0;
}

enum { LINE_BLANK, LINE_SECTION, LINE_NO_NAME, LINE_KEY, LINE_NO_EQ,
	LINE_CTL };

/*
 * The line tokenizer: the line q[0..eol) (its '\n' excluded), comment and
 * outer blanks dropped.  LINE_SECTION: [*k, *ve) is "[name]";
 * LINE_NO_NAME: it starts with '[' but is not that.  LINE_KEY: the key is [*k, *ke), the value [*v, *ve), blanks around
 * '=' dropped (it may be empty).  LINE_NO_EQ: the would-be key is
 * [*k, *ke).  LINE_CTL: a control byte other than HTAB, or than CR
 * right before the '\n'.  Every pointer it sets lies in [q, eol].
 */
static int
split_line(const char *q, const char *eol, const char **k, const char **ke,
    const char **v, const char **ve)
{
	const char *r, *e = eol;

	*k = *ke = *v = *ve = q;
	for (r = q; r < eol; r++)
		if ((*r < 0x20 && *r != '\t' && !(*r == '\r' &&
		    r + 1 == eol)) || *r == 0x7f)
			return LINE_CTL;
	if (e > q && e[-1] == '\r')
		e--;
	/* A comment starts at '#' at line start or after a blank. */
	for (r = q; r < e; r++)
		if (*r == '#' && (r == q || is_ws(r[-1]))) {
			e = r;
			break;
		}
	for (r = q; r < e && is_ws(*r); r++)
		;
	while (e > r && is_ws(e[-1]))
		e--;
	/* r >= e, not r == e: an analyser then sees r < e below. */
	if (r >= e)
		return LINE_BLANK;
	*k = *ke = *v = r;
	*ve = e;
	if (*r == '[')
		return r + 1 < e && e[-1] == ']' ? LINE_SECTION : LINE_NO_NAME;
	while (r < e && *r != '=' && !is_ws(*r))
		r++;
	*ke = r;
	while (r < e && is_ws(*r))
		r++;
	if (r >= e || *r != '=')
		return LINE_NO_EQ;
	for (r++; r < e && is_ws(*r); r++)
		;
	*v = r;
	return LINE_KEY;
}

static struct parse p;

int
config_parse(struct config *c, const char *name, const char *text,
    size_t len, char *err, size_t errcap)
{
	const char *q = text, *end = text + len;
	unsigned line = 0;
	char msg[160];

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.tmpl = c->svc[0];
	p.tmpl.nlisten = p.tmpl.nredirect = 0;
	for (unsigned i = 0; i < p.tmpl.ncerts; i++)
		p.tmpl.certs[i].line = 0;	/* not this file's lines */
	p.cur = &p.tmpl;
	while (q < end) {
		const char *eol = memchr(q, '\n', (size_t)(end - q));
		const char *k, *ke, *v, *ve, *why;
		const struct key *key;
		unsigned *seen;
		int kind;

		if (eol == NULL)
			eol = end;
		line++;
		kind = split_line(q, eol, &k, &ke, &v, &ve);
		q = eol + 1;
		if (kind == LINE_BLANK)
			continue;
		if (kind == LINE_CTL)
			return fail(err, errcap, "%s:%u: control character "
			    "in line", name, line);
		if (kind == LINE_SECTION || kind == LINE_NO_NAME) {
			if (kind == LINE_NO_NAME)
				why = "expected [name]";
			else
				why = open_section(&p, k + 1, (size_t)(ve - k - 2),
				    line);
			if (why != NULL)
				return fail(err, errcap, "%s:%u: %.*s: %s", name,
				    line, (int)(ve - k), k, why);
			continue;
		}
		if (kind == LINE_NO_EQ)
			return fail(err, errcap, "%s:%u: %.*s: expected "
			    "\"key = value\"", name, line, (int)(ke - k), k);
		if ((key = find_key(k, (size_t)(ke - k))) == NULL)
			return fail(err, errcap, "%s:%u: %.*s: unknown key", name,
			    line, (int)(ke - k), k);
		if (key->scope == GLOBAL && p.cur != &p.tmpl)
			return fail(err, errcap, "%s:%u: %s: a global key: put it "
			    "before the first [section]", name, line,
			    key->name);
		seen = &p.seen[key - config_keys];
		if (*seen && key->kind != K_LISTEN &&
		    key->kind != K_REDIRECT &&
		    key->kind != K_CERT && key->kind != K_KEY)
			return fail(err, errcap, "%s:%u: %s: already set at line "
			    "%u", name, line, key->name, *seen);
		if (v == ve)
			return fail(err, errcap, "%s:%u: %s: missing value", name,
			    line, key->name);
		why = set_value(&p, key, v, (size_t)(ve - v), line, msg,
		    sizeof(msg));
		if (why == NULL && strcmp(key->name, "tls_profile") == 0)
			set_profile(&p);
		*seen = line;
		if (why != NULL)
			return fail(err, errcap, "%s:%u: %s: %s: \"%.*s\"", name,
			    line, key->name, why, (int)(ve - v), v);
		if (key->kind == K_ADDR && key->scope == GLOBAL)
			/* stats: the one global address */
			c->stats_on = ve - v != 4 || memcmp(v, "none", 4) != 0;
	}
	return check_services(&p, name, err, errcap);
}

static char text[TLSGATE_MAX_FILE];

int
config_defaults(struct config *c, char *err, size_t cap)
{
	memset(c, 0, sizeof(*c));
	if (config_parse(c, "defaults.h", TLSGATE_CONFIG,
	    sizeof(TLSGATE_CONFIG) - 1, err, cap) < 0)
		return -1;
	/* A value left out would be 0, past every range check: only what
	 * may be empty (paths, names, the stats socket) may be missing. */
	for (size_t i = 0; i < config_nkeys; i++) {
		const struct key *k = &config_keys[i];

		if (k->kind != K_STR && k->kind != K_NAMES &&
		    k->kind != K_REDIRECT && (k->kind != K_ADDR ||
		    k->scope != GLOBAL) && !p.seen[i])
			return fail(err, cap, "defaults.h: %s: missing from "
			    "TLSGATE_CONFIG", k->name);
	}
	return 0;
}

size_t
config_static_bytes(void)
{
	return sizeof(text) + sizeof(p);
}

int
config_load(struct config *c, const char *path, char *err, size_t cap)
{
	const char *why;
	long n;

	n = port_read_file(path, text, sizeof(text), &why);
	if (n < 0)
		return fail(err, cap, "%s: %s", path, why);
	return config_parse(c, path, text, (size_t)n, err, cap);
}
