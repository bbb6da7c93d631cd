# SPDX-License-Identifier: ISC
"""http mode keeps backend connections for the next client.

One backend connection per client connection, closed by tlsgate, left a
TIME_WAIT socket on tlsgate's ephemeral ports for each client: at a few
hundred new clients a second toward a non-loopback backend the ports run
out.  A connection goes back to the pool only at a clean end (every
answer complete, with known framing, no Connection: close); a stale one
is noticed before use; a request that finds its reused connection gone
before any answer is sent again once, on a fresh one, only if it is
idempotent.  These tests watch from the backend's side: which connection
each request came on, and what it said."""
import signal
import socket
import threading
import time

from harness import (SLOW, GateTest, client_ctx, recv_to_eof, tls_connect)
from test_hostile import stats

REQ = b"GET /%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def get(port, req, source=None):
    """One new TLS connection, one request, everything to close_notify."""
    if source is None:
        s = tls_connect(port)
    else:
        raw = socket.create_connection(("127.0.0.1", port), 5 * SLOW,
                                       source_address=(source, 0))
        s = client_ctx().wrap_socket(raw, server_hostname="localhost",
                                     suppress_ragged_eofs=False)
    try:
        s.sendall(req)
        return recv_to_eof(s)
    finally:
        s.close()


def body_of(resp):
    head, _, body = resp.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), resp[:200]
    return body


class Scripted:
    """A backend whose answers a test writes: answer(conn, n, head)
    returns (bytes, then) for request n (from 0) on connection conn
    (from 0), then "keep", "close" (after the bytes) or "drop" (close
    without sending them).  Records (conn, head) per request."""

    def __init__(self, answer):
        self.answer = answer
        self.requests = []
        self.conns = 0
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.addr = "127.0.0.1:%d" % self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                k = self.conns
                self.conns += 1
            threading.Thread(target=self._serve, args=(c, k),
                             daemon=True).start()

    def _serve(self, c, k):
        buf, n = b"", 0
        with c:
            while True:
                while b"\r\n\r\n" not in buf:
                    try:
                        d = c.recv(65536)
                    except OSError:
                        return
                    if not d:
                        return
                    buf += d
                head, _, buf = buf.partition(b"\r\n\r\n")
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        want = int(line.split(b":")[1])
                        while len(buf) < want:
                            buf += c.recv(65536)
                        buf = buf[want:]
                with self.lock:
                    self.requests.append((k, head))
                data, then = self.answer(k, n, head)
                n += 1
                if then == "drop":
                    return
                c.sendall(data)
                if then == "close":
                    return

    def close(self):
        self.sock.close()


def keep(body=b"ok"):
    return (b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" %
            (len(body), body), "keep")


def time_wait_toward(port):
    """Sockets in TIME_WAIT whose remote end is this local port."""
    n = 0
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            field = line.split()
            if field[3] == "06" and int(field[2].split(":")[1], 16) == port:
                n += 1
    return n


class Pool(GateTest):
    def scripted(self, answer):
        b = Scripted(answer)
        self.addCleanup(b.close)
        return b

    def test_sequential_clients_share_one_backend_connection(self):
        b = self.scripted(lambda k, n, h: keep(b"%d" % n))
        g = self.gate(b.addr)
        for i in range(20):
            self.assertEqual(body_of(get(g.port, REQ % i)), b"%d" % i)
        self.assertEqual(b.conns, 1)
        self.assertEqual([k for k, _ in b.requests], [0] * 20)
        st = stats(g)
        self.assertEqual((st["backend_connects"], st["backend_reused"]),
                         (1, 19))
        # The client's close is tlsgate's to act on, not the backend's.
        for _, head in b.requests:
            self.assertNotIn(b"connection:", head.lower())

    def test_forwarded_for_is_per_request_on_a_shared_connection(self):
        b = self.scripted(lambda k, n, h: keep())
        g = self.gate(b.addr)
        for src in ("127.0.0.1", "127.0.0.2", "127.0.0.1"):
            body_of(get(g.port, REQ % 1, source=src))
        self.assertEqual(b.conns, 1)
        xff = [[line for line in h.split(b"\r\n")
                if line.startswith(b"X-Forwarded-For:")]
               for _, h in b.requests]
        self.assertEqual(xff, [[b"X-Forwarded-For: 127.0.0.1"],
                               [b"X-Forwarded-For: 127.0.0.2"],
                               [b"X-Forwarded-For: 127.0.0.1"]])

    def test_keep_alive_client_leaves_its_connection_to_the_next(self):
        b = self.scripted(lambda k, n, h: keep(b"%d" % n))
        g = self.gate(b.addr)
        s = tls_connect(g.port)
        for i in range(3):
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            want = b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n%d" % i
            got = b""
            while len(got) < len(want):
                got += s.recv(4096)
            self.assertEqual(got, want)
        s.unwrap()
        s.close()
        self.assertEqual(body_of(get(g.port, REQ % 9)), b"3")
        self.assertEqual(b.conns, 1)

    def test_head_chunked_204_and_interim_answers_are_framed(self):
        answers = [
            b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n",   # to HEAD
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n",
            b"HTTP/1.1 204 No Content\r\n\r\n",
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
            b"Content-Length: 2\r\n\r\nhi",
        ]
        b = self.scripted(lambda k, n, h: (answers[n], "keep"))
        g = self.gate(b.addr)
        got = [get(g.port, b"HEAD / HTTP/1.1\r\nHost: x\r\n"
                   b"Connection: close\r\n\r\n")]
        got += [get(g.port, REQ % i) for i in range(3)]
        self.assertEqual(got, answers)
        self.assertEqual(b.conns, 1)

    def test_answers_without_a_known_end_are_not_reused(self):
        # Close-delimited, Connection: close, HTTP/1.0, junk after the end.
        answers = [
            (b"HTTP/1.1 200 OK\r\n\r\nto the close", "close"),
            (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close"
             b"\r\n\r\nok", "keep"),
            (b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", "close"),
            (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", "keep"),
        ]
        b = self.scripted(lambda k, n, h: answers[k] if n == 0 else
                          (b"", "drop"))
        g = self.gate(b.addr)
        for i, (want, _) in enumerate(answers):
            self.assertEqual(get(g.port, REQ % i), want)
        self.assertEqual(b.conns, 4)
        st = stats(g)
        self.assertEqual((st["backend_connects"], st["backend_reused"]),
                         (4, 0))

    def test_connection_its_backend_closed_while_idle_is_not_used(self):
        b = self.scripted(lambda k, n, h: (keep(b"%d" % k)[0], "close"))
        g = self.gate(b.addr)
        # The backend answers with keep-alive framing, then closes.
        self.assertEqual(body_of(get(g.port, REQ % 0)), b"0")
        time.sleep(0.3)
        self.assertEqual(body_of(get(g.port, REQ % 1)), b"1")
        st = stats(g)
        self.assertEqual((st["backend_connects"], st["backend_reused"],
                          st["backend_retries"], st["backend_errors"]),
                         (2, 0, 0, 0))

    def test_idempotent_request_goes_again_once_on_a_fresh_connection(self):
        # The second request on connection 0 finds it gone: as a backend
        # closing an idle connection just as tlsgate takes it would.
        b = self.scripted(lambda k, n, h: (b"", "drop") if (k, n) == (0, 1)
                          else keep(b"%d" % k))
        g = self.gate(b.addr)
        self.assertEqual(body_of(get(g.port, REQ % 0)), b"0")
        self.assertEqual(body_of(get(g.port, REQ % 1)), b"1")
        self.assertEqual([k for k, _ in b.requests], [0, 0, 1])
        self.assertEqual(b.requests[1][1], b.requests[2][1])
        st = stats(g)
        self.assertEqual((st["backend_retries"], st["backend_errors"]),
                         (1, 0))
        self.assertRegex(g.log(), r"conn .* status=0 .*outcome=ok")

    def test_request_with_a_body_is_not_sent_twice(self):
        b = self.scripted(lambda k, n, h: (b"", "drop") if (k, n) == (0, 1)
                          else keep())
        g = self.gate(b.addr)
        body_of(get(g.port, REQ % 0))
        resp = get(g.port, b"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length:"
                   b" 3\r\nConnection: close\r\n\r\nabc")
        self.assertTrue(resp.startswith(b"HTTP/1.1 502 "), resp)
        self.assertEqual(len(b.requests), 2)
        self.assertEqual(stats(g)["backend_retries"], 0)
        self.assertRegex(g.log(), r"status=502 .*outcome=backend-closed")

    def test_pool_off_and_time_wait_toward_the_backend(self):
        # With the pool, the backend connection is reused and nothing is
        # left in TIME_WAIT on tlsgate's side; without it, one a client.
        for size, most, least in (("16", 2, 0), ("0", None, 50)):
            b = self.scripted(lambda k, n, h: keep())
            port = int(b.addr.rsplit(":", 1)[1])
            g = self.gate(b.addr, backend_pool=size)
            for i in range(60):
                body_of(get(g.port, REQ % i))
            tw = time_wait_toward(port)
            if most is not None:
                self.assertLessEqual(tw, most)
                self.assertEqual(b.conns, 1)
            else:
                self.assertGreaterEqual(tw, least)
                self.assertEqual(b.conns, 60)
            g.stop()

    def test_a_reload_lets_idle_connections_go(self):
        b = self.scripted(lambda k, n, h: keep(b"%d" % k))
        other = self.scripted(lambda k, n, h: keep(b"other"))
        g = self.gate(b.addr)
        self.assertEqual(body_of(get(g.port, REQ % 0)), b"0")
        with open(g.conf_path) as f:
            text = f.read()
        with open(g.conf_path, "w") as f:
            f.write(text.replace(b.addr, other.addr))
        g.signal(signal.SIGHUP)
        g.wait_log(r"reload: done")
        self.assertEqual(body_of(get(g.port, REQ % 1)), b"other")


if __name__ == "__main__":
    import unittest
    unittest.main()
