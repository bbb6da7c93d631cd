/*
 * unit.h - what the unit tests of src/ share: CHECK, the test table and
 * its runner.  Each test is an int (*)(void) returning 1 when it passes;
 * the runner prints one line a test and "N passed, N failed" last, and
 * its status is non-zero if anything failed.
 */
#ifndef TLSGATE_UNIT_H
#define TLSGATE_UNIT_H

#include <stdio.h>

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

static int unit_pass, unit_fail;

/* Run n tests, a line each; unit_end() sums them all up. */
static inline void
unit_tests(const struct unit_test *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int ok = t[i].fn();

		printf("%s %s\n", ok ? "ok  " : "FAIL", t[i].name);
		ok ? unit_pass++ : unit_fail++;
	}
}

static inline int
unit_end(void)
{
	printf("%d passed, %d failed\n", unit_pass, unit_fail);
	return unit_fail == 0 ? 0 : 1;
}

static inline int
unit_run(const struct unit_test *t, size_t n)
{
	unit_tests(t, n);
	return unit_end();
}

#endif
