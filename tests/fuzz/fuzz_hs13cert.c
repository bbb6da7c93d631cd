/* SPDX-License-Identifier: ISC */
/*
 * fuzz_hs13cert.c - libFuzzer target for the TLS 1.3 engine's reading of
 * a client's authentication: Certificate (streamed into the validator),
 * CertificateVerify and Finished, as hs_content() (hs.c) gets them
 * once records are open, in any split.  Those records are protected
 * under keys no fuzzer can know, so this target ends a TLS 1.3 server
 * flight through the class (hs13_class.flight_done, as rec.c does),
 * which leaves the engine waiting for the client's Certificate, with the
 * client's handshake traffic secret all zeros, and feeds the bytes to
 * hs_content() directly.  It links the engine as the daemon does and
 * knows its phases only by what the engine does: the one it starts in,
 * the one a service without client certificates waits in (Finished),
 * and P_APP; any other is CertificateVerify's.
 *
 * The input is one byte (bit 0: BearSSL's X.509 validator, or a known
 * key; the rest: the size of the pieces the bytes come in, 1 to 128),
 * then the client's handshake bytes.  The client key is fixed (see
 * hs13cert_seeds.py, which writes the seeds with it); the validator
 * trusts it directly, with the subject CN=fuzz client.  Invariants
 * checked, each with abort():
 *  - a failure is one of the alerts RFC 8446 names for it (the record
 *    layer, eng_recvrec_ack(), then fails the engine with it); a bad
 *    signature is reported as BearSSL would (BR_ERR_BAD_SIGNATURE);
 *  - the engine never holds more than its message buffer;
 *  - an input the engine accepts carries a certificate, and with any
 *    one bit of its CertificateVerify or Finished flipped it is refused,
 *    split the same way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engint.h"
#include "tlswire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct eng		 c;
static struct eng_ops		 ops;
static br_x509_minimal_context	 xm;
static br_x509_knownkey_context	 kk;
static br_x509_trust_anchor	 ta;
static br_ec_public_key		 pub;
static unsigned char		 pubbuf[BR_EC_KBUF_PUB_MAX_SIZE];
static uint8_t			 flipped[1 << 16];
/* The phases the flight's end leaves, with and without a validator. */
static int			 p_ccert, p_fin;

static void
setup(void)
{
	static unsigned char sk[32], dn[] = { 0x30, 0x16, 0x31, 0x14, 0x30,
	    0x12, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x0b, 'f', 'u', 'z', 'z',
	    ' ', 'c', 'l', 'i', 'e', 'n', 't' };
	br_ec_private_key k = { BR_EC_secp256r1, sk, sizeof(sk) };

	for (size_t i = 0; i < sizeof(sk); i++)
		sk[i] = (unsigned char)(i + 1);
	if (br_ec_compute_pub(br_ec_get_default(), &pub, pubbuf, &k) == 0)
		abort();
	/*
	 * Not a CA: a chain whose first certificate has this subject
	 * (CN=fuzz client) and key is trusted.
	 */
	ta.dn.data = dn;
	ta.dn.len = sizeof(dn);
	ta.pkey.key_type = BR_KEYTYPE_EC;
	ta.pkey.key.ec = pub;
}

/*
 * The engine fresh after its flight, for a service that asks for a
 * certificate (the validator by known: 1 knownkey, 0 minimal, -1 none).
 */
static void
start(int known)
{
	memset(&c, 0, sizeof(c));
	c.hs = &hs13_class;
	c.version = TLS13;
	c.ops = &ops;			/* no session store: no ticket */
	c.wr_on = c.rd_on = 1;
	c.ch.suite = SUITE_AES_128_GCM_SHA256;
	c.ks.dig = &br_sha256_vtable;
	c.ks.hlen = 32;
	th_init(&c.th, &br_sha256_vtable);
	if (known > 0) {
		br_x509_knownkey_init_ec(&kk, &pub, BR_KEYTYPE_SIGN);
		c.ch.x509 = &kk.vtable;
	} else if (known == 0) {
		br_x509_minimal_init(&xm, &br_sha256_vtable, &ta, 1);
		br_x509_minimal_set_ecdsa(&xm, br_ec_get_default(),
		    br_ecdsa_vrfy_asn1_get_default());
		br_x509_minimal_set_hash(&xm, br_sha256_ID, &br_sha256_vtable);
		c.ch.x509 = &xm.vtable;
	}
	c.hs->flight_done(&c);
}

/* Waiting for CertificateVerify: the one phase the others are not. */
static int
in_cv(void)
{
	return c.phase != p_ccert && c.phase != p_fin && c.phase < P_APP;
}

/* Feed p[0..n) in pieces of step: 0 (and P_APP) or the alert. */
static unsigned
feed(int known, size_t step, const uint8_t *p, size_t n)
{
	unsigned a = 0;
	int cv = 0;

	start(known);
	for (size_t i = 0; i < n && a == 0; i += step) {
		cv = in_cv();
		/* hs_content() writes nothing of a handshake record. */
		a = hs_content(&c, CT_HANDSHAKE, (unsigned char *)p + i,
		    n - i < step ? n - i : step, 1);
	}
	if (c.hs_len > sizeof(c.msg))
		abort();
	switch (a) {
	case 0:
		break;
	case BR_ALERT_DECRYPT_ERROR:
		/* A CertificateVerify that does not verify: BearSSL's name. */
		if (cv && in_cv() && c.why != BR_ERR_BAD_SIGNATURE)
			abort();
		/* FALLTHROUGH */
	case BR_ALERT_UNEXPECTED_MESSAGE: case BR_ALERT_BAD_CERTIFICATE:
	case BR_ALERT_UNSUPPORTED_CERTIFICATE:
	case BR_ALERT_CERTIFICATE_EXPIRED: case BR_ALERT_ILLEGAL_PARAMETER:
	case BR_ALERT_UNKNOWN_CA: case BR_ALERT_DECODE_ERROR:
	case ALERT_CERTIFICATE_REQUIRED:
		break;
	default:
		abort();
	}
	return a;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	size_t step, n, cv, end, bit;
	int known;

	if (!ready) {
		setup();
		start(-1);
		p_fin = c.phase;
		start(1);
		p_ccert = c.phase;
		if (p_fin == p_ccert || p_ccert >= P_APP)
			abort();
		ready = 1;
	}
	if (size < 1 || size - 1 > sizeof(flipped))
		return 0;
	known = data[0] & 1;
	step = 1 + (data[0] >> 1);
	n = size - 1;
	if (feed(known, step, data + 1, n) != 0 || c.phase != P_APP)
		return 0;
	if (c.ncert == 0)
		abort();
	/*
	 * Accepted: CertificateVerify starts at cv, Finished ends at end
	 * (what follows is no part of it); flip one bit in between.
	 */
	cv = 4 + tw_get24(data + 2);
	end = cv + 4 < n ? cv + 4 + tw_get24(data + 1 + cv + 1) + 4 + 32 : n + 1;
	if (end > n)
		abort();
	memcpy(flipped, data + 1, n);
	bit = (size_t)data[n] * 131 % (8 * (end - cv));
	flipped[cv + bit / 8] ^= (uint8_t)(1 << bit % 8);
	if (feed(known, step, flipped, n) == 0 && c.phase == P_APP)
		abort();
	return 0;
}
