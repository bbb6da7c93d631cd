/* SPDX-License-Identifier: ISC */
/*
 * Included before every file make prove analyses.
 *
 * Frama-C 25 cannot parse _Static_assert; the compilers check those.
 *
 * volatile is dropped: its one use is wipe()'s (wipe.h), which keeps
 * the compiler from eliding the stores.  Eva reads a volatile object as
 * any value, so that a key store wiped to zeros would look like garbage
 * to it; the stores are the same either way.
 */
#define _Static_assert(c, m)
#define volatile
