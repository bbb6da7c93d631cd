# SPDX-License-Identifier: ISC
"""Operations: the stats socket (TCP or Unix) answers counters that match
the traffic; log = syslog sends "<PRI>tlsgate[PID]: level: ..." datagrams
with the configured facility, rate-limited by log_rate; the sysvinit
script starts, reloads, checks and stops tlsgate; the systemd unit
verifies."""
import ctypes
import os
import re
import select
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import threading
import unittest

import harness
import time

from harness import (BIN, LOOPBACK, ROOT, SLOW, GateTest, certs, client_ctx,
                     close_tls,
                     deadline, echo_roundtrip, free_port, run, tls_connect,
                     write_conf)

FACILITIES = {"user": 1, "daemon": 3, "auth": 4, "authpriv": 10,
              "local0": 16, "local1": 17, "local2": 18, "local3": 19,
              "local4": 20, "local5": 21, "local6": 22, "local7": 23}
# Linux's SO_TIMESTAMP (Python does not name it): a struct timeval with
# each datagram, taken when the kernel queued it.
SO_TIMESTAMP = getattr(socket, "SO_TIMESTAMP", 29)
# The names loop.c answers, as docs/guide.md lists them.
COUNTERS = ("accepted", "closed", "live", "high_water", "handshakes",
            "handshakes_full", "resumed", "cache_hits", "cache_misses",
            "cache_saves", "tls_errors", "timeouts", "backend_errors",
            "backend_connects", "backend_reused", "backend_retries",
            "http_errors", "evicted", "refused", "redirects",
            "acme_forwarded", "tls13", "hrr", "tickets", "ticket_hits",
            "ticket_misses", "bytes_in",
            "bytes_out", "log_dropped", "proxy_in", "proxy_local",
            "proxy_errors", "precomp_hits", "precomp_misses")


def stats_get(addr, target="/stats"):
    """GET target from a stats socket ("ip:port" or "unix:/path"), read
    to EOF; returns (status line, body text)."""
    path = target
    if addr.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX)
        target = addr[5:]
    else:
        s = socket.socket()
        host, port = addr.rsplit(":", 1)
        target = (host, int(port))
    s.settimeout(5 * SLOW)
    data = b""
    try:
        s.connect(target)
        s.sendall(b"GET %s HTTP/1.0\r\n\r\n" % path.encode())
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode("ascii"), body.decode("utf-8")


def read_stats(addr):
    """The counters at GET /stats as {name: value}, after checking the
    answer's status and every line's shape."""
    status, text = stats_get(addr)
    if status != "HTTP/1.1 200 OK":
        raise AssertionError("stats answered %r" % status)
    if not text.endswith("\n"):
        raise AssertionError("stats text does not end a line: %r" % text)
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([a-z0-9_]+) (\d+)$", line)
        if not m:
            raise AssertionError("not a \"name value\" line: %r" % line)
        out[m.group(1)] = int(m.group(2))
    return out


def wait_stats(addr, name, value, timeout=5):
    end = deadline(timeout)
    while True:
        st = read_stats(addr)
        if st.get(name) == value or time.monotonic() > end:
            return st
        time.sleep(0.02)


class Stats(GateTest):

    def test_tcp_stats_socket_counts_what_the_test_did(self):
        addr = "%s:%d" % (LOOPBACK, free_port())
        g = self.gate(self.backend("echo"), mode="tcp", stats=addr)
        sent = 0
        # A session ID from right after the handshake: TLS 1.2.
        ctx = client_ctx(max_version=ssl.TLSVersion.TLSv1_2)
        s = tls_connect(g.port, ctx)
        sess = s.session
        for n in (100, 200):
            if s is None:
                s = tls_connect(g.port, ctx)
            self.assertEqual(len(echo_roundtrip(s, b"x" * n)), n)
            sent += n
            close_tls(s)
            s = None
        # A resumption, with a session from the first connection.
        s = tls_connect(g.port, ctx, session=sess)
        self.assertTrue(s.session_reused)
        self.assertEqual(echo_roundtrip(s, b"y" * 50), b"y" * 50)
        sent += 50
        close_tls(s)
        live = tls_connect(g.port)
        try:
            self.assertEqual(echo_roundtrip(live, b"z" * 10), b"z" * 10)
            g.wait_conns(3)
            st = wait_stats(addr, "closed", 3)
        finally:
            close_tls(live)
        for name in COUNTERS:
            self.assertIn(name, st)
        self.assertEqual(st["accepted"], 4)
        self.assertEqual(st["live"], 1)
        self.assertGreaterEqual(st["high_water"], 1)
        self.assertEqual(st["handshakes"], 4)
        self.assertEqual(st["handshakes_full"], 3)
        self.assertEqual(st["resumed"], 1)
        self.assertEqual(st["cache_hits"], 1)
        self.assertEqual(st["tls_errors"], 0)
        # Bytes are counted when a connection ends.
        self.assertEqual(st["bytes_in"], sent)
        self.assertEqual(st["bytes_out"], sent)
        st = wait_stats(addr, "closed", 4)
        self.assertEqual(st["live"], 0)
        self.assertEqual(st["bytes_in"], sent + 10)
        self.assertEqual(st["bytes_out"], sent + 10)

    def test_unix_stats_socket_answers_the_same_counters(self):
        addr = "unix:" + os.path.join(self.tmp, "stats.sock")
        g = self.gate(self.backend("echo"), mode="tcp", stats=addr)
        before = read_stats(addr)
        self.assertEqual(before["accepted"], 0)
        for i in range(3):
            s = tls_connect(g.port)
            self.assertEqual(echo_roundtrip(s, b"%d" % i), b"%d" % i)
            close_tls(s)
        g.wait_conns(3)
        st = wait_stats(addr, "closed", 3)
        for name in COUNTERS:
            self.assertIn(name, st)
        self.assertEqual(st["accepted"], 3)
        self.assertEqual(st["handshakes_full"], 3)
        self.assertEqual(st["bytes_in"], 3)
        self.assertEqual(st["live"], 0)
        # Reading the stats is no connection of its own.
        self.assertEqual(read_stats(addr)["accepted"], 3)

    def test_slow_stats_reader_does_not_stall_the_gate(self):
        # A stats client that connects and never reads must not stop
        # TLS clients from being served.
        sport = free_port()
        g = self.gate(self.backend("echo"), mode="tcp",
                      stats="%s:%d" % (LOOPBACK, sport))
        idle = []
        for _ in range(4):
            idle.append(socket.create_connection((LOOPBACK, sport),
                                                 timeout=5))
        try:
            s = tls_connect(g.port, timeout=3)
            self.assertEqual(echo_roundtrip(s, b"served", timeout=3),
                             b"served")
            close_tls(s)
        finally:
            for c in idle:
                c.close()


class SyslogSink:
    """A Unix datagram socket standing in for /dev/log.  A thread keeps
    reading it (the kernel queue holds only a few datagrams) and keeps
    each one with the kernel's receive timestamp."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMP, 1)
        self.sock.bind(path)
        self.lines = []     # (kernel time, text)
        self.lock = threading.Lock()
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        end = time.monotonic() + 300
        while not self.stopping and time.monotonic() < end:
            r, _, _ = select.select([self.sock], [], [], 0.05)
            if not r:
                continue
            data, anc, _, _ = self.sock.recvmsg(4096, 64)
            ts = time.time()
            for level, kind, val in anc:
                if level == socket.SOL_SOCKET and \
                        kind == SO_TIMESTAMP:
                    sec, usec = struct.unpack("@ll", val[:struct.calcsize(
                        "@ll")])
                    ts = sec + usec / 1e6
            with self.lock:
                self.lines.append((ts, data.decode("utf-8", "replace")))

    def texts(self):
        with self.lock:
            return [t for _, t in self.lines]

    def wait(self, pattern, timeout=5, count=1):
        end = deadline(timeout)
        while True:
            found = [m for m in (re.search(pattern, t) for t in self.texts())
                     if m]
            if len(found) >= count:
                return found
            if time.monotonic() > end:
                raise AssertionError("no %d x /%s/ in syslog:\n%s" % (
                    count, pattern, "\n".join(self.texts()[-20:])))
            time.sleep(0.02)

    def stop(self):
        self.stopping = True
        self.thread.join(5)
        self.sock.close()


class Syslog(GateTest):

    def sink(self):
        s = SyslogSink(os.path.join(self.tmp, "log.sock"))
        self.addCleanup(s.stop)
        return s

    def syslog_gate(self, sink, backend, **extra):
        """tlsgate logging to sink; waits for its ready line there."""
        c = certs()
        for i in range(3):
            port = free_port()
            conf = {"listen": "%s:%d" % (LOOPBACK, port), "mode": "tcp",
                    "backend": backend.addr, "cert": c.path["ec.crt"],
                    "key": c.path["ec.key"], "log": "syslog",
                    "syslog_socket": sink.path, **self.tls_conf()}
            conf.update(extra)
            path = os.path.join(self.tmp, "syslog%d.conf" % i)
            write_conf(path, conf)
            g = self.gate_file(path)
            g.port = port
            try:
                sink.wait(r"tlsgate\[%d\]: info: ready " % g.pid, 10)
                return g
            except AssertionError:
                if g.alive() or "Address already in use" not in \
                        "".join(sink.texts()):
                    raise
        self.fail("no free port in 3 tries")

    def test_lines_are_syslog_datagrams_with_facility_and_pid(self):
        sink = self.sink()
        g = self.syslog_gate(sink, self.backend("echo"),
                             syslog_facility="local3")
        s = tls_connect(g.port)
        self.assertEqual(echo_roundtrip(s, b"logged"), b"logged")
        close_tls(s)
        m = sink.wait(r"^<158>tlsgate\[(\d+)\]: info: conn id=\d+ "
                      r"(?:\S+ )*svc=default .*outcome=ok$")[0]
        self.assertEqual(int(m.group(1)), g.pid)
        for t in sink.texts():
            self.assertRegex(t, r"^<1[0-9][0-9]>tlsgate\[%d\]: "
                             r"(info|warn|error): \S" % g.pid)
            self.assertNotIn("\n", t)
        # Nothing went to stderr instead.
        self.assertEqual(g.log(), "")

    def test_severity_follows_the_level(self):
        sink = self.sink()
        g = self.syslog_gate(sink, self.backend("echo"),
                             syslog_facility="local3")
        with open(g.conf_path, "a") as f:
            f.write("slots = many\n")
        g.signal(signal.SIGHUP)
        # local3 (19) * 8 + error (3)
        sink.wait(r"^<155>tlsgate\[%d\]: error: reload: refused: " % g.pid)

    def test_every_facility_has_its_code(self):
        sink = self.sink()
        b = self.backend("echo")
        for name, code in FACILITIES.items():
            g = self.syslog_gate(sink, b, syslog_facility=name)
            first = [t for t in sink.texts() if "[%d]" % g.pid in t][0]
            self.assertTrue(first.startswith("<%d>tlsgate[%d]: info: " % (
                code * 8 + 6, g.pid)), "%s: %r" % (name, first))
            self.assertEqual(g.stop(), 0)

    def test_log_rate_bounds_lines_per_second_and_counts_the_rest(self):
        sink = self.sink()
        stats = "unix:" + os.path.join(self.tmp, "stats.sock")
        g = self.syslog_gate(sink, self.backend("echo"), log_rate=5,
                             stats=stats)
        n, end = 0, time.monotonic() + 2.5
        while time.monotonic() < end and n < 1000:
            close_tls(tls_connect(g.port))
            n += 1
            time.sleep(0.005)   # a burst, without hogging the machine
        self.assertGreater(n, 30, "too few connections for a burst")
        st = wait_stats(stats, "closed", n)
        self.assertEqual(st["closed"], n)
        # The count of dropped lines is logged by the first line of a
        # later second: wait for a new second, then log one (SIGUSR1).
        time.sleep(1.1)
        g.signal(signal.SIGUSR1)
        sink.wait(r"tlsgate\[%d\]: info: stats " % g.pid)
        with sink.lock:
            lines = list(sink.lines)
        texts = [t for _, t in lines]
        conn = sum(1 for t in texts if ": info: conn id=" in t)
        dropped = [int(m.group(1)) for m in (re.search(
            r"^<\d+>tlsgate\[\d+\]: warn: log lines_dropped=(\d+)$", t)
            for t in texts) if m]
        self.assertTrue(dropped, "no lines_dropped line:\n" +
                        "\n".join(texts))
        # Every conn line is either logged or counted as dropped.
        self.assertEqual(conn + sum(dropped), n)
        self.assertLess(conn, n)
        # At most 5 lines a second: any 11 lines in a row span three
        # seconds of the limiter, so at least one whole second.
        times = [t for t, _ in lines]
        spans = [times[i + 10] - times[i] for i in range(len(times) - 10)]
        self.assertTrue(spans, "fewer than 11 lines logged")
        if os.environ.get("TLSGATE_TEST_VERBOSE"):
            print("log_rate=5: %d connections, %d conn lines logged, "
                  "%d dropped in %d lines_dropped lines; 11 lines span "
                  ">= %.3f s" % (n, conn, sum(dropped), len(dropped),
                                 min(spans)))
        self.assertGreater(min(spans), 0.9, "11 lines within %.3f s" %
                           min(spans))


def set_subreaper(on):
    """Make this process the reaper of orphans (as init would be), so
    the init script's background tlsgate is reaped when it exits."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1 if on else 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


@unittest.skipIf(harness.WRAP, "the init script runs the binary itself, "
                 "without the wrapper (qemu, valgrind)")
class InitScripts(GateTest):

    def init(self, env, action):
        rc, out, err = run(["sh", os.path.join(ROOT, "conf", "tlsgate.init"),
                            action], 60, env=env)
        return rc, out.decode(), err.decode()

    def test_sysvinit_script_start_reload_check_stop(self):
        if not set_subreaper(True):
            self.skipTest("cannot become a child subreaper")
        self.addCleanup(set_subreaper, False)
        sink = SyslogSink(os.path.join(self.tmp, "log.sock"))
        self.addCleanup(sink.stop)
        c = certs()
        b = self.backend("echo")
        port = free_port()
        conf = os.path.join(self.tmp, "init.conf")
        pidfile = os.path.join(self.tmp, "tlsgate.pid")
        write_conf(conf, {"listen": "%s:%d" % (LOOPBACK, port),
                          "mode": "tcp", "backend": b.addr,
                          "cert": c.path["ec.crt"], "key": c.path["ec.key"],
                          "log": "syslog", "syslog_socket": sink.path})
        env = dict(os.environ, TLSGATE_BIN=BIN, TLSGATE_CONF=conf,
                   TLSGATE_PIDFILE=pidfile)
        rc, out, err = self.init(env, "start")
        self.assertEqual(rc, 0, out + err)
        with open(pidfile) as f:
            pid = int(f.read())
        reaper = threading.Thread(target=os.waitpid, args=(pid, 0),
                                  daemon=True)
        reaper.start()

        def kill_left():
            if reaper.is_alive():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                reaper.join(10)
        self.addCleanup(kill_left)
        sink.wait(r"tlsgate\[%d\]: info: ready " % pid, 10)
        s = tls_connect(port)
        self.assertEqual(echo_roundtrip(s, b"via init"), b"via init")
        close_tls(s)

        rc, out, err = self.init(env, "reload")
        self.assertEqual(rc, 0, out + err)
        sink.wait(r"tlsgate\[%d\]: info: reload: done " % pid)

        rc, out, err = self.init(env, "check")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("listen = %s:%d" % (LOOPBACK, port), out.splitlines())
        self.assertIn("log = syslog", out.splitlines())

        t0 = time.monotonic()
        rc, out, err = self.init(env, "stop")
        self.assertEqual(rc, 0, out + err)
        reaper.join(5 * SLOW)
        self.assertFalse(reaper.is_alive(), "tlsgate still running")
        self.assertFalse(os.path.exists(pidfile))
        self.assertLess(time.monotonic() - t0, 10 * SLOW)
        sink.wait(r"tlsgate\[%d\]: info: exit$" % pid)

    def test_sysvinit_script_start_refuses_a_bad_config(self):
        conf = os.path.join(self.tmp, "bad.conf")
        pidfile = os.path.join(self.tmp, "tlsgate.pid")
        with open(conf, "w") as f:
            f.write("mode = tcp\nslots = none\n")
        env = dict(os.environ, TLSGATE_BIN=BIN, TLSGATE_CONF=conf,
                   TLSGATE_PIDFILE=pidfile)
        rc, out, err = self.init(env, "start")
        self.assertEqual(rc, 1)
        self.assertIn("%s:2: slots:" % conf, err)
        self.assertFalse(os.path.exists(pidfile))

    def test_systemd_unit_verifies(self):
        tool = shutil.which("systemd-analyze")
        if tool is None:
            self.skipTest("systemd-analyze is not installed")
        # The unit names the installed paths: verify a copy that points
        # at the binary under test (verify checks that it exists).
        conf = os.path.join(self.tmp, "tlsgate.conf")
        write_conf(conf, {"mode": "tcp"})
        with open(os.path.join(ROOT, "conf", "tlsgate.service")) as f:
            unit = f.read()
        for want in ("ExecStartPre=/usr/sbin/tlsgate -t -c ",
                     "ExecReload=/bin/kill -HUP $MAINPID",
                     "KillSignal=SIGTERM"):
            self.assertIn(want, unit)
        unit = unit.replace("/usr/sbin/tlsgate", BIN).replace(
            "/etc/tlsgate/tlsgate.conf", conf)
        path = os.path.join(self.tmp, "tlsgate.service")
        with open(path, "w") as f:
            f.write(unit)
        p = subprocess.run([tool, "verify", path], capture_output=True,
                           timeout=60 * SLOW, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertEqual((p.stdout + p.stderr).decode().strip(), "")
