#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Overload (`make overload`): tlsgate, nginx and haproxy at and past the
number of full handshakes their core can do, in the same run.

Each terminator runs pinned to CPU 0 with an RSA-2048 certificate in
front of the same nginx backend; build/tlsload (CPU 1) is the client.
With RSA the server's signature costs about 40 times the client's
verify, so the server, not the load generator, is the limit: the
report prints how late tlsload started its connections (p99) to show
it (its CPU use says nothing: it spins to keep its timeline).  One GET a connection,
TLS 1.2, no resumption, open loop (a connection is due every 1/rate s,
whether or not the ones before it are done).

For each server:
  capacity C  the highest rate, in steps of --step percent from its
              closed-loop rate x 0.9, that one --probe-seconds run
              sustains with every connection completed and p99 <= 50 ms;
  then        --seconds at 0.8, 1.0, 1.5 and 3 x C: completed
              connections a second, p50/p99 of the completed ones
              (scheduled start to the end of the handshake), failed
              ones (tlsload's errors: timeouts, resets, refusals), and
              for tlsgate the hellos it shed (its `shed` counter).

The targets (issue "no collapse past capacity"): completed >= 0.95 x
min(offered, C) at every step; p99 <= 50 ms at 0.8 C and <= 500 ms at
1.5 C and 3 C.  Exits 1 if tlsgate misses one; the peers are measured,
not judged.

usage: overload.py [--seconds 30] [--probe-seconds 60] [--step 10]
                   [--servers tlsgate,nginx,haproxy] [--bin build/tlsgate]
                   [--tlsload build/tlsload] [--out build/overload]
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak  # noqa: E402  (its server starters and helpers)

MULTIPLES = (0.8, 1.0, 1.5, 3.0)
P99_OK_MS = 50.0
P99_OVER_MS = 500.0


def tlsload(a, port, args, tag):
    cmd = [a.tlsload, "--url", "https://127.0.0.1:%d/" % port,
           "--requests-per-conn", "1", "--tls-reuse", "0",
           "--timeout", "10"] + args
    p = soak.spawn(cmd, 1, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.communicate()[0].decode()
    with open(os.path.join(a.out, tag + ".txt"), "w") as f:
        f.write(out)
    kv = dict(line.split("=", 1) for line in out.splitlines()
              if "=" in line and " " not in line)
    return {k: float(v) if v.replace(".", "", 1).isdigit() else v
            for k, v in kv.items()}


def open_loop(a, port, rate, seconds, tag):
    # The last run's clients may still be queued, or being shed.
    time.sleep(2)
    r = tlsload(a, port, ["--rate", str(int(rate)), "--duration",
                          str(seconds), "--conns", "4096", "--csv",
                          os.path.join(a.out, tag + ".csv")], tag)
    r["offered"] = rate
    # Over elapsed_s: what completes after the schedule ends counts too.
    r["done_per_s"] = r["conns"] / r["elapsed_s"]
    return r


def sustained(r):
    return r["errors"] == 0 and r["conn_p99_ms"] <= P99_OK_MS


def capacity(a, port, name):
    """Up in steps from 0.9 x the closed-loop rate while a probe passes;
    down in steps while the first ones fail."""
    closed = tlsload(a, port, ["--conns", "64", "--duration", "5"],
                     name + "-closed")["conns_per_s"]
    rate, best, f = closed * 0.9, None, 1 + a.step / 100.0
    while rate >= 10:
        r = open_loop(a, port, rate, a.probe_seconds,
                      "%s-probe-%d" % (name, rate))
        ok = sustained(r)
        print("  %-8s probe %6.0f/s: done %6.0f/s p99 %8.1f ms errors %d"
              % (name, rate, r["done_per_s"], r["conn_p99_ms"],
                 r["errors"]), flush=True)
        if ok:
            best = rate
            rate *= f
        elif best is None:
            rate /= f
        else:
            break
    return closed, best


def read_stats(port):
    """tlsgate's counters from its stats socket, as a dict."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /stats HTTP/1.0\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    body = data.partition(b"\r\n\r\n")[2]
    return dict((k, int(v)) for k, v in
                (line.split() for line in body.decode().splitlines()))


def stat(port, key):
    return 0 if port is None else read_stats(port).get(key, 0)


def start_tlsgate(a, tmp, port, bport, crt, key):
    sport = soak.free_port()
    conf = os.path.join(tmp, "tlsgate.conf")
    with open(conf, "w") as f:
        f.write("listen = 127.0.0.1:%d\nbackend = 127.0.0.1:%d\n"
                "cert = %s\nkey = %s\nstats = 127.0.0.1:%d\n"
                "log_level = warn\ntls_max = 1.2\n"
                % (port, bport, crt, key, sport))
    return soak.spawn([a.bin, "-c", conf], 0), sport


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--probe-seconds", type=int, default=60)
    ap.add_argument("--step", type=float, default=10.0)
    ap.add_argument("--rsa-bits", type=int, default=3072)
    ap.add_argument("--servers", default="tlsgate,nginx,haproxy")
    ap.add_argument("--bin", default=os.path.join(soak.ROOT, "build",
                                                  "tlsgate"))
    ap.add_argument("--tlsload", default=os.path.join(soak.ROOT, "build",
                                                      "tlsload"))
    ap.add_argument("--out", default=os.path.join(soak.ROOT, "build",
                                                  "overload"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    hard = soak.resource.getrlimit(soak.resource.RLIMIT_NOFILE)[1]
    soak.resource.setrlimit(soak.resource.RLIMIT_NOFILE, (hard, hard))
    tmp = tempfile.mkdtemp(prefix="overload-")
    crt, key = soak.self_signed(tmp, ("-newkey", "rsa:%d" % a.rsa_bits))
    bport = soak.free_port()
    backend, _ = soak.start_backend(tmp, bport)
    soak.wait_port(bport)
    rows, bad = [], []
    try:
        for name in a.servers.split(","):
            if name != "tlsgate" and not shutil.which(name):
                print("  %s: not installed, skipped" % name)
                continue
            port, sport = soak.free_port(), None
            if name == "tlsgate":
                p, sport = start_tlsgate(a, tmp, port, bport, crt, key)
            else:
                p = soak.PEERS[name](tmp, port, bport, crt, key)
            try:
                soak.wait_port(port)
                closed, cap = capacity(a, port, name)
                print("  %-8s closed loop of 64: %.0f/s; capacity C = %.0f/s"
                      % (name, closed, cap), flush=True)
                for m in MULTIPLES:
                    shed0 = stat(sport, "shed")
                    r = open_loop(a, port, cap * m, a.seconds,
                                  "%s-%.1fC" % (name, m))
                    r["shed"] = stat(sport, "shed") - shed0
                    r["name"], r["m"], r["cap"] = name, m, cap
                    rows.append(r)
                    want = 0.95 * min(cap * m, cap)
                    limit = P99_OK_MS if m < 1 else \
                        P99_OVER_MS if m > 1 else None
                    miss = []
                    if r["done_per_s"] < want:
                        miss.append("completed %.0f/s < %.0f/s"
                                    % (r["done_per_s"], want))
                    if limit is not None and r["conn_p99_ms"] > limit:
                        miss.append("p99 %.1f ms > %.0f ms"
                                    % (r["conn_p99_ms"], limit))
                    r["verdict"] = "; ".join(miss) or "ok"
                    if name == "tlsgate" and miss:
                        bad.append("%.1f C: %s" % (m, r["verdict"]))
                    print("  %-8s %.1f C = %5.0f/s: done %6.0f/s p50 %8.1f "
                          "p99 %8.1f ms failed %6d shed %6d start lag p99 "
                          "%.1f ms %s" % (name, m, cap * m, r["done_per_s"],
                                          r["conn_p50_ms"], r["conn_p99_ms"],
                                          r["errors"], r["shed"],
                                          r["start_lag_p99_ms"], r["verdict"]),
                          flush=True)
            finally:
                soak.kill(p)
    finally:
        soak.kill(backend)
        shutil.rmtree(tmp, ignore_errors=True)
    print("\n| server | step | offered/s | completed/s | p50 ms | p99 ms "
          "| failed | shed | client start lag p99 ms | targets |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %.1f C | %.0f | %.0f | %.1f | %.1f | %d | %s | %.1f "
              "| %s |" % (r["name"], r["m"], r["offered"], r["done_per_s"],
                          r["conn_p50_ms"], r["conn_p99_ms"], r["errors"],
                          r["shed"] if r["name"] == "tlsgate" else "-",
                          r["start_lag_p99_ms"], r["verdict"]))
    if bad:
        print("overload: tlsgate missed: " + "; ".join(bad))
        return 1
    print("overload: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
