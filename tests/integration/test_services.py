# SPDX-License-Identifier: ISC
"""Several [sections] in one file: each service has its own listeners,
backend, mode and certificate, and every listener reaches its own
backend.  Section mistakes are config errors that name file:line (or
the section) and stop start-up with exit status 2."""
import os
import re
import socket
import socketserver
import ssl
import threading

from harness import (LOOPBACK, SLOW, GateTest, certs, check, close_tls,
                     conf_line, echo_roundtrip, free_port, is_listening,
                     recv_to_eof, tls_connect, tls_connect6)


class _UnixHttp(socketserver.BaseRequestHandler):
    """One HTTP/1.1 request: the answer's body is the head received."""

    def handle(self):
        sock = self.request
        sock.settimeout(5 * SLOW)
        head = b""
        try:
            while b"\r\n\r\n" not in head and len(head) < 65536:
                b = sock.recv(4096)
                if not b:
                    return
                head += b
            body = b"unix backend got:\n" + head
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n%s" % (len(body), body))
        except OSError:
            pass


class UnixBackend:
    """A tiny HTTP backend on a Unix stream socket, in this process."""

    def __init__(self, path):
        socketserver.ThreadingUnixStreamServer.daemon_threads = True
        self.path = path
        self.srv = socketserver.ThreadingUnixStreamServer(path, _UnixHttp)
        self.thread = threading.Thread(target=self.srv.serve_forever,
                                       kwargs={"poll_interval": 0.05})
        self.thread.start()

    def stop(self):
        self.srv.shutdown()
        self.srv.server_close()
        self.thread.join(10)
        try:
            os.unlink(self.path)
        except OSError:
            pass


def der(kind):
    """The DER of the test certificate kind ("ec", "rsa")."""
    return ssl.PEM_cert_to_DER_cert(certs().read(kind + ".crt").decode())


def http_get(sock):
    sock.sendall(b"GET /svc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                 b"\r\n")
    return recv_to_eof(sock)


class Services(GateTest):

    def two_services(self):
        """[alpha]: one IPv4 listener, tcp mode, EC cert, TCP echo
        backend.  [beta]: IPv4 and [::1] listeners, http mode, RSA cert,
        Unix-socket backend.  Returns (gate, alpha port, beta v4 port,
        beta v6 port)."""
        c = certs()
        echo = self.backend("echo")
        unix = UnixBackend(os.path.join(self.tmp, "beta.sock"))
        self.addCleanup(unix.stop)
        for _ in range(3):
            # beta's IPv6 listener takes the same port number as its
            # IPv4 one: an IPv6 listener is IPv6-only.
            pa, pb = free_port(), free_port()
            p6 = pb
            path = self.conf_file([
                "slots = 8",
                "# service defaults, inherited by both sections",
                "handshake_timeout = 5s",
                *self.tls_lines(),
                "[alpha]",
                "listen = %s:%d" % (LOOPBACK, pa),
                "backend = " + echo.addr,
                "mode = tcp",
                "cert = " + c.path["ec.crt"],
                "key = " + c.path["ec.key"],
                "[beta]",
                "listen = %s:%d" % (LOOPBACK, pb),
                "listen = [::1]:%d" % p6,
                "backend = unix:" + unix.path,
                "mode = http",
                "cert = " + c.path["rsa.crt"],
                "key = " + c.path["rsa.key"],
            ], "two.conf")
            g = self.gate_file(path)
            try:
                g.wait_log(r"^tlsgate: info: ready ", 10)
                return g, pa, pb, p6
            except AssertionError:
                if "Address already in use" not in g.log():
                    raise
        self.fail("no free ports in 3 tries")

    def test_startup_lists_every_listener_with_its_service(self):
        g, pa, pb, p6 = self.two_services()
        log = g.log()
        self.assertIn("listening svc=alpha on %s:%d" % (LOOPBACK, pa), log)
        self.assertIn("listening svc=beta on %s:%d" % (LOOPBACK, pb), log)
        self.assertIn("listening svc=beta on [::1]:%d" % p6, log)
        self.assertRegex(log, r"(?m)^tlsgate: info: ready .*services=2 "
                         r"listeners=3")

    def test_tcp_service_reaches_its_echo_backend_with_its_cert(self):
        g, pa, pb, p6 = self.two_services()
        s = tls_connect(pa)
        try:
            cert = s.getpeercert(True)
            self.assertEqual(echo_roundtrip(s, b"to alpha"), b"to alpha")
        finally:
            close_tls(s)
        self.assertEqual(cert, der("ec"))
        conn = g.wait_conns(1)[0]
        self.assertEqual(conn["svc"], "alpha")
        self.assertEqual(conn["outcome"], "ok")

    def ask_beta(self, ipv6):
        """One GET through beta (http, unix backend, RSA certificate) on
        its IPv6 or IPv4 listener: (the answer, its conn event)."""
        g, _, pb, p6 = self.two_services()
        s = tls_connect6(p6) if ipv6 else tls_connect(pb)
        try:
            cert = s.getpeercert(True)
            answer = http_get(s)
        finally:
            s.close()
        self.assertEqual(cert, der("rsa"))
        self.assertTrue(answer.startswith(b"HTTP/1.1 200 "), answer)
        conn = g.wait_conns(1)[0]
        self.assertEqual(conn["svc"], "beta")
        return answer, conn

    def test_http_service_reaches_unix_backend_over_ipv4(self):
        answer, conn = self.ask_beta(False)
        self.assertIn(b"unix backend got:\nGET /svc HTTP/1.1\r\n", answer)
        # http mode rewrote the head on the way.
        self.assertIn(b"X-Forwarded-For: 127.0.0.1", answer)
        self.assertEqual(conn["outcome"], "ok")

    def test_http_service_reaches_unix_backend_over_ipv6(self):
        answer, conn = self.ask_beta(True)
        self.assertIn(b"unix backend got:", answer)
        self.assertIn(b"X-Forwarded-For: ::1", answer)
        self.assertTrue(conn["peer"].startswith("[::1]:"), conn)

    def test_ipv6_listener_is_not_the_ipv4_one(self):
        # The [::1] listener is IPv6-only: alpha's port on ::1 is closed.
        g, pa, pb, p6 = self.two_services()
        with socket.socket(socket.AF_INET6) as s:
            s.settimeout(2)
            self.assertNotEqual(s.connect_ex(("::1", pa)), 0)


class SectionErrors(GateTest):

    def start_bad(self, lines, pattern, port=None):
        """Run tlsgate (to serve) on lines; it must exit 2 with a last
        line "tlsgate: fatal: " + pattern (FILE: the config's path),
        listening nowhere."""
        m = re.match(r"FILE:(\d+):", pattern)
        if m:    # the line as the file numbers it (harness.conf_line)
            pattern = "FILE:%d:%s" % (conf_line(lines, int(m.group(1))),
                                      pattern[m.end():])
        path = self.conf_file(lines)
        g = self.gate_file(path)
        rc = g.wait_exit(10)
        log = g.log()
        self.assertEqual(rc, 2, log)
        last = log.splitlines()[-1] if log else ""
        want = "tlsgate: fatal: " + pattern.replace("FILE", path)
        self.assertTrue(last.startswith(want), "%r does not start with %r" %
                        (last, want))
        self.assertNotIn("listening", log)
        if port is not None:
            self.assertFalse(is_listening(port))
        return last

    def section(self, name, port, cert="ec"):
        c = certs()
        return ["[%s]" % name, "listen = %s:%d" % (LOOPBACK, port),
                "mode = tcp", "backend = 127.0.0.1:9",
                "cert = " + c.path[cert + ".crt"],
                "key = " + c.path[cert + ".key"]]

    def test_global_key_inside_a_section(self):
        port = free_port()
        lines = self.section("a", port) + ["slots = 4"]
        self.start_bad(lines, "FILE:7: slots: a global key", port)

    def test_duplicate_section(self):
        port = free_port()
        lines = self.section("a", port) + self.section("a", free_port())
        self.start_bad(lines, "FILE:7: [a]: section already defined", port)

    def test_section_without_listen(self):
        port = free_port()
        c = certs()
        lines = self.section("a", port) + [
            "", "[b]", "mode = tcp", "cert = " + c.path["ec.crt"],
            "key = " + c.path["ec.key"]]
        self.start_bad(lines, "FILE:8: [b]: no listen address", port)

    def test_listen_outside_sections_when_sections_exist(self):
        port, top = free_port(), free_port()
        lines = ["listen = %s:%d" % (LOOPBACK, top)] + \
            self.section("a", port)
        # BUG: the error names the last listen line of the file (3,
        # inside [a]), not the offending one.
        self.start_bad(lines, "FILE:1: listen: outside a [section]", port)
        self.assertFalse(is_listening(top))

    def test_cert_without_key_names_the_section(self):
        c = certs()
        port = free_port()
        lines = ["[web]", "listen = %s:%d" % (LOOPBACK, port), "mode = tcp",
                 "cert = " + c.path["ec.crt"]]
        last = self.start_bad(lines, "FILE: [web]: cert %s: no key" %
                              c.path["ec.crt"], port)
        self.assertIn("no key line", last)

    def test_more_sections_than_the_compile_time_limit(self):
        # TLSGATE_MAX_SERVICES is 8: the ninth [section] is refused at
        # its own line.
        lines = []
        for i in range(9):
            lines += self.section("s%d" % i, free_port())
        self.start_bad(lines, "FILE:49: [s8]: too many sections "
                       "(TLSGATE_MAX_SERVICES)")

    def test_eight_sections_are_accepted(self):
        # The other side of the bound.  (Each section inherits
        # session_cache, and all of them share TLSGATE_MAX_CACHE.)
        lines = ["session_cache = 100"]
        for i in range(8):
            lines += self.section("s%d" % i, free_port())
        rc, out, err = check(self.conf_file(lines))
        self.assertEqual(rc, 0, err)
        self.assertEqual([x for x in out.splitlines() if x.startswith("[")],
                         ["[s%d]" % i for i in range(8)])
