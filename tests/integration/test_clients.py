# SPDX-License-Identifier: ISC
"""Real clients end to end, with the ECDSA and the RSA certificate, at
TLS 1.3 (their default; 1.2 from a tls_max = 1.2 service) and capped at
TLS 1.2: the bytes they get must be exactly the bytes the backend
sent."""
import ssl

from harness import (GateTest, close_tls, client_ctx, echo_roundtrip,
                     http_bytes_body, random_bytes, recv_to_eof, run,
                     tls_connect)

GET_CLOSE = b"GET /bytes/%d HTTP/1.1\r\nHost: localhost\r\n" \
    b"Connection: close\r\n\r\n"


def split_http(resp):
    head, sep, body = resp.partition(b"\r\n\r\n")
    if not sep:
        raise AssertionError("no HTTP head in %r" % resp[:200])
    return head.decode("latin-1"), body


class EndToEnd(GateTest):
    MODE = "tcp"


    def check_conn(self, g, kind, n=1, v13=False):
        """v13: the client offered TLS 1.3 (it gets it if we have it)."""
        conns = g.wait_conns(n)
        self.assertEqual(conns[-1]["outcome"], "ok", conns[-1])
        if v13 and self.tls13:
            self.assertEqual(conns[-1]["version"], "TLS1.3")
            self.assertTrue(conns[-1]["suite"].startswith("TLS_AES_"))
        else:
            self.assertEqual(conns[-1]["version"], "TLS1.2")
            self.assertIn("-%s-" % kind, conns[-1]["suite"])
        return conns[-1]

    def curl(self, cert, kind, v13):
        n = 300007
        g = self.gate(self.backend("http"), cert=cert)
        rc, out, err = run(["curl", "-sk", "--max-time", "20", "-w",
                            "\n%{http_code}", "https://127.0.0.1:%d/bytes/%d"
                            % (g.port, n)] + ([] if v13 else
                                              ["--tls-max", "1.2"]), 30)
        self.assertEqual(rc, 0, err)
        body, _, code = out.rpartition(b"\n")
        self.assertEqual(code, b"200")
        self.assertEqual(len(body), n)
        self.assertEqual(body, http_bytes_body(n))
        self.check_conn(g, kind, v13=v13)

    def test_curl_gets_exact_body_ecdsa(self):
        self.curl("ec", "ECDSA", True)
        self.curl("ec", "ECDSA", False)

    def test_curl_gets_exact_body_rsa(self):
        self.curl("rsa", "RSA", True)
        self.curl("rsa", "RSA", False)

    def s_client(self, cert, kind):
        n = 200003
        g = self.gate(self.backend("http"), cert=cert)
        rc, out, err = run(["openssl", "s_client", "-tls1_2", "-quiet",
                            "-connect", "127.0.0.1:%d" % g.port],
                           30, stdin=GET_CLOSE % n)
        self.assertEqual(rc, 0, err)
        head, body = split_http(out)
        self.assertTrue(head.startswith("HTTP/1.1 200 "), head)
        self.assertIn("Content-Length: %d" % n, head)
        self.assertEqual(body, http_bytes_body(n))
        conn = self.check_conn(g, kind)
        self.assertEqual(int(conn["in"]), len(GET_CLOSE % n))
        self.assertEqual(int(conn["out"]), len(out))

    def test_openssl_s_client_tls12_gets_exact_body_ecdsa(self):
        self.s_client("ec", "ECDSA")

    def test_openssl_s_client_tls12_gets_exact_body_rsa(self):
        self.s_client("rsa", "RSA")

    def python_echo(self, cert, kind, v13):
        g = self.gate(self.backend("echo"), cert=cert)
        data = random_bytes(1 << 20)
        s = tls_connect(g.port, client_ctx(max_version=None if v13 else
                                           ssl.TLSVersion.TLSv1_2))
        got13 = v13 and self.tls13
        try:
            self.assertEqual(s.version(), "TLSv1.3" if got13 else "TLSv1.2")
            if not got13:
                self.assertIn("-%s-" % kind, s.cipher()[0])
            self.assertEqual(echo_roundtrip(s, data), data)
        finally:
            close_tls(s)
        conn = self.check_conn(g, kind, v13=v13)
        self.assertEqual(int(conn["in"]), len(data))
        self.assertEqual(int(conn["out"]), len(data))

    def test_python_ssl_echoes_random_bytes_ecdsa(self):
        self.python_echo("ec", "ECDSA", True)
        self.python_echo("ec", "ECDSA", False)

    def test_python_ssl_echoes_random_bytes_rsa(self):
        self.python_echo("rsa", "RSA", True)
        self.python_echo("rsa", "RSA", False)

    def chacha_only(self, cert, suite):
        g = self.gate(self.backend("echo"), cert=cert)
        ctx = client_ctx(ciphers=suite, max_version=ssl.TLSVersion.TLSv1_2)
        s = tls_connect(g.port, ctx)
        try:
            self.assertEqual(s.cipher()[0], suite)
            data = random_bytes(100000)
            self.assertEqual(echo_roundtrip(s, data), data)
        finally:
            close_tls(s)
        self.assertEqual(g.wait_conns(1)[0]["suite"], suite)

    def test_chacha20_only_client_is_served_ecdsa(self):
        self.chacha_only("ec", "ECDHE-ECDSA-CHACHA20-POLY1305")

    def test_chacha20_only_client_is_served_rsa(self):
        self.chacha_only("rsa", "ECDHE-RSA-CHACHA20-POLY1305")

    def test_close_notify_ends_a_response(self):
        # The backend closes after its answer: the client must see a
        # clean TLS close (close_notify), not a bare TCP EOF.
        n = 70000
        for v13 in (True, False):
            g = self.gate(self.backend("http"))
            s = tls_connect(g.port, client_ctx(
                max_version=None if v13 else ssl.TLSVersion.TLSv1_2))
            try:
                s.sendall(GET_CLOSE % n)
                head, body = split_http(recv_to_eof(s))
            finally:
                s.close()
            self.assertEqual(body, http_bytes_body(n))
            self.check_conn(g, "ECDSA", v13=v13)
