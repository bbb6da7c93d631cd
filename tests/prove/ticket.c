/* SPDX-License-Identifier: ISC */
/*
 * make prove: ticket_open() on any ticket a client can send (a PSK
 * identity or a SessionTicket: up to 65535 bytes), with room for the
 * certificate one may carry, with any binding
 * context, version and clock (within 2^62 s of 1970), against a key
 * store rotating from any seed, period and lifetime.  BearSSL's HKDF,
 * ChaCha20 and Poly1305 are the contracts of bearssl.c.
 */
#include "__fc_builtin.h"
#include "ticket.h"

/* Any clock within 146 billion years of 1970, either way. */
#define CLOCK_MAX	((int64_t)1 << 62)
#define CLOCK_MIN	(-CLOCK_MAX)

static unsigned char seed[32];
static unsigned char t[65535], ctx[TICKET_CTX_MAX];
static unsigned char cert[TICKET_CERT_MAX];	/* where a ticket's goes */
static struct ticket_keys ks;	/* static, as tls.c's are */

int
main(void)
{
	struct ticket_state st;

	Frama_C_make_unknown((char *)seed, sizeof(seed));
	ticket_keys_rotating(&ks, seed, Frama_C_unsigned_int_interval(0,
	    UINT32_MAX), Frama_C_unsigned_int_interval(0, UINT32_MAX),
	    Frama_C_long_long_interval(CLOCK_MIN, CLOCK_MAX));
	Frama_C_make_unknown((char *)t, sizeof(t));
	Frama_C_make_unknown((char *)ctx, sizeof(ctx));
	/* Each context length apart: the AAD is then known to be set. */
	/*@ loop unroll TICKET_CTX_MAX + 1; */
	for (size_t ctxlen = 0; ctxlen <= TICKET_CTX_MAX; ctxlen++)
		(void)ticket_open(&ks, t, Frama_C_size_t_interval(0,
		    sizeof(t)), ctx, ctxlen,
		    Frama_C_unsigned_int_interval(0, 0xffff),
		    Frama_C_long_long_interval(CLOCK_MIN, CLOCK_MAX), &st,
		    cert);
	return 0;
}
