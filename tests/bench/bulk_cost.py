#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Cost of bulk data through tlsgate, in instructions per MiB (callgrind).

For each protocol version and AEAD, runs tlsgate (http mode, one suite,
one version) under `valgrind --tool=callgrind` and fetches M1 and then
M2 MiB over one keep-alive TLS connection from the test backend (GET
/bytes/N: the server seals), or posts them to /echo (the server opens
them and seals them back).  Reports (Ir(M2) - Ir(M1)) / (M2 - M1): the
instructions of one MiB, with start-up, the handshake and the tool's
noise subtracted out.  The primitives are pinned (TLSGATE_PRIMITIVES)
to tlsgate's native choice, or --pin: timed under valgrind they would
differ from run to run.  The last column is each row against TLS 1.3's
in the same direction and AEAD.

usage: bulk_cost.py [--bin build/tlsgate] [--m1 1] [--m2 5] [--only AEAD]
                    [--pin "chacha20=sse2 ..."]
"""
import argparse
import os
import re
import socket
import ssl
import tempfile

from benchlib import (ROOT, callgrind, free_port, pinned_env, py_backend,
                      self_signed)

MIB = 1 << 20
AEADS = (("AES-128-GCM", "aes128-gcm"),
         ("ChaCha20-Poly1305", "chacha20-poly1305"))


def recv_response(s):
    """One HTTP/1.1 response with a Content-Length: its body length."""
    got = b""
    while b"\r\n\r\n" not in got:
        d = s.recv(65536)
        if not d:
            raise RuntimeError("connection closed in the head")
        got += d
    head, body = got.split(b"\r\n\r\n", 1)
    n = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
    left = n - len(body)
    while left > 0:
        d = s.recv(min(left, 1 << 18))
        if not d:
            raise RuntimeError("connection closed in the body")
        left -= len(d)
    return n


def drive(port, version, mib, echo):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.minimum_version = ctx.maximum_version = version
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)))
    chunk = b"0123456789abcdef" * (MIB // 16)
    for _ in range(mib):
        if echo:
            s.sendall(b"POST /echo HTTP/1.1\r\nHost: bench\r\n"
                      b"Content-Length: %d\r\n\r\n" % MIB + chunk)
        else:
            s.sendall(b"GET /bytes/%d HTTP/1.1\r\nHost: bench\r\n\r\n" % MIB)
        if recv_response(s) != MIB:
            raise RuntimeError("short body")
    s.close()


def instructions(binary, conf, port, version, mib, echo, tmp, pin):
    log = os.path.join(tmp, "log")
    with open(log, "w") as err:
        ir, _ = callgrind(binary, conf, port,
                          lambda: drive(port, version, mib, echo),
                          env=dict(os.environ, TLSGATE_PRIMITIVES=pin),
                          stderr=err, timeout=300)
    chose = re.search(r"primitives (.*)", open(log).read())
    return ir, chose.group(1).strip() if chose else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "tlsgate"))
    ap.add_argument("--m1", type=int, default=1)
    ap.add_argument("--m2", type=int, default=5)
    ap.add_argument("--only", default="", help="aead name prefix")
    ap.add_argument("--pin", default="", help="TLSGATE_PRIMITIVES for the "
                    "runs (default: what tlsgate -t chooses natively)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tlsgate-bulk-")
    crt, key = self_signed(tmp)
    bport, lport = free_port(), free_port()
    backend = py_backend(bport)
    rows, chosen = {}, set()
    try:
        for name, suite in AEADS:
            if not name.startswith(a.only):
                continue
            for ver, tv in (("1.3", ssl.TLSVersion.TLSv1_3),
                            ("1.2", ssl.TLSVersion.TLSv1_2)):
                conf = os.path.join(tmp, "bulk.conf")
                with open(conf, "w") as f:
                    f.write("listen = 127.0.0.1:%d\nbackend = 127.0.0.1:%d\n"
                            "cert = %s\nkey = %s\nmode = http\n"
                            "log_level = info\nsuites = %s\ntls_min = %s\n"
                            "tls_max = %s\n" % (lport, bport, crt, key, suite,
                                                ver, ver))
                # One pin for every run: the native choice may change.
                a.pin = a.pin or pinned_env(a.bin, conf).get(
                    "TLSGATE_PRIMITIVES", "")
                for way, echo in (("down", False), ("echo", True)):
                    c1, p1 = instructions(a.bin, conf, lport, tv, a.m1,
                                          echo, tmp, a.pin)
                    c2, p2 = instructions(a.bin, conf, lport, tv, a.m2,
                                          echo, tmp, a.pin)
                    rows[(name, ver, way)] = (c2 - c1) / (a.m2 - a.m1)
                    chosen.update((p1, p2))
    finally:
        backend.kill()
    print("| AEAD | TLS | direction | instructions / MiB | / TLS 1.3's |")
    print("|---|---|---|---|---|")
    for (name, ver, way), ir in rows.items():
        base = rows.get((name, "1.3", way))
        print("| %s | %s | %s | %.0f | %s |" % (
            name, ver, "server seals (GET)" if way == "down" else
            "opens and seals (POST /echo)", ir,
            "%.3f" % (ir / base) if base else "-"))
    print("\nprimitives: %s" % "; ".join(sorted(chosen)))


if __name__ == "__main__":
    main()
