# SPDX-License-Identifier: ISC
"""The loop's turn histogram (src/turn.h): the stats give the p99, p99.9
and longest turn since the last report, and what the longest one did.
A preloaded shim (tests/turns/slowturn.c) makes the turn that accepts
the first client sleep; the stats must show that turn, and the next
report must no longer hold it."""
import os
import subprocess
from unittest import mock

import harness
from harness import SLOW, GateTest, close_tls, echo_roundtrip, tls_connect
from test_stats_syslog import read_stats

# Built for the binary's target beside it (make's $(B)), else the host's.
SHIM = os.path.join(os.path.dirname(harness.BIN), "slowturn.so")
if not os.path.exists(SHIM):
    SHIM = os.path.join(harness.ROOT, "build", "slowturn.so")


def preloadable(path):
    """Only a dynamic binary (one with an .interp section) takes a shim."""
    with open(path, "rb") as f:
        return b"\0.interp\0" in f.read()


# Far beyond any turn of one handshake, even under the sanitizers.
SLEEP_MS = int(400 * SLOW)
TURN_FIELDS = ("turns", "turn_p99_us", "turn_p999_us", "turn_max_us",
               "slow_polled", "slow_io", "slow_costly", "slow_served",
               "slow_accepts", "slow_expired", "slow_handshakes",
               "slow_closed", "slow_cache", "slow_logs")


class Turns(GateTest):
    MODE = "tcp"

    def slowed_gate(self, stats):
        """tlsgate under the shim: its first accept takes SLEEP_MS."""
        if not preloadable(harness.BIN):
            self.skipTest("a static binary takes no preloaded shim")
        if not os.path.exists(SHIM):
            subprocess.run(["make", "-s", "-C", harness.ROOT,
                            "build/slowturn.so"], check=True, timeout=120)
        # A sanitizer build's runtime need not come first: the shim
        # only forwards accept4.
        env = {"LD_PRELOAD": SHIM, "SLOWTURN_MS": str(SLEEP_MS),
               "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") +
               ":verify_asan_link_order=0"}
        b = self.backend("echo")    # native, and not stalled
        with mock.patch.dict(os.environ, env):
            return self.gate(b, stats=stats)

    def one_client(self, g):
        s = tls_connect(g.port)
        self.assertEqual(echo_roundtrip(s, b"turn"), b"turn")
        close_tls(s)

    def test_a_slow_turn_shows_in_the_stats(self):
        addr = "unix:" + os.path.join(self.tmp, "stats.sock")
        g = self.slowed_gate(addr)
        self.one_client(g)
        st = read_stats(addr)
        for name in TURN_FIELDS:
            self.assertIn(name, st)
        self.assertGreaterEqual(st["turn_max_us"], SLEEP_MS * 1000)
        # Fewer than a thousand turns: the p99.9 is the slowest one's
        # bucket, whose upper bound is within 25 % above it.
        self.assertLess(st["turns"], 1000)
        self.assertGreaterEqual(st["turn_p999_us"], st["turn_max_us"])
        self.assertLessEqual(st["turn_p999_us"], st["turn_max_us"] * 1.25)
        # That turn accepted the client, and put it in the poll table.
        self.assertEqual(st["slow_accepts"], 1)
        self.assertGreaterEqual(st["slow_polled"], 1)
        self.assertEqual(st["slow_costly"], 0)
        self.assertGreater(st["turns"], 2)
        # The report started a new period: the stall is gone from it.
        self.one_client(g)
        st = read_stats(addr)
        self.assertLess(st["turn_max_us"], SLEEP_MS * 1000)
        self.assertLess(st["turn_p999_us"], SLEEP_MS * 1000)
        self.assertEqual(st["accepted"], 2)

    def test_no_turn_stalls_without_the_shim(self):
        addr = "unix:" + os.path.join(self.tmp, "stats.sock")
        g = self.gate(self.backend("echo"), stats=addr)
        self.one_client(g)
        st = read_stats(addr)
        self.assertGreater(st["turns"], 2)
        self.assertLess(st["turn_max_us"], SLEEP_MS * 1000)
        self.assertGreaterEqual(st["turn_p999_us"], st["turn_p99_us"])
