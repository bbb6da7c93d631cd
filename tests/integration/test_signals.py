# SPDX-License-Identifier: ISC
"""SIGTERM drains: no new clients, live ones may finish within
drain_timeout, then exit 0.  SIGUSR1 logs the counters."""
import re
import signal
import socket
import time

from harness import (LOOPBACK, SLOW, GateTest, close_tls, echo_roundtrip,
                     recv_exact, tls_connect)
from test_stats_syslog import COUNTERS


def refused(port):
    with socket.socket() as s:
        s.settimeout(2)
        try:
            s.connect((LOOPBACK, port))
        except ConnectionRefusedError:
            return True
        return False


class Signals(GateTest):
    MODE = "tcp"


    def test_sigterm_lets_live_connection_finish_then_exits_0(self):
        g = self.gate(self.backend("echo"), drain_timeout="20s")
        s = tls_connect(g.port)
        try:
            self.assertEqual(echo_roundtrip(s, b"before"), b"before")
            g.signal(signal.SIGTERM)
            g.wait_log(r"^tlsgate: info: draining live=1 ")
            self.assertTrue(refused(g.port), "new connects still accepted")
            time.sleep(0.3)
            self.assertTrue(g.alive(), "exited with a live connection")
            self.assertEqual(echo_roundtrip(s, b"during drain"),
                             b"during drain")
        finally:
            close_tls(s)
        t0 = time.monotonic()
        rc = g.wait_exit(5)
        self.assertEqual(rc, 0, g.log_tail())
        # It ended because the connection did, long before 20 s.
        self.assertLess(time.monotonic() - t0, 3 * SLOW)
        conns = g.conns()
        self.assertEqual(len(conns), 1)
        self.assertEqual(conns[0]["outcome"], "ok")
        self.assertEqual(int(conns[0]["in"]), len(b"beforeduring drain"))
        self.assertRegex(g.log(), r"(?m)^tlsgate: info: exit$")

    def test_sigterm_drain_timeout_ends_stuck_connection(self):
        g = self.gate(self.backend("echo"), drain_timeout="1s")
        s = tls_connect(g.port)
        try:
            self.assertEqual(echo_roundtrip(s, b"idle"), b"idle")
            t0 = time.monotonic()
            g.signal(signal.SIGTERM)
            rc = g.wait_exit(5)
            waited = time.monotonic() - t0
        finally:
            s.close()
        self.assertEqual(rc, 0, g.log_tail())
        self.assertGreater(waited, 0.8)
        self.assertLess(waited, 3 * SLOW)
        self.assertEqual(g.conns()[0]["outcome"], "drain-timeout")

    def test_sigterm_when_idle_exits_0_at_once(self):
        g = self.gate(self.backend("echo"))
        t0 = time.monotonic()
        g.signal(signal.SIGTERM)
        self.assertEqual(g.wait_exit(5), 0)
        self.assertLess(time.monotonic() - t0, 1.0 * SLOW)

    def test_sigterm_during_traffic_is_never_lost(self):
        # A signal that lands between the loop's flag check and its next
        # poll() must still stop it; aim SIGTERM at a busy loop that then
        # goes idle, several times.
        for i in range(10):
            g = self.gate(self.backend("echo") if i == 0 else
                          self.backends[0])
            s = tls_connect(g.port)
            try:
                s.sendall(b"y" * 100)
                g.signal(signal.SIGTERM)
                self.assertEqual(recv_exact(s, 100), b"y" * 100)
            except (OSError, AssertionError):
                pass    # the drain may end the connection first
            finally:
                s.close()
            rc = g.wait_exit(3)
            self.assertEqual(rc, 0, "try %d: no exit 3 s after SIGTERM:\n%s"
                             % (i, g.log_tail()))

    def test_sigusr1_logs_stats_line(self):
        g = self.gate(self.backend("echo"))
        for i in range(3):
            s = tls_connect(g.port)
            self.assertEqual(echo_roundtrip(s, b"%d" % i), b"%d" % i)
            close_tls(s)
        live = tls_connect(g.port)
        try:
            g.wait_conns(3)
            g.signal(signal.SIGUSR1)
            m = g.wait_log(r"^tlsgate: info: stats (.*)$")[0]
        finally:
            close_tls(live)
        stats = dict(kv.split("=") for kv in m.group(1).split())
        # The whole line: every counter, the last one too, not cut.
        for name in COUNTERS + ("turns", "slow_logs"):
            self.assertIn(name, stats)
        self.assertEqual(stats["accepted"], "4")
        self.assertEqual(stats["closed"], "3")
        self.assertEqual(stats["live"], "1")
        self.assertEqual(stats["handshakes"], "4")
        self.assertEqual(stats["resumed"], "0")
        self.assertEqual(stats["tls_errors"], "0")
        self.assertTrue(g.alive(), "SIGUSR1 stopped tlsgate")
        self.assertFalse(re.search(r"(?m)^tlsgate: info: draining",
                                   g.log()))
