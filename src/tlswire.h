/* SPDX-License-Identifier: ISC */
/*
 * tlswire.h - TLS's wire vocabulary by name, and a writer for handshake
 * messages that counts their lengths by construction.
 *
 * Owns the numbers of RFC 5246 and RFC 8446 the engine writes or
 * compares (content types, handshake types, extensions, the alerts
 * BearSSL has no name for) and the message writer.  The writer never
 * allocates and never writes past cap: the first overflow sets a sticky
 * error, every later call does nothing, and the caller checks once, at
 * the end, as with der.h.
 */
#ifndef TLSGATE_TLSWIRE_H
#define TLSGATE_TLSWIRE_H

#include <stddef.h>
#include <bearssl.h>		/* BR_ALERT_*, BR_TLS12, BR_SSL_* */

/* ContentType (RFC 5246 6.2.1, RFC 8446 5.1). */
#define CT_CHANGE_CIPHER_SPEC	20
#define CT_ALERT		21
#define CT_HANDSHAKE		22
#define CT_APPLICATION_DATA	23

/* HandshakeType (RFC 5246 7.4, RFC 8446 4). */
#define HT_HELLO_REQUEST	0
#define HT_CLIENT_HELLO		1
#define HT_SERVER_HELLO		2
#define HT_NEW_SESSION_TICKET	4
#define HT_ENCRYPTED_EXTENSIONS	8
#define HT_CERTIFICATE		11
#define HT_SERVER_KEY_EXCHANGE	12
#define HT_CERTIFICATE_REQUEST	13
#define HT_SERVER_HELLO_DONE	14
#define HT_CERTIFICATE_VERIFY	15
#define HT_CLIENT_KEY_EXCHANGE	16
#define HT_FINISHED		20
#define HT_KEY_UPDATE		24

/* ExtensionType (RFC 8446 4.2 and the RFCs each names). */
#define EXT_SERVER_NAME			0	/* RFC 6066 */
#define EXT_MAX_FRAGMENT_LENGTH		1	/* RFC 6066 */
#define EXT_SUPPORTED_GROUPS		10	/* RFC 8422 */
#define EXT_EC_POINT_FORMATS		11	/* RFC 8422 */
#define EXT_SIGNATURE_ALGORITHMS	13
#define EXT_ALPN			16	/* RFC 7301 */
#define EXT_EXTENDED_MASTER_SECRET	23	/* RFC 7627 */
#define EXT_SESSION_TICKET		35	/* RFC 5077 */
#define EXT_PRE_SHARED_KEY		41
#define EXT_EARLY_DATA			42
#define EXT_SUPPORTED_VERSIONS		43
#define EXT_COOKIE			44
#define EXT_PSK_KEY_EXCHANGE_MODES	45
#define EXT_CERTIFICATE_AUTHORITIES	47
#define EXT_KEY_SHARE			51
#define EXT_RENEGOTIATION_INFO		0xff01	/* RFC 5746 */

/* Cipher suites (RFC 8446 B.4): the AEADs, as tls_suites[] has them. */
#define SUITE_AES_128_GCM_SHA256		0x1301
#define SUITE_AES_256_GCM_SHA384		0x1302
#define SUITE_CHACHA20_POLY1305_SHA256	0x1303

/* Named groups (RFC 8446 4.2.7, RFC 8422 5.1.1). */
#define GROUP_SECP256R1	0x0017
#define GROUP_SECP384R1	0x0018
#define GROUP_SECP521R1	0x0019
#define GROUP_X25519	0x001d
/* The hybrids of draft-ietf-tls-ecdhe-mlkem (src/hybrid.h). */
#define GROUP_SECP256R1MLKEM768		0x11eb
#define GROUP_X25519MLKEM768		0x11ec
#define GROUP_SECP384R1MLKEM1024	0x11ed

/* Signature schemes (RFC 8446 4.2.3, RFC 5246 7.4.1.4.1). */
#define SIG_ECDSA_SECP256R1_SHA256	0x0403
#define SIG_ECDSA_SECP384R1_SHA384	0x0503
#define SIG_ECDSA_SECP521R1_SHA512	0x0603
#define SIG_RSA_PSS_RSAE_SHA256		0x0804
#define SIG_RSA_PSS_RSAE_SHA384		0x0805
#define SIG_RSA_PSS_RSAE_SHA512		0x0806
#define SIG_RSA_PSS_PSS_SHA256		0x0809
#define SIG_RSA_PSS_PSS_SHA384		0x080a
#define SIG_RSA_PSS_PSS_SHA512		0x080b
#define SIG_RSA_PKCS1_SHA256		0x0401
#define SIG_RSA_PKCS1_SHA384		0x0501
#define SIG_RSA_PKCS1_SHA512		0x0601
#define SIG_RSA_PKCS1_SHA1		0x0201
#define SIG_ECDSA_SHA1			0x0203
#define SIG_ECDSA_SHA224		0x0303
#define SIG_RSA_PKCS1_SHA224		0x0301

/* Alerts BearSSL 0.6 has no name for. */
#define ALERT_INAPPROPRIATE_FALLBACK	86	/* RFC 7507 */
#define ALERT_MISSING_EXTENSION		109	/* RFC 8446 */
#define ALERT_CERTIFICATE_REQUIRED	116	/* RFC 8446 */

/* AlertLevel (RFC 5246 7.2). */
#define ALERT_WARNING		1
#define ALERT_FATAL		2

#define TLS12			0x0303
#define TLS13			0x0304

/* The big-endian 16- and 24-bit numbers at p, as the wire has them. */
static inline size_t
tw_get16(const unsigned char *p)
{
	return (size_t)p[0] << 8 | p[1];
}

static inline size_t
tw_get24(const unsigned char *p)
{
	return (size_t)p[0] << 16 | tw_get16(p + 1);
}

/*
 * The TLS profiles (tls_profile in the config file): each registry row
 * says which ones take it, as a bit 1 << PROFILE_*.
 */
enum { PROFILE_DEFAULT, PROFILE_BSI, PROFILE_MODERN, PROFILE_CNSA2 };
#define IN_DEFAULT	(1u << PROFILE_DEFAULT)
#define IN_BSI		(1u << PROFILE_BSI)
#define IN_MODERN	(1u << PROFILE_MODERN)
#define IN_CNSA2	(1u << PROFILE_CNSA2)
#define IN_ALL		(IN_DEFAULT | IN_BSI | IN_MODERN | IN_CNSA2)

/*
 * The registry of signature schemes: every scheme a hello's
 * signature_algorithms is read for, which is also the server's order of
 * preference.  A hello's sigalgs has bit i for tls_sigs[i] (hello_sig()).
 * The one place each scheme is described; the engine's files and tls.c
 * look schemes up here.  hash is BearSSL's hash ID (br_sha256_ID...: no
 * class, so that hello.c links without BearSSL's code); curve, for
 * ECDSA, the curve TLS 1.3 binds the scheme to; oid, for PKCS#1 v1.5,
 * the DigestInfo.
 */
enum { SIG_ECDSA = 1, SIG_PSS, SIG_PKCS1 };
struct tls_sig {
	unsigned		 code;
	int			 kind;	/* SIG_ECDSA, SIG_PSS, SIG_PKCS1; 0: read only */
	int			 hash, curve;
	int			 v13;	/* may sign a TLS 1.3 CertificateVerify */
	const unsigned char	*oid;
};
extern const struct tls_sig tls_sigs[];
extern const size_t tls_nsigs;
/* The scheme with this wire code, NULL if there is none. */
const struct tls_sig *tls_sig(unsigned code);

/*
 * The registry of named groups, in the server's default order of
 * preference: the one place each group is described.  A hello's groups
 * and shares have bit i for tls_groups[i] (hello_group()).  name: IANA's,
 * as the config file and the log spell it; profiles: 1 << PROFILE_* of
 * the profiles that list it; curve is BearSSL's curve ID, 0 for the
 * hybrids (TLS 1.3 only, hybrid.c; absent with TLSGATE_NO_MLKEM);
 * share, the client's share length (an ECDHE server's too); point,
 * whether that share is an uncompressed point (0x04, X, Y); why, the
 * reason a share of another length or form gets.
 */
struct tls_group {
	unsigned	 code;
	const char	*name;
	unsigned	 profiles;
	int		 curve, point;
	size_t		 share;
	const char	*why;
};
/* Room for every group in a hello's bitmasks and share offsets. */
#define TLS_NGROUPS_MAX	8
extern const struct tls_group tls_groups[];
extern const size_t tls_ngroups;
/* The group with this wire code, NULL if there is none. */
const struct tls_group *tls_group_find(unsigned code);

/*
 * The registry of cipher suites, one entry per AEAD in the server's
 * default order: the one place each suite is described.  cipher: the
 * config file's name, one for every version (the key exchange is ECDHE,
 * the signature follows from the certificate; AEAD only, the CBC suites
 * went with TLS 1.0 and 1.1); a service's suites are indexes in this
 * table.  profiles as for groups.  code and name (the log's) by TS_*:
 * TLS 1.2 with ECDHE_ECDSA, with ECDHE_RSA, TLS 1.3.  A hello's bit for
 * tls_suites[i]'s code[k] is hello_suite(code[k]).  key: the key's
 * length; iv12: TLS 1.2's fixed IV's (RFC 5288, RFC 7905); hash:
 * BearSSL's hash ID of the PRF and HKDF (no class, as for tls_sigs);
 * chacha: the AEAD is ChaCha20-Poly1305, else AES-GCM.
 */
enum { TS_ECDSA, TS_RSA, TS_13 };
struct tls_suite {
	const char	*cipher;
	unsigned	 profiles;
	unsigned	 code[3];
	const char	*name[3];
	size_t		 key, iv12;
	int		 hash, chacha;
};
#define TLS_NSUITES	3
extern const struct tls_suite tls_suites[TLS_NSUITES];
/*
 * The suite with this wire code of any version, NULL if there is none;
 * with kind not NULL, *kind is the code's TS_*.
 */
const struct tls_suite *tls_suite_find(unsigned code, int *kind);

/* A message being written; see the top of this file. */
struct tw {
	unsigned char	*b;
	size_t		 cap, n;
	size_t		 open[6];	/* where each open vector's length is */
	int		 width[6];
	int		 depth;
	int		 err;
};

void	tw_init(struct tw *, unsigned char *b, size_t cap);
void	tw_u8(struct tw *, unsigned v);
void	tw_u16(struct tw *, unsigned v);
void	tw_u24(struct tw *, size_t v);
void	tw_put(struct tw *, const void *p, size_t n);
/*
 * A vector, or a message body: tw_open() reserves its length field of
 * width bytes (1, 2 or 3), tw_close() fills it with what was written
 * since.  Nest them as the RFC's structures nest, six deep at most.
 */
void	tw_open(struct tw *, int width);
void	tw_close(struct tw *);
/* A whole handshake message: its type, then its body as a vector. */
void	tw_msg(struct tw *, unsigned type);
/* The bytes written, or 0 after an error or with a vector left open. */
size_t	tw_len(const struct tw *);

#endif
