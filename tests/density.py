#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Comment density of the C sources (make density).

    python3 tests/density.py [-q] [--min PCT] [files...]

A line is a comment line when it holds only comment (inside /* */ or
after //); a line with any code is a code line.  Blank lines do not
count.  Prints each file's share and the total over src/*.c and
port/*/*.c (-q: the total only); with --min, fails if the total is
below PCT: the auditor reads the spec beside the code, and this keeps
it there."""
import glob
import sys


def count(path):
    com = code = 0
    inside = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            has_code = has_com = False
            i, n = 0, len(line)
            quote = None
            while i < n:
                c = line[i]
                if inside:
                    has_com = True
                    if line.startswith("*/", i):
                        inside = False
                        i += 2
                        continue
                elif quote:
                    if c == "\\":
                        i += 1
                    elif c == quote:
                        quote = None
                elif line.startswith("/*", i):
                    inside, has_com = True, True
                    i += 2
                    continue
                elif line.startswith("//", i):
                    has_com = True
                    break
                elif c in "\"'":
                    quote, has_code = c, True
                elif not c.isspace():
                    has_code = True
                i += 1
            if has_code:
                code += 1
            elif has_com:
                com += 1
    return com, code


def main(argv):
    floor, quiet = None, argv[:1] == ["-q"]
    if quiet:
        argv = argv[1:]
    if argv[:1] == ["--min"]:
        floor, argv = float(argv[1]), argv[2:]
    files = argv or sorted(glob.glob("src/*.c") + glob.glob("port/*/*.c"))
    tc = tk = 0
    for p in files:
        c, k = count(p)
        tc, tk = tc + c, tk + k
        if not quiet:
                print("%6.1f %%  %5d / %5d  %s" % (100.0 * c / max(c + k, 1),
                                               c, c + k, p))
    pct = 100.0 * tc / max(tc + tk, 1)
    print("%6.1f %%  %5d / %5d  total" % (pct, tc, tc + tk))
    if floor is not None and pct < floor:
        sys.exit("density.py: %.1f %% is below %.1f %%" % (pct, floor))


if __name__ == "__main__":
    main(sys.argv[1:])
