# SPDX-License-Identifier: ISC
"""The bench tools work against tlsgate: tlsload's counts agree with
tlsgate's own log, soak.py passes a short run and fails on what it is
there to catch, bench.py --quick passes with its TLS 1.3 and hybrid
rows, and overload.py and slowloris.py print their rows."""
import os
import re
import shutil
import subprocess
import sys
import unittest

from harness import (BIN, ROOT, SLOW, WRAP, GateTest, run)

TLSLOAD = os.path.join(ROOT, "build", "tlsload")
SOAK = os.path.join(ROOT, "tests", "bench", "soak.py")
BENCH = os.path.join(ROOT, "tests", "bench", "bench.py")
OVERLOAD = os.path.join(ROOT, "tests", "bench", "overload.py")
SLOWLORIS = os.path.join(ROOT, "tests", "bench", "slowloris.py")
NODE24 = os.environ.get("TLSGATE_NODE24",
                        os.path.join(ROOT, "build", "node24", "bin", "node"))
sys.path.insert(0, os.path.dirname(SOAK))
import soak  # noqa: E402


def report(out):
    return {k: v for k, v in (line.split("=", 1) for line in
            out.decode().splitlines() if "=" in line and " " not in line)}


@unittest.skipUnless(os.access(TLSLOAD, os.X_OK), "build/tlsload not built")
class Tlsload(GateTest):

    def test_counts_agree_with_tlsgate_log(self):
        # log_rate: one line for each of ~1,000 connections in a second.
        g = self.gate(self.backend("http"), mode="http", log_rate=0)
        csv = os.path.join(self.tmp, "load.csv")
        rc, out, err = run([TLSLOAD, "--url", "https://127.0.0.1:%d/" %
                            g.port, "--conns", "4", "--duration", "1",
                            "--requests-per-conn", "2", "--tls-reuse", "50",
                            "--csv", csv], 30)
        self.assertEqual(rc, 0, err)
        kv = report(out)
        conns, resumed = int(kv["conns"]), int(kv["resumed"])
        self.assertGreater(conns, 10, kv)
        self.assertEqual(kv["errors"], "0", kv)
        # A connection still in flight at the end may stop short of its
        # second request: at most one per --conns.
        self.assertLessEqual(int(kv["requests"]), 2 * conns, kv)
        self.assertGreaterEqual(int(kv["requests"]), 2 * conns - 8, kv)
        # Half offer a session; only those after the first full one can
        # be resumed.
        self.assertGreaterEqual(resumed, conns // 2 - 4, kv)
        self.assertLessEqual(resumed, conns // 2 + 1, kv)
        logged = g.wait_conns(conns)
        self.assertEqual(len(logged), conns)
        self.assertEqual(sum(c["resumed"] == "yes" for c in logged), resumed)
        with open(csv) as f:
            rows = [line.split(",") for line in f.readlines()[1:]]
        self.assertEqual(sum(int(r[1]) for r in rows), conns)

    def test_full_handshakes_only_when_reuse_is_zero(self):
        g = self.gate(self.backend("http"), mode="http", log_rate=0)
        rc, out, err = run([TLSLOAD, "--url", "https://127.0.0.1:%d/" %
                            g.port, "--conns", "2", "--duration", "0.5",
                            "--requests-per-conn", "0", "--tls-reuse", "0"],
                           30)
        self.assertEqual(rc, 0, err)
        kv = report(out)
        self.assertGreater(int(kv["conns"]), 0, kv)
        self.assertEqual(kv["resumed"], "0", kv)
        logged = g.wait_conns(int(kv["conns"]))
        self.assertFalse([c for c in logged if c["resumed"] != "no"])


def sample(second, rss, fds, other, hw=5, hs=100, res=50):
    return (second, rss, fds, other, {"high_water": hw, "handshakes": hs,
                                      "resumed": res})


class SoakVerdict(unittest.TestCase):
    """soak.py's assertions, on made-up figures."""

    GOOD = {"errors": "0", "conns": "1000"}

    def judge(self, kv=None, first=2.0, last=2.0, at=None, end=None,
              worst=None, peer=None):
        at = at or sample(10, 10000, 4, 4)
        end = end or sample(60, 10000, 4, 4)
        return soak.verdict(kv or self.GOOD, first, last, at, end, True,
                            45000, soak.FLOOR_MS, worst, peer)

    def test_clean_run_passes(self):
        self.assertEqual(self.judge(), [])

    def test_errors_fail(self):
        self.assertTrue(self.judge({"errors": "3", "conns": "1000"}))

    def test_p99_growth_above_the_floor_fails(self):
        self.assertTrue(self.judge(first=20.0, last=22.5))
        self.assertEqual(self.judge(first=20.0, last=21.5), [])

    def test_p99_above_nginx_fails(self):
        self.assertTrue(self.judge(worst=30.0, peer=24.0))
        self.assertEqual(self.judge(worst=28.0, peer=24.0), [])
        self.assertEqual(self.judge(worst=soak.FLOOR_MS - 1, peer=2.0), [])

    def test_p99_growth_below_the_floor_is_noise(self):
        self.assertEqual(self.judge(first=1.0, last=soak.FLOOR_MS - 1), [])

    def test_leaked_descriptor_fails(self):
        self.assertTrue(self.judge(end=sample(60, 10000, 5, 5)))
        self.assertTrue(self.judge(end=sample(60, 10000, 6, 4)))

    def test_rss_growth_fails_unless_new_slots_explain_it(self):
        self.assertTrue(self.judge(end=sample(60, 10100, 4, 4)))
        self.assertEqual(self.judge(end=sample(60, 10100, 4, 4, hw=8)), [])


@unittest.skipUnless(os.access(TLSLOAD, os.X_OK), "build/tlsload not built")
@unittest.skipIf(WRAP, "soak.py runs tlsgate unwrapped")
@unittest.skipIf(os.environ.get("TLSGATE_ASAN"),
                 "its RSS rule would judge ASan's runtime, which maps pages "
                 "as it goes: the plain run's job")
class SoakRun(unittest.TestCase):

    def test_short_soak_passes_and_prints_its_figures(self):
        # 3 s windows of 50 conns/s say nothing about latency drift (the
        # verdict tests above cover that rule): a floor of 1 s turns it off.
        out = os.path.join(ROOT, "build", "soak-smoke")
        p = subprocess.run([sys.executable, SOAK, "--bin", BIN, "--duration",
                            "6", "--window", "3", "--rate", "50",
                            "--floor-ms", "1000", "--peer", "nginx,haproxy",
                            "--out", out], capture_output=True,
                           timeout=60 * SLOW)
        text = p.stdout.decode()
        self.assertEqual(p.returncode, 0, text + p.stderr.decode())
        self.assertRegex(text, r"soak: p99 first 3 s [\d.]+ ms, last 3 s")
        if shutil.which("nginx"):
            self.assertRegex(text, r"soak: p99 of the worst 3 s: tlsgate "
                             r"[\d.]+ ms, nginx [\d.]+ ms")
        # Each window's row: 5 figures for each server.
        peers = [n for n in ("nginx", "haproxy") if shutil.which(n)]
        row = re.search(r"^soak:    3 s [* ] (.*)$", text, re.M)
        self.assertTrue(row, text)
        self.assertEqual(len(row.group(1).split()), 5 * (1 + len(peers)),
                         row.group(0))
        # The pool: each of the 300 requests took a backend connection,
        # a new one or a pooled one (a retry takes another), and the pool
        # handed some back.  How many were new depends on how many
        # overlapped, which a busy machine decides.
        m = re.search(r"soak: backend connects (\d+), reused (\d+)", text)
        self.assertTrue(m, text)
        connects, reused = int(m.group(1)), int(m.group(2))
        self.assertGreaterEqual(connects + reused, 300, text)
        self.assertTrue(connects >= 1 and reused >= 1, text)
        self.assertRegex(text, r"soak: rss at 3 s \d+ kB, at end \d+ kB")
        self.assertRegex(text, r"soak: fds at 3 s \d+ ")
        self.assertIn("soak: tlsgate: 300 conns, 150 resumed, 0 errors",
                      text)
        self.assertRegex(text, r"soak: tlsgate, quiet seconds \(\d+, steal "
                         r"[\d.]+ ticks/s\): p50 ")
        files = ["samples.csv"]
        if peers:
            # The load went to each in turn: a segment of each a window.
            # A peer may miss its first resumption on a busy machine
            # (its session not stored yet when the client comes back).
            for n in peers:
                m = re.search(r"soak: %s: 300 conns, (\d+) resumed, 0 errors"
                              % n, text)
                self.assertTrue(m and int(m.group(1)) >= 140, text)
            files += ["segments/%s-%04d.%s" % (n, k, e) for n in
                      ["tlsgate"] + peers for k in (0, 1)
                      for e in ("csv", "hist")]
        else:
            files += ["tlsgate.csv", "tlsgate.svg", "tlsgate.hist"]
        for f in files:
            self.assertTrue(os.path.getsize(os.path.join(out, f)) > 0, f)


@unittest.skipUnless(all(os.access(os.path.join(ROOT, "build", b), os.X_OK)
                         for b in ("tlsload", "cryptobench")),
                     "build/tlsload or build/cryptobench not built")
@unittest.skipUnless(all(map(shutil.which, ("nginx", "wrk", "strace",
                                            "taskset"))),
                     "nginx, wrk, strace or taskset missing")
@unittest.skipIf(WRAP, "bench.py runs build/tlsgate unwrapped")
@unittest.skipIf(os.environ.get("TLSGATE_ASAN"),
                 "bench.py measures build/tlsgate: the plain run's job")
@unittest.skipUnless(os.cpu_count() >= 2, "bench.py pins cores 0 and 1")
class BenchQuick(unittest.TestCase):

    def test_quick_bench_passes_with_tls13_and_hybrid_rows(self):
        out = os.path.join(ROOT, "build", "bench-smoke")
        p = subprocess.run([sys.executable, BENCH, "--quick", "--only",
                            "tlsgate", "--soak-seconds", "10", "--out", out],
                           capture_output=True, timeout=600 * SLOW)
        text = p.stdout.decode() + p.stderr.decode()
        # Exit 1 when a check failed (errors, a 1.3 run not resumed...).
        self.assertEqual(p.returncode, 0, text)
        with open(os.path.join(out, "results.md")) as f:
            rows = dict(re.findall(r"^\| (TLS 1\.3 [^|]+?) \| ([^|]*) \|$",
                                   f.read(), re.M))
        for what in ("full handshakes/s", "server CPU us / full handshake",
                     "server CPU us / resumed handshake",
                     "server CPU us / keep-alive request", "MB/s"):
            got = [v for k, v in rows.items()
                   if k.startswith("TLS 1.3 " + what)]
            self.assertEqual(len(got), 1, (what, rows))
            self.assertRegex(got[0], r"^\d+(\.\d+)?$", what)
            self.assertGreater(float(got[0]), 0, what)
        # The bulk rows: each suite and version, and the ChaCha20 choice.
        with open(os.path.join(out, "results.md")) as f:
            bulk = dict(re.findall(r"^\| (bulk [^|]+?) \| ([^|]*) \|$",
                                   f.read(), re.M))
        for what in ("bulk AES-128-GCM: TLS 1.2 / TLS 1.3",
                     "bulk ChaCha20-Poly1305: TLS 1.2 / TLS 1.3",
                     "bulk ChaCha20-Poly1305, TLS 1.3: BearSSL's default / "
                     "tlsgate's choice"):
            self.assertRegex(bulk.get(what, ""), r"^\d+\.\d\d$", (what, bulk))
            self.assertGreater(float(bulk[what]), 0, what)
        # The hybrid rows (Node 24), each served over its own group: the
        # exit status above says tlsgate logged every one over it.
        with open(os.path.join(out, "results.md")) as f:
            md = f.read()
        if not os.access(NODE24, os.X_OK):
            self.assertIn("Hybrid rows skipped: no Node 24 at", md)
            return
        self.assertIn("Debian 12's OpenSSL 3.0, which has no ML-KEM", md)
        for curve, group in (("X25519", "x25519"),
                             ("X25519MLKEM768", "x25519mlkem768"),
                             ("SecP256r1MLKEM768", "secp256r1mlkem768"),
                             ("SecP384r1MLKEM1024", "secp384r1mlkem1024")):
            m = re.search(r"^\| %s \| (\d+) \| (\d+) \| ([\d.]+) \| "
                          r"[\d.]+ \| %s (\d+) of (\d+) \|$" % (curve, group),
                          md, re.M)
            self.assertTrue(m, (curve, md))
            self.assertTrue(all(int(m.group(i)) > 0 for i in (1, 2, 4)), m)
            self.assertEqual(m.group(4), m.group(5), m.group(0))


@unittest.skipUnless(os.access(TLSLOAD, os.X_OK), "build/tlsload not built")
@unittest.skipIf(WRAP or os.environ.get("TLSGATE_ASAN"),
                 "they measure build/tlsgate: the plain run's job")
@unittest.skipUnless(os.cpu_count() >= 2, "they pin cores 0 and 1")
class OverloadTools(unittest.TestCase):

    def test_overload_prints_a_row_for_each_multiple(self):
        # Two-second steps judge nothing: the rows, not the verdict.
        p = subprocess.run([sys.executable, OVERLOAD, "--bin", BIN,
                            "--tlsload", TLSLOAD, "--servers", "tlsgate",
                            "--seconds", "2", "--probe-seconds", "2",
                            "--step", "40", "--rsa-bits", "2048", "--out",
                            os.path.join(ROOT, "build", "overload-smoke")],
                           capture_output=True, timeout=300 * SLOW)
        text = p.stdout.decode()
        rows = re.findall(r"(?m)^\| tlsgate \| ([\d.]+) C \| (\d+) \| (\d+) "
                          r"\|", text)
        self.assertEqual([m for m, _, _ in rows], ["0.8", "1.0", "1.5", "3.0"],
                         text + p.stderr.decode())
        self.assertTrue(all(int(done) > 0 for _, _, done in rows), text)

    def test_slowloris_probe_passes_with_slots_64(self):
        p = subprocess.run([sys.executable, SLOWLORIS, "--bin", BIN,
                            "--conns", "500", "--hold", "3"],
                           capture_output=True, timeout=120 * SLOW)
        text = p.stdout.decode()
        self.assertEqual(p.returncode, 0, text + p.stderr.decode())
        self.assertRegex(text, r"pending 500 \(high 50\d\), slots live 0")
