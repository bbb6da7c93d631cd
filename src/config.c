/*
 * config.c - see config.h.
 *
 * The grammar, all of it: lines of "key = value"; blank lines; '#'
 * starts a comment at the start of a line or after white space.  Keys
 * appear at most once.  Numbers are decimal, range-checked against
 * conf/defaults.h; durations take a unit (ms, s, m; bare = seconds).
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "defaults.h"

enum kind { K_ADDR, K_PATH, K_NAME, K_UINT, K_MS, K_TLS, K_ENUM };

struct key {
	const char	*name;
	enum kind	 kind;
	size_t		 off;
	unsigned	 min, max;
	const char *const *names;	/* K_ENUM: value i is names[i] */
};

static const char *const levels[] = { "error", "warn", "info", "debug", 0 };
static const char *const onoff[] = { "off", "on", 0 };
static const char *const modes[] = { "tcp", "http", 0 };
static const char *const proxies[] = { "off", "v1", "v2", 0 };

#define F(f)	offsetof(struct config, f)
static const struct key keys[] = {
	{ "listen",		K_ADDR,	F(listen),	0, 0, NULL },
	{ "backend",		K_ADDR,	F(backend),	0, 0, NULL },
	{ "cert",		K_PATH,	F(cert),	0, 0, NULL },
	{ "key",		K_PATH,	F(key),		0, 0, NULL },
	{ "slots",		K_UINT,	F(slots),	1, TLSGATE_MAX_SLOTS, NULL },
	{ "session_cache",	K_UINT,	F(cache),	0, TLSGATE_MAX_CACHE, NULL },
	{ "tls_min",		K_TLS,	F(tls_min),	0, 0, NULL },
	{ "handshake_timeout",	K_MS,	F(handshake_ms), 100, 3600000, NULL },
	{ "connect_timeout",	K_MS,	F(connect_ms),	100, 3600000, NULL },
	{ "idle_timeout",	K_MS,	F(idle_ms),	100, 86400000, NULL },
	{ "drain_timeout",	K_MS,	F(drain_ms),	0, 3600000, NULL },
	{ "log_level",		K_ENUM,	F(log_level),	0, 0, levels },
	{ "log_rate",		K_UINT,	F(log_rate),	0, 1000000, NULL },
	{ "mode",		K_ENUM,	F(mode),	0, 0, modes },
	{ "proxy_protocol",	K_ENUM,	F(proxy),	0, 0, proxies },
	{ "head_timeout",	K_MS,	F(head_ms),	100, 3600000, NULL },
	{ "x_forwarded_for",	K_ENUM,	F(xff),		0, 0, onoff },
	{ "x_forwarded_proto",	K_ENUM,	F(xfproto),	0, 0, onoff },
	{ "x_forwarded_port",	K_ENUM,	F(xfport),	0, 0, onoff },
	{ "max_per_source",	K_UINT,	F(max_per_source), 0, TLSGATE_MAX_SLOTS, NULL },
	{ "user",		K_NAME,	F(user),	0, 0, NULL },
	{ "group",		K_NAME,	F(group),	0, 0, NULL },
	{ "chroot",		K_PATH,	F(chroot),	0, 0, NULL },
	{ "seccomp",		K_ENUM,	F(seccomp),	0, 0, onoff },
};
#define NKEYS	(sizeof(keys) / sizeof(keys[0]))

void
config_defaults(struct config *c)
{
	const char *why;

	memset(c, 0, sizeof(*c));
	(void)port_addr_parse(&c->listen, TLSGATE_LISTEN,
	    sizeof(TLSGATE_LISTEN) - 1, &why);
	(void)port_addr_parse(&c->backend, TLSGATE_BACKEND,
	    sizeof(TLSGATE_BACKEND) - 1, &why);
	snprintf(c->cert, sizeof(c->cert), "%s", TLSGATE_CERT);
	snprintf(c->key, sizeof(c->key), "%s", TLSGATE_KEY);
	c->slots = TLSGATE_SLOTS;
	c->cache = TLSGATE_CACHE;
	c->tls_min = TLSGATE_TLS_MIN;
	c->handshake_ms = TLSGATE_HANDSHAKE_MS;
	c->connect_ms = TLSGATE_CONNECT_MS;
	c->idle_ms = TLSGATE_IDLE_MS;
	c->drain_ms = TLSGATE_DRAIN_MS;
	c->log_level = TLSGATE_LOG_LEVEL;
	c->log_rate = TLSGATE_LOG_RATE;
	c->max_per_source = TLSGATE_MAX_PER_SOURCE;
	snprintf(c->chroot, sizeof(c->chroot), "%s", TLSGATE_CHROOT);
	snprintf(c->user, sizeof(c->user), "%s", TLSGATE_USER);
	snprintf(c->group, sizeof(c->group), "%s", TLSGATE_GROUP);
	c->seccomp = TLSGATE_SECCOMP;
	c->mode = TLSGATE_MODE;
	c->proxy = TLSGATE_PROXY_PROTOCOL;
	c->head_ms = TLSGATE_HEAD_MS;
	c->xff = c->xfproto = c->xfport = 1;
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t';
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

/* Returns NULL or the reason; msg has room for a formatted reason. */
static const char *
set_value(struct config *c, const struct key *k, const char *v, size_t len,
    char *msg, size_t msgcap)
{
	char *field = (char *)c + k->off;
	unsigned long long n, mul = 1000;
	const char *why;

	switch (k->kind) {
	case K_ADDR:
		if (port_addr_parse((struct port_addr *)(void *)field, v, len,
		    &why) < 0)
			return why;
		return NULL;
	case K_PATH:
	case K_NAME:
		if (len >= (k->kind == K_PATH ? CONFIG_PATH_MAX :
		    sizeof(c->user)))
			return "too long";
		memcpy(field, v, len);
		field[len] = '\0';
		return NULL;
	case K_ENUM:
		for (unsigned i = 0; k->names[i] != NULL; i++)
			if (strlen(k->names[i]) == len &&
			    memcmp(k->names[i], v, len) == 0) {
				*(unsigned *)(void *)field = i;
				return NULL;
			}
		n = (unsigned long long)snprintf(msg, msgcap, "expected");
		for (unsigned i = 0; k->names[i] != NULL && n < msgcap; i++)
			n += (unsigned long long)snprintf(msg + n, msgcap - n,
			    "%s %s", i == 0 ? "" : k->names[i + 1] == NULL ?
			    " or" : ",", k->names[i]);
		return msg;
	case K_UINT:
	case K_MS:
		if (k->kind == K_MS) {
			if (len > 2 && memcmp(v + len - 2, "ms", 2) == 0) {
				mul = 1;
				len -= 2;
			} else if (len > 1 && v[len - 1] == 's') {
				len--;
			} else if (len > 1 && v[len - 1] == 'm') {
				mul = 60000;
				len--;
			}
		} else
			mul = 1;
		if ((why = parse_uint(v, len, 1ULL << 40, &n)) != NULL)
			return why;
		n *= mul;
		if (n < k->min || n > k->max) {
			if (k->kind == K_MS)
				snprintf(msg, msgcap, "must be between %ums and "
				    "%ums", k->min, k->max);
			else
				snprintf(msg, msgcap, "must be between %u and %u"
				    "%s", k->min, k->max, k->max ==
				    TLSGATE_MAX_SLOTS || k->max ==
				    TLSGATE_MAX_CACHE ? " (the compile-time "
				    "limit in conf/defaults.h)" : "");
			return msg;
		}
		*(unsigned *)(void *)field = (unsigned)n;
		return NULL;
	case K_TLS:
		if (len == 3 && memcmp(v, "1.", 2) == 0 && v[2] >= '0' &&
		    v[2] <= '2') {
			*(unsigned *)(void *)field = 0x0301u + (unsigned)(v[2] -
			    '0');
			return NULL;
		}
		return "expected 1.0, 1.1 or 1.2";
	}
	return "internal error";
}

int
config_parse(struct config *c, const char *name, const char *text,
    size_t len, char *err, size_t errcap)
{
	unsigned seen[NKEYS] = { 0 };
	const char *p = text, *end = text + len;
	unsigned line = 0;
	char msg[128];

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *k, *ke, *v, *ve, *why;
		const struct key *key = NULL;

		if (eol == NULL)
			eol = end;
		line++;
		for (const char *q = p; q < eol; q++)
			if ((*q < 0x20 && *q != '\t' && !(*q == '\r' &&
			    q + 1 == eol)) || *q == 0x7f) {
				snprintf(err, errcap, "%s:%u: control character "
				    "in line", name, line);
				return -1;
			}
		ve = eol;
		if (ve > p && ve[-1] == '\r')
			ve--;
		/* A comment starts at '#' at line start or after a blank. */
		for (const char *q = p; q < ve; q++)
			if (*q == '#' && (q == p || is_space(q[-1]))) {
				ve = q;
				break;
			}
		k = p;
		while (k < ve && is_space(*k))
			k++;
		while (ve > k && is_space(ve[-1]))
			ve--;
		p = eol + 1;
		if (k == ve)
			continue;
		ke = k;
		while (ke < ve && *ke != '=' && !is_space(*ke))
			ke++;
		v = ke;
		while (v < ve && is_space(*v))
			v++;
		if (v == ve || *v != '=') {
			snprintf(err, errcap, "%s:%u: %.*s: expected "
			    "\"key = value\"", name, line, (int)(ke - k), k);
			return -1;
		}
		v++;
		while (v < ve && is_space(*v))
			v++;
		for (size_t i = 0; i < NKEYS; i++)
			if (strlen(keys[i].name) == (size_t)(ke - k) &&
			    memcmp(keys[i].name, k, (size_t)(ke - k)) == 0)
				key = &keys[i];
		if (key == NULL) {
			snprintf(err, errcap, "%s:%u: %.*s: unknown key", name,
			    line, (int)(ke - k), k);
			return -1;
		}
		if (seen[key - keys]) {
			snprintf(err, errcap, "%s:%u: %s: already set at line "
			    "%u", name, line, key->name, seen[key - keys]);
			return -1;
		}
		seen[key - keys] = line;
		if (v == ve) {
			snprintf(err, errcap, "%s:%u: %s: missing value", name,
			    line, key->name);
			return -1;
		}
		why = set_value(c, key, v, (size_t)(ve - v), msg, sizeof(msg));
		if (why != NULL) {
			snprintf(err, errcap, "%s:%u: %s: %s: \"%.*s\"", name,
			    line, key->name, why, (int)(ve - v), v);
			return -1;
		}
	}
	return 0;
}

int
config_load(struct config *c, const char *path, char *err, size_t cap)
{
	static char text[TLSGATE_MAX_FILE];
	const char *why;
	long n;

	n = port_read_file(path, text, sizeof(text), &why);
	if (n < 0) {
		snprintf(err, cap, "%s: %s", path, why);
		return -1;
	}
	return config_parse(c, path, text, (size_t)n, err, cap);
}

void
config_print(const struct config *c, void (*put)(const char *))
{
	char line[CONFIG_PATH_MAX + 64], addr[64];

	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		const char *f = (const char *)c + k->off;
		unsigned u = k->kind == K_UINT || k->kind == K_MS ||
		    k->kind == K_TLS ? *(const unsigned *)(const void *)f : 0;

		switch (k->kind) {
		case K_ADDR:
			port_addr_str((const struct port_addr *)(const void *)f,
			    addr, sizeof(addr));
			snprintf(line, sizeof(line), "%s = %s", k->name, addr);
			break;
		case K_PATH:
		case K_NAME:
			snprintf(line, sizeof(line), "%s = %s", k->name, f);
			break;

		case K_UINT:
			snprintf(line, sizeof(line), "%s = %u", k->name, u);
			break;
		case K_MS:
			snprintf(line, sizeof(line), "%s = %ums", k->name, u);
			break;
		case K_TLS:
			snprintf(line, sizeof(line), "%s = 1.%u", k->name,
			    u - 0x0301);
			break;
		case K_ENUM:
			snprintf(line, sizeof(line), "%s = %s", k->name,
			    k->names[*(const unsigned *)(const void *)f]);
			break;
		}
		put(line);
	}
}
