# SPDX-License-Identifier: ISC
"""The loop's turn histogram (src/turn.h): the stats give the p99, p99.9
and longest turn since the last report, and what the longest one did.
A test build's hook (tlsgate-hooks, beside the binary under test) makes
the turn that accepts the first client sleep; the stats must show that
turn, and the next report must no longer hold it."""
import os
from unittest import mock

import harness
from harness import (BIN, SLOW, GateTest, close_tls, echo_roundtrip,
                     tls_connect)
from test_stats_syslog import read_stats

HOOKS = BIN + "-hooks"
# Far beyond any turn of one handshake, even under the sanitizers.
SLEEP_MS = int(400 * SLOW)
TURN_FIELDS = ("turns", "turn_p99_us", "turn_p999_us", "turn_max_us",
               "slow_polled", "slow_io", "slow_costly", "slow_served",
               "slow_accepts", "slow_expired", "slow_handshakes",
               "slow_closed", "slow_cache", "slow_logs")


class Turns(GateTest):
    MODE = "tcp"

    def hooked_gate(self, binary, stats):
        """tlsgate (binary) with the slow-turn hook asked for."""
        env = dict(os.environ, TLSGATE_TEST_SLOW_TURN_MS=str(SLEEP_MS))
        with mock.patch.object(harness, "BIN", binary), \
                mock.patch.dict(os.environ, env):
            return self.gate(self.backend("echo"), stats=stats)

    def one_client(self, g):
        s = tls_connect(g.port)
        self.assertEqual(echo_roundtrip(s, b"turn"), b"turn")
        close_tls(s)

    def test_a_slow_turn_shows_in_the_stats(self):
        self.assertTrue(os.access(HOOKS, os.X_OK),
                        "%s missing: make builds it beside tlsgate" % HOOKS)
        addr = "unix:" + os.path.join(self.tmp, "stats.sock")
        g = self.hooked_gate(HOOKS, addr)
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

    def test_a_production_build_has_no_hook(self):
        addr = "unix:" + os.path.join(self.tmp, "stats.sock")
        g = self.hooked_gate(BIN, addr)
        self.one_client(g)
        st = read_stats(addr)
        self.assertGreater(st["turns"], 2)
        self.assertLess(st["turn_max_us"], SLEEP_MS * 1000)
        self.assertGreaterEqual(st["turn_p999_us"], st["turn_p99_us"])
