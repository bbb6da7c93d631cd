/* SPDX-License-Identifier: ISC */
/*
 * proxyin.h - the PROXY protocol header a TCP load balancer (haproxy,
 * an NLB) puts before the client's first byte, read on the way in;
 * versions 1 (text) and 2 (binary) of haproxy's proxy-protocol.txt.
 *
 * Owns: telling whether a buffer starts with a header, and which
 * version (from its first bytes); parsing the header strictly; and the
 * prefixes of trusted sources (the service key proxy_from): parsing
 * them and matching an address against them.
 *
 * Never: allocates, reads past `len`, does I/O, or knows about sockets
 * or TLS.  Whether a header is believed at all is the caller's choice,
 * made before it calls proxyin_parse(): only a trusted source's
 * connection is parsed; anyone else's bytes go to TLS as they are.
 *
 * Typical use, on a trusted source's connection, each time bytes come
 * (before the TLS engine sees one, within the hello's deadline):
 *
 *	rc = proxyin_parse(buf, len, &h);
 *	  PROXYIN_MORE: valid so far; read more (len stays below
 *	    PROXYIN_MAX: a longer header is an error, not MORE)
 *	  PROXYIN_E_*: close; proxyin_strerror(rc) is the log's outcome
 *	  PROXYIN_OK: buf[0..h.len) is the header, the client's first byte
 *	    is buf[h.len]; h.alen == 0: the header carries no address (v2
 *	    LOCAL, the balancer's health check; UNSPEC or unix families; v1
 *	    UNKNOWN), so the connection's own addresses stand
 *
 * Each PROXYIN_E_* reason below names one thing refused.  A v1 line is
 * exactly "PROXY TCP4|TCP6 src dst sport dport\r\n" (single spaces,
 * canonical decimal ports), or UNKNOWN and anything up to CRLF.  v2's
 * TLVs are walked, not used (a CRC32C TLV is not checked: the header
 * came over TCP).
 */
#ifndef TLSGATE_PROXYIN_H
#define TLSGATE_PROXYIN_H

#include <stddef.h>
#include <stdint.h>

#define PROXYIN_V1_MAX	107	/* a v1 line, CRLF included (the spec's) */
/*
 * A whole v2 header at most: the 16 fixed bytes, unix addresses (216)
 * and room for the TLVs balancers send (authority, unique ID, ALPN, SSL
 * and cloud ones, each a few dozen to 255 bytes).
 */
#define PROXYIN_MAX	2048

enum {
	PROXYIN_OK = 0,		/* a whole, valid header */
	PROXYIN_MORE,		/* valid so far: need more bytes */
	PROXYIN_E_MISSING,	/* not a PROXY header */
	PROXYIN_E_V1_LONG,	/* no CRLF in PROXYIN_V1_MAX bytes */
	PROXYIN_E_V1_SYNTAX,	/* protocol, spacing, port or line end */
	PROXYIN_E_V1_ADDRESS,	/* not an address of the named family */
	PROXYIN_E_V2_VERSION,	/* version not 2, command not LOCAL/PROXY */
	PROXYIN_E_V2_FAMILY,	/* datagram, or an unknown family */
	PROXYIN_E_V2_SHORT,	/* length below the family's addresses */
	PROXYIN_E_V2_LONG,	/* whole header above PROXYIN_MAX */
	PROXYIN_E_V2_TLV,	/* a TLV past the stated length */
	PROXYIN_E_COUNT
};

struct proxyin_hdr {
	size_t		len;		/* header bytes, CRLF/TLVs included */
	int		local;		/* v2 LOCAL: the balancer's own */
	size_t		alen;		/* 4 or 16; 0: no address carried */
	uint8_t		src[16], dst[16];	/* client, and where it went */
	unsigned	sport, dport;
};

/*
 * Parse the header at buf[0..len).  Returns PROXYIN_OK (*h filled),
 * PROXYIN_MORE, or a PROXYIN_E_* reason.  A buffer holding only the
 * start of a header returns PROXYIN_MORE, but only while what is there
 * can still become one: a TLS hello is PROXYIN_E_MISSING at its first
 * byte.
 */
int	proxyin_parse(const unsigned char *buf, size_t len,
	    struct proxyin_hdr *h);
/* The reason as the log's outcome ("proxy-missing", ...). */
const char *proxyin_strerror(int rc);
extern const unsigned char proxyin_v2sig[12];	/* v2's first bytes */

/* A trusted source: an IPv4 or IPv6 prefix. */
struct proxyin_net {
	uint8_t		ip[16];
	unsigned char	len;		/* 4 or 16 */
	unsigned char	bits;		/* prefix length */
};

/*
 * "192.0.2.7", "10.0.0.0/8", "fd00::/8", "::1" (bits default to the
 * whole address).  Host bits past the prefix must be 0, so that a typo
 * in the length does not trust more than meant.  Returns NULL, or why
 * not.
 */
const char *proxyin_net_parse(struct proxyin_net *, const char *s,
	    size_t len);
/*
 * Is ip (iplen 4 or 16 bytes, network order) in one of the n prefixes?
 * An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is matched as itself and
 * as IPv4.
 */
int	proxyin_trusted(const struct proxyin_net *, unsigned n,
	    const uint8_t *ip, size_t iplen);
/* Format a prefix as the file spells it ("10.0.0.0/8"), NUL-terminated. */
void	proxyin_net_str(const struct proxyin_net *, char *buf, size_t cap);

#endif
