/*
 * hello.h - a look at a client's ClientHello before BearSSL reads it.
 *
 * A pure walk over the bytes of the first record: never allocates,
 * never reads past len, keeps no state, knows no connection.  It finds
 * what BearSSL 0.6 lets through in the extensions tlsgate depends on
 * (ALPN, server_name) and whether the hello offers an ALPN name, which
 * tls.c then answers (see tls_peek()).  TLS 1.3 will choose its engine
 * here too.
 */
#ifndef TLSGATE_HELLO_H
#define TLSGATE_HELLO_H

#include <stddef.h>

struct hello {
	int		 offers;	/* the ALPN list names the name asked */
	unsigned	 alert;		/* 0, or the fatal alert it earns */
	const char	*why;		/* for the log, with alert */
};

/*
 * Look at buf[0..len), a client's first bytes.  When they hold a whole
 * ClientHello in one handshake record, well formed to its last
 * extension, h->alert is decode_error for a malformed ALPN or
 * server_name list (RFC 7301 3.1, RFC 6066 3: empty, an empty name,
 * lengths that do not fill it) and illegal_parameter for a server name
 * that is not a host name or a second one; else 0, and h->offers is 1
 * if there is exactly one ALPN extension and its list names alpn.
 * Anything else (a hello cut short, or spread over records): all 0.
 */
void	hello_look(const unsigned char *buf, size_t len, const char *alpn,
	    struct hello *h);

#endif
