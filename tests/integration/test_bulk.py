# SPDX-License-Identifier: ISC
"""Volume and backpressure: 100 MB each way byte-exact, and a slow
reader must not make tlsgate buffer what the backend sends."""
import hashlib
import random
import time

from harness import GateTest, close_tls, pump, tls_connect

MB = 1 << 20


class Bulk(GateTest):
    MODE = "tcp"


    def test_100mb_each_way_byte_exact(self):
        total, chunk = 100 * MB, 256 * 1024
        g = self.gate(self.backend("echo"))
        s = tls_connect(g.port, timeout=30)
        sent, recv = hashlib.sha256(), hashlib.sha256()
        got = []

        def blocks():
            # Pseudo-random, never repeating: a misplaced record or a
            # duplicated buffer cannot hash the same.
            rnd = random.Random(0x7159a7e)
            for _ in range(total // chunk):
                block = rnd.randbytes(chunk)
                sent.update(block)
                yield block

        def received(b):
            recv.update(b)
            got.append(len(b))

        t0 = time.monotonic()
        try:
            pump(s, blocks(), total, received, timeout=120)
        finally:
            close_tls(s)
        secs = time.monotonic() - t0
        self.assertEqual(sum(got), total)
        self.assertEqual(recv.hexdigest(), sent.hexdigest())
        conn = g.wait_conns(1)[0]
        self.assertEqual(int(conn["in"]), total)
        self.assertEqual(int(conn["out"]), total)
        print("    100 MB each way in %.1fs" % secs, flush=True)

    def test_slow_reader_does_not_grow_memory(self):
        n = 1 << 30  # far more than any buffer on the way
        g = self.gate(self.backend("http"))
        s = tls_connect(g.port, rcvbuf=32768, timeout=10)
        try:
            s.sendall(b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\n\r\n" % n)
            got = len(s.recv(16384))
            time.sleep(0.3)
            base = g.rss_kb()
            peak = base
            end = time.monotonic() + 3.0
            while time.monotonic() < end:
                got += len(s.recv(16384))
                peak = max(peak, g.rss_kb())
                time.sleep(0.05)
        finally:
            s.close()
        conn = g.wait_conns(1)[0]
        print("    VmRSS %d -> %d kB; client read %d, tlsgate out=%s" % (
            base, peak, got, conn["out"]), flush=True)
        self.assertLess(peak - base, 1024, "VmRSS grew from %d kB to %d kB"
                        % (base, peak))
        # Backpressure reached the backend: tlsgate read from it about
        # what the client took plus socket buffers, not the whole body.
        self.assertLess(int(conn["out"]) - got, 16 * MB, conn)
        self.assertLess(got, 8 * MB)
