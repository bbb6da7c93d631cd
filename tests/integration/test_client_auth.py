# SPDX-License-Identifier: ISC
"""Client certificates (client_ca): no certificate or one from another
CA fails the handshake; a good one is let through, and in http mode its
subject reaches the backend as X-Client-Cert-Subject (a client-sent one
never does).  Such a service resumes by tickets that carry the client's
certificate, checked again at each resumption.  ClientAuth runs
at whatever version the suite runs; ClientAuth13 is TLS 1.3's own:
openssl, Python and gnutls-cli with EC (P-256, P-384) and RSA keys,
each CertificateVerify scheme, and the alerts RFC 8446 names."""
import base64
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import tempfile
import time

import harness
from harness import (SLOW, GateTest, client_ctx, close_tls, recv_exact,
                     recv_to_eof, run, tls_connect)
from test_hostile import stats
from test_proxy_protocol import ProxyBackend
from test_scanners import need

_dir = None
SUBJECT = "CN=alice,O=Acme\\, Inc.,C=DE"


def _openssl(args):
    rc, _, err = run(["openssl"] + args, 120)
    if rc != 0:
        raise RuntimeError("openssl %s: %s" % (args[0], err.decode()))


def pki():
    """Two CAs, each with a client certificate; made once per run.
    ca.crt signed alice.crt (CN, O with a comma, C; P-256), bob.crt
    (RSA 2048) and carol.crt (P-384); other-ca.crt signed mallory.crt."""
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
    for client, key, serial in (
            ("bob", ["-newkey", "rsa:2048"], "13"),
            ("carol", ["-newkey", "ec", "-pkeyopt",
                       "ec_paramgen_curve:P-384"], "14")):
        _openssl(["req"] + key + ["-nodes", "-keyout", p(client + ".key"),
                                  "-out", p(client + ".csr"), "-subj",
                                  "/CN=%s/O=Acme/C=DE" % client])
        _openssl(["x509", "-req", "-in", p(client + ".csr"), "-CA",
                  p("ca.crt"), "-CAkey", p("ca.key"), "-set_serial",
                  serial, "-days", "30", "-out", p(client + ".crt")])
    return _dir


def long_chain(n):
    """A client certificate under n intermediate CAs below ca.crt, as one
    PEM (leaf first, then the intermediates), with the leaf's key."""
    d = pki()
    p = lambda name: os.path.join(d, name)  # noqa: E731
    with open(p("ca.ext"), "w") as f:
        f.write("basicConstraints=critical,CA:TRUE\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    issuer, pems = "ca", []
    for i in range(n + 1):
        name = "chain%d-%d" % (n, i)
        _openssl(["req"] + ec + ["-keyout", p(name + ".key"), "-out",
                                 p(name + ".csr"), "-subj", "/CN=" + name])
        _openssl(["x509", "-req", "-in", p(name + ".csr"), "-CA",
                  p(issuer + ".crt"), "-CAkey", p(issuer + ".key"),
                  "-set_serial", str(100 + i), "-days", "30", "-out",
                  p(name + ".crt")] +
                 (["-extfile", p("ca.ext")] if i < n else []))
        with open(p(name + ".crt")) as f:
            pems.insert(0, f.read())
        issuer = name
    with open(p("chain%d.pem" % n), "w") as f:
        f.write("".join(pems))
    return p("chain%d.pem" % n), p(issuer + ".key")


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


class AuthBase(GateTest):

    def auth_gate(self, mode="http", backend_mode="http"):
        self.blog = os.path.join(self.tmp, "backend.jsonl")
        open(self.blog, "w").close()
        b = self.backend(backend_mode, log=self.blog)
        return self.gate(b, mode=mode,
                         client_ca=os.path.join(pki(), "ca.crt"))

    def get_three(self, g, ctx):
        """Three GETs, each connection offering the last one's session:
        whether each resumed."""
        sess, reused = None, []
        for _ in range(3):
            s = tls_connect(g.port, ctx, session=sess)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n"
                      b"Connection: close\r\n\r\n")
            self.assertTrue(recv_to_eof(s).startswith(b"HTTP/1.1 200 "))
            reused.append(s.session_reused)
            sess = s.session
            s.close()
        return reused

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


class ClientAuth(AuthBase):

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

    def test_a_chain_of_eight_is_taken_and_nine_are_refused(self):
        """Each certificate costs a signature check, whatever the chain
        ends at: past ENG_CHAIN_MAX (8) it fails unread."""
        g = self.auth_gate(mode="tcp", backend_mode="echo")
        ctx = client_ctx()
        ctx.load_cert_chain(*long_chain(7))
        s = tls_connect(g.port, ctx)
        s.sendall(b"ping")
        self.assertEqual(s.recv(4), b"ping")
        close_tls(s)
        ctx = client_ctx()
        ctx.load_cert_chain(*long_chain(8))
        with self.assertRaises((ssl.SSLError, OSError)):
            s = tls_connect(g.port, ctx)
            try:
                s.sendall(b"ping")
                self.assertEqual(s.recv(4), b"")
            finally:
                s.close()
        conns = g.wait_conns(2)
        self.assertEqual([c["outcome"] for c in conns],
                         ["ok", "client-chain-too-long"])
        self.assertEqual(conns[1]["alert"], "42")

    def test_a_client_without_tickets_does_full_handshakes(self):
        """No session-ID cache at a client_ca service (an entry would
        need room for a certificate): a client that takes no ticket
        never resumes."""
        g = self.auth_gate(mode="tcp", backend_mode="echo")
        ctx = ctx_with("alice")
        s = tls_connect(g.port, ctx)
        sess = s.session
        close_tls(s)
        s = tls_connect(g.port, ctx, session=sess)
        reused = s.session_reused
        close_tls(s)
        self.assertFalse(reused, "resumed without a ticket")
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

    def test_a_ticket_from_before_client_ca_was_added_does_not_resume(self):
        """A reload adds client_ca to the service a ticket was sealed
        for: same service, same server name, same keys, yet the ticket
        was made for no client certificate and does not resume; the
        full handshake that follows asks for one."""
        g = self.gate(self.backend("http"))
        d = pki()
        # A request: its answer comes after TLS 1.3's ticket.
        req = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        versions = ["tls1_2"] + (["tls1_3"] if self.tls13 else [])
        for v in versions:
            rc, out, err = run(["openssl", "s_client", "-" + v, "-connect",
                                "127.0.0.1:%d" % g.port, "-sess_out",
                                os.path.join(self.tmp, v + ".sess"),
                                "-ign_eof"], 30, stdin=req)
            self.assertIn(b"HTTP/1.1 200 ", out, (v, err))
            self.assertTrue(os.path.exists(
                os.path.join(self.tmp, v + ".sess")), (v, err))
        with open(g.conf_path, "a") as f:
            f.write("client_ca = %s\n" % os.path.join(d, "ca.crt"))
        g.signal(signal.SIGHUP)
        g.wait_log(r"^tlsgate: info: reload: done", 10)
        for v in versions:
            rc, out, err = run(["openssl", "s_client", "-" + v, "-connect",
                                "127.0.0.1:%d" % g.port, "-sess_in",
                                os.path.join(self.tmp, v + ".sess"),
                                "-cert", os.path.join(d, "alice.crt"),
                                "-key", os.path.join(d, "alice.key"),
                                "-ign_eof"], 30, stdin=req)
            text = out.decode("latin-1")
            self.assertIn("HTTP/1.1 200 ", text, (v, err))
            self.assertRegex(text, r"(?m)^New, TLSv1", (v, err))
            self.assertNotRegex(text, r"(?m)^Reused,", v)
        conns = g.wait_conns(2 * len(versions))
        self.assertEqual([(c["resumed"], c["outcome"]) for c in conns],
                         [("no", "ok")] * 2 * len(versions))
        self.assertEqual(stats(g)["ticket_hits"], 0)


    def test_a_ticket_whose_ca_left_client_ca_does_not_resume(self):
        """A reload replaces client_ca with another CA: alice's tickets,
        whose certificate that CA did not sign, do not resume; the full
        handshake that follows refuses her certificate (unknown_ca)."""
        g = self.auth_gate()
        d = pki()
        req = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        versions = ["tls1_2"] + (["tls1_3"] if self.tls13 else [])

        def alice(v, arg):
            return run(["openssl", "s_client", "-" + v, "-connect",
                        "127.0.0.1:%d" % g.port, "-cert",
                        os.path.join(d, "alice.crt"), "-key",
                        os.path.join(d, "alice.key"), arg,
                        os.path.join(self.tmp, v + ".sess"), "-ign_eof"],
                       30, stdin=req)
        for v in versions:
            rc, out, err = alice(v, "-sess_out")
            self.assertIn(b"HTTP/1.1 200 ", out, (v, err))
        with open(g.conf_path) as f:
            conf = f.read()
        with open(g.conf_path, "w") as f:
            f.write(conf.replace(os.path.join(d, "ca.crt"),
                                 os.path.join(d, "other-ca.crt")))
        g.signal(signal.SIGHUP)
        g.wait_log(r"^tlsgate: info: reload: done", 10)
        for v in versions:
            rc, out, err = alice(v, "-sess_in")
            self.assertNotIn(b"HTTP/1.1 200", out, v)
            self.assertIn(b"alert unknown ca", err, v)
        conns = g.wait_conns(2 * len(versions))[len(versions):]
        self.assertEqual({(c["resumed"], c["alert"]) for c in conns},
                         {("no", "48")})
        self.assertEqual(len(re.findall(
            r"(?m)^tlsgate: info: ticket not resumed svc=default "
            r"serial=0B reason=client-cert-untrusted$", g.log())),
            len(versions))


class ClientAuth13(AuthBase):
    TLS_MAX = "1.3"

    def s_client(self, g, args, data=b""):
        return run(["openssl", "s_client", "-tls1_3", "-connect",
                    "127.0.0.1:%d" % g.port] + args, 30, stdin=data)

    def with_cert(self, client):
        d = pki()
        return ["-cert", os.path.join(d, client + ".crt"), "-key",
                os.path.join(d, client + ".key")]

    def subjects(self):
        return [v for r in requests_seen(self.blog) for k, v in r["headers"]
                if k.lower() == "x-client-cert-subject"]

    def test_openssl_each_key_and_scheme(self):
        """EC P-256 and P-384 keys sign with their curve's ECDSA scheme,
        an RSA key with each RSA-PSS scheme; the backend gets each
        subject, the log says TLS 1.3."""
        g = self.auth_gate()
        cases = [("alice", "ecdsa_secp256r1_sha256"),
                 ("carol", "ecdsa_secp384r1_sha384"),
                 ("bob", "rsa_pss_rsae_sha256"),
                 ("bob", "rsa_pss_rsae_sha384"),
                 ("bob", "rsa_pss_rsae_sha512")]
        for client, scheme in cases:
            rc, out, err = self.s_client(
                g, self.with_cert(client) + ["-client_sigalgs", scheme,
                                             "-quiet"],
                b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            self.assertEqual(rc, 0, (client, scheme, err))
            self.assertTrue(out.startswith(b"HTTP/1.1 200 "), out[:100])
        conns = g.wait_conns(len(cases))
        self.assertEqual({(c["version"], c["outcome"]) for c in conns},
                         {("TLS1.3", "ok")})
        self.assertEqual(self.subjects(),
                         [SUBJECT, "CN=carol,O=Acme,C=DE"] +
                         ["CN=bob,O=Acme,C=DE"] * 3)

    def test_python_tls13_only_with_ec_and_rsa_certificates(self):
        g = self.auth_gate()
        for client in ["alice", "bob"]:
            ctx = ctx_with(client)
            ctx.minimum_version = ssl.TLSVersion.TLSv1_3
            s = tls_connect(g.port, ctx)
            try:
                self.assertEqual(s.version(), "TLSv1.3")
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n"
                          b"Connection: close\r\n\r\n")
                self.assertTrue(recv_to_eof(s).startswith(b"HTTP/1.1 200 "))
            finally:
                s.close()
        self.assertEqual(self.subjects(), [SUBJECT, "CN=bob,O=Acme,C=DE"])

    def test_gnutls_cli_with_a_client_certificate(self):
        need("gnutls-cli")
        g = self.auth_gate()
        d = pki()
        p = subprocess.Popen(
            ["gnutls-cli", "--insecure", "-p", str(g.port),
             "--x509certfile", os.path.join(d, "bob.crt"),
             "--x509keyfile", os.path.join(d, "bob.key"), "127.0.0.1"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        # stdin stays open until tlsgate closes (test_tls13 says why).
        p.stdin.write(b"GET / HTTP/1.1\r\nHost: x\r\n"
                      b"Connection: close\r\n\r\n")
        p.stdin.flush()
        out = p.stdout.read()
        p.stdin.close()
        self.assertEqual(p.wait(20 * SLOW), 0)
        self.assertIn(b"(TLS1.3-X.509)", out)
        self.assertIn(b"HTTP/1.1 200 ", out)
        self.assertEqual(self.subjects(), ["CN=bob,O=Acme,C=DE"])

    def test_certificate_request_and_certificate_required(self):
        """The request names our CA (not the other) and the schemes; a
        client that sends no certificate gets certificate_required."""
        g = self.auth_gate()
        rc, out, err = self.s_client(g, ["-ign_eof"],
                                     b"GET / HTTP/1.1\r\n\r\n")
        text = out.decode("latin-1")
        m = re.search(r"^Acceptable client certificate CA names\n"
                      r"((?:.+\n)+?)(?:Requested|Client Certificate|"
                      r"Shared|---)", text, re.M)
        self.assertIsNotNone(m, text)
        self.assertIn("ca test client CA", m.group(1))
        self.assertNotIn("other-ca", m.group(1))
        self.assertRegex(text, r"Requested Signature Algorithms: "
                         r"ECDSA\+SHA256:ECDSA\+SHA384:ECDSA\+SHA512:"
                         r"RSA-PSS\+SHA256:RSA-PSS\+SHA384:RSA-PSS\+SHA512\n")
        self.assertIn(b"alert certificate required", err)
        c = g.wait_conns(1)[0]
        self.assertEqual((c["alert"], c["outcome"]), ("116", "no-client-auth"))
        self.assertEqual(requests_seen(self.blog), [])

    def test_certificate_of_another_ca_gets_unknown_ca(self):
        g = self.auth_gate()
        rc, out, err = self.s_client(g, self.with_cert("mallory") +
                                     ["-ign_eof"],
                                     b"GET / HTTP/1.1\r\n\r\n")
        self.assertIn(b"alert unknown ca", err)
        c = g.wait_conns(1)[0]
        self.assertEqual((c["alert"], c["outcome"]),
                         ("48", "client-cert-untrusted"))
        self.assertEqual(requests_seen(self.blog), [])
        # The slot's next client is served.
        rc, out, err = self.s_client(g, self.with_cert("alice") + ["-quiet"],
                                     b"GET / HTTP/1.1\r\nHost: x\r\n"
                                     b"Connection: close\r\n\r\n")
        self.assertTrue(out.startswith(b"HTTP/1.1 200 "), err)

    def test_python_resumes_with_a_ticket_and_the_backend_sees_the_cert(
            self):
        """A ticket carries the client's certificate: the resumed
        connection, which sends none, hands the backend the same
        Client-Cert and subject as the first; Client-Cert-Chain is
        never there (alice sent no intermediates)."""
        g = self.auth_gate()
        ctx = ctx_with("alice")
        ctx.options &= ~ssl.OP_NO_TICKET
        self.assertEqual(self.get_three(g, ctx), [False, True, True])
        conns = g.wait_conns(3)
        self.assertEqual([c["resumed"] for c in conns], ["no", "yes", "yes"])
        der = run(["openssl", "x509", "-in", os.path.join(pki(), "alice.crt"),
                   "-outform", "DER"], 30)[1]
        want = ":%s:" % base64.b64encode(der).decode()
        for r in requests_seen(self.blog):
            h = dict((k.lower(), v) for k, v in r["headers"])
            self.assertEqual((h.get("client-cert"),
                              h.get("x-client-cert-subject"),
                              h.get("client-cert-chain")),
                             (want, SUBJECT, None))
        self.assertEqual(len(requests_seen(self.blog)), 3)
        st = stats(g)
        self.assertEqual((st["ticket_hits"], st["ticket_misses"]), (2, 0))


    def test_a_tickets_length_does_not_tell_the_certificate(self):
        """A TLS 1.3 client offers its ticket in clear, after a
        handshake that encrypted its certificate: alice's (P-256) and
        bob's (RSA 2048, about 200 bytes longer) come in tickets of one
        length, and each resumes with its own subject."""
        g = self.auth_gate()
        lens = {}
        for client in ("alice", "bob"):
            sess = os.path.join(self.tmp, client + ".sess")
            for args in (["-sess_out", sess], ["-sess_in", sess]):
                rc, out, err = self.s_client(
                    g, self.with_cert(client) + args + ["-ign_eof"],
                    b"GET / HTTP/1.1\r\nHost: x\r\n"
                    b"Connection: close\r\n\r\n")
                self.assertIn(b"HTTP/1.1 200 ", out, err)
            text = run(["openssl", "sess_id", "-in", sess, "-noout",
                        "-text"], 30)[1].decode()
            dump = text.split("TLS session ticket:\n", 1)[1]
            lens[client] = sum(
                len(m.group(1).replace("-", " ").split())
                for m in re.finditer(r"^ *[0-9a-f]{4} - ((?:[0-9a-f]{2}"
                                     r"[ -]){1,16})", dump, re.M))
        der = [len(run(["openssl", "x509", "-in",
                        os.path.join(pki(), c + ".crt"), "-outform", "DER"],
                       30)[1]) for c in ("alice", "bob")]
        self.assertGreater(der[1] - der[0], 150)
        self.assertGreater(lens["alice"], der[1])
        self.assertEqual(lens["alice"], lens["bob"])
        conns = g.wait_conns(4)
        self.assertEqual([c["resumed"] for c in conns],
                         ["no", "yes", "no", "yes"])
        self.assertEqual(self.subjects(), [SUBJECT] * 2 +
                         ["CN=bob,O=Acme,C=DE"] * 2)


def make_crl(name, revoke=(), ca="ca", crlsec=None, der=False):
    """A CRL made by `openssl ca -gencrl` for ca (of pki()), with the
    certificates in revoke on it; good for a day, or crlsec seconds."""
    d = pki()
    work = tempfile.mkdtemp(prefix="crl-%s-" % name, dir=d)
    open(os.path.join(work, "index.txt"), "w").close()
    with open(os.path.join(work, "crlnumber"), "w") as f:
        f.write("01\n")
    conf = os.path.join(work, "ca.cnf")
    with open(conf, "w") as f:
        f.write("[ca]\ndefault_ca = this\n[this]\n"
                "database = %s/index.txt\ncrlnumber = %s/crlnumber\n"
                "certificate = %s/%s.crt\nprivate_key = %s/%s.key\n"
                "default_md = sha256\ndefault_crl_days = 1\n"
                % (work, work, d, ca, d, ca))
    for c in revoke:
        _openssl(["ca", "-config", conf, "-revoke",
                  os.path.join(d, c + ".crt")])
    out = os.path.join(work, "crl.pem")
    _openssl(["ca", "-config", conf, "-gencrl", "-out", out] +
             (["-crlsec", str(crlsec)] if crlsec else []))
    if der:
        _openssl(["crl", "-in", out, "-outform", "DER", "-out",
                  out[:-3] + "der"])
        return out[:-3] + "der"
    return out


class ClientCRL(AuthBase):
    """client_crl: a revoked certificate gets certificate_revoked (44) at
    both versions, from openssl s_client, curl and Python alike, with
    its serial in the log; a reload takes a new CRL, a bad one is
    refused and the old one kept, and a client it revokes cannot come
    back with its ticket; a CRL past nextUpdate refuses its
    CA's clients unless client_crl_expired = keep."""

    def crl_gate(self, crl, **conf):
        self.blog = os.path.join(self.tmp, "backend.jsonl")
        open(self.blog, "w").close()
        b = self.backend("http", log=self.blog)
        return self.gate(b, client_ca=os.path.join(pki(), "ca.crt"),
                         client_crl=crl, **conf)

    def s_client(self, g, client, version):
        d = pki()
        return run(["openssl", "s_client", "-" + version, "-connect",
                    "127.0.0.1:%d" % g.port, "-cert",
                    os.path.join(d, client + ".crt"), "-key",
                    os.path.join(d, client + ".key"), "-ign_eof"], 30,
                   stdin=b"GET / HTTP/1.1\r\nHost: x\r\n"
                         b"Connection: close\r\n\r\n")

    def curl(self, g, client):
        d = pki()
        return run(["curl", "-sk", "--cert", os.path.join(d, client + ".crt"),
                    "--key", os.path.join(d, client + ".key"), "-o",
                    os.devnull, "-w", "%{http_code}",
                    "https://127.0.0.1:%d/" % g.port], 30)

    def python_served(self, g, client):
        try:
            s = tls_connect(g.port, ctx_with(client))
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n"
                      b"Connection: close\r\n\r\n")
            out = recv_to_eof(s)
            s.close()
        except (ssl.SSLError, OSError):
            return False
        return out.startswith(b"HTTP/1.1 200 ")

    def test_revoked_client_gets_alert_44_at_both_versions(self):
        g = self.crl_gate(make_crl("alice", ["alice"]))
        versions = ["tls1_2"] + (["tls1_3"] if self.tls13 else [])
        for v in versions:
            rc, out, err = self.s_client(g, "alice", v)
            self.assertIn(b"alert certificate revoked", err, (v, err))
            self.assertNotIn(b"HTTP/1.1 200", out)
            rc, out, err = self.s_client(g, "bob", v)
            self.assertIn(b"HTTP/1.1 200 ", out, (v, err))
        rc, code, _ = self.curl(g, "alice")
        self.assertNotEqual(code, b"200")
        rc, code, _ = self.curl(g, "bob")
        self.assertEqual(code, b"200")
        self.assertFalse(self.python_served(g, "alice"))
        self.assertTrue(self.python_served(g, "carol"))
        n = 2 * len(versions) + 4
        conns = g.wait_conns(n)
        refused = [c for c in conns if c["outcome"] == "client-cert-revoked"]
        self.assertEqual(len(refused), len(versions) + 2)
        self.assertEqual({c["alert"] for c in refused}, {"44"})
        self.assertEqual({c["outcome"] for c in conns} -
                         {"client-cert-revoked"}, {"ok"})
        # Serial 11 is 0x0B.
        lines = re.findall(r"^tlsgate: warn: client cert refused svc=default "
                           r"serial=0B reason=revoked$", g.log(), re.M)
        self.assertEqual(len(lines), len(refused))
        subjects = [v for r in requests_seen(self.blog)
                    for k, v in r["headers"]
                    if k.lower() == "x-client-cert-subject"]
        self.assertNotIn(SUBJECT, subjects)

    def test_a_der_crl_and_dash_t_show_the_table(self):
        crl = make_crl("der", ["carol"], der=True)
        g = self.crl_gate(crl)
        self.assertFalse(self.python_served(g, "carol"))
        self.assertTrue(self.python_served(g, "alice"))
        rc, out, err = run(harness.WRAP + [harness.BIN, "-t", "-c", g.conf_path], 30)
        self.assertEqual(rc, 0, err)
        text = out.decode()
        self.assertRegex(text, r"(?m)^crl svc=default list=1 revoked=1 "
                         r"next_update_s=8\d{4}$")
        m = re.search(r"(?m)^revoked serials = 2 x (\d+) = (\d+) "
                      r"\(client_crl: (\d+) serials at most", text)
        self.assertIsNotNone(m, text)
        self.assertGreaterEqual(int(m.group(1)), int(m.group(3)) * 21)

    def test_a_reload_revokes_a_second_one_and_a_bad_crl_keeps_the_old(self):
        path = os.path.join(self.tmp, "clients.crl")
        shutil.copy(make_crl("one", ["alice"]), path)
        g = self.crl_gate(path)
        self.assertFalse(self.python_served(g, "alice"))
        self.assertTrue(self.python_served(g, "bob"))
        shutil.copy(make_crl("two", ["alice", "bob"]), path)
        g.signal(signal.SIGHUP)
        g.wait_log(r"^tlsgate: info: reload: done", 10)
        self.assertFalse(self.python_served(g, "bob"))
        rc, out, err = self.s_client(g, "bob", "tls1_2")
        self.assertIn(b"alert certificate revoked", err)
        self.assertTrue(self.python_served(g, "carol"))
        # Signed by a CA the service does not take: refused, kept.
        shutil.copy(make_crl("other", ["mallory"], ca="other-ca"), path)
        g.signal(signal.SIGHUP)
        m = g.wait_log(r"^tlsgate: error: reload: refused: (.*)$", 10)[0]
        self.assertEqual(m.group(1), "client_crl %s: CRL 1: its issuer is "
                         "no CA of client_ca" % path)
        self.assertFalse(self.python_served(g, "bob"))
        self.assertTrue(self.python_served(g, "carol"))
        # A signature that does not verify: the same.
        with open(make_crl("bad", ["alice"], der=True), "rb") as f:
            der = bytearray(f.read())
        der[-5] ^= 1
        with open(path, "wb") as f:
            f.write(der)
        g.signal(signal.SIGHUP)
        m = g.wait_log(r"^tlsgate: error: reload: refused: (.*)$", 10, 2)[1]
        self.assertIn("its signature is not its issuer's", m.group(1))
        self.assertFalse(self.python_served(g, "alice"))
        self.assertTrue(self.python_served(g, "carol"))

    def s_session(self, g, client, version, sess, out=True):
        """openssl s_client with client's certificate, a request, and
        its session written to (out) or read from sess."""
        d = pki()
        return run(["openssl", "s_client", "-" + version, "-connect",
                    "127.0.0.1:%d" % g.port, "-cert",
                    os.path.join(d, client + ".crt"), "-key",
                    os.path.join(d, client + ".key"),
                    "-sess_out" if out else "-sess_in", sess, "-ign_eof"],
                   30, stdin=b"GET / HTTP/1.1\r\nHost: x\r\n"
                               b"Connection: close\r\n\r\n")

    def test_tickets_resume_until_a_reload_revokes_the_client(self):
        """Clients resume with tickets (openssl -sess_out/-sess_in and
        Python's session, at 1.2 and 1.3) and the backend sees the
        same Client-Cert on the resumed connections.  A reload revokes
        alice: her tickets no longer resume, her certificate comes
        again in a full handshake, and alert 44 ends it; carol's
        tickets, made before the reload too, still resume."""
        path = os.path.join(self.tmp, "clients.crl")
        shutil.copy(make_crl("none"), path)
        g = self.crl_gate(path)
        req = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        versions = [("tls1_2", ssl.TLSVersion.TLSv1_2)]
        if self.tls13:
            versions.append(("tls1_3", ssl.TLSVersion.TLSv1_3))
        kept = {}
        for v, tv in versions:
            for who in ("alice", "carol"):
                sess = os.path.join(self.tmp, who + v + ".sess")
                rc, out, err = self.s_session(g, who, v, sess)
                self.assertIn(b"HTTP/1.1 200 ", out, (v, err))
                rc, out, err = self.s_session(g, who, v, sess, out=False)
                self.assertIn(b"HTTP/1.1 200 ", out, (v, err))
                self.assertRegex(out.decode("latin-1"), r"(?m)^Reused,", v)
                ctx = ctx_with(who)
                ctx.options &= ~ssl.OP_NO_TICKET
                ctx.minimum_version = ctx.maximum_version = tv
                sess = None
                for _ in range(2):
                    s = tls_connect(g.port, ctx, session=sess)
                    s.sendall(req)
                    self.assertTrue(recv_to_eof(s).startswith(
                        b"HTTP/1.1 200 "))
                    self.assertEqual(s.session_reused, sess is not None)
                    sess = s.session
                    s.close()
                kept[who, v] = (ctx, sess)
        before = g.wait_conns(8 * len(versions))
        self.assertEqual([c["resumed"] for c in before],
                         ["no", "yes"] * 4 * len(versions))
        ders = {who: run(["openssl", "x509", "-in",
                          os.path.join(pki(), who + ".crt"), "-outform",
                          "DER"], 30)[1] for who in ("alice", "carol")}
        seen = [dict((k.lower(), v) for k, v in r["headers"]).get(
            "client-cert") for r in requests_seen(self.blog)]
        self.assertEqual(seen, [":%s:" % base64.b64encode(ders[w]).decode()
                                for w in ("alice", "carol")
                                for _ in range(4)] * len(versions))
        shutil.copy(make_crl("alice", ["alice"]), path)
        g.signal(signal.SIGHUP)
        g.wait_log(r"^tlsgate: info: reload: done", 10)
        for v, tv in versions:
            ctx, sess = kept["alice", v]
            with self.assertRaisesRegex(ssl.SSLError, "CERTIFICATE_REVOKED"):
                s = tls_connect(g.port, ctx, session=sess)
                try:
                    s.sendall(req)
                    recv_to_eof(s)
                finally:
                    s.close()
            rc, out, err = self.s_session(
                g, "alice", v, os.path.join(self.tmp, "alice" + v + ".sess"),
                out=False)
            self.assertIn(b"alert certificate revoked", err, v)
            self.assertNotIn(b"HTTP/1.1 200", out)
            ctx, sess = kept["carol", v]
            s = tls_connect(g.port, ctx, session=sess)
            s.sendall(req)
            self.assertTrue(recv_to_eof(s).startswith(b"HTTP/1.1 200 "))
            self.assertTrue(s.session_reused, v)
            s.close()
        after = g.wait_conns(11 * len(versions))[8 * len(versions):]
        self.assertEqual([(c["resumed"], c["outcome"], c["alert"])
                          for c in after],
                         ([("no", "client-cert-revoked", "44")] * 2 +
                          [("yes", "ok", "0")]) * len(versions))
        # Each refused ticket is said once, its certificate's refusal too.
        log = g.log()
        self.assertEqual(len(re.findall(
            r"(?m)^tlsgate: info: ticket not resumed svc=default "
            r"serial=0B reason=revoked$", log)), 2 * len(versions))
        self.assertEqual(len(re.findall(
            r"(?m)^tlsgate: warn: client cert refused svc=default "
            r"serial=0B reason=revoked$", log)), 2 * len(versions))
        self.assertEqual(dict((k, v) for k, v in stats(g).items()
                              if k.startswith("ticket_")),
                         {"ticket_hits": 5 * len(versions),
                          "ticket_misses": 2 * len(versions)})

    def test_an_expired_crl_refuses_by_default_or_is_kept(self):
        crl = make_crl("stale", ["alice"], crlsec=1)
        time.sleep(2.2)
        g = self.crl_gate(crl)
        g.wait_log(r"^tlsgate: warn: crl svc=default list=1 revoked=1 "
                   r"next_update_s=-\d+ expired: its CA's clients are "
                   r"refused$")
        rc, out, err = self.s_client(g, "bob", "tls1_2")
        self.assertIn(b"alert certificate unknown", err)
        c = g.wait_conns(1)[0]
        self.assertEqual((c["alert"], c["outcome"]),
                         ("46", "client-crl-expired"))
        g.stop()
        g = self.crl_gate(crl, client_crl_expired="keep")
        self.assertTrue(self.python_served(g, "bob"))
        self.assertFalse(self.python_served(g, "alice"))
        self.assertRegex(g.log(), r"(?m)^tlsgate: warn: crl svc=default "
                         r"list=1 revoked=1 next_update_s=-\d+ expired: "
                         r"kept$")

    def test_an_rsa_signed_crl_is_taken_and_revokes(self):
        # sha256WithRSAEncryption: the DigestInfo names SHA-256.
        d = pki()
        p = lambda n: os.path.join(d, n)  # noqa: E731
        if not os.path.exists(p("dave.crt")):
            _openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes",
                      "-keyout", p("rsa-ca.key"), "-out", p("rsa-ca.crt"),
                      "-days", "30", "-subj", "/CN=rsa test client CA"])
            _openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout",
                      p("dave.key"), "-out", p("dave.csr"), "-subj",
                      "/CN=dave"])
            _openssl(["x509", "-req", "-in", p("dave.csr"), "-CA",
                      p("rsa-ca.crt"), "-CAkey", p("rsa-ca.key"),
                      "-set_serial", "14", "-days", "30", "-out",
                      p("dave.crt")])
        b = self.backend("http")
        g = self.gate(b, client_ca=p("rsa-ca.crt"),
                      client_crl=make_crl("rsa", ["dave"], ca="rsa-ca"))
        g.wait_log(r"^tlsgate: info: crl svc=default list=1 revoked=1 ")
        rc, out, err = self.s_client(g, "dave", "tls1_2")
        self.assertIn(b"alert certificate revoked", err)
        self.assertNotIn(b"HTTP/1.1 200", out)

    def test_client_crl_needs_client_ca(self):
        conf = self.conf_file(["listen = 127.0.0.1:1", "client_crl = x.crl"])
        rc, out, err = run(harness.WRAP + [harness.BIN, "-t", "-c", conf], 30)
        self.assertEqual(rc, 2)
        self.assertIn(b"t.conf:2: [default]: client_crl: without client_ca",
                      err)


class ClientVerifyOptional(AuthBase):
    """client_verify = optional: the certificate is asked for, a client
    without one is served and the backend sees no subject; one with a
    good certificate is served with its subject; one with a bad one is
    still refused."""

    def test_clients_with_and_without_certificates_are_served(self):
        self.blog = os.path.join(self.tmp, "backend.jsonl")
        open(self.blog, "w").close()
        b = self.backend("http", log=self.blog)
        g = self.gate(b, client_ca=os.path.join(pki(), "ca.crt"),
                      client_verify="optional")
        req = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        d = pki()
        versions = ["tls1_2"] + (["tls1_3"] if self.tls13 else [])
        for v in versions:
            rc, out, err = run(["openssl", "s_client", "-" + v, "-connect",
                                "127.0.0.1:%d" % g.port, "-ign_eof"], 30,
                               stdin=req)
            self.assertIn(b"HTTP/1.1 200 ", out, (v, err))
            rc, out, err = run(["openssl", "s_client", "-" + v, "-connect",
                                "127.0.0.1:%d" % g.port, "-cert",
                                os.path.join(d, "alice.crt"), "-key",
                                os.path.join(d, "alice.key"), "-ign_eof"],
                               30, stdin=req)
            self.assertIn(b"HTTP/1.1 200 ", out, (v, err))
        rc, code, _ = run(["curl", "-sk", "-o", os.devnull, "-w",
                           "%{http_code}", "-H", "X-Client-Cert-Subject: x",
                           "https://127.0.0.1:%d/" % g.port], 30)
        self.assertEqual(code, b"200")
        s = tls_connect(g.port, ctx_with("bob"))
        s.sendall(req)
        self.assertTrue(recv_to_eof(s).startswith(b"HTTP/1.1 200 "))
        s.close()
        # A certificate from another CA is refused all the same.
        with self.assertRaises((ssl.SSLError, OSError)):
            s = tls_connect(g.port, ctx_with("mallory"))
            try:
                s.sendall(req)
                recv_to_eof(s)
            finally:
                s.close()
        conns = g.wait_conns(2 * len(versions) + 3)
        self.assertEqual(sorted(c["outcome"] for c in conns),
                         ["client-cert-untrusted"] +
                         ["ok"] * (2 * len(versions) + 2))
        subjects = [dict((k.lower(), v) for k, v in r["headers"]).get(
            "x-client-cert-subject") for r in requests_seen(self.blog)]
        self.assertEqual(subjects, [None, SUBJECT] * len(versions) +
                         [None, "CN=bob,O=Acme,C=DE"])


    def test_a_client_without_certificate_resumes_and_gets_none(self):
        """A ticket made for a client without a certificate resumes at
        the optional service, which still hands on no Client-Cert; once
        a reload requires certificates, it does not resume."""
        self.blog = os.path.join(self.tmp, "backend.jsonl")
        open(self.blog, "w").close()
        b = self.backend("http", log=self.blog)
        g = self.gate(b, client_ca=os.path.join(pki(), "ca.crt"),
                      client_verify="optional")
        req = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        versions = ["tls1_2"] + (["tls1_3"] if self.tls13 else [])
        for v in versions:
            sess = os.path.join(self.tmp, v + ".sess")
            for arg in ("-sess_out", "-sess_in"):
                rc, out, err = run(["openssl", "s_client", "-" + v,
                                    "-connect", "127.0.0.1:%d" % g.port,
                                    arg, sess, "-ign_eof"], 30, stdin=req)
                self.assertIn(b"HTTP/1.1 200 ", out, (v, err))
            self.assertRegex(out.decode("latin-1"), r"(?m)^Reused,", v)
        conns = g.wait_conns(2 * len(versions))
        self.assertEqual([c["resumed"] for c in conns],
                         ["no", "yes"] * len(versions))
        for r in requests_seen(self.blog):
            h = [k.lower() for k, _ in r["headers"]]
            self.assertFalse({"client-cert", "x-client-cert-subject"} &
                             set(h), h)
        self.assertEqual(len(requests_seen(self.blog)), 2 * len(versions))
        with open(g.conf_path) as f:
            conf = f.read()
        with open(g.conf_path, "w") as f:
            f.write(conf.replace("client_verify = optional",
                                 "client_verify = required"))
        g.signal(signal.SIGHUP)
        g.wait_log(r"^tlsgate: info: reload: done", 10)
        for v in versions:
            rc, out, err = run(["openssl", "s_client", "-" + v, "-connect",
                                "127.0.0.1:%d" % g.port, "-sess_in",
                                os.path.join(self.tmp, v + ".sess"),
                                "-ign_eof"], 30, stdin=req)
            self.assertNotIn(b"HTTP/1.1 200", out)
        conns = g.wait_conns(3 * len(versions))[2 * len(versions):]
        self.assertEqual({c["resumed"] for c in conns}, {"no"})


    def test_a_ticket_that_opens_but_does_not_resume_hands_on_nothing(self):
        """A TLS 1.2 ticket that opens, alice's certificate in it and
        checked again, at a hello that does not offer its suite: a full
        handshake, where this client sends no certificate.  The backend
        gets no Client-Cert: the ticket's counts only once resumed."""
        self.blog = os.path.join(self.tmp, "backend.jsonl")
        open(self.blog, "w").close()
        b = self.backend("http", log=self.blog)
        g = self.gate(b, client_ca=os.path.join(pki(), "ca.crt"),
                      client_verify="optional")
        d = pki()
        req = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        sess = os.path.join(self.tmp, "alice.sess")
        base = ["openssl", "s_client", "-tls1_2", "-connect",
                "127.0.0.1:%d" % g.port, "-ign_eof"]
        rc, out, err = run(base + [
            "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256", "-cert",
            os.path.join(d, "alice.crt"), "-key",
            os.path.join(d, "alice.key"), "-sess_out", sess], 30, stdin=req)
        self.assertIn(b"HTTP/1.1 200 ", out, err)
        rc, out, err = run(base + [
            "-cipher", "ECDHE-ECDSA-AES256-GCM-SHA384", "-sess_in", sess],
            30, stdin=req)
        self.assertIn(b"HTTP/1.1 200 ", out, err)
        self.assertRegex(out.decode("latin-1"), r"(?m)^New, TLSv1\.2")
        conns = g.wait_conns(2)
        self.assertEqual([c["resumed"] for c in conns], ["no", "no"])
        # The ticket did open: the second hello offered one of ours.
        self.assertEqual(stats(g)["ticket_hits"], 1)
        seen = [dict((k.lower(), v) for k, v in r["headers"]).get(
            "client-cert") for r in requests_seen(self.blog)]
        self.assertEqual(len(seen), 2)
        self.assertIsNotNone(seen[0])
        self.assertIsNone(seen[1])


class HandedOn(AuthBase):
    """The client certificate at the backend: RFC 9440 Client-Cert in
    http mode (a client's own Client-Cert and Client-Cert-Chain never
    get through), and in tcp mode the PROXY v2 SSL TLV with the
    subject's CN, as haproxy's send-proxy-v2-ssl-cn sends them."""

    def der(self, client):
        rc, out, err = run(["openssl", "x509", "-in",
                            os.path.join(pki(), client + ".crt"),
                            "-outform", "DER"], 30)
        return out

    def test_client_cert_is_the_der_and_a_clients_own_is_dropped(self):
        self.blog = os.path.join(self.tmp, "backend.jsonl")
        open(self.blog, "w").close()
        b = self.backend("http", log=self.blog)
        g = self.gate(b, client_ca=os.path.join(pki(), "ca.crt"),
                      client_verify="optional")
        forged = (b"Client-Cert: :AAAA:\r\nClient-Cert-Chain: :AAAA:\r\n"
                  b"client-cert: :BBBB:\r\n")
        for client in ("alice", "bob", None):
            s = tls_connect(g.port, ctx_with(client))
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n" + forged +
                      b"Connection: close\r\n\r\n")
            self.assertTrue(recv_to_eof(s).startswith(b"HTTP/1.1 200 "))
            s.close()
        rc, code, _ = run(["curl", "-sk", "-o", os.devnull, "-w",
                           "%{http_code}", "-H", "Client-Cert: :AAAA:",
                           "--cert", os.path.join(pki(), "carol.crt"),
                           "--key", os.path.join(pki(), "carol.key"),
                           "https://127.0.0.1:%d/" % g.port], 30)
        self.assertEqual(code, b"200")
        seen = []
        for r in requests_seen(self.blog):
            h = [(k.lower(), v) for k, v in r["headers"]]
            self.assertEqual([k for k, _ in h if k == "client-cert-chain"],
                             [])
            seen.append([v for k, v in h if k == "client-cert"])
        want = [[":%s:" % base64.b64encode(self.der(c)).decode()]
                for c in ("alice", "bob")] + [[]] + \
            [[":%s:" % base64.b64encode(self.der("carol")).decode()]]
        self.assertEqual(seen, want)

    def chain_ders(self, n):
        """long_chain(n)'s PEM and key, and the DER of each certificate
        in it, in the order a client sends them (leaf first)."""
        pem, key = long_chain(n)
        d = pki()
        ders = [self.der_of(os.path.join(d, "chain%d-%d.crt" % (n, i)))
                for i in range(n, -1, -1)]
        return pem, key, ders

    def der_of(self, path):
        rc, out, err = run(["openssl", "x509", "-in", path, "-outform",
                            "DER"], 30)
        self.assertEqual(rc, 0, err)
        return out

    def test_client_cert_chain_is_the_intermediates_in_order(self):
        """RFC 9440 2.3: Client-Cert-Chain is a list of byte sequences,
        the intermediates in the order the client sent them, the leaf
        (Client-Cert) left out; a client that sent none gets none, and a
        client's own never gets through."""
        self.blog = os.path.join(self.tmp, "backend.jsonl")
        open(self.blog, "w").close()
        b = self.backend("http", log=self.blog)
        g = self.gate(b, client_ca=os.path.join(pki(), "ca.crt"))
        forged = b"Client-Cert-Chain: :AAAA:, :BBBB:\r\n"
        pem2, key2, ders2 = self.chain_ders(2)
        ctx = client_ctx()
        ctx.load_cert_chain(pem2, key2)
        for c in (ctx, ctx_with("alice")):
            s = tls_connect(g.port, c)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n" + forged +
                      b"Connection: close\r\n\r\n")
            self.assertTrue(recv_to_eof(s).startswith(b"HTTP/1.1 200 "))
            s.close()
        # curl with a PEM holding the leaf and its intermediate.
        pem1, key1, ders1 = self.chain_ders(1)
        rc, code, _ = run(["curl", "-sk", "-o", os.devnull, "-w",
                           "%{http_code}", "-H", "Client-Cert-Chain: :AAAA:",
                           "--cert", pem1, "--key", key1,
                           "https://127.0.0.1:%d/" % g.port], 30)
        self.assertEqual(code, b"200")
        # openssl s_client, the intermediates from -cert_chain, at each
        # version.
        d = pki()
        inter = os.path.join(self.tmp, "intermediates.pem")
        with open(inter, "w") as f:
            for name in ("chain2-1.crt", "chain2-0.crt"):
                with open(os.path.join(d, name)) as c:
                    f.write(c.read())
        versions = ["tls1_2"] + (["tls1_3"] if self.tls13 else [])
        for v in versions:
            rc, out, err = run(["openssl", "s_client", "-" + v, "-connect",
                                "127.0.0.1:%d" % g.port, "-cert",
                                os.path.join(d, "chain2-2.crt"),
                                "-cert_chain", inter,
                                "-key", key2, "-ign_eof"], 30,
                               stdin=b"GET / HTTP/1.1\r\nHost: x\r\n"
                                     b"Connection: close\r\n\r\n")
            self.assertIn(b"HTTP/1.1 200 ", out, (v, err))

        def sf(ders):
            return ", ".join(":%s:" % base64.b64encode(x).decode()
                             for x in ders)
        seen = []
        for r in requests_seen(self.blog):
            h = [(k.lower(), v) for k, v in r["headers"]]
            seen.append(([v for k, v in h if k == "client-cert"],
                         [v for k, v in h if k == "client-cert-chain"]))
        self.assertEqual(seen, [
            ([sf(ders2[:1])], [sf(ders2[1:])]),
            ([sf([self.der("alice")])], []),
            ([sf(ders1[:1])], [sf(ders1[1:])])] +
            [([sf(ders2[:1])], [sf(ders2[1:])])] * len(versions))

    def test_a_resumed_connection_hands_on_the_chain_it_was_sealed_with(
            self):
        """A ticket carries the intermediates too: a client whose
        certificate only chains to client_ca through two of them
        resumes (the ticket's chain is checked again, whole), and each
        resumed request carries the Client-Cert and Client-Cert-Chain of
        the full handshake, at each version."""
        self.blog = os.path.join(self.tmp, "backend.jsonl")
        open(self.blog, "w").close()
        b = self.backend("http", log=self.blog)
        g = self.gate(b, client_ca=os.path.join(pki(), "ca.crt"))
        pem, key, ders = self.chain_ders(2)
        versions = [ssl.TLSVersion.TLSv1_2] + \
            ([ssl.TLSVersion.TLSv1_3] if self.tls13 else [])
        for v in versions:
            ctx = client_ctx()
            ctx.load_cert_chain(pem, key)
            ctx.options &= ~ssl.OP_NO_TICKET
            ctx.minimum_version = ctx.maximum_version = v
            self.assertEqual(self.get_three(g, ctx), [False, True, True], v)
        want = ([":%s:" % base64.b64encode(ders[0]).decode()],
                [", ".join(":%s:" % base64.b64encode(x).decode()
                           for x in ders[1:])])
        seen = []
        for r in requests_seen(self.blog):
            h = [(k.lower(), v) for k, v in r["headers"]]
            seen.append(([v for k, v in h if k == "client-cert"],
                         [v for k, v in h if k == "client-cert-chain"]))
        self.assertEqual(seen, [want] * 3 * len(versions))
        st = stats(g)
        self.assertEqual((st["ticket_hits"], st["ticket_misses"]),
                         (2 * len(versions), 0))

    def test_a_chain_larger_than_its_buffer_is_refused(self):
        """The intermediates are handed on whole or the client is refused
        at the handshake, as a leaf too large is; tcp mode hands on
        nothing and takes the same chain.  -t prints the limit."""
        g = self.auth_gate()
        rc, out, err = run(harness.WRAP + [harness.BIN, "-t", "-c", g.conf_path], 30)
        self.assertEqual(rc, 0, err)
        m = re.search(r"(?m)^client certificates = (\d+) \+ (\d+) ", out.decode())
        self.assertIsNotNone(m, out)
        limit = int(m.group(2))
        m = re.search(r"(?m)^slot = \d+ \(.* client certificates (\d+) ",
                      out.decode())
        self.assertGreaterEqual(int(m.group(1)), limit)
        pem, key, ders = self.chain_ders(7)
        self.assertGreater(sum(map(len, ders[1:])), limit)
        ctx = client_ctx()
        ctx.load_cert_chain(pem, key)
        with self.assertRaises((ssl.SSLError, OSError)):
            s = tls_connect(g.port, ctx)
            try:
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                recv_to_eof(s)
            finally:
                s.close()
        c = g.wait_conns(1)[0]
        self.assertEqual((c["outcome"], c["alert"]),
                         ("client-cert-too-large", "42"))
        self.assertRegex(g.log(), r"(?m)^tlsgate: warn: client cert refused "
                         r"svc=default bytes=%d "
                         r"reason=chain-larger-than-client-chain-max$"
                         % sum(map(len, ders[1:])))
        self.assertEqual(requests_seen(self.blog), [])
        g.stop()
        g = self.auth_gate(mode="tcp", backend_mode="echo")
        s = tls_connect(g.port, ctx)
        s.sendall(b"ping")
        self.assertEqual(s.recv(4), b"ping")
        close_tls(s)

    def test_proxy_v2_carries_the_ssl_tlv_with_the_cn(self):
        log = os.path.join(self.tmp, "backend.log")
        b = ProxyBackend("echo", log)
        self.backends.append(b)
        g = self.gate(b.addr, mode="tcp", proxy_protocol="v2",
                      client_ca=os.path.join(pki(), "ca.crt"),
                      client_verify="optional")
        for client in ("alice", None):
            s = tls_connect(g.port, ctx_with(client))
            s.sendall(b"ping")
            self.assertEqual(s.recv(4), b"ping")
            version = s.version()
            close_tls(s)
        events = b.wait_events(2)
        self.assertEqual(events[0]["proxy"]["ssl"],
                         {"client": 3, "verify": 0, "cn": "alice",
                          "ssl_version": version})
        self.assertEqual(events[1]["proxy"]["ssl"],
                         {"client": 1, "verify": 1,
                          "ssl_version": version})

    def test_proxy_v2_tlv_of_a_resumed_connection_has_the_tickets_cn(self):
        """The resumed connection's TLV names the ticket's certificate:
        the same CN, verified, sent in the session (PP2_CLIENT_CERT_SESS,
        4) and not on this connection (PP2_CLIENT_CERT_CONN, 2)."""
        log = os.path.join(self.tmp, "backend.log")
        b = ProxyBackend("echo", log)
        self.backends.append(b)
        g = self.gate(b.addr, mode="tcp", proxy_protocol="v2",
                      client_ca=os.path.join(pki(), "ca.crt"))
        ctx = ctx_with("alice")
        ctx.options &= ~ssl.OP_NO_TICKET
        sess, reused = None, []
        for _ in range(2):
            s = tls_connect(g.port, ctx, session=sess)
            s.sendall(b"ping")
            self.assertEqual(s.recv(4), b"ping")
            version = s.version()
            reused.append(s.session_reused)
            sess = s.session
            close_tls(s)
        self.assertEqual(reused, [False, True])
        events = b.wait_events(2)
        self.assertEqual([e["proxy"]["ssl"] for e in events],
                         [{"client": c, "verify": 0, "cn": "alice",
                           "ssl_version": version} for c in (3, 5)])
