#!/usr/bin/env python3
"""How often one client's session resumes when many connections share it.

An OpenSSL client (Python's ssl) keeps one session, the latest it was
given, and N threads connect with it at once for some seconds, one GET a
connection; each connection's new session (1.2: the same ID; 1.3: a new
ticket) becomes the one the next takes.  Prints, for TLS 1.2 and 1.3,
connections and the share of them that resumed.  A ticket good once
resumes one of the connections that offer it at the same time; a
ticket good for its lifetime resumes them all.

usage: resume_share.py PORT [--threads 16] [--seconds 10]
"""
import argparse
import socket
import ssl
import threading
import time


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=10)
    a = ap.parse_args()
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
