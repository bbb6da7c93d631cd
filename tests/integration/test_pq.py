"""The post-quantum hybrid group X25519MLKEM768 (0x11ec) in TLS 1.3:
headless Chromium and Firefox ESR are served over it, with the group in
the log line; clients that do not offer it (curl, openssl s_client,
Python) still get X25519; hand-made hellos check the share's layout and
the refusals (wrong length, an encapsulation key that fails FIPS 203's
modulus check), that a client listing the group without a share gets no
HelloRetryRequest unless the service asks for one, and that TLS 1.2
never uses it."""
import os
import ssl

from harness import (GateTest, certs, check, client_ctx, run, tls_connect,
                     write_conf)
from test_hostile import stats
from test_scanners import need
from tlswire import (CCS, HANDSHAKE, ILLEGAL_PARAMETER, HANDSHAKE_FAILURE, Conn,
                     client_hello, ext, handshake, hello_extensions,
                     plain_alert,
                     record, server_hello_extensions, u16, vec8, vec16)

HYBRID, X25519 = 0x11ec, 29
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HRR_RANDOM = bytes.fromhex("cf21ad74e59a6111be1d8c021e65b891"
                           "c2a211167abb8c5e079e09e2c8a8339c")


def acvp_ek():
    """An ML-KEM-768 encapsulation key from NIST's vectors."""
    with open(os.path.join(ROOT, "tests", "unit", "mlkem_vectors.txt")) as f:
        for line in f:
            if not line.startswith("#"):
                return bytes.fromhex(line.split()[1])
    raise AssertionError("no vector")


def hello13(shares, groups=(HYBRID, X25519), rnd=None, sid=None):
    """A TLS 1.3 ClientHello record: shares is a list of (group, bytes);
    a second hello after HRR repeats the first one's rnd and sid."""
    ks = b"".join(u16(g) + vec16(s) for g, s in shares)
    exts = (ext(43, vec8(b"\x03\x04")) + ext(51, vec16(ks)) +
            ext(10, vec16(b"".join(u16(g) for g in groups))) +
            ext(13, vec16(u16(0x0403) + u16(0x0804))))
    body = (b"\x03\x03" + (rnd or os.urandom(32)) +
            vec8(sid or os.urandom(32)) + vec16(u16(0x1301)) + vec8(b"\x00") +
            vec16(exts))
    return record(HANDSHAKE, handshake(1, body))


def x25519_share():
    # Any 32 bytes but the few small-order points: a random one.
    return os.urandom(31) + b"\x01"


class Hybrid(GateTest):
    TLS_MAX = "1.3"

    def dash_t(self):
        conf = os.path.join(self.tmp, "t.conf")
        write_conf(conf, {"cert": certs().path["ec.crt"],
                          "key": certs().path["ec.key"]})
        rc, out, err = check(conf)
        self.assertEqual(rc, 0, err)
        return out

    def setUp(self):
        super().setUp()
        # Only a build that says it left the group out skips these.
        if "x25519mlkem768 = not built in" in self.dash_t():
            self.skipTest("built with PQ=0")

    def gate13(self, **conf):
        return self.gate(self.backend("http"), mode="http", **conf)

    def server_hello(self, g, data):
        c = Conn(g.port)
        c.send(data)
        r = c.read_record()
        c.close()
        return r

    def selected(self, r):
        """(group, share length, hrr) of a ServerHello record."""
        self.assertIsNotNone(r)
        self.assertEqual((r[0], r[2][0]), (HANDSHAKE, 2), r)
        body = r[2][4:]
        ks = dict(server_hello_extensions(body))[51]
        group = int.from_bytes(ks[:2], "big")
        share = len(ks) - 4 if len(ks) > 2 else None
        return group, share, body[2:34] == HRR_RANDOM

    # --- the share on the wire -------------------------------------

    def test_hybrid_share_gets_a_1120_byte_ciphertext_and_share(self):
        g = self.gate13()
        r = self.server_hello(g, hello13(
            [(HYBRID, acvp_ek() + x25519_share()), (X25519, x25519_share())]))
        self.assertEqual(self.selected(r), (HYBRID, 1088 + 32, False))

    def test_the_service_order_decides_between_two_shares(self):
        g = self.gate13(groups="x25519 x25519mlkem768")
        r = self.server_hello(g, hello13(
            [(HYBRID, acvp_ek() + x25519_share()), (X25519, x25519_share())]))
        self.assertEqual(self.selected(r), (X25519, 32, False))

    def expect_alert(self, g, data, alert):
        c = Conn(g.port)
        c.send(data)
        recs, end = c.ending()
        c.close()
        self.assertEqual(([plain_alert(r) for r in recs], end),
                         ([(2, alert)], "fin"))

    def test_a_share_of_the_wrong_length_gets_illegal_parameter(self):
        g = self.gate13()
        for n in (0, 32, 1184, 1215, 1217, 1184 + 65):
            share = (acvp_ek() + os.urandom(64))[:n]
            self.expect_alert(g, hello13([(HYBRID, share),
                                          (X25519, x25519_share())]),
                              ILLEGAL_PARAMETER)

    def test_a_key_failing_the_modulus_check_gets_illegal_parameter(self):
        g = self.gate13()
        for pos in (0, 1, 767):
            ek = bytearray(acvp_ek())
            b = 3 * (pos // 2)
            if pos % 2 == 0:    # coefficient = 3329 = 0xd01
                ek[b], ek[b + 1] = 0x01, (ek[b + 1] & 0xf0) | 0x0d
            else:               # 4095
                ek[b + 1], ek[b + 2] = ek[b + 1] | 0xf0, 0xff
            self.expect_alert(g, hello13([(HYBRID, bytes(ek) +
                                           x25519_share()),
                                          (X25519, x25519_share())]),
                              ILLEGAL_PARAMETER)
        self.assertEqual([c["alert"] for c in g.wait_conns(3)],
                         ["47"] * 3)

    def test_listed_without_a_share_gets_x25519_not_a_retry(self):
        g = self.gate13()
        r = self.server_hello(g, hello13([(X25519, x25519_share())]))
        self.assertEqual(self.selected(r), (X25519, 32, False))

    def test_a_retry_for_it_when_the_service_asks(self):
        g = self.gate13(hybrid_retry="on")
        rnd, sid = os.urandom(32), os.urandom(32)
        c = Conn(g.port)
        c.send(hello13([(X25519, x25519_share())], rnd=rnd, sid=sid))
        self.assertEqual(self.selected(c.read_record()), (HYBRID, None, True))
        self.assertEqual(c.read_record()[0], CCS)
        # The second hello, with the share asked for, is served on it.
        c.send(hello13([(HYBRID, acvp_ek() + x25519_share())], rnd=rnd,
                       sid=sid))
        r = c.read_record()
        c.close()
        self.assertEqual(self.selected(r), (HYBRID, 1120, False))
        # The only group of a service: no retry asked, none to fall to.
        g2 = self.gate13(groups="x25519mlkem768")
        self.expect_alert(g2, hello13([(X25519, x25519_share())]),
                          HANDSHAKE_FAILURE)

    def test_tls12_never_uses_it(self):
        # A TLS 1.2 hello that lists the hybrid group first, X25519, and
        # P-256 for the certificate's key (RFC 8422 5.1).
        g = self.gate13()
        c = Conn(g.port)
        c.send(record(HANDSHAKE, client_hello(exts=ext(10, vec16(
            u16(HYBRID) + u16(X25519) + u16(23))) + hello_extensions()[
                len(ext(10, vec16(b"\x00" * 6))):])))
        msgs = c.first_flight()
        c.close()
        self.assertEqual([t for t, _ in msgs], [2, 11, 12, 14])
        ske = dict(msgs)[12]
        self.assertEqual(int.from_bytes(ske[1:3], "big"), X25519)

    # --- real clients ----------------------------------------------

    def test_headless_chromium_is_served_over_x25519mlkem768(self):
        need("chromium")
        g = self.gate13()
        conn = self.chromium_conn(g)
        self.assertEqual((conn["version"], conn["group"]),
                         ("TLS1.3", "x25519mlkem768"))
        # The page was served; how an exiting browser drops its socket
        # (FIN, or a reset) is its own business.
        self.assertIn(conn["outcome"], ("ok", "client-reset"), conn)
        self.assertEqual(stats(g)["hrr"], 0)

    def firefox_profile(self):
        """A fresh profile that trusts a CA of this test's own, and the
        localhost certificate it signs (Firefox refuses a self-signed
        CA certificate as a server's)."""
        need("firefox-esr")
        need("certutil")
        d = os.path.join(self.tmp, "ff")
        os.makedirs(d)
        cnf = os.path.join(d, "leaf.cnf")
        with open(cnf, "w") as f:
            f.write("[leaf]\nbasicConstraints = critical,CA:FALSE\n"
                    "extendedKeyUsage = serverAuth\n"
                    "subjectAltName = DNS:localhost\n")
        p = lambda n: os.path.join(d, n)  # noqa: E731
        for cmd in (
                ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                 "ec_paramgen_curve:P-256", "-nodes", "-keyout", p("ca.key"),
                 "-out", p("ca.crt"), "-days", "2", "-subj",
                 "/CN=tlsgate test CA", "-addext",
                 "basicConstraints=critical,CA:TRUE", "-addext",
                 "keyUsage=critical,keyCertSign"],
                ["openssl", "req", "-newkey", "ec", "-pkeyopt",
                 "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                 p("leaf.key"), "-out", p("leaf.csr"), "-subj",
                 "/CN=localhost"],
                ["openssl", "x509", "-req", "-in", p("leaf.csr"), "-CA",
                 p("ca.crt"), "-CAkey", p("ca.key"), "-CAcreateserial",
                 "-out", p("leaf.crt"), "-days", "2", "-extfile", cnf,
                 "-extensions", "leaf"],
                ["certutil", "-N", "-d", "sql:" + p("prof"),
                 "--empty-password"],
                ["certutil", "-A", "-d", "sql:" + p("prof"), "-n",
                 "tlsgate test CA", "-t", "C,,", "-i", p("ca.crt")]):
            if cmd[0] == "certutil" and cmd[1] == "-N":
                os.makedirs(p("prof"))
            rc, out, err = run(cmd, 60)
            self.assertEqual(rc, 0, (cmd, err))
        certs().path["ffleaf.crt"] = p("leaf.crt")
        certs().path["ffleaf.key"] = p("leaf.key")
        return p("prof")

    def test_headless_firefox_is_served_over_x25519mlkem768(self):
        prof = self.firefox_profile()
        g = self.gate13(cert="ffleaf")
        shot = os.path.join(self.tmp, "ff", "shot.png")
        rc, out, err = run(["firefox-esr", "--headless", "--no-remote",
                            "--profile", prof, "--screenshot", shot,
                            "https://localhost:%d/" % g.port], 120,
                           env=dict(os.environ, MOZ_CRASHREPORTER_DISABLE="1"))
        self.assertEqual(rc, 0, err[-800:])
        self.assertTrue(os.path.getsize(shot) > 0)
        served = [c for c in g.wait_conns(1) if c["requests"] != "0"]
        self.assertTrue(served, g.conns())
        self.assertEqual((served[0]["version"], served[0]["group"],
                          served[0]["sni"], served[0]["outcome"]),
                         ("TLS1.3", "x25519mlkem768", "localhost", "ok"))
        self.assertEqual(stats(g)["hrr"], 0)

    def test_clients_without_it_still_get_x25519(self):
        g = self.gate13()
        rc, out, err = run(["curl", "-sk", "--max-time", "20",
                            "https://localhost:%d/" % g.port], 30)
        self.assertEqual(rc, 0, err)
        rc, out, err = run(["openssl", "s_client", "-quiet", "-connect",
                            "127.0.0.1:%d" % g.port], 20,
                           stdin=b"GET / HTTP/1.1\r\nHost: x\r\n"
                           b"Connection: close\r\n\r\n")
        self.assertEqual(rc, 0, err)
        s = tls_connect(g.port, client_ctx())
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        while s.recv(4096):
            pass
        s.close()
        conns = g.wait_conns(3)
        self.assertEqual([(c["version"], c["group"]) for c in conns],
                         [("TLS1.3", "x25519")] * 3)

    def test_tls12_log_line_names_its_curve(self):
        g = self.gate13()
        c = client_ctx()
        c.maximum_version = ssl.TLSVersion.TLSv1_2
        s = tls_connect(g.port, c)
        s.close()
        conn = g.wait_conns(1)[0]
        self.assertEqual((conn["version"], conn["group"]),
                         ("TLS1.2", "x25519"))

    def test_dash_t_reports_the_hybrid_group_and_no_slot_memory(self):
        out = self.dash_t()
        self.assertIn("groups = x25519mlkem768 x25519 secp256r1", out)
        self.assertIn("hybrid_retry = off", out)
        self.assertIn("x25519mlkem768 = built in, 0 per slot", out)

