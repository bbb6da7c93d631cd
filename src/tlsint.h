/*
 * tlsint.h - what tls.c shares with tlsauth.c and tlsname.c, for those
 * files only: tls.h is the contract with the loop.
 */
#ifndef TLSGATE_TLSINT_H
#define TLSGATE_TLSINT_H

#include <bearssl.h>

/* tlsauth.c: a client's chain to tls_conn's x509, bounded (tls.c). */
extern const br_x509_class tls_bounded_class;

/* tlsname.c: the buffer tls_error_name() may answer in, in bytes. */
#define TLS_ERR_NAME	32

#endif
