/* SPDX-License-Identifier: ISC */
/*
 * ticket.c - see ticket.h.
 *
 * The sealed state (TICKET_STATE_LEN, 69 bytes, and certificates),
 * big-endian, at these offsets, the ones ticket_seal() writes and
 * ticket_open() reads:
 *
 *	 0  format (1)		TICKET_FORMAT: a later layout is refused
 *	 1  version (2)		0x0303 or 0x0304: never resumed across
 *	 3  suite (2)		the wire code of the session's suite
 *	 5  flags (1)		TICKET_EMS, TICKET_CLIENT, TICKET_CERT
 *	 6  secret length (1)	at most TICKET_SECRET_MAX
 *	 7  secret (48)		zero-padded: every ticket is as long
 *	55  born (8)		the caller's clock, two's complement
 *	63  lifetime (4)	seconds, as the NewSessionTicket said
 *	67  certificates' length n: 0 without TICKET_CERT, else
 *	    (2)			1 <= n <= TICKET_CERT_MAX
 *	69  certificates	with TICKET_CERT only: the client's DER,
 *	    (TICKET_CERT_MAX)	its chain's, then zeros
 */
#include <stdio.h>
#include <string.h>

#include "ticket.h"
#include "ct.h"
#include "prim.h"
#include "wipe.h"

/* How far in the future a ticket's birth may be: boxes' clocks differ. */
#define SKEW		300

static const char chain_salt[] = "tlsgate ticket chain";
static const char file_salt[] = "tlsgate ticket key file";

/* n bytes of v, network order as the TLS structures around it. */
static void
put_be(unsigned char *p, uint64_t v, size_t n)
{
	while (n-- > 0) {
		p[n] = (unsigned char)v;
		v >>= 8;
	}
}

/* The inverse of put_be(): a field at one of the offsets above. */
static uint64_t
get_be(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

/* The period of now: floor division, the clock may be before 1970. */
static int64_t
period_of(const struct ticket_keys *ks, int64_t now)
{
	int64_t r = (int64_t)ks->rotate;

	return now >= 0 ? now / r : -((-now + r - 1) / r);
}

/*
 * From period p's secret: p's key and name, and p+1's secret in place.
 * One HKDF (RFC 5869) call gives all three, so no two of them can be
 * derived from each other, and the old secret is overwritten before the
 * function returns: the chain only runs forward.
 */
static void
step(unsigned char *chain, struct ticket_key *k, int64_t p)
{
	br_hkdf_context hc;
	unsigned char out[32 + TICKET_NAME_LEN + 32];

	br_hkdf_init(&hc, &br_sha256_vtable, chain_salt,
	    sizeof(chain_salt) - 1);
	br_hkdf_inject(&hc, chain, 32);
	br_hkdf_flip(&hc);
	br_hkdf_produce(&hc, "period", 6, out, sizeof(out));
	memcpy(chain, out, 32);
	memcpy(k->name, out + 32, TICKET_NAME_LEN);
	ct_public(k->name, TICKET_NAME_LEN);	/* in clear in its tickets */
	memcpy(k->key, out + 32 + TICKET_NAME_LEN, 32);
	k->period = p;
	k->used = 1;
	wipe(out, sizeof(out));
	wipe(&hc, sizeof(hc));
}

/*
 * keep is 1 + ceil(lifetime / rotate): a ticket sealed at the very end
 * of a period lives into that many later periods, and must still open.
 */
void
ticket_keys_rotating(struct ticket_keys *ks, const unsigned char *seed,
    uint32_t rotate, uint32_t lifetime, int64_t now)
{
	uint64_t keep;

	wipe(ks, sizeof(*ks));
	ks->rotate = rotate > 0 ? rotate : 1;
	keep = 1 + ((uint64_t)lifetime + ks->rotate - 1) / ks->rotate;
	ks->keep = keep > TICKET_KEYS_MAX ? TICKET_KEYS_MAX : (unsigned)keep;
	memcpy(ks->chain, seed, 32);
	ct_secret(ks->chain, 32);
	ks->head = period_of(ks, now);
	step(ks->chain, &ks->k[(uint64_t)ks->head % TICKET_KEYS_MAX],
	    ks->head);
}

/* Rotating: derive the keys up to the period of now, retire the old. */
static void
keys_update(struct ticket_keys *ks, int64_t now)
{
	int64_t p;

	if (ks->rotate == 0)
		return;
	/* A clock that went back keeps sealing with the newest key. */
	for (p = period_of(ks, now); ks->head < p; ) {
		ks->head++;
		step(ks->chain, &ks->k[(uint64_t)ks->head % TICKET_KEYS_MAX],
		    ks->head);
		/* Retired: the key of a period whose tickets have expired. */
		for (unsigned i = 0; i < TICKET_KEYS_MAX; i++)
			if (ks->k[i].used &&
			    ks->k[i].period <= ks->head - (int64_t)ks->keep)
				wipe(&ks->k[i], sizeof(ks->k[i]));
	}
}

const struct ticket_key *
ticket_keys_current(struct ticket_keys *ks, int64_t now)
{
	const struct ticket_key *k;

	if (ks->rotate == 0)
		k = &ks->k[ks->seal];
	else {
		keys_update(ks, now);
		k = &ks->k[(uint64_t)ks->head % TICKET_KEYS_MAX];
	}
	return k->used ? k : NULL;
}

unsigned
ticket_keys_count(const struct ticket_keys *ks)
{
	unsigned n = 0;

	for (unsigned i = 0; i < TICKET_KEYS_MAX; i++)
		n += ks->k[i].used;
	return n;
}

/* A base64 character's value, or -1. */
static int
b64(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decode s[0..n) (padding allowed at the end): the length, or -1. */
static long
b64_decode(const char *s, size_t n, unsigned char *out, size_t cap)
{
	uint32_t acc = 0;
	size_t o = 0, bits = 0, pad = 0;

	for (size_t i = 0; i < n; i++) {
		int v = b64((unsigned char)s[i]);

		if (s[i] == '=') {
			pad++;
			continue;
		}
		if (v < 0 || pad > 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o == cap)
				return -1;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	if (pad > 2 || (n % 4 != 0 && pad > 0))
		return -1;
	return (long)o;
}

/*
 * haproxy's tls-ticket-keys format: 48 bytes (the name, then two 16-byte
 * keys) or 80 (two 32-byte keys).  The keys are not used as haproxy
 * uses them: everything after the name is HKDF input for one
 * ChaCha20-Poly1305 key, so a farm can share haproxy's file, not its
 * cipher.
 */
int
ticket_keys_parse(struct ticket_keys *ks, const char *text, size_t len,
    char *err, size_t cap)
{
	unsigned char raw[81];
	br_hkdf_context hc;
	size_t p = 0;
	unsigned line = 0, n = 0;

	wipe(ks, sizeof(*ks));
	while (p < len) {
		size_t e = p, a, b;
		long got;
		struct ticket_key *k;

		while (e < len && text[e] != '\n')
			e++;
		line++;
		for (a = p; a < e && (text[a] == ' ' || text[a] == '\t'); a++)
			;
		for (b = e; b > a && (text[b - 1] == ' ' ||
		    text[b - 1] == '\t' || text[b - 1] == '\r'); b--)
			;
		p = e + 1;
		if (a == b)
			continue;
		got = b64_decode(text + a, b - a, raw, sizeof(raw));
		if (got != 48 && got != 80) {
			wipe(raw, sizeof(raw));
			wipe(ks, sizeof(*ks));
			snprintf(err, cap, "line %u: not a ticket key (base64 "
			    "of 48 or 80 bytes)", line);
			return -1;
		}
		/* The last TICKET_KEYS_MAX lines, in a ring by line. */
		k = &ks->k[n % TICKET_KEYS_MAX];
		memcpy(k->name, raw, TICKET_NAME_LEN);
		br_hkdf_init(&hc, &br_sha256_vtable, file_salt,
		    sizeof(file_salt) - 1);
		br_hkdf_inject(&hc, raw + TICKET_NAME_LEN,
		    (size_t)got - TICKET_NAME_LEN);
		br_hkdf_flip(&hc);
		br_hkdf_produce(&hc, "chacha20-poly1305", 17, k->key,
		    sizeof(k->key));
		ct_secret(k->key, sizeof(k->key));
		wipe(&hc, sizeof(hc));
		wipe(raw, sizeof(raw));
		k->period = n++;
		k->used = 1;
	}
	if (n == 0) {
		snprintf(err, cap, "no ticket key in it");
		return -1;
	}
	/* The line before the last seals (haproxy's rule), or the only. */
	ks->seal = (unsigned)((n >= 2 ? n - 2 : 0) % TICKET_KEYS_MAX);
	return 0;
}

/* The associated data: the key name and the context. */
static size_t
aad_of(unsigned char *aad, const unsigned char *name, const void *ctx,
    size_t ctxlen)
{
	memcpy(aad, name, TICKET_NAME_LEN);
	memcpy(aad + TICKET_NAME_LEN, ctx, ctxlen);
	return TICKET_NAME_LEN + ctxlen;
}

/*
 * The AEAD of RFC 8439 2.8 (ChaCha20-Poly1305), in place over the state,
 * with a random 96-bit nonce: keys rotate long before 2^48 tickets make
 * a repeated nonce likely.  Its code is the records' (prim.h).
 */
size_t
ticket_seal(struct ticket_keys *ks, const struct ticket_state *st,
    const void *ctx, size_t ctxlen, const br_prng_class **rng,
    int64_t now, unsigned char *out, size_t cap)
{
	unsigned char aad[TICKET_NAME_LEN + TICKET_CTX_MAX], *s;
	const struct ticket_key *k = ticket_keys_current(ks, now);
	size_t cl = st->flags & TICKET_CERT ? st->cert_len : 0;
	size_t pad = st->flags & TICKET_CERT ? TICKET_CERT_MAX : 0;
	const struct prim *pr = prim_get();

	if (k == NULL || ctxlen > TICKET_CTX_MAX ||
	    st->secret_len > TICKET_SECRET_MAX ||
	    ((st->flags & TICKET_CERT) && (st->cert == NULL || cl == 0 ||
	    cl > TICKET_CERT_MAX)) || cap < TICKET_LEN + pad)
		return 0;
	memcpy(out, k->name, TICKET_NAME_LEN);
	(*rng)->generate(rng, out + TICKET_NAME_LEN, 12);
	ct_public(out + TICKET_NAME_LEN, 12);	/* the nonce, sent in clear */
	s = out + TICKET_NAME_LEN + 12;
	s[0] = TICKET_FORMAT;
	put_be(s + 1, st->version, 2);
	put_be(s + 3, st->suite, 2);
	s[5] = (unsigned char)st->flags;
	s[6] = (unsigned char)st->secret_len;
	memset(s + 7, 0, TICKET_SECRET_MAX);
	memcpy(s + 7, st->secret, st->secret_len);
	put_be(s + 7 + TICKET_SECRET_MAX, (uint64_t)st->born, 8);
	put_be(s + 15 + TICKET_SECRET_MAX, st->lifetime, 4);
	put_be(s + 19 + TICKET_SECRET_MAX, cl, 2);
	memset(s + TICKET_STATE_LEN, 0, pad);
	if (cl > 0)
		memcpy(s + TICKET_STATE_LEN, st->cert, cl);
	ct_secret(s, TICKET_STATE_LEN + pad);
	pr->poly(k->key, out + TICKET_NAME_LEN, s, TICKET_STATE_LEN + pad,
	    aad, aad_of(aad, k->name, ctx, ctxlen), s + TICKET_STATE_LEN + pad,
	    pr->chacha, 1);
	ct_public(s, TICKET_STATE_LEN + pad + 16);	/* sealed, and tag */
	return TICKET_LEN + pad;
}

int
ticket_open(struct ticket_keys *ks, const unsigned char *t, size_t len,
    const void *ctx, size_t ctxlen, unsigned version, int64_t now,
    struct ticket_state *st, unsigned char *cert)
{
	unsigned char aad[TICKET_NAME_LEN + TICKET_CTX_MAX];
	unsigned char s[TICKET_STATE_LEN + TICKET_CERT_MAX], tag[16];
	const struct ticket_key *k = NULL;
	const struct prim *pr = prim_get();
	size_t sl, pad, cl;
	int ok;

	memset(st, 0, sizeof(*st));
	if ((len != TICKET_LEN && len != TICKET_MAX) ||
	    ctxlen > TICKET_CTX_MAX)
		return 0;
	pad = len == TICKET_MAX ? TICKET_CERT_MAX : 0;
	sl = TICKET_STATE_LEN + pad;
	keys_update(ks, now);
	/* Every key is compared, with &, not &&: the time names no key. */
	for (unsigned i = 0; i < TICKET_KEYS_MAX; i++)
		if (ks->k[i].used & ct_eq(ks->k[i].name, t,
		    TICKET_NAME_LEN))
			k = &ks->k[i];
	if (k == NULL)
		return 0;
	/* make prove follows each length apart: what the AEAD reads is set. */
	/*@ split sl; */
	memcpy(s, t + TICKET_NAME_LEN + 12, sl);
	pr->poly(k->key, t + TICKET_NAME_LEN, s, sl, aad,
	    aad_of(aad, t, ctx, ctxlen), tag, pr->chacha, 0);
	ok = ct_eq(tag, t + TICKET_NAME_LEN + 12 + sl, 16);
	ct_public(&ok, sizeof(ok));		/* the MAC's verdict */
	/*
	 * Only an authentic state is read; the version must be the one
	 * being negotiated (a TLS 1.2 master secret is no TLS 1.3 PSK), and
	 * a birth further in the future than SKEW is refused as a broken
	 * clock would be.  A certificate is there when the flag says so,
	 * and only where the caller has room for it.
	 */
	if (ok) {
		/* All but the secret: the handshake shows or dates them. */
		ct_public(s, 7);
		ct_public(s + 7 + TICKET_SECRET_MAX, 14);
		st->version = (unsigned)get_be(s + 1, 2);
		st->suite = (unsigned)get_be(s + 3, 2);
		st->flags = s[5];
		st->secret_len = s[6];
		st->born = (int64_t)get_be(s + 7 + TICKET_SECRET_MAX, 8);
		st->lifetime = (uint32_t)get_be(s + 15 + TICKET_SECRET_MAX, 4);
		cl = (size_t)get_be(s + 19 + TICKET_SECRET_MAX, 2);
		ok = s[0] == TICKET_FORMAT && st->version == version &&
		    st->secret_len <= TICKET_SECRET_MAX &&
		    st->born <= now + SKEW &&
		    st->born > now - (int64_t)st->lifetime &&
		    ((st->flags & TICKET_CERT) != 0) == (cl > 0) && cl <= pad &&
		    (cl == 0 || cert != NULL);
		if (ok) {
			memcpy(st->secret, s + 7, st->secret_len);
			/* Public: the client sent it, the backend gets it. */
			ct_public(s + TICKET_STATE_LEN, cl);
			if (cl > 0) {
				memcpy(cert, s + TICKET_STATE_LEN, cl);
				st->cert = cert;
			}
			st->cert_len = cl;
		}
	}
	wipe(s, sl);
	if (!ok)
		wipe(st, sizeof(*st));
	return ok;
}
