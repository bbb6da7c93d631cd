#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Digests for tests/unit/test_keccak.c from another implementation,
Python's hashlib: python3 keccak_vectors.py > vectors.txt

One line per case: function, message length, output length, output in
hex.  The message of length n is bytes (131 i + 7) mod 256, i < n, as
the C test builds it.  Lengths run over every value up to 3 blocks of
the largest rate (168) and around every rate boundary (72, 136, 168 and
their multiples, +-1), and the XOFs' outputs cross block boundaries."""
import hashlib


def msg(n):
    return bytes((131 * i + 7) & 0xff for i in range(n))


LENS = sorted(set(range(0, 3 * 168 + 2)) |
              {r * k + d for r in (72, 136, 168) for k in (4, 5, 8)
               for d in (-1, 0, 1)} | {1184, 1216, 4096})
for n in LENS:
    m = msg(n)
    print("sha3_256", n, 32, hashlib.sha3_256(m).hexdigest())
    print("sha3_512", n, 64, hashlib.sha3_512(m).hexdigest())
    olen = 32 if n % 7 else 168 * 3 + 5
    print("shake128", n, olen, hashlib.shake_128(m).hexdigest(olen))
    olen = 32 if n % 5 else 136 * 3 + 1
    print("shake256", n, olen, hashlib.shake_256(m).hexdigest(olen))
for olen in (135, 136, 137, 167, 168, 169, 336, 337, 1000):
    print("shake128", 34, olen, hashlib.shake_128(msg(34)).hexdigest(olen))
    print("shake256", 33, olen, hashlib.shake_256(msg(33)).hexdigest(olen))
