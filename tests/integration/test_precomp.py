# SPDX-License-Identifier: ISC
"""EC key pairs made ahead while the loop is idle (src/precomp.h): the
ephemeral shares and the ECDSA nonces of full handshakes come from a
pool that the loop fills between connections.  Real clients must get
through on them in both versions, and no share or nonce may ever be
sent twice: a nonce used for two signatures gives the private key away.
"""
import ssl
import struct
import subprocess
import time

from harness import GateTest, close_tls, client_ctx, echo_roundtrip, \
    tls_connect
from test_stats_syslog import read_stats
from tlswire import HANDSHAKE, Conn, client_hello, hello_extensions, record

# Enough for two pools to empty and fill again, without sleeping long.
HELLOS = 40


def der_r(sig):
    """r of a DER ECDSA signature SEQUENCE { INTEGER r, INTEGER s }."""
    assert sig[0] == 0x30 and sig[2] == 0x02, sig.hex()
    return sig[4:4 + sig[3]].lstrip(b"\x00")


def ske_share_and_r(port):
    """The ECDHE share and the signature's r of one TLS 1.2 first flight
    (ServerKeyExchange, RFC 8422 5.4)."""
    c = Conn(port)
    try:
        c.send(record(HANDSHAKE, client_hello(
            suites=(0xc02b,), exts=hello_extensions())))
        ske = dict(c.first_flight()).get(12)
    finally:
        c.close()
    assert ske is not None and ske[0] == 3, "no ServerKeyExchange"
    n = ske[3]
    share = ske[4:4 + n]
    siglen = struct.unpack(">H", ske[6 + n:8 + n])[0]
    return share, der_r(ske[8 + n:8 + n + siglen])


class Precomp(GateTest):
    MODE = "tcp"

    def warm(self, port, stats):
        """One handshake asks for the pools; the idle loop fills them."""
        s = tls_connect(port)
        close_tls(s)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            time.sleep(0.1)
            st = read_stats(stats)
            if st["precomp_misses"] >= 1:
                break
        time.sleep(0.5)
        return read_stats(stats)

    def test_shares_and_nonces_are_never_sent_twice(self):
        addr = "unix:%s/stats.sock" % self.tmp
        g = self.gate(self.backend("echo"), stats=addr)
        before = self.warm(g.port, addr)
        shares, rs = set(), set()
        for _ in range(HELLOS):
            share, r = ske_share_and_r(g.port)
            self.assertNotIn(share, shares, "an ECDHE share sent twice")
            self.assertNotIn(r, rs, "an ECDSA nonce used twice")
            shares.add(share)
            rs.add(r)
        st = read_stats(addr)
        # Each flight took a share and a nonce; most came from the pools
        # (the client here is faster than the refill, so not all).
        hits = st["precomp_hits"] - before["precomp_hits"]
        misses = st["precomp_misses"] - before["precomp_misses"]
        self.assertEqual(hits + misses, 2 * HELLOS)
        self.assertGreaterEqual(hits, HELLOS // 2, st)

    def test_real_clients_get_through_on_pairs_made_ahead(self):
        addr = "unix:%s/stats.sock" % self.tmp
        g = self.gate(self.backend("echo"), stats=addr)
        before = self.warm(g.port, addr)
        # Python's ssl (OpenSSL) checks each signature.  In 1.2 it also
        # wants the certificate's curve among the groups it offers.
        runs = [(ssl.TLSVersion.TLSv1_2, "prime256v1")]
        if self.tls13:
            runs += [(ssl.TLSVersion.TLSv1_3, "X25519"),
                     (ssl.TLSVersion.TLSv1_3, "prime256v1")]
        for version, curve in runs:
            ctx = client_ctx(min_version=version, max_version=version)
            ctx.set_ecdh_curve(curve)
            s = tls_connect(g.port, ctx)
            self.assertEqual(echo_roundtrip(s, b"ahead"), b"ahead")
            close_tls(s)
            time.sleep(0.05)
        for groups in ("P-256", "X25519:P-256"):
            p = subprocess.run(
                ["openssl", "s_client", "-connect", "127.0.0.1:%d" % g.port,
                 "-groups", groups, "-tls1_2"], input=b"Q\n",
                capture_output=True, timeout=30)
            self.assertIn(b"Verify return code", p.stdout, p.stderr)
            self.assertIn(b"ECDHE-ECDSA", p.stdout)
        st = read_stats(addr)
        self.assertGreater(st["precomp_hits"], before["precomp_hits"])
        self.assertEqual(st["handshakes_full"] - before["handshakes_full"],
                         len(runs) + 2)
