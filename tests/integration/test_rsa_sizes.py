# SPDX-License-Identifier: ISC
"""RSA keys of every size tlsgate.conf(5) promises (2048 to 4096 bits):
tlsgate -t accepts each key with its certificate, refuses it with
another certificate of the same size, and serves a client at TLS 1.2
and at the run's highest version with it.

Runtime: about 5 s (most of it openssl making the 4096-bit key)."""
import os
import ssl

from harness import (Gate, GateTest, check, client_ctx, close_tls, recv_to_eof,
                     run, tls_connect, write_conf)

SIZES = (2048, 3072, 4096)


class RsaSizes(GateTest):

    def make(self, bits, name):
        crt = os.path.join(self.tmp, name + ".crt")
        key = os.path.join(self.tmp, name + ".key")
        rc, _, err = run(["openssl", "req", "-x509", "-newkey",
                          "rsa:%d" % bits, "-nodes", "-keyout", key,
                          "-out", crt, "-days", "30", "-subj",
                          "/CN=localhost"], 120)
        self.assertEqual(rc, 0, err)
        return crt, key

    def test_check_accepts_each_size_and_refuses_a_mismatch(self):
        for bits in SIZES:
            with self.subTest(bits=bits):
                crt, key = self.make(bits, "a%d" % bits)
                _, other = self.make(bits, "b%d" % bits)
                conf = os.path.join(self.tmp, "t.conf")
                write_conf(conf, {"listen": "127.0.0.1:1", "cert": crt,
                                  "key": key})
                rc, out, err = check(conf)
                self.assertEqual(rc, 0, err)
                write_conf(conf, {"listen": "127.0.0.1:1", "cert": crt,
                                  "key": other})
                rc, out, err = check(conf)
                self.assertEqual(rc, 2, out)
                self.assertIn("does not match the certificate", err)

    def test_each_size_serves_tls12_and_the_highest_version(self):
        b = self.backend("http")
        for bits in SIZES:
            crt, key = self.make(bits, "s%d" % bits)
            g = Gate(self.tmp, dict(self.tls_conf(), cert=crt, key=key,
                                    backend=b.addr))
            self.gates.append(g)
            for cap in (ssl.TLSVersion.TLSv1_2, None):
                with self.subTest(bits=bits, cap=cap):
                    s = tls_connect(g.port, client_ctx(max_version=cap))
                    der = s.getpeercert(binary_form=True)
                    s.sendall(b"GET /bytes/5 HTTP/1.1\r\nHost: x\r\n"
                              b"Connection: close\r\n\r\n")
                    resp = recv_to_eof(s)
                    close_tls(s)
                    self.assertTrue(resp.startswith(b"HTTP/1.1 200"), resp)
                    with open(crt, "rb") as f:
                        self.assertEqual(
                            der, ssl.PEM_cert_to_DER_cert(f.read().decode()))
            conns = g.wait_conns(2)
            self.assertEqual([c["outcome"] for c in conns], ["ok", "ok"])
            self.assertIn("RSA", conns[0]["suite"])
            self.assertEqual(conns[0]["version"], "TLS1.2")
