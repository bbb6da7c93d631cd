# SPDX-License-Identifier: ISC
"""Policy keys with real clients (openssl s_client, Python ssl, curl):
every suite and group a service allows serves an HTTP request through to
the backend; one it leaves out gets a handshake_failure alert, not a
reset, and the next client is served; the service's order wins over the
client's; the bsi profile; a key exchange group narrowed away from the
certificate's own curve still signs and still checks a client's
certificate; a session whose suite a reload removed does not resume."""
import os
import re
import shutil
import signal
import ssl
import subprocess
import tempfile

from harness import (BIN, LOOPBACK, WRAP, Gate, GateTest, certs, client_ctx,
                     close_tls, http_bytes_body, recv_to_eof, run,
                     tls_connect, write_conf)

N = 1009
GET = b"GET /bytes/%d HTTP/1.1\r\nHost: localhost\r\n" \
    b"Connection: close\r\n\r\n" % N
# OpenSSL's names of tlsgate's suites, by tlsgate's name.
SUITE = {"aes128-gcm": "AES128-GCM-SHA256", "aes256-gcm": "AES256-GCM-SHA384",
         "chacha20-poly1305": "CHACHA20-POLY1305"}
# OpenSSL's group names, and what s_client prints as the server's key.
GROUP = {"x25519": ("X25519", "X25519"),
         "secp256r1": ("P-256", "ECDH, prime256v1"),
         "secp384r1": ("P-384", "ECDH, secp384r1"),
         "secp521r1": ("P-521", "ECDH, secp521r1")}
REFUSED = "SSL alert number 40"
# A TLS 1.2 client holds an ECDSA certificate to its own groups list too
# (RFC 8422 5.1), so a client that offers a few groups gets the RSA one.
_dir = None


def run_s_client(port, args):
    """openssl s_client, one GET that closes: (rc, stdout, stderr)."""
    return run(["openssl", "s_client", "-ign_eof", "-connect",
                "127.0.0.1:%d" % port] + args, 20, stdin=b"GET / HTTP/1.1\r\nHost: x\r\n"
               b"Connection: close\r\n\r\n")


def openssl(*args):
    rc, _, err = run(["openssl"] + list(args), 120)
    if rc != 0:
        raise RuntimeError("openssl %s: %s" % (args[0], err.decode()))


def pki():
    """A P-384 server certificate; a P-384 CA and a client certificate
    with a P-384 key it signed.  Made once per run."""
    global _dir
    if _dir is None:
        _dir = tempfile.mkdtemp(prefix="tlsgate-policy-")
        p = lambda n: os.path.join(_dir, n)  # noqa: E731
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-384",
              "-nodes"]
        openssl("req", "-x509", *ec, "-keyout", p("srv.key"), "-out",
                p("srv.crt"), "-days", "30", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost")
        openssl("req", "-x509", *ec, "-keyout", p("ca.key"), "-out",
                p("ca.crt"), "-days", "30", "-subj", "/CN=policy test CA")
        openssl("req", *ec, "-keyout", p("cl.key"), "-out", p("cl.csr"),
                "-subj", "/CN=carol")
        openssl("x509", "-req", "-in", p("cl.csr"), "-CA", p("ca.crt"),
                "-CAkey", p("ca.key"), "-set_serial", "7", "-days", "30",
                "-out", p("cl.crt"))
    return _dir


def tearDownModule():
    if _dir is not None:
        shutil.rmtree(_dir, ignore_errors=True)


def s_client(port, *args, stdin=GET):
    """openssl s_client at TLS 1.2 with args, sending an HTTP GET:
    (exit status, stdout, stderr) as text."""
    rc, out, err = run(["openssl", "s_client", "-no_ticket", "-ign_eof",
                        "-connect", "%s:%d" % (LOOPBACK, port), "-tls1_2"] +
                       list(args), 30, stdin=stdin)
    return rc, out.decode("latin-1"), err.decode("latin-1")


class Policy(GateTest):
    """The lists and profiles as BearSSL's TLS 1.2 takes them; TLS 1.3:
    PolicyConfig's last tests."""
    TLS_MAX = "1.2"

    def served(self, port, *args):
        """An s_client handshake that carries the GET to the backend and
        the whole answer back; returns its stdout."""
        rc, out, err = s_client(port, *args)
        self.assertEqual(rc, 0, err)
        self.assertIn("HTTP/1.1 200 ", out)
        self.assertIn(http_bytes_body(N).decode("latin-1"), out)
        return out

    def refused(self, g, *args):
        """An s_client handshake refused with handshake_failure, logged
        as the alert tlsgate sent, and the next default client served."""
        # Counted by outcome: the line of the client served just before
        # may be logged after this one starts.
        pat = r"^tlsgate: info: conn id=.* outcome=no-shared-\S*.*$"
        before = len(re.findall(pat, g.log(), re.M))
        rc, out, err = s_client(g.port, *args)
        self.assertNotEqual(rc, 0, out)
        self.assertIn(REFUSED, err)
        line = g.wait_log(pat, count=before + 1)[before].group(0)
        conn = dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)
        self.assertEqual(conn["alert"], "40", conn)
        self.served(g.port)

    def gate_p384(self, **conf):
        """tlsgate with the P-384 certificate."""
        d = pki()
        conf.update(cert=os.path.join(d, "srv.crt"),
                    key=os.path.join(d, "srv.key"),
                    backend=self.backend("http").addr, **self.tls_conf())
        g = Gate(self.tmp, conf)
        self.gates.append(g)
        return g


    def test_each_allowed_suite_is_served_and_the_left_out_one_refused(self):
        for cert, kind in (("ec", "ECDSA"), ("rsa", "RSA")):
            g = self.gate(self.backend("http"), cert=cert,
                          suites="aes256-gcm chacha20-poly1305")
            for i, name in enumerate(("aes256-gcm", "chacha20-poly1305")):
                ossl = "ECDHE-%s-%s" % (kind, SUITE[name])
                out = self.served(g.port, "-cipher", ossl)
                self.assertIn("Cipher is %s" % ossl, out)
                self.assertEqual(g.wait_conns(i + 1)[i]["suite"], ossl)
            self.refused(g, "-cipher", "ECDHE-%s-%s" % (kind,
                                                        SUITE["aes128-gcm"]))
            g.stop()

    def test_each_allowed_group_is_served_and_the_left_out_one_refused(self):
        g = self.gate(self.backend("http"), cert="rsa",
                      groups="secp256r1 secp384r1 secp521r1")
        for name in ("secp256r1", "secp384r1", "secp521r1"):
            out = self.served(g.port, "-groups", GROUP[name][0])
            self.assertIn("Server Temp Key: %s" % GROUP[name][1], out)
        self.refused(g, "-groups", "X25519")

    def test_service_order_of_suites_wins_over_the_clients(self):
        g = self.gate(self.backend("http"),
                      suites="chacha20-poly1305 aes256-gcm aes128-gcm")
        mine = ["ECDHE-ECDSA-" + SUITE[n] for n in
                ("aes128-gcm", "aes256-gcm", "chacha20-poly1305")]
        for offered, want in ((mine, mine[2]), (mine[:2], mine[1]),
                              (mine[::-1], mine[2])):
            s = tls_connect(g.port, client_ctx(ciphers=":".join(offered)))
            self.assertEqual(s.cipher()[0], want, offered)
            close_tls(s)

    def test_service_order_of_groups_wins_over_bearssls_own(self):
        # BearSSL alone takes X25519 first, then the lowest ID (P-256).
        g = self.gate(self.backend("http"),
                      groups="secp384r1 x25519 secp256r1")
        out = self.served(g.port, "-groups", "X25519:P-256:P-384")
        self.assertIn("Server Temp Key: ECDH, secp384r1", out)
        out = self.served(g.port, "-groups", "P-256:X25519")
        self.assertIn("Server Temp Key: X25519", out)

    def test_default_order_is_x25519_then_the_smallest_nist_curve(self):
        g = self.gate(self.backend("http"))
        out = self.served(g.port, "-groups", "P-521:P-384:P-256:X25519")
        self.assertIn("Server Temp Key: X25519", out)
        out = self.served(g.port, "-groups", "P-521:P-384:P-256")
        self.assertIn("Server Temp Key: ECDH, prime256v1", out)

    def test_python_set_ciphers_and_set_ecdh_curve(self):
        g = self.gate(self.backend("http"), cert="rsa", suites="aes128-gcm",
                      groups="secp384r1")
        ctx = client_ctx(ciphers="ECDHE-RSA-AES128-GCM-SHA256")
        ctx.set_ecdh_curve("secp384r1")
        s = tls_connect(g.port, ctx)
        s.sendall(GET)
        self.assertTrue(recv_to_eof(s).endswith(http_bytes_body(N)))
        close_tls(s)
        for ciphers, curve in (("ECDHE-RSA-AES256-GCM-SHA384", "secp384r1"),
                               ("ECDHE-RSA-AES128-GCM-SHA256", "prime256v1")):
            ctx = client_ctx(ciphers=ciphers)
            ctx.set_ecdh_curve(curve)
            with self.assertRaises(ssl.SSLError) as e:
                tls_connect(g.port, ctx)
            self.assertEqual(e.exception.reason,
                             "SSLV3_ALERT_HANDSHAKE_FAILURE")

    def test_curl_ciphers_and_curves(self):
        g = self.gate(self.backend("http"), cert="rsa",
                      suites="chacha20-poly1305", groups="x25519")
        url = "https://localhost:%d/bytes/%d" % (g.port, N)
        res = "localhost:%d:%s" % (g.port, LOOPBACK)

        def curl(ciphers, curves):
            return run(["curl", "-sSk", "--max-time", "20", "--resolve", res,
                        "--tls-max", "1.2", "--ciphers", ciphers, "--curves",
                        curves, url], 30)
        rc, out, err = curl("ECDHE-RSA-CHACHA20-POLY1305", "X25519")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, http_bytes_body(N))
        for ciphers, curves in (("ECDHE-RSA-AES128-GCM-SHA256", "X25519"),
                                ("ECDHE-RSA-CHACHA20-POLY1305", "P-256")):
            rc, out, err = curl(ciphers, curves)
            self.assertEqual(rc, 35, err)
            self.assertIn(b"alert handshake failure", err)

    def test_bsi_profile_leaves_out_chacha20_and_x25519(self):
        g = self.gate(self.backend("http"), cert="rsa", tls_profile="bsi")
        for name in ("aes128-gcm", "aes256-gcm"):
            self.served(g.port, "-cipher", "ECDHE-RSA-" + SUITE[name])
        for name in ("secp256r1", "secp384r1", "secp521r1"):
            out = self.served(g.port, "-groups", GROUP[name][0])
            self.assertIn("Server Temp Key: %s" % GROUP[name][1], out)
        self.refused(g, "-cipher", "ECDHE-RSA-" + SUITE["chacha20-poly1305"])
        self.refused(g, "-groups", "X25519")
        # Preferred: AES-128-GCM on P-256, the first of each list.
        out = self.served(g.port)
        self.assertIn("Cipher is ECDHE-RSA-AES128-GCM-SHA256", out)
        self.assertIn("Server Temp Key: ECDH, prime256v1", out)

    def test_certificate_curve_outside_groups_still_signs(self):
        g = self.gate_p384(groups="x25519")
        out = self.served(g.port)
        self.assertIn("Server Temp Key: X25519", out)
        self.assertRegex(out, r"Peer signature type: ECDSA")

    def test_client_certificate_curve_outside_groups_is_verified(self):
        d = pki()
        g = self.gate_p384(groups="secp256r1",
                           client_ca=os.path.join(d, "ca.crt"))
        out = self.served(g.port, "-cert", os.path.join(d, "cl.crt"), "-key",
                          os.path.join(d, "cl.key"))
        self.assertIn("Server Temp Key: ECDH, prime256v1", out)
        self.assertEqual(g.wait_conns(1)[-1]["outcome"], "ok")

    def test_reload_that_removes_a_suite_does_not_resume_its_sessions(self):
        g = self.gate(self.backend("http"))
        sess = os.path.join(self.tmp, "sess.pem")
        chacha = "ECDHE-ECDSA-CHACHA20-POLY1305"
        both = chacha + ":ECDHE-ECDSA-AES128-GCM-SHA256"
        out = self.served(g.port, "-cipher", chacha, "-sess_out", sess)
        self.assertIn("New, TLSv1.2, Cipher is " + chacha, out)
        # Before the reload the session resumes, with its suite.
        out = self.served(g.port, "-cipher", both, "-sess_in", sess)
        self.assertIn("Reused, TLSv1.2, Cipher is " + chacha, out)
        with open(g.conf_path) as f:
            conf = dict(l.split(" = ", 1) for l in f.read().splitlines())
        conf["suites"] = "aes128-gcm aes256-gcm"
        write_conf(g.conf_path, conf)
        g.signal(signal.SIGHUP)
        g.wait_log(r"^tlsgate: info: reload: done ", 10)
        out = self.served(g.port, "-cipher", both, "-sess_in", sess)
        self.assertIn("New, TLSv1.2, Cipher is ECDHE-ECDSA-AES128-GCM-SHA256",
                      out)
        conns = g.wait_conns(3)
        self.assertEqual([c["resumed"] for c in conns], ["no", "yes", "no"])
        self.assertEqual(conns[-1]["suite"], "ECDHE-ECDSA-AES128-GCM-SHA256")

    def test_reload_that_raises_tls_min_refuses_a_resuming_older_client(self):
        # The session cache outlives a reload; the old tls_min must not.
        g = self.gate(self.backend("http"), tls_max="1.3")
        sess = os.path.join(self.tmp, "sess.pem")
        out = self.served(g.port, "-sess_out", sess)
        self.assertIn("New, TLSv1.2, ", out)
        out = self.served(g.port, "-sess_in", sess)
        self.assertIn("Reused, TLSv1.2, ", out)
        with open(g.conf_path) as f:
            conf = dict(l.split(" = ", 1) for l in f.read().splitlines())
        conf["tls_min"] = "1.3"
        write_conf(g.conf_path, conf)
        g.signal(signal.SIGHUP)
        g.wait_log(r"^tlsgate: info: reload: done ", 10)
        rc, out, err = s_client(g.port, "-sess_in", sess)
        self.assertNotEqual(rc, 0, out)
        self.assertIn("SSL alert number 70", err)
        self.assertEqual([(c["resumed"], c["alert"], c["outcome"]) for c in
                          g.wait_conns(3)],
                         [("no", "0", "ok"), ("yes", "0", "ok"),
                          ("no", "70", "protocol-version")])


class PolicyConfig(GateTest):
    """What tlsgate -t resolves; modern and the lists in TLS 1.3."""
    TLS_MAX = "1.3"

    def resolved(self, lines):
        """tlsgate -t on a file of a certificate, then lines (from line
        3): (status, stdout, stderr, path)."""
        c = certs()
        path = self.conf_file(["cert = " + c.path["ec.crt"],
                               "key = " + c.path["ec.key"]] + lines)
        p = subprocess.run(WRAP + [BIN, "-t", "-c", path],
                           capture_output=True, text=True, timeout=30)
        return p.returncode, p.stdout, p.stderr, path

    def test_check_prints_resolved_suites_and_groups(self):
        rc, out, err, _ = self.resolved(["suites = chacha20-poly1305 "
                                         "aes128-gcm",
                                         "groups = secp384r1, x25519"])
        self.assertEqual(rc, 0, err)
        self.assertIn("\nsuites = chacha20-poly1305 aes128-gcm\n", out)
        self.assertIn("\ngroups = secp384r1 x25519\n", out)

    def test_ems_is_optional_by_default_and_required_is_shown(self):
        rc, out, err, _ = self.resolved([])
        self.assertEqual(rc, 0, err)
        self.assertIn("\nems = optional\n", out)
        rc, out, err, _ = self.resolved(["ems = required"])
        self.assertEqual(rc, 0, err)
        self.assertIn("\nems = required\n", out)
        self.assertNotIn("\nems = optional\n", out)

    def test_bsi_profile_requires_ems_unless_its_scope_says_otherwise(self):
        rc, out, err, _ = self.resolved(["tls_profile = bsi"])
        self.assertEqual(rc, 0, err)
        self.assertIn("\nems = required\n", out)
        for lines in (["ems = optional", "tls_profile = bsi"],
                      ["tls_profile = bsi", "ems = optional"]):
            rc, out, err, _ = self.resolved(lines)
            self.assertEqual(rc, 0, err)
            self.assertIn("\nems = optional\n", out)
        # A section's profile replaces what the section inherits.
        rc, out, err, _ = self.resolved([
            "ems = required", "[a]", "listen = 127.0.0.1:1",
            "tls_profile = default", "[b]", "listen = 127.0.0.1:2"])
        self.assertEqual(rc, 0, err)
        a, b = out.split("\n[a]\n")[1].split("\n[b]\n")
        self.assertIn("\nems = optional\n", a)
        self.assertIn("\nems = required\n", b)

    def test_explicit_keys_win_over_the_profile_in_either_order(self):
        for lines in (["suites = aes256-gcm", "tls_profile = bsi"],
                      ["tls_profile = bsi", "suites = aes256-gcm"]):
            rc, out, err, _ = self.resolved(lines)
            self.assertEqual(rc, 0, err)
            self.assertIn("\ntls_profile = bsi\n", out)
            self.assertIn("\nsuites = aes256-gcm\n", out)
            pq = ("secp256r1mlkem768 "
                  if "secp384r1mlkem1024 = built in" in out else "")
            self.assertIn("\ngroups = %ssecp256r1 secp384r1 secp521r1\n" %
                          pq, out)

    def test_section_profile_replaces_inherited_lists(self):
        rc, out, err, _ = self.resolved([
            "suites = chacha20-poly1305", "[a]", "listen = 127.0.0.1:1",
            "tls_profile = bsi", "[b]", "listen = 127.0.0.1:2"])
        self.assertEqual(rc, 0, err)
        a, b = out.split("\n[a]\n")[1].split("\n[b]\n")
        self.assertIn("\nsuites = aes128-gcm aes256-gcm\n", a)
        self.assertIn("\nsuites = chacha20-poly1305\n", b)

    def test_modern_profile_is_tls13_only(self):
        rc, out, err, _ = self.resolved(["tls_profile = modern"])
        self.assertEqual(rc, 0, err)
        # The post-quantum hybrids lead when built in (not PQ=0).
        pq = ("x25519mlkem768 secp256r1mlkem768 "
              if "secp384r1mlkem1024 = built in" in out else "")
        for line in ["tls_min = 1.3", "tls_max = 1.3",
                     "suites = aes128-gcm aes256-gcm chacha20-poly1305",
                     "groups = %sx25519 secp256r1 secp384r1" % pq]:
            self.assertIn("\n%s\n" % line, out)
        g = self.gate(self.backend("http"), tls_profile="modern")
        rc, out, err = run_s_client(g.port, ["-tls1_2"])
        self.assertNotEqual(rc, 0)
        self.assertIn(b"protocol version", err)
        rc, out, err = run_s_client(g.port, ["-tls1_3"])
        self.assertIn(b"HTTP/1.1 200 ", out)

    def test_tls13_takes_the_service_suite_and_group_order(self):
        g = self.gate(self.backend("http"),
                      suites="chacha20-poly1305 aes128-gcm",
                      groups="secp256r1 x25519")
        # The first of our groups the client sent a share for: no HRR.
        rc, out, err = run_s_client(g.port, ["-tls1_3", "-brief"])
        self.assertIn(b"TLS_CHACHA20_POLY1305_SHA256", err + out)
        self.assertIn(b"Server Temp Key: X25519", err + out)
        # A share for none of ours: HRR for our first it lists.
        rc, out, err = run_s_client(g.port, ["-tls1_3", "-brief", "-groups",
                                             "P-384:X25519:P-256"])
        self.assertIn(b"Server Temp Key: ECDH, prime256v1", err + out)
        conn = g.wait_conns(1)[-1]
        self.assertEqual((conn["version"], conn["suite"]),
                         ("TLS1.3", "TLS_CHACHA20_POLY1305_SHA256"))
        # bsi: no ChaCha20, no X25519, in TLS 1.3 too.
        g = self.gate(self.backend("http"), tls_profile="bsi")
        rc, out, err = run_s_client(g.port, [
            "-tls1_3", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"])
        self.assertIn(b"handshake failure", err)
        rc, out, err = run_s_client(g.port, ["-tls1_3", "-groups", "X25519"])
        self.assertIn(b"handshake failure", err)
        rc, out, err = run_s_client(g.port, ["-tls1_3", "-brief"])
        self.assertIn(b"Server Temp Key: ECDH, prime256v1", err + out)
