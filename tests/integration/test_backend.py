# SPDX-License-Identifier: ISC
"""The backend is down, then comes up: the client is closed cleanly and
at once, never left hanging; the next client after the backend starts
is served."""
import ssl
import time

from harness import (SLOW, GateTest, close_tls, echo_roundtrip, free_port,
                     tls_connect)


class BackendDown(GateTest):
    MODE = "tcp"


    def test_backend_down_closes_cleanly_then_recovers(self):
        port = free_port()  # nothing listens there yet
        g = self.gate("127.0.0.1:%d" % port, connect_timeout="3s")
        s = tls_connect(g.port, timeout=5)
        t0 = time.monotonic()
        try:
            try:
                data = s.recv(100)  # b"": close_notify
            except ssl.SSLError as e:  # an alert
                data = e
            waited = time.monotonic() - t0
        finally:
            s.close()
        # An SSLEOFError would be a bare TCP close; a timeout a hang.
        self.assertNotIsInstance(data, ssl.SSLEOFError)
        if not isinstance(data, ssl.SSLError):
            self.assertEqual(data, b"")
        self.assertLess(waited, 2.0 * SLOW)
        conns = g.wait_conns(1)
        self.assertEqual(conns[0]["outcome"], "backend-refused", conns[0])
        self.assertEqual(conns[0]["version"],
                         "TLS1.3" if self.tls13 else "TLS1.2")
        self.backend("echo", port=port)
        s = tls_connect(g.port)
        try:
            self.assertEqual(echo_roundtrip(s, b"back up"), b"back up")
        finally:
            close_tls(s)
        self.assertEqual(g.wait_conns(2)[1]["outcome"], "ok")

    def test_backend_reset_mid_stream_closes_client(self):
        # The backend goes away while a client is connected: the client
        # sees the end of the stream, not a hang.
        b = self.backend("echo")
        g = self.gate(b)
        s = tls_connect(g.port, timeout=5)
        try:
            self.assertEqual(echo_roundtrip(s, b"x" * 1000), b"x" * 1000)
            b.stop()
            t0 = time.monotonic()
            try:
                data = s.recv(100)
            except ssl.SSLError as e:
                data = e
            waited = time.monotonic() - t0
        finally:
            s.close()
        self.assertNotIsInstance(data, ssl.SSLEOFError)
        self.assertLess(waited, 2.0 * SLOW)
        self.assertEqual(len(g.wait_conns(1)), 1)
