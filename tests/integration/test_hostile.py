# SPDX-License-Identifier: ISC
"""Hostile clients: slowloris floods, connect/close storms, garbage
ClientHellos, one source hogging slots.  tlsgate must keep serving real
clients, never evict an established connection, and leave no memory or
descriptor behind.  About 20 s in all, 12 s of it the slowloris flood
(paced by the clock, not by the machine); under valgrind the storms are
scaled down."""
import os
import random
import re
import resource
import select
import signal
import socket
import ssl
import subprocess
import sys
import time

from harness import (LOOPBACK, SLOW, WRAP, BioClient, GateTest, client_ctx,
                     close_tls, deadline, echo_roundtrip, tls_connect)


def client_hello():
    """The bytes of a real ClientHello (Python's OpenSSL, TLS 1.2)."""
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = client_ctx().wrap_bio(inc, out, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()


def raise_fd_limit(want):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want:
        top = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def stats(g):
    """SIGUSR1, then the stats line it logs, as a dict."""
    pattern = r"^tlsgate: info: stats (.*)$"
    nth = len(re.findall(pattern, g.log(), re.M)) + 1
    g.signal(signal.SIGUSR1)
    m = g.wait_log(pattern, count=nth)[nth - 1]
    return {k: int(v) for k, v in (kv.split("=") for kv in
                                    m.group(1).split())}


class LogCounter:
    """Counts per-connection log lines as they are appended, reading
    only what is new (the log grows to thousands of lines here)."""

    def __init__(self, path):
        self.path, self.off, self.n, self.part = path, 0, 0, b""
        self.outcomes = {}

    def poll(self):
        with open(self.path, "rb") as f:
            f.seek(self.off)
            data = f.read()
        self.off += len(data)
        lines = (self.part + data).split(b"\n")
        self.part = lines.pop()
        for line in lines:
            if line.startswith(b"tlsgate: info: conn id="):
                self.n += 1
                m = re.search(rb" outcome=(\S+)", line)
                key = m.group(1).decode() if m else "?"
                self.outcomes[key] = self.outcomes.get(key, 0) + 1
        return self.n

    def wait(self, n, timeout=10):
        end = deadline(timeout)
        while self.poll() < n:
            if time.monotonic() > end:
                raise AssertionError("%d of %d conn lines after %.0fs" % (
                    self.n, n, timeout * SLOW))
            time.sleep(0.005)


def curl_get(port, path):
    """A background curl GET: Popen whose stdout ends up as
    "status size seconds"."""
    return subprocess.Popen(
        ["curl", "-sk", "--max-time", "%d" % (10 * SLOW), "-o",
         os.devnull, "-w", "%{http_code} %{size_download} %{time_total}",
         "https://%s:%d%s" % (LOOPBACK, port, path)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def connect_from(ip, port, timeout=5):
    """A TLS client whose socket is bound to source address ip."""
    raw = socket.socket()
    raw.settimeout(timeout * SLOW)
    try:
        raw.bind((ip, 0))
        raw.connect((LOOPBACK, port))
        return client_ctx().wrap_socket(raw, server_hostname="localhost")
    except BaseException:
        raw.close()
        raise


def closed_at_once(port, seconds):
    """Connect and send a hello; (closed by the peer, EOF or RST, within
    seconds?, the client's port).  The reset may even beat the send."""
    s = socket.socket()
    try:
        s.bind((LOOPBACK, 0))
        mine = s.getsockname()[1]
        s.settimeout(seconds)
        try:
            s.connect((LOOPBACK, port))
            s.sendall(client_hello())
            return s.recv(1) == b"", mine
        except ConnectionResetError:
            return True, mine
        except socket.timeout:
            return False, mine
    finally:
        s.close()


class Slowloris(GateTest):

    FLOOD = 2000
    PACE = 200          # connections opened per second
    TRICKLE = 2.5       # seconds between two bytes of one connection
    SLOTS = 64
    PENDING = 1000      # half the flood: the oldest entries are evicted

    def test_real_clients_served_within_half_a_second_during_slowloris(self):
        if raise_fd_limit(self.FLOOD + 256) < self.FLOOD + 256:
            self.skipTest("cannot open %d descriptors" % self.FLOOD)
        # A long handshake timeout: only the pending table can save the day.
        g = self.gate(self.backend("http"), mode="http", slots=self.SLOTS,
                      pending=self.PENDING, handshake_timeout="60s",
                      head_timeout="60s")
        hello = client_hello()
        socks = {}      # fd -> [socket, bytes sent, next send time]
        pl = select.poll()
        probes, latencies, reset_seen, opened = [], [], 0, 0
        rnd = random.Random(2000)
        t0 = time.monotonic()
        next_probe = t0 + 1.5
        end_open = t0 + self.FLOOD / self.PACE
        stop = end_open + 2.0   # one more probe after the last is open
        try:
            while time.monotonic() < stop:
                now = time.monotonic()
                # Open at a steady pace: as many as the clock says.
                due = min(self.FLOOD, int((now - t0) * self.PACE) + 1)
                while opened < due:
                    s = socket.socket()
                    s.setblocking(False)
                    s.connect_ex((LOOPBACK, g.port))
                    socks[s.fileno()] = [s, 0, now + rnd.uniform(
                        0, self.TRICKLE)]
                    pl.register(s.fileno(), select.POLLIN)
                    opened += 1
                # One byte of the ClientHello from each whose time came.
                for fd, st in list(socks.items()):
                    if st[2] <= now and st[1] < len(hello):
                        try:
                            if st[0].send(hello[st[1]:st[1] + 1]) == 1:
                                st[1] += 1
                        except BlockingIOError:
                            pass
                        except OSError:
                            reset_seen += 1
                            pl.unregister(fd)
                            socks.pop(fd)[0].close()
                            continue
                        st[2] = now + self.TRICKLE
                # Evicted ones are reset by tlsgate: reap them.
                for fd, _ in pl.poll(10):
                    if fd in socks:
                        reset_seen += 1
                        pl.unregister(fd)
                        socks.pop(fd)[0].close()
                if now >= next_probe and (not probes or
                                          probes[-1][0].poll() is not None):
                    probes.append((curl_get(g.port, "/bytes/1000"), now))
                    next_probe = now + 2.0
                for p, started in probes:
                    if p.returncode is None and p.poll() is not None:
                        latencies.append((p.stdout.read().decode(),
                                          time.monotonic() - started))
                if time.monotonic() > t0 + 60 * SLOW:
                    break
            for p, started in probes:
                if p.returncode is None:
                    try:
                        p.wait(10 * SLOW)
                        latencies.append((p.stdout.read().decode(),
                                          time.monotonic() - started))
                    except subprocess.TimeoutExpired:
                        p.kill()
                        p.wait(5)
                        latencies.append(("timeout 0 0", 99.0))
            st = stats(g)
        finally:
            for p, _ in probes:
                if p.poll() is None:
                    p.kill()
                    p.wait(5)
                p.stdout.close()
            for s, _, _ in socks.values():
                s.close()
        self.assertGreaterEqual(len(latencies), 4, latencies)
        for out, _ in latencies:
            code, size, took = out.split()
            self.assertEqual(code, "200", latencies)
            self.assertEqual(int(size), 1000, latencies)
            self.assertLess(float(took), 0.5 * SLOW, latencies)
        # The flood took no slot: it filled the pending table, whose
        # oldest entries made the room.
        self.assertLessEqual(st["high_water"], 4, st)
        self.assertEqual(st["pending_high"], self.PENDING, st)
        self.assertGreaterEqual(st["evicted"], self.FLOOD - self.PENDING -
                                100, st)
        self.assertGreaterEqual(reset_seen, self.FLOOD - self.PENDING - 100)
        self.assertTrue(g.alive())
        print("\n    slowloris: %d opened, %d evicted, curl seconds %s" % (
            opened, st["evicted"], " ".join(o.split()[2] for o, _ in
                                            latencies)), file=sys.stderr)


class Overload(GateTest):
    """More whole hellos at once than the CPU can answer in time: the
    oldest are shed (outcome=shed) once the queue has stood, the others
    answered within the bound, and none is left hanging."""

    BURST = 400         # RSA-2048 signatures: about 0.6 s of one core

    def test_a_burst_past_capacity_is_shed_not_queued(self):
        if raise_fd_limit(self.BURST + 256) < self.BURST + 256:
            self.skipTest("cannot open %d descriptors" % self.BURST)
        g = self.gate(self.backend("echo"), cert="rsa", mode="tcp",
                      tls_max="1.2")
        hello = client_hello()
        socks, sent = [], {}
        try:
            for _ in range(self.BURST):
                s = socket.create_connection((LOOPBACK, g.port))
                s.setblocking(False)
                socks.append(s)
            for s in socks:
                s.sendall(hello)
                sent[s.fileno()] = time.monotonic()
            pl, waits, shed = select.poll(), [], 0
            for s in socks:
                pl.register(s.fileno(), select.POLLIN)
            left, end = len(socks), deadline(30)
            by_fd = {s.fileno(): s for s in socks}
            while left and time.monotonic() < end:
                for fd, _ in pl.poll(100):
                    try:
                        data = by_fd[fd].recv(5)
                    except ConnectionResetError:
                        data = b""
                    if data[:1] == b"\x16":
                        waits.append(time.monotonic() - sent[fd])
                    else:
                        shed += 1
                    pl.unregister(fd)
                    left -= 1
            self.assertEqual(left, 0, "clients neither answered nor closed")
        finally:
            for s in socks:
                s.close()
        st = stats(g)
        self.assertGreater(st["shed"], 0, st)
        self.assertEqual(st["shed"], shed, st)
        self.assertGreater(len(waits), 0)
        # TLSGATE_QUEUE_MAX_MS (250) in the queue, then its own handshake
        # behind the turn's others.
        self.assertLess(max(waits), 0.6 * SLOW, sorted(waits)[-5:])
        self.assertEqual(len(re.findall(r"outcome=shed$", g.log(), re.M)),
                         shed)
        s = tls_connect(g.port)
        try:
            self.assertEqual(echo_roundtrip(s, b"after"), b"after")
        finally:
            close_tls(s)
        print("\n    overload: %d hellos, %d answered (slowest %.0f ms), "
              "%d shed" % (self.BURST, len(waits), 1000 * max(waits), shed),
              file=sys.stderr)


class Residue(GateTest):
    """Storms of short-lived connections: afterwards resident memory and
    open descriptors are what they were at idle."""

    SLOTS = 16          # every slot gets used in the warm-up

    def idle_gate(self):
        b = self.backend("echo", log=os.path.join(self.tmp, "b.log"))
        g = self.gate(b, mode="tcp", slots=self.SLOTS, log_rate=0)
        return g, b, LogCounter(g.log_path)

    def storm_connect_close(self, g, lc, n, batch=100):
        for i in range(0, n, batch):
            for _ in range(min(batch, n - i)):
                s = socket.socket()
                s.settimeout(5 * SLOW)
                s.connect((LOOPBACK, g.port))
                s.close()
            lc.wait(lc.n + min(batch, n - i), timeout=20)

    def assert_back_to_idle(self, g, lc, idle_fds, rss, what):
        """rss: (at start-up, after the warm-up) in kB."""
        time.sleep(0.1)     # let the last close settle
        rss_after = g.rss_kb()
        self.assertEqual(open_fds(g.pid), idle_fds, what)
        if not WRAP:
            # Valgrind's own heap grows with what it sees; not ours.
            self.assertLessEqual(rss_after, rss[1] + 64, "%s: RSS %d kB "
                                 "-> %d kB" % (what, rss[1], rss_after))
        print("\n    %s: RSS %d kB at start, %d kB after warm-up, %d kB "
              "after; fds %d; %s" % (what, rss[0], rss[1], rss_after,
                                     idle_fds, lc.outcomes), file=sys.stderr)

    def test_5000_connect_close_leave_rss_and_fds_at_idle(self):
        g, b, lc = self.idle_gate()
        idle_fds, rss0 = open_fds(g.pid), g.rss_kb()
        n = 5000 // (10 if WRAP else 1)
        self.storm_connect_close(g, lc, 500 // (10 if WRAP else 1))
        rss_before = g.rss_kb()
        self.storm_connect_close(g, lc, n)
        self.assertTrue(g.alive())
        self.assert_back_to_idle(g, lc, idle_fds, (rss0, rss_before),
                                 "%d connect/close" % n)
        self.assertEqual(set(lc.outcomes), {"client-eof-in-handshake"},
                         lc.outcomes)
        # Still serving.
        s = tls_connect(g.port)
        try:
            self.assertEqual(echo_roundtrip(s, b"after"), b"after")
        finally:
            close_tls(s)

    def garbage(self, rnd, hello):
        """One hostile first flight, chosen by rnd."""
        kind = rnd.randrange(7)
        if kind == 0:       # noise
            return rnd.randbytes(rnd.randint(1, 600))
        if kind == 1:       # a real hello cut short
            return hello[:rnd.randint(1, len(hello) - 1)]
        if kind == 2:       # a real hello with a few bytes flipped
            b = bytearray(hello)
            for _ in range(rnd.randint(1, 4)):
                b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
            return bytes(b)
        if kind == 3:       # a record header promising too much
            return b"\x16\x03\x01" + rnd.choice(
                [b"\xff\xff", b"\x48\x01", b"\x00\x00"]) + hello[5:]
        if kind == 4:       # SSLv2-style hello
            return b"\x80\x2e\x01\x03\x01" + rnd.randbytes(45)
        if kind == 5:       # application data before any handshake
            return b"\x17\x03\x03\x00\x20" + rnd.randbytes(32)
        # plain HTTP on the TLS port
        return b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"

    def test_1000_garbage_hellos_leave_rss_and_fds_at_idle(self):
        g, b, lc = self.idle_gate()
        idle_fds, rss0 = open_fds(g.pid), g.rss_kb()
        hello = client_hello()
        rnd = random.Random(1000)
        n = 1000 // (5 if WRAP else 1)

        def flight(count):
            for _ in range(count):
                s = socket.socket()
                s.settimeout(5 * SLOW)
                try:
                    s.connect((LOOPBACK, g.port))
                    try:
                        s.sendall(self.garbage(rnd, hello))
                        s.shutdown(socket.SHUT_WR)
                        # tlsgate has judged it when it closes.
                        while s.recv(65536):
                            pass
                    except (ConnectionResetError, BrokenPipeError,
                            OSError):
                        pass    # it may reset before all is sent
                finally:
                    s.close()
        warm = 200 // (5 if WRAP else 1)
        flight(warm)
        lc.wait(warm)
        rss_before = g.rss_kb()
        flight(n)
        lc.wait(warm + n, timeout=20)
        self.assertTrue(g.alive())
        self.assert_back_to_idle(g, lc, idle_fds, (rss0, rss_before),
                                 "%d garbage hellos" % n)
        self.assertNotIn("ok", lc.outcomes)
        # No byte of garbage ever reached the backend.
        self.assertFalse(os.path.exists(b.log) and os.path.getsize(b.log),
                         "the backend got a connection")
        s = tls_connect(g.port)
        try:
            self.assertEqual(echo_roundtrip(s, b"after"), b"after")
        finally:
            close_tls(s)


class PerSource(GateTest):

    N = 3

    def held_gate(self):
        g = self.gate(self.backend("echo"), mode="tcp", slots=16,
                      max_per_source=self.N)
        held = []
        for i in range(self.N):
            s = tls_connect(g.port)
            self.assertEqual(echo_roundtrip(s, b"%d" % i), b"%d" % i)
            held.append(s)
        return g, held

    def test_connection_past_the_limit_closed_at_once_other_ip_served(self):
        g, held = self.held_gate()
        try:
            t0 = time.monotonic()
            closed, port = closed_at_once(g.port, 2 * SLOW)
            self.assertTrue(closed, "connection %d from one IP not closed" %
                            (self.N + 1))
            self.assertLess(time.monotonic() - t0, 1.0 * SLOW)
            # The limit counts slots: it is applied to a whole hello.
            g.wait_log(r"^tlsgate: info: conn id=- .* peer=127\.0\.0\.1:%d "
                       r".* outcome=per-source-limit$" % port)
            other = connect_from("127.0.0.2", g.port)
            try:
                self.assertEqual(echo_roundtrip(other, b"other"), b"other")
            finally:
                close_tls(other)
            for i, s in enumerate(held):
                self.assertEqual(echo_roundtrip(s, b"x%d" % i), b"x%d" % i)
        finally:
            for s in held:
                close_tls(s)
        conns = g.wait_conns(self.N + 2)
        self.assertEqual(sorted(c["outcome"] for c in conns),
                         ["ok"] * (self.N + 1) + ["per-source-limit"])
        self.assertIn("127.0.0.2", " ".join(c["peer"] for c in conns))

    def test_slot_released_under_the_limit_lets_the_source_in_again(self):
        g, held = self.held_gate()
        try:
            close_tls(held.pop())
            g.wait_conns(1)
            s = tls_connect(g.port)
            held.append(s)
            self.assertEqual(echo_roundtrip(s, b"again"), b"again")
        finally:
            for s in held:
                close_tls(s)
        self.assertNotIn("per-source-limit", g.log())


class Eviction(GateTest):
    """With every slot taken, a new client evicts the slot that has
    waited longest (at least 1 s) for a handshake or request head."""

    def full_of_silent(self, g, n):
        silent = []
        for _ in range(n):
            silent.append(socket.create_connection((LOOPBACK, g.port),
                                                   timeout=5 * SLOW))
        return silent

    def test_fifth_client_evicts_the_oldest_unfinished_handshake(self):
        g = self.gate(self.backend("echo"), mode="tcp", slots=4,
                      handshake_timeout="30s")
        # A silent client takes no slot (pend.h); one that stops after
        # its hello does.
        silent = self.full_of_silent(g, 10)
        stalled = []
        for _ in range(4):
            stalled.append(BioClient(g.port))
            stalled[-1].send_hello()
        first = "127.0.0.1:%d" % stalled[0].sock.getsockname()[1]
        silent += [b.sock for b in stalled]
        try:
            end = deadline(5)
            while stats(g)["live"] < 4:
                self.assertLess(time.monotonic(), end, "4 slots not taken")
                time.sleep(0.05)
            time.sleep(1.2)
            t0 = time.monotonic()
            s = tls_connect(g.port, timeout=5)
            try:
                self.assertEqual(echo_roundtrip(s, b"real"), b"real")
            finally:
                close_tls(s)
            took = time.monotonic() - t0
            conns = g.wait_conns(2)
        finally:
            for s in silent:
                s.close()
        self.assertLess(took, 1.0 * SLOW)
        self.assertEqual(conns[0]["outcome"], "evicted", conns)
        self.assertEqual(conns[0]["peer"], first, "not the oldest evicted")
        self.assertEqual(conns[1]["outcome"], "ok", conns)
        self.assertEqual([c["outcome"] for c in conns].count("evicted"), 1)

    def test_partial_request_head_is_evictable_in_http_mode(self):
        g = self.gate(self.backend("http"), mode="http", slots=4,
                      head_timeout="30s")
        slow = []
        try:
            for _ in range(4):
                s = tls_connect(g.port)
                s.sendall(b"GET / HTTP/1.1\r\nHost: loc")
                slow.append(s)
            time.sleep(1.2)
            p = curl_get(g.port, "/bytes/100")
            out, _ = p.communicate(timeout=15 * SLOW)
            code, size, took = out.decode().split()
            conns = g.wait_conns(2)
        finally:
            for s in slow:
                s.close()
        self.assertEqual((code, size), ("200", "100"))
        self.assertLess(float(took), 1.0 * SLOW)
        self.assertEqual([c["outcome"] for c in conns], ["evicted", "ok"])

    def test_established_connections_are_never_evicted(self):
        g = self.gate(self.backend("echo"), mode="tcp", slots=4)
        held = []
        try:
            for i in range(4):
                s = tls_connect(g.port)
                self.assertEqual(echo_roundtrip(s, b"%d" % i), b"%d" % i)
                held.append(s)
            time.sleep(1.2)
            fifth = BioClient(g.port)
            try:
                fifth.send_hello()
                self.assertFalse(fifth.readable(1.5), "a fifth client was "
                                 "served with 4 established connections")
                for i, s in enumerate(held):
                    self.assertEqual(echo_roundtrip(s, b"still %d" % i),
                                     b"still %d" % i)
                self.assertNotIn("outcome=evicted", g.log())
                # It was only waiting: a slot that frees lets it in.
                close_tls(held.pop(0))
                fifth.handshake(5)
                fifth.send(b"fifth")
                self.assertEqual(fifth.recv_exact(5), b"fifth")
            finally:
                fifth.close()
        finally:
            for s in held:
                close_tls(s)
        self.assertEqual(stats(g)["evicted"], 0)
