# SPDX-License-Identifier: ISC
"""No heap allocation once tlsgate serves: the allocator is interposed
(tests/alloc/allocshim.c, LD_PRELOAD) and counted from the first poll()."""
import os
import signal
import socket
import ssl
import subprocess
import time
import unittest

import harness
from harness import GateTest, certs, free_port, write_conf, LOOPBACK

SHIM = os.path.join(harness.ROOT, "build", "allocshim.so")
SELFTEST = os.path.join(harness.ROOT, "build", "alloc-selftest")


def read_response(s):
    got = b""
    while b"\r\n\r\n" not in got:
        got += s.recv(4096)
    head, body = got.split(b"\r\n\r\n", 1)
    n = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
    while len(body) < n:
        body += s.recv(4096)
    return body


def counts(path):
    with open(path) as f:
        return dict(kv.split("=") for kv in f.read().split())


@unittest.skipIf(harness.WRAP or os.environ.get("TLSGATE_ASAN"),
                 "sanitizers and valgrind bring their own allocator")
class NoAllocation(GateTest):
    # Its clients take both engines, 1.2 and 1.3; only the plain build's
    # run has it, which make check runs at tls_max = 1.2.
    TLS_MAX = "1.3"

    def setUp(self):
        super().setUp()
        # The shim is a test helper `make` alone does not build.
        if not (os.path.exists(SHIM) and os.path.exists(SELFTEST)):
            subprocess.run(["make", "-s", "-C", harness.ROOT,
                            "build/allocshim.so", "build/alloc-selftest"],
                           check=True, timeout=120)

    def test_shim_counts_allocations_after_the_first_poll(self):
        out = os.path.join(self.tmp, "self.txt")
        env = dict(os.environ, LD_PRELOAD=SHIM, ALLOCSHIM_OUT=out)
        subprocess.run([SELFTEST], env=env, check=True, timeout=10)
        c = counts(out)
        self.assertEqual((c["malloc"], c["calloc"], c["realloc"]),
                         ("1", "1", "1"), c)

    def test_no_allocation_after_ready_over_1000_connections(self):
        c = certs()
        b = self.backend("http")
        port, rport = free_port(), free_port()
        conf = os.path.join(self.tmp, "a.conf")
        write_conf(conf, {"listen": "%s:%d" % (LOOPBACK, port),
                          "redirect": "%s:%d" % (LOOPBACK, rport),
                          "acme_passthrough": "on",
                          "backend": b.addr, "mode": "http",
                          "cert": c.path["ec.crt"], "key": c.path["ec.key"],
                          "session_cache": "64", "log_level": "info",
                          # The shim writes its counts at exit: a call
                          # the filter (seccomp = auto) would kill.
                          "seccomp": "off", **self.tls_conf()})
        out = os.path.join(self.tmp, "alloc.txt")
        log = open(os.path.join(self.tmp, "a.log"), "wb")
        env = dict(os.environ, LD_PRELOAD=SHIM, ALLOCSHIM_OUT=out)
        p = subprocess.Popen([harness.BIN, "-c", conf], env=env,
                             stdin=subprocess.DEVNULL, stderr=log)
        try:
            end = harness.deadline(10)
            while not harness.is_listening(port):
                self.assertLess(time.monotonic(), end, "never listened")
                time.sleep(0.02)
            # TLS 1.2 with session IDs, then TLS 1.3 with tickets.
            ctx = harness.client_ctx(max_version=ssl.TLSVersion.TLSv1_2)
            ctx.options |= ssl.OP_NO_TICKET
            session, resumed = None, 0
            for i in range(1000):
                s = ctx.wrap_socket(socket.create_connection(
                    (LOOPBACK, port), timeout=10), session=session)
                resumed += s.session_reused
                if i % 10 == 0:
                    # Some keep-alive requests, some raw closes.
                    for _ in range(3):
                        s.sendall(b"GET /bytes/100 HTTP/1.1\r\nHost: a\r\n\r\n")
                        self.assertEqual(read_response(s)[-4:], b"0123")
                session = s.session if i % 2 == 0 else None
                s.close()
            # Garbage instead of a ClientHello, and a bad request; on
            # the plain port a redirect, an ACME request, a bad request.
            for p_, junk in (
                    (port, b"\x16\x03\x01\x00\x05hello"),
                    (port, b"GET / HTTP/1.1\r\n\r\n"),
                    (rport, b"GET /x HTTP/1.1\r\nHost: a\r\n\r\n"),
                    (rport, b"GET /.well-known/acme-challenge/x HTTP/1.1"
                     b"\r\nHost: a\r\n\r\n"),
                    (rport, b"GET / HTTP/1.1\r\n\r\n")):
                with socket.create_connection((LOOPBACK, p_)) as r:
                    r.sendall(junk)
                    r.settimeout(5)
                    try:
                        r.recv(100)
                    except OSError:
                        pass
            self.assertGreater(resumed, 300)
            ctx = harness.client_ctx(min_version=ssl.TLSVersion.TLSv1_3)
            session, resumed = None, 0
            for i in range(200):
                s = ctx.wrap_socket(socket.create_connection(
                    (LOOPBACK, port), timeout=10), session=session)
                s.sendall(b"GET /bytes/100 HTTP/1.1\r\nHost: a\r\n\r\n")
                self.assertEqual(read_response(s)[-4:], b"0123")
                resumed += s.session_reused
                session = s.session
                s.close()
            self.assertGreater(resumed, 150)
        finally:
            p.send_signal(signal.SIGTERM)
            rc = p.wait(timeout=30)
            log.close()
        self.assertEqual(rc, 0)
        c = counts(out)
        self.assertGreater(int(c["polls"]), 1000, c)
        self.assertEqual({k: v for k, v in c.items() if k != "polls"},
                         {"malloc": "0", "calloc": "0", "realloc": "0",
                          "memalign": "0"}, c)
