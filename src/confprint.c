/* SPDX-License-Identifier: ISC */
/*
 * confprint.c - the configuration as tlsgate -t prints it: every key with
 * its value, in config.c's order, globals first, then each [section].
 *
 * Every value is printed in the grammar config.c reads, from the same
 * keys[] row and names tables: the operator sees what was applied,
 * defaults included, not what was written, and the lines read back to
 * the same values (test_config), but for the empty ones ("user = ").
 */
#include <stdio.h>

#include "confint.h"

/*
 * One key of `base` (a struct config or a struct service, as its scope
 * says), by its kind.  snprintf cuts a line too long for `line`; the
 * longest, cert and key paths, fit.
 */
static void
print_key(const struct key *k, const void *base, int (*put)(const char *))
{
	char line[CONFIG_PATH_MAX * 2 + 64], addr[128];
	const char *f = (const char *)base + k->off;
	const struct service *s = base;
	unsigned u = *(const unsigned *)(const void *)f;
	struct config_list l;
	const char *name;
	unsigned code, prof;
	size_t n;

	switch (k->kind) {
	case K_LISTEN:
	case K_REDIRECT:
		if (k->kind == K_REDIRECT && s->nredirect == 0) {
			snprintf(line, sizeof(line), "%s = none", k->name);
			break;
		}
		for (unsigned i = 0; i < (k->kind == K_LISTEN ? s->nlisten :
		    s->nredirect); i++) {
			port_addr_str(k->kind == K_LISTEN ? &s->listen[i] :
			    &s->redirect[i], addr, sizeof(addr));
			snprintf(line, sizeof(line), "%s = %s", k->name, addr);
			(void)put(line);
		}
		return;
	case K_CERT:
		for (unsigned i = 0; i < s->ncerts; i++) {
			snprintf(line, sizeof(line), "cert = %s",
			    s->certs[i].cert);
			(void)put(line);
			snprintf(line, sizeof(line), "key = %s", s->certs[i].key);
			(void)put(line);
		}
		return;
	case K_KEY:
		/* Printed with its cert just above: they pair by order. */
		return;
	case K_ADDR:
		if (k->scope == GLOBAL && !((const struct config *)base)->stats_on) {
			snprintf(line, sizeof(line), "%s = none", k->name);
			break;
		}
		port_addr_str((const struct port_addr *)(const void *)f, addr,
		    sizeof(addr));
		snprintf(line, sizeof(line), "%s = %s", k->name, addr);
		break;
	case K_STR:
		snprintf(line, sizeof(line), "%s = %s", k->name, f);
		break;
	case K_NAMES:
		n = (size_t)snprintf(line, sizeof(line), "%s =", k->name);
		for (unsigned i = 0; i < s->ncert_names && n < sizeof(line); i++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %s",
			    s->cert_names[i]);
		break;
	case K_NETS:
		n = (size_t)snprintf(line, sizeof(line), "%s =%s", k->name,
		    s->nproxy_from == 0 ? " none" : "");
		for (unsigned i = 0; i < s->nproxy_from && n < sizeof(line);
		    i++) {
			proxyin_net_str(&s->proxy_from[i], addr, sizeof(addr));
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %s",
			    addr);
		}
		break;
	case K_SUITES:
	case K_GROUPS:
		/* Codes back to names, in the order given: it is a preference. */
		l = *(const struct config_list *)(const void *)f;
		n = (size_t)snprintf(line, sizeof(line), "%s =", k->name);
		for (unsigned i = 0; i < l.n && n < sizeof(line); i++)
			for (size_t r = 0; (name = config_row(k, r, &code,
			    &prof)) != NULL; r++)
				if (code == l.v[i])
					n += (size_t)snprintf(line + n,
					    sizeof(line) - n, " %s", name);
		break;
	case K_UINT:
	case K_MS:
		config_value_str(k, u, addr, sizeof(addr));
		snprintf(line, sizeof(line), "%s = %s", k->name, addr);
		break;
	case K_TLS:
		/* 0x0303 is TLS 1.2 (RFC 5246 A.1), 0x0304 TLS 1.3. */
		snprintf(line, sizeof(line), "%s = 1.%u", k->name, u - 0x0301);
		break;
	case K_LEVEL:
	case K_ENUM:
		for (size_t r = 0; (name = config_row(k, r, &code, &prof)) !=
		    NULL; r++)
			if (code == u)
				snprintf(line, sizeof(line), "%s = %s", k->name,
				    name);
		break;
	}
	(void)put(line);
}

void
config_print(const struct config *c, int (*put)(const char *))
{
	char line[CONFIG_NAME_MAX + 8];

	/* The stats address only when set: it has no default to print. */
	for (size_t i = 0; i < config_nkeys; i++)
		if (config_keys[i].scope == GLOBAL)
			print_key(&config_keys[i], c, put);
	for (unsigned j = 0; j < c->nsvc; j++) {
		snprintf(line, sizeof(line), "[%s]", c->svc[j].name);
		(void)put(line);
		for (size_t i = 0; i < config_nkeys; i++)
			if (config_keys[i].scope == SERVICE)
				print_key(&config_keys[i], &c->svc[j], put);
	}
}
