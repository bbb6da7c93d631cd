# SPDX-License-Identifier: ISC
"""workers = N: several processes, one shared session cache."""
import os
import signal
import ssl
import time
import unittest

import harness
from harness import GateTest, tls_connect, close_tls, client_ctx


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


def get(port, ctx, session=None):
    s = tls_connect(port, ctx, session=session)
    s.sendall(b"GET /bytes/10 HTTP/1.1\r\nHost: w\r\n\r\n")
    got = b""
    while not got.endswith(b"0123456789"):
        d = s.recv(4096)
        if not d:
            break
        got += d
    reused, sess = s.session_reused, s.session
    close_tls(s)
    return got, reused, sess


@unittest.skipIf("qemu" in " ".join(harness.WRAP),
                 "qemu-user emulates the workers' fork and robust futexes "
                 "too slowly or not at all")
class Workers(GateTest):
    # Sessions by ID across workers; TLS 1.3 tickets: test_tls13.py.
    TLS_MAX = "1.2"
    def start(self):
        return self.gate(self.backend("http"), mode="http", workers="2")

    def test_both_workers_serve_and_sessions_resume_on_either(self):
        g = self.start()
        ctx = client_ctx()
        _, _, sess = get(g.port, ctx)
        for _ in range(60):
            got, _, _ = get(g.port, ctx, sess)
            self.assertTrue(got.startswith(b"HTTP/1.1 200"), got)
        conns = g.wait_conns(61)
        workers = {c["worker"] for c in conns}
        self.assertEqual(workers, {"0", "1"}, "one worker got everything")
        made = conns[0]["worker"]
        resumed = [c for c in conns[1:] if c["resumed"] == "yes"]
        self.assertEqual(len(resumed), 60)
        self.assertTrue([c for c in resumed if c["worker"] != made],
                        "no resumption on the other worker")

    def test_a_killed_worker_is_replaced_and_service_goes_on(self):
        g = self.start()
        ctx = client_ctx()
        end = harness.deadline(5)
        while len(children(g.pid)) < 2:
            self.assertLess(time.monotonic(), end)
            time.sleep(0.05)
        before = children(g.pid)
        os.kill(before[0], signal.SIGKILL)
        end = harness.deadline(5)
        while True:
            now = children(g.pid)
            if len(now) == 2 and before[0] not in now:
                break
            self.assertLess(time.monotonic(), end, now)
            time.sleep(0.05)
        for _ in range(20):
            got, _, _ = get(g.port, ctx)
            self.assertTrue(got.startswith(b"HTTP/1.1 200"), got)

    def test_sigterm_ends_every_worker_and_the_parent_exits_0(self):
        g = self.start()
        get(g.port, client_ctx())
        kids = children(g.pid)
        self.assertEqual(len(kids), 2)
        g.signal(signal.SIGTERM)
        self.assertEqual(g.wait_exit(10), 0)
        for k in kids:
            self.assertFalse(os.path.exists("/proc/%d" % k),
                             "worker %d left behind" % k)

    def test_workers_end_when_the_parent_is_killed(self):
        g = self.start()
        get(g.port, client_ctx())
        kids = children(g.pid)
        self.assertEqual(len(kids), 2)
        g.kill()
        end = harness.deadline(10)
        while [k for k in kids if os.path.exists("/proc/%d/stat" % k) and
               open("/proc/%d/stat" % k).read().split()[2] != "Z"]:
            self.assertLess(time.monotonic(), end, "orphaned workers run on")
            time.sleep(0.05)
