# SPDX-License-Identifier: ISC
"""The plain-HTTP port: a service's `redirect` addresses.

Admins type the device's address without https://.  Every request there
gets 308 to the same host and target on the service's TLS port, parsed
by the strict head parser (400, 431, 408 as on TLS).  With
acme_passthrough, an ACME HTTP-01 challenge (GET or HEAD under
/.well-known/acme-challenge/) goes to the backend instead.  Plain
connections have slots of their own under the TLS slots' timeouts,
per-source limit and eviction."""
import http.client
import re
import signal
import socket
import subprocess
import time

from harness import (LOOPBACK, SLOW, GateTest, check, conf_line, free_port,
                     recv_to_eof, tls_connect)
from test_backend_pool import Scripted
from test_hostile import stats


def plain(port, data, timeout=5):
    """Send raw bytes to the plain port; everything it answers to EOF
    (a reset ends it too: a refused client gets one)."""
    out = b""
    try:
        with socket.create_connection((LOOPBACK, port), timeout * SLOW) as s:
            s.sendall(data)
            while True:
                d = s.recv(65536)
                if not d:
                    return out
                out += d
    except ConnectionResetError:
        return out


def location(resp):
    head = resp.split(b"\r\n\r\n")[0].decode()
    assert head.startswith("HTTP/1.1 308 Permanent Redirect"), resp[:200]
    for line in head.split("\r\n")[1:]:
        k, _, v = line.partition(": ")
        if k == "Location":
            return v
    raise AssertionError("no Location: %r" % resp)


def acme_answer(conn, n, head):
    """A backend that closes after answering only if it was asked to."""
    body = b"token." + head.split(b" ")[1].rsplit(b"/", 1)[1]
    close = b"\r\nconnection: close" in head.lower()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body),
            "close" if close else "keep")


class Redirect(GateTest):
    def start(self, backend=None, **conf):
        self.rport = free_port()
        conf.setdefault("redirect", "%s:%d" % (LOOPBACK, self.rport))
        g = self.gate(backend or self.backend("http"), **conf)
        g.wait_log(r"listening svc=\S+ on [^ ]+:%d \(plain HTTP" % self.rport)
        return g

    def scripted(self, answer):
        b = Scripted(answer)
        self.addCleanup(b.close)
        return b

    def test_curl_is_redirected_to_the_tls_port_and_follows(self):
        g = self.start()
        out = subprocess.run(
            ["curl", "-s", "-k", "-L", "-o", "-", "-w", "%{url_effective}",
             "http://%s:%d/" % (LOOPBACK, self.rport)],
            capture_output=True, timeout=20 * SLOW)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(b"hello from the backend behind tlsgate", out.stdout)
        self.assertTrue(out.stdout.endswith(
            b"https://%s:%d/" % (LOOPBACK.encode(), g.port)), out.stdout)
        g.wait_log(r"status=308 outcome=redirect")

    def test_python_client_gets_308_with_host_path_and_query(self):
        g = self.start()
        c = http.client.HTTPConnection(LOOPBACK, self.rport, timeout=5 * SLOW)
        c.request("POST", "/api/v1/x?y=%20z", body=b"data",
                  headers={"Host": "dev.example:80"})
        r = c.getresponse()
        self.assertEqual(r.status, 308)
        self.assertEqual(r.getheader("Location"),
                         "https://dev.example:%d/api/v1/x?y=%%20z" % g.port)
        self.assertEqual(r.getheader("Connection"), "close")
        self.assertEqual(r.read(), b"")
        c.close()

    def test_host_forms(self):
        g = self.start()
        cases = [
            (b"GET /a HTTP/1.1\r\nHost: [::1]:80\r\n\r\n",
             "https://[::1]:%d/a" % g.port),
            (b"GET http://other.example/b?c HTTP/1.1\r\nHost: x\r\n\r\n",
             "https://other.example:%d/b?c" % g.port),
            (b"GET /c HTTP/1.0\r\n\r\n",
             "https://%s:%d/c" % (LOOPBACK, g.port)),
            (b"OPTIONS * HTTP/1.1\r\nHost: dev\r\n\r\n",
             "https://dev:%d/" % g.port),
        ]
        for req, want in cases:
            self.assertEqual(location(plain(self.rport, req)), want, req)

    def test_bad_requests_get_400_or_431_and_the_next_is_served(self):
        self.start()
        bad = [b"GET / HTTP/1.1\nHost: x\n\n",
               b"GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
               b"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
               b"GET / HTTP/1.1\r\nHost: a@b\r\n\r\n",
               b"CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n"]
        for req in bad:
            resp = plain(self.rport, req)
            self.assertTrue(resp.startswith(b"HTTP/1.1 400 "), (req, resp))
        resp = plain(self.rport, b"GET / HTTP/1.1\r\nHost: x\r\nX: " +
                     b"a" * 9000 + b"\r\n\r\n")
        self.assertTrue(resp.startswith(b"HTTP/1.1 431 "), resp[:100])
        self.assertTrue(location(plain(
            self.rport, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")))

    def test_partial_head_times_out_with_408_and_silence_with_close(self):
        g = self.start(head_timeout="300ms")
        with socket.create_connection((LOOPBACK, self.rport)) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            s.settimeout(5 * SLOW)
            self.assertTrue(recv_to_eof(s).startswith(b"HTTP/1.1 408 "))
        with socket.create_connection((LOOPBACK, self.rport)) as s:
            s.settimeout(5 * SLOW)
            t = time.monotonic()
            self.assertEqual(recv_to_eof(s), b"")
            self.assertLess(time.monotonic() - t, 3 * SLOW)
        self.assertGreaterEqual(stats(g)["timeouts"], 2)

    def test_acme_challenge_goes_to_the_backend_closing(self):
        b = self.scripted(acme_answer)
        g = self.start(b.addr, acme_passthrough="on")
        tok = "Vq3-xY_z9"
        resp = plain(self.rport, ("GET /.well-known/acme-challenge/%s "
                                  "HTTP/1.1\r\nHost: dev.example\r\n"
                                  "X-Forwarded-For: 6.6.6.6\r\n"
                                  "User-Agent: validator\r\n\r\n" %
                                  tok).encode(), timeout=10)
        self.assertTrue(resp.startswith(b"HTTP/1.1 200 OK\r\n"), resp)
        self.assertTrue(resp.endswith(b"\r\n\r\ntoken." + tok.encode()))
        self.assertEqual(len(b.requests), 1)
        head = b.requests[0][1].decode()
        self.assertIn("Connection: close", head)
        self.assertIn("X-Forwarded-For: 127.0.0.1", head)
        self.assertNotIn("6.6.6.6", head)
        self.assertIn("User-Agent: validator", head)
        # curl, too: the body arrives whole.
        out = subprocess.run(
            ["curl", "-s", "http://%s:%d/.well-known/acme-challenge/t2" %
             (LOOPBACK, self.rport)], capture_output=True, timeout=20 * SLOW)
        self.assertEqual(out.stdout, b"token.t2")
        st = stats(g)
        self.assertEqual(st["acme_forwarded"], 2)
        self.assertEqual(st["redirects"], 0)

    def test_acme_off_or_not_a_challenge_is_redirected(self):
        b = self.scripted(acme_answer)
        self.start(b.addr)
        resp = plain(self.rport, b"GET /.well-known/acme-challenge/t "
                     b"HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertIn("/.well-known/acme-challenge/t", location(resp))
        b2 = self.scripted(acme_answer)
        self.start(b2.addr, acme_passthrough="on")
        for req in [b"POST /.well-known/acme-challenge/t HTTP/1.1\r\n"
                    b"Host: x\r\nContent-Length: 1\r\n\r\nx",
                    b"GET /.well-known/acme-challenge/ HTTP/1.1\r\n"
                    b"Host: x\r\n\r\n",
                    b"GET /.well-known/acme-challengeX/t HTTP/1.1\r\n"
                    b"Host: x\r\n\r\n"]:
            location(plain(self.rport, req))
        self.assertEqual(b.requests + b2.requests, [])

    def test_acme_backend_down_is_502(self):
        dead = "%s:%d" % (LOOPBACK, free_port())
        self.start(dead, acme_passthrough="on")
        resp = plain(self.rport, b"GET /.well-known/acme-challenge/t "
                     b"HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertTrue(resp.startswith(b"HTTP/1.1 502 "), resp)

    def test_idle_clients_wait_in_the_pending_table_not_in_slots(self):
        g = self.start(redirect_slots="2")
        idle = [socket.create_connection((LOOPBACK, self.rport))
                for _ in range(5)]
        try:
            g.wait_log(r"ready")
            idle[0].sendall(b"GET / HTTP/1.1\r\n")    # a part of a head
            t = time.monotonic()
            resp = plain(self.rport, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                         timeout=10)
            waited = time.monotonic() - t
            self.assertTrue(location(resp))
            # Five silent clients, two slots: none of them took one.
            self.assertLess(waited, 0.5 * SLOW)
            st = stats(g)
            self.assertEqual(st["evicted"], 0)
            self.assertEqual(st["pending"], 5)
            self.assertGreaterEqual(st["pending_high"], 6)
        finally:
            for s in idle:
                s.close()

    def test_per_source_limit_counts_slots_not_silent_clients(self):
        g = self.start(max_per_source="2")
        held = [tls_connect(g.port), tls_connect(g.port)]
        idle = [socket.create_connection((LOOPBACK, self.rport))
                for _ in range(3)]
        try:
            time.sleep(0.2 * SLOW)
            self.assertEqual(plain(self.rport, b"GET / HTTP/1.1\r\n"
                                   b"Host: x\r\n\r\n"), b"")
            g.wait_log(r"outcome=per-source-limit")
            for s in held:
                s.close()
            time.sleep(0.3 * SLOW)
            # The silent ones still open hold no slot: not counted.
            self.assertTrue(location(plain(self.rport, b"GET / HTTP/1.1\r\n"
                                           b"Host: x\r\n\r\n")))
        finally:
            for s in held + idle:
                s.close()

    def test_sigterm_drains_idle_plain_connections(self):
        g = self.start()
        s = socket.create_connection((LOOPBACK, self.rport))
        try:
            g.wait_log(r"ready")
            time.sleep(0.2)
            g.signal(signal.SIGTERM)
            self.assertEqual(g.wait_exit(5 * SLOW), 0)
            self.assertIn("outcome=drained", g.log())
            self.assertIn("exit", g.log())
        finally:
            s.close()

    def test_reload_applies_acme_and_refuses_new_addresses(self):
        b = self.scripted(acme_answer)
        g = self.start(b.addr)
        acme = (b"GET /.well-known/acme-challenge/r HTTP/1.1\r\n"
                b"Host: x\r\n\r\n")
        location(plain(self.rport, acme))
        conf = open(g.conf_path).read()
        with open(g.conf_path, "a") as f:
            f.write("acme_passthrough = on\n")
        g.signal(signal.SIGHUP)
        g.wait_log(r"reload: done")
        self.assertTrue(plain(self.rport, acme).endswith(b"token.r"))
        with open(g.conf_path, "w") as f:
            f.write(conf.replace(":%d" % self.rport,
                                 ":%d" % free_port()))
        g.signal(signal.SIGHUP)
        g.wait_log(r"reload: refused: redirect addresses changed")
        self.assertTrue(plain(self.rport, acme).endswith(b"token.r"))

    def test_workers_share_the_plain_port(self):
        g = self.start(workers="2")
        for _ in range(6):
            self.assertTrue(location(plain(
                self.rport, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")))
        g.wait_log(r"outcome=redirect", count=6)

    def test_check_prints_keys_and_footprint(self):
        c = self.certs_conf(["redirect = 127.0.0.1:80",
                             "redirect = [::1]:80", "redirect_slots = 3",
                             "acme_passthrough = on"])
        rc, out, err = check(c)
        self.assertEqual(rc, 0, err)
        for line in ["redirect = 127.0.0.1:80", "redirect = [::1]:80",
                     "redirect_slots = 3", "acme_passthrough = on"]:
            self.assertIn(line + "\n", out)
        self.assertRegex(out, r"redirect slots = 3 x \d+ = \d+")
        # Without a redirect address, no plain slots are counted.
        rc, out, err = check(self.certs_conf([], "n.conf"))
        self.assertIn("redirect slots = 0 x", out)

    def certs_conf(self, lines, name="t.conf"):
        from harness import certs
        c = certs()
        return self.conf_file(lines + ["cert = " + c.path["ec.crt"],
                                       "key = " + c.path["ec.key"]], name)

    def test_config_errors_name_file_line_and_key(self):
        cases = [
            (["[a]", "listen = 127.0.0.1:1", "[b]", "listen = 127.0.0.1:2",
              "redirect = 127.0.0.1:x"], r"t\.conf:5: redirect: "),
            (["redirect = 127.0.0.1:80", "[a]", "listen = 127.0.0.1:1"],
             r"t\.conf:1: redirect: outside a \[section\]"),
            (["redirect_slots = 0"], r"t\.conf:1: redirect_slots: "),
            (["acme_passthrough = maybe"], r"t\.conf:1: acme_passthrough: "),
            (["mode = tcp", "proxy_protocol = v2", "acme_passthrough = on"],
             r"t\.conf:3: \[default\]: acme_passthrough: the backend "
             r"expects a PROXY header"),
        ]
        for lines, pattern in cases:
            # The line as the file numbers it under a wrapper too.
            n = int(re.search(r"conf:(\d+):", pattern).group(1))
            pattern = pattern.replace("conf:%d:" % n, "conf:%d:" %
                                      conf_line(lines, n), 1)
            rc, out, err = check(self.certs_conf(lines))
            self.assertEqual(rc, 2, (lines, err))
            self.assertRegex(err, pattern)
