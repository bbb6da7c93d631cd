# SPDX-License-Identifier: ISC
"""The scanners admins run against their appliances find nothing.

sslscan must complete (it once stopped at tlsgate's reset to its
heartbeat probe) and list exactly tlsgate's TLS 1.2 suites; testssl.sh
must report no MEDIUM, HIGH or CRITICAL finding but those about the
throw-away certificate.  After each scan a plain client on the same one
slot is still served (sslscan's hellos once poisoned it).  CI installs
both tools; elsewhere a missing one skips its test."""
import json
import os
import re
import shutil
import unittest

from harness import GateTest, run, tls_connect

EC_SUITES = {"ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
             "ECDHE-ECDSA-CHACHA20-POLY1305"}
RSA_SUITES = {s.replace("ECDSA", "RSA") for s in EC_SUITES}

# testssl.sh findings that speak of the test certificate, not of tlsgate.
CERT_FINDINGS = {
    # Self-signed, made for the run: no CA vouches for it.
    "cert_chain_of_trust",
    # It lives 30 days: "expires soon" by testssl's 60-day rule.
    "cert_expirationStatus", "cert_notAfter",
    # No CRL or OCSP URI: a throw-away certificate has no revocation.
    "cert_revocation",
}


def need(tool):
    if shutil.which(tool) is None:
        if os.environ.get("CI"):
            raise AssertionError("%s is not installed (CI installs it)" %
                                 tool)
        raise unittest.SkipTest("%s is not installed" % tool)


class Scanners(GateTest):

    def served(self, g):
        s = tls_connect(g.port)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertTrue(s.recv(4096).startswith(b"HTTP/1.1 200"))
        s.close()

    def sslscan(self, cert, suites):
        need("sslscan")
        g = self.gate(self.backend("http"), cert=cert, mode="http",
                      slots="1")
        rc, out, err = run(["sslscan", "--no-colour",
                            "127.0.0.1:%d" % g.port], 240)
        out = out.decode("utf-8", "replace")
        self.assertEqual(rc, 0, err.decode())
        self.assertNotIn("could not negotiate", out.lower())
        for proto, state in (("SSLv2", "disabled"), ("SSLv3", "disabled"),
                             ("TLSv1.0", "disabled"), ("TLSv1.1", "disabled"),
                             ("TLSv1.2", "enabled"),
                             ("TLSv1.3", "enabled" if self.tls13 else
                              "disabled")):
            self.assertRegex(out, r"(?m)^%s\s+%s" % (re.escape(proto), state))
        accepted = re.findall(r"(?m)^(?:Preferred|Accepted)\s+(\S+)\s+\d+ "
                              r"bits\s+(\S+)", out)
        self.assertEqual({s for v, s in accepted if v == "TLSv1.2"}, suites)
        self.assertEqual({v for v, s in accepted} - {"TLSv1.2", "TLSv1.3"},
                         set(), "a suite below TLS 1.2 is accepted")
        self.assertRegex(out, r"TLSv1.2 not vulnerable to heartbleed")
        self.assertIn("Session renegotiation not supported", out)
        self.served(g)

    def test_sslscan_completes_and_lists_the_ec_suites(self):
        self.sslscan("ec", EC_SUITES)

    def test_sslscan_completes_and_lists_the_rsa_suites(self):
        self.sslscan("rsa", RSA_SUITES)

    def test_testssl_finds_nothing_but_the_test_certificate(self):
        need("testssl")
        if os.environ.get("TLSGATE_ASAN") or os.environ.get("TLSGATE_WRAP"):
            raise unittest.SkipTest("minutes long; the plain build's run "
                                    "covers it")
        # Both engines (1.2 clients get BearSSL's): only the plain
        # build's run has this test, which make check runs at 1.2.
        g = self.gate(self.backend("http"), cert="ec", mode="http",
                      slots="1", tls_max="1.3")
        report = os.path.join(self.tmp, "testssl.json")
        # Protocols, cipher lists, forward secrecy, server preference,
        # server defaults and the vulnerabilities; not the HTTP response
        # headers, which are the backend's.  localhost: the name the
        # test certificate carries.
        rc, out, err = run(["testssl", "--quiet", "--color", "0",
                            "--warnings", "off", "--nodns", "min",
                            "--ip", "127.0.0.1", "-p", "-s", "-f", "-P",
                            "-S", "-U", "--jsonfile", report,
                            "localhost:%d" % g.port], 900)
        with open(report) as f:
            findings = json.load(f)
        self.assertTrue(any(x["id"] == "TLS1_2" for x in findings),
                        out.decode("utf-8", "replace")[-2000:])
        bad = ["%s %s: %s" % (x["id"], x["severity"], x["finding"])
               for x in findings
               if x.get("severity") in ("MEDIUM", "HIGH", "CRITICAL") and
               x["id"] not in CERT_FINDINGS]
        self.assertEqual(bad, [])
        self.served(g)
