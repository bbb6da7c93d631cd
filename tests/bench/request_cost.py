#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Cost of one small keep-alive request through tlsgate, in stable units.

For each mode (tcp relay, http), runs tlsgate under `strace -c` and under
`valgrind --tool=callgrind`, drives N1 and then N2 keep-alive GETs over
one TLS connection, and reports (count(N2) - count(N1)) / (N2 - N1): the
per-request syscalls and instructions, with start-up, the handshake and
the tool's own noise subtracted out.

usage: request_cost.py [--bin build/tlsgate] [--n1 200] [--n2 1200]
"""
import argparse
import os
import re
import signal
import socket
import ssl
import subprocess
import tempfile
import time

from benchlib import (ROOT, callgrind, free_port, py_backend, self_signed,
                      wait_port)


def drive(port, n):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)))
    req = b"GET /bytes/64 HTTP/1.1\r\nHost: bench\r\n\r\n"
    for _ in range(n):
        s.sendall(req)
        got = b""
        while not got.endswith(b"\r\n\r\n" + b"0123456789abcdef" * 4):
            d = s.recv(4096)
            if not d:
                raise RuntimeError("connection closed")
            got += d
    s.close()


def measure(tool, binary, conf, port, n, tmp):
    out = os.path.join(tmp, "tool.out")
    if tool == "strace":
        # Attach after start-up; strace prints its table when interrupted.
        p = subprocess.Popen([binary, "-c", conf], stderr=subprocess.DEVNULL)
        wait_port(port)
        st = subprocess.Popen(["strace", "-f", "-c", "-o", out, "-p",
                               str(p.pid)], stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        try:
            drive(port, n)
            time.sleep(0.2)
        finally:
            st.send_signal(signal.SIGINT)
            st.wait(timeout=30)
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=30)
        m = re.search(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?total$",
                      open(out).read(), re.M)
        return int(m.group(1))
    return callgrind(binary, conf, port, lambda: drive(port, n))[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "tlsgate"))
    ap.add_argument("--n1", type=int, default=200)
    ap.add_argument("--n2", type=int, default=1200)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tlsgate-cost-")
    crt, key = self_signed(tmp)
    bport, lport = free_port(), free_port()
    backend = py_backend(bport)
    rows = []
    try:
        for mode in ("tcp", "http"):
            conf = os.path.join(tmp, mode + ".conf")
            with open(conf, "w") as f:
                f.write("listen = 127.0.0.1:%d\nbackend = 127.0.0.1:%d\n"
                        "cert = %s\nkey = %s\nmode = %s\nlog_level = warn\n"
                        % (lport, bport, crt, key, mode))
            per = {}
            for tool in ("strace", "callgrind"):
                c1 = measure(tool, a.bin, conf, lport, a.n1, tmp)
                c2 = measure(tool, a.bin, conf, lport, a.n2, tmp)
                per[tool] = (c2 - c1) / (a.n2 - a.n1)
            rows.append((mode, per["strace"], per["callgrind"]))
    finally:
        backend.kill()
    print("| mode | syscalls / request | instructions / request |")
    print("|---|---|---|")
    for mode, sc, ir in rows:
        print("| %s | %.2f | %d |" % (mode, sc, ir))


if __name__ == "__main__":
    main()
