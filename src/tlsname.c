/*
 * tlsname.c - the names of tls.h's values, for the log: suites, groups,
 * versions and the engine's errors.
 */
#include <stdio.h>

#include "tls.h"
#include "tlsint.h"
#include "tlswire.h"

static char err_name[TLS_ERR_NAME];	/* what tls_error_name() returns */

const char *
tls_suite_name(unsigned s)
{
	static const struct {
		uint16_t	 id;
		const char	*name;
	} names[] = {
		{ BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
		    "ECDHE-ECDSA-AES128-GCM-SHA256" },
		{ BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
		    "ECDHE-ECDSA-AES256-GCM-SHA384" },
		{ BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
		    "ECDHE-ECDSA-CHACHA20-POLY1305" },
		{ BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		    "ECDHE-RSA-AES128-GCM-SHA256" },
		{ BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
		    "ECDHE-RSA-AES256-GCM-SHA384" },
		{ BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		    "ECDHE-RSA-CHACHA20-POLY1305" },
		{ SUITE_AES_128_GCM_SHA256, "TLS_AES_128_GCM_SHA256" },
		{ SUITE_AES_256_GCM_SHA384, "TLS_AES_256_GCM_SHA384" },
		{ SUITE_CHACHA20_POLY1305_SHA256, "TLS_CHACHA20_POLY1305_SHA256" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].id == s)
			return names[i].name;
	return "none";
}

const char *
tls_group_name(unsigned g)
{
	for (const struct config_name *e = config_group_names; e->name; e++)
		if (e->code == g)
			return e->name;
	return "none";
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
