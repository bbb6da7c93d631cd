/* SPDX-License-Identifier: ISC */
/*
 * prim.c - the fastest constant-time implementation of each primitive
 * on this CPU (see prim.h).
 *
 * Timed in the process's CPU time (C's clock()), so that a moment the
 * CPU spends on another task counts against no candidate: in wall time
 * one preempted run once made P-256's m15 (three times slower) win over
 * m31.  The best of a few rounds, the candidates taking turns within
 * each round so that a change of clock speed falls on all of them alike;
 * clock() counts microseconds, so a symmetric candidate's round is 16 KB,
 * some 10 us for the fastest.
 * A first round is not counted: a candidate's first run pays for cold
 * caches (and, under valgrind, for translating its code), which would
 * count against whichever ran first.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bearssl.h>

#include "prim.h"

#define ROUNDS		2	/* timed, after one to warm up */
#define SYM_LEN		4096	/* bytes a symmetric candidate runs over */
#define SYM_RUNS	4	/* times, for 16 KB a round */
#define NCAND		5	/* the most candidates of one kind */

static struct prim cur;

static const char *const names[PRIM_KINDS][NCAND] = {
	{ "sse2", "ct" },
	{ "ctmulq", "ctmul", "ctmul32", "i15" },
	{ "x86ni", "pwr8", "ct64", "ct" },
	{ "pclmul", "pwr8", "ctmul64", "ctmul", "ctmul32" },
	{ "m31", "m15" },
};
static const char *const kinds[PRIM_KINDS] = { "chacha20", "poly1305",
	"aes_ctr", "ghash", "ec" };

/*
 * Candidate i of kind into p: 1 if set, 0 if the CPU (or the build)
 * lacks it, -1 past the last one.
 */
static int
candidate(struct prim *p, int kind, size_t i)
{
	static const br_poly1305_run poly[] = { NULL, &br_poly1305_ctmul_run,
		&br_poly1305_ctmul32_run, &br_poly1305_i15_run };
	static const br_ghash ghash[] = { NULL, NULL, &br_ghash_ctmul64,
		&br_ghash_ctmul, &br_ghash_ctmul32 };

	if (i >= NCAND || names[kind][i] == NULL)
		return -1;
	switch (kind) {
	case PRIM_CHACHA20:
		p->chacha = i == 0 ? br_chacha20_sse2_get() : &br_chacha20_ct_run;
		break;
	case PRIM_POLY1305:
		p->poly = i == 0 ? br_poly1305_ctmulq_get() : poly[i];
		break;
	case PRIM_AES_CTR:
		p->ctr = i == 0 ? br_aes_x86ni_ctr_get_vtable() : i == 1 ?
		    br_aes_pwr8_ctr_get_vtable() : i == 2 ?
		    &br_aes_ct64_ctr_vtable : &br_aes_ct_ctr_vtable;
		break;
	case PRIM_GHASH:
		p->ghash = i == 0 ? br_ghash_pclmul_get() : i == 1 ?
		    br_ghash_pwr8_get() : ghash[i];
		break;
	default:
		p->ec = i == 0 ? &br_ec_all_m31 : &br_ec_all_m15;
		break;
	}
	if ((kind == PRIM_CHACHA20 && p->chacha == 0) ||
	    (kind == PRIM_POLY1305 && p->poly == 0) ||
	    (kind == PRIM_AES_CTR && p->ctr == NULL) ||
	    (kind == PRIM_GHASH && p->ghash == 0))
		return 0;
	p->pick[kind] = (unsigned char)i;
	return 1;
}

/* BearSSL's own engine's choice (ssl_engine_default_*.c, ec_default.c). */
static void
defaults(struct prim *p)
{
	for (int k = 0; k < PRIM_KINDS; k++)
		for (size_t i = 0; candidate(p, k, i) == 0; i++)
			;
	/* Built for a CPU with a slow multiplier (BR_LOMUL): m15. */
	(void)candidate(p, PRIM_EC, br_ec_get_default() == &br_ec_all_m15);
}

const struct prim *
prim_get(void)
{
	/* ChaCha20's portable code is always there: none yet, no choice. */
	if (cur.chacha == NULL)
		defaults(&cur);
	return &cur;
}

static double
cpu_ns(void)
{
	clock_t c = clock();

	return c == (clock_t)-1 ? 0 : (double)c * (1e9 / CLOCKS_PER_SEC);
}

/* Poly1305 alone: its ChaCha20 does nothing. */
static uint32_t
no_chacha(const void *key, const void *iv, uint32_t cc, void *data,
    size_t len)
{
	(void)key;
	(void)iv;
	(void)data;
	(void)len;
	return cc;
}

/* One run of the candidate in p over buf (data of no value). */
static void
run(const struct prim *p, int kind, unsigned char *buf)
{
	static const unsigned char key[32] = { 1 }, iv[16] = { 2 };
	br_aes_gen_ctr_keys aes;
	unsigned char y[16] = { 0 }, tag[16], pt[BR_EC_KBUF_PUB_MAX_SIZE];

	switch (kind) {
	case PRIM_CHACHA20:
		(void)p->chacha(key, iv, 0, buf, SYM_LEN);
		break;
	case PRIM_POLY1305:
		p->poly(key, iv, buf, SYM_LEN, iv, 13, tag, &no_chacha, 1);
		break;
	case PRIM_AES_CTR:
		p->ctr->init(&aes.vtable, key, 16);
		(void)p->ctr->run(&aes.vtable, iv, 1, buf, SYM_LEN);
		break;
	case PRIM_GHASH:
		p->ghash(y, key, buf, SYM_LEN);
		break;
	default:
		(void)p->ec->mulgen(pt, key, 32, BR_EC_curve25519);
		(void)p->ec->mulgen(pt, key, 32, BR_EC_secp256r1);
		break;
	}
}

/* The index of the least of the times taken (NCAND: none). */
static size_t
fastest(const double *best)
{
	size_t m = NCAND;

	for (size_t i = 0; i < NCAND; i++)
		if (best[i] >= 0 && (m == NCAND || best[i] < best[m]))
			m = i;
	return m;
}

/*
 * The kind=name pairs of pin (as prim_describe() writes them, blanks
 * between) into p, each kind's flag set in fixed[]: 0, or -1 for a
 * word that names no kind, or no candidate the CPU has.
 */
static int
pin_parse(struct prim *p, const char *pin, int *fixed)
{
	size_t n, kl, i;
	int k;

	for (pin += strspn(pin, " ,"); *pin != 0; pin += strspn(pin, " ,")) {
		n = strcspn(pin, " ,");
		for (k = 0; k < PRIM_KINDS; k++) {
			kl = strlen(kinds[k]);
			if (n > kl && strncmp(pin, kinds[k], kl) == 0 &&
			    pin[kl] == '=')
				break;
		}
		if (k == PRIM_KINDS)
			return -1;
		kl = strlen(kinds[k]) + 1;
		for (i = 0; i < NCAND && names[k][i] != NULL; i++)
			if (strlen(names[k][i]) == n - kl &&
			    strncmp(pin + kl, names[k][i], n - kl) == 0)
				break;
		if (candidate(p, k, i) != 1)
			return -1;
		fixed[k] = 1;
		pin += n;
	}
	return 0;
}

int
prim_choose(const char *pin)
{
	static unsigned char buf[SYM_LEN];
	struct prim p = *prim_get();
	double best[NCAND], t;
	size_t pick;
	int fixed[PRIM_KINDS] = { 0 };

	if (pin != NULL && pin_parse(&p, pin, fixed) < 0)
		return -1;
	for (int k = 0; k < PRIM_KINDS; k++) {
		if (fixed[k])
			continue;
		for (size_t i = 0; i < NCAND; i++)
			best[i] = -1;
		/* Round 0 warms the caches up and is not counted. */
		for (int r = 0; r <= ROUNDS; r++)
			for (size_t i = 0; candidate(&p, k, i) >= 0; i++) {
				/* Twice the best after a round: out. */
				if (candidate(&p, k, i) == 0 || (r > 1 &&
				    best[i] > 2 * best[fastest(best)]))
					continue;
				t = cpu_ns();
				for (int j = 0; j < (k < PRIM_EC ?
				    SYM_RUNS : 1); j++)
					run(&p, k, buf);
				t = cpu_ns() - t;
				if (r > 0 && (best[i] < 0 || t < best[i]))
					best[i] = t;
			}
		if ((pick = fastest(best)) < NCAND)
			(void)candidate(&p, k, pick);
	}
	cur = p;
	return 0;
}

void
prim_describe(char *buf, size_t cap)
{
	const struct prim *p = prim_get();
	size_t n = 0;
	int w;

	if (cap == 0)
		return;
	buf[0] = 0;
	for (int k = 0; k < PRIM_KINDS && n < cap; k++) {
		w = snprintf(buf + n, cap - n, "%s%s=%s", k > 0 ? " " : "",
		    kinds[k], names[k][p->pick[k]]);
		if (w < 0)
			return;
		n += (size_t)w;
	}
}
