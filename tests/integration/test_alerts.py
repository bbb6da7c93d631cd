# SPDX-License-Identifier: ISC
"""Every TLS failure ends with the alert the RFCs name, then a FIN.

Crafted records and hellos on a raw socket (tlswire.py), and real
records with a corrupted tag: each case checks the exact fatal alert
(RFC 5246 7.2.2), in plaintext before tlsgate's write side is encrypted
and encrypted after, that the connection then ends with a FIN and not a
reset (also while the client keeps sending), and that a plain client is
served normally right after.  Where BearSSL itself picks the alert, the
comment says so."""
import os
import socket
import ssl
import struct
import time

from harness import GateTest, client_ctx, deadline, tls_connect
from tlswire import (ALERT, APPDATA, BAD_RECORD_MAC, CCS, DECODE_ERROR,
                     HANDSHAKE, HANDSHAKE_FAILURE, ILLEGAL_PARAMETER,
                     PROTOCOL_VERSION, RECORD_OVERFLOW, SUITES,
                     UNEXPECTED_MESSAGE, Conn, client_hello, ext, handshake,
                     hello_extensions, plain_alert, record, u16, vec16, vec8)

GCM = "ECDHE-ECDSA-AES128-GCM-SHA256"
CHACHA = "ECDHE-ECDSA-CHACHA20-POLY1305"
GET = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
# SHA-256("HelloRetryRequest"): a HelloRetryRequest's random.
HRR_RANDOM = bytes.fromhex("cf21ad74e59a6111be1d8c021e65b891"
                           "c2a211167abb8c5e079e09e2c8a8339c")


class Alerts(GateTest):

    def setUp(self):
        super().setUp()
        self.b = self.backend("http")
        self.g = self.gate(self.b, mode="http", slots="2")

    def tearDown(self):
        # Whatever a case sent, the next plain client is served.
        s = tls_connect(self.g.port)
        s.sendall(GET)
        self.assertTrue(s.recv(4096).startswith(b"HTTP/1.1 200"))
        s.close()
        super().tearDown()

    def expect_alert(self, data, alert, then=b""):
        """Send data (and then, while the alert may be on its way); the
        server must answer with exactly one plaintext fatal alert and a
        FIN."""
        c = Conn(self.g.port)
        c.send(data)
        if then:
            try:
                c.send(then)
            except OSError:
                pass
        recs, end = c.ending()
        c.close()
        got = [plain_alert(r) for r in recs if r[0] == ALERT]
        self.assertEqual(got, [(2, alert)], "records: %r" % (
            [(r[0], r[2][:8]) for r in recs],))
        self.assertEqual(end, "fin")

    def hello(self, **kw):
        return record(HANDSHAKE, client_hello(**kw))

    # --- malformed and truncated hellos -----------------------------

    def test_extensions_longer_than_the_hello_get_decode_error(self):
        m = bytearray(client_hello())
        # The extensions block length is the hello's last length field.
        n = len(hello_extensions())
        m[-n - 2:-n] = u16(n + 40)
        self.expect_alert(record(HANDSHAKE, bytes(m)), DECODE_ERROR)

    def test_truncated_hello_gets_decode_error(self):
        m = client_hello()
        for cut in (4 + 1, 4 + 2 + 31, 4 + 2 + 32 + 1, 4 + 40, len(m) - 3):
            body = m[4:cut]
            self.expect_alert(record(HANDSHAKE, handshake(1, body)),
                              DECODE_ERROR)

    def test_session_id_over_32_bytes_gets_decode_error(self):
        self.expect_alert(self.hello(session_id=os.urandom(33)),
                          DECODE_ERROR)

    def test_malformed_alpn_list_gets_decode_error(self):
        # RFC 7301 3.1: a list and its names are never empty.
        for body in (b"", u16(0), u16(1) + b"\x00",
                     u16(10) + vec8(b"http/1.1"), u16(9) + b"\x09http/1.1"):
            exts = hello_extensions() + u16(16) + vec16(body)
            self.expect_alert(self.hello(exts=exts), DECODE_ERROR)
        line = self.g.wait_conns(5)[-1]
        self.assertEqual((line["outcome"], line["alert"]), ("bad-alpn", "50"))

    def test_malformed_sni_list_gets_decode_error(self):
        # RFC 6066 3: a non-empty list of non-empty names.
        for body in (b"", u16(0), u16(3) + b"\x00" + u16(0),
                     u16(8) + b"\x00" + u16(6) + b"a.b"):
            exts = hello_extensions() + u16(0) + vec16(body)
            self.expect_alert(self.hello(exts=exts), DECODE_ERROR)
        line = self.g.wait_conns(4)[-1]
        self.assertEqual((line["outcome"], line["alert"]), ("bad-sni", "50"))

    def test_sni_that_is_no_host_name_gets_illegal_parameter(self):
        # The log and the certificate choice see host names only; a
        # second host_name is one RFC 6066 forbids.
        for names in ([b"a\x07b"], [b"\x1b[31mred"], [b"caf\xc3\xa9"],
                      [b"a\x00b"], [b"a.example", b"b.example"]):
            body = b"".join(b"\x00" + vec16(n) for n in names)
            exts = hello_extensions() + u16(0) + vec16(vec16(body))
            self.expect_alert(self.hello(exts=exts), ILLEGAL_PARAMETER)
        whys = [c["outcome"] for c in self.g.wait_conns(5)]
        self.assertEqual(whys, ["sni-not-a-host-name"] * 4 +
                         ["two-sni-host-names"])

    def test_malformed_alpn_gets_decode_error_in_tcp_mode_too(self):
        g = self.gate(self.backend("echo"), mode="tcp")
        exts = hello_extensions() + u16(16) + vec16(u16(0))
        c = Conn(g.port)
        c.send(self.hello(exts=exts))
        recs, end = c.ending()
        c.close()
        self.assertEqual([plain_alert(r) for r in recs if r[0] == ALERT],
                         [(2, DECODE_ERROR)])
        self.assertEqual(end, "fin")

    def test_hello_then_ccs_inside_it_gets_unexpected_message(self):
        m = client_hello()
        self.expect_alert(record(HANDSHAKE, m[:30]) +
                          record(CCS, b"\x01") + record(HANDSHAKE, m[30:]),
                          UNEXPECTED_MESSAGE)

    def test_ccs_before_the_hello_gets_unexpected_message(self):
        self.expect_alert(record(CCS, b"\x01") + self.hello(),
                          UNEXPECTED_MESSAGE)

    def test_two_byte_ccs_gets_unexpected_message(self):
        self.expect_alert(record(CCS, b"\x01\x01") + self.hello(),
                          UNEXPECTED_MESSAGE)

    def test_application_data_before_the_handshake(self):
        self.expect_alert(record(APPDATA, b"GET / HTTP/1.1\r\n\r\n"),
                          UNEXPECTED_MESSAGE)

    def test_hello_request_from_the_client_gets_unexpected_message(self):
        # RFC 5246 7.4.1.1: a server never receives one.
        self.expect_alert(record(HANDSHAKE, handshake(0, b"")) +
                          self.hello(), UNEXPECTED_MESSAGE)

    def test_unknown_record_type_like_a_heartbeat(self):
        self.expect_alert(self.hello() + record(24, b"\x01\x40\x00"),
                          UNEXPECTED_MESSAGE)

    def test_sslv2_hello_gets_protocol_version(self):
        # An SSL 2.0 CLIENT-HELLO: no TLS record header at all.
        body = (b"\x01\x03\x01" + struct.pack(">HHH", 3, 0, 16) +
                b"\xc0\x2b\x00" + os.urandom(16))
        self.expect_alert(bytes([0x80, len(body)]) + body, PROTOCOL_VERSION)

    def test_compression_without_null_gets_illegal_parameter(self):
        # RFC 5246 7.4.1.2: null must be among them.
        self.expect_alert(self.hello(compression=b"\x01"), ILLEGAL_PARAMETER)
        self.expect_alert(self.hello(compression=bytes(range(1, 256))),
                          ILLEGAL_PARAMETER)

    def test_compression_list_with_null_is_served(self):
        c = Conn(self.g.port)
        c.send(self.hello(compression=b"\x01\x40\x00"))
        msgs = c.first_flight()
        c.close()
        self.assertEqual([t for t, _ in msgs], [2, 11, 12, 14])

    # --- hellos longer than a record ---------------------------------

    def long_hello(self, pad, exts=None, suites=None):
        """A hello with pad bytes of padding (RFC 7685) after exts, in
        records of 2^14 bytes."""
        m = client_hello(exts=(exts or hello_extensions()) +
                         ext(21, bytes(pad)), suites=suites or SUITES)
        return b"".join(record(HANDSHAKE, m[i:i + 16384])
                        for i in range(0, len(m), 16384))

    def test_hellos_up_to_the_longest_extensions_are_served(self):
        # Extensions may take 2^16 - 1 bytes: tlsfuzzer's large-hello
        # and record-layer-fragmentation send such hellos.
        for pad in (16384, 40000, 65535 - 4 - len(hello_extensions())):
            c = Conn(self.g.port)
            c.send(self.long_hello(pad))
            msgs = c.first_flight()
            c.close()
            self.assertEqual([t for t, _ in msgs], [2, 11, 12, 14], pad)

    def test_hellos_in_pieces_are_served(self):
        # The pending table sleeps until the fewest bytes that could end
        # the hello are in; that must never be past its end.
        for data in (self.hello(), self.long_hello(40000)):
            cuts = [0, 1, 4, 6, 9, 12] + list(range(100, len(data), 7000))
            c = Conn(self.g.port)
            c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for a, b in zip(cuts, cuts[1:] + [len(data)]):
                c.send(data[a:b])
                time.sleep(0.02)
            msgs = c.first_flight()
            c.close()
            self.assertEqual([t for t, _ in msgs], [2, 11, 12, 14])

    def test_a_record_after_hello_fragments_is_judged_as_it_comes(self):
        # tlsfuzzer's tls13-zero-length-data: the hello's first bytes,
        # then application data, each in its own segment.  The alert
        # must not wait for the rest of the hello.
        m = client_hello()
        c = Conn(self.g.port)
        c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for part in (record(HANDSHAKE, m[:2]), record(HANDSHAKE, m[2:4]),
                     record(APPDATA, b"")):
            c.send(part)
            time.sleep(0.05)
        recs, end = c.ending(timeout=2)
        c.close()
        self.assertEqual(([plain_alert(r) for r in recs], end),
                         ([(2, UNEXPECTED_MESSAGE)], "fin"))

    def test_malformed_ec_point_formats_is_tls12s_alone(self):
        # RFC 8422 5.1.2 has it TLS 1.2's: decode_error there; a TLS 1.3
        # handshake skips it, as tlsfuzzer's unassigned-extension probes
        # ask.
        bad = ext(11, b"")
        exts = ext(10, vec16(u16(29) + u16(23))) + bad + \
            ext(13, vec16(u16(0x0403) + u16(0x0804)))
        self.expect_alert(self.hello(exts=exts), DECODE_ERROR)
        line = self.g.wait_log(
            r"^tlsgate: info: conn id=.* outcome=bad-point-formats")
        self.assertTrue(line)
        g13 = self.gate(self.b, mode="http", slots="2", tls_max="1.3")
        c = Conn(g13.port)
        c.send(self.hello(suites=(0x1301,) + SUITES, exts=(
            ext(43, vec8(b"\x03\x04")) +
            ext(51, vec16(u16(29) + vec16(os.urandom(32)))) + exts)))
        r = c.read_record()
        c.close()
        self.assertEqual((r[0], r[2][0]), (HANDSHAKE, 2))  # ServerHello

    def test_a_long_tls13_hello_is_served(self):
        exts = (ext(43, vec8(b"\x03\x04\x03\x03")) +
                ext(51, vec16(u16(29) + vec16(os.urandom(32)))) +
                hello_extensions())
        c = Conn(self.g.port)
        c.send(self.long_hello(50000, exts, (0x1301,) + SUITES))
        r = c.read_record()
        c.close()
        self.assertEqual((r[0], r[2][0]), (HANDSHAKE, 2))  # ServerHello

    def longest_hello(self, tls13=False):
        """The longest hello there can be (131,396 bytes of body, or 254
        fewer in TLS 1.3, where compression is null alone): a full
        session id, 32,767 suites, 255 compression methods and 65,535
        bytes of extensions, in records of 2^14 bytes."""
        exts = hello_extensions()
        if tls13:
            exts = (ext(43, vec8(b"\x03\x04\x03\x03")) +
                    ext(51, vec16(u16(29) + vec16(os.urandom(32)))) + exts)
        exts += ext(21, bytes(65535 - 4 - len(exts)))
        ours = ((0x1301,) if tls13 else ()) + SUITES
        # Unassigned codes, no TLS_FALLBACK_SCSV among them.
        fill = [c for c in range(0x0100, 0xc000)
                if c != 0x5600 and c >> 8 != 0x13][:32767 - len(ours)]
        m = client_hello(suites=tuple(fill) + ours, exts=exts,
                         compression=b"\x00" if tls13 else bytes(range(255)),
                         session_id=os.urandom(32))
        self.assertEqual(len(m), 4 + 131396 - (254 if tls13 else 0))
        return b"".join(record(HANDSHAKE, m[i:i + 16384])
                        for i in range(0, len(m), 16384))

    def test_the_longest_hellos_are_served(self):
        # tlsfuzzer's client-hello-max-size: more than the kernel's first
        # receive window, which opens only as tlsgate reads; sent at
        # once, slowly a record at a time, and in pieces across records.
        for tls13 in (False, True):
            data = self.longest_hello(tls13)
            for piece in (len(data), 5 + 16384, 7000):
                c = Conn(self.g.port)
                c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                for a in range(0, len(data), piece):
                    c.send(data[a:a + piece])
                    time.sleep(0.01)
                r = c.read_record()
                c.close()
                self.assertEqual((r[0], r[2][0]) if r else None,
                                 (HANDSHAKE, 2), (tls13, piece))

    def hrr_hellos(self, nexts, size2=None, frag=16384):
        """Two TLS 1.3 hellos with the same nexts empty unassigned
        extensions (RFC 8446 4.1.2: the second repeats the first): one
        with no key share, which earns a HelloRetryRequest for X25519,
        and one with its share, padded (RFC 7685) to size2 bytes if
        given; each in records of frag bytes."""
        if not self.tls13:
            self.skipTest("TLS 1.3 is off in this run")
        fill = b"".join(ext(c, b"") for c in range(0x6000, 0xf000)
                        if c & 0x0f0f != 0x0a0a)[:4 * nexts]
        rnd, sid = os.urandom(32), os.urandom(32)

        def one(shares, pad=b""):
            exts = (ext(43, vec8(b"\x03\x04")) + ext(51, vec16(shares)) +
                    ext(10, vec16(u16(29))) +
                    ext(13, vec16(u16(0x0403) + u16(0x0804))) + fill + pad)
            m = handshake(1, b"\x03\x03" + rnd + vec8(sid) +
                          vec16(u16(0x1301)) + vec8(b"\x00") + vec16(exts))
            return m, b"".join(record(HANDSHAKE, m[i:i + frag])
                               for i in range(0, len(m), frag))
        share = u16(29) + vec16(os.urandom(31) + b"\x01")
        m2, h2 = one(share)
        if size2 is not None:
            m2, h2 = one(share, ext(21, bytes(size2 - len(m2) - 4)))
            self.assertEqual(len(m2), size2)
        return one(b"")[1], m2, h2

    def second_hello(self, h1, h2):
        """The records that answer h2 after h1's HelloRetryRequest (and
        its CCS), and how the connection ended."""
        c = Conn(self.g.port)
        c.send(h1)
        r = c.read_record()
        self.assertEqual((r[0], r[2][0], r[2][6:38]) if r else None,
                         (HANDSHAKE, 2, HRR_RANDOM))
        self.assertEqual(c.read_record()[0], CCS)
        c.send(h2)
        r = c.read_record()
        if r is None or r[0] != HANDSHAKE:
            recs, end = c.ending()
            c.close()
            return [r] + recs, end
        c.close()
        return [r], None

    def test_long_second_hellos_after_hrr_are_served(self):
        # tlsfuzzer's tls13-shuffled-extentions: 4,096 extensions, over
        # the 16,469 bytes of obuf where the second hello was joined.
        # The longest fills obuf and ibuf but the last header: its last
        # record ends at ibuf's end, in full records or in small ones.
        for nexts, size2, frag in ((5000, None, 16384), (5000, 33109, 16384),
                                   (8000, 33109, 16384), (8000, 33109, 999)):
            h1, m2, h2 = self.hrr_hellos(nexts, size2, frag)
            self.assertGreater(len(m2), 20000)
            recs, _ = self.second_hello(h1, h2)
            r = recs[0]
            self.assertEqual((r[0], r[2][0]) if r else None, (HANDSHAKE, 2),
                             (nexts, size2, frag))
            self.assertNotEqual(r[2][6:38], HRR_RANDOM)

    def test_a_second_hello_past_obuf_and_ibuf_gets_handshake_failure(self):
        # 33,109 bytes at most (docs/conformance.md says why); the first
        # may be as long as any hello.
        for nexts, size2, frag in ((5000, 33110, 16384), (9000, None, 16384),
                                   (5000, 33110, 999)):
            h1, m2, h2 = self.hrr_hellos(nexts, size2, frag)
            self.assertGreater(len(m2), 33109)
            recs, end = self.second_hello(h1, h2)
            self.assertEqual(([plain_alert(r) for r in recs], end),
                             ([(2, HANDSHAKE_FAILURE)], "fin"))
        self.assertEqual([c["outcome"] for c in self.g.wait_conns(3)],
                         ["hello-too-large"] * 3)

    def test_hello_longer_than_any_can_be_gets_decode_error(self):
        # Its length says 2^24 - 1 bytes; no hello has over 131,396.
        m = bytearray(client_hello())
        m[1:4] = b"\xff\xff\xff"
        self.expect_alert(record(HANDSHAKE, bytes(m)), DECODE_ERROR)

    def test_long_hello_cut_short_by_eof_ends_with_a_fin(self):
        c = Conn(self.g.port)
        c.send(self.long_hello(40000)[:30000])
        c.sock.shutdown(socket.SHUT_WR)
        recs, end = c.ending()
        c.close()
        self.assertEqual((recs, end), ([], "fin"))

    # --- versions ----------------------------------------------------

    def test_hello_versions_below_tls12_get_protocol_version(self):
        for v in [(0, 0), (0, 255), (1, 0), (2, 0), (2, 255), (3, 0),
                  (3, 1), (3, 2)]:
            self.expect_alert(self.hello(version=bytes(v)),
                              PROTOCOL_VERSION)

    def test_hello_versions_above_tls12_negotiate_tls12(self):
        for v in [(3, 3)] + [(3, m) for m in range(4, 256, 7)] + \
                [(3, 255), (4, 0), (255, 255)]:
            c = Conn(self.g.port)
            c.send(self.hello(version=bytes(v)))
            msgs = c.first_flight()
            c.close()
            self.assertEqual(msgs[0][0], 2, "version %r" % (v,))
            self.assertEqual(msgs[0][1][:2], b"\x03\x03", "version %r" % (v,))

    def test_record_versions_that_are_not_tls_get_protocol_version(self):
        for v in [(0, 0), (2, 0), (4, 3), (255, 255)]:
            self.expect_alert(record(HANDSHAKE, client_hello(), bytes(v)),
                              PROTOCOL_VERSION)

    # --- record sizes -------------------------------------------------

    def test_plaintext_record_over_2_14_gets_record_overflow(self):
        self.expect_alert(record(HANDSHAKE, b"\x01" * (16384 + 1)),
                          RECORD_OVERFLOW)

    def test_zero_length_records_before_the_hello_get_unexpected_message(self):
        # RFC 5246 6.2.1, RFC 8446 5.1: never sent; the first flight is a
        # hello in handshake records that carry it.
        for t in (HANDSHAKE, ALERT, CCS, APPDATA):
            self.expect_alert(record(t, b"") + self.hello(),
                              UNEXPECTED_MESSAGE)


class EncryptedAlerts(GateTest):
    """After the handshake the alert is encrypted: a real client on a
    raw socket sends a record we spoiled, and must read the alert."""

    def setUp(self):
        super().setUp()
        self.b = self.backend("http")
        self.g = self.gate(self.b, mode="http", slots="2")

    def client(self, suite=GCM):
        ctx = client_ctx(ciphers=suite, max_version=ssl.TLSVersion.TLSv1_2)
        sock = socket.create_connection(("127.0.0.1", self.g.port),
                                        timeout=10)
        inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
        obj = ctx.wrap_bio(inc, out, server_hostname="localhost")
        end = deadline(10)
        while True:
            try:
                obj.do_handshake()
                break
            except ssl.SSLWantReadError:
                sock.sendall(out.read())
                b = sock.recv(1 << 16)
                self.assertTrue(b, "EOF in handshake")
                inc.write(b)
            if time.monotonic() > end:
                self.fail("handshake not done")
        sock.sendall(out.read())
        return sock, inc, out, obj

    def answer(self, sock, inc, obj, then=b""):
        """Feed the server's answer to the client: the alert it reports
        (as OpenSSL names it) and how the connection ended."""
        if then:
            try:
                sock.sendall(then)
            except OSError:
                pass
        how = "fin"
        while True:
            try:
                b = sock.recv(1 << 16)
            except ConnectionResetError:
                how = "rst"
                break
            if not b:
                break
            inc.write(b)
        sock.close()
        try:
            obj.read(1 << 16)
        except ssl.SSLError as e:
            return str(e), how
        return "no alert", how

    def spoiled(self, obj, out, data=GET):
        obj.write(data)
        rec = bytearray(out.read())
        rec[-1] ^= 0x01         # the tag's last byte
        return bytes(rec)

    def test_corrupted_gcm_tag_gets_encrypted_bad_record_mac(self):
        sock, inc, out, obj = self.client(GCM)
        sock.sendall(self.spoiled(obj, out))
        why, how = self.answer(sock, inc, obj)
        self.assertIn("BAD_RECORD_MAC", why.upper().replace(" ", "_"))
        self.assertEqual(how, "fin")
        self.g.wait_log(r"alert=20 outcome=bad-mac")

    def test_corrupted_chacha20_tag_gets_encrypted_bad_record_mac(self):
        sock, inc, out, obj = self.client(CHACHA)
        sock.sendall(self.spoiled(obj, out))
        why, how = self.answer(sock, inc, obj)
        self.assertIn("BAD_RECORD_MAC", why.upper().replace(" ", "_"))
        self.assertEqual(how, "fin")

    def test_client_still_sending_after_its_bad_record_gets_fin_not_reset(self):
        sock, inc, out, obj = self.client(GCM)
        sock.sendall(self.spoiled(obj, out))
        why, how = self.answer(sock, inc, obj, then=os.urandom(200000))
        self.assertIn("BAD_RECORD_MAC", why.upper().replace(" ", "_"))
        self.assertEqual(how, "fin")

    def test_encrypted_record_over_2_14_plus_2048_gets_record_overflow(self):
        sock, inc, out, obj = self.client(GCM)
        sock.sendall(bytes([APPDATA, 3, 3]) + struct.pack(">H", 16384 +
                     2049) + os.urandom(16384 + 2049))
        why, how = self.answer(sock, inc, obj)
        self.assertIn("RECORD_OVERFLOW", why.upper().replace(" ", "_"))
        self.assertEqual(how, "fin")

    def test_encrypted_record_too_short_for_its_tag_gets_bad_record_mac(self):
        sock, inc, out, obj = self.client(GCM)
        sock.sendall(bytes([APPDATA, 3, 3, 0, 10]) + os.urandom(10))
        why, how = self.answer(sock, inc, obj)
        self.assertIn("BAD_RECORD_MAC", why.upper().replace(" ", "_"))
        self.assertEqual(how, "fin")
