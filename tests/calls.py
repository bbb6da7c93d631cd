#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""No call circle between the files of src/ and port/ (make check).

    python3 tests/calls.py build

Reads each object's defined and undefined symbols (nm) and fails, naming
the files and the symbols, if file A calls into B while B, directly or
through others, calls into A: an auditor then reads each file knowing
only the files below it."""
import glob
import os
import subprocess
import sys


def graph(build):
    defs, undef = {}, {}
    objs = glob.glob(os.path.join(build, "src", "*.o")) + \
        glob.glob(os.path.join(build, "port", "*", "*.o"))
    if not objs:
        sys.exit("calls.py: no objects under %s" % build)
    for o in objs:
        name = os.path.basename(o)[:-2]
        out = subprocess.run(["nm", o], capture_output=True, text=True,
                             check=True).stdout
        for ln in out.splitlines():
            f = ln.split()
            if len(f) == 3 and f[1] in "TDBRC":
                defs[f[2]] = name
            elif len(f) == 2 and f[0] == "U":
                undef.setdefault(name, set()).add(f[1])
    edges = {}
    for name, syms in undef.items():
        for s in syms:
            if defs.get(s, name) != name:
                edges.setdefault(name, {}).setdefault(defs[s], []).append(s)
    return edges


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main():
    edges = graph(sys.argv[1] if len(sys.argv) > 1 else "build")
    found = cycles(edges)
    for comp in found:
        print("calls.py: a call circle: %s" % ", ".join(comp))
        for a in comp:
            for b, syms in sorted(edges.get(a, {}).items()):
                if b in comp:
                    print("  %s -> %s: %s" % (a, b, " ".join(sorted(syms))))
    if found:
        sys.exit(1)
    print("calls.py: %d files, no call circle" % len(
        set(edges) | {b for e in edges.values() for b in e}))


if __name__ == "__main__":
    main()
