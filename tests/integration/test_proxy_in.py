# SPDX-License-Identifier: ISC
"""PROXY protocol in (proxy_from): a listed source's connections begin
with a v1 or v2 header, whose client address becomes the connection's
in X-Forwarded-For, the log line, max_per_source and the PROXY header to
the backend; a listed source without a valid header is closed with its
own outcome; anyone else's header is never believed.  The balancer here
is the test itself, on 127.0.0.1; the clients it names are made up.

Runtime: about 3 s."""
import json
import os
import socket
import ssl
import struct
import time

from harness import (LOOPBACK, SLOW, GateTest, check, certs, client_ctx,
                     close_tls, deadline, echo_roundtrip, free_port,
                     recv_to_eof, write_conf)
from test_proxy_protocol import ProxyBackend
from test_hostile import client_hello
from test_stats_syslog import read_stats, wait_stats
import tlswire

V2SIG = b"\r\n\r\n\x00\r\nQUIT\n"
GET = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def v1(src, dst, sport, dport):
    fam = "TCP6" if ":" in src else "TCP4"
    return ("PROXY %s %s %s %d %d\r\n" % (fam, src, dst, sport,
                                          dport)).encode()


def v2(src, dst, sport, dport, tlvs=b"", cmd=1):
    af = socket.AF_INET6 if ":" in src else socket.AF_INET
    body = socket.inet_pton(af, src) + socket.inet_pton(af, dst) + \
        struct.pack("!HH", sport, dport) + tlvs
    fam = 0x21 if af == socket.AF_INET6 else 0x11
    return V2SIG + struct.pack("!BBH", 0x20 | cmd, fam, len(body)) + body


def v2_local():
    return V2SIG + struct.pack("!BBH", 0x20, 0x00, 0)


def raw(port, source=LOOPBACK):
    s = socket.socket()
    s.settimeout(5 * SLOW)
    s.bind((source, 0))
    s.connect((LOOPBACK, port))
    return s


def tls_after(port, header, source=LOOPBACK, ctx=None, split=False):
    """A TLS client that sends header first (all at once, or a byte a
    write when split)."""
    s = raw(port, source)
    try:
        if split:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for i in range(len(header)):
                s.sendall(header[i:i + 1])
                time.sleep(0.002)
        else:
            s.sendall(header)
        return (ctx or client_ctx()).wrap_socket(
            s, server_hostname="localhost", suppress_ragged_eofs=False)
    except BaseException:
        s.close()
        raise


def get(sock):
    sock.sendall(GET)
    resp = recv_to_eof(sock)
    close_tls(sock)
    return resp


def eof_or_reset(sock, timeout=5):
    """What the gate does to a refused connection: a FIN, or a reset."""
    sock.settimeout(timeout * SLOW)
    try:
        return sock.recv(100)
    except ConnectionResetError:
        return b""


class ProxyIn(GateTest):

    def xff(self, blog):
        """X-Forwarded-For and -Port of every request the backend got."""
        out = []
        with open(blog) as f:
            for line in f:
                e = json.loads(line)
                if e["event"] == "request":
                    h = {k.lower(): v for k, v in e["headers"]}
                    out.append((h.get("x-forwarded-for"),
                                h.get("x-forwarded-port")))
        return out

    def http_gate(self, **conf):
        blog = os.path.join(self.tmp, "backend.log")
        b = self.backend("http", log=blog)
        sport = free_port()
        g = self.gate(b, mode="http", stats="%s:%d" % (LOOPBACK, sport),
                      **conf)
        return g, blog, "%s:%d" % (LOOPBACK, sport)

    def test_v1_and_v2_addresses_become_the_clients(self):
        g, blog, _ = self.http_gate(proxy_from="127.0.0.0/8 fd00::/8")
        heads = [v1("192.0.2.7", "198.51.100.1", 40001, 443),
                 v2("192.0.2.8", "198.51.100.1", 40002, 8443),
                 v1("2001:db8::7", "2001:db8::1", 40003, 443),
                 v2("2001:db8::8", "2001:db8::1", 40004, 443,
                    tlvs=b"\x02\x00\x09localhost\x04\x00\x00")]
        for h in heads:
            self.assertTrue(get(tls_after(g.port, h)).startswith(
                b"HTTP/1.1 200"))
        conns = g.wait_conns(4)
        self.assertEqual(self.xff(blog), [
            ("192.0.2.7", "443"), ("192.0.2.8", "8443"),
            ("2001:db8::7", "443"), ("2001:db8::8", "443")])
        self.assertEqual([c["peer"] for c in conns], [
            "192.0.2.7:40001", "192.0.2.8:40002", "[2001:db8::7]:40003",
            "[2001:db8::8]:40004"])
        for c in conns:
            self.assertEqual(c["outcome"], "ok")
            self.assertRegex(c["via"], r"^127\.0\.0\.1:\d+$")

    def test_header_a_byte_at_a_time_and_hello_in_the_same_write(self):
        g, blog, st = self.http_gate(proxy_from="127.0.0.1")
        s = tls_after(g.port, v2("192.0.2.9", "198.51.100.1", 1, 443),
                      split=True)
        self.assertTrue(get(s).startswith(b"HTTP/1.1 200"))
        # Header and the whole hello in one segment: a BIO client.
        inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
        obj = client_ctx().wrap_bio(inc, out, server_hostname="localhost")
        try:
            obj.do_handshake()
        except ssl.SSLWantReadError:
            pass
        r = raw(g.port)
        r.sendall(v1("192.0.2.10", "198.51.100.1", 2, 443) + out.read())
        end = deadline(5)
        while True:
            try:
                obj.do_handshake()
                break
            except ssl.SSLWantReadError:
                r.sendall(out.read())
                self.assertLess(time.monotonic(), end)
                inc.write(r.recv(65536))
        r.sendall(out.read())
        obj.write(GET)
        r.sendall(out.read())
        data = b""
        while b"hello" not in data:
            self.assertLess(time.monotonic(), end, data)
            inc.write(r.recv(65536))
            try:
                data += obj.read(65536)
            except ssl.SSLWantReadError:
                pass
        r.close()
        self.assertEqual([x[0] for x in self.xff(blog)],
                         ["192.0.2.9", "192.0.2.10"])
        self.assertEqual(read_stats(st)["proxy_in"], 2)

    def test_header_then_a_hello_longer_than_a_record(self):
        # The slot looks at such a hello in the pending table's buffer,
        # after the header it read into its own.
        g, _, _ = self.http_gate(proxy_from="127.0.0.1")
        m = tlswire.client_hello(exts=tlswire.hello_extensions() +
                                 tlswire.ext(21, bytes(40000)))
        c = tlswire.Conn(g.port)
        c.send(v1("192.0.2.11", "198.51.100.1", 3, 443) +
               b"".join(tlswire.record(tlswire.HANDSHAKE, m[i:i + 16384])
                        for i in range(0, len(m), 16384)))
        msgs = c.first_flight()
        c.close()
        self.assertEqual([t for t, _ in msgs], [2, 11, 12, 14])
        self.assertEqual(g.wait_conns(1)[0]["peer"], "192.0.2.11:3")

    def test_local_is_the_balancer_itself_and_no_error(self):
        g, blog, st = self.http_gate(proxy_from="127.0.0.1")
        # A health check: LOCAL, then the balancer closes, or resets as
        # haproxy's checks do.
        for rst in (0, 1, 1):
            s = raw(g.port)
            s.sendall(v2_local())
            if rst:
                time.sleep(0.1)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                             struct.pack("ii", 1, 0))
            s.close()
        # A LOCAL connection that goes on to speak TLS is served as the
        # balancer's own.
        self.assertTrue(get(tls_after(g.port, v2_local())).startswith(
            b"HTTP/1.1 200"))
        conns = g.wait_conns(4)
        self.assertEqual([c["outcome"] for c in conns],
                         ["proxy-local"] * 3 + ["ok"])
        self.assertEqual(self.xff(blog), [("127.0.0.1", str(g.port))])
        stats = wait_stats(st, "closed", 4)
        self.assertEqual(stats["proxy_local"], 4)
        self.assertEqual(stats["proxy_errors"], 0)
        self.assertEqual(stats["tls_errors"], 0)

    def test_listed_source_without_a_valid_header_is_closed(self):
        g, _, st = self.http_gate(proxy_from="127.0.0.1",
                                  handshake_timeout="500ms")
        cases = [
            (None, "proxy-missing"),
            (b"PROXY TCP4 192.0.2.7 198.51.100.1 1 443\n", "proxy-v1-syntax"),
            (b"PROXY TCP4 ::1 ::1 1 443\r\n", "proxy-v1-address"),
            (b"PROXY UNKNOWN " + b"x" * 100 + b"\r\n", "proxy-v1-too-long"),
            (V2SIG + b"\x22\x11\x00\x0c", "proxy-v2-version"),
            (V2SIG + b"\x21\x12\x00\x0c" + bytes(12), "proxy-v2-family"),
            (V2SIG + b"\x21\x21\x00\x0c" + bytes(12), "proxy-v2-short"),
            (V2SIG + b"\x21\x11\xff\xff", "proxy-v2-too-long"),
            (V2SIG + b"\x21\x11\x00\x0e" + bytes(12) + b"\x01\x00",
             "proxy-v2-tlv"),
        ]
        for head, outcome in cases:
            with self.subTest(outcome=outcome):
                if head is None:
                    # A plain TLS client from the balancer's address.
                    with self.assertRaises((ssl.SSLError, OSError)):
                        s = tls_after(g.port, b"")
                        s.close()
                else:
                    s = raw(g.port)
                    s.sendall(head)
                    self.assertEqual(eof_or_reset(s), b"")
                    s.close()
        # Half a header, then nothing: the hello's deadline.
        s = raw(g.port)
        s.sendall(b"PROXY TCP4 192.0")
        conns = g.wait_conns(len(cases) + 1, timeout=5)
        s.close()
        # Half a header, then EOF.
        s = raw(g.port)
        s.sendall(V2SIG[:5])
        s.close()
        conns = g.wait_conns(len(cases) + 2)
        self.assertEqual([c["outcome"] for c in conns],
                         [o for _, o in cases] + ["proxy-timeout",
                                                  "proxy-incomplete"])
        stats = wait_stats(st, "closed", len(cases) + 2)
        self.assertEqual(stats["proxy_errors"], len(cases) + 2)
        self.assertEqual(stats["proxy_in"], 0)

    def test_a_header_from_an_unlisted_source_is_never_believed(self):
        g, blog, st = self.http_gate(proxy_from="10.0.0.0/8 127.0.0.2")
        # From 127.0.0.1: the header is taken for TLS, which it is not.
        s = raw(g.port)
        s.sendall(v1("192.0.2.7", "198.51.100.1", 1, 443))
        self.assertNotIn(b"HTTP", eof_or_reset(s))
        s.close()
        s = raw(g.port)
        s.sendall(v2("192.0.2.7", "198.51.100.1", 1, 443))
        self.assertNotIn(b"HTTP", eof_or_reset(s))
        s.close()
        # Plain TLS from it is served as ever, under its own address.
        self.assertTrue(get(tls_after(g.port, b"")).startswith(
            b"HTTP/1.1 200"))
        # From the listed 127.0.0.2, the header is the client's.
        self.assertTrue(get(tls_after(g.port, v1(
            "192.0.2.7", "198.51.100.1", 1, 443), source="127.0.0.2"))
            .startswith(b"HTTP/1.1 200"))
        conns = g.wait_conns(4)
        for c in conns[:2]:
            self.assertNotEqual(c["outcome"], "ok")
            self.assertFalse(c["outcome"].startswith("proxy-"), c)
        self.assertEqual([c["peer"].rsplit(":", 1)[0] for c in conns],
                         ["127.0.0.1", "127.0.0.1", "127.0.0.1",
                          "192.0.2.7"])
        self.assertNotIn("via", conns[0])
        self.assertEqual(conns[3]["via"].rsplit(":", 1)[0], "127.0.0.2")
        self.assertEqual([x[0] for x in self.xff(blog)],
                         ["127.0.0.1", "192.0.2.7"])
        stats = read_stats(st)
        self.assertEqual(stats["tls_errors"], 2)
        self.assertEqual(stats["proxy_in"], 1)

    def test_max_per_source_counts_the_headers_client(self):
        g, blog, st = self.http_gate(proxy_from="127.0.0.1",
                                     max_per_source="1")
        # The balancer holds three connections: it is not limited.
        a = tls_after(g.port, v1("192.0.2.1", "198.51.100.1", 1, 443))
        b = tls_after(g.port, v1("192.0.2.2", "198.51.100.1", 2, 443))
        # A second one of 192.0.2.1's while its first is open: refused,
        # once its hello is whole (the limit counts slots).
        s = raw(g.port)
        s.sendall(v1("192.0.2.1", "198.51.100.1", 3, 443) + client_hello())
        self.assertEqual(eof_or_reset(s), b"")
        s.close()
        for t in (a, b):
            self.assertTrue(get(t).startswith(b"HTTP/1.1 200"))
        conns = g.wait_conns(3)
        self.assertEqual(conns[0]["outcome"], "per-source-limit")
        self.assertEqual(conns[0]["peer"], "192.0.2.1:3")
        self.assertEqual(read_stats(st)["refused"], 1)
        # Once the first has gone, the client may come again.
        self.assertTrue(get(tls_after(g.port, v1(
            "192.0.2.1", "198.51.100.1", 4, 443))).startswith(
            b"HTTP/1.1 200"))

    def test_proxy_header_to_the_backend_carries_the_client(self):
        blog = os.path.join(self.tmp, "pb.log")
        pb = ProxyBackend("echo", blog)
        self.backends.append(pb)
        g = self.gate(pb.addr, mode="tcp", proxy_protocol="v2",
                      proxy_from="127.0.0.1")
        s = tls_after(g.port, v1("192.0.2.7", "198.51.100.1", 40001, 443))
        self.assertEqual(echo_roundtrip(s, b"ping"), b"ping")
        close_tls(s)
        pb.wait_events(1)
        p = pb.events()[0]["proxy"]
        self.assertEqual((p["src"], p["sport"], p["dst"], p["dport"]),
                         ("192.0.2.7", 40001, "198.51.100.1", 443))

    def test_redirect_port_reads_the_header_too(self):
        blog = os.path.join(self.tmp, "backend.log")
        b = self.backend("http", log=blog)
        rport = free_port()
        g = self.gate(b, proxy_from="127.0.0.1", acme_passthrough="on",
                      redirect="%s:%d" % (LOOPBACK, rport),
                      handshake_timeout="500ms", head_timeout="500ms")

        def ask(head, req):
            s = raw(rport)
            s.sendall(head + req)
            s.shutdown(socket.SHUT_WR)
            got = recv_to_eof(s)
            s.close()
            return got

        # No Host: the Location's host is where the client connected.
        got = ask(v2("192.0.2.7", "198.51.100.1", 40001, 80),
                  b"GET /x HTTP/1.0\r\n\r\n")
        self.assertTrue(got.startswith(b"HTTP/1.1 308"), got)
        self.assertIn(b"Location: https://198.51.100.1:%d/x\r\n" % g.port,
                      got)
        # An ACME challenge goes to the backend with the client's address.
        got = ask(v1("192.0.2.8", "198.51.100.1", 40002, 80),
                  b"GET /.well-known/acme-challenge/t HTTP/1.1\r\n"
                  b"Host: a\r\n\r\n")
        self.assertTrue(got.startswith(b"HTTP/1.1 404"), got)
        self.assertEqual(self.xff(blog), [("192.0.2.8", None)])
        # A request without a header, and a health check.
        got = ask(b"", b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        self.assertNotIn(b"HTTP/1.1", got)
        s = raw(rport)
        s.sendall(v2_local())
        s.close()
        lines = g.wait_log(r"^tlsgate: info: plain id=.*$", count=4)
        plain = [dict(kv.split("=", 1) for kv in m.group(0).split()[2:]
                      if "=" in kv) for m in lines]
        self.assertEqual([(c["peer"], c["outcome"]) for c in plain], [
            ("192.0.2.7:40001", "redirect"), ("192.0.2.8:40002", "acme"),
            ("127.0.0.1:%s" % plain[2]["via"].rsplit(":", 1)[1],
             "proxy-missing"),
            ("127.0.0.1:%s" % plain[3]["via"].rsplit(":", 1)[1],
             "proxy-local")])
        for c in plain:
            self.assertRegex(c["via"], r"^127\.0\.0\.1:\d+$")

    def test_check_prints_the_prefixes_and_refuses_bad_ones(self):
        c = certs()
        conf = os.path.join(self.tmp, "t.conf")
        base = {"listen": "127.0.0.1:1", "cert": c.path["ec.crt"],
                "key": c.path["ec.key"]}
        write_conf(conf, dict(base, proxy_from="10.0.0.0/8, 192.0.2.7 "
                              "fd00::/8"))
        rc, out, err = check(conf)
        self.assertEqual(rc, 0, err)
        self.assertIn("proxy_from = 10.0.0.0/8 192.0.2.7 fd00::/8\n", out)
        write_conf(conf, base)
        rc, out, err = check(conf)
        self.assertIn("proxy_from = none\n", out)
        for bad, why in (("10.0.0.1/8", "address bits set past the prefix "
                          "length"), ("10.0.0.0/33", "prefix length must "
                                      "be 0 to 32"),
                         ("lb.example", "not an IPv4 or IPv6 address")):
            write_conf(conf, dict(base, proxy_from=bad))
            rc, out, err = check(conf)
            self.assertEqual(rc, 2, out)
            self.assertIn("t.conf:4: proxy_from: \"%s\": %s" % (bad, why),
                          err)
