/* SPDX-License-Identifier: ISC */
/*
 * engint.h - what the engine's files (rec.c, hs12.c, hs13.c and their
 * flights) share and nobody else sees: eng.h is the contract with the
 * loop, this is the engine's inside.
 */
#ifndef TLSGATE_ENGINT_H
#define TLSGATE_ENGINT_H

#include "eng.h"

/* Phases: each handshake's own below P_APP; P_APP and P_DEAD are shared. */
enum { P_APP = 100, P_DEAD };
void	eng_fail(struct eng *, unsigned alert);
/* The alert, with the reason the log gives for it. */
unsigned eng_refuse(struct eng *, unsigned alert, const char *reason);
size_t	eng_room(const struct eng *);
int	eng_put_record(struct eng *, int type, const unsigned char *p,
	    size_t n);
void	eng_write_flight(struct eng *);
/* Whatever output is owed, once what was written before it is out. */
void	eng_pump(struct eng *);
/* hs.c: the client's Certificate is all in: 0 or an alert; phase next. */
unsigned hs_cert_end(struct eng *, int next, int none);
/* hs.c: the client's CertificateVerify: 0 or an alert; phase next. */
unsigned hs_cert_verify(struct eng *, int next);
/* The messages a phase may read: its class's want[] (hs.c's check). */
struct hs_want {
	int		phase, type;
	size_t		min, max;
};
/* hs.c: a CertificateRequest's schemes, at most cap; its CA names' bytes. */
size_t	hs_cr_sigs(const struct eng *, unsigned *out, size_t cap);
size_t	hs_ca_names_len(const struct eng_choice *, size_t others);
/* hs.c: max_fragment_length and ALPN, if owed, into a list of extensions. */
void	hs_put_exts(const struct eng *, struct tw *);
/* hs.c: a flight's piece is s, w's n bytes long, or -1 on w's error. */
int	hs_piece_done(struct eng *, const struct tw *w, const unsigned char *s,
	    int next);
/*
 * A version's handshake, as a class (BearSSL's hsrun, picotls's
 * per-version callbacks): eng_start() chooses it once, from the hello,
 * and the record layer (rec.c) calls through c->hs, never on a version.
 */
struct eng_hs {
	/* The client's first hello m, parsed into h: 0 or an alert. */
	unsigned (*hello)(struct eng *, const unsigned char *m, size_t len,
		    const struct hello *);
	/* The record's bytes in ibuf[0..ipos), one whole: 0 or an alert. */
	unsigned (*record)(struct eng *);
	/* The messages each phase reads, want[0..nwant); one's end. */
	const struct hs_want *want;
	size_t	 nwant;
	unsigned (*end)(struct eng *);
	/* The next piece of the server's flight: 1, 0 at its end, -1 error. */
	int	 (*piece)(struct eng *);
	void	 (*flight_done)(struct eng *);
	/* Owed handshake output, once what was written before is out. */
	void	 (*pump)(struct eng *);
};
extern const struct eng_hs hs12_class, hs13_class;
/*
 * Each version's flight, its class's piece: hs12flight.c and
 * hs13flight.c.  fl_stage 0 is a flight's first piece.
 */
int	hs12_piece(struct eng *);
int	hs13_piece(struct eng *);
/*
 * The pure parts of reading, which make prove's frame harness calls
 * alone: rec.c's check of a record header h at base in ibuf (0 or an
 * alert); hs.c's copy of handshake bytes into msg, up to its header's
 * end or its body's (the bytes taken).
 */
unsigned rec_header(const unsigned char *h, unsigned version, int rd_on,
	    size_t base);
size_t	hs_frame(unsigned char *msg, size_t *fill, size_t mlen,
	    const unsigned char *p, size_t n);
/* hs.c: a record's content, opened, or its RP_ERR_*: 0 or an alert. */
unsigned hs_content(struct eng *, int type, unsigned char *p, size_t len,
	    int hs);
void	eng_alert_in(struct eng *, const unsigned char *p, size_t n);

/*
 * Where in ibuf the record being read starts: after the part of a
 * second hello that obuf could not take (hs13.c), else at 0.
 */
static inline size_t
eng_ibase(const struct eng *c)
{
	return c->h2len > c->olen ? c->h2len - c->olen : 0;
}

#endif
