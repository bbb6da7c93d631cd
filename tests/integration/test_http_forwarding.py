# SPDX-License-Identifier: ISC
"""http mode forwarding: the headers a client could lie with are
dropped and the true X-Forwarded-For/-Proto/-Port added (each one
switchable), on IPv4 and IPv6 listeners; a WebSocket upgrade becomes a
raw relay after the backend's 101, a refused one leaves the connection
in http mode, and an upgrade that is not the first request is refused.

Runtime: about 3 s."""
import base64
import hashlib
import json
import os
import random
import struct
import time

from harness import (LOOPBACK, LOOPBACK6, GateTest, certs, close_tls,
                     deadline, free_port, free_port6, recv_to_eof,
                     tls_connect, tls_connect6)

SPOOFED = (b"X-Forwarded-For: 6.6.6.6\r\n"
           b"x-forwarded-for: 7.7.7.7, 8.8.8.8\r\n"
           b"X-Forwarded-Proto: http\r\n"
           b"X-Forwarded-Port: 1\r\n"
           b"X-Real-IP: 6.6.6.6\r\n"
           b"Forwarded: for=6.6.6.6;proto=http\r\n"
           b"X-Client-Cert-Subject: CN=admin\r\n")
SPOOFABLE = ("x-forwarded-for", "x-forwarded-proto", "x-forwarded-port",
             "x-real-ip", "forwarded", "x-client-cert-subject")


def read_head(sock, timeout=5):
    """A response head (through CRLF CRLF) and the bytes after it."""
    buf = b""
    end = deadline(timeout)
    while b"\r\n\r\n" not in buf:
        if time.monotonic() > end:
            raise TimeoutError("no response head: %r" % buf)
        b = sock.recv(1 << 16)
        if not b:
            raise AssertionError("EOF in a response head: %r" % buf)
        buf += b
    head, _, rest = buf.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def read_response(sock, timeout=5):
    """(status line, body) of a Content-Length framed response."""
    head, body = read_head(sock, timeout)
    n = 0
    for line in head.split("\r\n")[1:]:
        k, _, v = line.partition(":")
        if k.strip().lower() == "content-length":
            n = int(v)
    while len(body) < n:
        b = sock.recv(1 << 16)
        if not b:
            raise AssertionError("EOF in a response body")
        body += b
    if len(body) != n:
        raise AssertionError("bytes after the response: %r" % body[n:])
    return head.split("\r\n")[0], body


def requests_seen(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [e for e in map(json.loads, f) if e["event"] == "request"]


def forwarding_headers(event):
    """The (name, value) pairs of spoofable headers the backend got."""
    return [(k.lower(), v) for k, v in event["headers"]
            if k.lower() in SPOOFABLE]


class Headers(GateTest):

    def get_through(self, gate, connect=tls_connect, extra=SPOOFED):
        """One GET with spoofed headers; returns the backend's view."""
        s = connect(gate.port)
        try:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Before: 1\r\n" + extra +
                      b"X-After: 2\r\n\r\n")
            line, _ = read_response(s)
        finally:
            close_tls(s)
        self.assertTrue(line.startswith("HTTP/1.1 200 "), line)
        seen = requests_seen(self.log)
        self.assertEqual(len(seen), 1, seen)
        others = [k for k, _ in seen[0]["headers"]
                  if k.lower() not in SPOOFABLE]
        # Everything else is kept, in order.
        self.assertEqual(others, ["Host", "X-Before", "X-After"])
        return forwarding_headers(seen[0])

    def http_gate(self, **conf):
        self.log = os.path.join(self.tmp, "backend.log")
        return self.gate(self.backend("http", log=self.log), mode="http",
                         **conf)

    def test_spoofed_dropped_true_ones_added_on_ipv4(self):
        g = self.http_gate()
        self.assertEqual(self.get_through(g), [
            ("x-forwarded-for", LOOPBACK), ("x-forwarded-proto", "https"),
            ("x-forwarded-port", str(g.port))])

    def test_spoofed_dropped_true_ones_added_on_ipv6(self):
        g = self.v6_gate()
        self.assertEqual(self.get_through(g, tls_connect6), [
            ("x-forwarded-for", LOOPBACK6), ("x-forwarded-proto", "https"),
            ("x-forwarded-port", str(g.port))])

    def test_forwarded_port_is_the_listener_connected_to(self):
        self.log = os.path.join(self.tmp, "backend.log")
        b = self.backend("http", log=self.log)
        port4, port6 = free_port(), free_port6()
        g = self.gate_lines(b, ["listen = %s:%d" % (LOOPBACK, port4),
                                "listen = [%s]:%d" % (LOOPBACK6, port6)])
        for connect, port in ((tls_connect, port4), (tls_connect6, port6)):
            s = connect(port)
            try:
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                read_response(s)
            finally:
                close_tls(s)
        seen = requests_seen(self.log)
        self.assertEqual([dict(forwarding_headers(e))["x-forwarded-port"]
                          for e in seen], [str(port4), str(port6)])
        self.assertEqual([dict(forwarding_headers(e))["x-forwarded-for"]
                          for e in seen], [LOOPBACK, LOOPBACK6])
        self.assertEqual(len(g.wait_conns(2)), 2)

    def test_x_forwarded_for_off(self):
        g = self.http_gate(x_forwarded_for="off")
        self.assertEqual(self.get_through(g), [
            ("x-forwarded-proto", "https"),
            ("x-forwarded-port", str(g.port))])

    def test_x_forwarded_proto_off(self):
        g = self.http_gate(x_forwarded_proto="off")
        self.assertEqual(self.get_through(g), [
            ("x-forwarded-for", LOOPBACK), ("x-forwarded-port", str(g.port))])

    def test_x_forwarded_port_off(self):
        g = self.http_gate(x_forwarded_port="off")
        self.assertEqual(self.get_through(g), [
            ("x-forwarded-for", LOOPBACK), ("x-forwarded-proto", "https")])

    def test_all_off_still_drops_spoofed(self):
        g = self.http_gate(x_forwarded_for="off", x_forwarded_proto="off",
                           x_forwarded_port="off")
        self.assertEqual(self.get_through(g), [])

    def test_underscore_spellings_of_forwarding_headers_are_dropped(self):
        # CGI-style backends (RFC 3875 4.1.18) read X_Forwarded_For and
        # X-Forwarded-For as the same HTTP_X_FORWARDED_FOR variable.
        g = self.http_gate()
        self.get_through(g, extra=b"X_Forwarded_For: 6.6.6.6\r\n"
                         b"x_real_ip: 6.6.6.6\r\n"
                         b"X-Forwarded_Proto: http\r\n")
        seen = requests_seen(self.log)[0]["headers"]
        cgi = [(k.upper().replace("-", "_"), v) for k, v in seen]
        self.assertEqual([kv for kv in cgi if kv[0] in (
            "X_FORWARDED_FOR", "X_REAL_IP", "X_FORWARDED_PROTO")],
            [("X_FORWARDED_FOR", LOOPBACK), ("X_FORWARDED_PROTO", "https")])

    def v6_gate(self):
        self.log = os.path.join(self.tmp, "backend.log")
        b = self.backend("http", log=self.log)
        return self.gate_lines(b, None)

    def gate_lines(self, backend, listen):
        """tlsgate in http mode from a written file (listen repeats);
        listen None: one IPv6 listener on a free port.  Sets g.port to
        the first listener's."""
        c = certs()
        for _ in range(3):
            lines = listen or ["listen = [%s]:%d" % (LOOPBACK6, free_port6())]
            path = self.conf_file(lines + [
                "mode = http", "backend = %s" % backend.addr,
                "cert = %s" % c.path["ec.crt"],
                "key = %s" % c.path["ec.key"]] + self.tls_lines())
            g = self.gate_file(path)
            g.port = int(lines[0].rsplit(":", 1)[1])
            end = deadline(10)
            while time.monotonic() < end and g.alive() and \
                    "info: ready " not in g.log():
                time.sleep(0.02)
            if "info: ready " in g.log():
                return g
            if listen or "Address already in use" not in g.log():
                break
            g.kill()
        raise AssertionError("tlsgate did not start:\n" + g.log_tail())


# --- WebSocket ------------------------------------------------------

WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def ws_request(path, key):
    return (b"GET %s HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n" % (path, key))


def ws_frame(op, payload, rng):
    """A client frame: FIN, opcode, masked payload (RFC 6455 5.2)."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | op, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | op, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | op, 0x80 | 127, n)
    mask = rng.randbytes(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in
                               enumerate(payload))


class FrameReader:
    """Unmasked server frames off a socket, with a deadline."""

    def __init__(self, sock, pending=b""):
        self.sock, self.buf = sock, pending

    def _need(self, n, end):
        while len(self.buf) < n:
            if time.monotonic() > end:
                raise TimeoutError("frame: %d of %d bytes" % (len(self.buf),
                                                              n))
            b = self.sock.recv(1 << 16)
            if not b:
                raise AssertionError("EOF inside a frame")
            self.buf += b

    def frame(self, timeout=10):
        end = deadline(timeout)
        self._need(2, end)
        op, n, off = self.buf[0] & 0x0F, self.buf[1] & 0x7F, 2
        if self.buf[1] & 0x80:
            raise AssertionError("server frame is masked")
        if n == 126:
            self._need(4, end)
            n, off = struct.unpack("!H", self.buf[2:4])[0], 4
        elif n == 127:
            self._need(10, end)
            n, off = struct.unpack("!Q", self.buf[2:10])[0], 10
        self._need(off + n, end)
        payload = self.buf[off:off + n]
        self.buf = self.buf[off + n:]
        return op, payload


class WebSocket(GateTest):

    def setUp(self):
        super().setUp()
        self.log = os.path.join(self.tmp, "backend.log")
        self.g = self.gate(self.backend("http", log=self.log), mode="http")
        self.rng = random.Random(11)

    def upgrade(self, s, early=b""):
        """Upgrade s to a WebSocket on /ws (early: bytes sent right
        behind the request); returns a FrameReader."""
        key = base64.b64encode(self.rng.randbytes(16))
        s.sendall(ws_request(b"/ws", key) + early)
        head, rest = read_head(s)
        self.assertTrue(head.startswith("HTTP/1.1 101 "), head)
        accept = base64.b64encode(hashlib.sha1(key + WS_GUID).digest())
        self.assertIn("Sec-WebSocket-Accept: " + accept.decode(), head)
        return FrameReader(s, rest)

    def test_upgrade_relays_frames_both_ways(self):
        # Sizes cover the 7-bit, 16-bit and 64-bit length forms; one
        # payload looks like an HTTP request, which must not be parsed.
        payloads = [(1, b"hello"), (2, self.rng.randbytes(300)),
                    (2, self.rng.randbytes(70000)),
                    (1, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
                    (2, b"\r\n\r\n\x00")]
        s = tls_connect(self.g.port, timeout=10)
        try:
            rd = self.upgrade(s)
            for op, data in payloads:
                s.sendall(ws_frame(op, data, self.rng))
                self.assertEqual(rd.frame(), (op, data))
            s.sendall(ws_frame(8, b"\x03\xe8", self.rng))
            self.assertEqual(rd.frame(), (8, b"\x03\xe8"))
            self.assertEqual(rd.buf + recv_to_eof(s), b"")
        finally:
            s.close()
        self.assertEqual([e["target"] for e in requests_seen(self.log)],
                         ["/ws"])
        conn = self.g.wait_conns(1)[0]
        self.assertEqual((conn["requests"], conn["outcome"]), ("1", "ok"),
                         conn)

    def test_frame_sent_before_the_101_is_relayed_after_it(self):
        s = tls_connect(self.g.port)
        try:
            rd = self.upgrade(s, early=ws_frame(1, b"early", self.rng))
            self.assertEqual(rd.frame(), (1, b"early"))
        finally:
            close_tls(s)

    def test_refused_upgrade_leaves_connection_in_http_mode(self):
        s = tls_connect(self.g.port)
        try:
            key = base64.b64encode(self.rng.randbytes(16))
            s.sendall(ws_request(b"/chat", key))
            line, _ = read_response(s)
            self.assertTrue(line.startswith("HTTP/1.1 404 "), line)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 6.6.6.6"
                      b"\r\n\r\n")
            line, body = read_response(s)
        finally:
            close_tls(s)
        self.assertTrue(line.startswith("HTTP/1.1 200 "), line)
        self.assertIn(b"you sent: GET / HTTP/1.1", body)
        seen = requests_seen(self.log)
        self.assertEqual([e["target"] for e in seen], ["/chat", "/"])
        # The second request was parsed and rewritten, not relayed raw.
        self.assertEqual(dict(forwarding_headers(seen[1]))
                         ["x-forwarded-for"], LOOPBACK)

    def test_request_pipelined_behind_a_refused_upgrade_is_parsed(self):
        s = tls_connect(self.g.port)
        try:
            key = base64.b64encode(self.rng.randbytes(16))
            s.sendall(ws_request(b"/chat", key) +
                      b"GET / HTTP/1.1\r\nHost: x\r\nX-Real-IP: 6.6.6.6"
                      b"\r\n\r\n")
            first, _ = read_response(s)
            second, _ = read_response(s)
        finally:
            close_tls(s)
        self.assertTrue(first.startswith("HTTP/1.1 404 "), first)
        self.assertTrue(second.startswith("HTTP/1.1 200 "), second)
        seen = requests_seen(self.log)
        self.assertEqual([e["target"] for e in seen], ["/chat", "/"])
        self.assertEqual(dict(forwarding_headers(seen[1])).get("x-real-ip"),
                         None)

    def test_upgrade_after_a_first_request_gets_400(self):
        s = tls_connect(self.g.port)
        try:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            first, _ = read_response(s)
            key = base64.b64encode(self.rng.randbytes(16))
            s.sendall(ws_request(b"/ws", key))
            second, _ = read_response(s)
            rest = recv_to_eof(s)
        finally:
            s.close()
        self.assertTrue(first.startswith("HTTP/1.1 200 "), first)
        self.assertTrue(second.startswith("HTTP/1.1 400 "), second)
        self.assertEqual(rest, b"")
        self.assertEqual([e["target"] for e in requests_seen(self.log)],
                         ["/"])
        conn = self.g.wait_conns(1)[0]
        self.assertEqual((conn["status"], conn["outcome"]),
                         ("400", "upgrade-not-first"), conn)


if __name__ == "__main__":
    import unittest
    unittest.main()
