/*
 * hello.h - a look at a client's ClientHello before BearSSL reads it.
 *
 * A pure walk over the bytes of the first record: never allocates,
 * never reads past len, keeps no state, knows no connection.  It tells
 * whether the hello offers an ALPN protocol name (tls.c answers ALPN
 * only then: see there); TLS 1.3 will choose its engine here too.
 */
#ifndef TLSGATE_HELLO_H
#define TLSGATE_HELLO_H

#include <stddef.h>

/*
 * Does buf[0..len), a client's first bytes, hold a whole ClientHello in
 * one handshake record, well formed to its last extension, with exactly
 * one application_layer_protocol_negotiation extension whose list names
 * name?  1 or 0; 0 for anything else, a hello cut short included.
 */
int	hello_offers_alpn(const unsigned char *buf, size_t len,
	    const char *name);

#endif
