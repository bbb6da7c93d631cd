/* SPDX-License-Identifier: ISC */
/*
 * fuzz_hs12.c - libFuzzer target for the TLS 1.2 handshake of the engine
 * (src/hs12.c over src/rec.c), driven as slot.c drives it: eng_start()
 * on a valid TLS 1.2 ClientHello built here, then the client's bytes
 * through eng_recvrec_buf()/ack() in pieces of any size, the server's
 * drained through eng_sendrec_buf()/ack() and read back here.
 *
 * The input:
 *   byte 0: bit 0 ask for a client certificate; bit 1 a session store;
 *           bits 2-3 the suite (ECDSA with AES-128-GCM, AES-256-GCM,
 *           ChaCha20-Poly1305); bit 4 the hello offers the extended
 *           master secret; bit 5 play: this harness plays the client
 *           (below); bit 6 the hello names the stored session; bit 7
 *           play: one bit of the client's flight flipped;
 *   byte 1: bits 0-1 the group (X25519, P-256, P-384, P-521); bit 2 the
 *           stored session has the extended master secret; bits 3-5 the
 *           size of the pieces bytes move in, both ways; bit 6 a small
 *           output buffer (the flight streams over many records); bit 7
 *           the hello asks for max_fragment_length 2^9 (RFC 6066 4);
 *   bytes 2-3: which bit of the client's flight to flip (bit 7 above);
 *   the rest: the client's records as they come (not play), or, once
 *   this harness has played the client's flight, operations on the
 *   established connection (play, see op()).
 *
 * Playing the client, the harness reads the server's flight, answers
 * with its own ECDHE share, certificate and CertificateVerify (for a
 * fixed key the validator knows), ChangeCipherSpec and Finished (or,
 * resuming, the abbreviated handshake), all computed here from BearSSL's
 * primitives and recprot.c's records, and checks the server's answers.
 *
 * Invariants, each with abort():
 *  - the buffers the engine hands out lie inside ibuf and obuf (and
 *    ASan watches every access);
 *  - its state is consistent: once BR_SSL_CLOSED it stays so, with the
 *    same error; eng_last_error() is set iff it failed (BR_SSL_CLOSED
 *    without an error only after both close_notify); a failed engine
 *    neither reads records nor offers application data; the last record
 *    of a failed engine that sent an alert is that alert, fatal, the
 *    one eng_alert() names;
 *  - nothing completes a handshake but a valid client Finished: no
 *    BR_SSL_SENDAPP, no session saved, no server ChangeCipherSpec on a
 *    full handshake unless the harness played the client and delivered
 *    its Finished, unflipped; with a bit of the flight flipped the
 *    handshake never completes; played and unflipped, it always does
 *    (but when a stored session with the extended master secret meets
 *    a hello without it: RFC 7627 5.3);
 *  - the server writes well-formed records (plaintext ones until its
 *    ChangeCipherSpec, then each opens with its keys as computed here),
 *    none with more content than max_fragment_length allows,
 *    its flight in RFC 5246's order, a ServerHello with the downgrade
 *    sentinel and each extension the hello asked for, once, a
 *    ServerKeyExchange whose signature verifies, a Finished that is
 *    right, a fatal alert only once eng_last_error() is set, and a
 *    saved session with the master secret here;
 *  - the application data the engine hands over is what the client
 *    sealed, in order, and what the server sends opens to what it was
 *    given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eng.h"
#include "tlscrypto.h"
#include "tlswire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define check(ok)	do { if (!(ok)) abort(); } while (0)

#define STREAM	(1 << 17)
#define IBUF	(5 + RP_CIPHER_MAX)
#define OBUF	(5 + RP_CIPHER_MAX)
#define OBUF_SMALL 100

/*
 * The server's self-signed certificate, CN=tlsgate.test, for the P-256
 * key whose scalar is 21 22 .. 40 (hs12_seeds.py --cert makes one).
 */
static const unsigned char server_der[] = {
	0x30, 0x82, 0x01, 0x1d, 0x30, 0x81, 0xc3, 0xa0, 0x03, 0x02, 0x01, 0x02,
	0x02, 0x01, 0x0c, 0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
	0x04, 0x03, 0x02, 0x30, 0x17, 0x31, 0x15, 0x30, 0x13, 0x06, 0x03, 0x55,
	0x04, 0x03, 0x0c, 0x0c, 0x74, 0x6c, 0x73, 0x67, 0x61, 0x74, 0x65, 0x2e,
	0x74, 0x65, 0x73, 0x74, 0x30, 0x20, 0x17, 0x0d, 0x32, 0x36, 0x30, 0x31,
	0x30, 0x31, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x5a, 0x18, 0x0f, 0x32,
	0x31, 0x32, 0x35, 0x31, 0x32, 0x30, 0x38, 0x30, 0x30, 0x30, 0x30, 0x30,
	0x30, 0x5a, 0x30, 0x17, 0x31, 0x15, 0x30, 0x13, 0x06, 0x03, 0x55, 0x04,
	0x03, 0x0c, 0x0c, 0x74, 0x6c, 0x73, 0x67, 0x61, 0x74, 0x65, 0x2e, 0x74,
	0x65, 0x73, 0x74, 0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48,
	0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03,
	0x01, 0x07, 0x03, 0x42, 0x00, 0x04, 0x1f, 0x14, 0x01, 0x46, 0xbf, 0xb1,
	0xb2, 0x51, 0xf8, 0x4f, 0x4d, 0xdb, 0xe0, 0xd4, 0xcd, 0xcf, 0xd7, 0x7a,
	0xfd, 0x98, 0x4a, 0x95, 0x20, 0xe3, 0x57, 0x94, 0x02, 0x1f, 0x83, 0x12,
	0xbb, 0x9e, 0xec, 0x99, 0x5a, 0x08, 0xb1, 0xfa, 0x77, 0x04, 0xdf, 0x3d,
	0xcc, 0x0b, 0x50, 0xa9, 0x66, 0x52, 0x63, 0xfb, 0x77, 0x11, 0xf9, 0x5f,
	0x9f, 0x8a, 0x44, 0x9c, 0x50, 0x96, 0xe4, 0x7c, 0x89, 0x2b, 0x30, 0x0a,
	0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02, 0x03, 0x49,
	0x00, 0x30, 0x46, 0x02, 0x21, 0x00, 0xd1, 0xef, 0xa5, 0x54, 0x01, 0x3a,
	0x03, 0xc0, 0x35, 0xf5, 0xac, 0x18, 0x1b, 0xb5, 0xc5, 0x39, 0x16, 0x24,
	0x48, 0xe6, 0x6d, 0x93, 0xf4, 0xad, 0x6f, 0x13, 0x7c, 0x0a, 0xb0, 0x09,
	0xaa, 0xca, 0x02, 0x21, 0x00, 0x88, 0x1b, 0xde, 0xb4, 0x8a, 0xf2, 0xfa,
	0xeb, 0x98, 0x17, 0x26, 0x70, 0xf3, 0xb4, 0xb9, 0xcf, 0xbc, 0x75, 0x68,
	0x9f, 0x55, 0xf6, 0x8d, 0x99, 0xf9, 0xbd, 0x92, 0xe3, 0x8e, 0xaa, 0xc7,
	0x38,
};

static const struct {
	unsigned	 suite;
	int		 aead;
} suites[4] = {
	{ BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, SUITE_AES_128_GCM_SHA256 },
	{ BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, SUITE_AES_256_GCM_SHA384 },
	{ BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	    SUITE_CHACHA20_POLY1305_SHA256 },
	{ BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	    SUITE_CHACHA20_POLY1305_SHA256 },
};
static const unsigned short groups[4] = { GROUP_X25519, GROUP_SECP256R1,
    GROUP_SECP384R1, GROUP_SECP521R1 };
static const size_t steps[8] = { 1, 2, 3, 7, 64, 300, 5000, IBUF };

/* The configuration and the harness's view of the connection. */
static struct {
	int		 cert, store, ems, play, resume, flip, sess_ems, mfl;
	unsigned	 si, group;
	size_t		 step, olen, flip_at;
} cf;

static struct eng		 e;
static struct eng_ops		 ops;
static unsigned char		 ibuf[IBUF], obuf[OBUF];
static br_hmac_drbg_context	 rng;
static br_x509_certificate	 chain = { (unsigned char *)server_der,
    sizeof(server_der) };
static br_ec_private_key	 server_sk, client_sk;
static br_ec_public_key		 server_pk, client_pk;
static unsigned char		 sk_s[32], sk_c[32];
static unsigned char		 pk_s[BR_EC_KBUF_PUB_MAX_SIZE];
static unsigned char		 pk_c[BR_EC_KBUF_PUB_MAX_SIZE];
static br_x509_knownkey_context	 kk;
static br_x509_trust_anchor	 ca;
static unsigned char		 ch[512];	/* the ClientHello */
static size_t			 chlen;
static struct eng_session	 stored;	/* the session store */
static int			 saved;

/* Bytes toward the server, and how far they went. */
static unsigned char	 cbuf[STREAM];
static size_t		 clen, cpos, fin_end;
/* Bytes from the server, and how far they were read. */
static unsigned char	 sbuf[STREAM];
static size_t		 slen, spos;
/* Its handshake messages, joined. */
static unsigned char	 shs[STREAM];
static size_t		 shlen, shpos;

static struct {
	int		 stage;		/* the next server message expected */
	int		 s_ccs, resumed, cr, done, closed, fin_ok;
	unsigned char	 cr_rand[32], sr[32], ms[48];
	struct th th;
	struct rp	 wr, rd;	/* client -> server, server -> client */
	struct kx	 kx;
	unsigned char	 spub[KX_PUB_MAX];
	size_t		 spublen;
	unsigned	 last_alert;	/* the last alert record's, + 256 */
	int		 was_closed, err;
	int		 garbled;	/* bytes that are no client's record */
	int		 keys;		/* wr and rd are set */
	unsigned char	 app_in[STREAM];	/* sealed toward the server */
	size_t		 app_in_len, app_in_pos;
	unsigned char	 app_out[STREAM];	/* given to the server */
	size_t		 app_out_len, app_out_pos;
} k;

static int
prf384(void)
{
	return suites[cf.si].aead == SUITE_AES_256_GCM_SHA384;
}

static void
prf(unsigned char *out, size_t len, const unsigned char *secret,
    size_t slen_, const char *label, const void *s1, size_t n1,
    const void *s2, size_t n2)
{
	br_tls_prf_seed_chunk seed[2] = { { s1, n1 }, { s2, n2 } };

	(prf384() ? br_tls12_sha384_prf : br_tls12_sha256_prf)(out, len,
	    secret, slen_, label, s2 != NULL ? 2 : 1, seed);
}

/* Keys from the master secret: the client's to seal, the server's. */
static void
keys(void)
{
	unsigned char kb[2 * 32 + 2 * 12];
	int aead = suites[cf.si].aead;
	size_t kl = aead == SUITE_AES_128_GCM_SHA256 ? 16 : 32;
	size_t il = aead == SUITE_CHACHA20_POLY1305_SHA256 ? 12 : 4;

	prf(kb, 2 * kl + 2 * il, k.ms, 48, "key expansion", k.sr, 32,
	    k.cr_rand, 32);
	check(rp_init12(&k.wr, aead, kb, kb + 2 * kl));
	check(rp_init12(&k.rd, aead, kb + kl, kb + 2 * kl + il));
	k.keys = 1;
}

/* verify_data over the transcript so far. */
static void
finished(const char *label, unsigned char *out)
{
	unsigned char th[HASH_MAX];
	size_t n = th_hash(&k.th, th);

	prf(out, 12, k.ms, 48, label, th, n, NULL, 0);
}

/* A client record: plaintext, or sealed once the client's CCS is out. */
static void
put_record(int type, const void *p, size_t n, int seal)
{
	unsigned char *r = cbuf + clen;

	/* No keys (a refused handshake): nothing to seal with. */
	if (clen + 5 + n + RP_EXTRA12 > sizeof(cbuf) || (seal && !k.keys))
		return;
	memcpy(r + (seal ? rp_head12(&k.wr) : 5), p, n);
	if (seal) {
		clen += rp_seal12(&k.wr, r, n, sizeof(cbuf) - clen, type);
		return;
	}
	rp_header(r, type, n);
	clen += 5 + n;
}

/* A handshake message of the client: into the transcript, then out. */
static void
put_msg(const unsigned char *m, size_t n, int seal)
{
	th_add(&k.th, m, n);
	put_record(CT_HANDSHAKE, m, n, seal);
}

/*
 * The client's ChangeCipherSpec and Finished end its flight, which
 * began at first; with the flip on, one bit of that flight is flipped.
 */
static void
client_finished(size_t first)
{
	static const unsigned char one = 1;
	unsigned char m[16] = { HT_FINISHED, 0, 0, 12 };
	size_t bit;

	put_record(CT_CHANGE_CIPHER_SPEC, &one, 1, 0);
	finished("client finished", m + 4);
	put_msg(m, sizeof(m), 1);
	fin_end = clen;
	if (cf.flip) {
		bit = cf.flip_at % (8 * (fin_end - first));
		cbuf[first + bit / 8] ^= (unsigned char)(1 << bit % 8);
	}
}

/* After ServerHelloDone: [Certificate], ClientKeyExchange, [CV], Finished. */
static void
client_flight(void)
{
	static const unsigned char cert[] = { HT_CERTIFICATE, 0, 0, 11, 0, 0,
	    8, 0, 0, 5, 0x30, 0x03, 0x02, 0x01, 0x01 };
	unsigned char m[4 + 1 + KX_PUB_MAX], pms[KX_SHARED_MAX];
	unsigned char th[HASH_MAX], sig[4 + 8 + 80];
	unsigned char sk[66];
	size_t n, pms_len, hl, first = clen;

	if (k.cr)
		put_msg(cert, sizeof(cert), 0);
	for (size_t i = 0; i < sizeof(sk); i++)
		sk[i] = (unsigned char)(i + 1);
	sk[0] = 1;			/* P-521's scalar: below its order */
	n = kx_load(&k.kx, (int)groups[cf.group], sk,
	    groups[cf.group] == GROUP_SECP384R1 ? 48 :
	    groups[cf.group] == GROUP_SECP521R1 ? 66 : 32, m + 5,
	    sizeof(m) - 5);
	check(n > 0);
	m[0] = HT_CLIENT_KEY_EXCHANGE;
	m[1] = 0;
	m[2] = (unsigned char)((n + 1) >> 8);
	m[3] = (unsigned char)(n + 1);
	m[4] = (unsigned char)n;
	put_msg(m, 5 + n, 0);
	pms_len = kx_shared(&k.kx, k.spub, k.spublen, pms);
	check(pms_len > 0);
	if (cf.ems) {
		hl = th_hash(&k.th, th);
		prf(k.ms, 48, pms, pms_len, "extended master secret", th, hl,
		    NULL, 0);
	} else
		prf(k.ms, 48, pms, pms_len, "master secret", k.cr_rand, 32,
		    k.sr, 32);
	keys();
	if (k.cr) {	/* CertificateVerify over the transcript's hash */
		hl = th_hash(&k.th, th);
		n = br_ecdsa_i31_sign_asn1(br_ec_get_default(), prf384() ?
		    &br_sha384_vtable : &br_sha256_vtable, th, &client_sk,
		    sig + 8);
		check(n > 0);
		sig[0] = HT_CERTIFICATE_VERIFY;
		sig[1] = 0;
		sig[2] = 0;
		sig[3] = (unsigned char)(4 + n);
		sig[4] = prf384() ? 5 : 4;
		sig[5] = 3;
		sig[6] = 0;
		sig[7] = (unsigned char)n;
		put_msg(sig, 8 + n, 0);
	}
	client_finished(first);
}

/*
 * ServerHello's extensions from m[at..n): each once, each an answer to
 * what the hello offered (RFC 5246 7.4.1.4): renegotiation_info, empty
 * (it sent the SCSV, RFC 5746 3.6), extended_master_secret iff offered,
 * ec_point_formats with uncompressed on a full handshake (RFC 8422
 * 5.2), ALPN http/1.1, max_fragment_length's code echoed (RFC 6066 4).
 */
static void
server_hello_exts(const unsigned char *m, size_t n, size_t at)
{
	unsigned seen = 0;
	size_t t, len;

	check(n >= at + 2 && n == at + 2 + tw_get16(m + at));
	for (at += 2; at < n; at += 4 + len) {
		check(n - at >= 4 && n - at - 4 >= (len = tw_get16(m + at + 2)));
		t = tw_get16(m + at);
		switch (t) {
		case EXT_RENEGOTIATION_INFO:
			check(!(seen & 1) && len == 1 && m[at + 4] == 0);
			seen |= 1;
			break;
		case EXT_EXTENDED_MASTER_SECRET:
			check(!(seen & 2) && len == 0 && cf.ems);
			seen |= 2;
			break;
		case EXT_EC_POINT_FORMATS:
			check(!(seen & 4) && len == 2 && m[at + 4] == 1 &&
			    m[at + 5] == 0 && !k.resumed);
			seen |= 4;
			break;
		case EXT_ALPN:
			check(!(seen & 8) && len == 11 &&
			    memcmp(m + at + 4, "\0\x09\x08http/1.1", 11) == 0);
			seen |= 8;
			break;
		case EXT_MAX_FRAGMENT_LENGTH:
			check(!(seen & 16) && len == 1 && m[at + 4] == 1 &&
			    cf.mfl);
			seen |= 16;
			break;
		default:
			check(!"an extension the hello did not ask for");
		}
	}
	check(seen == (1u | (cf.ems ? 2 : 0) | (k.resumed ? 0 : 4) | 8 |
	    (cf.mfl ? 16 : 0)));
}

/* One whole handshake message of the server, in the order it must come. */
static void
server_msg(const unsigned char *m, size_t n)
{
	unsigned char vd[12];

	switch (m[0]) {
	case HT_SERVER_HELLO:
		check(k.stage == 0 && n >= 4 + 2 + 32 + 1);
		check(tw_get16(m + 4) == TLS12);
		memcpy(k.sr, m + 6, 32);
		/* RFC 8446 4.1.3: TLS 1.3 is on, "DOWNGRD" 01. */
		check(memcmp(k.sr + 24, "DOWNGRD\1", 8) == 0);
		check(n >= 39 + m[38] + 3);
		check(tw_get16(m + 39 + m[38]) == suites[cf.si].suite);
		k.resumed = m[38] == 32 && cf.resume && cf.store &&
		    memcmp(m + 39, stored.id, 32) == 0;
		server_hello_exts(m, n, 39 + m[38] + 3);
		th_init(&k.th, prf384() ? &br_sha384_vtable :
		    &br_sha256_vtable);
		th_add(&k.th, ch, chlen);
		th_add(&k.th, m, n);
		if (k.resumed) {
			memcpy(k.ms, stored.secret, 48);
			keys();
			k.stage = 5;
		} else
			k.stage = 1;
		return;
	case HT_CERTIFICATE:
		check(k.stage == 1 && n == 4 + 3 + 3 + sizeof(server_der));
		check(memcmp(m + 10, server_der, sizeof(server_der)) == 0);
		k.stage = 2;
		break;
	case HT_SERVER_KEY_EXCHANGE: {
		br_sha256_context h;
		unsigned char hv[32];
		size_t pl;

		check(k.stage == 2 && n >= 4 + 4 && m[4] == 3);
		check(tw_get16(m + 5) == groups[cf.group]);
		pl = m[7];
		check(n >= 8 + pl + 4 && tw_get16(m + 8 + pl) == 0x0403);
		check(n == 8 + pl + 4 + tw_get16(m + 8 + pl + 2));
		memcpy(k.spub, m + 8, pl);
		k.spublen = pl;
		br_sha256_init(&h);
		br_sha256_update(&h, k.cr_rand, 32);
		br_sha256_update(&h, k.sr, 32);
		br_sha256_update(&h, m + 4, 4 + pl);
		br_sha256_out(&h, hv);
		check(br_ecdsa_i31_vrfy_asn1(br_ec_get_default(), hv, 32,
		    &server_pk, m + 8 + pl + 4, n - 8 - pl - 4));
		k.stage = cf.cert ? 3 : 4;
		break;
	}
	case HT_CERTIFICATE_REQUEST:
		check(k.stage == 3 && cf.cert);
		k.cr = 1;
		k.stage = 4;
		break;
	case HT_SERVER_HELLO_DONE:
		check(k.stage == 4 && n == 4);
		th_add(&k.th, m, n);
		k.stage = 5;
		if (cf.play)
			client_flight();
		return;
	case HT_FINISHED:
		/* After its CCS (server_rec() checks), once. */
		check(k.stage == 5 && k.s_ccs && n == 16);
		finished("server finished", vd);
		check(memcmp(vd, m + 4, 12) == 0);
		th_add(&k.th, m, n);
		k.stage = 6;
		k.fin_ok = 1;
		if (k.resumed && cf.play)
			client_finished(clen);
		return;
	default:
		check(!"a server message that has no place here");
	}
	th_add(&k.th, m, n);
}

/* A server record's content of type. */
static void
server_content(int type, const unsigned char *p, size_t n)
{
	switch (type) {
	case CT_HANDSHAKE:
		check(n > 0 && shlen + n <= sizeof(shs));
		memcpy(shs + shlen, p, n);
		shlen += n;
		while (shlen - shpos >= 4 &&
		    shlen - shpos >= 4 + tw_get24(shs + shpos + 1)) {
			size_t ml = 4 + tw_get24(shs + shpos + 1);

			server_msg(shs + shpos, ml);
			shpos += ml;
		}
		break;
	case CT_CHANGE_CIPHER_SPEC:
		check(!k.s_ccs && n == 1 && p[0] == 1 && shpos == shlen);
		/*
		 * A full handshake's comes after the client's Finished:
		 * only the client the harness played has one.
		 */
		check(k.stage == 5 && (k.resumed || (cf.play && !cf.flip &&
		    cpos >= fin_end)));
		k.s_ccs = 1;
		break;
	case CT_ALERT:
		check(n == 2 && (p[0] == ALERT_FATAL || p[0] == ALERT_WARNING));
		/* A fatal alert of ours: the engine has failed. */
		check(p[0] != ALERT_FATAL || eng_last_error(&e) != 0);
		k.last_alert = 256 + p[1];
		if (p[1] == BR_ALERT_CLOSE_NOTIFY)
			k.closed = 1;
		break;
	case CT_APPLICATION_DATA:
		check(k.s_ccs && k.app_out_pos + n <= k.app_out_len);
		check(memcmp(k.app_out + k.app_out_pos, p, n) == 0);
		k.app_out_pos += n;
		break;
	default:
		check(!"a record type the server never writes");
	}
}

/* Whole server records in sbuf, each read once. */
static void
server_records(void)
{
	size_t max = cf.mfl ? 512 : RP_PLAIN_MAX;

	while (slen - spos >= 5 && slen - spos >= 5 + tw_get16(sbuf + spos + 3)) {
		unsigned char *r = sbuf + spos;
		size_t n = tw_get16(r + 3), len;
		int type = r[0];

		check(r[1] == 3 && r[2] == 3);
		spos += 5 + n;
		if (!k.s_ccs) {
			check(n <= max && type != CT_APPLICATION_DATA);
			server_content(type, r + 5, n);
			continue;
		}
		check(n <= max + RP_EXTRA12);
		type = rp_open12(&k.rd, r, 5 + n, &len);
		check(type > 0 && len <= max);
		server_content(type, r + rp_head12(&k.rd), len);
	}
}

/* The engine's state, as the loop would see it, and its invariants. */
static unsigned
state(void)
{
	unsigned st = eng_state(&e);
	int err = eng_last_error(&e);

	if (k.was_closed)
		check(st == BR_SSL_CLOSED && err == k.err);
	if (err != 0)
		check((st & (BR_SSL_RECVREC | BR_SSL_RECVAPP |
		    BR_SSL_SENDAPP)) == 0);
	if (st == BR_SSL_CLOSED) {
		/* Failed, or both sides said close_notify. */
		check(err != 0 || (k.closed && eng_peer_closed(&e)));
		/* An alert of ours, sent last: the one it names. */
		if (err >= BR_ERR_SEND_FATAL_ALERT ||
		    (err > 0 && err < BR_ERR_RECV_FATAL_ALERT))
			check(k.last_alert == 256 + eng_alert(&e) &&
			    eng_alert(&e) != 0);
		k.was_closed = 1;
		k.err = err;
	}
	if (st & BR_SSL_SENDAPP) {
		/* Only a valid client Finished, whole, gets here. */
		check(cf.play && !cf.flip && cpos >= fin_end && k.fin_ok);
		k.done = 1;
	}
	return st;
}

/* The server's records out, in pieces of step. */
static void
drain(void)
{
	unsigned char *p;
	size_t len;

	while ((state() & BR_SSL_SENDREC) &&
	    (p = eng_sendrec_buf(&e, &len)) != NULL) {
		check(len > 0 && p >= obuf && p + len <= obuf + cf.olen);
		if (len > cf.step)
			len = cf.step;
		check(slen + len <= sizeof(sbuf));
		memcpy(sbuf + slen, p, len);
		slen += len;
		eng_sendrec_ack(&e, len);
		server_records();
	}
}

/* Application data the engine hands over: what the client sealed. */
static void
read_app(void)
{
	unsigned char *p;
	size_t len;

	while ((state() & BR_SSL_RECVAPP) &&
	    (p = eng_recvapp_buf(&e, &len)) != NULL) {
		check(len > 0 && p >= ibuf && p + len <= ibuf + sizeof(ibuf));
		check(k.app_in_pos + len <= k.app_in_len);
		check(memcmp(k.app_in + k.app_in_pos, p, len) == 0);
		k.app_in_pos += len;
		eng_recvapp_ack(&e, len);
	}
}

/* The client's bytes in, as far as the engine takes them. */
static void
pump(void)
{
	unsigned char *p;
	size_t len;

	for (;;) {
		drain();
		read_app();
		if (cpos == clen || !(state() & BR_SSL_RECVREC))
			break;
		p = eng_recvrec_buf(&e, &len);
		check(p != NULL && len > 0 && p >= ibuf &&
		    p + len <= ibuf + sizeof(ibuf));
		if (len > cf.step)
			len = cf.step;
		if (len > clen - cpos)
			len = clen - cpos;
		memcpy(p, cbuf + cpos, len);
		cpos += len;
		eng_recvrec_ack(&e, len);
	}
	drain();
	read_app();
}

/* The engine's choice for the hello (tls.c's, fixed here). */
static unsigned
choose(void *ctx, const unsigned char *m, const struct hello *h,
    unsigned version, struct eng_choice *out)
{
	(void)ctx;
	(void)m;
	check(version == TLS12 && h->suites12 != 0);
	memset(out, 0, sizeof(*out));
	out->suite = suites[cf.si].suite;
	out->scheme = 0x0403;
	out->chain = &chain;
	out->nchain = 1;
	out->ec = &server_sk;
	out->alpn = h->alpn_http11;
	out->groups = &groups[cf.group];
	out->ngroups = 1;
	if (cf.cert) {
		br_x509_knownkey_init_ec(&kk, &client_pk, BR_KEYTYPE_SIGN);
		out->x509 = &kk.vtable;
		out->cas = &ca;
		out->ncas = 1;
	}
	return 0;
}

static int
load(void *ctx, struct eng_session *s)
{
	(void)ctx;
	if (memcmp(s->id, stored.id, sizeof(s->id)) != 0)
		return 0;
	*s = stored;
	return 1;
}

/* Only after a valid client Finished: the master secret computed here. */
static void
save(void *ctx, const struct eng_session *s)
{
	(void)ctx;
	check(cf.play && !cf.flip && cpos >= fin_end && !k.resumed);
	check(memcmp(s->secret, k.ms, 48) == 0 && s->version == TLS12);
	check(s->suite == suites[cf.si].suite && s->ems == cf.ems);
	saved = 1;
}

/* A TLS 1.2 ClientHello with the configuration's offers. */
static void
client_hello(void)
{
	static const unsigned char head[] = {
		0x00, 0x08, 0xc0, 0x2b, 0xc0, 0x2c, 0xcc, 0xa9, 0x00, 0xff,
		0x01, 0x00,
	};
	static const unsigned char exts[] = {
		0x00, 0x00, 0x00, 0x11, 0x00, 0x0f, 0x00, 0x00, 0x0c,
		't', 'l', 's', 'g', 'a', 't', 'e', '.', 't', 'e', 's', 't',
		0x00, 0x0a, 0x00, 0x0a, 0x00, 0x08, 0x00, 0x1d, 0x00, 0x17,
		0x00, 0x18, 0x00, 0x19,
		0x00, 0x0b, 0x00, 0x02, 0x01, 0x00,
		0x00, 0x0d, 0x00, 0x06, 0x00, 0x04, 0x04, 0x03, 0x05, 0x03,
		0x00, 0x10, 0x00, 0x0b, 0x00, 0x09, 0x08,
		'h', 't', 't', 'p', '/', '1', '.', '1',
	};
	size_t n = 0, el = sizeof(exts) + (cf.ems ? 4 : 0) + (cf.mfl ? 5 : 0);

	ch[n++] = HT_CLIENT_HELLO;
	n += 3;
	ch[n++] = 3;
	ch[n++] = 3;
	for (int i = 0; i < 32; i++)
		k.cr_rand[i] = (unsigned char)(0xc0 + i);
	memcpy(ch + n, k.cr_rand, 32);
	n += 32;
	ch[n++] = 32;
	if (cf.resume)
		memcpy(ch + n, stored.id, 32);
	else
		memset(ch + n, 0x42, 32);
	n += 32;
	memcpy(ch + n, head, sizeof(head));
	n += sizeof(head);
	ch[n++] = (unsigned char)(el >> 8);
	ch[n++] = (unsigned char)el;
	memcpy(ch + n, exts, sizeof(exts));
	n += sizeof(exts);
	if (cf.ems) {
		memcpy(ch + n, "\x00\x17\x00\x00", 4);
		n += 4;
	}
	if (cf.mfl) {		/* max_fragment_length: 2^9 */
		memcpy(ch + n, "\x00\x01\x00\x01\x01", 5);
		n += 5;
	}
	ch[1] = 0;
	ch[2] = (unsigned char)((n - 4) >> 8);
	ch[3] = (unsigned char)(n - 4);
	chlen = n;
}

/* The one refusal of a well-played client: RFC 7627 5.3. */
static int
ems_refused(void)
{
	return cf.store && cf.resume && cf.sess_ems && !cf.ems;
}

/* Keys, the store, the hello, the engine: a fresh connection. */
static void
start(const uint8_t *d)
{
	static const unsigned char seed[] = "fuzz_hs12";

	cf.cert = d[0] & 1;
	cf.store = d[0] >> 1 & 1;
	cf.si = d[0] >> 2 & 3;
	cf.ems = d[0] >> 4 & 1;
	cf.play = d[0] >> 5 & 1;
	cf.resume = d[0] >> 6 & 1;
	cf.flip = cf.play && (d[0] >> 7 & 1);
	cf.group = d[1] & 3;
	cf.sess_ems = d[1] >> 2 & 1;
	cf.step = steps[d[1] >> 3 & 7];
	cf.olen = d[1] >> 6 & 1 ? OBUF_SMALL : OBUF;
	cf.mfl = d[1] >> 7 & 1;
	cf.flip_at = tw_get16(d + 2);
	memset(&k, 0, sizeof(k));
	clen = cpos = slen = spos = shlen = shpos = 0;
	fin_end = (size_t)-1;
	saved = 0;
	memset(&stored, 0, sizeof(stored));
	memset(stored.id, 0x77, sizeof(stored.id));
	memset(stored.secret, 0x5c, sizeof(stored.secret));
	stored.version = TLS12;
	stored.suite = suites[cf.si].suite;
	stored.ems = cf.sess_ems;
	br_hmac_drbg_init(&rng, &br_sha256_vtable, seed, sizeof(seed));
	memset(&ops, 0, sizeof(ops));
	ops.choose = choose;
	ops.load = cf.store ? load : NULL;
	ops.save = cf.store ? save : NULL;
	ops.rng = &rng.vtable;
	ops.vmin = TLS12;
	ops.vmax = TLS13;
	client_hello();
	/* RFC 7627 5.3: such a session, with a hello without EMS: refused. */
	check(eng_start(&e, ibuf, sizeof(ibuf), obuf, cf.olen, ch, chlen,
	    &ops) == (ems_refused() ? BR_ALERT_HANDSHAKE_FAILURE : 0));
}

/* Once: the two keys. */
static void
setup(void)
{
	static const unsigned char dn[] = { 0x30, 0x16, 0x31, 0x14, 0x30,
	    0x12, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x0b, 'f', 'u', 'z',
	    'z', ' ', 'c', 'l', 'i', 'e', 'n', 't' };

	for (int i = 0; i < 32; i++) {
		sk_s[i] = (unsigned char)(0x21 + i);
		sk_c[i] = (unsigned char)(0x01 + i);
	}
	server_sk = (br_ec_private_key){ BR_EC_secp256r1, sk_s, 32 };
	client_sk = (br_ec_private_key){ BR_EC_secp256r1, sk_c, 32 };
	check(br_ec_compute_pub(br_ec_get_default(), &server_pk, pk_s,
	    &server_sk) != 0);
	check(br_ec_compute_pub(br_ec_get_default(), &client_pk, pk_c,
	    &client_sk) != 0);
	ca.dn.data = (unsigned char *)(uintptr_t)dn;
	ca.dn.len = sizeof(dn);
	ca.pkey.key_type = BR_KEYTYPE_EC;
	ca.pkey.key.ec = client_pk;
}

/* Application data the client seals: the engine must hand it over. */
static void
put_app(const uint8_t *p, size_t n)
{
	size_t was = clen;

	if (k.app_in_len + n > sizeof(k.app_in))
		return;
	put_record(CT_APPLICATION_DATA, p, n, 1);
	if (clen == was)
		return;
	memcpy(k.app_in + k.app_in_len, p, n);
	k.app_in_len += n;
}

/*
 * Established, reading, with nothing sent that is not a record of the
 * client's: what comes next is read as the client sealed it.
 */
static int
healthy(void)
{
	return k.done && !k.garbled && !k.closed && cpos == clen &&
	    eng_last_error(&e) == 0 && !eng_peer_closed(&e) &&
	    (state() & BR_SSL_RECVREC);
}

/*
 * One operation on the established connection (play): op byte b, its
 * arguments from the input.
 */
static size_t
op(const uint8_t *d, size_t n)
{
	static const unsigned char close_notify[2] = { ALERT_WARNING,
	    BR_ALERT_CLOSE_NOTIFY };
	unsigned b = d[0];
	size_t len = n > 1 ? (size_t)d[1] + 1 : 1, used;
	unsigned char *p;
	size_t room;
	int was = healthy();

	if (len > n - 2 || n < 2)
		len = n > 2 ? n - 2 : 0;
	used = 2 + len;
	switch (b & 7) {
	case 0:		/* application data, sealed */
		if (len > 0)
			put_app(d + 2, len);
		break;
	case 1:		/* raw bytes */
		k.garbled = 1;
		if (clen + len <= sizeof(cbuf)) {
			memcpy(cbuf + clen, d + 2, len);
			clen += len;
		}
		break;
	case 2:		/* a sealed record of any type */
		if (len > 1 && d[2] == CT_APPLICATION_DATA)
			put_app(d + 3, len - 1);
		else if (len > 1) {
			k.garbled = 1;
			put_record(d[2], d + 3, len - 1, 1);
		}
		break;
	case 3:		/* close_notify from the client */
		put_record(CT_ALERT, close_notify, 2, 1);
		used = 1;
		break;
	case 4:		/* the server closes */
		eng_close(&e);
		used = 1;
		break;
	case 5:		/* a second hello: no_renegotiation (RFC 5746 4.2) */
		put_record(CT_HANDSHAKE, ch, chlen, 1);
		pump();
		check(!was || (eng_last_error(&e) == 0 &&
		    k.last_alert == 256 + BR_ALERT_NO_RENEGOTIATION));
		return 1;
	case 6:		/* the server sends application data */
		if (!(state() & BR_SSL_SENDAPP) || len == 0)
			break;
		p = eng_sendapp_buf(&e, &room);
		check(p != NULL && p >= obuf && p + room <= obuf + cf.olen);
		if (len > room)
			len = room;
		if (k.app_out_len + len > sizeof(k.app_out))
			break;
		memcpy(p, d + 2, len);
		memcpy(k.app_out + k.app_out_len, d + 2, len);
		k.app_out_len += len;
		eng_sendapp_ack(&e, len);
		eng_flush(&e);
		break;
	default:	/* a sealed record with one bit flipped: refused */
		if (len == 0 || !k.keys)
			break;
		put_record(CT_APPLICATION_DATA, d + 2, len, 1);
		cbuf[clen - 1 - (size_t)b % (len + RP_TAG_LEN)] ^= 0x10;
		pump();
		check(!was || eng_last_error(&e) ==
		    BR_ERR_SEND_FATAL_ALERT + BR_ALERT_BAD_RECORD_MAC);
		return used;
	}
	pump();
	return used;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	size_t at = 4;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size < 4 || size - 4 > sizeof(cbuf) / 2)
		return 0;
	start(data);
	pump();
	if (!cf.play) {
		memcpy(cbuf + clen, data + 4, size - 4);
		clen += size - 4;
		pump();
		check(!k.done && !saved);
		return 0;
	}
	/*
	 * Played: the whole flight in, the handshake is done unless a bit
	 * was flipped or a session with the extended master secret met a
	 * hello without it.
	 */
	if (cf.flip || ems_refused()) {
		check(!k.done && !saved);
		if (cf.flip)
			return 0;
	} else {
		check(k.done && k.fin_ok && k.s_ccs && cpos == clen);
		check(saved == (cf.store && !k.resumed));
	}
	while (at < size)
		at += op(data + at, size - at);
	/* Still up: every byte either way arrived, as it was sent. */
	if (healthy())
		check(k.app_in_pos == k.app_in_len &&
		    k.app_out_pos == k.app_out_len);
	return 0;
}
