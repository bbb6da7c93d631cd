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

#define HELLO_ALPN_BAD	(-1)

/*
 * Does buf[0..len), a client's first bytes, hold a whole ClientHello in
 * one handshake record, well formed to its last extension, with exactly
 * one application_layer_protocol_negotiation extension whose list names
 * name?  1 or 0; 0 for anything else, a hello cut short included.
 * HELLO_ALPN_BAD: the hello is whole and well formed but its ALPN
 * extension is not (RFC 7301 3.1: an empty list or name, lengths that do
 * not fill it), which RFC 5246 7.2.2 answers with decode_error.
 */
int	hello_offers_alpn(const unsigned char *buf, size_t len,
	    const char *name);

#endif
