#!/usr/bin/env python3
"""The footprint table `make size` prints: for each target and build
profile, the stripped binary, the bss it reserves, and the worst-case
memory `tlsgate -t` prints for the profile's defaults and for its
compile-time limits.

    conf/footprint.py PROBE_CONF TARGET:PROFILE:BINARY:STRIP:WRAP...

WRAP is the command prefix that runs the binary (qemu for a cross
build), empty for a native one.  -t runs twice: on the probe config (a
key and certificate, nothing else: the profile's defaults), then with
the slots, redirect slots, pending entries and sessions the compile-time
maximum names, whose total must equal that maximum, or the two sums in
main.c disagree.  A binary that does not exist is an error."""
import os
import re
import shlex
import subprocess
import sys
import tempfile

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


def main():
    probe = sys.argv[1]
    print("| target | profile | stripped binary | bss | worst case, "
          "defaults | worst case, compile-time limits |")
    print("|---|---|---:|---:|---:|---:|")
    for spec in sys.argv[2:]:
        target, profile, binary, strip, wrap = spec.split(":", 4)
        print(row(probe, target, profile, binary, strip, wrap), flush=True)


if __name__ == "__main__":
    main()
