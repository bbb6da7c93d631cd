# SPDX-License-Identifier: ISC
"""One log line per connection end, with the fields the design names,
and byte counts that match what really went each way."""
import fcntl
import os
import re
import select
import signal
import socket
import subprocess
import time

from harness import (BIN, LOOPBACK, SLOW, WRAP, GateTest, certs, close_tls,
                     deadline, echo_roundtrip, free_port, is_listening,
                     half_closed, random_bytes, tls_connect, write_conf)
from test_stats_syslog import read_stats

# Linux's fcntl to size a pipe (Python names it from 3.10 on).
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)

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
        answer = half_closed(g.port, data)
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


class StderrNeverBlocks(GateTest):
    """stderr is a pipe whose reader has stopped reading: the log lines
    that do not fit are dropped and counted, and clients are served as
    if nobody logged."""

    def test_a_reader_that_stops_reading_does_not_stall_the_relay(self):
        b = self.backend("echo")
        c = certs()
        port, sport = free_port(), free_port()
        conf = os.path.join(self.tmp, "t.conf")
        write_conf(conf, dict(self.tls_conf(), **{
            "listen": "%s:%d" % (LOOPBACK, port), "backend": b.addr,
            "mode": "tcp", "cert": c.path["ec.crt"], "key": c.path["ec.key"],
            "log_level": "debug", "log_rate": "0",
            "stats": "%s:%d" % (LOOPBACK, sport)}))
        rfd, wfd = os.pipe()
        # The smallest pipe Linux makes: a page, a dozen lines.
        fcntl.fcntl(wfd, F_SETPIPE_SZ, 4096)
        proc = subprocess.Popen(WRAP + [BIN, "-c", conf],
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=wfd)
        os.close(wfd)
        try:
            got = b""
            end = deadline(10)
            # The ready line itself may be dropped when a slow (loaded,
            # emulated) reader leaves the pipe full: listening will do,
            # and the probe is one more connection closed.
            probed = 0
            while b" ready " not in got:
                self.assertLess(time.monotonic(), end, got)
                r, _, _ = select.select([rfd], [], [], 0.1)
                if r:
                    got += os.read(rfd, 4096)
                elif is_listening(port):
                    probed = 1
                    break
            # From here on nobody reads: 60 connections log far more
            # than the pipe holds.
            t0 = time.monotonic()
            for i in range(60):
                s = tls_connect(port, timeout=5)
                data = b"%d" % i
                self.assertEqual(echo_roundtrip(s, data, timeout=5), data)
                close_tls(s)
            took = time.monotonic() - t0
            st = {}
            end = deadline(5)
            while st.get("closed", 0) < 60 + probed and \
                    time.monotonic() < end:
                st = read_stats("%s:%d" % (LOOPBACK, sport))
            self.assertEqual(st["closed"], 60 + probed)
            self.assertGreater(st["log_dropped"], 0)
            self.assertLess(took, 30 * SLOW)
            # What did reach the pipe is whole lines.
            os.set_blocking(rfd, False)
            try:
                while True:
                    chunk = os.read(rfd, 65536)
                    if not chunk:
                        break
                    got += chunk
            except BlockingIOError:
                pass
            for line in got.decode().splitlines(keepends=True):
                self.assertRegex(line, r"^tlsgate: [a-z]+: .*\n$")
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                rc = proc.wait(10 * SLOW)
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = proc.wait(10)
            os.close(rfd)
        self.assertEqual(rc, 0)
