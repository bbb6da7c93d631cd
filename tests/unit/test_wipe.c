/* SPDX-License-Identifier: ISC */
/*
 * test_wipe.c - wipe() survives -O3 (the Makefile builds this file at
 * -O3, without sanitizers, whose frames differ).  A secret is made in a
 * function's frame and handed to a callee the compiler cannot see
 * through, so it is really in memory; the function then clears it and
 * returns.  A second function, called from the same place, reads its own
 * uninitialised frame, where the first one's was, through a volatile
 * pointer.  A memset there is a dead store a compiler may drop (C11
 * 5.1.2.3); wipe()'s volatile stores are not.  The first test shows the
 * reader sees a secret left behind, so the others prove something.
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "wipe.h"

#define N		256
#define NOINLINE	__attribute__((noinline))

static unsigned sink;

static void
consume_impl(const unsigned char *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sink = sink * 31 + k[i];
}

/* Through a volatile pointer: the compiler cannot inline or elide it. */
static void (*volatile consume)(const unsigned char *, size_t) = consume_impl;

static unsigned char
pattern(size_t i)
{
	return (unsigned char)(0xa5 ^ (i * 7));
}

NOINLINE static void
leave(void)
{
	unsigned char k[N];

	for (size_t i = 0; i < N; i++)
		k[i] = pattern(i);
	consume(k, sizeof(k));
}

NOINLINE static void
cleared_by_memset(void)
{
	unsigned char k[N];

	for (size_t i = 0; i < N; i++)
		k[i] = pattern(i);
	consume(k, sizeof(k));
	memset(k, 0, sizeof(k));
}

NOINLINE static void
cleared_by_wipe(void)
{
	unsigned char k[N];

	for (size_t i = 0; i < N; i++)
		k[i] = pattern(i);
	consume(k, sizeof(k));
	wipe(k, sizeof(k));
}

/*
 * Whether 32 bytes of the secret in a row are still in the stack.  The
 * frame is read on purpose before it is written; the copy is static, so
 * that nothing else of this frame covers the old one.
 */
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
NOINLINE static int
residue(void)
{
	volatile unsigned char frame[4 * N];
	static unsigned char got[4 * N];
	unsigned char want[32];

	for (size_t i = 0; i < sizeof(got); i++)
		got[i] = frame[i];
	for (size_t off = 0; off + sizeof(want) <= N; off += sizeof(want)) {
		for (size_t i = 0; i < sizeof(want); i++)
			want[i] = pattern(off + i);
		for (size_t i = 0; i + sizeof(want) <= sizeof(got); i++)
			if (memcmp(got + i, want, sizeof(want)) == 0)
				return 1;
	}
	return 0;
}

static int
a_secret_left_behind_is_seen(void)
{
	leave();
	CHECK(residue());
	return 1;
}

static int
wipe_leaves_nothing_at_o3(void)
{
	cleared_by_wipe();
	CHECK(!residue());
	return 1;
}

/* Not asserted: whether a dead memset is dropped is the compiler's call. */
static int
memset_is_reported(void)
{
	cleared_by_memset();
	printf("  memset of a dying local at -O3: %s\n", residue() ?
	    "dropped, the secret stayed" : "kept by this compiler");
	return 1;
}

static int
ct_eq_compares(void)
{
	unsigned char a[48], b[48];

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = b[i] = pattern(i);
	CHECK(ct_eq(a, b, sizeof(a)) == 1);
	CHECK(ct_eq(a, b, 0) == 1);
	for (size_t i = 0; i < sizeof(a); i++) {
		b[i] ^= 0x80;
		CHECK(ct_eq(a, b, sizeof(a)) == 0);
		b[i] ^= 0x80;
	}
	return 1;
}

int
main(void)
{
	static const struct unit_test t[] = {
		T(a_secret_left_behind_is_seen),
		T(wipe_leaves_nothing_at_o3),
		T(memset_is_reported),
		T(ct_eq_compares),
	};

	return unit_run(t, sizeof(t) / sizeof(t[0]));
}
