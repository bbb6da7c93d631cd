"""Client certificates (client_ca): no certificate or one from another
CA fails the handshake; a good one is let through, and in http mode its
subject reaches the backend as X-Client-Cert-Subject (a client-sent one
never does).  Such a service never resumes a session."""
import json
import os
import re
import shutil
import ssl
import tempfile

from harness import (GateTest, client_ctx, close_tls, recv_exact,
                     recv_to_eof, run, tls_connect)

_dir = None
SUBJECT = "CN=alice,O=Acme\\, Inc.,C=DE"


def _openssl(args):
    rc, _, err = run(["openssl"] + args, 120)
    if rc != 0:
        raise RuntimeError("openssl %s: %s" % (args[0], err.decode()))


def pki():
    """Two CAs, each with a client certificate; made once per run.
    ca.crt signed alice.crt (CN, O with a comma, C); other-ca.crt signed
    mallory.crt."""
    global _dir
    if _dir is not None:
        return _dir
    _dir = tempfile.mkdtemp(prefix="tlsgate-pki-")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for ca, client, subj, serial in (
            ("ca", "alice", "/CN=alice/O=Acme, Inc./C=DE", "11"),
            ("other-ca", "mallory", "/CN=mallory/O=Elsewhere/C=DE", "12")):
        p = lambda n: os.path.join(_dir, n)  # noqa: E731
        _openssl(["req", "-x509"] + ec + [
            "-keyout", p(ca + ".key"), "-out", p(ca + ".crt"), "-days", "30",
            "-subj", "/CN=%s test client CA" % ca])
        _openssl(["req"] + ec + ["-keyout", p(client + ".key"), "-out",
                                 p(client + ".csr"), "-subj", subj])
        _openssl(["x509", "-req", "-in", p(client + ".csr"), "-CA",
                  p(ca + ".crt"), "-CAkey", p(ca + ".key"), "-set_serial",
                  serial, "-days", "30", "-out", p(client + ".crt")])
    return _dir


def tearDownModule():
    if _dir is not None:
        shutil.rmtree(_dir, ignore_errors=True)


def ctx_with(client):
    ctx = client_ctx()
    if client:
        d = pki()
        ctx.load_cert_chain(os.path.join(d, client + ".crt"),
                            os.path.join(d, client + ".key"))
    return ctx


def requests_seen(log):
    with open(log) as f:
        return [e for e in map(json.loads, f) if e["event"] == "request"]


class ClientAuth(GateTest):

    def auth_gate(self, mode="http", backend_mode="http"):
        self.blog = os.path.join(self.tmp, "backend.jsonl")
        open(self.blog, "w").close()
        b = self.backend(backend_mode, log=self.blog)
        return self.gate(b, mode=mode,
                         client_ca=os.path.join(pki(), "ca.crt"))

    def handshake_fails(self, g, client):
        with self.assertRaises((ssl.SSLError, OSError)):
            s = tls_connect(g.port, ctx_with(client))
            # TLS 1.2: the client's handshake ends before the server has
            # checked its certificate; the refusal comes with the first
            # read.
            try:
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                recv_to_eof(s)
            finally:
                s.close()
        return g.wait_conns(1)[0]

    def test_client_without_certificate_fails_handshake(self):
        g = self.auth_gate()
        conn = self.handshake_fails(g, None)
        self.assertEqual(conn["outcome"], "no-client-auth", conn)
        self.assertEqual(requests_seen(self.blog), [])

    def test_client_with_certificate_of_another_ca_fails_handshake(self):
        g = self.auth_gate()
        conn = self.handshake_fails(g, "mallory")
        self.assertNotEqual(conn["outcome"], "ok", conn)
        self.assertEqual(conn["version"], "none", conn)
        self.assertEqual(requests_seen(self.blog), [])

    def test_valid_certificate_is_let_through(self):
        g = self.auth_gate(mode="tcp", backend_mode="echo")
        s = tls_connect(g.port, ctx_with("alice"))
        try:
            s.sendall(b"ping")
            self.assertEqual(s.recv(4), b"ping")
        finally:
            close_tls(s)
        self.assertEqual(g.wait_conns(1)[0]["outcome"], "ok")

    def test_backend_sees_the_subject_and_not_the_client_sent_one(self):
        g = self.auth_gate()
        s = tls_connect(g.port, ctx_with("alice"))
        try:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n"
                      b"X-Client-Cert-Subject: CN=root,O=forged\r\n"
                      b"x-client-cert-subject: CN=admin\r\n"
                      b"Connection: close\r\n\r\n")
            answer = recv_to_eof(s)
        finally:
            s.close()
        self.assertTrue(answer.startswith(b"HTTP/1.1 200 "), answer[:100])
        reqs = requests_seen(self.blog)
        self.assertEqual(len(reqs), 1)
        got = [v for k, v in reqs[0]["headers"]
               if k.lower() == "x-client-cert-subject"]
        self.assertEqual(got, [SUBJECT])

    def test_every_request_of_a_connection_carries_the_subject(self):
        g = self.auth_gate()
        s = tls_connect(g.port, ctx_with("alice"))
        try:
            for i in range(3):
                s.sendall(b"GET /%d HTTP/1.1\r\nHost: x\r\n"
                          b"X-Client-Cert-Subject: CN=forged%d\r\n%s\r\n" % (
                              i, i, b"Connection: close\r\n" if i == 2
                              else b""))
                if i < 2:
                    head = b""
                    while not head.endswith(b"\r\n\r\n"):
                        b = s.recv(1)
                        self.assertTrue(b, "EOF in a response head")
                        head += b
                    n = int(re.search(rb"Content-Length: (\d+)", head).
                            group(1))
                    recv_exact(s, n)
            recv_to_eof(s)
        finally:
            s.close()
        reqs = requests_seen(self.blog)
        self.assertEqual([r["target"] for r in reqs], ["/0", "/1", "/2"])
        for r in reqs:
            got = [v for k, v in r["headers"]
                   if k.lower() == "x-client-cert-subject"]
            self.assertEqual(got, [SUBJECT], r["target"])

    def test_ca_names_are_sent_in_the_certificate_request(self):
        g = self.auth_gate()
        rc, out, err = run(["openssl", "s_client", "-tls1_2", "-connect",
                            "127.0.0.1:%d" % g.port], 30, stdin=b"")
        text = out.decode("latin-1")
        m = re.search(r"^Acceptable client certificate CA names\n((?:.+\n)+?)"
                      r"(?:Requested|Client Certificate|Shared|---)", text,
                      re.M)
        self.assertIsNotNone(m, text)
        self.assertIn("ca test client CA", m.group(1))
        self.assertNotIn("other-ca", m.group(1))

    def test_resumption_is_off_for_a_client_auth_service(self):
        g = self.auth_gate(mode="tcp", backend_mode="echo")
        ctx = ctx_with("alice")
        s = tls_connect(g.port, ctx)
        sess = s.session
        close_tls(s)
        s = tls_connect(g.port, ctx, session=sess)
        reused = s.session_reused
        close_tls(s)
        self.assertFalse(reused, "a client-auth session was resumed")
        d = pki()
        rc, out, err = run(["openssl", "s_client", "-tls1_2", "-reconnect",
                            "-no_ticket", "-cert",
                            os.path.join(d, "alice.crt"), "-key",
                            os.path.join(d, "alice.key"), "-connect",
                            "127.0.0.1:%d" % g.port], 30, stdin=b"")
        text = out.decode("latin-1")
        self.assertEqual(len(re.findall(r"^New, TLSv1\.2", text, re.M)), 6,
                         text)
        self.assertEqual(len(re.findall(r"^Reused,", text, re.M)), 0)
        conns = g.wait_conns(8)
        self.assertEqual({c["resumed"] for c in conns}, {"no"})
