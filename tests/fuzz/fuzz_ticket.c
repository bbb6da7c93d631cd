/* SPDX-License-Identifier: ISC */
/*
 * fuzz_ticket.c - libFuzzer target for the ticket opener of
 * src/ticket.c.
 *
 * The input is opened as a ticket a client sent, under a store whose
 * keys it cannot know; then its first bytes choose a state and a clock,
 * and perhaps a client certificate of the input's bytes, which is
 * sealed, opened, and opened again with one bit flipped where the input
 * says.  Invariants checked, each with abort():
 *  - an input ticket never opens, and leaves the state zeroed;
 *  - a sealed state opens to itself, certificate and all, for its own
 *    context only, and one with a certificate only where it has room;
 *  - one flipped bit anywhere, a shorter length or an expired clock:
 *    it does not open.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ticket.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct ticket_keys	ks;
static br_hmac_drbg_context	drbg;
static int			ready;

static int
zeroed(const struct ticket_state *st)
{
	static const struct ticket_state zero;

	return memcmp(st, &zero, sizeof(zero)) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char seed[32] = { 9, 9, 9 };
	static unsigned char t[TICKET_MAX], cert[TICKET_CERT_MAX];
	struct ticket_state st, got;
	size_t ctxlen, flip, len;
	int64_t now;

	if (!ready) {
		br_hmac_drbg_init(&drbg, &br_sha256_vtable, "fuzz", 4);
		ticket_keys_rotating(&ks, seed, 60, 120, 0);
		ready = 1;
	}
	ctxlen = size > 0 ? data[0] % 40 : 0;
	if (ctxlen > size)
		ctxlen = size;
	/* As a client's ticket, at 1.2 and 1.3. */
	if (ticket_open(&ks, data, size, data, ctxlen, 0x0303, 30, &got,
	    cert) || !zeroed(&got) ||
	    ticket_open(&ks, data, size, data, ctxlen, 0x0304, 30, &got,
	    cert) || !zeroed(&got))
		abort();
	if (size < 12)
		return 0;
	memset(&st, 0, sizeof(st));
	st.version = (data[1] & 1) ? 0x0304 : 0x0303;
	st.suite = (unsigned)data[2] << 8 | data[3];
	st.flags = data[4] & (TICKET_EMS | TICKET_CLIENT | TICKET_CERT);
	if (st.flags & TICKET_CERT) {
		/* The input's bytes, as many as the bound takes. */
		st.cert = data;
		st.cert_len = size < TICKET_CERT_MAX ? size : TICKET_CERT_MAX;
	}
	len = st.flags & TICKET_CERT ? TICKET_MAX : TICKET_LEN;
	st.secret_len = data[5] % (TICKET_SECRET_MAX + 1);
	memcpy(st.secret, data + 6, size - 6 < st.secret_len ? size - 6 :
	    st.secret_len);
	now = (int64_t)(data[6] | data[7] << 8) * 7;
	st.born = now;
	st.lifetime = 1 + data[8] % 200;
	flip = ((size_t)data[9] << 8 | data[10]) % (len * 8);
	if (ticket_seal(&ks, &st, data, ctxlen, &drbg.vtable, now, t,
	    sizeof(t)) != len)
		abort();
	if (!ticket_open(&ks, t, len, data, ctxlen, st.version, now, &got,
	    cert) || got.version != st.version || got.suite != (st.suite &
	    0xffff) || got.flags != st.flags || got.secret_len !=
	    st.secret_len || memcmp(got.secret, st.secret, st.secret_len) != 0
	    || got.born != st.born || got.lifetime != st.lifetime ||
	    got.cert_len != (st.flags & TICKET_CERT ? st.cert_len : 0) ||
	    (got.cert_len > 0 &&
	    (got.cert != cert || memcmp(cert, st.cert, got.cert_len) != 0)))
		abort();
	if (ticket_open(&ks, t, len, data, ctxlen, st.version, now, &got,
	    NULL) != (len == TICKET_LEN))
		abort();
	if (ticket_open(&ks, t, len, data, ctxlen, st.version,
	    now + st.lifetime, &got, cert))
		abort();
	if (ticket_open(&ks, t, len - 1 - data[11] % TICKET_LEN, data,
	    ctxlen, st.version, now, &got, cert))
		abort();
	if (ticket_open(&ks, t, len, data, ctxlen, st.version ^ 7, now,
	    &got, cert))
		abort();
	t[flip / 8] ^= (unsigned char)(1u << flip % 8);
	if (ticket_open(&ks, t, len, data, ctxlen, st.version, now,
	    &got, cert) || !zeroed(&got))
		abort();
	return 0;
}
