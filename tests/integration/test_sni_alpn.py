# SPDX-License-Identifier: ISC
"""SNI picks a service's certificate by the client's server name (the
first certificate is the default).  An http mode service answers ALPN
http/1.1 to a hello that offers it and nothing to any other (BearSSL 0.6
reads out of bounds when a session is resumed with an ALPN list it does
not know), and no client fails for what it offers there."""
import os
import re
import shutil
import socket
import ssl
import tempfile

from harness import (LOOPBACK, SLOW, GateTest, client_ctx, free_port,
                     recv_to_eof, run)

_dir = None


def sni_certs():
    """a.example: EC, the default.  b.example: RSA, with the names
    b.example and *.wild.example.  c: RSA, named a.example too (CN
    c.example).  Made once per run."""
    global _dir
    if _dir is None:
        _dir = tempfile.mkdtemp(prefix="tlsgate-sni-")
        for name, keyargs, san in (
                ("a", ["-newkey", "ec", "-pkeyopt",
                       "ec_paramgen_curve:P-256"], "DNS:a.example"),
                ("b", ["-newkey", "rsa:2048"],
                 "DNS:b.example,DNS:*.wild.example"),
                ("c", ["-newkey", "rsa:2048"], "DNS:a.example")):
            rc, _, err = run(["openssl", "req", "-x509"] + keyargs + [
                "-nodes", "-keyout", os.path.join(_dir, name + ".key"),
                "-out", os.path.join(_dir, name + ".crt"), "-days", "30",
                "-subj", "/CN=%s.example" % name,
                "-addext", "subjectAltName=" + san], 120)
            if rc != 0:
                raise RuntimeError("openssl req: " + err.decode())
    return _dir


def tearDownModule():
    if _dir is not None:
        shutil.rmtree(_dir, ignore_errors=True)


def s_client(port, servername=None, alpn=None, groups=None):
    """openssl s_client; returns (subject CN, cipher, ALPN line, text)."""
    cmd = ["openssl", "s_client", "-tls1_2", "-no_ticket", "-connect",
           "%s:%d" % (LOOPBACK, port)]
    cmd += ["-servername", servername] if servername else ["-noservername"]
    if alpn:
        cmd += ["-alpn", alpn]
    if groups:
        cmd += ["-groups", groups]
    rc, out, err = run(cmd, 30, stdin=b"")
    text = (out + err).decode("latin-1")
    subj = re.search(r"^subject=.*CN\s*=\s*([^,\s/]+)", text, re.M)
    suite = re.search(r"^New, TLSv1\.2, Cipher is (\S+)", text, re.M)
    alpn_line = re.search(r"^(ALPN protocol: .*|No ALPN negotiated)$", text,
                          re.M)
    return (subj.group(1) if subj else None,
            suite.group(1) if suite else None,
            alpn_line.group(1) if alpn_line else None, text)


class Sni(GateTest):

    def setUp(self):
        super().setUp()
        self.b = self.backend("echo")
        self.g, self.port = self.start("a", "b")

    def start(self, *pairs):
        """tlsgate on a config file of our own with these cert/key pairs
        in one service; (gate, port), a busy port tried again."""
        d = sni_certs()
        certs = []
        for name in pairs:
            certs += ["cert = " + os.path.join(d, name + ".crt"),
                      "key = " + os.path.join(d, name + ".key")]
        for i in range(3):
            port = free_port()
            path = self.conf_file([
                "listen = %s:%d" % (LOOPBACK, port),
                "backend = " + self.b.addr, "mode = tcp"] + certs +
                self.tls_lines(), "%s%d.conf" % ("".join(pairs), i))
            g = self.gate_file(path)
            try:
                g.wait_log(r"^tlsgate: info: ready ", 10)
                return g, port
            except AssertionError:
                if "Address already in use" not in g.log():
                    raise
        raise AssertionError("no free port in three tries")

    def pick(self, servername):
        subj, suite, _, text = s_client(self.port, servername)
        self.assertIsNotNone(suite, text)
        return subj, suite

    def test_a_example_gets_the_default_ec_certificate(self):
        subj, suite = self.pick("a.example")
        self.assertEqual(subj, "a.example")
        self.assertTrue(suite.startswith("ECDHE-ECDSA-"), suite)

    def test_b_example_gets_the_rsa_certificate(self):
        subj, suite = self.pick("b.example")
        self.assertEqual(subj, "b.example")
        self.assertTrue(suite.startswith("ECDHE-RSA-"), suite)

    def test_one_label_under_wildcard_gets_the_rsa_certificate(self):
        subj, suite = self.pick("x.wild.example")
        self.assertEqual(subj, "b.example")
        self.assertTrue(suite.startswith("ECDHE-RSA-"), suite)

    def test_name_matching_is_case_insensitive(self):
        subj, suite = self.pick("X.Wild.EXAMPLE")
        self.assertEqual(subj, "b.example")

    def test_two_labels_under_wildcard_get_the_default(self):
        subj, suite = self.pick("x.y.wild.example")
        self.assertEqual(subj, "a.example")
        self.assertTrue(suite.startswith("ECDHE-ECDSA-"), suite)

    def test_bare_wildcard_domain_gets_the_default(self):
        # "*." needs one label: wild.example itself does not match.
        subj, suite = self.pick("wild.example")
        self.assertEqual(subj, "a.example")

    def test_no_sni_gets_the_default(self):
        subj, suite = self.pick(None)
        self.assertEqual(subj, "a.example")
        self.assertTrue(suite.startswith("ECDHE-ECDSA-"), suite)

    def test_unknown_name_gets_the_default(self):
        subj, suite = self.pick("c.example")
        self.assertEqual(subj, "a.example")
        self.assertTrue(suite.startswith("ECDHE-ECDSA-"), suite)

    def test_rsa_only_client_gets_rsa_certificate_with_its_name(self):
        # The certificate follows the name, not the client's suites: an
        # RSA-only client asking for b.example completes the handshake.
        ctx = client_ctx(ciphers="ECDHE-RSA-AES128-GCM-SHA256",
                         max_version=ssl.TLSVersion.TLSv1_2)
        raw = socket.create_connection((LOOPBACK, self.port), 5 * SLOW)
        with ctx.wrap_socket(raw, server_hostname="b.example") as s:
            self.assertEqual(s.cipher()[0], "ECDHE-RSA-AES128-GCM-SHA256")

    # RFC 8422 5.1: at TLS 1.2 an ECDSA key serves only a client whose
    # supported_groups lists its curve (OpenSSL refuses it otherwise with
    # "wrong curve").  a.example's key is on P-256.
    def test_client_without_the_keys_curve_and_no_name_gets_rsa(self):
        subj, suite, _, text = s_client(self.port, None, groups="P-384")
        self.assertEqual(subj, "b.example", text)
        self.assertTrue(suite.startswith("ECDHE-RSA-"), suite)

    def test_name_whose_key_curve_is_not_offered_is_refused(self):
        subj, suite, _, text = s_client(self.port, "a.example",
                                        groups="P-384")
        self.assertIsNone(suite, text)
        self.assertIn("handshake failure", text)
        c = self.g.wait_conns(1)[0]
        self.assertEqual((c["alert"], c["outcome"]),
                         ("40", "certificate-curve-not-offered"), c)

    def test_client_with_the_keys_curve_gets_ecdsa(self):
        subj, suite, _, text = s_client(self.port, "a.example",
                                        groups="P-384:P-256")
        self.assertEqual(subj, "a.example", text)
        self.assertTrue(suite.startswith("ECDHE-ECDSA-"), suite)

    def test_ecdsa_and_rsa_certificates_for_one_name_serve_both(self):
        _, port = self.start("a", "c")
        for groups, cn, kind in (("P-256", "a.example", "ECDHE-ECDSA-"),
                                 ("P-384", "c.example", "ECDHE-RSA-")):
            subj, suite, _, text = s_client(port, "a.example",
                                            groups=groups)
            self.assertEqual(subj, cn, text)
            self.assertTrue(suite.startswith(kind), suite)

    def test_conn_log_has_the_sni_name(self):
        self.pick("x.wild.example")
        self.pick(None)
        conns = self.g.wait_conns(2)
        self.assertEqual(conns[0]["sni"], "x.wild.example")
        self.assertEqual(conns[0]["suite"].split("-")[1], "RSA")
        self.assertEqual(conns[1]["sni"], "-")
        self.assertEqual(conns[1]["suite"].split("-")[1], "ECDSA")

    def test_sni_name_cannot_forge_log_fields_or_lines(self):
        # Once a bug: the client's server name was logged as it came: a
        # blank added fields ("outcome=ok"), a newline a whole log line.
        # Such a name is no host name: the hello gets illegal_parameter
        # before anything reads the name.
        forged = ["x outcome=forged",
                  "x\ntlsgate: info: conn id=999 outcome=ok"]
        for name in forged:
            subj, suite, _, text = s_client(self.port, name)
            self.assertIsNone(subj, text)
            self.assertIn("illegal parameter", text)
        conns = self.g.wait_conns(2)
        lines = self.g.log().splitlines()
        stray = [x for x in lines if not x.startswith("tlsgate: ")]
        self.assertEqual(stray, [], "lines not from tlsgate")
        conn_lines = [x for x in lines if x.startswith("tlsgate: info: "
                                                       "conn ")]
        self.assertEqual(len(conn_lines), 2, conn_lines)
        for line in conn_lines:
            self.assertEqual(line.count(" outcome="), 1, line)
        self.assertEqual([c["outcome"] for c in conns],
                         ["sni-not-a-host-name"] * 2)

class Alpn(GateTest):

    def test_http_mode_answers_alpn_http11_to_who_offers_it(self):
        g = self.gate(self.backend("http"), mode="http")
        for offer in ("h2,http/1.1", "http/1.1", "spdy/3,http/1.1,h2"):
            _, suite, alpn, text = s_client(g.port, "localhost", offer)
            self.assertIsNotNone(suite, text)
            self.assertEqual(alpn, "ALPN protocol: http/1.1", text)
        _, suite, alpn, text = s_client(g.port, "localhost", "h2,http/1.0")
        self.assertIsNotNone(suite, text)
        self.assertEqual(alpn, "No ALPN negotiated", text)
        # curl, which offers h2 and http/1.1, is told http/1.1.
        rc, out, err = run(["curl", "-skv", "--http1.1", "-o", os.devnull,
                            "https://localhost:%d/" % g.port, "--resolve",
                            "localhost:%d:%s" % (g.port, LOOPBACK)], 10)
        self.assertEqual(rc, 0, err)
        self.assertIn(b"ALPN: server accepted http/1.1", err)

    def test_resumption_with_an_unknown_alpn_list_is_served(self):
        # This once crashed BearSSL's server (names[0xfffe]).
        g = self.gate(self.backend("http"), mode="http")
        ctx = client_ctx(max_version=ssl.TLSVersion.TLSv1_2)
        ctx.set_alpn_protocols(["http/1.1"])
        raw = socket.create_connection((LOOPBACK, g.port), 5 * SLOW)
        with ctx.wrap_socket(raw, server_hostname="localhost") as s:
            sess = s.session
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            s.recv(100)
        for names in (["h2"], ["x" * 20, "y"], ["h2", "http/1.1"]):
            ctx.set_alpn_protocols(names)
            raw = socket.create_connection((LOOPBACK, g.port), 5 * SLOW)
            with ctx.wrap_socket(raw, server_hostname="localhost",
                                 session=sess,
                                 suppress_ragged_eofs=False) as s:
                self.assertTrue(s.session_reused, names)
                self.assertEqual(s.selected_alpn_protocol(),
                                 "http/1.1" if "http/1.1" in names else None)
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n"
                          b"Connection: close\r\n\r\n")
                answer = recv_to_eof(s)
            self.assertTrue(answer.startswith(b"HTTP/1.1 200 "), names)
        self.assertTrue(g.alive())

    def test_h2_only_client_is_served_http11_without_alpn(self):
        g = self.gate(self.backend("http"), mode="http")
        ctx = client_ctx()
        ctx.set_alpn_protocols(["h2"])
        raw = socket.create_connection((LOOPBACK, g.port), 5 * SLOW)
        with ctx.wrap_socket(raw, server_hostname="localhost",
                             suppress_ragged_eofs=False) as s:
            self.assertIsNone(s.selected_alpn_protocol())
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                      b"\r\n")
            answer = recv_to_eof(s)
        self.assertTrue(answer.startswith(b"HTTP/1.1 200 "), answer[:100])
        self.assertIn(b"hello from the backend", answer)
        self.assertEqual(g.wait_conns(1)[0]["outcome"], "ok")

    def test_tcp_mode_advertises_no_alpn(self):
        g = self.gate(self.backend("echo"), mode="tcp")
        _, suite, alpn, text = s_client(g.port, "localhost", "h2,http/1.1")
        self.assertIsNotNone(suite, text)
        self.assertEqual(alpn, "No ALPN negotiated", text)
