/* SPDX-License-Identifier: ISC */
/*
 * eng.h - tlsgate's TLS engine, server side, TLS 1.2 (RFC 5246) and
 * TLS 1.3 (RFC 8446), with the shape of BearSSL's: the same state bits
 * (BR_SSL_SENDREC, ...) and the same four buffer calls over the
 * caller's input and output buffers, so the loop drives every version
 * alike and cannot tell them apart.
 *
 * Owns one connection's TLS state: the record layer in both directions
 * (rec.c), the TLS 1.2 handshake (hs12.c: ECDHE, AEAD suites, extended
 * master secret, resumption by session ID, renegotiation refused), the
 * TLS 1.3 handshake (hs13.c: HelloRetryRequest, middlebox CCS, tickets,
 * KeyUpdate), alerts and close_notify.  The server's flight is streamed
 * from the certificate chain a record at a time, whatever the output
 * buffer's size.  The choice of suite, certificate, signature scheme and
 * ALPN is the caller's (eng_ops); the cryptography is tlscrypto.h's on
 * BearSSL's primitives, the hello parse hello.c's.
 *
 * Never allocates, never does I/O.  Like BearSSL's engine it decrypts
 * records in place and never touches the input buffer past the record
 * it is reading, so a caller may read ahead into the rest of it.
 *
 * Resumption: by the caller's tickets (RFC 5077's in TLS 1.2), else by
 * its session store (eng_ops); a ticket that does not open is a full
 * handshake.  A TLS 1.3 ticket resumes until its lifetime is over (the
 * caller enforces it), never with 0-RTT (early data is skipped, within
 * a bound, as RFC 8446 4.2.10 allows).  Client certificates: a
 * CertificateRequest when the caller gives a validator; the client's
 * chain is streamed into it as it comes.
 */
#ifndef TLSGATE_ENG_H
#define TLSGATE_ENG_H

#include <stddef.h>
#include <stdint.h>
#include <bearssl.h>

#include "defaults.h"
#include "tlscrypto.h"
#include "hello.h"

/* The longest client chain taken: its certificates, the client's own first. */
#define ENG_CHAIN_MAX	8

/* What the caller chose for a hello; see eng_ops. */
struct eng_choice {
	unsigned			 suite;		/* the wire code */
	unsigned			 scheme;	/* the server's signature */
	const br_x509_certificate	*chain;
	size_t				 nchain;
	const br_ec_private_key		*ec;		/* one of the two */
	const br_rsa_private_key	*rsa;
	/* Flags, in chars: the struct is in every slot. */
	unsigned char			 alpn;		/* answer http/1.1 */
	unsigned char			 ems_required;	/* TLS 1.2, RFC 7627 */
	/* A HelloRetryRequest for X25519MLKEM768 too (hs13.c says why not). */
	unsigned char			 hybrid_retry;
	const unsigned short		*groups;	/* ours, in order */
	size_t				 ngroups;
	const char			*why;		/* choose()'s refusal */
	/* Client certificates: checked by x509 (NULL: not asked for). */
	const br_x509_class		**x509;
	const br_x509_trust_anchor	*cas;		/* names to send */
	size_t				 ncas;
	/* A client without a certificate is served (client_verify). */
	unsigned char			 cert_optional;
};

/* A resumable session: a TLS 1.2 session or a TLS 1.3 ticket. */
struct eng_session {
	unsigned char	id[32];		/* load(), save() only */
	unsigned char	secret[48];	/* master secret, or ticket PSK */
	unsigned	version, suite;
	int		ems;		/* TLS 1.2: made with EMS */
	/* load(), open(): the hello's server name (choose() is to come). */
	const unsigned char *host;
	size_t		host_len;
};

/*
 * The longest ticket the engine sends (eng_ops seal()): a session's
 * state, a client certificate and its chain (tls.c's tickets carry).
 */
#define ENG_TICKET_MAX	(128 + TLSGATE_CLIENT_CERT_MAX + \
	    TLSGATE_CLIENT_CHAIN_MAX)

/*
 * What the engine asks of its caller, with ctx.  choose(): for the hello
 * m (the whole message) as parsed into h, at version (TLS12 or TLS13):
 * 0, or the fatal alert to answer (handshake_failure when nothing
 * fits).  Sessions (NULL: none): load() fills the session whose id is
 * s->id, 1 if there is one; save() keeps one.  Tickets (NULL: none,
 * and then TLS 1.3 tickets are load() and save()'s): seal() s into
 * out[0..cap): its length, 0 for no ticket; open() the ticket t[0..len)
 * a client sent, for the version in s->version: 1 with *s filled if it
 * resumes here, 0 otherwise.  vmin, vmax: the versions the service
 * allows.
 */
struct eng_ops {
	unsigned	(*choose)(void *ctx, const unsigned char *m,
			    const struct hello *h, unsigned version,
			    struct eng_choice *out);
	int		(*load)(void *ctx, struct eng_session *s);
	void		(*save)(void *ctx, const struct eng_session *s);
	size_t		(*seal)(void *ctx, const struct eng_session *s,
			    unsigned char *out, size_t cap);
	int		(*open)(void *ctx, const unsigned char *t, size_t len,
			    struct eng_session *s);
	void		*ctx;
	const br_prng_class **rng;
	unsigned	 vmin, vmax;
	uint32_t	 lifetime;	/* seconds a ticket is announced for */
	/*
	 * A buffer the engine may write during any one of its calls, and
	 * keeps nothing in across them (NULL: none): a second hello longer
	 * than obuf is joined there and read (ENG_HELLO2_MAX).
	 */
	unsigned char	*scratch;
	size_t		 scratch_len;
};

/* The input buffer: a whole record of either version. */
#define ENG_IBUF_SIZE	(5 + RP_CIPHER_MAX)

/*
 * The longest ClientHello after a HelloRetryRequest, for an obuf of olen
 * bytes: it is joined in obuf and then in ibuf, before the record being
 * read (hs13.c), and read whole in the caller's scratch buffer, which
 * must be as long (less: it is obuf's length).
 */
#define ENG_HELLO2_MAX(olen)	((olen) + ENG_IBUF_SIZE - 5)

/* The largest server message built whole: ServerKeyExchange. */
#define ENG_MSG_MAX	(4 + 4 + KX_PUB_MAX + 4 + SIG_LEN_MAX)

struct eng_hs;

/*
 * The engine's context.  Its fields are not part of the API: the caller
 * allocates it (statically) and uses only the functions below, as
 * bearssl_ssl.h says of its contexts.
 */
struct eng {
	const struct eng_hs	*hs;		/* the version's handshake */
	unsigned char		*ibuf, *obuf;
	size_t			 olen;
	const struct eng_ops	*ops;
	const char		*reason;	/* the hello's fault, for the log */
	unsigned		 version;	/* TLS12 or TLS13, once chosen */
	int			 err;		/* BR_ERR_*, as BearSSL's */
	int			 why;		/* a BR_ERR_* for the next fail */
	unsigned		 group;
	unsigned		 ncert;
	uint32_t		 cc_acc;

	/* Flags and small counters. */
	unsigned char		 phase;		/* hs12.c's and hs13.c's P_* */
	unsigned char		 owed[2];	/* an alert to send once */
	unsigned char		 owed_on;	/* ... output drains */
	unsigned char		 ccs_in;
	unsigned char		 ku_owed;	/* a KeyUpdate to send */
	unsigned char		 closing;	/* close_notify queued or sent */
	unsigned char		 rclosed;	/* the peer's close_notify came */
	unsigned char		 wr_on, rd_on;	/* records are protected */
	unsigned char		 hrr;		/* a HelloRetryRequest was sent */
	unsigned char		 resumed;
	unsigned char		 nst_owed;	/* a NewSessionTicket to send */
	unsigned char		 skip_early;	/* 0-RTT data to drop */
	unsigned char		 ems;		/* TLS 1.2: extended master secret */
	unsigned char		 reneg;		/* TLS 1.2: RFC 5746 agreed */
	unsigned char		 ecpf;		/* TLS 1.2: point formats asked */
	unsigned char		 warnings;	/* TLS 1.2: warning alerts in a row */
	unsigned char		 mfl;		/* max_fragment_length's code */
	unsigned char		 fl_stage;	/* the flight's cursor */
	unsigned char		 cc_field;	/* the client's Certificate: */
	unsigned char		 skip;		/* a message read and dropped */

	size_t			 early_left;
	size_t			 h2len;		/* the hello after HRR, so far */
	size_t			 ipos;		/* bytes of the record in ibuf */
	size_t			 app_off, app_len; /* its plaintext, unread */
	size_t			 oout, oend;	/* obuf: sent, written */
	size_t			 app_w;		/* plaintext at obuf + 5 */

	struct eng_choice	 ch;
	unsigned char		 sid[32];
	size_t			 sid_len;
	size_t			 fl_cert;
	struct {			/* the flight's piece being written */
		const unsigned char	*p;
		size_t			 n;
	}			 piece;
	/*
	 * A piece of the flight being written; after it, a client handshake
	 * message being read (all but Certificate, which streams).
	 */
	unsigned char		 msg[ENG_MSG_MAX];
	size_t			 hs_len, mlen;
	size_t			 cc_need, cc_left; /* rec.c's CC_* cursor */

	struct th	 th;
	struct ks		 ks;
	/* Our ECDHE key lives until the client's share is in; the keys to
	 * read with come after it. */
	union {
		struct kx	 kx;
		struct rp	 rd;
	};
	struct rp		 wr;
	/* What only one version holds. */
	union {
		struct {
			unsigned char	 c_secret[HASH_MAX];
			unsigned char	 s_secret[HASH_MAX];
			unsigned char	 c_ap[HASH_MAX];
			/* The owed ticket's PSK. */
			unsigned char	 nst_key[48];
			unsigned char	 ch1[32];	/* what a hello after
							 * HRR repeats */
		};
		struct {
			unsigned char	 cr[32], sr[32];	/* randoms */
			unsigned char	 ms[48];	/* master secret */
		};
	};
};

/*
 * Start on a ClientHello: m[0..len) is the whole message (from its type
 * byte; hello_defrag() gives it), which the engine reads only during this
 * call.  The input buffer is then empty: bytes that came after the hello
 * go in through eng_recvrec_buf() as any others.  ibuf must hold a whole
 * record (ENG_IBUF_SIZE bytes; less is internal_error).  Returns 0,
 * or the fatal alert queued (the state says when it is out).
 */
int	eng_start(struct eng *, unsigned char *ibuf, size_t ilen,
	    unsigned char *obuf, size_t olen, const unsigned char *m,
	    size_t len, const struct eng_ops *);

/* BearSSL's engine calls, with the same meaning. */
unsigned eng_state(const struct eng *);
unsigned char *eng_recvrec_buf(struct eng *, size_t *len);
void	eng_recvrec_ack(struct eng *, size_t len);
unsigned char *eng_sendrec_buf(struct eng *, size_t *len);
void	eng_sendrec_ack(struct eng *, size_t len);
unsigned char *eng_recvapp_buf(struct eng *, size_t *len);
void	eng_recvapp_ack(struct eng *, size_t len);
unsigned char *eng_sendapp_buf(struct eng *, size_t *len);
void	eng_sendapp_ack(struct eng *, size_t len);
void	eng_flush(struct eng *);
/* Send close_notify after what is written. */
void	eng_close(struct eng *);
/*
 * The peer's close_notify came: it will send nothing more, and in both
 * versions it may still read (a half-close).
 */
int	eng_peer_closed(const struct eng *);
/*
 * 0, or why the connection failed: BR_ERR_SEND/RECV_FATAL_ALERT + alert,
 * or, as BearSSL says it, a client certificate's BR_ERR_X509_* (also
 * BR_ERR_NO_CLIENT_AUTH, BR_ERR_BAD_SIGNATURE).
 */
int	eng_last_error(const struct eng *);
/* The fatal alert sent (or to be), 0 if none. */
unsigned eng_alert(const struct eng *);
/* The reason for the log the engine gave with it (NULL: none). */
const char *eng_reason(const struct eng *);
/* What a finished handshake settled: wire codes, resumed, HRR taken. */
struct eng_result {
	unsigned	version, suite, group;
	int		resumed, hrr;
};
void	eng_result(const struct eng *, struct eng_result *);
/* Every secret the connection holds, gone. */
void	eng_wipe(struct eng *);

#endif
