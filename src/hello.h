/* SPDX-License-Identifier: ISC */
/*
 * hello.h - a client's first flight: whether it is a whole
 * ClientHello, and what that hello offers, for TLS 1.2 and 1.3 alike:
 * the engine's one hello parser.
 *
 * Owns: the check over the raw records that the hello is whole
 * (hello_classify), joining a hello spread over records (hello_defrag), the
 * strict parse of a ClientHello into offsets and bitmasks (hello_parse),
 * and the server's choice of a TLS 1.3 key share (hello_choose_group).
 * Layouts are RFC 5246 7.4.1.2, RFC 8446 4.1.2 and 4.2, RFC 6066 3
 * (server_name) and 4 (max_fragment_length), RFC 7301 3.1 (ALPN), RFC
 * 8422 5.1 (groups, point formats), RFC 7627 (extended master secret),
 * RFC 5746 (renegotiation_info).
 *
 * Never: allocates, does I/O, keeps state, reads past len, or copies a
 * field out of the hello.  Only hello_defrag writes, and only inside the
 * records it is given.  Nothing here knows a configuration: whether 1.3
 * is enabled, which suite, certificate or ALPN name wins is the
 * caller's.
 *
 * Typical use on a connection's first bytes (buf, len read so far, cap
 * its size):
 *
 *	switch (hello_classify(buf, len, cap, &pk))
 *	  HELLO_MORE: read more, call again
 *	  HELLO_ALERT: send pk.alert, close
 *	  HELLO_WHOLE: n = hello_defrag(buf, pk.end);
 *	    alert = hello_parse(buf + 5, n, &h);  the hello is buf[5..5+n)
 *	    bytes buf[pk.end..len) are the next records (CCS, early data)
 *
 * Alerts are RFC 8446 6.2 codes.  What the parser enforces, from the
 * hello alone, in a hello that offers TLS 1.3 (RFC 8446 4.1.2, 4.2,
 * 9.2); a TLS 1.2 hello is held to framing, compression (null among
 * them), the extensions' own formats and the version rules only.  The
 * format of an extension TLS 1.2 alone uses (ec_point_formats,
 * extended_master_secret, session_ticket, renegotiation_info) is judged
 * only if 1.2 is chosen (alert12):
 *  - decode_error: framing and vector lengths;
 *  - illegal_parameter: legacy_compression_methods other than {0}, an
 *    extension tlsgate reads seen twice, pre_shared_key not last, a key
 *    share of the wrong size, or for a group not in supported_groups,
 *    or out of that list's order, or twice (4.2.8 lets a server check
 *    these; the order, which every hello captured in the tests keeps,
 *    makes it one linear pass), PSK identities and binders unpaired;
 *  - missing_extension: supported_groups without key_share or the
 *    reverse; neither pre_shared_key nor both signature_algorithms and
 *    supported_groups; pre_shared_key without psk_key_exchange_modes;
 *  - protocol_version: legacy_version below 0x0303.
 * What the state machine checks, since it depends on its choices: no
 * common suite or group (handshake_failure), a refused PSK and no
 * signature_algorithms (missing_extension), a cookie it never asked
 * for, early_data (never accepted), and the second hello after HRR.
 */
#ifndef TLSGATE_HELLO_H
#define TLSGATE_HELLO_H

#include <stddef.h>

#include "tlswire.h"

/*
 * The longest ClientHello body its vectors allow: version 2, random 32,
 * session_id 1+32, cipher_suites 2+65534, compression 1+255, extensions
 * 2+65535.  A longer one is malformed whatever it holds.
 */
#define HELLO_MAX	131396
/* The most one may take on the wire: its header, in 9 full records. */
#define HELLO_WIRE_MAX	(4 + HELLO_MAX + 9 * 5)

/* hello_classify()'s answers. */
enum {
	HELLO_MORE,	/* the hello is not all there yet, and may fit */
	HELLO_WHOLE,	/* a whole hello, framed well */
	HELLO_ALERT	/* a first flight that must be refused: pk->alert */
};

struct hello_peek {
	unsigned	alert;		/* with HELLO_ALERT */
	size_t		end;		/* HELLO_WHOLE: its records' bytes */
	/*
	 * HELLO_MORE: how many bytes buf must hold before more can be
	 * judged: the next record header whole, the record under way
	 * whole, or, until the message's length is in, one more byte.
	 */
	size_t		want;
	/*
	 * HELLO_MORE, once the message's length is in: the fewest bytes
	 * its records can take (full ones); else 0.  What the peer's
	 * socket must be able to hold for it to come in whole.
	 */
	size_t		wire;
};

/*
 * Look at buf[0..len), a connection's first bytes, read into a buffer of
 * cap bytes.  The hello must come in whole, non-empty handshake records
 * (type 22, version 3.x, at most 2^14 bytes), with nothing after it in
 * its last record.  Anything else is HELLO_ALERT: unexpected_message for
 * another record type or message, an empty record or bytes after the
 * hello (RFC 5246 6.2.1, RFC 8446 5.1); protocol_version for an SSL 2.0
 * hello or another major version; record_overflow; decode_error for bad
 * framing or a length no hello can have; handshake_failure for a hello
 * that could be well formed but does not fit in cap.
 * HELLO_WHOLE when the hello and its vectors up to the extensions'
 * lengths are framed well; its records end at pk->end.
 */
int	hello_classify(const unsigned char *buf, size_t len, size_t cap,
	    struct hello_peek *pk);

/*
 * Join the fragments of the records in buf[0..end) in place, after the
 * first record's header: they are then buf[5..5+n), n returned.  The
 * first header and the bytes from 5+n to end are left as they were.
 * Call it with pk.end of a HELLO_WHOLE answer; any end is safe.
 */
size_t	hello_defrag(unsigned char *buf, size_t end);

/*
 * struct hello's bits, each the index of its code point's row: in
 * tls_suites[] (in suites for a TLS 1.3 code; in suites12 for a TLS 1.2
 * one: i with ECDSA, TLS_NSUITES + i with RSA), tls_groups[] (groups,
 * shares), tls_sigs[] (sigalgs), and hello.c's table of the extensions it
 * reads (exts).  0 for a code the registry does not have.
 */
unsigned hello_suite(unsigned code);
unsigned hello_group(unsigned code);
unsigned hello_sig(unsigned code);
unsigned hello_ext(unsigned code);

/*
 * A parsed ClientHello.  Every offset is from the start of the message
 * (its type byte), so 0 means absent; with its length it lies inside the
 * message.  Unknown and GREASE values are left out of the bitmasks.
 */
struct hello {
	unsigned	 legacy_version;
	size_t		 random;		/* 32 bytes */
	size_t		 sid, sid_len;		/* legacy_session_id, <= 32 */
	unsigned	 suites;		/* hello_suite() bits */
	int		 scsv;			/* TLS_FALLBACK_SCSV */
	int		 v13;			/* supported_versions has 0x0304 */
	int		 v12;			/* ... 0x0303 */
	unsigned	 suites12;		/* ... of TLS 1.2 codes */
	int		 reneg_scsv;		/* TLS_EMPTY_RENEGOTIATION_INFO */
	int		 reneg_bad;		/* renegotiation_info not empty */
	int		 ecpf_uncompressed;	/* ec_point_formats has it */
	int		 obsolete;		/* a group TLS 1.3 ruled out */
	unsigned	 mfl;			/* max_fragment_length, 1 .. 4 */
	unsigned	 exts;			/* hello_ext() bits present */
	/*
	 * A malformed extension that TLS 1.2 alone uses: the alert it
	 * earns if 1.2 is chosen, and why; a TLS 1.3 handshake skips it.
	 */
	unsigned	 alert12;
	const char	*why12;
	unsigned	 groups;		/* hello_group() bits listed */
	unsigned	 shares;		/* ... with a key share */
	/* Where each group's share is, in tls_groups' order (hello_share). */
	size_t		 share_at[TLS_NGROUPS_MAX];
	unsigned	 sigalgs;		/* hello_sig() bits */
	int		 psk_dhe_ke;		/* psk_key_exchange_modes has it */
	/*
	 * pre_shared_key: the identities list's body, the number of
	 * identities (as many as binders), and where the binders list
	 * starts, its length included: a binder is computed over the
	 * message up to there (RFC 8446 4.2.11.2).
	 */
	size_t		 psk_ids, psk_ids_len;
	size_t		 psk_count;
	size_t		 psk_binders;
	size_t		 host, host_len;	/* server_name's host_name */
	size_t		 ticket, ticket_len;	/* SessionTicket's body */
	size_t		 alpn, alpn_len;	/* the ALPN list's body */
	int		 alpn_http11;		/* it names http/1.1 */
	const char	*why;			/* for the log, with an alert */
};

/*
 * Parse m[0..len), one whole handshake message, strictly (see the top
 * of this file for what is checked here).  Returns 0, or the fatal
 * alert it earns with h->why set; h->v13 says whether it offers TLS 1.3,
 * and a hello that offers neither 1.3 nor 1.2 is protocol_version.  h
 * is filled as far as the parse went.
 */
unsigned hello_parse(const unsigned char *m, size_t len, struct hello *h);

/* Where the client's share for group is, 0: none; its length: tlswire.h's. */
size_t	hello_share(const struct hello *h, unsigned group);

/*
 * The group the server's key share will use: the first of pref[0..n)
 * (codepoints, the server's order) that is one it can share.  Returns HELLO_SHARE with *group when the client
 * sent a share for it, else HELLO_HRR with *group when it only lists one
 * in supported_groups (ask again with a HelloRetryRequest), else
 * handshake_failure (40).
 */
#define HELLO_SHARE	0
#define HELLO_HRR		1
unsigned hello_choose_group(const struct hello *h, const unsigned *pref,
	    size_t n, unsigned *group);

#endif
