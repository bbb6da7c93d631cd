/* SPDX-License-Identifier: ISC */
/*
 * der.h - writing DER (X.690) into the caller's fixed buffer, and
 * reading one element of it back, strictly.
 *
 * Owns the encoding rules tlsgate's certificates need: minimal lengths,
 * INTEGERs that stay positive, OBJECT IDENTIFIERs from their dotted
 * text, the two time forms of RFC 5280.  Never allocates and never
 * writes past cap: the first overflow or bad argument sets a sticky
 * error, every later call does nothing, and the caller checks once at
 * the end.  The reader never reads past the length it is given.
 */
#ifndef TLSGATE_DER_H
#define TLSGATE_DER_H

#include <stddef.h>
#include <stdint.h>

#define DER_BOOLEAN	0x01
#define DER_INTEGER	0x02
#define DER_BIT_STRING	0x03
#define DER_OCTET_STRING 0x04
#define DER_OID		0x06
#define DER_UTF8	0x0c
#define DER_UTCTIME	0x17
#define DER_GENTIME	0x18
#define DER_SEQUENCE	0x30
#define DER_SET		0x31
#define DER_CTX(n)	(0x80 | (n))	/* [n] IMPLICIT, primitive */
#define DER_CTXC(n)	(0xa0 | (n))	/* [n], constructed */

struct der {
	unsigned char	*buf;
	size_t		 cap, len;
	int		 err;		/* sticky: 0 or -1 */
};

void	der_init(struct der *, void *buf, size_t cap);
/* Bytes as they are (an element encoded elsewhere). */
void	der_raw(struct der *, const void *p, size_t len);
/* A primitive element: tag, length, content. */
void	der_tlv(struct der *, unsigned tag, const void *p, size_t len);
/*
 * A constructed element: der_open() writes its tag and returns the mark
 * that der_close() takes once its content is written; the length is
 * then filled in, in its shortest form.  Nest them as the ASN.1 nests.
 */
size_t	der_open(struct der *, unsigned tag);
void	der_close(struct der *, size_t mark);
/*
 * An INTEGER from an unsigned big-endian magnitude: leading zeros
 * dropped (one kept for 0), a zero byte added when the top bit is set,
 * so that the value stays positive.
 */
void	der_uint(struct der *, const void *p, size_t len);
/* An OBJECT IDENTIFIER from dotted text ("2.5.29.17"); bad text fails. */
void	der_oid(struct der *, const char *dotted);
/* A BIT STRING: unused (0..7) low bits of the last byte are padding. */
void	der_bits(struct der *, unsigned unused, const void *p, size_t len);
/*
 * A time (seconds since 1970-01-01 UTC) as RFC 5280 4.1.2.5 has it:
 * UTCTime up to 2049, GeneralizedTime from 2050 to 9999; outside,
 * an error.
 */
void	der_time(struct der *, int64_t t);

/*
 * Read the element at *p (*len bytes left) whose tag must be tag:
 * its content in *c, *clen, and *p, *len moved past it.  Definite,
 * minimal lengths only (DER).  0, or -1 if it is not that.
 */
int	der_get(const unsigned char **p, size_t *len, unsigned tag,
	    const unsigned char **c, size_t *clen);
/*
 * The same by offsets into one buffer: the element at buf[*at..end),
 * its content buf[*c..*cend) (empty on failure), *at moved past it.
 * Nested walks stay offsets from one base, which an analyser can
 * bound (make prove).
 */
int	der_at(const unsigned char *buf, size_t *at, size_t end, unsigned tag,
	    size_t *c, size_t *cend);
/* A UTCTime or GeneralizedTime's content to seconds since 1970, or -1. */
int64_t	der_time_parse(unsigned tag, const unsigned char *c, size_t len);
/* The same for the element at *p (either tag), *p, *len moved past it. */
int64_t	der_get_time(const unsigned char **p, size_t *len);

/*
 * An X.509 SIGNED{} object, certificate or CRL (RFC 5280 4.1.1, 5.1.1):
 * SEQUENCE { tbs, AlgorithmIdentifier, BIT STRING } and nothing after,
 * in der[0..len).  tbs is the whole element the signature covers, body
 * its content, alg the algorithm's content, sig the signature's bytes
 * (no unused bits, at least one byte).
 */
struct der_signed {
	const unsigned char	*tbs, *body, *alg, *sig;
	size_t			 tbslen, bodylen, alglen, siglen;
};
int	der_signed(const unsigned char *der, size_t len, struct der_signed *);

#endif
