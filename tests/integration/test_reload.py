# SPDX-License-Identifier: ISC
"""SIGHUP reloads the file, certificates and keys: a renewed certificate
is served to new connections without failing one request, established
connections keep working on the old configuration, and a reload that is
invalid or would need a restart is refused with its reason while the
old configuration keeps serving."""
import hashlib
import os
import signal
import socket
import ssl
import threading
import time

from harness import (LOOPBACK, SLOW, Gate, GateTest, certs, client_ctx,
                     close_tls, deadline, free_port, half_closed, recv_exact,
                     recv_to_eof, run, tls_connect, write_conf)

REFUSED = r"^tlsgate: error: reload: refused: "
DONE = r"^tlsgate: info: reload: done "


def make_cert(dirname, name, serial):
    """A fresh EC key and a self-signed certificate for localhost."""
    crt = os.path.join(dirname, name + ".crt")
    key = os.path.join(dirname, name + ".key")
    rc, _, err = run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                      "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                      "-out", crt, "-days", "30", "-set_serial", str(serial),
                      "-subj", "/CN=localhost", "-addext",
                      "subjectAltName=DNS:localhost"], 60)
    if rc != 0:
        raise RuntimeError("openssl req: " + err.decode())
    return crt, key


def fingerprint(sock):
    return hashlib.sha256(sock.getpeercert(binary_form=True)).hexdigest()


def keepalive_get(sock):
    """One keep-alive GET / on an open connection; returns the body."""
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        b = sock.recv(1)
        if not b:
            raise AssertionError("EOF in the response head: %r" % head)
        head += b
    if not head.startswith(b"HTTP/1.1 200 "):
        raise AssertionError("not a 200: %r" % head)
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return recv_exact(sock, int(line.split(b":")[1]))
    raise AssertionError("no Content-Length: %r" % head)


class Loader(threading.Thread):
    """New HTTPS connections one after another, each one GET with
    Connection: close, until stopped (or 30 s, or 5,000 requests).
    Records (start, end, certificate fingerprint or None, error)."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.done = threading.Event()
        self.results = []

    def run(self):
        end = time.monotonic() + 30 * SLOW
        while not self.done.is_set() and time.monotonic() < end and \
                len(self.results) < 5000:
            t0 = time.monotonic()
            fp, err = None, None
            try:
                s = tls_connect(self.port)
                try:
                    fp = fingerprint(s)
                    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n"
                              b"Connection: close\r\n\r\n")
                    answer = recv_to_eof(s)
                finally:
                    s.close()
                if not answer.startswith(b"HTTP/1.1 200 "):
                    err = "answer %r" % answer[:40]
            except Exception as e:  # every failure counts, whatever it is
                err = repr(e)
            self.results.append((t0, time.monotonic(), fp, err))

    def stop(self):
        self.done.set()
        self.join(40 * SLOW)


class Reload(GateTest):

    def reload_gate(self, mode="http", **extra):
        """tlsgate on a config file the test may rewrite, with its
        certificate and key at paths the test may replace."""
        self.crt, self.key = make_cert(self.tmp, "live", 1)
        self.conf = {"mode": mode, "cert": self.crt, "key": self.key,
                     "backend": self.backend(mode if mode == "http" else
                                             "echo").addr}
        self.conf.update(self.tls_conf())
        self.conf.update(extra)
        g = Gate(self.tmp, self.conf)
        self.gates.append(g)
        # Our copy of the config, listen included, to rewrite later.
        self.conf = dict([("listen", "%s:%d" % (LOOPBACK, g.port))] +
                         list(self.conf.items()))
        self.old_fp = self.fp_now(g)
        return g

    def rewrite(self, g, **changes):
        conf = dict(self.conf)
        conf.update(changes)
        write_conf(g.conf_path, conf)

    def fp_now(self, g):
        s = tls_connect(g.port)
        try:
            return fingerprint(s)
        finally:
            close_tls(s)

    def hup(self, g, pattern, count=1):
        """SIGHUP, then wait for the count-th line matching pattern."""
        g.signal(signal.SIGHUP)
        return g.wait_log(pattern, 10, count)[-1]

    def renew(self, serial=2):
        """Replace the certificate and key files with a new key pair."""
        crt, key = make_cert(self.tmp, "next%d" % serial, serial)
        os.replace(key, self.key)
        os.replace(crt, self.crt)

    def test_renewed_certificate_under_load_fails_no_request(self):
        g = self.reload_gate()
        keeper = tls_connect(g.port, timeout=20)
        self.addCleanup(keeper.close)
        self.assertEqual(fingerprint(keeper), self.old_fp)
        keepalive_get(keeper)
        loader = Loader(g.port)
        loader.start()
        try:
            time.sleep(1.0)
            self.renew()
            t_hup = time.monotonic()
            self.hup(g, DONE)
            t_done = time.monotonic()
            time.sleep(1.5)
        finally:
            loader.stop()
        res = loader.results
        if os.environ.get("TLSGATE_TEST_VERBOSE"):
            print("requests: %d (%d before SIGHUP, %d after the reload)" % (
                len(res), sum(r[1] < t_hup for r in res),
                sum(r[0] > t_done for r in res)))
        failed = [r for r in res if r[3] is not None]
        self.assertEqual(failed, [], "%d of %d requests failed" % (
            len(failed), len(res)))
        before = [r for r in res if r[1] < t_hup]
        after = [r for r in res if r[0] > t_done]
        self.assertGreater(len(before), 3, res)
        self.assertGreater(len(after), 3, res)
        self.assertEqual({r[2] for r in before}, {self.old_fp})
        new_fp = after[0][2]
        self.assertNotEqual(new_fp, self.old_fp)
        self.assertEqual({r[2] for r in after}, {new_fp})
        # The connection opened before the reload still works.
        self.assertIn(b"hello from the backend", keepalive_get(keeper))
        close_tls(keeper)
        conns = g.wait_conns(len(res) + 2)
        self.assertEqual({c["outcome"] for c in conns}, {"ok"})

    def test_garbage_key_file_is_refused_and_old_certificate_stays(self):
        g = self.reload_gate()
        with open(self.key, "w") as f:
            f.write("-----BEGIN PRIVATE KEY-----\nnot a key\n"
                    "-----END PRIVATE KEY-----\n")
        m = self.hup(g, REFUSED + r"(.*)$")
        self.assertIn("key %s: " % self.key, m.group(1))
        self.assertNotRegex(g.log(), DONE)
        self.assertEqual(self.fp_now(g), self.old_fp)
        self.assertTrue(g.alive())

    def test_config_error_is_refused_and_gate_keeps_serving(self):
        g = self.reload_gate()
        self.renew()   # would change the certificate, if it were read
        self.rewrite(g, idle_timeout="forever")
        m = self.hup(g, REFUSED + r"(.*)$")
        self.assertTrue(m.group(1).startswith("%s:" % g.conf_path), m.group(1))
        self.assertIn("idle_timeout", m.group(1))
        s = tls_connect(g.port)
        try:
            self.assertEqual(fingerprint(s), self.old_fp)
            self.assertIn(b"hello from the backend", keepalive_get(s))
        finally:
            close_tls(s)

    def test_good_reload_after_a_refused_one_takes_effect(self):
        g = self.reload_gate()
        good = open(self.key, "rb").read()
        with open(self.key, "w") as f:
            f.write("garbage\n")
        self.hup(g, REFUSED)
        with open(self.key, "wb") as f:
            f.write(good)
        self.renew(3)
        self.hup(g, DONE)
        self.assertNotEqual(self.fp_now(g), self.old_fp)

    def test_reload_that_drops_client_auth_turns_on_a_working_cache(self):
        # Once a crash: caches were set up at the first load, only for
        # services without client_ca; dropping it turned on a cache that
        # had none, and the first client brought tlsgate down.
        crt, key = make_cert(self.tmp, "live", 1)
        ca, _ = make_cert(self.tmp, "ca", 7)
        conf = {"mode": "http", "cert": crt, "key": key,
                "backend": self.backend("http").addr, **self.tls_conf()}
        g = Gate(self.tmp, dict(conf, client_ca=ca))
        self.gates.append(g)
        conf["listen"] = "%s:%d" % (LOOPBACK, g.port)
        write_conf(g.conf_path, conf)
        self.hup(g, DONE)
        ctx = client_ctx(max_version=ssl.TLSVersion.TLSv1_2)
        s = tls_connect(g.port, ctx)
        sess = s.session
        self.assertIn(b"hello from the backend", keepalive_get(s))
        close_tls(s)
        s = tls_connect(g.port, ctx, session=sess)
        self.assertTrue(s.session_reused)
        self.assertIn(b"hello from the backend", keepalive_get(s))
        close_tls(s)
        self.assertTrue(g.alive())

    def test_changing_slots_is_refused_as_needing_restart(self):
        g = self.reload_gate(slots=16)
        self.renew()
        self.rewrite(g, slots=32)
        m = self.hup(g, REFUSED + r"(.*)$")
        self.assertEqual(m.group(1), "slots changed: that needs a restart")
        self.assertEqual(self.fp_now(g), self.old_fp)

    def test_changing_listen_is_refused_as_needing_restart(self):
        g = self.reload_gate()
        other = free_port()
        self.rewrite(g, listen="%s:%d" % (LOOPBACK, other))
        m = self.hup(g, REFUSED + r"(.*)$")
        self.assertEqual(m.group(1), "listen addresses changed: that needs "
                         "a restart")
        self.assertEqual(self.fp_now(g), self.old_fp)
        with self.assertRaises(OSError):
            tls_connect(other, timeout=2)

    def test_changing_the_stats_address_is_refused_as_needing_restart(self):
        # BUG: the stats socket is bound once at start-up like the
        # listeners, but a reload that moves it says "done" and the
        # socket stays where it was.
        first, second = free_port(), free_port()
        g = self.reload_gate(stats="%s:%d" % (LOOPBACK, first))
        self.rewrite(g, stats="%s:%d" % (LOOPBACK, second))
        g.signal(signal.SIGHUP)
        m = g.wait_log(r"^tlsgate: \w+: reload: (.*)$", 10)[-1]
        self.assertEqual(m.group(1), "refused: stats changed: that needs "
                         "a restart")

    def test_second_reload_refused_while_a_connection_from_before_lives(self):
        g = self.reload_gate(mode="tcp")
        old = tls_connect(g.port)
        self.addCleanup(old.close)
        self.hup(g, DONE)
        m = self.hup(g, r"^tlsgate: warn: reload: refused: (.*)$")
        self.assertEqual(m.group(1), "1 connections still use the "
                         "configuration before the current one")
        # The refusal did not touch the old connection's configuration.
        old.sendall(b"still here")
        self.assertEqual(recv_exact(old, 10), b"still here")
        close_tls(old)
        g.wait_conns(2)     # the fp_now one, and old
        self.hup(g, DONE, count=2)

    def test_reload_sends_new_connections_to_the_new_backend(self):
        g = self.reload_gate(mode="tcp")
        before = tls_connect(g.port)
        self.addCleanup(before.close)
        before.sendall(b"1")
        self.assertEqual(recv_exact(before, 1), b"1")
        second = self.backend("sink")
        self.rewrite(g, backend=second.addr)
        self.hup(g, DONE)
        # The sink answers with the count of what it got.
        self.assertEqual(half_closed(g.port, b"12345"), b"5\n")
        # The connection from before still goes to the echo backend.
        before.sendall(b"abc")
        self.assertEqual(recv_exact(before, 3), b"abc")
        close_tls(before)


class SignalRace(GateTest):

    def test_sighup_right_after_ready_is_not_lost(self):
        # The signal handler only sets a flag, read after the wait: a
        # signal that landed after the "ready" line (or after any turn's
        # look at the flags) but before poll() used to wait for the next
        # event, forever on an idle gate (SIGTERM too).  The log goes to
        # a datagram socket here, so that the signal follows "ready"
        # within microseconds; twenty fresh gates.
        b = self.backend("echo")
        c = certs()
        path = os.path.join(self.tmp, "log.sock")
        sink = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(sink.close)
        sink.bind(path)
        for i in range(20):
            port = free_port()
            conf = os.path.join(self.tmp, "race%d.conf" % i)
            write_conf(conf, {
                "listen": "%s:%d" % (LOOPBACK, port), "mode": "tcp",
                "backend": b.addr, "cert": c.path["ec.crt"],
                "key": c.path["ec.key"], "log": "syslog",
                "syslog_socket": path})
            g = self.gate_file(conf)
            end, got = deadline(10), ""
            while " info: ready " not in got:
                left = end - time.monotonic()
                self.assertGreater(left, 0, "try %d: not ready" % i)
                sink.settimeout(left)
                got = sink.recv(4096).decode()
            g.signal(signal.SIGHUP)
            end = deadline(2)
            while "reload: done" not in got:
                left = end - time.monotonic()
                if left <= 0:
                    self.fail("try %d: no reload 2 s after a SIGHUP sent "
                              "right after ready" % i)
                sink.settimeout(left)
                try:
                    got = sink.recv(4096).decode()
                except socket.timeout:
                    got = ""
            self.assertEqual(g.stop(), 0)
