/* SPDX-License-Identifier: ISC */
/*
 * bearssl_probe.c - BearSSL has no version macro: this compiles and links
 * only against 0.6's API.  Key generation, the private-key encoders and
 * the CCM/EAX modes first appeared in 0.6, and tlsgate calls the first
 * two; conf/bearssl.mk builds it with the compiler, flags, headers and
 * library tlsgate will use (a firmware sysroot too), and never runs it.
 */
#include <bearssl.h>

int
main(void)
{
	static const void *volatile want[] = {
		(const void *)&br_ec_keygen,
		(const void *)&br_encode_ec_raw_der,
		(const void *)&br_rsa_keygen_get_default,
		(const void *)&br_ccm_init,
		(const void *)&br_eax_init,
	};

	return want[0] == NULL;
}
