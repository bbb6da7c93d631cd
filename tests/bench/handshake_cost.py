#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Cost of one TLS handshake in tlsgate, in instructions (callgrind).

For TLS 1.2 and 1.3, full and resumed, runs tlsgate under `valgrind
--tool=callgrind`, makes N1 and then N2 connections with Python's ssl
(X25519, an ECDSA P-256 certificate, one GET each) and reports
(Ir(N2) - Ir(N1)) / (N2 - N1): the instructions of one connection, its
handshake and its request, with start-up and the tool's noise
subtracted out.  A resumed row resumes the first connection's session:
at 1.2 by ticket (RFC 5077) or, with a client that asks for none, by
session ID; at 1.3 by its ticket (psk_dhe_ke), stateless or, with
tickets = off, an entry of the session cache.

With --chromium, two other rows instead: TLS 1.3 full handshakes of
headless Chromium, which offers X25519MLKEM768 (0x11ec) and X25519
shares, served over the hybrid group (groups as by default) and over
X25519 alone (groups = x25519); N1 and N2 are then Chromium page loads,
and the divisor is the handshakes tlsgate logged (Chromium also opens
a spare connection per load that never sends a hello).

With --node24 PATH (a Node 24, whose OpenSSL 3.5 offers the three
post-quantum hybrids; .ci/run unpacks one into build/node24), TLS 1.3
full handshakes of Node over each group it is told to use (ecdhCurve):
X25519MLKEM768, SecP256r1MLKEM768 and SecP384r1MLKEM1024 beside X25519,
P-256 and P-384 alone, the group each was served over as tlsgate
logged it.

usage: handshake_cost.py [--bin build/tlsgate] [--n1 10] [--n2 70]
                         [--chromium] [--node24 build/node24/bin/node]
"""
import argparse
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile

from benchlib import ROOT, callgrind, free_port, py_backend, self_signed


def connect(port, version, n, resume, tickets):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if not tickets:
        ctx.options |= ssl.OP_NO_TICKET
    ctx.minimum_version = ctx.maximum_version = version
    first, reused = None, 0
    for _ in range(n):
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                            session=first if resume else None)
        s.sendall(b"GET / HTTP/1.1\r\nHost: bench\r\nConnection: close"
                  b"\r\n\r\n")
        while s.recv(4096):
            pass
        reused += s.session_reused
        first = first or s.session
        s.close()
    return reused


def chromium_instructions(binary, conf, port, n, tmp):
    """Ir of tlsgate over n headless Chromium page loads, and how many
    connections it logged (with the group of each)."""
    log = os.path.join(tmp, "gate.log")

    def load():
        for i in range(n):
            subprocess.run(["chromium", "--headless=new", "--no-sandbox",
                            "--disable-gpu", "--ignore-certificate-errors",
                            "--user-data-dir=%s/chromium%d" % (tmp, i),
                            "--dump-dom", "https://127.0.0.1:%d/" % port],
                           capture_output=True, timeout=120)

    with open(log, "w") as err:
        ir, _ = callgrind(binary, conf, port, load, stderr=err)
    groups = re.findall(r" conn id=.* group=(\S+)", open(log).read())
    return ir, groups


NODE_LOOP = r"""
const tls = require("tls");
const [port, curve, n] = process.argv.slice(1);
function one(i) {
  if (i == +n) return;
  const s = tls.connect({host: "127.0.0.1", port: +port, ecdhCurve: curve,
                         rejectUnauthorized: false, minVersion: "TLSv1.3",
                         session: undefined},
    () => s.end("GET / HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"));
  s.on("data", () => {});
  s.on("close", () => one(i + 1));
  s.on("error", (e) => { console.error(e.message); process.exit(1); });
}
one(0);
"""


def node_instructions(a, conf, port, curve, n, tmp):
    """Ir of tlsgate over n Node connections with ecdhCurve curve, and
    the groups tlsgate logged."""
    out = os.path.join(tmp, "cg.out")
    log = os.path.join(tmp, "gate.log")
    with open(log, "w") as err:
        p = subprocess.Popen(["valgrind", "--tool=callgrind",
                              "--callgrind-out-file=" + out, a.bin, "-c",
                              conf], stdout=subprocess.DEVNULL, stderr=err,
                             env=pinned_env(a.bin, conf))
    try:
        wait_port(port)
        subprocess.run([a.node24, "-e", NODE_LOOP, str(port), curve, str(n)],
                       check=True, capture_output=True, timeout=600)
        # The key pools (precomp.h) refill when idle: let them fill in
        # both runs, so that the difference counts each key once.
        time.sleep(5)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=120)
    m = re.search(r"^(?:summary|totals):\s+(\d+)", open(out).read(), re.M)
    # wait_port()'s probe is a connection too, in both runs: left out.
    return int(m.group(1)), [g for g in re.findall(
        r" conn id=.* group=(\S+)", open(log).read()) if g != "none"]


def node_rows(a, conf, lport, tmp):
    with open(conf) as f:
        base = [ln for ln in f if not ln.startswith("log_")]
    with open(conf, "w") as f:
        f.writelines(base)
        f.write("log_level = info\n")
    for curve in ("X25519", "P-256", "P-384", "X25519MLKEM768",
                  "SecP256r1MLKEM768", "SecP384r1MLKEM1024"):
        c1, _ = node_instructions(a, conf, lport, curve, a.n1, tmp)
        c2, g = node_instructions(a, conf, lport, curve, a.n2, tmp)
        print("| TLS 1.3 full, Node 24, %s | %.3f M | %d of %d, %s |" % (
            curve, (c2 - c1) / (a.n2 - a.n1) / 1e6, len(g), a.n2,
            "/".join(sorted(set(g)))))
        sys.stdout.flush()


def chromium_rows(a, conf, lport, tmp):
    for groups in ("", "x25519"):
        with open(conf) as f:
            base = [ln for ln in f if not ln.startswith(("groups", "log_"))]
        with open(conf, "w") as f:
            f.writelines(base)
            f.write("log_level = info\n")
            if groups:
                f.write("groups = %s\n" % groups)
        c1, g1 = chromium_instructions(a.bin, conf, lport, a.n1, tmp)
        c2, g2 = chromium_instructions(a.bin, conf, lport, a.n2, tmp)
        h1 = [g for g in g1 if g != "none"]
        h2 = [g for g in g2 if g != "none"]
        print("| TLS 1.3 full, Chromium, %s | %.2f M | %d handshakes of "
              "%d connections |" % ("/".join(sorted(set(h2))),
                                    (c2 - c1) / (len(h2) - len(h1)) / 1e6,
                                    len(h2), len(g2)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "tlsgate"))
    ap.add_argument("--n1", type=int, default=10)
    ap.add_argument("--n2", type=int, default=70)
    ap.add_argument("--chromium", action="store_true")
    ap.add_argument("--node24")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tlsgate-hscost-")
    crt, key = self_signed(tmp)
    bport, lport = free_port(), free_port()
    backend = py_backend(bport)
    confs = {}
    for t in ("on", "off"):
        confs[t] = os.path.join(tmp, "g-%s.conf" % t)
        with open(confs[t], "w") as f:
            f.write("listen = 127.0.0.1:%d\nbackend = 127.0.0.1:%d\n"
                    "cert = %s\nkey = %s\nlog_level = warn\ntickets = %s\n"
                    % (lport, bport, crt, key, t))
    v12, v13 = ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3
    rows = (("TLS 1.2 full", v12, False, True, "on"),
            ("TLS 1.2 resumed, session ID", v12, True, False, "on"),
            ("TLS 1.2 resumed, ticket", v12, True, True, "on"),
            ("TLS 1.3 full", v13, False, True, "on"),
            ("TLS 1.3 resumed, ticket", v13, True, True, "on"),
            ("TLS 1.3 resumed, cache (tickets = off)", v13, True, True,
             "off"))
    print("| handshake | instructions / connection | %s |" %
          ("served, over" if a.node24 else "resumed"))
    print("|---|---|---|")
    try:
        if a.chromium:
            chromium_rows(a, confs["on"], lport, tmp)
            return
        if a.node24:
            node_rows(a, confs["on"], lport, tmp)
            return
        for name, v, resume, tickets, t in rows:
            c1, _ = callgrind(a.bin, confs[t], lport, lambda: connect(
                lport, v, a.n1, resume, tickets))
            c2, r = callgrind(a.bin, confs[t], lport, lambda: connect(
                lport, v, a.n2, resume, tickets))
            print("| %s | %.3f M | %d of %d |" % (
                name, (c2 - c1) / (a.n2 - a.n1) / 1e6, r, a.n2))
            sys.stdout.flush()
    finally:
        backend.kill()


if __name__ == "__main__":
    main()
