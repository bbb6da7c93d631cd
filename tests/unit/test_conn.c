/* SPDX-License-Identifier: ISC */
/*
 * test_conn.c - what the loop knows of any connection (conn.c): the
 * connset's storage, free stack and live list; the per-source count
 * across sets; the PROXY intake (proxyin.c underneath), its outcomes
 * and counters; the closing line's head.  The connections are a test
 * kind with only the class methods conn.c calls.
 */
#include <string.h>

#include "conn.h"
#include "log.h"
#include "unit.h"

#define N	4

struct item {
	struct conn		c;
	uint64_t		since;
	struct port_addr	peer;
};

static uint64_t
since(const struct conn *c)
{
	return ((const struct item *)(const void *)c)->since;
}

static const struct port_addr *
peer(const struct conn *c)
{
	return &((const struct item *)(const void *)c)->peer;
}

static const struct conn_class cls = { .wait_since = since, .peer = peer };

static struct item tab[N];
static struct conn *live[N];
static uint32_t freel[N];
static struct connset set = CONNSET(tab, live, freel);

static void
addr(struct port_addr *a, uint8_t last, unsigned port)
{
	const uint8_t ip[4] = { 192, 0, 2, last };

	port_addr_make(a, ip, 4, port);
}

static int
entries_come_from_the_storage_and_go_back(void)
{
	struct conn *c[N + 1];

	connset_init(&set, &cls, N);
	CHECK(set.nfree == N && set.nlive == 0);
	for (int i = 0; i < N; i++) {
		c[i] = connset_new(&set);
		CHECK(c[i] == &tab[i].c && c[i]->pos == (uint32_t)i);
		CHECK(c[i]->cfd == -1 && c[i]->outcome == NULL);
	}
	CHECK(connset_new(&set) == NULL);
	/* The last live entry takes the place of the one deleted. */
	connset_delete(&set, c[1]);
	CHECK(c[1]->pos == CONN_FREE && set.nlive == N - 1);
	CHECK(set.live[1] == c[3] && c[3]->pos == 1);
	/* The free stack gives back the last one freed. */
	c[4] = connset_new(&set);
	CHECK(c[4] == c[1] && c[4]->pos == N - 1);
	while (set.nlive > 0)
		connset_delete(&set, set.live[set.nlive - 1]);
	CHECK(set.nfree == N);
	CHECK(connset_bytes(sizeof(struct item), N) == N * (sizeof(struct item)
	    + sizeof(struct conn *) + sizeof(uint32_t)));
	return 1;
}

static int
the_oldest_waiting_is_the_one_to_evict(void)
{
	static const uint64_t t[N] = { 50, 10, UINT64_MAX, 30 };

	connset_init(&set, &cls, N);
	for (int i = 0; i < N; i++) {
		struct item *e = (struct item *)(void *)connset_new(&set);

		e->since = t[i];
	}
	CHECK(connset_oldest_waiting(&set, UINT64_MAX) == &tab[1].c);
	CHECK(connset_oldest_waiting(&set, 9) == NULL);
	tab[1].since = 0;
	CHECK(connset_oldest_waiting(&set, 0) == &tab[1].c);
	connset_delete(&set, &tab[1].c);
	CHECK(connset_oldest_waiting(&set, 40) == &tab[3].c);
	return 1;
}

static int
sources_are_counted_by_ip_not_port(void)
{
	struct port_addr a;

	connset_init(&set, &cls, N);
	for (int i = 0; i < 3; i++)
		addr(&((struct item *)(void *)connset_new(&set))->peer,
		    i == 2 ? 9 : 1, 1000 + (unsigned)i);
	addr(&a, 1, 5);
	CHECK(conn_count_peer(&a) == 2);
	addr(&a, 9, 5);
	CHECK(conn_count_peer(&a) == 1);
	addr(&a, 7, 5);
	CHECK(conn_count_peer(&a) == 0);
	connset_delete(&set, set.live[0]);
	addr(&a, 1, 5);
	CHECK(conn_count_peer(&a) == 1);
	return 1;
}

/* The PROXY header is taken out; the addresses are the client's. */
static int
proxy_header_gives_the_clients_addresses(void)
{
	static const char hdr[] = "PROXY TCP4 192.0.2.1 198.51.100.2 40000 443"
	    "\r\n\x16\x03\x01";
	struct service svc = { .max_per_source = 0 };
	struct port_addr p, l;
	unsigned char buf[128];
	size_t len = sizeof(hdr) - 1;
	char s[64];
	int lb = 0;

	connset_init(&set, &cls, N);
	memcpy(buf, hdr, len);
	CHECK(conn_take_proxy(connset_new(&set), &svc, buf, &len, &p, &l,
	    &lb) == CONN_PROXY_OK);
	CHECK(len == 3 && buf[0] == 0x16 && !lb);
	port_addr_str(&p, s, sizeof(s));
	CHECK(strcmp(s, "192.0.2.1:40000") == 0);
	CHECK(port_addr_port(&l) == 443);
	/* Half a header is more to read, whatever its cut. */
	for (size_t n = 1; n < sizeof(hdr) - 4; n++) {
		memcpy(buf, hdr, n);
		len = n;
		CHECK(conn_take_proxy(set.live[0], &svc, buf, &len, &p, &l,
		    &lb) == CONN_PROXY_MORE && len == n);
	}
	return 1;
}

static int
proxy_faults_set_the_outcome_and_counters(void)
{
	static const char bad[] = "PROXY TCP4 192.0.2.999 198.51.100.2 1 2\r\n";
	static const char local[] = "PROXY UNKNOWN\r\n";
	static const char v1[] = "PROXY TCP4 192.0.2.1 198.51.100.2 1 443\r\n";
	struct service svc = { .max_per_source = 1 };
	struct port_addr p, l, q;
	unsigned char buf[128];
	unsigned long long errors = stats.proxy_errors, in = stats.proxy_in;
	unsigned long long refused = stats.refused;
	struct conn *c;
	size_t len;
	int lb = 0;

	connset_init(&set, &cls, N);
	c = connset_new(&set);
	len = sizeof(bad) - 1;
	memcpy(buf, bad, len);
	CHECK(conn_take_proxy(c, &svc, buf, &len, &p, &l, &lb) ==
	    CONN_PROXY_BAD);
	CHECK(strcmp(c->outcome, "proxy-v1-address") == 0);
	CHECK(stats.proxy_errors == errors + 1 && stats.proxy_in == in);
	/* UNKNOWN: the balancer's own, addresses untouched. */
	c = connset_new(&set);
	len = sizeof(local) - 1;
	memcpy(buf, local, len);
	addr(&p, 200, 1);
	q = p;
	CHECK(conn_take_proxy(c, &svc, buf, &len, &p, &l, &lb) ==
	    CONN_PROXY_OK);
	CHECK(len == 0 && memcmp(&p, &q, sizeof(p)) == 0);
	CHECK(stats.proxy_in == in + 1);
	/* Over max_per_source once the client is known: refused. */
	addr(&((struct item *)(void *)c)->peer, 1, 7);
	c = connset_new(&set);
	addr(&((struct item *)(void *)c)->peer, 1, 8);
	len = sizeof(v1) - 1;
	memcpy(buf, v1, len);
	CHECK(conn_take_proxy(c, &svc, buf, &len, &p, &l, &lb) ==
	    CONN_PROXY_LIMIT);
	CHECK(strcmp(c->outcome, "per-source-limit") == 0);
	CHECK(stats.refused == refused + 1);
	return 1;
}

static int
the_first_outcome_wins_and_the_head_names_it_all(void)
{
	struct service svc = { .name = "web" };
	struct port_addr p;
	char line[CONN_LOG_HEAD];
	struct conn *c;

	connset_init(&set, &cls, N);
	c = connset_new(&set);
	conn_set_outcome(c, "first");
	conn_set_outcome(c, "second");
	CHECK(strcmp(c->outcome, "first") == 0);
	conn_now = 1500;
	c->t_accept = 1000;
	conn_worker = 3;
	addr(&p, 4, 4444);
	conn_log_head(line, c, "tls", 1, &svc, &p, NULL);
	CHECK(strcmp(line, "tls id=0 worker=3 svc=web peer=192.0.2.4:4444 "
	    "ms=500") == 0);
	/* A via that is no proxy_from source of the service is not told. */
	conn_log_head(line, c, "plain", 0, &svc, &p, &p);
	CHECK(strcmp(line, "plain id=- worker=3 svc=web "
	    "peer=192.0.2.4:4444 ms=500") == 0);
	CHECK(proxyin_net_parse(&svc.proxy_from[0], "192.0.2.0/24", 12) ==
	    NULL);
	svc.nproxy_from = 1;
	conn_log_head(line, c, "plain", 0, &svc, &p, &p);
	CHECK(strcmp(line, "plain id=- worker=3 svc=web peer=192.0.2.4:4444 "
	    "via=192.0.2.4:4444 ms=500") == 0);
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(entries_come_from_the_storage_and_go_back),
		T(the_oldest_waiting_is_the_one_to_evict),
		T(sources_are_counted_by_ip_not_port),
		T(proxy_header_gives_the_clients_addresses),
		T(proxy_faults_set_the_outcome_and_counters),
		T(the_first_outcome_wins_and_the_head_names_it_all),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
