/* SPDX-License-Identifier: ISC */
/*
 * tlsclient.c - see tlsclient.h.
 */
#include <stdio.h>
#include <string.h>

#include "der.h"
#include "log.h"
#include "metrics.h"
#include "tlsclient.h"

/*
 * The validator the engine sees: BearSSL's minimal one, with the first
 * certificate's serial and issuer read as it goes by, and at the end
 * of a chain it trusts, the CRL check.
 */
static struct tls_conn *
conn_of(const br_x509_class **ctx)
{
	return (struct tls_conn *)(void *)((char *)(void *)ctx -
	    offsetof(struct tls_conn, crl_vt));
}

static void
crl_start_chain(const br_x509_class **ctx, const char *server_name)
{
	struct tls_conn *t = conn_of(ctx);

	t->ncert = 0;
	t->leaf_len = 0;
	t->chain_used = 0;
	t->from_ticket = 0;
	crl_leaf_start(&t->leaf);
	t->x509.vtable->start_chain(&t->x509.vtable, server_name);
}

static void
crl_start_cert(const br_x509_class **ctx, uint32_t length)
{
	struct tls_conn *t = conn_of(ctx);

	/* The engine stops a chain at ENG_CHAIN_MAX certificates. */
	if (++t->ncert > 1)
		t->chain_len[t->ncert - 2] = 0;
	t->x509.vtable->start_cert(&t->x509.vtable, length);
}

static void
crl_append(const br_x509_class **ctx, const unsigned char *buf, size_t len)
{
	struct tls_conn *t = conn_of(ctx);

	if (t->ncert == 1) {
		crl_leaf_feed(&t->leaf, buf, len);
		if (t->leaf_len <= sizeof(t->leaf_der) &&
		    len <= sizeof(t->leaf_der) - t->leaf_len)
			memcpy(t->leaf_der + t->leaf_len, buf, len);
		t->leaf_len += len;
	} else if (t->ncert > 1) {
		if (t->chain_used <= sizeof(t->chain_der) &&
		    len <= sizeof(t->chain_der) - t->chain_used)
			memcpy(t->chain_der + t->chain_used, buf, len);
		t->chain_used += len;
		t->chain_len[t->ncert - 2] += len;
	}
	t->x509.vtable->append(&t->x509.vtable, buf, len);
}

static void
crl_end_cert(const br_x509_class **ctx)
{
	struct tls_conn *t = conn_of(ctx);

	t->x509.vtable->end_cert(&t->x509.vtable);
}

static unsigned
crl_end_chain(const br_x509_class **ctx)
{
	struct tls_conn *t = conn_of(ctx);
	const struct service *cfg = t->cfg;
	unsigned err = t->x509.vtable->end_chain(&t->x509.vtable);
	char serial[2 * CRL_SERIAL_MAX + 1];
	int leaf = t->leaf_len > sizeof(t->leaf_der);

	if (err != 0)
		return err;
	/* http mode hands it on whole, or not at all. */
	if (cfg->mode == MODE_HTTP && (leaf ||
	    t->chain_used > sizeof(t->chain_der))) {
		log_msg(LOG_WARN, "client cert refused svc=%s bytes=%zu "
		    "reason=%s", cfg->name, leaf ? t->leaf_len : t->chain_used,
		    leaf ? "larger-than-client-cert-max" :
		    "chain-larger-than-client-chain-max");
		return TLS_ERR_CERT_TOO_BIG;
	}
	err = crl_check(t->crls, t->crl0, t->ncrl, &t->leaf, port_time(),
	    (int)cfg->crl_keep);
	/* A ticket's: tls_client_recheck() says it, nothing is refused. */
	if (err != 0 && !t->rechecking) {
		crl_leaf_serial(&t->leaf, serial, sizeof(serial));
		log_msg(LOG_WARN, "client cert refused svc=%s serial=%s "
		    "reason=%s", cfg->name, serial, err == CRL_ERR_REVOKED ?
		    "revoked" : "crl-expired");
		metrics_refused_cert(err == CRL_ERR_STALE);
	}
	return err;
}

static const br_x509_pkey *
crl_get_pkey(const br_x509_class *const *ctx, unsigned *usages)
{
	const struct tls_conn *t = (const struct tls_conn *)(const void *)
	    ((const char *)(const void *)ctx - offsetof(struct tls_conn,
	    crl_vt));

	return t->x509.vtable->get_pkey(&t->x509.vtable, usages);
}

static const br_x509_class crl_class = {
	sizeof(struct tls_conn), crl_start_chain, crl_start_cert, crl_append,
	crl_end_cert, crl_end_chain, crl_get_pkey
};

/* Client auth against the service's CAs, keeping subject elements. */
void
tls_client_setup(struct tls_conn *t, const br_x509_trust_anchor *ta,
    size_t nta, const struct crl_set *crls, unsigned crl0, unsigned ncrl,
    const struct service *svc)
{
	static const unsigned char oids[TLS_SUBJ_ELTS][4] = {
		{ 3, 0x55, 0x04, 0x03 },	/* CN */
		{ 3, 0x55, 0x04, 0x0a },	/* O */
		{ 3, 0x55, 0x04, 0x0b },	/* OU */
		{ 3, 0x55, 0x04, 0x06 },	/* C */
	};
	br_x509_minimal_context *x = &t->x509;

	t->crls = crls;
	t->crl0 = crl0;
	t->ncrl = ncrl;
	t->cfg = svc;
	t->from_ticket = t->rechecking = 0;
	br_x509_minimal_init(x, &br_sha256_vtable, ta, nta);
	br_x509_minimal_set_rsa(x, br_rsa_pkcs1_vrfy_get_default());
	br_x509_minimal_set_ecdsa(x, br_ec_get_default(),
	    br_ecdsa_vrfy_asn1_get_default());
	for (int id = br_sha1_ID; id <= br_sha512_ID; id++)
		br_x509_minimal_set_hash(x, id, hash_class(id));
	for (unsigned i = 0; i < TLS_SUBJ_ELTS; i++) {
		t->subj[i].oid = oids[i];
		t->subj[i].buf = t->subj_buf[i];
		t->subj[i].len = TLS_SUBJ_LEN;
	}
	br_x509_minimal_set_name_elements(x, t->subj, TLS_SUBJ_ELTS);
	t->crl_vt = &crl_class;
}

/*
 * The ticket's certificate counts once the ticket has resumed: until
 * then a full handshake may follow, without a certificate perhaps.
 */
int
tls_client_verified(const struct tls_conn *t)
{
	struct eng_result r;

	if (!t->client_auth || t->ncert == 0)
		return 0;
	if (!t->from_ticket)
		return 1;
	eng_result(&t->eng, &r);
	return r.resumed;
}

int
tls_client_recheck(struct tls_conn *t, const unsigned char *der, size_t len)
{
	const br_x509_class **x = &t->crl_vt;
	char serial[2 * CRL_SERIAL_MAX + 1];
	const unsigned char *p = der, *c;
	size_t n, left = len;
	unsigned err, nc = 0;

	t->rechecking = 1;
	(*x)->start_chain(x, NULL);
	/* Each certificate's length is its DER's: the ticket has no other. */
	for (; left > 0 && nc < ENG_CHAIN_MAX; nc++, der = p) {
		if (der_get(&p, &left, DER_SEQUENCE, &c, &n) < 0)
			break;
		(*x)->start_cert(x, (uint32_t)(p - der));
		(*x)->append(x, der, (size_t)(p - der));
		(*x)->end_cert(x);
	}
	err = (*x)->end_chain(x);
	if (err == 0 && (left > 0 || nc == 0))
		err = BR_ERR_X509_INNER_TRUNC;	/* not the chain sealed */
	t->rechecking = 0;
	if (err == 0) {
		t->from_ticket = 1;
		return 1;
	}
	crl_leaf_serial(&t->leaf, serial, sizeof(serial));
	log_msg(LOG_INFO, "ticket not resumed svc=%s serial=%s reason=%s",
	    t->cfg->name, serial, err == CRL_ERR_REVOKED ? "revoked" :
	    err == CRL_ERR_STALE ? "crl-expired" : tls_error_name((int)err));
	t->ncert = 0;
	t->leaf_len = t->chain_used = 0;
	return 0;
}

size_t
tls_client_cn(const struct tls_conn *t, char *buf, size_t cap)
{
	const char *v = t->subj_buf[0];		/* CN, client_auth()'s first */
	size_t n = 0;

	if (!tls_client_verified(t) || t->subj[0].status <= 0)
		return 0;
	for (; n < cap && v[n] != '\0'; n++)
		buf[n] = (char)(v[n] >= 0x20 && v[n] < 0x7f ? v[n] : '?');
	return n;
}

const unsigned char *
tls_client_cert(const struct tls_conn *t, size_t *len)
{
	*len = t->leaf_len;
	return tls_client_verified(t) && t->leaf_len > 0 &&
	    t->leaf_len <= sizeof(t->leaf_der) ? t->leaf_der : NULL;
}

const unsigned char *
tls_client_chain(const struct tls_conn *t, const size_t **lens, unsigned *n)
{
	*lens = t->chain_len;
	*n = t->ncert > 1 ? t->ncert - 1 : 0;
	return tls_client_verified(t) && *n > 0 &&
	    t->chain_used <= sizeof(t->chain_der) ? t->chain_der : NULL;
}

size_t
tls_client_subject(const struct tls_conn *t, char *buf, size_t cap)
{
	static const char *const tags[TLS_SUBJ_ELTS] = { "CN", "O", "OU", "C" };
	size_t n = 0;

	if (!tls_client_verified(t) || cap == 0)
		return 0;
	for (unsigned i = 0; i < TLS_SUBJ_ELTS; i++) {
		const char *v = t->subj_buf[i];
		size_t need = strlen(tags[i]) + 2;

		if (t->subj[i].status <= 0)
			continue;
		if (n + need + strlen(v) >= cap)
			break;
		n += (size_t)snprintf(buf + n, cap - n, "%s%s=", n ? "," : "",
		    tags[i]);
		/* Header-safe: printable ASCII; ',' and '\\' escaped. */
		for (; *v != '\0' && n + 2 < cap; v++) {
			unsigned char c = (unsigned char)*v;

			if (c == ',' || c == '\\')
				buf[n++] = '\\';
			buf[n++] = (char)(c >= 0x20 && c < 0x7f ? c : '?');
		}
	}
	buf[n] = '\0';
	return n;
}


/* One service's CRLs for tls_crl_report() (tls.h). */
void
tls_client_crl_report(const struct crl_set *crls, unsigned crl0,
    unsigned ncrl, const struct service *svc, unsigned i,
    int (*put)(const char *))
{
	char line[CONFIG_NAME_MAX + 160];
	int64_t now = port_time(), soonest = -1;

	for (unsigned j = crl0; j < crl0 + ncrl; j++) {
		const struct crl_list *l = &crls->lists[j];
		int64_t nu = l->next_update;
		int stale = nu >= 0 && now > nu;

		if (nu >= 0 && (soonest < 0 || nu < soonest))
			soonest = nu;
		snprintf(line, sizeof(line), "crl svc=%s list=%u revoked=%u "
		    "next_update_s=%lld%s", svc->name, j - crl0 + 1, l->n,
		    nu < 0 ? -1LL : (long long)(nu - now), !stale ? "" :
		    svc->crl_keep ? " expired: kept" :
		    " expired: its CA's clients are refused");
		if (put != NULL)
			(void)put(line);
		else
			log_msg(stale ? LOG_WARN : LOG_INFO, "%s", line);
	}
	metrics_crl(i, ncrl, soonest);
}
