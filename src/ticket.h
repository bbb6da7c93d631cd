/* SPDX-License-Identifier: ISC */
/*
 * ticket.h - stateless session tickets (RFC 5077 for TLS 1.2, RFC 8446
 * 4.6.1 for TLS 1.3): a session's state sealed under a ticket key, and
 * the store of those keys.
 *
 * Owns: the ticket keys of one store, their rotation and their wiping;
 * the ticket's format.  Never allocates, reads the clock, draws
 * randomness of its own or keeps global state: the caller gives the
 * time, the DRBG and the store.
 *
 * A ticket is
 *
 *	key name (16) | nonce (12) | state, sealed | tag (16)
 *
 * where the sealed state is TICKET_STATE_LEN bytes (ticket.c has their
 * offsets) and, for a client that authenticated with a certificate at
 * a client_ca service, its DER and its chain's after them, zero-padded
 * to TICKET_CERT_MAX bytes: a resumption checks them again, as the
 * first handshake did, against the CAs and CRLs of the day (OpenSSL's
 * tickets carry the peer certificate too).  So a ticket is TICKET_LEN
 * or TICKET_MAX bytes: a TLS 1.3 client offers it in clear, and its
 * length must not tell what the encrypted handshake hid.
 *
 * sealed with ChaCha20-Poly1305 (BearSSL's) under the key the name
 * names; the associated data is the key name and the caller's context,
 * the service and the server name the session was made for, so a ticket
 * presented to another service or for another name does not open (RFC
 * 6066 3).  The state carries its own creation time and lifetime:
 * ticket_open() refuses an expired ticket whatever key it is under.
 *
 * Keys come one of two ways:
 *  - rotating (ticket_keys_rotating()): from a secret drawn at start-up,
 *    a new key each `rotate` seconds of the clock's time.  The secret is
 *    a hash chain: period p's key and period p+1's secret are derived
 *    from period p's secret, which is then wiped, so a key that has been
 *    retired cannot be derived again from anything left in memory
 *    (forward secrecy for tickets as old as that).  Processes forked
 *    from one store derive the same key for the same period with no
 *    shared state and no lock.  A key is kept while a ticket it sealed
 *    may still be unexpired (1 + ceil(lifetime / rotate) keys), then
 *    zeroed.
 *  - from a file (ticket_keys_parse()), in the format of haproxy's
 *    tls-ticket-keys: one base64 line a key, of 48 or 80 bytes, the
 *    first 16 the key's name; the AEAD key is HKDF-SHA256 of the rest.
 *    The last TICKET_KEYS_MAX lines are kept; the one before the last
 *    seals (the last is the next one, already known to every box of a
 *    farm before any of them seals with it), or the only one.
 *
 * Secrets: wipe() (wipe.h) zeroes a store; a state ticket_open() filled
 * is the caller's to wipe.  Tags are checked in constant time.
 */
#ifndef TLSGATE_TICKET_H
#define TLSGATE_TICKET_H

#include <stddef.h>
#include <stdint.h>
#include <bearssl.h>

#include "defaults.h"

#define TICKET_NAME_LEN		16
#define TICKET_KEYS_MAX		8
#define TICKET_SECRET_MAX	48
#define TICKET_FORMAT		2
/* format, version, suite, flags, secret length, secret, born, lifetime,
 * certificates' length */
#define TICKET_STATE_LEN	(1 + 2 + 2 + 1 + 1 + TICKET_SECRET_MAX + 8 + 4 + 2)
#define TICKET_LEN		(TICKET_NAME_LEN + 12 + TICKET_STATE_LEN + 16)
/* A ticket's client certificate and chain: Client-Cert's and -Chain's. */
#define TICKET_CERT_MAX	(TLSGATE_CLIENT_CERT_MAX + TLSGATE_CLIENT_CHAIN_MAX)
#define TICKET_MAX		(TICKET_LEN + TICKET_CERT_MAX)
/* The context a ticket is bound to: service name, 0, server name. */
#define TICKET_CTX_MAX		320

#define TICKET_EMS		0x01	/* TLS 1.2: extended master secret */
/* Sealed at a service with client_ca: the client was asked for one. */
#define TICKET_CLIENT		0x02
/* ... and sent one: its certificate follows the state. */
#define TICKET_CERT		0x04

struct ticket_state {
	unsigned	version, suite;
	unsigned	flags;			/* TICKET_EMS, ... */
	unsigned char	secret[TICKET_SECRET_MAX]; /* master secret, or PSK */
	size_t		secret_len;
	int64_t		born;			/* the caller's clock, seconds */
	uint32_t	lifetime;		/* seconds */
	/* With TICKET_CERT: the client's certificate, cert[0..cert_len). */
	const unsigned char *cert;
	size_t		cert_len;
};

struct ticket_key {
	unsigned char	name[TICKET_NAME_LEN];
	unsigned char	key[32];
	int64_t		period;		/* rotating: its period; file: line */
	unsigned char	used;
};

struct ticket_keys {
	struct ticket_key k[TICKET_KEYS_MAX];
	unsigned char	chain[32];	/* rotating: the newest period's secret */
	int64_t		head;		/* ... that period */
	uint32_t	rotate;		/* seconds; 0: keys from a file */
	unsigned	keep;		/* keys kept */
	unsigned	seal;		/* file: the key that seals */
};

/*
 * A rotating store from a 32-byte secret (wiped by the caller after),
 * with its first key for the period of `now`.  rotate > 0; keep is 1 +
 * ceil(lifetime / rotate), at most TICKET_KEYS_MAX (the caller's
 * configuration makes sure).
 */
void	ticket_keys_rotating(struct ticket_keys *ks, const unsigned char *seed,
	    uint32_t rotate, uint32_t lifetime, int64_t now);

/*
 * A store from the text of a key file (len bytes, no NUL needed): 0, or
 * -1 with the line and its fault in err.  Blank lines are skipped.
 */
int	ticket_keys_parse(struct ticket_keys *ks, const char *text,
	    size_t len, char *err, size_t cap);

/* The key that seals now (its name is not secret); NULL if none. */
const struct ticket_key *ticket_keys_current(struct ticket_keys *ks,
	    int64_t now);

/* The number of keys held. */
unsigned ticket_keys_count(const struct ticket_keys *ks);

/*
 * Seal st (st->born and st->lifetime as given) for the context
 * ctx[0..ctxlen) into out (cap bytes): TICKET_LEN, or TICKET_MAX with
 * TICKET_CERT, or 0 if there is no key, ctxlen > TICKET_CTX_MAX,
 * st->cert_len > TICKET_CERT_MAX or the ticket is longer than cap.
 */
size_t	ticket_seal(struct ticket_keys *ks, const struct ticket_state *st,
	    const void *ctx, size_t ctxlen, const br_prng_class **rng,
	    int64_t now, unsigned char *out, size_t cap);

/*
 * Open a ticket a client sent: 1 and *st filled if it is one of ours,
 * for this context, of TLS `version`, and unexpired at now (born <= now
 * + a small skew between the boxes that share a key file, and now - born
 * < lifetime); 0 otherwise, *st zeroed.  A certificate it carries goes
 * to cert (TICKET_CERT_MAX bytes), st->cert then pointing there; with
 * cert NULL, such a ticket does not open.  t is not modified.
 */
int	ticket_open(struct ticket_keys *ks, const unsigned char *t,
	    size_t len, const void *ctx, size_t ctxlen, unsigned version,
	    int64_t now, struct ticket_state *st, unsigned char *cert);

#endif
