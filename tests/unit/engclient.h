/* SPDX-License-Identifier: ISC */
/*
 * engclient.h - what test_eng12 and test_eng13 drive the engine (eng.h)
 * with: the server's side (an engine, its buffers, and an eng_ops of the
 * test's: a fixed credential, a tiny session store, a seeded HMAC-DRBG)
 * and a scripted client of TLS 1.2 and 1.3 built from tlscrypto and
 * BearSSL (enghs.c holds its handshakes).
 *
 * The two exchange bytes in memory: the client feeds its records through
 * eng_recvrec_buf/ack and reads what eng_sendrec_buf gives.  The client
 * is only as strict as the tests need: it checks what the server signs
 * and MACs with the key the test configured, and validates no chain.
 *
 * Never allocates.  A call that fails leaves why in cli_why, for the
 * test to print: a failure the test expects says nothing.
 */
#ifndef TLSGATE_ENGCLIENT_H
#define TLSGATE_ENGCLIENT_H

#include <stddef.h>
#include <bearssl.h>

#include "eng.h"

/* TLS 1.2's suites (BearSSL's names, shorter), and schemes of ours. */
#define ECDSA_AES128	BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
#define ECDSA_AES256	BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
#define ECDSA_CHACHA	BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
#define RSA_AES128	BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
#define RSA_AES256	BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
#define RSA_CHACHA	BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256
#define ECDSA_SHA256	SIG_ECDSA_SECP256R1_SHA256	/* in 1.2: any curve */
#define ECDSA_SHA384	SIG_ECDSA_SECP384R1_SHA384
#define RSA_PSS_SHA256	SIG_RSA_PSS_RSAE_SHA256
#define RSA_PKCS1_SHA256 0x0401				/* 1.2 only */

/* The server's credentials. */
enum { CRED_EC, CRED_RSA };

/* The server under test and the caller's side of the engine. */
struct srv {
	struct eng		 e;
	struct eng_ops		 ops;
	unsigned char		 ibuf[5 + RP_CIPHER_MAX];
	unsigned char		 obuf[16384 + 85];
	size_t			 olen;		/* obuf's size as given */
	/* What choose() answers with. */
	int			 cred;		/* CRED_* */
	const unsigned short	*groups;	/* eng_choice's */
	size_t			 ngroups;
	int			 ems_required;
	int			 hybrid_retry;	/* eng_choice's */
	int			 client_auth;	/* ask for a certificate */
	br_x509_knownkey_context xk;		/* it trusts the client's key */
	/* Tickets (ticket.c) unless off: the session store then. */
	int			 tickets_off;
	const char		*svc;		/* the context they are for */
	int64_t			 now;		/* their clock, seconds */
};

/* Faults the client makes on purpose. */
enum {
	FAULT_NONE,
	FAULT_CKE_OFF_CURVE,	/* 1.2: a ClientKeyExchange point off P-256 */
	FAULT_FINISHED,		/* a client Finished with a bit flipped */
	FAULT_EMPTY_CERT,	/* an empty Certificate */
	FAULT_CV,		/* a CertificateVerify with a bit flipped */
	FAULT_BINDER,		/* 1.3: a PSK binder with a bit flipped */
	FAULT_APP_EARLY,	/* application data before our Finished */
	FAULT_CCS_EARLY,	/* 1.2: ChangeCipherSpec before the key */
};

/*
 * A TLS 1.3 ticket, or a TLS 1.2 session ID or ticket, the client keeps:
 * a ticket when ticket_len > 0 (at 1.3, the identity; id is a 32-byte
 * identity of a test's own), else the session ID.
 */
struct cli_session {
	int		on;
	unsigned	suite;
	unsigned char	id[32];
	unsigned char	ticket[ENG_TICKET_MAX];
	size_t		ticket_len;
	unsigned char	psk[HASH_MAX];	/* 1.3's PSK, 1.2's master */
};

/* The client: what it offers, and the connection's state. */
struct cli {
	struct srv		*s;
	/* The offer, set before cli_hello(). */
	int			 v13;		/* offer 1.3 too */
	unsigned		 suites[12];
	size_t			 nsuites;
	unsigned		 groups[4], shares[4];
	size_t			 ngroups, nshares;
	unsigned		 sigalgs[8];
	size_t			 nsigalgs;
	int			 ems;
	/*
	 * TLS 1.2's extended_master_secret with a body, and encrypt_then_mac
	 * (RFC 7366) malformed, as tlsfuzzer's random payloads send them.
	 */
	int			 odd12;
	unsigned		 mfl;		/* max_fragment_length's code */
	int			 early_data;	/* 1.3: the extension */
	int			 cert;		/* answer a request */
	int			 chain2;	/* ... with a chain of two */
	int			 fault;		/* FAULT_* */
	size_t			 frag;		/* handshake records' size */
	int			 dribble;	/* feed a byte at a time */
	struct cli_session	 resume;	/* offer this one */
	int			 tickets;	/* 1.2: SessionTicket, its ticket */
	int			 no_sid;	/* 1.2: ... with no session ID */

	/* What the server said. */
	unsigned		 version, suite, group, scheme;
	unsigned		 hrr_group;	/* what HRR asked for */
	unsigned long		 ticket_lifetime;
	int			 hrr, resumed, ems_echo, cr_seen;
	int			 sh_ticket;	/* 1.2: SessionTicket in ServerHello */
	int			 nst12;		/* 1.2: a NewSessionTicket came */
	int			 ccs_peeked;	/* 1.2: read before its Finished */
	int			 cr_ca;		/* the request named our CA */
	unsigned		 mfl_echo;	/* max_fragment_length's */
	size_t			 rmax;		/* the longest record content */
	unsigned char		 cr[32], sr[32];
	unsigned char		 sid[32];
	size_t			 sid_len;
	struct cli_session	 got;		/* the session or ticket */

	/* The transcript: every handshake message, hashed when needed. */
	unsigned char		 log[16384];
	size_t			 loglen;
	const br_hash_class	*dig;

	/* Bytes from the server, and handshake bytes not yet read. */
	unsigned char		 in[65536];
	size_t			 inlen, inpos;
	unsigned char		 hs[16384];
	size_t			 hslen, hspos;
	unsigned char		 rec[5 + RP_CIPHER_MAX];
	int			 rtype;		/* the last record's, outer */
	size_t			 rlen;		/* ... and its length */
	struct rp		 rd, wr;
	int			 rd_on, wr_on;
	unsigned		 alert_level, alert;	/* the last alert */
	int			 ccs_seen;	/* TLS 1.3's, dropped */

	struct kx		 kx[4];		/* one per share */
#ifndef TLSGATE_NO_MLKEM
	unsigned char		 dk[4][3168];	/* ... a hybrid's ML-KEM key */
#endif
	struct ks		 ks;
	unsigned char		 c_hs[HASH_MAX], s_hs[HASH_MAX];
	unsigned char		 c_ap[HASH_MAX], s_ap[HASH_MAX];
	unsigned char		 ms[48];
};

/* The longest client share: SecP384r1MLKEM1024's. */
#define CLI_SHARE_MAX	(97 + 1568)

/*
 * The client's share i (for c->shares[i]) into pub: an ECDHE key, or a
 * hybrid's ECDH key and ML-KEM encapsulation key (tests/unit/mlkem_ref.c
 * makes it).  Its length, 0 if it does not fit.
 */
size_t	cli_share(struct cli *c, size_t i, unsigned char *pub, size_t cap);

/*
 * The shared secret share i and the server's share give (ECDH, or for a
 * hybrid ECDH and decapsulation, in the group's order) into out:
 * its length, 0 for a server share that is not right.
 */
size_t	cli_shared(struct cli *c, size_t i, const unsigned char *spub,
	    size_t n, unsigned char *out);

/* A fresh server (the session store kept) with obuf's size olen. */
void	srv_init(struct srv *s, unsigned vmin, unsigned vmax, size_t olen);
/* Forget every session and ticket, and draw new ticket keys. */
void	store_clear(void);
/* The server's ticket keys. */
struct ticket_keys *srv_ticket_keys(void);
/* Application data: send p[0..n) (flushed), read up to cap bytes. */
int	srv_write(struct srv *s, const void *p, size_t n);
size_t	srv_read(struct srv *s, void *out, size_t cap);
/* Everything the engine has to send, read and acknowledged. */
size_t	srv_drain(struct srv *s, unsigned char *out, size_t cap);

/* A client offering a usual 1.2 or 1.3 hello, for s. */
void	cli_init(struct cli *c, struct srv *s, int v13);
/* The ClientHello, through eng_start(): its answer. */
int	cli_hello(struct cli *c);
/*
 * The rest of a handshake: read the server's flight and answer it, the
 * version's way.  0, or -1 once something was wrong (on stderr).
 */
int	cli_handshake(struct cli *c);
/* cli_hello() and cli_handshake(). */
int	cli_connect(struct cli *c);

/* Bytes as they come off a wire: the engine's input. */
size_t	cli_feed(struct cli *c, const unsigned char *p, size_t n);
/* A record of type into r[0..cap): sealed once the keys are on. */
size_t	cli_seal(struct cli *c, int type, const void *p, size_t n,
	    unsigned char *r, size_t cap);
/* A record of type, sealed once the client's keys are on, fed. */
int	cli_send(struct cli *c, int type, const void *p, size_t n);
/* A handshake message: logged into the transcript and sent. */
int	cli_send_hs(struct cli *c, const unsigned char *m, size_t n);
/*
 * The next thing the server sent: a whole handshake message, or the
 * content of any other record.  0, or -1 if there is none or it does
 * not open.  *p stays valid until the next call.
 */
int	cli_next(struct cli *c, int *type, const unsigned char **p,
	    size_t *n);
/* 1 if the next thing is the alert level, desc. */
int	cli_expect_alert(struct cli *c, unsigned level, unsigned desc);
/* 1 if the next thing is application data equal to p[0..n). */
int	cli_expect_app(struct cli *c, const void *p, size_t n);
/* 1 if a message goes each way and arrives whole. */
int	app_both_ways(struct cli *c);
/* 1.3: a KeyUpdate, then the client's new keys. */
int	cli_key_update(struct cli *c, int request);
/* 1.3: after a KeyUpdate from the server, its new keys. */
void	cli_next_read_key(struct cli *c);

/* Why the client's last failure failed. */
extern const char *cli_why;
/* As unit.h's CHECK, for a client call (stdio.h): 0, or say why not. */
#define CHECK_OK(x) do {						\
	if ((x) != 0) {							\
		fprintf(stderr, "  %s:%d: %s: %s\n", __FILE__, __LINE__, \
		    #x, cli_why);					\
		return 0;						\
	}								\
} while (0)

/* Between engclient.c and enghs.c only. */
int	cli_fail(const char *reason);
int	cli_log(struct cli *c, const unsigned char *m, size_t n);
size_t	cli_th(const struct cli *c, const unsigned char *p, size_t n,
	    unsigned char *out);
int	cli_next_hs(struct cli *c, unsigned ht, const unsigned char **m,
	    size_t *n);
size_t	cli_hello_msg(struct cli *c, unsigned char *m, size_t cap);
const br_prng_class **cli_rng(void);
const br_x509_pkey *srv_pkey(int cred);
const br_x509_certificate *test_cert(int which);	/* CRED_*, 2: client */
const br_ec_private_key *cli_key(void);
const br_x509_trust_anchor *test_ca(void);
int	hs12(struct cli *c, const unsigned char *sh, size_t n);
int	hs13(struct cli *c, const unsigned char *sh, size_t n);

#endif
