# SPDX-License-Identifier: ISC
"""Nothing a client sends changes how the next client is served.

Each test runs tlsgate with one slot, so that every connection reuses
the same TLS context, and compares what a plain client gets on a fresh
slot (the ServerHello's extensions, and the largest record of a 200 KB
response) with what it gets after an unusual or hostile client: a
max_fragment_length of each size, a server name, ALPN, non-empty
renegotiation_info, a failed handshake, a resumed session, a client
certificate.  Once, one client's max_fragment_length reached every later
ServerHello on its slot, and every later client failed."""
import os
import socket
import ssl
import time

from harness import (GateTest, certs, client_ctx, deadline, free_port,
                     run, tls_connect)
from tlswire import (ALERT, HANDSHAKE, HANDSHAKE_FAILURE, Conn,
                     client_hello, plain_alert, record,
                     server_hello_extensions)

SUITE = "ECDHE-ECDSA-AES128-GCM-SHA256"
BIG = 200000
FULL_GCM_RECORD = 16384 + 8 + 16    # explicit nonce, tag


def raw_hello(port, **kw):
    """Send a hand-made hello; the server's first flight."""
    c = Conn(port)
    try:
        c.send(record(HANDSHAKE, client_hello(**kw), b"\x03\x01"))
        return c.first_flight()
    finally:
        c.close()


def largest_record(port, ctx=None):
    """GET a BIG response with a real client on a raw socket; the length
    of the largest application-data record the server sent."""
    ctx = ctx or client_ctx(ciphers=SUITE,
                            max_version=ssl.TLSVersion.TLSv1_2)
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="localhost")
    raw, body, end = b"", b"", deadline(20)
    req = b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    sent = False
    try:
        while True:
            try:
                if not sent:
                    obj.do_handshake()
                    obj.write(req % BIG)
                    sent = True
                got = b"-"
                while got:
                    got = obj.read(1 << 16)
                    body += got
            except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
                pass
            sock.sendall(out.read())
            b = sock.recv(1 << 16)
            if not b:
                break
            raw += b
            inc.write(b)
            if time.monotonic() > end:
                raise TimeoutError("response not complete")
    finally:
        sock.close()
    assert len(body) > BIG, "short response: %d bytes" % len(body)
    sizes, p = [], 0
    while p + 5 <= len(raw):
        n = int.from_bytes(raw[p + 3:p + 5], "big")
        if raw[p] == 23:
            sizes.append(n)
        p += 5 + n
    return max(sizes)


class SlotReuse(GateTest):

    def setUp(self):
        super().setUp()
        self.b = self.backend("http")
        self.g = self.gate(self.b, mode="http", slots="1")
        self.fresh = self.fingerprint()

    def fingerprint(self, port=None):
        port = port or self.g.port
        msgs = raw_hello(port)
        sh = [body for t, body in msgs if t == 2]
        self.assertTrue(sh, "no ServerHello to a plain hello")
        return server_hello_extensions(sh[0]), largest_record(port)

    def assert_as_fresh(self, after, port=None):
        self.assertEqual(self.fingerprint(port), self.fresh,
                         "after %s the next client is served differently"
                         % after)

    def test_fresh_slot_sends_full_records_and_no_extra_extension(self):
        exts, largest = self.fresh
        self.assertEqual(largest, FULL_GCM_RECORD)
        self.assertNotIn(1, [t for t, _ in exts])
        self.assert_as_fresh("a plain client")

    def test_max_fragment_length_of_each_size_stays_with_its_client(self):
        for code in (1, 2, 3, 4):
            msgs = raw_hello(self.g.port, mfl=code)
            exts = server_hello_extensions(
                [b for t, b in msgs if t == 2][0])
            self.assertIn((1, bytes([code])), exts,
                          "max_fragment_length %d not granted" % code)
            self.assert_as_fresh("max_fragment_length %d" % (256 << code))

    def test_openssl_maxfraglen_then_curl_is_served(self):
        for size in ("512", "1024", "2048", "4096"):
            rc, out, err = run(["openssl", "s_client", "-connect",
                                "127.0.0.1:%d" % self.g.port, "-tls1_2",
                                "-maxfraglen", size], 20, stdin=b"")
            self.assertEqual(rc, 0, err.decode())
            rc, out, err = run(["curl", "-sSk", "https://127.0.0.1:%d/" %
                                self.g.port], 20)
            self.assertEqual(rc, 0, "curl after -maxfraglen %s: %s" %
                             (size, err.decode()))
        self.assert_as_fresh("openssl s_client -maxfraglen")

    def test_server_name_and_alpn_stay_with_their_client(self):
        raw_hello(self.g.port, sni="other.example",
                  alpn=["h2", "http/1.1"])
        self.assert_as_fresh("a server name and ALPN")
        raw_hello(self.g.port, alpn=["nothing-we-speak"])
        self.assert_as_fresh("an unknown ALPN protocol")

    def test_failed_handshakes_leave_nothing_behind(self):
        # Non-empty renegotiation_info in a first hello: refused.
        c = Conn(self.g.port)
        c.send(record(HANDSHAKE, client_hello(reneg=b"\x01" * 12,
                                              mfl=1)))
        recs, end = c.ending()
        c.close()
        self.assertEqual(plain_alert(recs[-1] if recs else None),
                         (2, HANDSHAKE_FAILURE))
        self.assertEqual(end, "fin")
        self.assert_as_fresh("a refused renegotiation_info")
        # A hello, then a record of a type TLS does not have.
        c = Conn(self.g.port)
        c.send(record(HANDSHAKE, client_hello(mfl=2, sni="x.example")) +
               record(99, b"junk"))
        recs, end = c.ending()
        c.close()
        self.assertEqual(recs[-1][0], ALERT)
        self.assertEqual(end, "fin")
        self.assert_as_fresh("a record of an unknown type")

    def test_resumed_session_leaves_nothing_behind(self):
        ctx = client_ctx(max_version=ssl.TLSVersion.TLSv1_2)
        s = tls_connect(self.g.port, ctx)
        sess = s.session
        s.close()
        s = tls_connect(self.g.port, ctx, session=sess)
        self.assertTrue(s.session_reused)
        s.close()
        self.assert_as_fresh("a resumed session")


class SlotReuseClientCert(GateTest):
    """One slot shared by a client_ca service and a plain one."""

    def test_client_certificate_service_leaves_nothing_behind(self):
        d = self.tmp
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
              "-nodes"]
        p = lambda n: os.path.join(d, n)  # noqa: E731
        for args in (["req", "-x509"] + ec + ["-keyout", p("ca.key"),
                      "-out", p("ca.crt"), "-days", "2", "-subj", "/CN=ca"],
                     ["req"] + ec + ["-keyout", p("c.key"), "-out",
                      p("c.csr"), "-subj", "/CN=client"],
                     ["x509", "-req", "-in", p("c.csr"), "-CA", p("ca.crt"),
                      "-CAkey", p("ca.key"), "-set_serial", "7", "-days",
                      "2", "-out", p("c.crt")]):
            rc, _, err = run(["openssl"] + args, 60)
            self.assertEqual(rc, 0, err.decode())
        b = self.backend("http")
        plain, mtls = free_port(), free_port()
        c = certs()
        conf = self.conf_file([
            "slots = 1", "mode = http", "backend = " + b.addr,
            "cert = " + c.path["ec.crt"], "key = " + c.path["ec.key"],
            *self.tls_lines(), "[plain]", "listen = 127.0.0.1:%d" % plain,
            "[mtls]", "listen = 127.0.0.1:%d" % mtls,
            "client_ca = " + p("ca.crt")])
        g = self.gate_file(conf)
        g.wait_log(r"info: ready ")
        fresh = (server_hello_extensions(
            [x for t, x in raw_hello(plain) if t == 2][0]),
            largest_record(plain))
        ctx = client_ctx(ciphers=SUITE, max_version=ssl.TLSVersion.TLSv1_2)
        ctx.load_cert_chain(p("c.crt"), p("c.key"))
        self.assertEqual(largest_record(mtls, ctx), FULL_GCM_RECORD)
        after = (server_hello_extensions(
            [x for t, x in raw_hello(plain) if t == 2][0]),
            largest_record(plain))
        self.assertEqual(after, fresh, "a client certificate on the "
                         "other service changed the next client's hello")
