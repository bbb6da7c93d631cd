# SPDX-License-Identifier: ISC
"""TCP half-close from the client: it sends, closes its sending side
with a bare FIN (no close_notify), and must still get every byte of the
answer, then a clean close_notify."""
from harness import (GateTest, echo_roundtrip, half_closed, http_bytes_body,
                     random_bytes, recv_to_eof, shut_tcp_write, tls_connect)


class HalfClose(GateTest):
    MODE = "tcp"


    def test_echo_after_half_close_is_complete(self):
        g = self.gate(self.backend("echo"))
        data = random_bytes(3 << 20, seed=5)
        s = tls_connect(g.port, timeout=20)
        try:
            # Shut the write side right after the last byte, while most
            # of the echo is still on its way back.
            got = echo_roundtrip(s, data, then=shut_tcp_write)
            # After the echo: a clean close_notify (SSLEOFError if not).
            rest = recv_to_eof(s)
        finally:
            s.close()
        self.assertEqual(len(got), len(data))
        self.assertEqual(got, data)
        self.assertEqual(rest, b"")
        conn = g.wait_conns(1)[0]
        self.assertEqual(conn["outcome"], "ok", conn)
        self.assertEqual(int(conn["in"]), len(data))
        self.assertEqual(int(conn["out"]), len(data))

    def test_sink_answers_after_half_close(self):
        # The backend answers only at EOF: the FIN must reach it, and
        # its answer must still reach the client.
        g = self.gate(self.backend("sink"))
        data = random_bytes(500000, seed=6)
        self.assertEqual(half_closed(g.port, data, 10), b"%d\n" % len(data))

    def test_http_response_after_half_close(self):
        n = 1 << 20
        g = self.gate(self.backend("http"))
        resp = half_closed(g.port, b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\n"
                           b"\r\n" % n, 10)
        head, _, body = resp.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 200 "), head)
        self.assertEqual(body, http_bytes_body(n))
