/* SPDX-License-Identifier: ISC */
/*
 * make prove: certname_get() on every input of every length up to
 * TLSGATE_MAX_CHAIN, and the SNI match of any server name (up to 255
 * bytes) against any name it gives.
 */
#include "__fc_builtin.h"
#include "certname.h"
#include "defaults.h"

static unsigned char buf[TLSGATE_MAX_CHAIN];
static char names[CERTNAME_MAX][CERTNAME_LEN];

int
main(void)
{
	size_t len = Frama_C_size_t_interval(0, sizeof(buf));
	char sni[256];			/* a host_name is 255 bytes at most */
	unsigned n;

	Frama_C_make_unknown((char *)buf, sizeof(buf));
	n = certname_get(buf, len, names);
	if (n == 0)
		return 0;
	Frama_C_make_unknown(sni, sizeof(sni) - 1);
	sni[sizeof(sni) - 1] = '\0';
	return certname_match(names[Frama_C_unsigned_int_interval(0, n - 1)],
	    sni) + certname_is_host(sni, Frama_C_size_t_interval(0,
	    sizeof(sni) - 1));
}
