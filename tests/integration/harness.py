# SPDX-License-Identifier: ISC
"""Shared helpers for tlsgate's integration tests.

Owns: the throw-away certificates, free loopback ports, starting and
stopping the demo backend (tests/backend.py) and tlsgate on a generated
config, reading tlsgate's log, and small TLS client helpers.  Never
talks to anything but loopback, never waits without a deadline, and
never leaves a process behind: every process started is killed at the
end of the test that started it.

Environment (set by tests/run.py):
  TLSGATE_BIN   the binary under test
  TLSGATE_WRAP  a command prefix for launching it (valgrind, ...)
  TLSGATE_ASAN  set for a sanitizer build: only stretches deadlines

Set by hand (or by make check):
  TLSGATE_TEST_TLS_MAX  "1.2" or "1.3": tls_max of every service a test
                starts, unless its class pins one (GateTest.TLS_MAX);
                unset, tlsgate's own default (1.3)
"""
import os
import random
import re
import select
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BACKEND = os.path.join(ROOT, "tests", "backend.py")
BIN = os.environ.get("TLSGATE_BIN", os.path.join(ROOT, "build", "tlsgate"))
WRAP = shlex.split(os.environ.get("TLSGATE_WRAP", ""))
# Deadlines stretch under valgrind or sanitizers; assertions on "fast
# enough" use the same factor so they stay meaningful.
SLOW = 8.0 if WRAP else 2.0 if os.environ.get("TLSGATE_ASAN") else 1.0
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:",
                   "ERROR: LeakSanitizer")
LOOPBACK = "127.0.0.1"
LOOPBACK6 = "::1"
TEST_TLS_MAX = os.environ.get("TLSGATE_TEST_TLS_MAX") or None
if TEST_TLS_MAX not in (None, "1.2", "1.3"):
    raise SystemExit("TLSGATE_TEST_TLS_MAX: 1.2 or 1.3, not %r" %
                     TEST_TLS_MAX)


def deadline(seconds):
    return time.monotonic() + seconds * SLOW


def free_port(host=LOOPBACK):
    """A port of host (IPv4 or IPv6 loopback) nothing holds right now,
    below the kernel's ephemeral range (Linux: 32768 and up): a port the
    kernel handed out could be given again to some client's connection
    before tlsgate binds it ("Address already in use")."""
    while True:
        port = random.randrange(10000, 32768)
        with socket.socket(socket.AF_INET6 if ":" in host
                           else socket.AF_INET) as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
            return port


def free_port6():
    return free_port(LOOPBACK6)


def is_listening(port):
    with socket.socket() as s:
        s.settimeout(1.0)
        try:
            s.connect((LOOPBACK, port))
            return True
        except OSError:
            return False


def run(cmd, timeout, stdin=None, **kw):
    """Run a command to completion (killed at timeout); returns
    (exit status, stdout bytes, stderr bytes)."""
    p = subprocess.run(cmd, input=stdin, capture_output=True,
                       timeout=timeout * SLOW, **kw)
    return p.returncode, p.stdout, p.stderr


# --- certificates ---------------------------------------------------

class Certs:
    """Self-signed certificates and keys made once per run with the
    openssl CLI, plus the broken files the config tests need."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="tlsgate-certs-")
        self.path = {}
        self.req("ec", ["-newkey", "ec", "-pkeyopt",
                         "ec_paramgen_curve:P-256"])
        self.req("rsa", ["-newkey", "rsa:2048"])
        self.req("rsa1024", ["-newkey", "rsa:1024"])
        # A comment extension makes a certificate big enough that two
        # of them pass the chain's byte bound but not its count bound.
        self.req("big", ["-newkey", "ec", "-pkeyopt",
                          "ec_paramgen_curve:P-256", "-addext",
                          "nsComment=" + "x" * 9000])
        self.path["other.key"] = self._file("other.key", b"")
        self._openssl(["genpkey", "-algorithm", "EC", "-pkeyopt",
                       "ec_paramgen_curve:P-256", "-out",
                       self.path["other.key"]])
        # tlsgate reads no key that others may read.
        os.chmod(self.path["other.key"], 0o600)
        ec = self.read("ec.crt")
        big = self.read("big.crt")
        self.path["nine.crt"] = self._file("nine.crt", ec * 9)
        self.path["eight.crt"] = self._file("eight.crt", ec * 8)
        self.path["bigchain.crt"] = self._file("bigchain.crt", big * 2)
        self.path["garbage.crt"] = self._file(
            "garbage.crt", b"-----BEGIN CERTIFICATE-----\n"
            b"this is not base64 at all !!\n-----END CERTIFICATE-----\n")

    def _openssl(self, args):
        rc, _, err = run(["openssl"] + args, 120)
        if rc != 0:
            raise RuntimeError("openssl %s: %s" % (args[0], err.decode()))

    def req(self, name, keyargs):
        crt = os.path.join(self.dir, name + ".crt")
        key = os.path.join(self.dir, name + ".key")
        self._openssl(["req", "-x509"] + keyargs + [
            "-nodes", "-keyout", key, "-out", crt, "-days", "30",
            "-subj", "/CN=localhost", "-addext",
            "subjectAltName=DNS:localhost"])
        self.path[name + ".crt"] = crt
        self.path[name + ".key"] = key

    def _file(self, name, data):
        p = os.path.join(self.dir, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def read(self, name):
        with open(self.path[name], "rb") as f:
            return f.read()

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def rsa_primes_mod4(keyfile):
    """(p mod 4, q mod 4) of an RSA private key, read with openssl."""
    rc, out, err = run(["openssl", "rsa", "-in", keyfile, "-noout",
                        "-text"], 30)
    if rc != 0:
        raise RuntimeError("openssl rsa: " + err.decode())
    text = out.decode()

    def number(name):
        m = re.search(name + r":\s*\n((?:\s+[0-9a-f:]+\n)+)", text)
        return int(re.sub(r"[\s:]", "", m.group(1)), 16)

    return number("prime1") % 4, number("prime2") % 4


_certs = None


def certs():
    global _certs
    if _certs is None:
        _certs = Certs()
    return _certs


def cleanup_certs():
    if _certs is not None:
        _certs.cleanup()


# --- processes ------------------------------------------------------

class Backend:
    """tests/backend.py on a loopback port (0: any free one)."""

    def __init__(self, mode="echo", port=0, log=None, proxy_protocol=False):
        cmd = [sys.executable, BACKEND, "--host", LOOPBACK, "--port",
               str(port), "--mode", mode]
        if log:
            cmd += ["--log", log]
        if proxy_protocol:
            cmd.append("--proxy-protocol")
        self.log = log
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        end = deadline(10)
        line = b""
        while not line.endswith(b"\n") and time.monotonic() < end:
            r, _, _ = select.select([self.proc.stderr], [], [], 0.1)
            if r:
                c = os.read(self.proc.stderr.fileno(), 1)
                if not c:
                    break
                line += c
        m = re.search(rb":(\d+)\n$", line)
        if not m:
            self.stop()
            raise RuntimeError("backend did not start: %r" % line)
        self.port = int(m.group(1))
        self.addr = "%s:%d" % (LOOPBACK, self.port)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self.proc.stderr.close()


class Gate:
    """One tlsgate process on a generated config.  conf maps keys to
    values; listen, backend, cert and key get sensible defaults."""

    _n = 0

    def __init__(self, tmp, conf, wait_ready=True, conf_path=None):
        Gate._n += 1
        self.tmp = tmp
        self.name = "gate%d" % Gate._n
        self.conf_path = os.path.join(tmp, self.name + ".conf")
        self.log_path = os.path.join(tmp, self.name + ".log")
        self.proc = None
        self.rc = None
        if conf_path is not None:
            # A config file written by the test, used as it is.
            self.conf_path, self.port = conf_path, None
            if WRAP:
                unsandboxed(conf_path)
            self._spawn()
            return
        # A port picked here may be taken before tlsgate binds it (other
        # users share the machine): retry with a new one.
        for _ in range(3):
            self.port = free_port()
            full = {"listen": "%s:%d" % (LOOPBACK, self.port)}
            full.update(conf)
            write_conf(self.conf_path, full)
            self._spawn()
            if not wait_ready:
                return
            if self._wait_ready():
                return
            if "Address already in use" not in self.log():
                break
        raise AssertionError("tlsgate did not become ready:\n" +
                             self.log_tail())

    def _spawn(self):
        with open(self.log_path, "wb") as logf:
            self.proc = subprocess.Popen(
                WRAP + [BIN, "-c", self.conf_path], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=logf)
        self.rc = None

    def _wait_ready(self):
        end = deadline(10)
        while time.monotonic() < end:
            if re.search(r"^tlsgate: info: ready ", self.log(), re.M):
                return True
            if self.proc.poll() is not None:
                self.rc = self.proc.returncode
                return False
            time.sleep(0.02)
        self.kill()
        return False

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log(self, whole=False):
        """The log so far; unless whole, up to its last whole line: a
        reader may find a line tlsgate is still writing half there."""
        if getattr(self, "final_log", None) is not None:
            return self.final_log
        try:
            with open(self.log_path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""
        return text if whole else text[:text.rfind("\n") + 1]

    def log_tail(self, n=30):
        return "\n".join(self.log(True).splitlines()[-n:])

    def wait_log(self, pattern, timeout=5, count=1):
        """Wait until pattern (a regex, multiline) matches count times;
        returns the matches."""
        end = deadline(timeout)
        while True:
            found = list(re.finditer(pattern, self.log(), re.M))
            if len(found) >= count:
                return found
            if time.monotonic() > end:
                raise AssertionError("no %d x /%s/ in %s's log:\n%s" % (
                    count, pattern, self.name, self.log_tail()))
            time.sleep(0.02)

    def conns(self):
        """Every per-connection log line, as a dict of its fields."""
        out = []
        for line in self.log().splitlines():
            if line.startswith("tlsgate: info: conn id="):
                out.append(dict(kv.split("=", 1) for kv in
                                line.split()[2:] if "=" in kv))
        return out

    def wait_conns(self, n, timeout=5):
        self.wait_log(r"^tlsgate: info: conn id=", timeout, n)
        return self.conns()

    def rss_kb(self):
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise AssertionError("no VmRSS for %d" % self.pid)

    def signal(self, sig):
        self.proc.send_signal(sig)

    def wait_exit(self, timeout):
        """Exit status, or None if still running after timeout."""
        try:
            self.rc = self.proc.wait(timeout * SLOW)
        except subprocess.TimeoutExpired:
            return None
        return self.rc

    def stop(self, timeout=15):
        """SIGTERM and wait; returns the exit status (None: it hung and
        was killed)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            if self.wait_exit(timeout) is None:
                self.kill()
                return None
        self.rc = self.proc.returncode
        return self.rc

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def sanitizer_report(self):
        text = self.log(True)
        for mark in SANITIZER_MARKS:
            if mark in text:
                return mark
        return None


def unsandboxed(path):
    """Under a wrapper, seccomp = off in a test's own config file (unless
    it sets seccomp): tlsgate's default, auto, would kill valgrind's own
    system calls (qemu-user refuses the filter anyway).  Last in a file without sections, so that no line
    number a test expects moves; else before the first section."""
    with open(path) as f:
        lines = f.read().splitlines(True)
    if any(re.match(r"\s*seccomp\s*=", ln) for ln in lines):
        return
    at = next((i for i, ln in enumerate(lines)
               if ln.lstrip().startswith("[")), len(lines))
    if at == len(lines) and lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    lines.insert(at, "seccomp = off\n")
    with open(path, "w") as f:
        f.write("".join(lines))


def conf_line(lines, n):
    """Line n of lines, as numbered in the file conf_file() writes:
    under a wrapper, unsandboxed() puts a line before the first section."""
    if not WRAP or any(re.match(r"\s*seccomp\s*=", ln) for ln in lines):
        return n
    first = next((i + 1 for i, ln in enumerate(lines)
                  if ln.lstrip().startswith("[")), None)
    return n + 1 if first is not None and n >= first else n


def write_conf(path, conf):
    if WRAP and "seccomp" not in conf:
        conf = dict(conf, seccomp="off")    # as unsandboxed() says
    with open(path, "w") as f:
        for k, v in conf.items():
            f.write("%s = %s\n" % (k, v))


def check(conf_path, timeout=10):
    """tlsgate -t -c conf_path: (status, stdout, stderr) as text."""
    rc, out, err = run(WRAP + [BIN, "-t", "-c", conf_path], timeout)
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


# --- TLS clients ----------------------------------------------------

def client_ctx(ciphers=None, min_version=None, max_version=None,
               tickets=False):
    """A client context that trusts anything (the certs are throw-away)
    and, by default, asks for no session tickets."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if not tickets:
        ctx.options |= ssl.OP_NO_TICKET
    if ciphers:
        ctx.set_ciphers(ciphers)
    if min_version is not None:
        ctx.minimum_version = min_version
    if max_version is not None:
        ctx.maximum_version = max_version
    return ctx


def tls_connect(port, ctx=None, session=None, timeout=5, rcvbuf=None,
                host=LOOPBACK):
    """A TLS client socket, handshake done.  A peer's TCP EOF without
    close_notify raises SSLEOFError instead of looking like a clean
    end, so tests can tell the two apart."""
    ctx = ctx or client_ctx()
    raw = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                        socket.SOCK_STREAM)
    raw.settimeout(timeout * SLOW)
    if rcvbuf:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    try:
        raw.connect((host, port))
        return ctx.wrap_socket(raw, server_hostname="localhost",
                               session=session, suppress_ragged_eofs=False)
    except BaseException:
        raw.close()
        raise


def tls_connect6(port, timeout=5):
    return tls_connect(port, timeout=timeout, host=LOOPBACK6)


def recv_exact(sock, n):
    parts, got = [], 0
    while got < n:
        b = sock.recv(min(n - got, 1 << 16))
        if not b:
            raise AssertionError("EOF after %d of %d bytes" % (got, n))
        parts.append(b)
        got += len(b)
    return b"".join(parts)


def recv_to_eof(sock, limit=1 << 30):
    """Everything up to a clean close_notify (SSLEOFError otherwise)."""
    parts, got = [], 0
    while got <= limit:
        b = sock.recv(1 << 16)
        if not b:
            return b"".join(parts)
        parts.append(b)
        got += len(b)
    raise AssertionError("more than %d bytes" % limit)


def pump(sock, chunks, want, on_recv, then=None, timeout=30):
    """Send every chunk while receiving want bytes (each piece goes to
    on_recv), so neither direction's buffers can deadlock us.  then(sock)
    runs once the last chunk is sent.  One thread only: an SSL object
    must never be used by two threads at once (OpenSSL's rule; breaking
    it shows up as spurious EOFs)."""
    chunks = iter(chunks)
    old = sock.gettimeout()
    sock.setblocking(False)
    end = deadline(timeout)
    cur, off, got, more = b"", 0, 0, True
    wants = (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError)
    try:
        while True:
            while more and off == len(cur):
                cur, off = next(chunks, None), 0
                if cur is None:
                    cur, more = b"", False
                    if then:
                        then(sock)
            if off < len(cur):
                try:
                    off += sock.send(cur[off:])
                except wants:
                    pass
            while got < want:
                try:
                    b = sock.recv(min(want - got, 1 << 18))
                except wants:
                    break
                if not b:
                    raise AssertionError("EOF after %d of %d bytes" %
                                         (got, want))
                on_recv(b)
                got += len(b)
            if got >= want and not more and off == len(cur):
                return
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("pump: %d of %d bytes after %.0fs" % (
                    got, want, timeout * SLOW))
            wr = [sock] if more or off < len(cur) else []
            rd = [sock] if got < want else []
            select.select(rd, wr, [], min(left, 0.5))
    finally:
        sock.settimeout(old)


def echo_roundtrip(sock, data, chunk=1 << 16, then=None, timeout=30):
    """Send data and read as many bytes back; returns them."""
    parts = []
    view = memoryview(data)
    pump(sock, (view[i:i + chunk] for i in range(0, len(data), chunk)),
         len(data), parts.append, then, timeout)
    return b"".join(parts)


def shut_tcp_write(sock):
    """TCP half-close under a TLS socket: a FIN, and no close_notify
    (SSLSocket.shutdown would drop the TLS state first)."""
    socket.socket.shutdown(sock, socket.SHUT_WR)


def half_closed(port, data, timeout=5):
    """data over a new TLS connection, then a TCP half-close: all that
    comes back up to the peer's close_notify."""
    s = tls_connect(port, timeout=timeout)
    try:
        s.sendall(data)
        shut_tcp_write(s)
        return recv_to_eof(s)
    finally:
        s.close()


def close_tls(sock):
    """Orderly close: close_notify, then the socket."""
    try:
        sock.unwrap()
    except (OSError, ValueError):
        pass
    sock.close()


def random_bytes(n, seed=None):
    return random.Random(seed).randbytes(n)


def http_bytes_body(n):
    """What tests/backend.py's GET /bytes/N sends as body."""
    pat = b"0123456789abcdef"
    return (pat * (n // len(pat) + 1))[:n]


class BioClient:
    """A TLS client over memory BIOs on a raw socket: the test decides
    when each flight is sent and can see whether the server has sent
    anything at all (a ServerHello) yet."""

    def __init__(self, port, ctx=None):
        self.sock = socket.create_connection((LOOPBACK, port), timeout=5)
        self.inc, self.out = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.obj = (ctx or client_ctx()).wrap_bio(
            self.inc, self.out, server_hostname="localhost")

    def flush(self):
        data = self.out.read()
        if data:
            self.sock.sendall(data)

    def send_hello(self):
        try:
            self.obj.do_handshake()
        except ssl.SSLWantReadError:
            pass
        self.flush()

    def readable(self, seconds):
        r, _, _ = select.select([self.sock], [], [], seconds)
        return bool(r)

    def _feed(self, end):
        left = end - time.monotonic()
        if left <= 0 or not self.readable(left):
            raise TimeoutError("no data from the server")
        b = self.sock.recv(1 << 16)
        if not b:
            raise ConnectionError("EOF from the server")
        self.inc.write(b)

    def handshake(self, timeout):
        end = deadline(timeout)
        while True:
            try:
                self.obj.do_handshake()
                self.flush()
                return
            except ssl.SSLWantReadError:
                self.flush()
            self._feed(end)

    def send(self, data):
        self.obj.write(data)
        self.flush()

    def recv_exact(self, n, timeout=5):
        end, got = deadline(timeout), b""
        while len(got) < n:
            try:
                got += self.obj.read(n - len(got))
                continue
            except ssl.SSLWantReadError:
                pass
            self._feed(end)
        return got

    def close(self):
        self.sock.close()


# --- the test base class --------------------------------------------

class GateTest(unittest.TestCase):
    """Each test gets a scratch directory; every backend and tlsgate it
    starts is stopped at its end.  A tlsgate still running then is
    stopped with SIGTERM and must exit 0 with no sanitizer report.

    tlsgate runs in its own default mode (http) unless the test class
    sets MODE, as the tests of relaying raw bytes set it to "tcp"."""

    MODE = None
    # "1.2": the tests of BearSSL's TLS 1.2 alone (session IDs, say);
    # "1.3": the tests of tlsgate's TLS 1.3 engine.  None: the version
    # the run tests, TLSGATE_TEST_TLS_MAX (tlsgate's default if unset).
    TLS_MAX = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tlsgate-it-")
        self.gates = []
        self.backends = []

    def tearDown(self):
        problems = []
        for g in self.gates:
            if g.proc is None:
                continue
            found = []
            running = g.alive()
            rc = g.stop()
            if running and rc != 0:
                found.append("%s: exit status %r after SIGTERM" %
                             (g.name, rc))
            mark = g.sanitizer_report()
            if mark:
                found.append("%s: %s" % (g.name, mark))
            if found:
                problems += found + [g.log_tail()]
        for b in self.backends:
            b.stop()
        for g in self.gates:
            g.final_log = g.log(True)
        shutil.rmtree(self.tmp, ignore_errors=True)
        if problems:
            self.fail("\n".join(problems))

    def backend(self, mode="echo", port=0, log=None):
        b = Backend(mode, port, log)
        self.backends.append(b)
        return b

    def chromium_conn(self, g):
        """Headless Chromium loads the page through g: the conn event of
        the connection that carried the request."""
        rc, out, err = run(["chromium", "--headless=new", "--no-sandbox",
                            "--disable-gpu", "--ignore-certificate-errors",
                            "--user-data-dir=%s/chromium" % self.tmp,
                            "--dump-dom", "https://127.0.0.1:%d/" % g.port],
                           60)
        self.assertIn(b"hello from the backend behind tlsgate", out,
                      err[-500:])
        g.wait_log(r"^tlsgate: info: conn id=.* requests=[1-9]")
        return [c for c in g.conns() if c["requests"] != "0"][0]

    def gate_file(self, conf_path):
        """Start tlsgate on a config file as it is; do not wait."""
        g = Gate(self.tmp, None, False, conf_path)
        self.gates.append(g)
        return g

    def gate(self, backend=None, cert="ec", wait_ready=True, **conf):
        """Start tlsgate forwarding to backend (a Backend or "ip:port")
        with cert "ec" or "rsa"; conf holds further keys."""
        c = certs()
        full = {"cert": c.path[cert + ".crt"], "key": c.path[cert + ".key"]}
        if self.MODE is not None:
            full["mode"] = self.MODE
        full.update(self.tls_conf())
        if backend is not None:
            full["backend"] = backend if isinstance(backend, str) else \
                backend.addr
        full.update(conf)
        g = Gate(self.tmp, full, wait_ready)
        self.gates.append(g)
        return g

    @property
    def tls_max(self):
        """The tls_max this test's services get: the class's pin, else
        the run's (None: tlsgate's default)."""
        return self.TLS_MAX or TEST_TLS_MAX

    @property
    def tls13(self):
        """Whether a client that offers TLS 1.3 gets it here."""
        return self.tls_max != "1.2"

    def tls_conf(self):
        """{"tls_max": ...} for a config a test writes itself ({} when
        tlsgate's default is in effect)."""
        return {"tls_max": self.tls_max} if self.tls_max else {}

    def tls_lines(self):
        """The same as config lines (service defaults: they go before
        the first [section])."""
        return ["%s = %s" % kv for kv in self.tls_conf().items()]

    def conf_file(self, lines, name="t.conf"):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        if WRAP:
            unsandboxed(p)
        return p
