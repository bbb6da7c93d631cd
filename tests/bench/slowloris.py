#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Slowloris probe (`make slowloris`): tlsgate with `slots = 64` while N
connections drip a ClientHello a byte every --trickle seconds, from one
address or from --sources addresses (127.0.0.x); a connection tlsgate
closes is opened again, as attack tools do.  Once all are open, curl
asks three times, each with a 2 s limit; the probe passes when all
three are answered within 0.5 s.  Prints the counters that show where
the slow clients were held (`pending`) and what they cost (`live`,
`high_water`: slots), and tlsgate's VmRSS.

usage: slowloris.py [--conns 2000] [--sources 1] [--trickle 3]
                    [--hold 6] [--bin build/tlsgate]
"""
import argparse
import os
import select
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak  # noqa: E402
from overload import read_stats  # noqa: E402

# A ClientHello's first bytes: record header, handshake header, version.
HELLO = bytes.fromhex("16030102000100 01fc 0303".replace(" ", "")) + \
    bytes(500)


def curl(port):
    t = time.monotonic()
    out = subprocess.run(["curl", "-k", "-s", "-o", "/dev/null", "-w",
                          "%{http_code} %{time_total}", "--max-time", "2",
                          "https://127.0.0.1:%d/" % port],
                         capture_output=True, text=True).stdout
    return out or "000 %.3f" % (time.monotonic() - t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--conns", type=int, default=2000)
    ap.add_argument("--sources", type=int, default=1)
    ap.add_argument("--trickle", type=float, default=3.0)
    ap.add_argument("--hold", type=float, default=6.0)
    ap.add_argument("--bin", default=os.path.join(soak.ROOT, "build",
                                                  "tlsgate"))
    a = ap.parse_args()
    hard = soak.resource.getrlimit(soak.resource.RLIMIT_NOFILE)[1]
    soak.resource.setrlimit(soak.resource.RLIMIT_NOFILE, (hard, hard))
    tmp = tempfile.mkdtemp(prefix="slowloris-")
    crt, key = soak.self_signed(tmp)
    bport, port, sport = soak.free_port(), soak.free_port(), soak.free_port()
    backend, _ = soak.start_backend(tmp, bport)
    conf = os.path.join(tmp, "tlsgate.conf")
    with open(conf, "w") as f:
        f.write("listen = 127.0.0.1:%d\nbackend = 127.0.0.1:%d\ncert = %s\n"
                "key = %s\nstats = 127.0.0.1:%d\nslots = 64\nlog_level = warn"
                "\n" % (port, bport, crt, key, sport))
    gate = soak.spawn([a.bin, "-c", conf], 0)
    soak.wait_port(port)
    soak.wait_port(bport)
    socks, pl, n, reopened = {}, select.poll(), 0, 0

    def open_one():
        s = socket.socket()
        s.setblocking(False)
        s.bind(("127.0.0.%d" % (1 + n % a.sources), 0))
        s.connect_ex(("127.0.0.1", port))
        socks[s.fileno()] = [s, 0, time.monotonic() + a.trickle]
        pl.register(s.fileno(), select.POLLIN)

    try:
        t0 = time.monotonic()
        while n < a.conns:
            open_one()
            n += 1
            if n % 500 == 0:
                time.sleep(0.05)
        opened_s = time.monotonic() - t0
        end, probes = time.monotonic() + a.hold, []
        next_probe = time.monotonic() + 1.0
        while time.monotonic() < end or len(probes) < 3:
            now = time.monotonic()
            for fd, st in list(socks.items()):
                if st[2] <= now and st[1] < len(HELLO):
                    try:
                        st[0].send(HELLO[st[1]:st[1] + 1])
                        st[1] += 1
                    except OSError:
                        pass
                    st[2] = now + a.trickle
            for fd, _ in pl.poll(20):
                if fd in socks:       # closed by tlsgate: come again
                    pl.unregister(fd)
                    socks.pop(fd)[0].close()
                    open_one()
                    reopened += 1
            if now >= next_probe and len(probes) < 3:
                probes.append(curl(port))
                next_probe = time.monotonic() + 1.0
        st = read_stats(sport)
        rss = soak.rss_kb(gate.pid)
    finally:
        for s, _, _ in socks.values():
            s.close()
        soak.kill(gate)
        soak.kill(backend)
    took = [float(p.split()[1]) for p in probes]
    ok = all(p.split()[0] == "200" for p in probes) and max(took) <= 0.5
    print("slowloris: %d conns from %d address(es), opened in %.1f s, %d "
          "reopened after tlsgate closed them" % (a.conns, a.sources,
                                                   opened_s, reopened))
    print("  curl: %s" % ", ".join("%s in %s s" % tuple(p.split())
                                   for p in probes))
    print("  tlsgate: pending %d (high %d), slots live %d (high %d), "
          "evicted %d, VmRSS %d kB" % (st.get("pending", 0),
                                       st.get("pending_high", 0),
                                       st["live"], st["high_water"],
                                       st["evicted"], rss))
    print("slowloris: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
