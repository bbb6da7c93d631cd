# SPDX-License-Identifier: ISC
"""What the TLS policy refuses: old versions, non-AEAD and non-ECDHE
suites, renegotiation.  Each refusal is checked to come from tlsgate
(its log names the alert it sent), so a client that could not even try
would not pass for a refusal; where a near client command is served, it
is shown to be."""
import ssl
import subprocess
import time

from harness import (SLOW, GateTest, client_ctx, close_tls, deadline,
                     echo_roundtrip, run, tls_connect)

# The alert sent, and the reason the log gives for it.
PROTOCOL_VERSION = ("70", "version-below-1.2")
HANDSHAKE_FAILURE = ("40", "no-shared-suite")
# Debian's OpenSSL refuses TLS 1.0/1.1 at its default security level.
LEGACY = ["-cipher", "DEFAULT@SECLEVEL=0"]


def s_client(port, args, stdin=b""):
    """One s_client connection; True if a handshake completed."""
    rc, out, err = run(["openssl", "s_client"] + args +
                       ["-connect", "127.0.0.1:%d" % port], 30, stdin=stdin)
    text = out.decode("latin-1")
    ok = "Cipher is (NONE)" not in text and "Cipher is " in text
    return ok, text + err.decode("latin-1")


class Refusals(GateTest):
    MODE = "tcp"


    def refused(self, args, alert, cert="ec", **conf):
        g = self.gate(self.backend("echo"), cert=cert, **conf)
        ok, text = s_client(g.port, args)
        self.assertFalse(ok, text)
        conns = g.wait_conns(1)
        self.assertEqual((conns[0]["alert"], conns[0]["outcome"]), alert,
                         conns[0])
        self.assertEqual(conns[0]["version"], "none")
        return g

    def accepted(self, args, cert="ec", **conf):
        g = self.gate(self.backend("echo"), cert=cert, **conf)
        ok, text = s_client(g.port, args)
        self.assertTrue(ok, text)
        conns = g.wait_conns(1)
        self.assertEqual(conns[0]["outcome"], "ok", conns[0])
        return conns[0]

    # TLS 1.0 and 1.1 are gone (RFC 8996): no configuration accepts them.
    def test_tls10_refused(self):
        self.refused(["-tls1"] + LEGACY, PROTOCOL_VERSION)

    def test_tls11_refused(self):
        self.refused(["-tls1_1"] + LEGACY, PROTOCOL_VERSION)

    def test_python_with_max_tls11_refused(self):
        ctx = client_ctx(ciphers="DEFAULT@SECLEVEL=0",
                         min_version=ssl.TLSVersion.TLSv1,
                         max_version=ssl.TLSVersion.TLSv1_1)
        g = self.gate(self.backend("echo"))
        with self.assertRaises(ssl.SSLError):
            tls_connect(g.port, ctx).close()
        c = g.wait_conns(1)[0]
        self.assertEqual((c["alert"], c["outcome"]), PROTOCOL_VERSION)
        # The same context allowed 1.2 is served.
        ctx = client_ctx(ciphers="DEFAULT@SECLEVEL=0",
                         min_version=ssl.TLSVersion.TLSv1,
                         max_version=ssl.TLSVersion.TLSv1_2)
        s = tls_connect(g.port, ctx)
        try:
            self.assertEqual(s.version(), "TLSv1.2")
            self.assertEqual(echo_roundtrip(s, b"legacy"), b"legacy")
        finally:
            close_tls(s)

    def test_cbc_sha256_suite_refused(self):
        self.refused(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA256"],
                     HANDSHAKE_FAILURE)
        # The same command with an AEAD suite is served.
        self.accepted(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"])

    def test_cbc_sha_suite_refused_at_tls12(self):
        self.refused(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"],
                     HANDSHAKE_FAILURE)

    def test_static_rsa_cbc_suite_refused(self):
        self.refused(["-tls1_2", "-cipher", "AES128-SHA"], HANDSHAKE_FAILURE,
                     cert="rsa")

    def test_static_rsa_gcm_suite_refused(self):
        # AEAD but no forward secrecy: still refused.
        self.refused(["-tls1_2", "-cipher", "AES128-GCM-SHA256"],
                     HANDSHAKE_FAILURE, cert="rsa")
        self.accepted(["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"],
                      cert="rsa")

    def test_renegotiation_refused_and_service_continues(self):
        g = self.gate(self.backend("echo"))
        # s_client's interactive "R" line asks for a renegotiation; a
        # line after it would come back from the echo backend only if
        # the connection survived a renegotiation.
        p = subprocess.Popen(["openssl", "s_client", "-tls1_2", "-connect",
                              "127.0.0.1:%d" % g.port],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        try:
            p.stdin.write(b"before\n")
            p.stdin.flush()
            time.sleep(0.5 * SLOW)
            p.stdin.write(b"R\n")
            p.stdin.flush()
            time.sleep(0.5 * SLOW)
            try:
                p.stdin.write(b"after\n")
                p.stdin.flush()
            except BrokenPipeError:
                pass
            out, _ = p.communicate(timeout=10 * SLOW)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait(5)
        text = out.decode("latin-1")
        self.assertIn("RENEGOTIATING", text)
        self.assertIn("\nbefore\n", text)
        self.assertNotIn("\nafter\n", text)
        conns = g.wait_conns(1)
        self.assertNotEqual(conns[0]["outcome"], "ok", conns[0])
        self.assertEqual(conns[0]["in"], str(len(b"before\n")))
        # A new client is served.
        s = tls_connect(g.port)
        try:
            self.assertEqual(echo_roundtrip(s, b"next client"),
                             b"next client")
        finally:
            close_tls(s)
        g.wait_conns(2)
        self.assertLess(time.monotonic(), deadline(60))
