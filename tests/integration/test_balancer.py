# SPDX-License-Identifier: ISC
"""Past one box: Debian's haproxy in mode tcp, balance source, with
send-proxy-v2 and check health probes, in front of two tlsgate
processes (two configs, two ports, proxy_from = 127.0.0.1) and one
backend, all on loopback.  Clients are told apart by the source address
they bind (127.0.0.2, 127.0.0.3, ...); openssl s_client, which cannot
bind one, goes through a small relay here that connects from it.

Through haproxy: curl and openssl are served by both boxes; the backend
sees each client's own address in X-Forwarded-For; a client resumes by
session ID and by ticket, since balance source brings it back to the
box that has its session; stopping one tlsgate moves its clients to the
other and loses no request in flight; haproxy's health checks are
LOCAL headers, logged as proxy-local and counted as no error.

Skipped when haproxy is not installed (.ci/run installs it).
Runtime: about 10 s."""
import json
import os
import select
import signal
import socket
import ssl
import threading
import time

from harness import (LOOPBACK, SLOW, Gate, GateTest, certs, client_ctx,
                     close_tls, deadline, free_port, http_bytes_body,
                     recv_exact, recv_to_eof, run)
from test_proxy_protocol import haproxy, haproxy_exe
from test_stats_syslog import read_stats

GET = b"GET %s HTTP/1.1\r\nHost: lb\r\nConnection: %s\r\n\r\n"
BIG = 8 << 20


class SourceRelay:
    """Accepts on a loopback port and relays each connection to target
    from the source address given: a client that cannot bind one (as
    openssl s_client) appears to come from it."""

    def __init__(self, source, target):
        self.source, self.target = source, target
        self.lsock = socket.socket()
        self.lsock.bind((LOOPBACK, 0))
        self.lsock.listen(8)
        self.port = self.lsock.getsockname()[1]
        self.stopped = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stopped:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            u = socket.socket()
            u.bind((self.source, 0))
            try:
                u.connect(self.target)
            except OSError:
                c.close()
                u.close()
                continue
            threading.Thread(target=self._pipe, args=(c, u),
                             daemon=True).start()

    @staticmethod
    def _pipe(a, b):
        peers = {a: b, b: a}
        open_ = [a, b]
        try:
            while open_:
                r, _, _ = select.select(open_, [], [], 30)
                if not r:
                    return
                for s in r:
                    d = s.recv(65536)
                    if d:
                        peers[s].sendall(d)
                    else:
                        peers[s].shutdown(socket.SHUT_WR)
                        open_.remove(s)
        except OSError:
            pass
        finally:
            a.close()
            b.close()

    def stop(self):
        self.stopped = True
        self.lsock.close()


class Balancer(GateTest):
    # Session IDs need 1.2, tickets 1.3: clients pick, the boxes have both.
    TLS_MAX = "1.3"

    def setUp(self):
        super().setUp()
        haproxy_exe(self)  # skip before anything starts
        self.blog = os.path.join(self.tmp, "backend.log")
        backend = self.backend("http", log=self.blog)
        c = certs()
        self.boxes, self.stats = [], []
        for _ in range(2):
            st = "%s:%d" % (LOOPBACK, free_port())
            g = Gate(self.tmp, dict(self.tls_conf(), **{
                "backend": backend.addr, "cert": c.path["ec.crt"],
                "key": c.path["ec.key"], "proxy_from": "127.0.0.1",
                "stats": st, "drain_timeout": "%ds" % (10 * SLOW)}))
            self.gates.append(g)
            self.boxes.append(g)
            self.stats.append(st)
        self.port = free_port()
        self.haproxy = haproxy(self, self.port, """frontend fe
    bind %s:%d
    default_backend boxes
backend boxes
    balance source
    retries 2
    option redispatch
    server a %s:%d send-proxy-v2 check inter 200ms fall 1 rise 1
    server b %s:%d send-proxy-v2 check inter 200ms fall 1 rise 1
""" % (LOOPBACK, self.port, LOOPBACK, self.boxes[0].port, LOOPBACK,
       self.boxes[1].port))
        self.relays = []
        # Both boxes checked (and so up) before the first client.
        for g in self.boxes:
            g.wait_log(r"outcome=proxy-local$", 10)

    def tearDown(self):
        for r in getattr(self, "relays", []):
            r.stop()
        if getattr(self, "haproxy", None) is not None:
            self.haproxy.stop()
        super().tearDown()

    # --- helpers ----------------------------------------------------

    def connect(self, source, ctx=None, session=None):
        raw = socket.socket()
        raw.settimeout(10 * SLOW)
        raw.bind((source, 0))
        try:
            raw.connect((LOOPBACK, self.port))
            return (ctx or client_ctx()).wrap_socket(
                raw, server_hostname="localhost", session=session,
                suppress_ragged_eofs=False)
        except BaseException:
            raw.close()
            raise

    def get(self, source, path="/", ctx=None, session=None):
        """One request, connection closed; returns (response, socket's
        session, reused)."""
        s = self.connect(source, ctx, session)
        try:
            s.sendall(GET % (path.encode(), b"close"))
            return recv_to_eof(s), s.session, s.session_reused
        finally:
            close_tls(s)

    def box_of(self, source, n=1):
        """Which box (0, 1) logged the n-th connection from source."""
        end = deadline(5)
        while True:
            found = [(i, c) for i, g in enumerate(self.boxes)
                     for c in g.conns()
                     if c["peer"].rsplit(":", 1)[0] == source]
            if len(found) >= n:
                return found[n - 1][0]
            if time.monotonic() > end:
                raise AssertionError("no connection from %s logged: %s" % (
                    source, [g.log_tail(5) for g in self.boxes]))
            time.sleep(0.02)

    def conns_of(self, box, ip, n):
        """The conn lines of box's connections from ip, once there are
        n of them."""
        end = deadline(5)
        while True:
            mine = [c for c in self.boxes[box].conns()
                    if c["peer"].rsplit(":", 1)[0] == ip]
            if len(mine) >= n or time.monotonic() > end:
                return mine
            time.sleep(0.02)

    def two_clients(self):
        """127.0.0.2 and 127.0.0.3 if balance source puts them on two
        boxes (it does with haproxy 2.6's hash), else the first later
        address that lands on the other box: (address on box 0, address
        on box 1)."""
        got = {}
        for k in range(2, 40):
            ip = "127.0.0.%d" % k
            resp, _, _ = self.get(ip)
            self.assertTrue(resp.startswith(b"HTTP/1.1 200"), resp)
            got.setdefault(self.box_of(ip), ip)
            if len(got) == 2:
                return got[0], got[1]
        raise AssertionError("every source went to one box")

    def xff(self):
        out = []
        with open(self.blog) as f:
            for line in f:
                e = json.loads(line)
                if e["event"] == "request":
                    out.append({k.lower(): v for k, v in e["headers"]}
                               .get("x-forwarded-for"))
        return out

    # --- the tests --------------------------------------------------

    def test_curl_and_openssl_are_served_by_both_boxes(self):
        ips = self.two_clients()
        for ip in ips:
            rc, out, err = run(["curl", "-sk", "--max-time", "20",
                                "--interface", ip, "-w", "\n%{http_code}",
                                "https://%s:%d/bytes/100003" % (LOOPBACK,
                                                                self.port)],
                               30)
            self.assertEqual(rc, 0, err)
            body, _, code = out.rpartition(b"\n")
            self.assertEqual(code, b"200")
            self.assertEqual(body, http_bytes_body(100003))
            relay = SourceRelay(ip, (LOOPBACK, self.port))
            self.relays.append(relay)
            rc, out, err = run(["openssl", "s_client", "-quiet", "-connect",
                                "%s:%d" % (LOOPBACK, relay.port)], 30,
                               stdin=GET % (b"/bytes/5000", b"close"))
            self.assertEqual(rc, 0, err)
            head, _, body = out.partition(b"\r\n\r\n")
            self.assertTrue(head.startswith(b"HTTP/1.1 200 "), head)
            self.assertEqual(body, http_bytes_body(5000))
        # Each client's three connections (probe, curl, openssl) on its
        # own box, each logged with the client's address.
        for box, ip in enumerate(ips):
            self.assertEqual([self.box_of(ip, n) for n in (1, 2, 3)],
                             [box] * 3)
        for g in self.boxes:
            ok = [c for c in g.conns() if c["outcome"] == "ok"]
            self.assertGreaterEqual(len(ok), 3)
            for c in ok:
                self.assertRegex(c["via"], r"^127\.0\.0\.1:\d+$")

    def test_backend_sees_each_clients_own_address(self):
        a, b = self.two_clients()
        for ip in (a, b, a):
            resp, _, _ = self.get(ip)
            self.assertTrue(resp.startswith(b"HTTP/1.1 200"), resp)
        # The probes of two_clients() first, then these three; never
        # the balancer's own address.
        self.assertEqual(self.xff()[-3:], [a, b, a])
        self.assertEqual(self.xff()[0], "127.0.0.2")
        self.assertNotIn(LOOPBACK, self.xff())

    def test_resumption_by_session_id_and_by_ticket(self):
        a, b = self.two_clients()
        for ip, ctx, how in (
                (a, client_ctx(max_version=ssl.TLSVersion.TLSv1_2),
                 "session ID"),
                (b, client_ctx(min_version=ssl.TLSVersion.TLSv1_3,
                               tickets=True), "ticket")):
            with self.subTest(how=how):
                resp, sess, reused = self.get(ip, ctx=ctx)
                self.assertTrue(resp.startswith(b"HTTP/1.1 200"))
                self.assertFalse(reused)
                for _ in range(2):
                    resp, sess2, reused = self.get(ip, ctx=ctx, session=sess)
                    self.assertTrue(resp.startswith(b"HTTP/1.1 200"))
                    self.assertTrue(reused, how)
                    sess = sess2
        for box, ip in enumerate((a, b)):
            # The probe of two_clients(), then these three.
            mine = self.conns_of(box, ip, 4)
            self.assertEqual([c["resumed"] for c in mine[-3:]],
                             ["no", "yes", "yes"])
            self.assertEqual(mine[-1]["version"],
                             "TLS1.2" if box == 0 else "TLS1.3")
        for st in self.stats:
            self.assertGreaterEqual(read_stats(st)["resumed"], 2)

    def test_stopping_one_box_moves_its_clients_and_loses_no_request(self):
        a, b = self.two_clients()
        # A request in flight on each box: a big body, read at a steady
        # pace (64 kB every 20 ms, some 3 s in all; 4x that under qemu,
        # within the boxes' drain_timeout), each by a thread of
        # its own that alone uses its socket.
        flights = []
        for ip in (a, b):
            s = self.connect(ip)
            s.sendall(GET % (b"/bytes/%d" % BIG, b"close"))
            f = {"sock": s, "data": recv_exact(s, 65536), "error": None}
            f["thread"] = threading.Thread(target=self.slow_read, args=(f,),
                                           daemon=True)
            f["thread"].start()
            flights.append(f)
        stopped = self.boxes[0]
        stopped.signal(signal.SIGTERM)
        stopped.wait_log(r"^tlsgate: info: draining ", 5)
        # New clients of the stopped box go to the other.
        for n in range(5):
            resp, _, _ = self.get(a, "/bytes/%d" % (1000 + n))
            self.assertTrue(resp.startswith(b"HTTP/1.1 200"), resp)
            self.assertTrue(resp.endswith(http_bytes_body(1000 + n)))
        self.assertTrue(flights[0]["thread"].is_alive(),
                        "the stopped box's request ended before the test "
                        "could move its client")
        # Both requests in flight complete, to their last byte: the
        # stopped box drains, the other is untouched.
        for f in flights:
            f["thread"].join(30 * SLOW)
            self.assertFalse(f["thread"].is_alive())
            self.assertIsNone(f["error"])
            head, _, body = f["data"].partition(b"\r\n\r\n")
            self.assertTrue(head.startswith(b"HTTP/1.1 200"), head[:100])
            self.assertEqual(len(body), BIG)
            self.assertEqual(body, http_bytes_body(BIG))
        self.assertEqual(stopped.wait_exit(15), 0)
        moved = self.conns_of(1, a, 5)
        self.assertEqual(len(moved), 5)
        self.assertEqual({c["outcome"] for c in moved}, {"ok"})
        for box, ip in ((0, a), (1, b)):
            flight = self.conns_of(box, ip, 2)[1]
            self.assertEqual(flight["outcome"], "ok")
            self.assertGreater(int(flight["out"]), BIG)

    @staticmethod
    def slow_read(f):
        parts = [f["data"]]
        try:
            while True:
                d = f["sock"].recv(65536)
                if not d:
                    break
                parts.append(d)
                # Slower under emulation, where moving five clients
                # takes longer than the 3 s a native run reads for.
                time.sleep(0.02 * max(1, SLOW / 2) * len(d) / 65536)
            close_tls(f["sock"])
        except Exception as e:       # reported by the test's thread
            f["error"] = e
            f["sock"].close()
        f["data"] = b"".join(parts)

    def test_health_checks_are_local_and_no_error(self):
        time.sleep(1.0 * SLOW)
        for g, st in zip(self.boxes, self.stats):
            # The log first: a check that ends between the two reads is
            # then counted by the stats and not yet seen in the log.
            checks = [c for c in g.conns() if c["outcome"] == "proxy-local"]
            s = read_stats(st)
            self.assertGreaterEqual(len(checks), 3)
            self.assertGreaterEqual(s["proxy_local"], len(checks))
            self.assertEqual(s["proxy_errors"], 0)
            self.assertEqual(s["tls_errors"], 0)
            for c in checks:
                # The balancer's own address, and no TLS.
                self.assertEqual(c["peer"], c["via"])
                self.assertEqual(c["version"], "none")
