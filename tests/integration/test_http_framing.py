# SPDX-License-Identifier: ISC
"""http mode framing: every ambiguous request head is refused with
tlsgate's own 400 or 431 before the backend sees it; bodies pass
byte-exact by Content-Length or chunked; keep-alive, pipelining,
HTTP/1.0, Connection: close and Expect: 100-continue behave; and
tlsgate's other own answers (408, 502, 503, 504) come with
Connection: close and one log line naming the reason.

Runtime: about 15 s (two 10 MB uploads, a 1,000-request pipeline and
four timeouts of about a second each)."""
import hashlib
import json
import os
import random
import select
import signal
import socket
import ssl
import threading
import time

from harness import (LOOPBACK, SLOW, GateTest, close_tls, deadline,
                     free_port, recv_to_eof, tls_connect)

WANTS = (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError)


class Response:
    def __init__(self, line, headers, body):
        self.line = line
        self.status = int(line.split(" ")[1])
        self.headers = headers
        self.body = body


class Responses:
    """HTTP/1.x responses parsed off a byte stream, in order.  Every
    final response the tests meet is framed by Content-Length."""

    def __init__(self):
        self.buf = bytearray()
        self.done = []

    def feed(self, data):
        self.buf += data
        while True:
            i = self.buf.find(b"\r\n\r\n")
            if i < 0:
                return
            lines = bytes(self.buf[:i]).decode("latin-1").split("\r\n")
            headers = {}
            for field in lines[1:]:
                k, _, v = field.partition(":")
                headers.setdefault(k.strip().lower(), v.strip())
            status = int(lines[0].split(" ")[1])
            n = 0 if status < 200 else int(headers["content-length"])
            if len(self.buf) < i + 4 + n:
                return
            self.done.append(Response(lines[0], headers,
                                      bytes(self.buf[i + 4:i + 4 + n])))
            del self.buf[:i + 4 + n]


def exchange(sock, chunks, resp, nresp, timeout=30):
    """Send every chunk while parsing what comes back into resp, until
    resp holds nresp responses.  Non-blocking and single-threaded, so a
    big upload and its echo cannot deadlock on full buffers."""
    chunks = iter(chunks)
    old = sock.gettimeout()
    sock.setblocking(False)
    end = deadline(timeout)
    cur, off, more = b"", 0, True
    try:
        while True:
            while more and off == len(cur):
                cur, off = next(chunks, None), 0
                if cur is None:
                    cur, more = b"", False
            if off < len(cur):
                try:
                    off += sock.send(cur[off:])
                except WANTS:
                    pass
            while len(resp.done) < nresp:
                try:
                    b = sock.recv(1 << 18)
                except WANTS:
                    break
                if not b:
                    raise AssertionError("EOF after %d of %d responses" % (
                        len(resp.done), nresp))
                resp.feed(b)
            if len(resp.done) >= nresp and not more and off == len(cur):
                return
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("%d of %d responses after %.0fs" % (
                    len(resp.done), nresp, timeout * SLOW))
            wr = [sock] if more or off < len(cur) else []
            select.select([sock], wr, [], min(left, 0.5))
    finally:
        sock.settimeout(old)


def one_response(sock, timeout=10):
    """The next response on sock (anything after it stays unread)."""
    resp = Responses()
    end = deadline(timeout)
    while not resp.done:
        if time.monotonic() > end:
            raise TimeoutError("no complete response: %r" % bytes(resp.buf))
        b = sock.recv(1 << 16)
        if not b:
            raise AssertionError("EOF before a response: %r" %
                                 bytes(resp.buf))
        resp.feed(b)
    if resp.buf:
        raise AssertionError("bytes after the response: %r" %
                             bytes(resp.buf[:200]))
    return resp.done[0]


def backend_events(path, kind):
    """The --log events of tests/backend.py of one kind."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [e for e in map(json.loads, f) if e["event"] == kind]


def chunked(data, rng, max_chunk=1 << 16):
    """data as a chunked body in chunks of random sizes, some with a
    chunk extension, then the last chunk and an empty trailer."""
    off = 0
    while off < len(data):
        n = rng.randint(1, max_chunk)
        ext = b";n=%d" % n if rng.random() < 0.2 else b""
        part = data[off:off + n]
        yield b"%x%s\r\n" % (len(part), ext) + part + b"\r\n"
        off += n
    yield b"0\r\n\r\n"


class MiniBackend:
    """An HTTP backend in a thread of the test, for behaviour that
    tests/backend.py does not have: it keeps an HTTP/1.0 connection
    alive when asked, answers Expect: 100-continue, or closes before
    answering (close_at_once).  raw holds every byte each connection
    brought, in accept order; requests every request it answered.
    Bodies: Content-Length only (a chunked request is read to EOF and
    never answered).  Answers echo the body, or the target
    when there is none."""

    def __init__(self, close_at_once=False, timeout=60):
        self.close_at_once = close_at_once
        self.raw, self.requests, self.threads = [], [], []
        self.stopping = False
        self.end = deadline(timeout)
        self.lsock = socket.socket()
        self.lsock.bind((LOOPBACK, 0))
        self.lsock.listen(16)
        self.lsock.settimeout(0.1)
        self.port = self.lsock.getsockname()[1]
        self.addr = "%s:%d" % (LOOPBACK, self.port)
        t = threading.Thread(target=self._accept, daemon=True)
        t.start()
        self.threads.append(t)

    def _live(self):
        return not self.stopping and time.monotonic() < self.end

    def _accept(self):
        while self._live():
            try:
                c, _ = self.lsock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            raw = bytearray()
            self.raw.append(raw)
            t = threading.Thread(target=self._serve, args=(c, raw),
                                 daemon=True)
            t.start()
            self.threads.append(t)

    def _serve(self, c, raw):
        buf = bytearray()
        c.settimeout(0.1)

        def more():
            while self._live():
                try:
                    b = c.recv(1 << 16)
                except socket.timeout:
                    continue
                except OSError:
                    return False
                if not b:
                    return False
                raw.extend(b)
                buf.extend(b)
                return True
            return False

        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    if not more():
                        return
                if self.close_at_once:
                    return
                i = buf.index(b"\r\n\r\n") + 4
                lines = bytes(buf[:i - 4]).decode("latin-1").split("\r\n")
                del buf[:i]
                method, target, version = lines[0].split(" ")
                hdrs = {}
                for field in lines[1:]:
                    k, _, v = field.partition(":")
                    hdrs[k.strip().lower()] = v.strip()
                if "transfer-encoding" in hdrs:
                    # Not parsed here: wait for the end, answer nothing.
                    while more():
                        pass
                    return
                if hdrs.get("expect", "").lower() == "100-continue":
                    c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                n = int(hdrs.get("content-length", "0"))
                while len(buf) < n:
                    if not more():
                        return
                body = bytes(buf[:n])
                del buf[:n]
                self.requests.append((method, target, version, hdrs, body))
                conn = hdrs.get("connection", "").lower()
                if version == "HTTP/1.0":
                    keep = conn == "keep-alive"
                    extra = b"Connection: keep-alive\r\n" if keep else b""
                else:
                    keep = conn != "close"
                    extra = b"" if keep else b"Connection: close\r\n"
                payload = body or target.encode()
                c.sendall(b"%s 200 OK\r\nContent-Length: %d\r\n%s\r\n" % (
                    version.encode(), len(payload), extra) + payload)
                if not keep:
                    return
        finally:
            c.close()

    def stop(self):
        self.stopping = True
        for t in self.threads:
            t.join(5)
        self.lsock.close()


class Rejections(GateTest):
    """Each ambiguous head gets tlsgate's own answer and a close; the
    backend never sees a request."""

    def reject(self, raw, status, outcome):
        log = os.path.join(self.tmp, "backend.log")
        g = self.gate(self.backend("http", log=log), mode="http")
        s = tls_connect(g.port)
        try:
            s.sendall(raw)
            r = one_response(s)
            rest = recv_to_eof(s)
        finally:
            s.close()
        self.assertEqual(r.status, status, r.line)
        self.assertEqual(r.headers.get("connection"), "close")
        self.assertEqual(rest, b"")
        conn = g.wait_conns(1, timeout=5)[0]
        self.assertEqual(conn["status"], str(status), conn)
        self.assertEqual(conn["outcome"], outcome, conn)
        self.assertEqual(backend_events(log, "request"), [])
        return g

    def test_content_length_with_transfer_encoding(self):
        self.reject(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                    b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400,
                    "cl-and-te")

    def test_two_differing_content_lengths(self):
        self.reject(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                    b"Content-Length: 4\r\n\r\nabcd", 400, "duplicate-cl")

    def test_two_identical_content_lengths(self):
        self.reject(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
                    b"Content-Length: 4\r\n\r\nabcd", 400, "duplicate-cl")

    def test_transfer_encoding_not_ending_in_chunked(self):
        self.reject(b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                    b"Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", 400,
                    "bad-te")

    def test_transfer_encoding_other_than_chunked(self):
        self.reject(b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                    b"Transfer-Encoding: gzip\r\n\r\n", 400, "bad-te")

    def test_two_transfer_encoding_lines(self):
        self.reject(b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                    b"Transfer-Encoding: chunked\r\n"
                    b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400,
                    "duplicate-te")

    def test_transfer_encoding_in_http10(self):
        self.reject(b"POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n"
                    b"\r\n0\r\n\r\n", 400, "te-in-http10")

    def test_obs_fold(self):
        self.reject(b"GET / HTTP/1.1\r\nHost: x\r\nX-A: one\r\n two\r\n\r\n",
                    400, "obs-fold")

    def test_space_before_colon(self):
        self.reject(b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Length : 4\r\n\r\nabcd", 400,
                    "space-before-colon")

    def test_nul_in_head(self):
        self.reject(b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400,
                    "control-char")

    def test_control_char_in_head(self):
        self.reject(b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x1bb\r\n\r\n", 400,
                    "control-char")

    def test_bare_cr(self):
        self.reject(b"GET / HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n", 400,
                    "bare-cr")

    def test_bare_lf(self):
        self.reject(b"GET / HTTP/1.1\nHost: x\r\n\r\n", 400, "bare-lf")

    def test_request_line_without_version(self):
        self.reject(b"GET /\r\nHost: x\r\n\r\n", 400, "bad-request-line")

    def test_request_line_with_two_spaces(self):
        self.reject(b"GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400,
                    "bad-request-line")

    def test_empty_line_before_request_line(self):
        self.reject(b"\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", 400,
                    "bad-request-line")

    def test_unknown_http_version(self):
        self.reject(b"GET / HTTP/1.2\r\nHost: x\r\n\r\n", 400, "bad-version")

    def test_head_over_8k_gets_431(self):
        self.reject(b"GET / HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 8200 +
                    b"\r\n\r\n", 431, "head-too-big")

    def test_too_many_fields_gets_431(self):
        fields = b"".join(b"X-F%d: v\r\n" % i for i in range(100))
        self.reject(b"GET / HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n",
                    431, "too-many-fields")

    def test_http11_without_host(self):
        self.reject(b"GET / HTTP/1.1\r\nX-A: b\r\n\r\n", 400,
                    "bad-host-count")

    def test_http11_with_two_hosts(self):
        self.reject(b"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400,
                    "bad-host-count")

    def test_connect_method(self):
        self.reject(b"CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22"
                    b"\r\n\r\n", 400, "connect-method")

    def test_connection_naming_a_forwarding_header(self):
        # A proxying backend would drop the true X-Forwarded-For as
        # hop-by-hop.
        self.reject(b"GET / HTTP/1.1\r\nHost: x\r\n"
                    b"Connection: x-forwarded-for\r\n\r\n", 400,
                    "bad-connection")

    def test_bad_head_after_a_good_one_is_answered_after_it(self):
        # Pipelined: the good request's answer comes first, then the
        # 400; the bad head never reaches the backend.
        log = os.path.join(self.tmp, "backend.log")
        g = self.gate(self.backend("http", log=log), mode="http")
        s = tls_connect(g.port)
        resp = Responses()
        try:
            exchange(s, [b"GET /bytes/100 HTTP/1.1\r\nHost: x\r\n\r\n"
                         b"GET / HTTP/1.1\r\nHost: x\r\nX-A: one\r\n two"
                         b"\r\n\r\n"], resp, 2)
            rest = recv_to_eof(s)
        finally:
            s.close()
        self.assertEqual([r.status for r in resp.done], [200, 400])
        self.assertEqual(len(resp.done[0].body), 100)
        self.assertEqual(bytes(resp.buf) + rest, b"")
        self.assertEqual([e["target"] for e in
                          backend_events(log, "request")], ["/bytes/100"])
        conn = g.wait_conns(1)[0]
        self.assertEqual((conn["status"], conn["outcome"]),
                         ("400", "obs-fold"), conn)

    def test_bad_chunk_size_never_reaches_the_backend(self):
        # The head is valid and already forwarded: the bad chunk line
        # must not follow it, and the backend must not see a request.
        mini = MiniBackend()
        self.backends.append(mini)
        g = self.gate(mini, mode="http")
        s = tls_connect(g.port)
        try:
            s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n"
                      b"5\r\nhello\r\nzz\r\nsmuggled\r\n0\r\n\r\n")
            r = one_response(s)
            rest = recv_to_eof(s)
        finally:
            s.close()
        self.assertEqual(r.status, 400, r.line)
        self.assertEqual(r.headers.get("connection"), "close")
        self.assertEqual(rest, b"")
        conn = g.wait_conns(1)[0]
        self.assertEqual((conn["status"], conn["outcome"]),
                         ("400", "bad-chunk-size"), conn)
        self.assertEqual(mini.requests, [])
        got = b"".join(bytes(r) for r in mini.raw)
        self.assertTrue(got.startswith(b"POST /echo HTTP/1.1\r\n"), got)
        self.assertNotIn(b"zz", got)
        self.assertNotIn(b"smuggled", got)

    def test_rejection_with_unread_plaintext_closes_without_spinning(self):
        # Bytes that follow a refused head stay in the TLS engine; the
        # connection must still close as soon as the client has gone,
        # not spin on poll until the close linger (2 s) runs out.
        g = self.gate(self.backend("http"), mode="http")
        s = tls_connect(g.port)
        try:
            s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3"
                      b"\r\nContent-Length: 4\r\n\r\nabcd")
            self.assertEqual(one_response(s).status, 400)
            self.assertEqual(recv_to_eof(s), b"")
            c0, t0 = cpu_ticks(g.pid), time.monotonic()
        finally:
            s.close()
        g.wait_conns(1, timeout=5)
        closed_in = time.monotonic() - t0
        used = cpu_ticks(g.pid) - c0
        self.assertLess(used, 30, "tlsgate used %d ticks of CPU between "
                        "the client's close and its own" % used)
        if SLOW <= 2:
            self.assertLess(closed_in, 1.5)


def cpu_ticks(pid):
    """User + system CPU time of a process and its live children (the
    workers, if it has any), in clock ticks."""
    pids = [pid]
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                pids += [int(p) for p in f.read().split()]
    except OSError:
        pass
    total = 0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total


class Limits(GateTest):
    """The bounds are exact: at the limit is served, one past it is
    refused."""

    def serve(self, raw):
        log = os.path.join(self.tmp, "backend.log")
        g = self.gate(self.backend("http", log=log), mode="http")
        s = tls_connect(g.port)
        try:
            s.sendall(raw)
            r = one_response(s)
        finally:
            close_tls(s)
        return r, backend_events(log, "request"), g

    def test_head_of_exactly_8k_is_served(self):
        start = b"GET / HTTP/1.1\r\nHost: x\r\nX-A: "
        pad = 8192 - len(start) - 4
        r, seen, g = self.serve(start + b"a" * pad + b"\r\n\r\n")
        self.assertEqual(r.status, 200, r.line)
        self.assertEqual(len(seen), 1)
        self.assertEqual(dict(seen[0]["headers"])["X-A"], "a" * pad)

    def test_head_one_byte_over_8k_gets_431(self):
        start = b"GET / HTTP/1.1\r\nHost: x\r\nX-A: "
        pad = 8192 - len(start) - 4 + 1
        r, seen, g = self.serve(start + b"a" * pad + b"\r\n\r\n")
        self.assertEqual(r.status, 431, r.line)
        self.assertEqual(seen, [])

    def test_100_fields_are_served_and_all_forwarded(self):
        fields = b"".join(b"X-F%d: v%d\r\n" % (i, i) for i in range(99))
        r, seen, g = self.serve(b"GET / HTTP/1.1\r\nHost: x\r\n" + fields +
                                b"\r\n")
        self.assertEqual(r.status, 200, r.line)
        names = [k for k, _ in seen[0]["headers"]]
        self.assertEqual(names[:100], ["Host"] + ["X-F%d" % i
                                                  for i in range(99)])
        self.assertEqual(names[100:], ["X-Forwarded-For",
                                       "X-Forwarded-Proto",
                                       "X-Forwarded-Port"])


class Bodies(GateTest):

    def upload(self, framing):
        g = self.gate(self.backend("http"), mode="http")
        data = random.Random(7).randbytes(10 << 20)
        if framing == "chunked":
            head = (b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                    b"Transfer-Encoding: chunked\r\n\r\n")
            body = chunked(data, random.Random(8))
        else:
            head = (b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Length: %d\r\n\r\n" % len(data))
            view = memoryview(data)
            body = (view[i:i + (1 << 16)] for i in range(0, len(data),
                                                          1 << 16))
        s = tls_connect(g.port, timeout=30)
        resp = Responses()
        try:
            exchange(s, [head] + list(body), resp, 1, timeout=60)
        finally:
            close_tls(s)
        r = resp.done[0]
        self.assertEqual(r.status, 200, r.line)
        self.assertEqual(len(r.body), len(data))
        self.assertEqual(hashlib.sha256(r.body).hexdigest(),
                         hashlib.sha256(data).hexdigest())
        conn = g.wait_conns(1)[0]
        self.assertEqual(conn["outcome"], "ok", conn)

    def test_chunked_10mb_upload_is_byte_exact(self):
        self.upload("chunked")

    def test_content_length_10mb_upload_is_byte_exact(self):
        self.upload("length")


class KeepAlive(GateTest):

    def test_1000_pipelined_requests_arrive_in_order_with_true_headers(self):
        n = 1000
        log = os.path.join(self.tmp, "backend.log")
        g = self.gate(self.backend("http", log=log), mode="http")
        reqs = [b"GET /seq/%d HTTP/1.1\r\nHost: x\r\n"
                b"X-Forwarded-For: 6.6.6.%d\r\n\r\n" % (i, i % 256)
                for i in range(n)]
        s = tls_connect(g.port, timeout=30)
        resp = Responses()
        try:
            # All requests in a few big writes: many per TLS record.
            blob = b"".join(reqs)
            exchange(s, [blob[i:i + 5000] for i in range(0, len(blob),
                                                          5000)],
                     resp, n, timeout=60)
        finally:
            close_tls(s)
        self.assertEqual(len(resp.done), n)
        self.assertTrue(all(r.status == 404 for r in resp.done))
        seen = backend_events(log, "request")
        self.assertEqual([e["target"] for e in seen],
                         ["/seq/%d" % i for i in range(n)])
        want = [["X-Forwarded-For", LOOPBACK],
                ["X-Forwarded-Proto", "https"],
                ["X-Forwarded-Port", str(g.port)]]
        for e in seen:
            fwd = [h for h in e["headers"] if h[0].lower().startswith("x-")]
            self.assertEqual(fwd, want, e)
        conn = g.wait_conns(1)[0]
        self.assertEqual(conn["requests"], str(n), conn)
        self.assertEqual(conn["outcome"], "ok", conn)

    def test_pipelined_bodies_keep_their_framing(self):
        # Bodies that look like requests, by Content-Length and chunked,
        # pipelined in one write: the backend sees exactly three.
        log = os.path.join(self.tmp, "backend.log")
        g = self.gate(self.backend("http", log=log), mode="http")
        inner = b"GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
        blob = (b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d"
                b"\r\n\r\n%s" % (len(inner), inner) +
                b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n"
                b"0\r\nX-Trailer: t\r\n\r\n" % (len(inner), inner) +
                b"GET /last HTTP/1.1\r\nHost: x\r\n\r\n")
        s = tls_connect(g.port)
        resp = Responses()
        try:
            exchange(s, [blob], resp, 3)
        finally:
            close_tls(s)
        self.assertEqual([(r.status, r.body) for r in resp.done[:2]],
                         [(200, inner), (200, inner)])
        self.assertEqual(resp.done[2].status, 404)
        self.assertEqual([e["target"] for e in
                          backend_events(log, "request")],
                         ["/echo", "/echo", "/last"])

    def test_head_timeout_counts_from_a_heads_first_byte(self):
        # Time between requests is idle time, not head time.
        g = self.gate(self.backend("http"), mode="http", head_timeout="1s")
        s = tls_connect(g.port)
        try:
            s.sendall(b"GET /bytes/10 HTTP/1.1\r\nHost: x\r\n\r\n")
            first = one_response(s)
            time.sleep(1.5)
            s.sendall(b"GET /bytes/20 HTTP/1.1\r\nHost: x\r\n\r\n")
            second = one_response(s)
        finally:
            close_tls(s)
        self.assertEqual((first.status, len(first.body)), (200, 10))
        self.assertEqual((second.status, len(second.body)), (200, 20))

    def test_connection_close_closes_after_the_response(self):
        mini = MiniBackend()
        self.backends.append(mini)
        g = self.gate(mini, mode="http")
        s = tls_connect(g.port)
        try:
            # A second request after the closing one must not be
            # forwarded, nor answered.
            s.sendall(b"GET /first HTTP/1.1\r\nHost: x\r\nConnection: close"
                      b"\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n")
            r = one_response(s)
            rest = recv_to_eof(s)
        finally:
            s.close()
        self.assertEqual((r.status, r.body), (200, b"/first"))
        self.assertEqual(rest, b"")
        self.assertEqual([q[1] for q in mini.requests], ["/first"])
        self.assertNotIn(b"/second", b"".join(bytes(x) for x in mini.raw))
        conn = g.wait_conns(1)[0]
        self.assertEqual((conn["requests"], conn["outcome"]), ("1", "ok"),
                         conn)

    def test_http10_without_keep_alive_is_one_request(self):
        mini = MiniBackend()
        self.backends.append(mini)
        g = self.gate(mini, mode="http")
        s = tls_connect(g.port)
        try:
            s.sendall(b"GET /first HTTP/1.0\r\n\r\n"
                      b"GET /second HTTP/1.0\r\n\r\n")
            r = one_response(s)
            rest = recv_to_eof(s)
        finally:
            s.close()
        self.assertEqual((r.status, r.body), (200, b"/first"))
        self.assertTrue(r.line.startswith("HTTP/1.0 "), r.line)
        self.assertEqual(rest, b"")
        self.assertEqual([q[1] for q in mini.requests], ["/first"])

    def test_http10_keep_alive_carries_a_second_request(self):
        mini = MiniBackend()
        self.backends.append(mini)
        g = self.gate(mini, mode="http")
        s = tls_connect(g.port)
        try:
            s.sendall(b"GET /first HTTP/1.0\r\nConnection: keep-alive"
                      b"\r\n\r\n")
            r1 = one_response(s)
            s.sendall(b"GET /second HTTP/1.0\r\nConnection: keep-alive"
                      b"\r\n\r\n")
            r2 = one_response(s)
        finally:
            close_tls(s)
        self.assertEqual((r1.status, r1.body), (200, b"/first"))
        self.assertEqual((r2.status, r2.body), (200, b"/second"))
        self.assertEqual(len(mini.raw), 1, "one backend connection")
        self.assertEqual([q[3].get("connection") for q in mini.requests],
                         ["keep-alive", "keep-alive"])

    def test_expect_100_continue_passes_through(self):
        # tlsgate forwards the head at once, relays the backend's 100,
        # and only then does the client send its body.
        mini = MiniBackend()
        self.backends.append(mini)
        g = self.gate(mini, mode="http")
        body = b"the body, after 100 Continue"
        s = tls_connect(g.port)
        try:
            s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                      b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" %
                      len(body))
            interim = Responses()
            while not interim.done:
                b = s.recv(1 << 16)
                self.assertNotEqual(b, b"", "EOF before 100 Continue")
                interim.feed(b)
            s.sendall(body)
            r = one_response(s)
        finally:
            close_tls(s)
        self.assertEqual(interim.done[0].status, 100)
        self.assertEqual(bytes(interim.buf), b"")
        self.assertEqual((r.status, r.body), (200, body))
        self.assertEqual(mini.requests[0][3].get("expect"), "100-continue")


class OwnAnswers(GateTest):
    """408, 502, 503 and 504: tlsgate's own page, Connection: close, a
    clean close, and one log line with the status and the reason."""

    def answered(self, g, s, status, outcome):
        try:
            r = one_response(s)
            rest = recv_to_eof(s)
        finally:
            s.close()
        self.assertEqual(r.status, status, r.line)
        self.assertEqual(r.headers.get("connection"), "close")
        self.assertEqual(rest, b"")
        conns = g.wait_conns(1)
        self.assertEqual(len(conns), 1, conns)
        self.assertEqual((conns[0]["status"], conns[0]["outcome"]),
                         (str(status), outcome), conns[0])
        return conns[0]

    def test_incomplete_head_gets_408_at_head_timeout(self):
        log = os.path.join(self.tmp, "backend.log")
        g = self.gate(self.backend("http", log=log), mode="http",
                      head_timeout="1s")
        s = tls_connect(g.port)
        t0 = time.monotonic()
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        conn = self.answered(g, s, 408, "head-timeout")
        waited = time.monotonic() - t0
        self.assertGreater(waited, 0.8)
        self.assertLess(waited, 3 * SLOW)
        self.assertEqual(backend_events(log, "request"), [])
        self.assertEqual(conn["requests"], "0")

    def test_trickled_head_does_not_extend_head_timeout(self):
        g = self.gate(self.backend("http"), mode="http", head_timeout="1s")
        s = tls_connect(g.port)
        t0 = time.monotonic()
        try:
            for b in b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ":
                s.sendall(bytes([b]))
                r, _, _ = select.select([s], [], [], 0.1)
                if r or time.monotonic() - t0 > 4 * SLOW:
                    break
        except OSError:
            pass
        self.answered(g, s, 408, "head-timeout")
        self.assertLess(time.monotonic() - t0, 3 * SLOW)

    def test_backend_down_gets_502(self):
        g = self.gate("%s:%d" % (LOOPBACK, free_port()), mode="http")
        s = tls_connect(g.port)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        self.answered(g, s, 502, "backend-refused")

    def test_backend_closing_before_answering_gets_502(self):
        mini = MiniBackend(close_at_once=True)
        self.backends.append(mini)
        g = self.gate(mini, mode="http")
        s = tls_connect(g.port)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        self.answered(g, s, 502, "backend-closed")
        self.assertEqual(len(mini.raw), 1)

    def test_request_while_draining_gets_503(self):
        log = os.path.join(self.tmp, "backend.log")
        g = self.gate(self.backend("http", log=log), mode="http",
                      drain_timeout="10s")
        s = tls_connect(g.port)
        # Half a head: the connection is in a request, so SIGTERM lets
        # it live; the request it completes must be refused.
        s.sendall(b"GET / HTTP/1.1\r\n")
        time.sleep(0.2)
        g.signal(signal.SIGTERM)
        g.wait_log(r"^tlsgate: info: draining live=1 ")
        s.sendall(b"Host: x\r\n\r\n")
        self.answered(g, s, 503, "draining")
        self.assertEqual(backend_events(log, "request"), [])
        self.assertEqual(g.wait_exit(5), 0, g.log_tail())

    def test_backend_connect_timeout_gets_504(self):
        # A listener with a full accept queue drops new SYNs: the
        # connect hangs, on loopback, as it would to a dead host.
        hole = socket.socket()
        fillers = []
        try:
            hole.bind((LOOPBACK, 0))
            hole.listen(0)
            if not fill_accept_queue(hole, fillers):
                self.skipTest("could not fill a listen queue here")
            g = self.gate("%s:%d" % hole.getsockname(), mode="http",
                          connect_timeout="1s")
            s = tls_connect(g.port)
            t0 = time.monotonic()
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            conn = self.answered(g, s, 504, "backend-timeout")
            waited = time.monotonic() - t0
        finally:
            for f in fillers:
                f.close()
            hole.close()
        self.assertGreater(waited, 0.8)
        self.assertLess(waited, 3 * SLOW)
        self.assertGreaterEqual(int(conn["ms"]), 900, conn)


def fill_accept_queue(lsock, fillers, tries=8):
    """Connect to lsock (never accepted) until a connect hangs; True if
    one did.  The hanging probe is kept open in fillers with the rest."""
    addr = lsock.getsockname()
    for _ in range(tries):
        c = socket.socket()
        c.setblocking(False)
        fillers.append(c)
        try:
            c.connect(addr)
        except BlockingIOError:
            pass
        _, w, _ = select.select([], [c], [], 0.5)
        if not w:
            return True
    return False


if __name__ == "__main__":
    import unittest
    unittest.main()
