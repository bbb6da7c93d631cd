/*
 * tlsauth.c - client certificates, for tls.c: a client's chain passed
 * on to BearSSL's validator, TLS_CHAIN_MAX certificates at most, and the
 * subject of the one it verified, for the backend.
 */
#include <stdio.h>
#include <string.h>

#include "tls.h"
#include "tlsint.h"

/*
 * A client's chain goes to BearSSL's validator, which checks each
 * certificate's signature with the next one's key, whether or not the
 * chain ends at a CA of ours, so one long chain would buy a client
 * thousands of signature checks.  These calls pass at most TLS_CHAIN_MAX
 * certificates on; a longer chain fails.
 */
static struct tls_conn *
bounded_conn(const br_x509_class **ctx)
{
	return (struct tls_conn *)(void *)((char *)(void *)ctx -
	    offsetof(struct tls_conn, bounded));
}

static void
xb_start_chain(const br_x509_class **ctx, const char *server_name)
{
	struct tls_conn *t = bounded_conn(ctx);

	t->ncert = 0;
	t->x509.vtable->start_chain(&t->x509.vtable, server_name);
}

static void
xb_start_cert(const br_x509_class **ctx, uint32_t length)
{
	struct tls_conn *t = bounded_conn(ctx);

	if (++t->ncert <= TLS_CHAIN_MAX)
		t->x509.vtable->start_cert(&t->x509.vtable, length);
}

static void
xb_append(const br_x509_class **ctx, const unsigned char *buf, size_t len)
{
	struct tls_conn *t = bounded_conn(ctx);

	if (t->ncert <= TLS_CHAIN_MAX)
		t->x509.vtable->append(&t->x509.vtable, buf, len);
}

static void
xb_end_cert(const br_x509_class **ctx)
{
	struct tls_conn *t = bounded_conn(ctx);

	if (t->ncert <= TLS_CHAIN_MAX)
		t->x509.vtable->end_cert(&t->x509.vtable);
}

static unsigned
xb_end_chain(const br_x509_class **ctx)
{
	struct tls_conn *t = bounded_conn(ctx);
	unsigned err = t->x509.vtable->end_chain(&t->x509.vtable);

	return t->ncert > TLS_CHAIN_MAX ? BR_ERR_X509_LIMIT_EXCEEDED : err;
}

static const br_x509_pkey *
xb_get_pkey(const br_x509_class *const *ctx, unsigned *usages)
{
	const struct tls_conn *t = (const struct tls_conn *)(const void *)
	    ((const char *)(const void *)ctx - offsetof(struct tls_conn,
	    bounded));

	return t->ncert > TLS_CHAIN_MAX ? NULL :
	    t->x509.vtable->get_pkey(&t->x509.vtable, usages);
}

const br_x509_class tls_bounded_class = {
	sizeof(struct tls_conn), xb_start_chain, xb_start_cert, xb_append,
	xb_end_cert, xb_end_chain, xb_get_pkey,
};

size_t
tls_client_subject(const struct tls_conn *t, char *buf, size_t cap)
{
	static const char *const tags[TLS_SUBJ_ELTS] = { "CN", "O", "OU", "C" };
	size_t n = 0;

	if (!t->client_auth || cap == 0)
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
