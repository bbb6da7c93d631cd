# SPDX-License-Identifier: ISC
"""TLS 1.2 session resumption by session ID, its LRU bound, its lifetime,
the extended master secret, and turning it off."""
import re
import time

from harness import SLOW, GateTest, client_ctx, close_tls, run, tls_connect
from tlswire import (ALERT, HANDSHAKE, HANDSHAKE_FAILURE, Conn, client_hello,
                     hello_extensions, record, server_hello_extensions, u16)


def s_client_reconnect(port):
    """openssl s_client -reconnect: one full handshake, then five more
    with the same session.  Returns (New count, Reused count, output)."""
    rc, out, err = run(["openssl", "s_client", "-tls1_2", "-reconnect",
                        "-no_ticket", "-connect", "127.0.0.1:%d" % port],
                       30, stdin=b"")
    text = out.decode("latin-1")
    return (len(re.findall(r"^New, TLSv1\.2", text, re.M)),
            len(re.findall(r"^Reused, TLSv1\.2", text, re.M)), text)


class Resumption(GateTest):
    # Session IDs in tlsgate's cache; TLS 1.3 tickets: test_tls13.py.
    TLS_MAX = "1.2"

    def test_s_client_reconnect_resumes_and_log_says_resumed(self):
        g = self.gate(self.backend("echo"))
        new, reused, text = s_client_reconnect(g.port)
        self.assertEqual(new, 1, text)
        self.assertEqual(reused, 5, text)
        conns = g.wait_conns(6)
        self.assertEqual([c["resumed"] for c in conns],
                         ["no"] + ["yes"] * 5)

    def test_a_session_past_its_lifetime_gets_a_full_handshake(self):
        # Long enough for one reconnect under qemu too (SLOW).
        life = int(SLOW) if SLOW > 1 else 1
        g = self.gate(self.backend("echo"), session_lifetime="%ds" % life)
        ctx = client_ctx()
        s = tls_connect(g.port, ctx)
        sess = s.session
        close_tls(s)
        s = tls_connect(g.port, ctx, session=sess)
        self.assertTrue(s.session_reused)
        close_tls(s)
        time.sleep(life + 1.1)
        s = tls_connect(g.port, ctx, session=sess)
        self.assertFalse(s.session_reused)
        close_tls(s)

    def test_extended_master_secret_is_answered(self):
        g = self.gate(self.backend("echo"))
        rc, out, err = run(["openssl", "s_client", "-tls1_2", "-connect",
                            "127.0.0.1:%d" % g.port], 20, stdin=b"")
        self.assertIn(b"Extended master secret: yes", out)

    def test_ems_required_refuses_a_hello_without_it(self):
        # RFC 7627 5.2, the bsi profile's rule: handshake_failure.
        g = self.gate(self.backend("echo"), ems="required")
        c = Conn(g.port)
        c.send(record(HANDSHAKE, client_hello()))
        recs, end = c.ending()
        c.close()
        self.assertEqual([(r[0], r[2]) for r in recs],
                         [(ALERT, bytes([2, HANDSHAKE_FAILURE]))])
        c = Conn(g.port)
        c.send(record(HANDSHAKE, client_hello(
            exts=hello_extensions() + u16(23) + u16(0))))
        sh = [b for t, b in c.first_flight() if t == 2]
        c.close()
        self.assertIn((23, b""), server_hello_extensions(sh[0]))
        line = g.wait_conns(2)[0]
        self.assertEqual((line["outcome"], line["alert"]),
                         ("no-extended-master-secret", "40"))
        # A real client offers it, and is served.
        rc, out, err = run(["openssl", "s_client", "-tls1_2", "-connect",
                            "127.0.0.1:%d" % g.port], 20, stdin=b"")
        self.assertIn(b"Extended master secret: yes", out)

    def test_lru_forgets_the_oldest_session_first(self):
        k = 4
        g = self.gate(self.backend("echo"), session_cache=k)
        ctx = client_ctx()
        sessions = []
        for _ in range(k + 1):
            s = tls_connect(g.port, ctx)
            self.assertFalse(s.session_reused)
            sessions.append(s.session)
            close_tls(s)
        self.assertEqual(len({x.id for x in sessions}), k + 1)
        # Oldest first: this full handshake saves a sixth session, which
        # pushes out the second, not the newest.
        s = tls_connect(g.port, ctx, session=sessions[0])
        oldest = s.session_reused
        close_tls(s)
        s = tls_connect(g.port, ctx, session=sessions[k])
        newest = s.session_reused
        close_tls(s)
        self.assertFalse(oldest, "session #1 of %d resumed with a cache "
                         "of %d" % (k + 1, k))
        self.assertTrue(newest, "the newest session did not resume")
        conns = g.wait_conns(k + 3)
        self.assertEqual([c["resumed"] for c in conns[k + 1:]], ["no", "yes"])

    def test_all_k_sessions_fit_in_a_cache_of_k(self):
        # The other half of the LRU bound: K sessions are all kept.
        k = 4
        g = self.gate(self.backend("echo"), session_cache=k)
        ctx = client_ctx()
        sessions = []
        for _ in range(k):
            s = tls_connect(g.port, ctx)
            sessions.append(s.session)
            close_tls(s)
        for i, sess in enumerate(sessions):
            s = tls_connect(g.port, ctx, session=sess)
            self.assertTrue(s.session_reused, "session #%d" % (i + 1))
            close_tls(s)

    def test_session_cache_zero_never_resumes(self):
        g = self.gate(self.backend("echo"), session_cache=0)
        new, reused, text = s_client_reconnect(g.port)
        self.assertEqual(reused, 0, text)
        self.assertEqual(new, 6, text)
        ctx = client_ctx()
        s = tls_connect(g.port, ctx)
        sess = s.session
        close_tls(s)
        s = tls_connect(g.port, ctx, session=sess)
        self.assertFalse(s.session_reused)
        close_tls(s)
        conns = g.wait_conns(8)
        self.assertEqual({c["resumed"] for c in conns}, {"no"})
        self.assertEqual({c["outcome"] for c in conns}, {"ok"})
