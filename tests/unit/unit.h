/* SPDX-License-Identifier: ISC */
/*
 * unit.h - what the unit tests of src/ share: CHECK, the test table and
 * its runner.  Each test is an int (*)(void) returning 1 when it passes;
 * the runner prints one line a test and "N passed, N failed" last, and
 * its status is non-zero if anything failed.
 */
#ifndef TLSGATE_UNIT_H
#define TLSGATE_UNIT_H

#include <stdio.h>
#include <string.h>

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "  %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		return 0;						\
	}								\
} while (0)

struct unit_test {
	const char	*name;
	int		(*fn)(void);
};
#define T(f) { #f, f }

/* Lower-case hex into out; 0 if it is malformed or longer than cap. */
static inline size_t
unit_unhex(unsigned char *out, size_t cap, const char *s)
{
	static const char digits[] = "0123456789abcdef";
	const char *hi, *lo;
	size_t n = 0;

	for (; s[0] != '\0'; s += 2) {
		if (s[1] == '\0' || n == cap ||
		    (hi = strchr(digits, s[0])) == NULL ||
		    (lo = strchr(digits, s[1])) == NULL)
			return 0;
		out[n++] = (unsigned char)((hi - digits) << 4 | (lo - digits));
	}
	return n;
}

/* Tests passed [0] and failed [1] so far, in this binary. */
static inline int *
unit_counts(void)
{
	static int n[2];

	return n;
}

/* Run n tests, a line each; unit_end() sums them all up. */
static inline void
unit_tests(const struct unit_test *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int ok = t[i].fn();

		printf("%s %s\n", ok ? "ok  " : "FAIL", t[i].name);
		unit_counts()[!ok]++;
	}
}

static inline int
unit_end(void)
{
	int *n = unit_counts();

	printf("%d passed, %d failed\n", n[0], n[1]);
	return n[1] == 0 ? 0 : 1;
}

static inline int
unit_run(const struct unit_test *t, size_t n)
{
	unit_tests(t, n);
	return unit_end();
}

#endif
