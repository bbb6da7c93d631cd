/* SPDX-License-Identifier: ISC */
/*
 * tlsname.c - the names of tls.h's values, for the log: suites, groups,
 * versions and the engine's errors.
 */
#include <stdio.h>

#include "tls.h"
#include "tlswire.h"

static char err_name[TLS_ERR_NAME];	/* what tls_error_name() returns */

const char *
tls_suite_name(unsigned s)
{
	int k;
	const struct tls_suite *e = tls_suite_find(s, &k);

	return e != NULL ? e->name[k] : "none";
}

const char *
tls_group_name(unsigned g)
{
	const struct tls_group *e = tls_group_find(g);

	return e != NULL ? e->name : "none";
}

const char *
tls_version_name(unsigned v)
{
	return v == TLS12 ? "TLS1.2" : v == TLS13 ? "TLS1.3" : "none";
}

/* The errors the engine reports other than alerts, for the log. */
static const struct {
	const char	*name;
	int		 code;
} errors[] = {
	{ "ok", BR_ERR_OK },
	{ "bad-signature", BR_ERR_BAD_SIGNATURE },
	{ "wrong-key-usage", BR_ERR_WRONG_KEY_USAGE },
	{ "no-client-auth", BR_ERR_NO_CLIENT_AUTH },
	{ "client-cert-expired", BR_ERR_X509_EXPIRED },
	{ "client-cert-untrusted", BR_ERR_X509_NOT_TRUSTED },
	{ "client-chain-too-long", BR_ERR_X509_LIMIT_EXCEEDED },
	{ "client-cert-revoked", CRL_ERR_REVOKED },
	{ "client-crl-expired", CRL_ERR_STALE },
	{ "client-cert-too-large", TLS_ERR_CERT_TOO_BIG },
};

const char *
tls_error_name(int err)
{
	if (err >= BR_ERR_RECV_FATAL_ALERT && err < BR_ERR_SEND_FATAL_ALERT)
		snprintf(err_name, sizeof(err_name), "peer-alert-%d",
		    err - BR_ERR_RECV_FATAL_ALERT);
	else if (err >= BR_ERR_SEND_FATAL_ALERT)
		snprintf(err_name, sizeof(err_name), "sent-alert-%d",
		    err - BR_ERR_SEND_FATAL_ALERT);
	else {
		for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
			if (errors[i].code == err)
				return errors[i].name;
		snprintf(err_name, sizeof(err_name), "error-%d", err);
	}
	return err_name;
}
