/* SPDX-License-Identifier: ISC */
/*
 * certname.h - the host names a certificate is for, and matching a
 * client's server name (SNI) against them.
 *
 * Owns a minimal walk of an X.509 certificate, on der.h's reader: the
 * subjectAltName dNSName entries, or the subject CN when there are none.
 * Reads only the bytes given, never allocates.  The certificates are the
 * operator's own (from the config), not a peer's.
 */
#ifndef TLSGATE_CERTNAME_H
#define TLSGATE_CERTNAME_H

#include <stddef.h>

#define CERTNAME_MAX	8	/* names kept per certificate */
#define CERTNAME_LEN	64	/* bytes of one name, NUL included */

/*
 * Extract up to CERTNAME_MAX names from the DER certificate into
 * names[], lowercased and NUL-terminated.  Returns the count (0 if none
 * or if the DER is not a certificate).
 */
unsigned certname_get(const unsigned char *der, size_t len,
	    char names[][CERTNAME_LEN]);
/*
 * The subjectAltName's value among the content of a certificate's [3]
 * extensions into *san, *sanlen (untouched if none): 0, or -1 on bad DER.
 */
int	certname_san(const unsigned char *p, size_t len,
	    const unsigned char **san, size_t *sanlen);
/*
 * Does the server name match the certificate name?  Case-insensitive;
 * "*.example.com" matches exactly one leading label.
 */
int	certname_match(const char *pattern, const char *name);
/*
 * Is s (len bytes) a host name a certificate may be made for: labels of
 * letters, digits and inner '-', 1 to 63 each, dot-separated, shorter
 * than CERTNAME_LEN in all?  No wildcard, no trailing dot.
 */
int	certname_is_host(const char *s, size_t len);

#endif
