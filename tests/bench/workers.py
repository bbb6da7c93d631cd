#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Full and resumed handshakes per second with workers = 1 and 2.

On a 2-core machine the load generator shares the cores with the
workers, so 2 workers cannot double the rate: the ratio printed is what
this machine shows, not what a machine with spare cores for the load
would.  usage: workers.py [--bin build/tlsgate] [--seconds 8]
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile

from benchlib import ROOT, free_port, self_signed, wait_port


def tlsload(args, port, seconds, reuse):
    out = subprocess.run(
        [args.tlsload, "--url", "https://127.0.0.1:%d/" % port, "--conns",
         "32", "--requests-per-conn", "0", "--tls-reuse", str(reuse),
         "--duration", str(seconds)], capture_output=True, text=True,
        timeout=seconds + 60).stdout
    kv = dict(line.split("=", 1) for line in out.splitlines() if "=" in line
              and " " not in line)
    return float(kv["conns_per_s"]), int(kv["resumed"]), int(kv["conns"]), \
        int(kv["errors"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "tlsgate"))
    ap.add_argument("--tlsload", default=os.path.join(ROOT, "build",
                                                      "tlsload"))
    ap.add_argument("--seconds", type=float, default=8)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tlsgate-workers-")
    crt, key = self_signed(tmp)
    rows = []
    for workers in (1, 2):
        port = free_port()
        conf = os.path.join(tmp, "w%d.conf" % workers)
        with open(conf, "w") as f:
            f.write("listen = 127.0.0.1:%d\nbackend = 127.0.0.1:9\n"
                    "cert = %s\nkey = %s\nworkers = %d\nmode = tcp\n"
                    "log_level = warn\nsession_cache = 4096\n"
                    % (port, crt, key, workers))
        p = subprocess.Popen([args.bin, "-c", conf],
                             stderr=subprocess.DEVNULL)
        try:
            wait_port(port)
            full = tlsload(args, port, args.seconds, 0)
            res = tlsload(args, port, args.seconds, 100)
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=30)
        rows.append((workers, full, res))
    print("| workers | full handshakes/s | resumed handshakes/s "
          "(resumed/conns) | errors |")
    print("|---|---|---|---|")
    for w, full, res in rows:
        print("| %d | %.0f | %.0f (%d/%d) | %d |" % (w, full[0], res[0],
                                                   res[1], res[2],
                                                   full[3] + res[3]))
    print("scaling 1 -> 2 workers: full x%.2f, resumed x%.2f (the load "
          "generator shares the 2 cores)" % (rows[1][1][0] / rows[0][1][0],
                                             rows[1][2][0] / rows[0][2][0]))


if __name__ == "__main__":
    sys.exit(main())
