/*
 * conn.c - see conn.h.
 */
#include <stdio.h>

#include "conn.h"

uint64_t conn_now;
unsigned conn_worker;
int conn_draining;
const struct config *conn_cfg;

void
connset_init(struct connset *set, const struct conn_class *cls, uint32_t n)
{
	set->max = set->nfree = n;
	set->nlive = 0;
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
connset_at(const struct connset *set, uint32_t i)
{
	return (struct conn *)(void *)(set->storage + (size_t)i * set->esize);
}

struct conn *
connset_new(struct connset *set)
{
	struct conn *c;

	if (set->nfree == 0)
		return NULL;
	c = connset_at(set, set->freel[--set->nfree]);
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

	last->pos = c->pos;
	set->live[c->pos] = last;
	c->pos = CONN_FREE;
	c->cfd = c->bfd = -1;
	set->freel[set->nfree++] = c->id;
}

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
