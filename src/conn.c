/* SPDX-License-Identifier: ISC */
/*
 * conn.c - see conn.h.
 *
 * A set is three arrays the kind owns: the entries, the dense list of
 * live ones (what the loop walks, so a pass costs the live count, not
 * the capacity) and a stack of free indices (O(1) take and give back,
 * no search).  An entry's pos is its row in the live list and id its
 * row in the storage: both are kept so delete needs no search either.
 */
#include <stdio.h>
#include <string.h>

#include "conn.h"
#include "log.h"
#include "proxyin.h"

uint64_t conn_now;
unsigned conn_worker;
int conn_draining;
unsigned char conn_scratch[PROXYIN_MAX + HELLO_WIRE_MAX];
const struct config *conn_cfg;

/*
 * The sets whose connections have a peer: slots and redirect slots.
 * Registered by connset_init, so that max_per_source counts every kind
 * without the loop naming them; two is all the kinds there are.
 */
static struct connset *peered[2];

/* Entry i of the storage, free or not. */
static struct conn *
connset_at(const struct connset *set, uint32_t i)
{
	return (struct conn *)(void *)(set->storage + (size_t)i * set->esize);
}

/* A set registers once, however often it is initialised. */
void
connset_init(struct connset *set, const struct conn_class *cls, uint32_t n)
{
	set->nfree = n;
	set->nlive = 0;
	for (size_t k = 0; cls->peer != NULL && k < 2; k++)
		if (peered[k] == NULL || peered[k] == set) {
			peered[k] = set;
			break;
		}
	for (uint32_t i = 0; i < n; i++) {
		struct conn *c = connset_at(set, i);

		c->cls = cls;
		c->cfd = c->bfd = -1;
		c->id = i;
		c->pos = CONN_FREE;
		/* Popped from the top: entry 0 first. */
		set->freel[n - 1 - i] = i;
	}
}

struct conn *
connset_new(struct connset *set)
{
	struct conn *c;

	if (set->nfree == 0)
		return NULL;
	c = connset_at(set, set->freel[--set->nfree]);
	/* The poll rows and the outcome belong to the last owner's life. */
	c->pos = set->nlive;
	set->live[set->nlive++] = c;
	c->ci = c->bi = -1;
	c->outcome = NULL;
	return c;
}

void
connset_delete(struct connset *set, struct conn *c)
{
	struct conn *last = set->live[--set->nlive];

	/* Swap with the last: O(1), and a backward walk sees each once. */
	last->pos = c->pos;
	set->live[c->pos] = last;
	c->pos = CONN_FREE;
	c->cfd = c->bfd = -1;
	set->freel[set->nfree++] = c->id;
}

/*
 * A linear scan, run only when a set is full: a heap kept in step with
 * every state change would cost every connection, not the rare full set.
 */
struct conn *
connset_oldest_waiting(const struct connset *set, uint64_t before)
{
	struct conn *old = NULL;
	uint64_t t, best = UINT64_MAX;

	for (uint32_t i = 0; i < set->nlive; i++) {
		t = set->live[i]->cls->wait_since(set->live[i]);
		if (t <= before && t < best) {
			best = t;
			old = set->live[i];
		}
	}
	return old;
}

size_t
connset_bytes(size_t esize, uint32_t n)
{
	return (size_t)n * (esize + sizeof(struct conn *) + sizeof(uint32_t));
}

/*
 * A scan of the live lists (s6-tcpserverd keeps a tree by IP instead):
 * at most slots + redirect slots compares for a new client, and no
 * table to keep in step with every close.
 */
unsigned
conn_count_peer(const struct port_addr *peer)
{
	unsigned n = 0;

	for (size_t k = 0; k < 2 && peered[k] != NULL; k++)
		for (uint32_t i = 0; i < peered[k]->nlive; i++) {
			const struct conn *c = peered[k]->live[i];

			n += (unsigned)port_addr_same_ip(c->cls->peer(c), peer);
		}
	return n;
}

int
conn_take_proxy(struct conn *c, const struct service *svc,
    unsigned char *buf, size_t *len, struct port_addr *peer,
    struct port_addr *local, int *lb_local)
{
	struct proxyin_hdr h;
	int rc = proxyin_parse(buf, *len, &h);

	if (rc == PROXYIN_MORE)
		return CONN_PROXY_MORE;
	if (rc != PROXYIN_OK) {
		stats.proxy_errors++;
		conn_set_outcome(c, proxyin_strerror(rc));
		return CONN_PROXY_BAD;
	}
	stats.proxy_in++;
	if (h.local) {
		stats.proxy_local++;
		*lb_local = 1;
	}
	/* The TLS or HTTP reader after us sees the stream from its start. */
	*len -= h.len;
	memmove(buf, buf + h.len, *len);
	/* PROXY UNKNOWN, v2 LOCAL or AF_UNSPEC: the balancer's own address. */
	if (h.alen == 0)
		return CONN_PROXY_OK;
	port_addr_make(peer, h.src, h.alen, h.sport);
	port_addr_make(local, h.dst, h.alen, h.dport);
	/* At accept only the balancer was known: the client's limit now. */
	if (svc->max_per_source > 0 &&
	    conn_count_peer(peer) > svc->max_per_source) {
		stats.refused++;
		conn_set_outcome(c, "per-source-limit");
		return CONN_PROXY_LIMIT;
	}
	return CONN_PROXY_OK;
}

void
conn_set_outcome(struct conn *c, const char *why)
{
	if (c->outcome == NULL)
		c->outcome = why;
}

void
conn_log_head(char *buf, const struct conn *c, const char *kind, int slotted,
    const struct service *svc, const struct port_addr *peer,
    const struct port_addr *via)
{
	char a[64], v[64], id[16] = "-";

	port_addr_str(peer, a, sizeof(a));
	v[0] = '\0';
	if (via != NULL && config_proxy_trusted(svc, via))
		port_addr_str(via, v, sizeof(v));
	if (slotted)
		(void)snprintf(id, sizeof(id), "%u", (unsigned)c->id);
	(void)snprintf(buf, CONN_LOG_HEAD, "%s id=%s worker=%u svc=%s peer=%s"
	    "%s%s ms=%llu", kind, id, conn_worker, svc->name, a,
	    v[0] != '\0' ? " via=" : "", v,
	    (unsigned long long)(conn_now - c->t_accept));
}
