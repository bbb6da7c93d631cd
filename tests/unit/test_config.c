/* SPDX-License-Identifier: ISC */
/*
 * test_config.c - the config grammar (config.c) without a process: keys
 * and their bounds, sections, the errors ("file:line: key: why"),
 * tls_profile and the keys a scope sets around it, and tlsgate -t's
 * printing read back as a config.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "tlswire.h"
#include "unit.h"

static struct config cfg;
static char err[512];

/* The defaults, then text as the file "t.conf": what config_parse says. */
static int
parse(const char *text)
{
	if (config_defaults(&cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "  defaults: %s\n", err);
		return -2;
	}
	err[0] = '\0';
	return config_parse(&cfg, "t.conf", text, strlen(text), err,
	    sizeof(err));
}

/* text is refused, and the message starts with want. */
static int
refused(const char *text, const char *want)
{
	if (parse(text) != -1 || strncmp(err, want, strlen(want)) != 0) {
		fprintf(stderr, "  %s -> \"%s\", not \"%s...\"\n", text, err,
		    want);
		return 0;
	}
	return 1;
}

static int
defaults_parse_to_one_service(void)
{
	CHECK(parse("") == 0);
	CHECK(cfg.nsvc == 1 && strcmp(cfg.svc[0].name, "default") == 0);
	CHECK(cfg.svc[0].nlisten == 1);
	CHECK(cfg.svc[0].tls_min == TLS12 && cfg.svc[0].tls_max == TLS13);
	CHECK(cfg.slots >= 1 && cfg.slots <= TLSGATE_MAX_SLOTS);
	return 1;
}

static int
values_and_units_are_read(void)
{
	CHECK(parse("slots = 7\n"
	    "# a comment line\n"
	    "  workers=2   # and one after a blank\n"
	    "session_lifetime = 90s\n"
	    "handshake_timeout = 250ms\n"
	    "idle_timeout = 2m\n"
	    "tls_min = 1.3\r\n") == 0);
	CHECK(cfg.slots == 7 && cfg.workers == 2);
	CHECK(cfg.svc[0].lifetime_ms == 90000);
	CHECK(cfg.svc[0].handshake_ms == 250);
	CHECK(cfg.svc[0].idle_ms == 120000);
	CHECK(cfg.svc[0].tls_min == TLS13);
	return 1;
}

static int
bounds_are_kept_at_both_ends(void)
{
	CHECK(refused("slots = 0\n", "t.conf:1: slots: must be between"));
	CHECK(refused("\nhandshake_timeout = 99ms\n",
	    "t.conf:2: handshake_timeout: must be between"));
	CHECK(refused("session_lifetime = 999ms\n",
	    "t.conf:1: session_lifetime: must be between"));
	CHECK(refused("slots = 99999999999999999999\n",
	    "t.conf:1: slots: too large"));
	CHECK(refused("slots = seven\n", "t.conf:1: slots: expected a number"));
	CHECK(parse("handshake_timeout = 100ms\n") == 0);
	CHECK(cfg.svc[0].handshake_ms == 100);
	return 1;
}

static int
errors_name_the_file_line_and_key(void)
{
	CHECK(refused("slots = 8\nno_such_key = 1\n",
	    "t.conf:2: no_such_key: unknown key"));
	CHECK(refused("slots 8\n", "t.conf:1: slots: expected \"key = value\""));
	CHECK(refused("slots =\n", "t.conf:1: slots: missing value"));
	CHECK(refused("slots = 8\nslots = 9\n",
	    "t.conf:2: slots: already set at line 1"));
	CHECK(refused("tls_min = 1.1\n", "t.conf:1: tls_min: TLS 1.0 and 1.1"));
	CHECK(refused("tls_max = 1.4\n", "t.conf:1: tls_max: expected 1.2 to "
	    "1.3"));
	CHECK(refused("tickets = maybe\n", "t.conf:1: tickets: expected"));
	CHECK(refused("slots = 8\n\x01\n", "t.conf:2: control character"));
	return 1;
}

static int
sections_inherit_and_are_checked(void)
{
	char addr[64];

	CHECK(parse("session_lifetime = 60s\n"
	    "[a]\nlisten = 127.0.0.1:8443\nbackend = 127.0.0.1:8080\n"
	    "[b-2]\nlisten = [::1]:9443\nsession_lifetime = 30s\n") == 0);
	CHECK(cfg.nsvc == 2);
	CHECK(strcmp(cfg.svc[0].name, "a") == 0 && cfg.svc[0].index == 0);
	CHECK(strcmp(cfg.svc[1].name, "b-2") == 0 && cfg.svc[1].index == 1);
	CHECK(cfg.svc[0].lifetime_ms == 60000);
	CHECK(cfg.svc[1].lifetime_ms == 30000);
	port_addr_str(&cfg.svc[1].listen[0], addr, sizeof(addr));
	CHECK(strcmp(addr, "[::1]:9443") == 0);
	CHECK(refused("[a]\nlisten = 127.0.0.1:1\n[a]\n",
	    "t.conf:3: [a]: section already defined"));
	CHECK(refused("[a b]\n", "t.conf:1: [a b]: section name may have"));
	CHECK(refused("[a]\nlisten = 127.0.0.1:1\nslots = 4\n",
	    "t.conf:3: slots: a global key: put it before the first"));
	CHECK(refused("[a]\nbackend = 127.0.0.1:1\n",
	    "t.conf:1: [a]: no listen address"));
	CHECK(refused("[a]\nlisten = 127.0.0.1:1\ntls_min = 1.3\n"
	    "tls_max = 1.2\n", "t.conf:1: [a]: tls_min: 1.3 is above tls_max"));
	return 1;
}

static int
addresses_share_one_grammar(void)
{
	CHECK(refused("backend = 127.0.0.01:80\n", "t.conf:1: backend:"));
	CHECK(refused("backend = localhost:80\n", "t.conf:1: backend:"));
	CHECK(refused("backend = 127.0.0.1:65536\n", "t.conf:1: backend:"));
	/* A path is a backend's or stats', never a listener's. */
	CHECK(parse("backend = unix:/run/ui.sock\n") == 0);
	CHECK(refused("listen = unix:/run/tls.sock\n",
	    "t.conf:1: listen: expected ip:port or [ipv6]:port, not a path"));
	CHECK(refused("redirect = unix:/run/http.sock\n",
	    "t.conf:1: redirect: expected ip:port"));
	CHECK(parse("proxy_from = 10.0.0.0/8 fd00::/8\n"
	    "cert_names = gw.example 192.0.2.1 2001:db8::1\n") == 0);
	CHECK(cfg.svc[0].nproxy_from == 2 && cfg.svc[0].ncert_names == 3);
	CHECK(refused("proxy_from = 10.0.0.1/8\n",
	    "t.conf:1: proxy_from: \"10.0.0.1/8\": address bits set"));
	CHECK(refused("proxy_from = 010.0.0.0/8\n",
	    "t.conf:1: proxy_from: \"010.0.0.0/8\": not an IPv4 or IPv6"));
	CHECK(refused("cert_names = -bad.example\n",
	    "t.conf:1: cert_names: \"-bad.example\" is neither"));
	return 1;
}

static int
cert_and_key_come_in_pairs(void)
{
	CHECK(parse("cert = /a.pem\nkey = /a.key\ncert = /b.pem\n"
	    "key = /b.key\n") == 0);
	CHECK(cfg.svc[0].ncerts == 2);
	CHECK(strcmp(cfg.svc[0].certs[1].key, "/b.key") == 0);
	CHECK(refused("cert = /a.pem\n", "t.conf: [default]: cert /a.pem: no "
	    "key line"));
	CHECK(refused("key = /a.key\n", "t.conf:1: key: no cert line"));
	return 1;
}

/*
 * A profile sets tls_min, tls_max, ems, tickets, suites and groups,
 * except those the same scope sets itself, before or after it.
 */
static int
profiles_set_what_the_scope_leaves(void)
{
	CHECK(parse("tls_profile = modern\n") == 0);
	CHECK(cfg.svc[0].tls_min == TLS13 && cfg.svc[0].tls_max == TLS13);
	CHECK(parse("tls_profile = bsi\n") == 0);
	CHECK(cfg.svc[0].ems_required && !cfg.svc[0].tickets);
	for (unsigned i = 0; i < cfg.svc[0].groups.n; i++)
		CHECK(cfg.svc[0].groups.v[i] != GROUP_X25519);
	CHECK(parse("tickets = on\ntls_profile = bsi\n") == 0);
	CHECK(cfg.svc[0].tickets && cfg.svc[0].ems_required);
	CHECK(parse("tls_profile = modern\ntls_min = 1.2\n") == 0);
	CHECK(cfg.svc[0].tls_min == TLS12 && cfg.svc[0].tls_max == TLS13);
	/* Per section: one service's profile is not another's. */
	CHECK(parse("[a]\nlisten = 127.0.0.1:1\ntls_profile = modern\n"
	    "[b]\nlisten = 127.0.0.1:2\n") == 0);
	CHECK(cfg.svc[0].tls_min == TLS13 && cfg.svc[1].tls_min == TLS12);
	CHECK(refused("tls_profile = nist\n", "t.conf:1: tls_profile: expected"));
	return 1;
}

static int
lists_keep_order_and_refuse_repeats(void)
{
	CHECK(parse("groups = secp384r1 secp256r1\n") == 0);
	CHECK(cfg.svc[0].groups.n == 2);
	CHECK(cfg.svc[0].groups.v[0] == GROUP_SECP384R1 &&
	    cfg.svc[0].groups.v[1] == GROUP_SECP256R1);
	CHECK(refused("groups = secp256r1 secp256r1\n",
	    "t.conf:1: groups: \"secp256r1\" named twice"));
	CHECK(refused("groups = p256\n",
	    "t.conf:1: groups: unknown name \"p256\", not one of"));
	return 1;
}

/* ticket_key_rotate against the longest lifetime of a ticket service. */
static int
ticket_rotation_is_bounded_by_the_lifetime(void)
{
	CHECK(parse("ticket_key_rotate = 60m\nsession_lifetime = 120m\n") == 0);
	CHECK(refused("ticket_key_rotate = 121m\nsession_lifetime = 120m\n",
	    "t.conf:1: ticket_key_rotate: longer than session_lifetime"));
	CHECK(refused("ticket_key_rotate = 10m\nsession_lifetime = 120m\n",
	    "t.conf:1: ticket_key_rotate: shorter than session_lifetime / 7"));
	/* Without tickets no lifetime bounds it. */
	CHECK(parse("ticket_key_rotate = 121m\nsession_lifetime = 120m\n"
	    "tickets = off\n") == 0);
	return 1;
}

/* config_print's lines, one text; an empty value ("user = ") left out. */
static char out[16384];
static size_t outlen;

static int
put(const char *line)
{
	size_t n = strlen(line);

	if (n >= 1 && (line[n - 1] == '=' || (n >= 2 &&
	    strcmp(line + n - 2, "= ") == 0)))
		return 0;
	if (outlen + n + 1 >= sizeof(out))
		return -1;
	memcpy(out + outlen, line, n);
	out[outlen + n] = '\n';
	outlen += n + 1;
	return 0;
}

/*
 * tlsgate -t prints every value in the grammar the parser reads: its
 * lines (but the empty ones, which the parser calls a missing value)
 * read back to the same output.
 */
static int
printed_config_reads_back_the_same(void)
{
	static char first[sizeof(out)];

	CHECK(parse("stats = 127.0.0.1:9000\ntls_profile = bsi\n"
	    "[a]\nlisten = 127.0.0.1:8443\nlisten = [::1]:8443\n"
	    "backend = 127.0.0.1:8080\ncert = /a.pem\nkey = /a.key\n"
	    "proxy_from = 10.0.0.0/8\ncert_names = a.example 192.0.2.1\n"
	    "[b]\nlisten = 127.0.0.1:9443\nmode = tcp\n") == 0);
	outlen = 0;
	config_print(&cfg, put);
	CHECK(outlen > 0 && outlen < sizeof(out) - 1);
	out[outlen] = '\0';
	memcpy(first, out, outlen + 1);
	CHECK(strstr(first, "[b]\n") != NULL);
	CHECK(strstr(first, "stats = 127.0.0.1:9000\n") != NULL);
	CHECK(parse(first) == 0);
	outlen = 0;
	config_print(&cfg, put);
	out[outlen] = '\0';
	CHECK(strcmp(first, out) == 0);
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(defaults_parse_to_one_service),
		T(values_and_units_are_read),
		T(bounds_are_kept_at_both_ends),
		T(errors_name_the_file_line_and_key),
		T(sections_inherit_and_are_checked),
		T(addresses_share_one_grammar),
		T(cert_and_key_come_in_pairs),
		T(profiles_set_what_the_scope_leaves),
		T(lists_keep_order_and_refuse_repeats),
		T(ticket_rotation_is_bounded_by_the_lifetime),
		T(printed_config_reads_back_the_same),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
