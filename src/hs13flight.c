/* SPDX-License-Identifier: ISC */
/*
 * hs13flight.c - the TLS 1.3 server's flight, for hs13.c, one piece at a
 * time: EncryptedExtensions, [CertificateRequest and its CA names,]
 * Certificate streamed from the chain, CertificateVerify, Finished.
 */
#include "engint.h"
#include "tlswire.h"

/* The flight's pieces, in order (fl_stage). */
enum {
	F_EE, F_CR, F_CA_LEN, F_CA_DN, F_CERT, F_CERT_LEN, F_CERT_DER,
	F_CERT_EXT, F_CV, F_FIN, F_DONE
};

/*
 * RFC 8446 4.3-4.4's server flight, in 2's order, a piece per call, all
 * under the handshake traffic key.  Each message goes into the
 * transcript as it is written (rec.c), which is why CertificateVerify
 * and Finished can hash it here without a copy of what went before; the
 * chain and the CA names are sent from their own storage, never copied.
 */
int
hs13_piece(struct eng *c)
{
	unsigned char th[HASH_MAX];
	const unsigned char *s = c->msg;
	unsigned sigs[8];
	size_t n, total, i;
	struct tw w;
	int next = c->fl_stage + 1;

	tw_init(&w, c->msg, sizeof(c->msg));
	switch (c->fl_stage) {
	case F_EE:	/* EncryptedExtensions (4.3.1): mfl, ALPN, if asked */
		/* A resumption has the ticket's authentication: Finished. */
		if (c->resumed)
			next = F_FIN;
		else if (c->ch.x509 == NULL)
			next = F_CERT;
		tw_msg(&w, HT_ENCRYPTED_EXTENSIONS);
		tw_open(&w, 2);
		hs_put_exts(c, &w);
		tw_close(&w);
		tw_close(&w);
		break;
	case F_CR:	/* CertificateRequest (4.3.2): no context, schemes, CAs */
		n = 2 * hs_cr_sigs(c, sigs, sizeof(sigs) / sizeof(sigs[0]));
		total = hs_ca_names_len(&c->ch, 6 + n + 10);
		tw_u8(&w, HT_CERTIFICATE_REQUEST);
		/* The CA names stream after this piece: lengths by count. */
		tw_u24(&w, 1 + 2 + 4 + 2 + n + (total ? 6 + total : 0));
		tw_u8(&w, 0);
		tw_u16(&w, (unsigned)(4 + 2 + n + (total ? 6 + total : 0)));
		tw_u16(&w, EXT_SIGNATURE_ALGORITHMS);
		tw_u16(&w, (unsigned)(2 + n));
		tw_u16(&w, (unsigned)n);
		for (i = 0; i < n / 2; i++)
			tw_u16(&w, sigs[i]);
		if (total > 0) {
			tw_u16(&w, EXT_CERTIFICATE_AUTHORITIES);
			tw_u16(&w, (unsigned)(2 + total));
			tw_u16(&w, (unsigned)total);
		} else
			next = F_CERT;
		c->fl_cert = 0;
		break;
	case F_CA_LEN:	/* a CA's name: its length, then its DER */
		tw_u16(&w, (unsigned)c->ch.cas[c->fl_cert].dn.len);
		break;
	case F_CA_DN:
		s = c->ch.cas[c->fl_cert].dn.data;
		w.n = c->ch.cas[c->fl_cert].dn.len;
		if (++c->fl_cert < c->ch.ncas)
			next = F_CA_LEN;
		break;
	case F_CERT:	/* Certificate (4.4.2): no context, then the list */
		total = 0;
		for (i = 0; i < c->ch.nchain; i++)
			total += 3 + c->ch.chain[i].data_len + 2;
		tw_u8(&w, HT_CERTIFICATE);
		tw_u24(&w, total + 4);
		tw_u8(&w, 0);
		tw_u24(&w, total);
		c->fl_cert = 0;
		break;
	case F_CERT_LEN:	/* an entry's length */
		tw_u24(&w, c->ch.chain[c->fl_cert].data_len);
		break;
	case F_CERT_DER:	/* its DER, from the chain */
		s = c->ch.chain[c->fl_cert].data;
		w.n = c->ch.chain[c->fl_cert].data_len;
		break;
	case F_CERT_EXT:	/* its extensions: none */
		tw_u16(&w, 0);
		if (++c->fl_cert < c->ch.nchain)
			next = F_CERT_LEN;
		break;
	case F_CV:	/* CertificateVerify (4.4.3): the transcript so far */
		th_hash(&c->th, th);
		n = sig_cv_sign((int)c->ch.scheme, 1, th, c->ks.hlen,
		    c->ch.ec, c->ch.rsa, c->ops->rng, c->msg + 8,
		    sizeof(c->msg) - 8);
		if (n == 0)
			return -1;
		tw_msg(&w, HT_CERTIFICATE_VERIFY);
		tw_u16(&w, c->ch.scheme);
		tw_u16(&w, (unsigned)n);
		w.n += n;
		tw_close(&w);
		break;
	case F_FIN:	/* Finished (4.4.4): HMAC of the transcript */
		th_hash(&c->th, th);
		tw_msg(&w, HT_FINISHED);
		ks_finished(c->ks.dig, c->s_secret, th, c->msg + 4);
		ct_public(c->msg + 4, c->ks.hlen);	/* sent, to check */
		w.n += c->ks.hlen;
		tw_close(&w);
		break;
	default:
		return 0;
	}
	return hs_piece_done(c, &w, s, next);
}
