"""One log line per connection end, with the fields the design names,
and byte counts that match what really went each way."""
import re
import socket
import time

from harness import (GateTest, close_tls, echo_roundtrip, random_bytes,
                     recv_to_eof, shut_tcp_write, tls_connect)

FIELDS = ("id", "peer", "ms", "in", "out", "resumed", "version", "suite",
          "outcome")


class ConnLog(GateTest):
    MODE = "tcp"


    def test_conn_line_has_every_field_and_true_values(self):
        g = self.gate(self.backend("echo"))
        data = random_bytes(12345, seed=9)
        s = tls_connect(g.port)
        try:
            peer = "%s:%d" % s.getsockname()
            suite = s.cipher()[0]
            version = s.version().replace("v", "")
            self.assertEqual(echo_roundtrip(s, data), data)
            time.sleep(0.25)
        finally:
            close_tls(s)
        conns = g.wait_conns(1)
        self.assertEqual(len(conns), 1)
        c = conns[0]
        for f in FIELDS:
            self.assertIn(f, c)
        self.assertEqual(c["peer"], peer)
        self.assertEqual(int(c["in"]), len(data))
        self.assertEqual(int(c["out"]), len(data))
        self.assertGreaterEqual(int(c["ms"]), 250)
        self.assertLess(int(c["ms"]), 10000)
        self.assertEqual(c["resumed"], "no")
        self.assertEqual(c["version"], version)
        self.assertEqual(c["suite"], suite)
        self.assertEqual(c["outcome"], "ok")

    def test_in_and_out_are_counted_separately(self):
        # The sink backend answers "<count>\n": in and out must differ.
        g = self.gate(self.backend("sink"))
        data = random_bytes(54321, seed=10)
        s = tls_connect(g.port)
        try:
            s.sendall(data)
            shut_tcp_write(s)
            answer = recv_to_eof(s)
        finally:
            s.close()
        self.assertEqual(answer, b"54321\n")
        c = g.wait_conns(1)[0]
        self.assertEqual(int(c["in"]), len(data))
        self.assertEqual(int(c["out"]), len(answer))

    def test_one_line_per_connection(self):
        g = self.gate(self.backend("echo"))
        ports = []
        for i in range(5):
            s = tls_connect(g.port)
            ports.append(s.getsockname()[1])
            self.assertEqual(echo_roundtrip(s, b"x" * (i + 1)), b"x" * (i + 1))
            close_tls(s)
        # A TLS failure ends with a line too.
        raw = socket.create_connection(("127.0.0.1", g.port), timeout=5)
        raw.sendall(b"\x16\x03\x03\x00\x05hello")
        try:
            raw.recv(100)
        except OSError:
            pass
        raw.close()
        conns = g.wait_conns(6)
        time.sleep(0.2)
        conns = g.conns()
        self.assertEqual(len(conns), 6)
        self.assertEqual([int(c["peer"].rsplit(":", 1)[1]) for c in conns[:5]],
                         ports)
        self.assertEqual([int(c["in"]) for c in conns[:5]], [1, 2, 3, 4, 5])
        self.assertNotEqual(conns[5]["outcome"], "ok")
        self.assertEqual(conns[5]["version"], "none")
        self.assertTrue(re.match(r"^[a-z0-9-]+$", conns[5]["outcome"]))
