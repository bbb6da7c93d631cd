/* SPDX-License-Identifier: ISC */
/*
 * metrics.c - see metrics.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "http.h"
#include "log.h"
#include "metrics.h"
#include "turn.h"

/* Handshake-time buckets (ms, the loop's clock), then +Inf. */
static const unsigned hs_le[] = {
	1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000
};
#define HS_LE	(sizeof(hs_le) / sizeof(hs_le[0]))
/* The turn histogram's buckets from 2^4 - 1 us to 2^27 - 1 (134 s). */
#define TURN_FIRST	2
#define TURN_LAST	25

/* [svc][TLS 1.3][resumed] */
static uint64_t hs[TLSGATE_MAX_SERVICES][2][2];
/* [TLS 1.3][bucket, the last +Inf], and the sum (ms) */
static uint64_t hs_hist[2][HS_LE + 1], hs_ms[2];
static int64_t cert_end[TLSGATE_MAX_SERVICES][TLSGATE_MAX_SVC_CERTS];
/* Per service: its CRLs' soonest nextUpdate (-1: none or no CRL). */
static int64_t crl_next[TLSGATE_MAX_SERVICES];
static uint64_t refused_certs[2];	/* revoked, CRL stale */
/* Room before the body for the response head, written last. */
#define HEAD_ROOM	160
static char buf[TLSGATE_METRICS_BUF];

void
metrics_handshake(unsigned svc, unsigned version, int resumed, uint64_t ms)
{
	unsigned t13 = version == 0x0304, b = 0;

	if (svc >= TLSGATE_MAX_SERVICES)
		return;
	hs[svc][t13][resumed != 0]++;
	while (b < HS_LE && ms > hs_le[b])
		b++;
	hs_hist[t13][b]++;
	hs_ms[t13] += ms;
}

void
metrics_refused_cert(int stale)
{
	refused_certs[stale != 0]++;
}

void
metrics_crl(unsigned svc, unsigned n, int64_t next_update)
{
	if (svc < TLSGATE_MAX_SERVICES)
		crl_next[svc] = n > 0 ? next_update : -1;
}

void
metrics_cert(unsigned svc, unsigned i, int64_t not_after)
{
	if (svc < TLSGATE_MAX_SERVICES && i < TLSGATE_MAX_SVC_CERTS)
		cert_end[svc][i] = not_after;
}

/* The body being written: a sticky overflow, and the worst-case mode. */
struct out {
	char	*b;
	size_t	cap, n;
	int	full, worst;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (o->full)
		return;
	va_start(ap, fmt);
	k = vsnprintf(o->b + o->n, o->cap - o->n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= o->cap - o->n)
		o->full = 1;
	else
		o->n += (size_t)k;
}

/* A value, or the widest one when measuring the worst case. */
static unsigned long long
v(const struct out *o, unsigned long long x)
{
	return o->worst ? ~0ull : x;
}

static void
family(struct out *o, const char *name, const char *type, const char *help)
{
	put(o, "# HELP tlsgate_%s %s\n# TYPE tlsgate_%s %s\n", name, help,
	    name, type);
}

static void
one(struct out *o, const char *name, const char *type, const char *help,
    unsigned long long x)
{
	family(o, name, type, help);
	put(o, "tlsgate_%s %llu\n", name, v(o, x));
}

/*
 * A label value: the exposition format escapes backslash, double quote
 * and line feed; other bytes a path may hold go as they are.
 */
static void
label(struct out *o, const char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '\\' || *s == '"')
			put(o, "\\%c", *s);
		else if (*s == '\n')
			put(o, "\\n");
		else
			put(o, "%c", *s);
}

/* Seconds from a count of units of 10^-digits s: "12.000345". */
static void
secs(struct out *o, unsigned long long x, unsigned digits)
{
	unsigned long long d = digits == 3 ? 1000 : 1000000;

	put(o, "%llu.%0*llu", x / d, (int)digits, x % d);
}

/*
 * The counters from the stats, plain or split by a label
 * (name{label="value"}); a row with a name opens its family, one
 * without continues the family above, with its label.
 */
static void
counters(struct out *o)
{
	const char *name = NULL, *key = NULL;
	static const struct {
		const char	*name, *help, *label, *value;
		unsigned long long *val;
	} c[] = {
	    { "connections_accepted_total", "TLS clients accepted.", NULL,
		NULL, &stats.accepted },
	    { "connections_closed_total", "TLS connections ended.", NULL,
		NULL, &stats.closed },
	    { "session_cache_hits_total", "TLS session IDs resumed from "
		"the cache.", NULL, NULL, &stats.cache_hits },
	    { "session_cache_misses_total", "TLS session IDs offered and "
		"not found.", NULL, NULL, &stats.cache_misses },
	    { "session_cache_saves_total", "TLS sessions saved in the "
		"cache.", NULL, NULL, &stats.cache_saves },
	    { "tickets_issued_total", "Session tickets issued.", NULL, NULL,
		&stats.tickets },
	    { "hello_retry_requests_total", "TLS 1.3 HelloRetryRequests "
		"sent.", NULL, NULL, &stats.hrr },
	    { "backend_connects_total", "Backend connections opened.", NULL,
		NULL, &stats.backend_connects },
	    { "backend_reused_total", "Idle backend connections reused.",
		NULL, NULL, &stats.backend_reused },
	    { "backend_retries_total", "Requests retried on a new backend "
		"connection.", NULL, NULL, &stats.backend_retries },
	    { "redirects_total", "Plain HTTP requests redirected to "
		"https.", NULL, NULL, &stats.redirects },
	    { "acme_forwarded_total", "ACME challenges forwarded to the "
		"backend.", NULL, NULL, &stats.acme_forwarded },
	    { "received_bytes_total", "Bytes from clients, counted when a "
		"connection ends.", NULL, NULL, &stats.bytes_in },
	    { "sent_bytes_total", "Bytes to clients, counted when a "
		"connection ends.", NULL, NULL, &stats.bytes_out },
	    { "proxy_headers_total", "PROXY headers read.", NULL, NULL,
		&stats.proxy_in },
	    { "proxy_local_total", "PROXY headers of the LOCAL command.",
		NULL, NULL, &stats.proxy_local },
	    { "log_lines_dropped_total", "Log lines the sink could not "
		"take.", NULL, NULL, &stats.log_dropped },
	    { "connections_failed_total", "Connections ended by an error, "
		"by class.", "class", "tls", &stats.tls_errors },
	    { NULL, NULL, NULL, "timeout", &stats.timeouts },
	    { NULL, NULL, NULL, "backend", &stats.backend_errors },
	    { NULL, NULL, NULL, "http", &stats.http_errors },
	    { NULL, NULL, NULL, "proxy", &stats.proxy_errors },
	    { "connections_refused_total", "Clients refused or dropped "
		"before a handshake, by reason.", "reason", "limit",
		&stats.refused },
	    { NULL, NULL, NULL, "shed", &stats.shed },
	    { NULL, NULL, NULL, "evicted", &stats.evicted },
	    { "ticket_offers_total", "Session tickets offered by clients, "
		"by result.", "result", "opened", &stats.ticket_hits },
	    { NULL, NULL, NULL, "rejected", &stats.ticket_misses },
	    { "precomputed_keys_total", "EC key pairs taken made ahead (hit) "
		"or made inline (miss).", "result", "hit",
		&stats.precomp_hits },
	    { NULL, NULL, NULL, "miss", &stats.precomp_misses },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		if (c[i].name != NULL) {
			name = c[i].name;
			key = c[i].label;
			family(o, name, "counter", c[i].help);
		}
		if (key == NULL)
			put(o, "tlsgate_%s %llu\n", name, v(o, *c[i].val));
		else
			put(o, "tlsgate_%s{%s=\"%s\"} %llu\n", name, key,
			    c[i].value, v(o, *c[i].val));
	}
}

static void
gauges(struct out *o, const struct config *cfg,
    const struct metrics_live *live)
{
	static const char *const kind[] = { "tls", "redirect", "pending" };
	unsigned used[3] = { live->slots_used, live->redirect_used,
	    live->pending };
	unsigned cap[3] = { cfg->slots, config_plain_slots(cfg),
	    cfg->pending };

	family(o, "connections", "gauge", "Connections now, by kind: in a "
	    "TLS slot, in a redirect slot, pending a slot.");
	for (unsigned i = 0; i < 3; i++)
		put(o, "tlsgate_connections{kind=\"%s\"} %llu\n", kind[i],
		    v(o, used[i]));
	family(o, "slots", "gauge", "Connections each kind can hold.");
	for (unsigned i = 0; i < 3; i++)
		put(o, "tlsgate_slots{kind=\"%s\"} %llu\n", kind[i],
		    v(o, cap[i]));
	one(o, "connections_high_water", "gauge", "Most TLS connections at "
	    "once since start-up.", stats.high_water);
	one(o, "pending_high_water", "gauge", "Most pending clients at once "
	    "since start-up.", stats.pending_high);
}

static void
handshakes(struct out *o, const struct config *cfg)
{
	static const char *const ver[] = { "1.2", "1.3" };
	unsigned long long cum;

	family(o, "handshakes_total", "counter", "TLS handshakes completed, "
	    "by service, version and kind (full or resumed).");
	for (unsigned i = 0; i < cfg->nsvc; i++)
		for (unsigned k = 0; k < 4; k++) {
			put(o, "tlsgate_handshakes_total{service=\"");
			label(o, cfg->svc[i].name);
			put(o, "\",version=\"%s\",kind=\"%s\"} %llu\n",
			    ver[k >> 1], k & 1 ? "resumed" : "full",
			    v(o, hs[i][k >> 1][k & 1]));
		}
	family(o, "handshake_seconds", "histogram", "Time from accept to "
	    "the end of the handshake, by version (the loop's millisecond "
	    "clock).");
	for (unsigned k = 0; k < 2; k++) {
		cum = 0;
		for (unsigned b = 0; b <= HS_LE; b++) {
			cum += hs_hist[k][b];
			put(o, "tlsgate_handshake_seconds_bucket{version=\"%s\","
			    "le=\"", ver[k]);
			if (b < HS_LE)
				put(o, "%g", hs_le[b] / 1000.0);
			else
				put(o, "+Inf");
			put(o, "\"} %llu\n", v(o, cum));
		}
		put(o, "tlsgate_handshake_seconds_sum{version=\"%s\"} ",
		    ver[k]);
		secs(o, v(o, hs_ms[k]), 3);
		put(o, "\ntlsgate_handshake_seconds_count{version=\"%s\"} "
		    "%llu\n", ver[k], v(o, cum));
	}
}

static void
turns(struct out *o)
{
	uint64_t all[TURN_POWERS], sum, n, cum = 0;

	n = turn_totals(all, &sum);
	family(o, "loop_turn_seconds", "histogram", "Time the loop spent "
	    "between two waits for readiness (us clock).");
	for (unsigned k = 0; k < TURN_POWERS; k++) {
		cum += all[k];
		if (k < TURN_FIRST || k > TURN_LAST)
			continue;
		put(o, "tlsgate_loop_turn_seconds_bucket{le=\"");
		secs(o, (1ull << (k + 2)) - 1, 6);
		put(o, "\"} %llu\n", v(o, cum));
	}
	put(o, "tlsgate_loop_turn_seconds_bucket{le=\"+Inf\"} %llu\n",
	    v(o, n));
	put(o, "tlsgate_loop_turn_seconds_sum ");
	secs(o, v(o, sum), 6);
	put(o, "\ntlsgate_loop_turn_seconds_count %llu\n", v(o, n));
}

static void
certs(struct out *o, const struct config *cfg)
{
	int64_t now = port_time(), left;

	family(o, "certificate_expiry_seconds", "gauge", "Seconds until a "
	    "served certificate's notAfter (negative once past), by service "
	    "and file.");
	for (unsigned i = 0; i < cfg->nsvc; i++)
		for (unsigned j = 0; j < cfg->svc[i].ncerts; j++) {
			if (!o->worst && cert_end[i][j] < 0)
				continue;
			left = o->worst ? INT64_MIN : cert_end[i][j] - now;
			put(o, "tlsgate_certificate_expiry_seconds{service=\"");
			label(o, cfg->svc[i].name);
			put(o, "\",path=\"");
			label(o, cfg->svc[i].certs[j].cert);
			put(o, "\"} %lld\n", (long long)left);
		}
	family(o, "crl_expiry_seconds", "gauge", "Seconds until the soonest "
	    "nextUpdate of a service's client_crl (negative once past).");
	for (unsigned i = 0; i < cfg->nsvc; i++) {
		if (!o->worst && crl_next[i] < 0)
			continue;
		left = o->worst ? INT64_MIN : crl_next[i] - now;
		put(o, "tlsgate_crl_expiry_seconds{service=\"");
		label(o, cfg->svc[i].name);
		put(o, "\"} %lld\n", (long long)left);
	}
	family(o, "client_certs_refused_total", "counter", "Client "
	    "certificates refused by client_crl, by reason.");
	put(o, "tlsgate_client_certs_refused_total{reason=\"revoked\"} %llu\n"
	    "tlsgate_client_certs_refused_total{reason=\"crl_expired\"} "
	    "%llu\n", v(o, refused_certs[0]), v(o, refused_certs[1]));
}

/* The exposition's body into o. */
static void
render(struct out *o, const struct config *cfg,
    const struct metrics_live *live)
{
	counters(o);
	gauges(o, cfg, live);
	handshakes(o, cfg);
	turns(o);
	certs(o, cfg);
}

size_t
metrics_worst(const struct config *cfg)
{
	struct out o = { buf + HEAD_ROOM, sizeof(buf) - HEAD_ROOM, 0, 0, 1 };
	struct metrics_live live = { 0, 0, 0 };

	render(&o, cfg, &live);
	/* Too big: more than the buffer, whatever it would have been. */
	return o.full ? sizeof(buf) + 1 : HEAD_ROOM + o.n;
}

/* The head, right before the body at buf + HEAD_ROOM. */
static int
respond(const char *type, size_t len, const char **out, size_t *outlen)
{
	char head[HEAD_ROOM];
	int k;

	k = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Type: "
	    "%s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", type,
	    len);
	if (k < 0 || (size_t)k >= sizeof(head))
		return -1;
	memcpy(buf + HEAD_ROOM - (size_t)k, head, (size_t)k);
	*out = buf + HEAD_ROOM - (size_t)k;
	*outlen = (size_t)k + len;
	return 0;
}

static int
bad(const char **out, size_t *outlen)
{
	*out = http_error_page(400, outlen);
	return HTTP_OK;
}

int
metrics_answer(const uint8_t *req, size_t len, const struct config *cfg,
    const struct metrics_live *live, const char **out, size_t *outlen)
{
	struct out o = { buf + HEAD_ROOM, sizeof(buf) - HEAD_ROOM, 0, 0, 0 };
	const char *type = "text/plain; charset=utf-8";
	struct http_req r;
	size_t end = 0;
	int rc;

	rc = http_head_end(req, len, &end);
	if (rc == HTTP_MORE && len < METRICS_REQ_MAX)
		return HTTP_MORE;
	if (rc != HTTP_OK || http_parse_head(req, end, &r) != HTTP_OK ||
	    r.method_len != 3 || memcmp(req, "GET", 3) != 0 ||
	    (r.body != HTTP_BODY_NONE && (r.body != HTTP_BODY_LENGTH ||
	    r.body_len != 0)))
		return bad(out, outlen);
	if (r.target_len == 8 && memcmp(req + r.target_off, "/metrics",
	    8) == 0) {
		render(&o, cfg, live);
		type = "text/plain; version=0.0.4; charset=utf-8";
	} else if (r.target_len == 6 && memcmp(req + r.target_off, "/stats",
	    6) == 0)
		o.n = stats_text(o.b, o.cap, " ", "\n");
	else
		return bad(out, outlen);
	if (o.full || respond(type, o.n, out, outlen) < 0)
		return bad(out, outlen);
	return HTTP_OK;
}

size_t
metrics_static_bytes(void)
{
	return sizeof(buf) + sizeof(hs) + sizeof(hs_hist) + sizeof(hs_ms) +
	    sizeof(cert_end) + sizeof(crl_next) + sizeof(refused_certs);
}
