# SPDX-License-Identifier: ISC
"""Stateless session tickets (tickets = on): real clients resume with
them at TLS 1.2 (RFC 5077) and 1.3 with no session cache behind them
(Python ssl, openssl s_client -sess_out/-sess_in, Go's crypto/tls with a
ClientSessionCache); a ticket is bound to its server name; a
ticket_key_file is checked like a private key and re-read on reload;
keys rotate; two tlsgates sharing one key file behind haproxy balance
roundrobin resume each other's clients, two with different files make
full handshakes and no errors.

haproxy and go are skipped when absent (.ci/run installs both).
Runtime: about 20 s."""
import base64
import os
import re
import shutil
import signal
import socket
import ssl
import time

from harness import (LOOPBACK, ROOT, Gate, GateTest, certs, check, client_ctx,
                     free_port, recv_to_eof, run)
from test_proxy_protocol import haproxy, haproxy_exe
from test_stats_syslog import read_stats, wait_stats

V = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}
REQ = b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"


def key_line(tag, n=80):
    """A key file line: base64 of n bytes, the first 16 its name."""
    return base64.b64encode(bytes([tag]) * n).decode()


def get(s):
    """One request and its whole answer; the 1.3 ticket comes with it."""
    s.sendall(REQ)
    return recv_to_eof(s)


CTX = {}


def py_connect(port, version, session=None, name="localhost"):
    """(resumed, session) of one Python ssl connection taking tickets
    (one context a version: a session resumes in its own context)."""
    if version not in CTX:
        CTX[version] = client_ctx(tickets=True, min_version=V[version],
                                  max_version=V[version])
    ctx = CTX[version]
    raw = socket.create_connection((LOOPBACK, port), timeout=10)
    s = ctx.wrap_socket(raw, server_hostname=name, session=session)
    reused = s.session_reused
    assert b"HTTP/1.1 200" in get(s)
    sess = s.session
    s.close()
    return reused, sess


def py_chain(port, version, n):
    out, sess = [], None
    for _ in range(n):
        r, sess = py_connect(port, version, sess)
        out.append(r)
    return out


def s_client(port, version, sess, out=True, name="localhost"):
    """openssl s_client writing (-sess_out) or offering (-sess_in) the
    session in file sess: "New" or "Reused"."""
    rc, o, e = run(["openssl", "s_client", "-tls" + version.replace(".", "_"),
                    "-connect", "%s:%d" % (LOOPBACK, port), "-servername",
                    name, "-ign_eof", "-sess_out" if out else "-sess_in",
                    sess], 20, stdin=REQ)
    m = re.search(rb"^(New|Reused), TLSv1\.[23]", o, re.M)
    return m.group(1).decode() if m else "error: " + e.decode()[-300:]


class Tickets(GateTest):
    TLS_MAX = "1.3"

    def gate_http(self, **conf):
        # session_cache = 0: whatever resumes, resumes by ticket.
        conf.setdefault("session_cache", "0")
        return self.gate(self.backend("http"), **conf)

    def key_file(self, lines, name="ticket.keys", mode=0o600):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        os.chmod(p, mode)
        return p

    def test_python_resumes_by_ticket_at_12_and_13_without_a_cache(self):
        st = "%s:%d" % (LOOPBACK, free_port())
        g = self.gate_http(stats=st)
        for v in ("1.2", "1.3"):
            self.assertEqual(py_chain(g.port, v, 3), [False, True, True], v)
        conns = g.wait_conns(6)
        self.assertEqual([c["resumed"] for c in conns],
                         ["no", "yes", "yes"] * 2)
        s = wait_stats(st, "closed", 6)
        self.assertEqual(s["ticket_hits"], 4)
        self.assertEqual(s["cache_hits"], 0)
        # 1.2: one ticket a full handshake; 1.3: one after each.
        self.assertEqual(s["tickets"], 1 + 3)

    def test_openssl_sess_out_sess_in_resumes_by_ticket(self):
        g = self.gate_http()
        for v in ("1.2", "1.3"):
            sess = os.path.join(self.tmp, "sess" + v)
            self.assertEqual(s_client(g.port, v, sess, True), "New")
            self.assertEqual(s_client(g.port, v, sess, False), "Reused", v)

    def test_go_client_session_cache_resumes_at_12_and_13(self):
        go = shutil.which("go")
        if go is None:
            self.skipTest("go is not installed (apt-get install golang-go)")
        build = os.path.join(ROOT, "build")
        exe = os.path.join(build, "goresume")
        env = dict(os.environ, GOCACHE=os.path.join(build, "gocache"),
                   HOME=os.path.join(build, "gohome"),
                   GOPATH=os.path.join(build, "gohome", "go"),
                   GO111MODULE="off", GOFLAGS="")
        src = os.path.join(ROOT, "tests", "integration", "goresume.go")
        if not os.path.exists(exe) or \
                os.path.getmtime(exe) < os.path.getmtime(src):
            rc, o, e = run([go, "build", "-o", exe, src], 300, env=env)
            self.assertEqual(rc, 0, e.decode())
        g = self.gate_http()
        for v in ("1.2", "1.3"):
            rc, o, e = run([exe, "-addr", "%s:%d" % (LOOPBACK, g.port),
                            "-tls", v, "-n", "3"], 30)
            self.assertEqual(rc, 0, o + e)
            self.assertEqual(re.findall(rb"resumed=(\w+)", o),
                             [b"false", b"true", b"true"], (v, o))

    def test_a_ticket_does_not_resume_for_another_server_name(self):
        st = "%s:%d" % (LOOPBACK, free_port())
        g = self.gate_http(stats=st)
        for v in ("1.2", "1.3"):
            sess = os.path.join(self.tmp, "name" + v)
            self.assertEqual(s_client(g.port, v, sess, True, "a.test"), "New")
            self.assertEqual(s_client(g.port, v, sess, False, "b.test"),
                             "New", v)
            self.assertEqual(s_client(g.port, v, sess, False, "A.Test"),
                             "Reused", v)
        s = wait_stats(st, "closed", 6)
        # The tickets were offered, and refused for the other name.
        self.assertEqual(s["ticket_misses"], 2)
        self.assertEqual(s["tls_errors"], 0)

    def test_tickets_off_resumes_by_session_id_only(self):
        g = self.gate(self.backend("http"), tickets="off")
        sess = os.path.join(self.tmp, "off")
        self.assertEqual(s_client(g.port, "1.2", sess, True), "New")
        self.assertEqual(s_client(g.port, "1.2", sess, False), "Reused")
        rc, out, err = check(g.conf_path)
        self.assertIn("tickets = off\n", out)
        g2 = self.gate(self.backend("http"), tickets="off",
                       session_cache="0")
        self.assertEqual(s_client(g2.port, "1.2", sess, True), "New")
        self.assertEqual(s_client(g2.port, "1.2", sess, False), "New")

    def test_bsi_profile_turns_tickets_off(self):
        c = certs()
        p = self.conf_file(["cert = " + c.path["ec.crt"],
                            "key = " + c.path["ec.key"],
                            "tls_profile = bsi"], "bsi.conf")
        rc, out, err = check(p)
        self.assertEqual(rc, 0, err)
        self.assertIn("tickets = off\n", out)

    def test_key_file_is_checked_like_a_private_key(self):
        good = [key_line(1), key_line(2, 48)]
        loose = self.key_file(good, "loose.keys", 0o640)
        g = self.gate(self.backend("http"), ticket_key_file=loose,
                      wait_ready=False)
        self.assertEqual(g.wait_exit(10), 2)
        self.assertRegex(g.log(), r"ticket_key_file %s: mode 640" %
                         re.escape(loose))
        bad = self.key_file([key_line(1), "not base64!"], "bad.keys")
        g = self.gate(self.backend("http"), ticket_key_file=bad,
                      wait_ready=False)
        self.assertEqual(g.wait_exit(10), 2)
        self.assertIn("ticket_key_file %s: line 2: not a ticket key" % bad,
                      g.log())
        short = self.key_file([base64.b64encode(b"x" * 32).decode()],
                              "short.keys")
        g = self.gate(self.backend("http"), ticket_key_file=short,
                      wait_ready=False)
        self.assertEqual(g.wait_exit(10), 2)
        ok = self.key_file(good)
        g = self.gate_http(ticket_key_file=ok)
        rc, out, err = check(g.conf_path)
        self.assertIn("ticket keys = 2 from %s" % ok, out)

    def test_ticket_key_rotate_stays_within_the_lifetime(self):
        for rot, life, want in (("180m", "120m", "longer than session_lifetime"),
                                ("1m", "120m",
                                 "shorter than session_lifetime"),
                                ("500ms", "120m", "1s at the least")):
            p = self.conf_file(["cert = x", "key = y",
                                "ticket_key_rotate = " + rot,
                                "session_lifetime = " + life], "r.conf")
            rc, out, err = check(p)
            self.assertEqual(rc, 2, out)
            self.assertIn("r.conf:3: ticket_key_rotate: " + want, err)
        g = self.gate_http(ticket_key_rotate="20m")
        rc, out, err = check(g.conf_path)
        self.assertIn("ticket keys = rotating: a new one every 1200s, 7 kept",
                      out)

    def test_reload_takes_a_new_key_file(self):
        k = [key_line(i) for i in range(1, 6)]
        path = self.key_file([k[0], k[1]])
        g = self.gate_http(ticket_key_file=path)
        r, t1 = py_connect(g.port, "1.2")       # under k[0]
        self.assertFalse(r)
        # The next file keeps k[0] and seals with k[2].
        self.key_file([k[0], k[2], k[3]])
        g.signal(signal.SIGHUP)
        g.wait_log(r"reload: done")
        r, _ = py_connect(g.port, "1.2", t1)
        self.assertTrue(r)
        r, t2 = py_connect(g.port, "1.2")       # under k[2]
        self.assertFalse(r)
        # A file without k[0] and k[2]: both get full handshakes.
        self.key_file([k[3], k[4]])
        g.signal(signal.SIGHUP)
        g.wait_log(r"reload: done", count=2)
        for t in (t1, t2):
            r, _ = py_connect(g.port, "1.2", t)
            self.assertFalse(r)
        # A reload with a bad file is refused, the keys stay.
        r, t3 = py_connect(g.port, "1.3")
        os.chmod(path, 0o644)
        g.signal(signal.SIGHUP)
        g.wait_log(r"reload: refused: ticket_key_file .*mode 644")
        r, _ = py_connect(g.port, "1.3", t3)
        self.assertTrue(r)

    def test_rotating_keys_the_previous_resumes_an_expired_does_not(self):
        # rotate 1 s, lifetime 4 s: 5 keys kept.
        g = self.gate_http(session_lifetime="4s", ticket_key_rotate="1s")
        rc, out, err = check(g.conf_path)
        self.assertIn("a new one every 1s, 5 kept", out)
        r, t = py_connect(g.port, "1.2")
        # Into the next period: a new key seals, the previous opens.
        time.sleep(1.1)
        r, t2 = py_connect(g.port, "1.2")
        self.assertFalse(r)
        r, _ = py_connect(g.port, "1.2", t)
        self.assertTrue(r)
        # Past the lifetime (and the kept keys): a full handshake.
        time.sleep(4.1)
        r, _ = py_connect(g.port, "1.2", t)
        self.assertFalse(r)
        self.assertEqual(g.conns()[-1]["alert"], "0")

    def test_workers_share_the_rotating_keys(self):
        st = "%s:%d" % (LOOPBACK, free_port())
        g = self.gate_http(workers="4", stats=st)
        res = []
        for v in ("1.2", "1.3"):
            for _ in range(10):
                r, t = py_connect(g.port, v)
                res.append(py_connect(g.port, v, t)[0])
        self.assertEqual(res, [True] * 20)
        # Spread over workers (the kernel picks): more than one served.
        conns = g.wait_conns(40)
        self.assertGreater(len({c["worker"] for c in conns}), 1)


class TwoBoxes(GateTest):
    """Two tlsgates behind haproxy mode tcp, balance roundrobin: no
    affinity, so a returning client lands on the other box."""
    TLS_MAX = "1.3"
    N = 25

    def boxes(self, files):
        haproxy_exe(self)  # skip before anything starts
        backend = self.backend("http")
        c = certs()
        self.box, self.st = [], []
        for f in files:
            st = "%s:%d" % (LOOPBACK, free_port())
            g = Gate(self.tmp, dict(self.tls_conf(), **{
                "backend": backend.addr, "cert": c.path["ec.crt"],
                "key": c.path["ec.key"], "session_cache": "0",
                "ticket_key_file": f, "stats": st}))
            self.gates.append(g)
            self.box.append(g)
            self.st.append(st)
        self.port = free_port()
        self.haproxy = haproxy(self, self.port, """frontend fe
    bind %s:%d
    default_backend boxes
backend boxes
    balance roundrobin
    server a %s:%d
    server b %s:%d
""" % (LOOPBACK, self.port, LOOPBACK, self.box[0].port, LOOPBACK,
       self.box[1].port))

    def tearDown(self):
        if getattr(self, "haproxy", None) is not None:
            self.haproxy.stop()
        super().tearDown()

    def key_file(self, name, lines):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        os.chmod(p, 0o600)
        return p

    def rounds(self):
        """Each client kind: N clients, each a full handshake and one
        reconnection, which round robin sends to the other box (every
        other client is shifted by one connection, so that each box
        opens the other's tickets); the share that resumed, by kind."""
        out = {}
        for v in ("1.2", "1.3"):
            res = []
            for i in range(self.N):
                if i % 2:
                    py_connect(self.port, v)
                r, t = py_connect(self.port, v)
                res.append(py_connect(self.port, v, t)[0])
            out["python " + v] = sum(res) / len(res)
            res = []
            for i in range(self.N):
                if i % 2:
                    py_connect(self.port, v)
                sess = os.path.join(self.tmp, "s%s-%d" % (v, i))
                s_client(self.port, v, sess, True)
                res.append(s_client(self.port, v, sess, False) == "Reused")
            out["openssl " + v] = sum(res) / len(res)
        return out

    def served_by_both(self):
        for st in self.st:
            self.assertGreater(read_stats(st)["handshakes"], 0)

    def test_a_shared_key_file_resumes_on_either_box(self):
        f = self.key_file("shared.keys", [key_line(7), key_line(8, 48)])
        self.boxes([f, f])
        got = self.rounds()
        for kind, share in got.items():
            self.assertGreaterEqual(share, 0.95, (kind, got))
        self.served_by_both()
        hits = [read_stats(st)["ticket_hits"] for st in self.st]
        self.assertTrue(all(h > 0 for h in hits), hits)

    def test_different_key_files_make_full_handshakes_and_no_errors(self):
        self.boxes([self.key_file("a.keys", [key_line(1)]),
                    self.key_file("b.keys", [key_line(2)])])
        got = self.rounds()
        # Every reconnection goes to the other box, unless a connection
        # of the run failed or timed out and shifted round robin's turn.
        for kind, share in got.items():
            self.assertLessEqual(share, 0.1, (kind, got))
        self.served_by_both()
        for st in self.st:
            s = read_stats(st)
            self.assertEqual(s["tls_errors"], 0)
            self.assertGreater(s["ticket_misses"], 0)
