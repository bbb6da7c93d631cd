#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""How often one client's session resumes when many connections share it.

An OpenSSL client (Python's ssl) keeps one session, the latest it was
given, and N threads connect with it at once for some seconds, one GET a
connection; each connection's new session (1.2: the same ID; 1.3: a new
ticket) becomes the one the next takes.  Prints, for TLS 1.2 and 1.3,
connections and the share of them that resumed.  A ticket good once
resumes one of the connections that offer it at the same time; a
ticket good for its lifetime resumes them all.

usage: resume_share.py PORT [--threads 16] [--seconds 10]

With --many N instead: many returning clients, side by side.  It starts
tlsgate (session_cache = 1024, tickets on), nginx (a shared session cache
of about the same 1,024 sessions, tickets on) and haproxy
(tune.ssl.cachesize 1024, tickets on), each answering one GET, and for
each makes N distinct client sessions, then resumes each once: at TLS 1.2
by ticket, at TLS 1.2 by session ID only (a client that asks for no
ticket), and at TLS 1.3.  Prints the share resumed of each.  The clients
return in a random order (seeded), or with --in-order in the order they
came, which an LRU cache smaller than the clients resumes none of: each
miss is a new session that pushes out one of the last ones.

usage: resume_share.py --many 10000 [--bin build/tlsgate] [--threads 4]
                       [--in-order]
"""
import argparse
import concurrent.futures
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

from benchlib import ROOT, free_port, py_backend, self_signed, wait_port


def run(port, version, threads, seconds):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.minimum_version = ctx.maximum_version = version
    lock = threading.Lock()
    state = {"sess": None, "n": 0, "resumed": 0, "errors": 0}
    end = time.monotonic() + seconds

    def one():
        while time.monotonic() < end:
            with lock:
                sess = state["sess"]
            try:
                raw = socket.create_connection(("127.0.0.1", port), 10)
                with ctx.wrap_socket(raw, session=sess) as s:
                    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n"
                              b"Connection: close\r\n\r\n")
                    while s.recv(4096):
                        pass
                    with lock:
                        state["n"] += 1
                        state["resumed"] += s.session_reused
                        state["sess"] = s.session
            except OSError:
                with lock:
                    state["errors"] += 1

    ts = [threading.Thread(target=one) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return state


# --- many returning clients (--many) -----------------------------------

def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def spawn_all(tmp, gate):
    """name -> (process, port): tlsgate, nginx, haproxy."""
    crt, key = self_signed(tmp)
    pem = write(os.path.join(tmp, "both.pem"),
                open(crt).read() + open(key).read())
    bport = free_port()
    out = {"backend": (py_backend(bport), bport)}
    p = free_port()
    conf = write(os.path.join(tmp, "gate.conf"), (
        "listen = 127.0.0.1:%d\nbackend = 127.0.0.1:%d\ncert = %s\n"
        "key = %s\nslots = 1024\nsession_cache = 1024\ntickets = on\n"
        "log_level = warn\n") % (p, bport, crt, key))
    out["tlsgate"] = (subprocess.Popen([gate, "-c", conf],
                                       stderr=subprocess.DEVNULL), p)
    p = free_port()
    # A shared zone of 256 KB: about 1,000 sessions (4,000 a megabyte).
    conf = write(os.path.join(tmp, "nginx.conf"), """\
worker_processes 1;
pid %(t)s/nginx.pid;
error_log %(t)s/nginx.err warn;
events { worker_connections 4096; }
http {
	access_log off;
	ssl_session_cache shared:resume:256k;
	ssl_session_tickets on;
	server {
		listen 127.0.0.1:%(p)d ssl;
		ssl_certificate %(c)s;
		ssl_certificate_key %(k)s;
		ssl_protocols TLSv1.2 TLSv1.3;
		location = / { return 200 "hello\\n"; }
	}
}
""" % {"t": tmp, "p": p, "c": crt, "k": key})
    out["nginx"] = (subprocess.Popen(
        ["nginx", "-p", tmp, "-e", os.path.join(tmp, "nginx.err"), "-c",
         conf, "-g", "daemon off;"], stderr=subprocess.DEVNULL), p)
    p = free_port()
    conf = write(os.path.join(tmp, "haproxy.cfg"), """\
global
	nbthread 1
	maxconn 4096
	tune.ssl.cachesize 1024
defaults
	mode http
	timeout connect 5s
	timeout client 30s
	timeout server 30s
frontend fe
	bind 127.0.0.1:%d ssl crt %s
	http-request return status 200 content-type text/plain string hello
""" % (p, pem))
    out["haproxy"] = (subprocess.Popen(
        ["haproxy", "-db", "-f", conf], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL), p)
    for _, (proc, port) in out.items():
        wait_port(port)
    return out


def get_once(port, ctx, sess):
    """One connection, one GET read to the end: (resumed, session)."""
    raw = socket.create_connection(("127.0.0.1", port), 10)
    with ctx.wrap_socket(raw, session=sess,
                         server_hostname="localhost") as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close"
                  b"\r\n\r\n")
        while s.recv(4096):
            pass
        return s.session_reused, s.session


def returning(port, version, tickets, n, threads, in_order):
    """n sessions made, then each offered once: (resumed, errors)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.minimum_version = ctx.maximum_version = version
    if not tickets:
        ctx.options |= ssl.OP_NO_TICKET
    errors = [0]

    def first(_):
        try:
            return get_once(port, ctx, None)[1]
        except OSError:
            errors[0] += 1
            return None

    def again(sess):
        try:
            return sess is not None and get_once(port, ctx, sess)[0]
        except OSError:
            errors[0] += 1
            return False

    with concurrent.futures.ThreadPoolExecutor(threads) as ex:
        sessions = list(ex.map(first, range(n)))
        if not in_order:
            random.Random(n).shuffle(sessions)
        resumed = sum(ex.map(again, sessions))
    return resumed, errors[0]


def many(a):
    tmp = tempfile.mkdtemp(prefix="tlsgate-returning-")
    os.chmod(tmp, 0o755)        # nginx's worker runs as nobody
    procs = spawn_all(tmp, a.bin)
    kinds = (("TLS 1.2, tickets", ssl.TLSVersion.TLSv1_2, True),
             ("TLS 1.2, session ID only", ssl.TLSVersion.TLSv1_2, False),
             ("TLS 1.3", ssl.TLSVersion.TLSv1_3, True))
    print("%d distinct client sessions, then each resumed once, %s "
          "(Python ssl, %d threads)\n" % (a.many, "in the same order"
                                         if a.in_order else "shuffled",
                                         a.threads))
    print("| server | " + " | ".join(k[0] for k in kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    try:
        for name in ("tlsgate", "nginx", "haproxy"):
            cells = []
            for _, v, t in kinds:
                r, e = returning(procs[name][1], v, t, a.many, a.threads,
                                 a.in_order)
                cells.append("%.1f%% (%d)%s" % (100.0 * r / a.many, r,
                             ", %d errors" % e if e else ""))
            print("| %s | %s |" % (name, " | ".join(cells)))
            sys.stdout.flush()
    finally:
        for proc, _ in procs.values():
            proc.send_signal(signal.SIGTERM)
        for proc, _ in procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int, nargs="?")
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--many", type=int, default=0)
    ap.add_argument("--in-order", action="store_true")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "tlsgate"))
    a = ap.parse_args()
    if a.many:
        return many(a)
    if a.port is None:
        ap.error("a port, or --many N")
    print("| version | connections | resumed | errors |")
    print("|---|---|---|---|")
    for name, v in (("TLS 1.2", ssl.TLSVersion.TLSv1_2),
                    ("TLS 1.3", ssl.TLSVersion.TLSv1_3)):
        st = run(a.port, v, a.threads, a.seconds)
        print("| %s | %d | %.1f%% | %d |" % (
            name, st["n"], 100.0 * st["resumed"] / max(st["n"], 1),
            st["errors"]))


if __name__ == "__main__":
    main()
