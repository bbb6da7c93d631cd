#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The footprint table `make size` prints: for each target and build
profile, the stripped binary, the bss it reserves, and the worst-case
memory `tlsgate -t` prints for the profile's defaults and for its
compile-time limits.

    conf/footprint.py PROBE_CONF TARGET:PROFILE:BINARY:STRIP:WRAP...
    conf/footprint.py --write|--check TABLE BINARY DOC...

WRAP is the command prefix that runs the binary (qemu for a cross
build), empty for a native one.  -t runs twice: on the probe config (a
key and certificate, nothing else: the profile's defaults), then with
the slots, redirect slots, pending entries and sessions the compile-time
maximum names, whose total must equal that maximum, or the two sums in
main.c disagree.  A binary that does not exist is an error.

--write puts TABLE (the first form's output) in place of the footprint
table of each DOC; --check fails when a DOC's table differs from it, or
when the sentence of docs/cross.md that explains -t's compile-time
maximum beside the bss of BINARY (the x86-64 default build) does not
hold the numbers recomputed here: the table's row, and the size of the
initialised key pools (nm), which -t counts and .data holds."""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap

MAX = re.compile(r"^compile-time maximum = (\d+) \((\d+) slots, (\d+) "
                 r"redirect slots, (\d+) pending, (\d+) sessions\)$", re.M)
TOTAL = re.compile(r"^total = (\d+) ", re.M)


def check(wrap, binary, conf):
    p = subprocess.run(shlex.split(wrap) + [binary, "-t", "-c", conf],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit("%s -t: %s" % (binary, p.stderr.strip()))
    return p.stdout


def bss(binary):
    with open(binary, "rb") as f:
        elf = f.read()
    # ELF section headers: the size of every SHT_NOBITS (8) section that
    # is allocated (.bss, .tbss), for 32- and 64-bit, either byte order.
    big = elf[5] == 2
    wide = elf[4] == 2
    order = "big" if big else "little"

    def u(off, n):
        return int.from_bytes(elf[off:off + n], order)
    shoff = u(0x28, 8) if wide else u(0x20, 4)
    shentsize = u(0x3A, 2) if wide else u(0x2E, 2)
    shnum = u(0x3C, 2) if wide else u(0x30, 2)
    total = 0
    for i in range(shnum):
        h = shoff + i * shentsize
        sh_type = u(h + 4, 4)
        flags = u(h + 8, 8) if wide else u(h + 8, 4)
        size = u(h + 32, 8) if wide else u(h + 20, 4)
        if sh_type == 8 and flags & 2:
            total += size
    return total


def row(probe, target, profile, binary, strip, wrap):
    if not os.path.exists(binary):
        sys.exit("%s: not built" % binary)
    with tempfile.TemporaryDirectory() as d:
        stripped = os.path.join(d, "tlsgate")
        subprocess.run([strip, "-o", stripped, binary], check=True)
        ssize = os.path.getsize(stripped)
        out = check(wrap, binary, probe)
        m, t = MAX.search(out), TOTAL.search(out)
        if not m or not t:
            sys.exit("%s: no total or maximum in -t" % binary)
        maxconf = os.path.join(d, "max.conf")
        with open(probe) as f, open(maxconf, "w") as g:
            g.write(f.read())
            g.write("slots = %s\nredirect_slots = %s\npending = %s\n"
                    "session_cache = %s\nredirect = 127.0.0.1:8080\n"
                    % m.groups()[1:])
        t2 = TOTAL.search(check(wrap, binary, maxconf))
        if not t2 or t2.group(1) != m.group(1):
            sys.exit("%s: total %s != maximum %s" % (
                binary, t2 and t2.group(1), m.group(1)))
    return "| %s | %s | %s | %s | %s | %s |" % (
        target, profile, "{:,}".format(ssize), "{:,}".format(bss(binary)),
        "{:,}".format(int(t.group(1))), "{:,}".format(int(m.group(1))))


HEAD = "| target | profile | stripped binary |"
SENTENCE_TEXT = (
    "On x86-64, `-t`'s compile-time maximum ({} bytes) is larger than the "
    "binary's `.bss` ({} bytes) by {} bytes: it counts the precomputed key "
    "pools ({} bytes), which their initialiser puts in `.data`, and the "
    "`.bss` holds {} bytes more than the rest it counts (libc's static "
    "storage among it).")
# The sentence as a pattern: its numbers captured, any line breaks.
SENTENCE = re.compile(r"\s+".join(
    re.escape(w) for w in SENTENCE_TEXT.split()).replace(
        re.escape("{}"), r"([\d,]+)"))


def doc_table(text):
    """(start, end) of the footprint table in text."""
    lines = text.split("\n")
    i = next(n for n, ln in enumerate(lines) if ln.startswith(HEAD))
    j = i
    while j < len(lines) and lines[j].startswith("|"):
        j += 1
    return lines, i, j


def pools_size(binary):
    out = subprocess.run(["nm", "-S", binary], capture_output=True,
                         text=True, check=True).stdout
    sizes = [int(w[1], 16) for w in (ln.split() for ln in out.splitlines())
             if len(w) == 4 and w[3] == "pools" and w[2] in "dD"]
    if len(sizes) != 1:
        sys.exit("%s: no one initialised 'pools' symbol" % binary)
    return sizes[0]


def docs(mode, table_path, binary, paths):
    with open(table_path) as f:
        table = f.read().strip().split("\n")
    bad = []
    for p in paths:
        with open(p) as f:
            text = f.read()
        lines, i, j = doc_table(text)
        if mode == "--check" and lines[i:j] != table:
            bad.append("%s: the footprint table is not make size's" % p)
        text = "\n".join(lines[:i] + table + lines[j:])
        if p.endswith("cross.md"):
            row = next(r for r in table if r.startswith("| x86-64 | default"))
            cells = [c.strip().replace(",", "") for c in row.split("|")]
            bss_b, max_b = int(cells[4]), int(cells[6])
            pools = pools_size(binary)
            want = (max_b, bss_b, max_b - bss_b, pools,
                    bss_b - (max_b - pools))
            m = SENTENCE.search(text)
            got = m and tuple(int(g.replace(",", "")) for g in m.groups())
            if m and mode == "--write":
                text = text[:m.start()] + textwrap.fill(
                    SENTENCE_TEXT.format(*("{:,}".format(n) for n in want)),
                    72) + text[m.end():]
            elif got != want:
                bad.append("%s: the sentence on -t's maximum and the bss "
                           "should say %s" % (p, ", ".join(
                               "{:,}".format(n) for n in want)))
        if mode == "--write":
            with open(p, "w") as f:
                f.write(text)
    if bad:
        sys.exit("\n".join(bad + ["make size-docs rewrites the tables"]))


def main():
    if sys.argv[1] in ("--write", "--check"):
        docs(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    probe = sys.argv[1]
    print("| target | profile | stripped binary | bss | worst case, "
          "defaults | worst case, compile-time limits |")
    print("|---|---|---:|---:|---:|---:|")
    for spec in sys.argv[2:]:
        target, profile, binary, strip, wrap = spec.split(":", 4)
        print(row(probe, target, profile, binary, strip, wrap), flush=True)


if __name__ == "__main__":
    main()
