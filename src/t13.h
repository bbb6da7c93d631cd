/*
 * t13.h - a server-side TLS 1.3 engine (RFC 8446) with the shape of
 * BearSSL's: the same state bits (BR_SSL_SENDREC, ...) and the same four
 * buffer calls over the caller's input and output buffers, so that the
 * loop drives both engines alike.
 *
 * Owns one connection's TLS 1.3 state: the record layer in both
 * directions, the handshake from the ClientHello to the client's
 * Finished (HelloRetryRequest, middlebox CCS, the server's flight
 * streamed from the certificate chain a record at a time, whatever the
 * output buffer's size), KeyUpdate both ways, alerts and close_notify.
 * The choice of suite, certificate, signature scheme and ALPN is the
 * caller's (t13_ops); the cryptography is t13crypto.c's and the
 * hello parse t13hello.c's.
 *
 * Never allocates, never does I/O.  Like BearSSL's engine it decrypts
 * records in place and never touches the input buffer past the record
 * it is reading, so a caller may read ahead into the rest of it.
 *
 * Resumption: one ticket after each handshake, an identifier of an
 * entry in the caller's session store (t13_ops), good once, psk_dhe_ke
 * only; never 0-RTT (early data is skipped, within a bound, as RFC 8446
 * 4.2.10 allows).  Client certificates: a CertificateRequest when the
 * caller gives a validator; the client's chain is streamed into it as
 * it comes, so nothing here bounds its length.
 */
#ifndef TLSGATE_T13_H
#define TLSGATE_T13_H

#include <stddef.h>
#include <stdint.h>
#include <bearssl.h>

#include "t13crypto.h"
#include "t13hello.h"

/* What the caller chose for a hello; see t13_ops. */
struct t13_choice {
	unsigned			 suite;		/* 0x1301 .. 0x1303 */
	unsigned			 scheme;	/* CertificateVerify's */
	const br_x509_certificate	*chain;
	size_t				 nchain;
	const br_ec_private_key		*ec;		/* one of the two */
	const br_rsa_private_key	*rsa;
	int				 alpn;		/* answer http/1.1 */
	const unsigned			*groups;	/* key shares, in order */
	size_t				 ngroups;	/* (NULL, 0: ours) */
	/* Client certificates: checked by x509 (NULL: not asked for). */
	const br_x509_class		**x509;
	const br_x509_trust_anchor	*cas;		/* names to send */
	size_t				 ncas;
};

/*
 * What the engine asks of its caller, with ctx.  choose(): for the hello
 * m (the whole message) as parsed into h: 0, or the fatal alert to
 * answer (handshake_failure when nothing fits).  Tickets (NULL: none):
 * load() fills the entry whose session_id is a ticket's and forgets it
 * (a ticket is good once), 1 if there was one; save() keeps one.
 */
struct t13_ops {
	unsigned	(*choose)(void *ctx, const unsigned char *m,
			    const struct t13_hello *h, struct t13_choice *out);
	int		(*load)(void *ctx, br_ssl_session_parameters *);
	void		(*save)(void *ctx, const br_ssl_session_parameters *);
	void		*ctx;
	const br_prng_class **rng;
};

/* The piece of the server's flight being written (t13.c's cursor). */
struct t13_piece {
	const unsigned char	*p;
	size_t			 n;
};

struct t13_conn {
	unsigned char		*ibuf, *obuf;
	size_t			 olen;
	const struct t13_ops	*ops;
	const br_prng_class	**rng;

	int			 phase;		/* t13.c's T13_P_* */
	int			 err;		/* BR_ERR_*, as BearSSL's */
	int			 why;		/* a BR_ERR_* for the next fail */
	unsigned char		 owed[2];	/* an alert to send once */
	int			 owed_on;	/* ... output drains */
	int			 ccs_sent, ccs_in;
	int			 ku_owed;	/* a KeyUpdate to send */
	int			 closing;	/* close_notify queued or sent */
	int			 rclosed;	/* the peer's close_notify came */
	int			 wr_on;		/* records out are protected */
	int			 hrr;		/* a HelloRetryRequest was sent */
	int			 resumed;	/* with a ticket's PSK */
	int			 nst_owed;	/* a NewSessionTicket to send */
	int			 skip_early;	/* 0-RTT data to drop */
	size_t			 early_left;

	size_t			 ipos;		/* bytes of the record in ibuf */
	size_t			 app_off, app_len; /* its plaintext, unread */
	size_t			 oout, oend;	/* obuf: sent, written */
	size_t			 app_w;		/* plaintext at obuf + 5 */

	struct t13_choice	 ch;
	unsigned char		 sid[32];
	unsigned char		 ch1[32];	/* what the hello after HRR repeats */
	size_t			 sid_len;
	unsigned		 group;
	int			 fl_stage;	/* the flight's cursor */
	size_t			 fl_cert;
	struct t13_piece	 piece;
	/*
	 * A piece of the flight being written; after it, a client handshake
	 * message being read (all but Certificate, which streams).
	 */
	unsigned char		 msg[16 + T13_SIG_MAX];
	size_t			 hs_len, mlen;
	int			 cc_field;	/* the client's Certificate: */
	size_t			 cc_need, cc_left; /* t13.c's CC_* cursor */
	uint32_t		 cc_acc;
	unsigned		 ncert;

	struct t13_transcript	 th;
	struct t13_ks		 ks;
	struct t13_kx		 kx;
	struct t13_rec		 rd, wr;
	unsigned char		 c_secret[T13_HASH_MAX], s_secret[T13_HASH_MAX];
	unsigned char		 c_ap[T13_HASH_MAX];
	unsigned char		 psk[T13_HASH_MAX];
	unsigned char		 nst[64];	/* the ticket message */
};

/*
 * Start on a TLS 1.3 ClientHello: m[0..len) is the whole message (from
 * its type byte; t13_defrag() gives it), which the engine reads only
 * during this call.  The input buffer is then empty: bytes that came
 * after the hello go in through t13_recvrec_buf() as any others.
 * ibuf must hold a whole record (5 + T13_CIPHER_MAX bytes; less is
 * internal_error).  Returns 0, or the fatal alert queued (the state
 * says when it is out).
 */
int	t13_start(struct t13_conn *, unsigned char *ibuf, size_t ilen,
	    unsigned char *obuf, size_t olen, const unsigned char *m,
	    size_t len, const struct t13_ops *);

/* BearSSL's engine calls, with the same meaning. */
unsigned t13_state(const struct t13_conn *);
unsigned char *t13_recvrec_buf(struct t13_conn *, size_t *len);
void	t13_recvrec_ack(struct t13_conn *, size_t len);
unsigned char *t13_sendrec_buf(struct t13_conn *, size_t *len);
void	t13_sendrec_ack(struct t13_conn *, size_t len);
unsigned char *t13_recvapp_buf(struct t13_conn *, size_t *len);
void	t13_recvapp_ack(struct t13_conn *, size_t len);
unsigned char *t13_sendapp_buf(struct t13_conn *, size_t *len);
void	t13_sendapp_ack(struct t13_conn *, size_t len);
void	t13_flush(struct t13_conn *);
/* Send close_notify after what is written (RFC 8446 6.1). */
void	t13_close(struct t13_conn *);
/* The peer's close_notify came: it will send nothing more. */
int	t13_peer_closed(const struct t13_conn *);
/*
 * 0, or why the connection failed: BR_ERR_SEND/RECV_FATAL_ALERT + alert,
 * or, as BearSSL says it, a client certificate's BR_ERR_X509_* (also
 * BR_ERR_NO_CLIENT_AUTH, BR_ERR_BAD_SIGNATURE).
 */
int	t13_last_error(const struct t13_conn *);
/* The fatal alert sent (or to be), 0 if none. */
unsigned t13_alert(const struct t13_conn *);
/* Every secret the connection holds, gone. */
void	t13_wipe_conn(struct t13_conn *);

#endif
