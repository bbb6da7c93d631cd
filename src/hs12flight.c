/* SPDX-License-Identifier: ISC */
/*
 * hs12flight.c - the TLS 1.2 server's flight, for hs12.c, one piece at a
 * time: ServerHello, Certificate streamed from the chain,
 * ServerKeyExchange, [CertificateRequest and its CA names,]
 * ServerHelloDone.
 */
#include "engint.h"
#include "tlswire.h"

/* The flight's pieces, in order (fl_stage). */
enum {
	F_SH, F_CERT, F_CERT_LEN, F_CERT_DER, F_SKE, F_CR, F_CA_LEN,
	F_CA_DN, F_SHD, F_DONE
};

/*
 * ServerKeyExchange (RFC 8422 5.4): ServerECDHParams (named_curve, the
 * group, our point), then its signature (RFC 5246 7.4.3, with 4.7's
 * digitally-signed: the scheme, then a 2-byte length) over
 * client_random + server_random + params, so the share cannot be
 * replayed into another handshake.
 */
static int
server_kx(struct eng *c, struct tw *w)
{
	const struct tls_sig *s = sig_scheme(c->ch.scheme, 0);
	const br_hash_class *dig;
	br_hash_compat_context hc;
	unsigned char hv[64];
	size_t p0, n;

	if (s == NULL)
		return -1;
	dig = hash_class(s->hash);
	tw_msg(w, HT_SERVER_KEY_EXCHANGE);
	p0 = w->n;
	tw_u8(w, 3);				/* named_curve */
	tw_u16(w, c->group);
	tw_u8(w, 0);
	if (w->err || (n = kx_gen(&c->kx, (int)c->group, c->ops->rng,
	    w->b + w->n, w->cap - w->n)) == 0)
		return -1;
	w->b[w->n - 1] = (unsigned char)n;
	w->n += n;
	dig->init(&hc.vtable);
	dig->update(&hc.vtable, c->cr, 32);
	dig->update(&hc.vtable, c->sr, 32);
	dig->update(&hc.vtable, w->b + p0, w->n - p0);
	dig->out(&hc.vtable, hv);
	tw_u16(w, s->code);
	if (w->err || w->cap - w->n < 2)
		return -1;
	n = sig_sign(s, hv, c->ch.ec, c->ch.rsa, c->ops->rng, w->b + w->n + 2,
	    w->cap - w->n - 2);
	if (n == 0)
		return -1;
	tw_u16(w, (unsigned)n);
	w->n += n;
	tw_close(w);
	return 0;
}

/*
 * ServerHello (RFC 5246 7.4.1.3): an extension only in answer to the
 * client's own (7.4.1.4: a server must not send one it was not
 * offered).
 */
static void
server_hello(struct eng *c, struct tw *w)
{
	tw_msg(w, HT_SERVER_HELLO);
	tw_u16(w, TLS12);
	tw_put(w, c->sr, 32);
	tw_open(w, 1);
	tw_put(w, c->sid, c->sid_len);
	tw_close(w);
	tw_u16(w, c->ch.suite);
	tw_u8(w, 0);				/* null compression */
	tw_open(w, 2);
	if (c->reneg) {			/* RFC 5746 3.6: empty */
		tw_u16(w, EXT_RENEGOTIATION_INFO);
		tw_u16(w, 1);
		tw_u8(w, 0);
	}
	if (c->ems) {
		tw_u16(w, EXT_EXTENDED_MASTER_SECRET);
		tw_u16(w, 0);
	}
	if (c->nst_owed) {		/* RFC 5077 3.2: empty */
		tw_u16(w, EXT_SESSION_TICKET);
		tw_u16(w, 0);
	}
	if (c->ecpf && !c->resumed) {	/* RFC 8422 5.2: uncompressed */
		tw_u16(w, EXT_EC_POINT_FORMATS);
		tw_u16(w, 2);
		tw_u8(w, 1);
		tw_u8(w, 0);
	}
	hs_put_exts(c, w);
	tw_close(w);
	tw_close(w);
}

/*
 * The flight of RFC 5246 7.3's full handshake, a piece per call, each
 * into msg or pointing at storage that outlives the flight (the chain,
 * the CA names): a certificate chain is never copied whole, so the
 * largest chain needs no larger buffer.  A resumed handshake is the
 * ServerHello alone (7.3's abbreviated handshake; hs12.c follows it
 * with ChangeCipherSpec and Finished).
 */
int
hs12_piece(struct eng *c)
{
	const unsigned char *s = c->msg;
	unsigned sigs[4];
	size_t total, n, i;
	struct tw w;
	int next = c->fl_stage + 1;

	tw_init(&w, c->msg, sizeof(c->msg));
	switch (c->fl_stage) {
	case F_SH:
		server_hello(c, &w);
		if (c->resumed)
			next = F_DONE;
		break;
	case F_CERT:	/* Certificate (7.4.2), streamed: the lengths */
		total = 0;
		for (i = 0; i < c->ch.nchain; i++)
			total += 3 + c->ch.chain[i].data_len;
		tw_u8(&w, HT_CERTIFICATE);
		tw_u24(&w, total + 3);
		tw_u24(&w, total);
		c->fl_cert = 0;
		break;
	case F_CERT_LEN:
		tw_u24(&w, c->ch.chain[c->fl_cert].data_len);
		break;
	case F_CERT_DER:
		s = c->ch.chain[c->fl_cert].data;
		w.n = c->ch.chain[c->fl_cert].data_len;
		if (++c->fl_cert < c->ch.nchain)
			next = F_CERT_LEN;
		break;
	case F_SKE:
		if (server_kx(c, &w) < 0)
			return -1;
		if (c->ch.x509 == NULL)
			next = F_SHD;
		break;
	/*
	 * CertificateRequest (7.4.4): certificate_types, the schemes we
	 * check, then certificate_authorities, whose total is counted first
	 * so the names can stream after it.
	 */
	case F_CR:
		total = hs_ca_names_len(&c->ch, 64);
		n = hs_cr_sigs(c, sigs, sizeof(sigs) / sizeof(sigs[0]));
		tw_u8(&w, HT_CERTIFICATE_REQUEST);
		tw_u24(&w, 3 + 2 + 2 * n + 2 + total);
		tw_u8(&w, 2);
		tw_u8(&w, 1);			/* rsa_sign */
		tw_u8(&w, 64);			/* ecdsa_sign */
		tw_u16(&w, (unsigned)(2 * n));
		for (i = 0; i < n; i++)
			tw_u16(&w, sigs[i]);
		tw_u16(&w, (unsigned)total);
		c->fl_cert = 0;
		if (total == 0)
			next = F_SHD;
		break;
	case F_CA_LEN:
		tw_u16(&w, (unsigned)c->ch.cas[c->fl_cert].dn.len);
		break;
	case F_CA_DN:
		s = c->ch.cas[c->fl_cert].dn.data;
		w.n = c->ch.cas[c->fl_cert].dn.len;
		if (++c->fl_cert < c->ch.ncas)
			next = F_CA_LEN;
		break;
	case F_SHD:
		tw_msg(&w, HT_SERVER_HELLO_DONE);
		tw_close(&w);
		break;
	default:
		return 0;
	}
	return hs_piece_done(c, &w, s, next);
}
