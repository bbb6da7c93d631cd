/* SPDX-License-Identifier: ISC */
/*
 * cred.c - see cred.h.
 *
 * PEM files are read whole into one static buffer and decoded into the
 * caller's storage, a key's only if no one else may read it (mode and
 * owner, as ticket_key_file's); the private key's DER and the decoders
 * are wiped as soon as its components are copied out.
 */
#include <stdio.h>
#include <string.h>

#include "cred.h"
#include "crl.h"
#include "ct.h"
#include "port.h"
#include "tlscrypto.h"

#define DER_SEQUENCE_TAG	0x30	/* a DER file's first byte */

static unsigned char pem[TLSGATE_MAX_FILE];
static unsigned char key_der[8192];
/* Decoders and buffers, each used by one call at a time. */
static struct {
	br_pem_decoder_context	pc;
	br_skey_decoder_context	dc;
	br_x509_decoder_context	xd;
	/* An EC public key, or an RSA signature of 4096 bits at most. */
	unsigned char		pub[BR_EC_KBUF_PUB_MAX_SIZE > 512 ?
				    BR_EC_KBUF_PUB_MAX_SIZE : 512];
	unsigned char		der[TLSGATE_MAX_FILE];
} w;

/* Where a decoder streams its output: PEM objects' DER, a CA's DN. */
struct sink {
	unsigned char	*buf;
	size_t		 cap, len;
	int		 overflow;
};

static void
append(void *ctx, const void *data, size_t len)
{
	struct sink *s = ctx;

	if (len > s->cap - s->len) {
		s->overflow = 1;
		return;
	}
	memcpy(s->buf + s->len, data, len);
	s->len += len;
}

/*
 * Read the file at path into pem[] and decode all PEM objects named
 * like `want` (prefix match on the name's end: "CERTIFICATE", "PRIVATE
 * KEY") into dst, each one's place in dst in obj[] (BearSSL's pair of
 * data and length, whatever the object); a private key's file is
 * checked as a secret (port_read_secret()), a CRL's may be one in DER
 * instead.  Returns the object count, or -1 with *why set.
 */
static int
pem_decode(const char *path, const char *want, unsigned char *dst,
    size_t cap, br_x509_certificate *obj, int max, const char **why)
{
	struct sink sink = { dst, cap, 0, 0 };
	int n = 0, inobj = 0, take = 0;
	size_t start = 0, len;
	const unsigned char *src = pem;
	long flen;

	flen = strcmp(want, "PRIVATE KEY") == 0 ?
	    port_read_secret(path, pem, sizeof(pem), why) :
	    port_read_file(path, pem, sizeof(pem), why);
	if (flen < 0)
		return -1;
	len = (size_t)flen;
	if (len > 0 && pem[0] == DER_SEQUENCE_TAG && len <= cap &&
	    strcmp(want, "X509 CRL") == 0) {
		memcpy(dst, pem, len);
		obj[0].data = dst;
		obj[0].data_len = len;
		return 1;
	}
	br_pem_decoder_init(&w.pc);
	while (len > 0 || inobj) {
		size_t k;

		if (len == 0) {
			/* Flush a last line without its newline. */
			src = (const unsigned char *)"\n";
			len = 1;
			inobj = 0;
		}
		k = br_pem_decoder_push(&w.pc, src, len);
		src += k;
		len -= k;
		switch (br_pem_decoder_event(&w.pc)) {
		case BR_PEM_BEGIN_OBJ: {
			const char *name = br_pem_decoder_name(&w.pc);
			size_t nl = strlen(name), wl = strlen(want);

			inobj = 1;
			take = nl >= wl && strcmp(name + nl - wl, want) == 0;
			if (take && n == max) {
				*why = "too many objects";
				return -1;
			}
			start = sink.len;
			br_pem_decoder_setdest(&w.pc, take ? append : NULL,
			    &sink);
			break;
		}
		case BR_PEM_END_OBJ:
			inobj = 0;
			if (take) {
				obj[n].data = dst + start;
				obj[n].data_len = sink.len - start;
				n++;
			}
			break;
		case BR_PEM_ERROR:
			*why = "invalid PEM";
			return -1;
		}
	}
	if (sink.overflow) {
		*why = "larger than the compile-time limit";
		return -1;
	}
	if (n == 0)
		*why = "no PEM object of the expected type";
	return n;
}

int
cred_load_chain(struct cred *c, const char *path, char *err, size_t cap)
{
	const char *why;
	int n;

	n = pem_decode(path, "CERTIFICATE", c->der, sizeof(c->der), c->chain,
	    TLSGATE_MAX_CERTS, &why);
	if (n <= 0) {
		snprintf(err, cap, "cert %s: %s", path, why);
		return -1;
	}
	c->nchain = (size_t)n;
	c->nnames = certname_get(c->chain[0].data, c->chain[0].data_len,
	    c->names);
	return 0;
}

/* Copy a key component into the credential so the decoder can be wiped. */
static unsigned char *
keep(struct cred *c, size_t *used, const unsigned char *p, size_t len)
{
	unsigned char *d = c->mat + *used;

	memcpy(d, p, len);
	*used += len;
	return d;
}

static int
load_key(struct cred *c, const char *path, char *err, size_t cap)
{
	br_x509_certificate obj;
	size_t used = 0;
	const char *why;

	if (pem_decode(path, "PRIVATE KEY", key_der, sizeof(key_der), &obj,
	    1, &why) <= 0)
		goto fail;
	br_skey_decoder_init(&w.dc);
	br_skey_decoder_push(&w.dc, obj.data, obj.data_len);
	if (br_skey_decoder_last_error(&w.dc) != 0) {
		why = "not a valid RSA or EC private key";
		goto fail;
	}
	c->key_type = br_skey_decoder_key_type(&w.dc);
	if (c->key_type == BR_KEYTYPE_EC) {
		const br_ec_private_key *k = br_skey_decoder_get_ec(&w.dc);

		if (k->curve != BR_EC_secp256r1 && k->curve != BR_EC_secp384r1 &&
		    k->curve != BR_EC_secp521r1) {
			why = "EC key on an unsupported curve (P-256, P-384, "
			    "P-521 only)";
			goto fail;
		}
		c->ec.curve = k->curve;
		c->ec.xlen = k->xlen;
		c->ec.x = keep(c, &used, k->x, k->xlen);
		ct_secret(c->ec.x, c->ec.xlen);
	} else {
		const br_rsa_private_key *k = br_skey_decoder_get_rsa(&w.dc);

		if (k->n_bitlen < 2048 || k->n_bitlen > 4096) {
			why = "RSA key size must be 2048 to 4096 bits";
			goto fail;
		}
		c->rsa = *k;
		c->rsa.p = keep(c, &used, k->p, k->plen);
		c->rsa.q = keep(c, &used, k->q, k->qlen);
		c->rsa.dp = keep(c, &used, k->dp, k->dplen);
		c->rsa.dq = keep(c, &used, k->dq, k->dqlen);
		c->rsa.iq = keep(c, &used, k->iq, k->iqlen);
	}
	why = NULL;
fail:
	br_skey_decoder_init(&w.dc);
	memset(key_der, 0, sizeof(key_der));
	memset(pem, 0, sizeof(pem));
	if (why == NULL)
		return 0;
	snprintf(err, cap, "key %s: %s", path, why);
	return -1;
}

/* Does the key match the first certificate's public key? */
static const char *
check_match(struct cred *c)
{
	const br_x509_pkey *pk;

	br_x509_decoder_init(&w.xd, NULL, NULL);
	br_x509_decoder_push(&w.xd, c->chain[0].data, c->chain[0].data_len);
	pk = br_x509_decoder_get_pkey(&w.xd);
	if (pk == NULL || br_x509_decoder_last_error(&w.xd) != 0)
		return "cannot decode the first certificate";
	if (pk->key_type != c->key_type)
		return "key type differs from the certificate's";
	if (c->key_type == BR_KEYTYPE_EC) {
		br_ec_public_key pub;

		if (br_ec_compute_pub(br_ec_get_default(), &pub, w.pub,
		    &c->ec) == 0)
			return "cannot compute the EC public key";
		ct_public(w.pub, pub.qlen);	/* in the certificate */
		if (pub.curve != pk->key.ec.curve || pub.qlen !=
		    pk->key.ec.qlen || memcmp(pub.q, pk->key.ec.q, pub.qlen) != 0)
			return "does not match the certificate";
	} else {
		/*
		 * What the key signs, the certificate's key must verify: one
		 * private operation, as each full handshake makes.  (BearSSL
		 * cannot multiply p and q of a 4096-bit key in its scratch,
		 * and its public exponent recomputation fails for some
		 * valid keys.)
		 */
		const struct tls_sig *s = tls_sig(SIG_RSA_PKCS1_SHA256);
		static const unsigned char h[32];	/* any SHA-256 will do */
		size_t n = sig_sign(s, h, NULL, &c->rsa, NULL, w.pub,
		    sizeof(w.pub));

		if (n == 0 || !sig_verify(s, h, sizeof(h), pk, w.pub, n))
			return "does not match the certificate";
	}
	return NULL;
}

int
cred_load_anchors(struct cred_anchors *a, const char *path, char *err, size_t cap)
{
	br_x509_certificate obj[TLSGATE_MAX_ANCHORS];
	const char *why;
	int n;

	n = pem_decode(path, "CERTIFICATE", w.der, sizeof(w.der), obj,
	    (int)(TLSGATE_MAX_ANCHORS - a->n), &why);
	if (n <= 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		br_x509_trust_anchor *ta = &a->ta[a->n];
		unsigned char *mem = a->mem[a->n];
		struct sink dn = { mem, CRED_ANCHOR_MEM / 2, 0, 0 };
		struct sink k = { mem + CRED_ANCHOR_MEM / 2, CRED_ANCHOR_MEM / 2,
		    0, 0 };
		const br_x509_pkey *pk;

		br_x509_decoder_init(&w.xd, append, &dn);
		br_x509_decoder_push(&w.xd, obj[i].data, obj[i].data_len);
		pk = br_x509_decoder_get_pkey(&w.xd);
		why = "a certificate cannot be decoded or is too large";
		if (pk == NULL || dn.overflow)
			goto fail;
		ta->dn.data = mem;
		ta->dn.len = dn.len;
		ta->flags = BR_X509_TA_CA;
		ta->pkey = *pk;
		/* The key, out of the decoder, after the DN. */
		if (pk->key_type == BR_KEYTYPE_RSA) {
			ta->pkey.key.rsa.n = k.buf;
			append(&k, pk->key.rsa.n, pk->key.rsa.nlen);
			ta->pkey.key.rsa.e = k.buf + k.len;
			append(&k, pk->key.rsa.e, pk->key.rsa.elen);
		} else {
			ta->pkey.key.ec.q = k.buf;
			append(&k, pk->key.ec.q, pk->key.ec.qlen);
		}
		if (k.overflow)
			goto fail;
		a->n++;
	}
	return 0;
fail:
	snprintf(err, cap, "client_ca %s: %s", path, why);
	return -1;
}

int
cred_load_crls(struct crl_set *set, const char *path,
    const struct cred_anchors *a, unsigned anchor0, unsigned nanchor,
    char *err, size_t cap)
{
	br_x509_certificate obj[CRL_LISTS_MAX];
	const char *why;
	int n;

	n = pem_decode(path, "X509 CRL", w.der, sizeof(w.der), obj,
	    CRL_LISTS_MAX, &why);
	if (n <= 0) {
		snprintf(err, cap, "client_crl %s: %s", path, why);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (crl_add(set, obj[i].data, obj[i].data_len, &a->ta[anchor0],
		    nanchor, &why) < 0) {
			snprintf(err, cap, "client_crl %s: CRL %d: %s", path,
			    i + 1, why);
			return -1;
		}
	return 0;
}

int
cred_load(struct cred *c, const char *cert, const char *key, char *err,
    size_t cap)
{
	const char *why;

	if (cred_load_chain(c, cert, err, cap) < 0 ||
	    load_key(c, key, err, cap) < 0)
		return -1;
	if ((why = check_match(c)) != NULL) {
		snprintf(err, cap, "key %s: %s %s", key, why, cert);
		return -1;
	}
	return 0;
}

size_t
cred_static_bytes(void)
{
	return sizeof(pem) + sizeof(key_der) + sizeof(w);
}
