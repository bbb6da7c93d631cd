# SPDX-License-Identifier: ISC
"""TLS 1.3 (tls_max = 1.3): real clients through tlsgate's own TLS 1.3
engine, next to BearSSL's TLS 1.2, with the ECDSA and the RSA
certificate: every suite and group, HelloRetryRequest, the RSA-PSS and
ECDSA schemes, ALPN, SNI, KeyUpdate both ways, close_notify as a
half-close, tickets, the downgrade rules, and the log line."""
import signal
import ssl
import subprocess
import time

from harness import (SLOW, BioClient, GateTest, certs, check, client_ctx,
                     http_bytes_body, random_bytes, run, tls_connect)
from test_hostile import stats
from test_scanners import need

GET_CLOSE = b"GET /bytes/%d HTTP/1.1\r\nHost: localhost\r\n" \
    b"Connection: close\r\n\r\n"


def ctx13():
    c = client_ctx()
    c.minimum_version = ssl.TLSVersion.TLSv1_3
    return c


def s_client(port, args, data, timeout=20):
    return run(["openssl", "s_client", "-quiet", "-connect",
                "127.0.0.1:%d" % port] + args, timeout, stdin=data)


class TLS13(GateTest):
    TLS_MAX = "1.3"

    def gate13(self, cert="ec", mode="http", **conf):
        return self.gate(self.backend("http" if mode == "http" else "echo"),
                         cert=cert, mode=mode, **conf)

    def last_conn(self, g):
        c = g.wait_conns(1)[-1]
        self.assertEqual(c["outcome"], "ok", c)
        return c

    def get_exact(self, port, args, n=100003):
        rc, out, err = s_client(port, args, GET_CLOSE % n)
        self.assertEqual(rc, 0, err)
        head, _, body = out.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 200 "), head[:200])
        self.assertEqual(body, http_bytes_body(n))

    def test_curl_gets_tls13_with_alpn_and_exact_body(self):
        g = self.gate13()
        n = 300007
        rc, out, err = run(["curl", "-sk", "-v", "--max-time", "20",
                            "https://localhost:%d/bytes/%d" % (g.port, n)],
                           30)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, http_bytes_body(n))
        self.assertIn(b"SSL connection using TLSv1.3", err)
        self.assertIn(b"ALPN: server accepted http/1.1", err)
        c = self.last_conn(g)
        self.assertEqual(c["version"], "TLS1.3")
        self.assertEqual(c["suite"], "TLS_AES_128_GCM_SHA256")
        self.assertEqual(c["sni"], "localhost")
        self.assertEqual(c["resumed"], "no")

    def test_gnutls_cli_at_both_versions_and_resuming(self):
        need("gnutls-cli")
        for cert in ["ec", "rsa"]:
            g = self.gate13(cert=cert)
            for prio, want in [("NORMAL", b"(TLS1.3-X.509)"),
                               ("NORMAL:-VERS-ALL:+VERS-TLS1.2",
                                b"(TLS1.2-X.509)")]:
                # Its input ends right after the request: at that EOF it
                # sends close_notify, which ends only its side, in TLS
                # 1.2 as in 1.3: the answer still comes, then ours.
                rc, out, err = run(["gnutls-cli", "--insecure",
                                    "--priority", prio, "-p", str(g.port),
                                    "127.0.0.1"], 20 * SLOW,
                                   stdin=GET_CLOSE % 5000)
                self.assertEqual(rc, 0, err)
                self.assertIn(want, out)
                self.assertIn(b"\r\n\r\n" + http_bytes_body(5000), out)
        # -r: a second connection with the ticket of the first.
        rc, out, err = run(["gnutls-cli", "--insecure", "-r", "-p",
                            str(g.port), "127.0.0.1"], 20,
                           stdin=b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertIn(b"*** This is a resumed session", out)
        self.assertEqual([c["resumed"] for c in g.wait_conns(4)][-2:],
                         ["no", "yes"])

    def test_headless_chromium_gets_tls13_without_a_retry(self):
        """Its hello carries GREASE and (Chromium 124 and later) a
        post-quantum X25519MLKEM768 share beside the X25519 one, which
        tlsgate answers, with no HelloRetryRequest."""
        need("chromium")
        g = self.gate13()
        conn = self.chromium_conn(g)
        self.assertEqual(conn["version"], "TLS1.3")
        # The page was served; how an exiting browser drops its socket
        # (FIN, or a reset) is its own business.
        self.assertIn(conn["outcome"], ("ok", "client-reset"), conn)
        st = stats(g)
        self.assertGreaterEqual(st["tls13"], 1)
        self.assertEqual(st["hrr"], 0)
        self.assertEqual(st["tls_errors"], 0)

    def test_headless_chromium_at_tls12(self):
        need("chromium")
        g = self.gate13()
        rc, out, err = run(["chromium", "--headless=new", "--no-sandbox",
                            "--disable-gpu", "--ignore-certificate-errors",
                            "--ssl-version-max=tls1.2",
                            "--user-data-dir=%s/chromium12" % self.tmp,
                            "--dump-dom", "https://127.0.0.1:%d/" % g.port],
                           60)
        self.assertIn(b"hello from the backend behind tlsgate", out, err[-500:])
        g.wait_log(r"^tlsgate: info: conn id=.* requests=[1-9]")
        conn = [c for c in g.conns() if c["requests"] != "0"][0]
        self.assertEqual(conn["version"], "TLS1.2")
        # As at 1.3: a FIN or a reset from the exiting browser.
        self.assertIn(conn["outcome"], ("ok", "client-reset"), conn)

    def test_wget_at_tls12(self):
        need("wget")
        # wget's TLSv1_2 is a floor, not a ceiling: the service's is.
        g = self.gate13(tls_max="1.2")
        rc, out, err = run(["wget", "-q", "-O", "-", "--no-check-certificate",
                            "https://127.0.0.1:%d/" % g.port], 20)
        self.assertEqual(rc, 0, err)
        self.assertIn(b"hello from the backend behind tlsgate", out)
        conn = g.wait_conns(1)[0]
        self.assertEqual((conn["version"], conn["outcome"]), ("TLS1.2", "ok"))

    def test_each_suite_and_group_with_openssl(self):
        g = self.gate13()
        n = 0
        for suite in ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                      "TLS_CHACHA20_POLY1305_SHA256"]:
            for group in ["X25519", "P-256", "P-384", "P-521"]:
                self.get_exact(g.port, ["-tls1_3", "-ciphersuites", suite,
                                        "-groups", group], 20011)
                # This connection's line: it may follow the client's end.
                n += 1
                c = g.wait_conns(n)[-1]
                self.assertEqual((c["version"], c["suite"], c["outcome"]),
                                 ("TLS1.3", suite, "ok"), (suite, group))

    def test_hello_retry_request_when_the_share_is_for_another_group(self):
        g = self.gate13(groups="x25519 secp256r1")
        # P-384, not ours, first: its share is the only one, then P-256
        # is asked for.
        rc, out, err = s_client(g.port, ["-tls1_3", "-msg", "-groups",
                                         "P-384:P-256"], GET_CLOSE % 10)
        self.assertEqual(rc, 0, err)
        self.assertIn(b"HTTP/1.1 200 ", out)
        text = out.decode("latin-1")
        self.assertEqual(text.count("ClientHello"), 2, text[:2000])
        self.assertIn("ServerHello", text)
        st = stats(g)
        self.assertEqual((st["tls13"], st["hrr"]), (1, 1))
        # No group in common: handshake_failure, and the slot is back.
        rc, out, err = s_client(g.port, ["-tls1_3", "-groups", "P-384"],
                                GET_CLOSE % 10)
        self.assertNotEqual(rc, 0)
        self.assertIn(b"handshake failure", err)
        self.get_exact(g.port, ["-tls1_3"], 100)

    def test_rsa_certificate_signs_with_each_pss_scheme(self):
        g = self.gate13(cert="rsa")
        for alg in ["rsa_pss_rsae_sha256", "rsa_pss_rsae_sha384",
                    "rsa_pss_rsae_sha512"]:
            rc, out, err = s_client(g.port, ["-tls1_3", "-sigalgs", alg,
                                             "-msg"], GET_CLOSE % 33)
            self.assertEqual(rc, 0, err)
            self.assertIn(b"HTTP/1.1 200 ", out)
        # PKCS#1 v1.5 only: TLS 1.3 forbids it in CertificateVerify.
        rc, out, err = s_client(g.port, ["-tls1_3", "-sigalgs",
                                         "RSA+SHA256"], GET_CLOSE % 33)
        self.assertNotEqual(rc, 0)
        self.assertIn(b"handshake failure", err)

    def test_python_tls13_only_echoes_random_bytes_ecdsa_and_rsa(self):
        for cert in ["ec", "rsa"]:
            g = self.gate13(cert=cert, mode="tcp")
            s = tls_connect(g.port, ctx13())
            self.assertEqual(s.version(), "TLSv1.3")
            data = random_bytes(1 << 20, seed=13)
            s.sendall(data[:1000])
            got = b""
            while len(got) < 1000:
                got += s.recv(65536)
            self.assertEqual(got, data[:1000])
            s.close()

    def test_keyupdate_both_ways_with_openssl(self):
        g = self.gate13(mode="tcp")
        p = subprocess.Popen(["openssl", "s_client", "-tls1_3", "-msg",
                              "-connect", "127.0.0.1:%d" % g.port],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        # K: update and ask for ours; k: update only.  Echo goes on.
        # s_client reads a command only as a line of its own.
        for line in [b"one\n", b"K\n", b"two\n", b"k\n", b"three\n"]:
            time.sleep(0.25 * SLOW)
            p.stdin.write(line)
            p.stdin.flush()
        time.sleep(0.5 * SLOW)
        out, _ = p.communicate(b"", timeout=20)
        text = out.decode("latin-1")
        for w in ["one", "two", "three"]:
            self.assertIn("\n" + w + "\n", text)
        self.assertEqual(text.count(">>> TLS 1.3, Handshake [length 0005], "
                                    "KeyUpdate"), 2, text[-3000:])
        self.assertEqual(text.count("<<< TLS 1.3, Handshake [length 0005], "
                                    "KeyUpdate"), 1, text[-3000:])
        self.assertEqual(self.last_conn(g)["in"], "14")

    def test_close_notify_first_still_gets_the_answer(self):
        """RFC 8446 6.1: the client's close_notify ends its side only."""
        g = self.gate13()
        c = BioClient(g.port, ctx13())
        try:
            c.send_hello()
            c.handshake(5 * SLOW)
            c.send(b"GET /bytes/5000 HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                c.obj.unwrap()
            except ssl.SSLWantReadError:
                pass
            c.flush()
            got = b""
            end = time.monotonic() + 5 * SLOW
            while True:
                try:
                    got += c.obj.read(65536)
                    continue
                except ssl.SSLWantReadError:
                    pass
                except ssl.SSLZeroReturnError:
                    break
                c._feed(end)
            head, _, body = got.partition(b"\r\n\r\n")
            self.assertTrue(head.startswith(b"HTTP/1.1 200 "), got[:200])
            self.assertEqual(body, http_bytes_body(5000))
        finally:
            c.close()
        conn = self.last_conn(g)
        self.assertEqual(conn["requests"], "1")

    def test_tls_max_12_keeps_tls13_clients_out(self):
        g = self.gate(self.backend("http"), tls_max="1.2")
        with self.assertRaises(ssl.SSLError):
            tls_connect(g.port, ctx13())
        s = tls_connect(g.port)
        self.assertEqual(s.version(), "TLSv1.2")
        s.close()

    def server_random(self, port):
        rc, out, err = run(["openssl", "s_client", "-connect",
                            "127.0.0.1:%d" % port, "-tls1_2", "-msg"], 20,
                           stdin=b"")
        text = out.decode("latin-1")
        i = text.index("ServerHello\n")
        hexes = "".join(text[i:].split("\n")[1:4]).split()
        return bytes.fromhex("".join(hexes[6:38]))

    def test_downgrade_rules(self):
        g = self.gate13()
        # RFC 8446 4.1.3: 1.2 from a server that has 1.3 says so.
        self.assertEqual(self.server_random(g.port)[-8:], b"DOWNGRD\x01")
        g12 = self.gate(self.backend("http"), tls_max="1.2")
        self.assertNotEqual(self.server_random(g12.port)[-8:-1], b"DOWNGRD")
        # TLS_FALLBACK_SCSV from a client capped at 1.2 is refused.
        rc, out, err = s_client(g.port, ["-tls1_2", "-fallback_scsv"],
                                GET_CLOSE % 10)
        self.assertNotEqual(rc, 0)
        self.assertIn(b"inappropriate fallback", err)
        g.wait_log(r"outcome=inappropriate-fallback")
        s = tls_connect(g.port, client_ctx(
            max_version=ssl.TLSVersion.TLSv1_2))
        self.assertEqual(s.version(), "TLSv1.2")
        s.close()

    def test_tls_min_13_refuses_older_clients_with_protocol_version(self):
        g = self.gate13(tls_min="1.3")
        rc, out, err = s_client(g.port, ["-tls1_2"], GET_CLOSE % 10)
        self.assertNotEqual(rc, 0)
        self.assertIn(b"protocol version", err)
        g.wait_log(r"alert=70 outcome=protocol-version")
        self.get_exact(g.port, ["-tls1_3"], 1000)
        p = self.conf_file(["tls_min = 1.3", "tls_max = 1.2", "cert = x",
                            "key = y"])
        rc, out, err = check(p)
        self.assertEqual(rc, 2, err)
        self.assertRegex(err, r"t\.conf:2: \[default\]: tls_min: 1\.3 is "
                         r"above tls_max")
        # The default tls_max is 1.3.
        rc, out, err = check(self.conf_file(["tls_min = 1.3"], "u.conf"))
        self.assertNotIn("tls_min", err)

    def resume_chain(self, port, n, reuse_first=False):
        """n connections, each offering the ticket of the one before (or
        of the first): which of them resumed."""
        ctx, sess, first, out = ctx13(), None, None, []
        for i in range(n):
            s = tls_connect(port, ctx, session=first if reuse_first else
                            sess)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertIn(b"HTTP/1.1 200 ", s.recv(65536))
            out.append(s.session_reused)
            sess = s.session
            first = first or sess
            s.close()
        return out

    def test_a_ticket_resumes_after_a_hello_retry_request(self):
        """The binder of a second hello covers the first's hash and the
        HelloRetryRequest (RFC 8446 4.2.11.2): openssl, sharing P-384
        only, is asked for P-256 both times and resumes the second."""
        g = self.gate13(groups="x25519 secp256r1")
        sess = "%s/sess" % self.tmp
        outs = []
        for io in (["-sess_out", sess], ["-sess_in", sess]):
            # -ign_eof: it reads on to the server's close, ticket included.
            rc, out, err = run(["openssl", "s_client", "-tls1_3", "-msg",
                                "-ign_eof", "-groups", "P-384:P-256",
                                "-connect",
                                "127.0.0.1:%d" % g.port] + io, 20,
                               stdin=GET_CLOSE % 10)
            self.assertEqual(rc, 0, err)
            outs.append(out.decode("latin-1"))
        for text in outs:
            self.assertEqual(text.count("ClientHello"), 2, text[:2000])
        self.assertIn("New, TLSv1.3", outs[0])
        self.assertIn("Reused, TLSv1.3", outs[1])
        st = stats(g)
        self.assertEqual((st["tls13"], st["hrr"], st["resumed"]), (2, 2, 1))
        self.assertEqual([c["resumed"] for c in g.wait_conns(2)],
                         ["no", "yes"])

    def test_a_ticket_resumes_again_within_its_lifetime(self):
        g = self.gate13()
        self.assertEqual(self.resume_chain(g.port, 4),
                         [False, True, True, True])
        st = stats(g)
        self.assertEqual((st["tls13"], st["hrr"], st["tickets"], st["resumed"]),
                         (4, 0, 4, 3))
        conns = g.wait_conns(4)
        self.assertEqual([c["resumed"] for c in conns],
                         ["no", "yes", "yes", "yes"])
        # No 0-RTT, so nothing to replay: the first ticket, offered
        # again and again, resumes each time.
        self.assertEqual(self.resume_chain(g.port, 3, reuse_first=True),
                         [False, True, True])
        # openssl s_client too.
        sess = "%s/s.pem" % self.tmp
        # -ign_eof: it reads on to the server's close, ticket included.
        rc, out, err = run(["openssl", "s_client", "-tls1_3", "-ign_eof",
                            "-sess_out", sess, "-connect",
                            "127.0.0.1:%d" % g.port], 20, stdin=GET_CLOSE % 10)
        rc, out, err = run(["openssl", "s_client", "-tls1_3", "-sess_in",
                            sess, "-connect", "127.0.0.1:%d" % g.port], 20,
                           stdin=GET_CLOSE % 10)
        self.assertIn(b"Reused, TLSv1.3", out)

    def test_a_ticket_past_its_lifetime_gets_a_full_handshake(self):
        # Under emulation a second handshake may take longer than 1 s.
        life = 1 if SLOW == 1 else 4
        g = self.gate13(session_lifetime="%ds" % life)
        ctx = ctx13()
        s = tls_connect(g.port, ctx)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertIn(b"HTTP/1.1 200 ", s.recv(65536))
        sess = s.session
        s.close()
        # Announced as it is enforced: ticket_lifetime in seconds.
        self.assertEqual(sess.ticket_lifetime_hint, life)
        s = tls_connect(g.port, ctx, session=sess)
        self.assertTrue(s.session_reused)
        s.close()
        time.sleep(life + 1.1)
        s = tls_connect(g.port, ctx, session=sess)
        self.assertFalse(s.session_reused)
        s.close()
        self.assertEqual([c["resumed"] for c in g.wait_conns(3)],
                         ["no", "yes", "no"])

    def test_tickets_shared_by_workers_and_kept_over_a_reload(self):
        g = self.gate13(workers="2")
        self.assertEqual(self.resume_chain(g.port, 6),
                         [False] + [True] * 5)
        ctx = ctx13()
        s = tls_connect(g.port, ctx)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        s.recv(65536)
        sess = s.session
        s.close()
        g.signal(signal.SIGHUP)
        g.wait_log(r"reload: done", count=2)
        s = tls_connect(g.port, ctx, session=sess)
        self.assertTrue(s.session_reused)
        s.close()

    def test_tickets_need_no_session_cache(self):
        # The ticket is the session (stateless): no cache entry behind it.
        g = self.gate13(session_cache="0")
        self.assertEqual(self.resume_chain(g.port, 3), [False, True, True])

    def test_no_tickets_without_tickets_or_a_session_cache(self):
        g = self.gate13(session_cache="0", tickets="off")
        self.assertEqual(self.resume_chain(g.port, 3), [False] * 3)

    def test_tickets_off_keeps_13_tickets_in_the_cache(self):
        g = self.gate13(tickets="off")
        self.assertEqual(self.resume_chain(g.port, 3), [False, True, True])

    def test_check_prints_tls_max(self):
        g = self.gate13()
        rc, out, err = check(g.conf_path)
        self.assertEqual(rc, 0, err)
        self.assertIn("tls_max = 1.3\n", out)
