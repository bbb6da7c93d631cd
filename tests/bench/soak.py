#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Soak test (`make soak`): tlsgate under a fixed rate of new connections,
beside nginx as the terminator at the same rate, in the same run.

Starts tlsgate (--mode, http by default) pinned to CPU 0, in front of an
nginx backend (or tests/backend.py when nginx is not installed) pinned
with build/tlsload and this script to CPU 1, and runs tlsload at --rate
conns/s, one request per connection, half of them resuming, until
tlsgate has had --duration seconds of it.  With --peer nginx (or
haproxy, or nginx,haproxy), each terminates TLS 1.2 with the same
certificate in front of the same backend, also on CPU 0, and the load
goes to each server in turn for --segment seconds: on a shared machine
the other tenants' load (steal) comes and goes by the minute, and taking
turns makes every server meet the same share of it.  Latency is from
each connection's scheduled start to the last byte of its response, and
its p99 is taken per window of --window seconds (a minute) of a server's
load, over all the window's connections (tlsload's histograms merged).
Every second it samples tlsgate's VmRSS and open descriptors into
build/soak/samples.csv.  At the end it asserts, and exits 1 if any
fails:

  errors     tlsload saw no error of any kind;
  latency    p99 of the last window <= 1.10 x p99 of the first window,
             and the worst window's p99 <= 1.20 x the first peer's,
             unless below FLOOR_MS (see below);
  fds        the descriptors that are not connections are as many at
             the end as after the first window, and no connection is
             left at the end (idle backend connections are let age out);
  rss        VmRSS at the end <= VmRSS after the first window, plus the
             pages only a new concurrency high-water mark or a
             still-filling session cache may touch for the first time
             (both are static areas).

usage: soak.py [--duration 1800] [--rate 200] [--window 60]
               [--segment 10] [--mode http|tcp]
               [--peer nginx|haproxy|nginx,haproxy|none]
               [--bin build/tlsgate] [--out build/soak]
"""
import argparse
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from benchlib import ROOT, free_port, self_signed, wait_port

PAGE = os.sysconf("SC_PAGE_SIZE")
# Below this p99 the ratio tests mean nothing: a connection costs tlsgate
# ~0.8 ms of CPU and the client ~0.4 ms, so a p99 of a few ms is made of
# scheduler delays, and on a shared 2-core machine other processes' load
# moves p99s between 1 and 50 ms.  A real regression (work per connection
# growing, a queue building) reaches hundreds of ms.
FLOOR_MS = 20.0
RATIO = 1.10        # last window's p99 against the first's
PEER_RATIO = 1.20   # the worst window's p99 against nginx's
POOL_IDLE_S = 4.0   # src/pool.h: idle backend connections age out
CACHE = 1024
# A second is quiet when the hypervisor gave our CPUs to other tenants
# for at most this many ticks (10 ms each, both CPUs together): steal
# stops a server for tens of ms at a time, and comes and goes by the
# minute, so a p99 over seconds that had it measures the neighbours.
QUIET_TICKS = 1
MIN_QUIET = 10      # quiet seconds a window needs to be judged on them
LISTEN = "0A"   # include/net/tcp_states.h; every other state is a connection


def rss_kb(pid, field="VmRSS"):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^%s:\s+(\d+)" % field, f.read(),
                             re.M).group(1))


def live_inodes():
    """Socket inodes of TCP connections (any state but LISTEN)."""
    out = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            for line in f.readlines()[1:]:
                col = line.split()
                if col[3] != LISTEN:
                    out.add(col[9])
    return out


def fds(pid):
    """(all open descriptors, those that are not connections).  The
    descriptors are listed before the TCP table is read, so a connection
    opened in between is not in the list, and one closed in between is
    seen closed on a second look."""
    d = "/proc/%d/fd" % pid
    targets = {}
    for fd in os.listdir(d):
        try:
            targets[fd] = os.readlink(os.path.join(d, fd))
        except OSError:
            pass    # closed while we looked
    live = live_inodes()
    total = other = 0
    for fd, target in targets.items():
        m = re.match(r"socket:\[(\d+)\]$", target)
        if m and m.group(1) not in live:
            try:
                if os.readlink(os.path.join(d, fd)) != target:
                    continue
            except OSError:
                continue
        total += 1
        if not (m and m.group(1) in live):
            other += 1
    return total, other


class Stats:
    """tlsgate's stderr, read by a thread: the last `stats` line (asked
    for with SIGUSR1) and a count of every conn outcome."""

    def __init__(self, proc):
        self.lock = threading.Lock()
        self.last, self.outcomes, self.other = None, {}, []
        self.seen = 0
        t = threading.Thread(target=self.read, args=(proc.stderr,),
                             daemon=True)
        t.start()

    def read(self, f):
        for line in f:
            line = line.decode("utf-8", "replace").rstrip("\n")
            with self.lock:
                m = re.search(r" outcome=(\S+)", line)
                if line.startswith("tlsgate: info: conn ") and m:
                    k = m.group(1)
                    self.outcomes[k] = self.outcomes.get(k, 0) + 1
                elif " stats " in line:
                    self.last = dict(kv.split("=", 1) for kv in
                                     line.split() if "=" in kv)
                    self.seen += 1
                elif len(self.other) < 20:
                    self.other.append(line)

    def ask(self, proc, timeout=5):
        with self.lock:
            n = self.seen
        proc.send_signal(signal.SIGUSR1)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if self.seen > n:
                    return {k: int(v) for k, v in self.last.items()
                            if v.isdigit()}
            time.sleep(0.02)
        raise RuntimeError("no stats line from tlsgate")


def slot_bytes(binary, conf):
    out = subprocess.run([binary, "-t", "-c", conf], capture_output=True,
                         text=True, timeout=30).stdout
    return int(re.search(r"^slot = (\d+)", out, re.M).group(1))


def pin(cpu):
    """preexec_fn: run on one CPU (the terminator on one, the load and
    the backend on the other, as the reports this answers measured)."""
    def f():
        if os.cpu_count() >= 2:
            os.sched_setaffinity(0, {cpu})
    return f


def spawn(cmd, cpu, **kw):
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=kw.pop("stdout", subprocess.DEVNULL),
                            stderr=kw.pop("stderr", subprocess.DEVNULL),
                            start_new_session=True, preexec_fn=pin(cpu),
                            **kw)


def nginx_conf(tmp, name, body):
    conf = os.path.join(tmp, name + ".conf")
    with open(conf, "w") as f:
        f.write("worker_processes 1;\npid %s/%s.pid;\n"
                "error_log %s/%s.err warn;\n"
                "events { worker_connections 4096; }\n"
                "http { access_log off; keepalive_requests 1000000;\n%s}\n"
                % (tmp, name, tmp, name, body))
    return ["nginx", "-p", tmp, "-e", os.path.join(tmp, name + ".err"),
            "-c", conf, "-g", "daemon off;"]


def start_backend(tmp, port):
    """nginx on its own prefix when installed, else tests/backend.py."""
    if shutil.which("nginx"):
        cmd = nginx_conf(tmp, "backend", (
            "server { listen 127.0.0.1:%d;\n"
            "location = / { default_type text/plain;\n"
            "return 200 \"soak\\n\"; } }\n") % port)
    else:
        cmd = [sys.executable, os.path.join(ROOT, "tests", "backend.py"),
               "--host", "127.0.0.1", "--port", str(port), "--mode",
               "http"]
    return spawn(cmd, 1), cmd[0]


def start_nginx_terminator(tmp, port, bport, crt, key):
    """nginx terminating TLS 1.2 in front of the same backend, as
    admins run it: upstream keep-alive, a session cache for resumption,
    a line logged a connection (as tlsgate logs one)."""
    return spawn(nginx_conf(tmp, "terminator", (
        "upstream b { server 127.0.0.1:%d; keepalive 16; }\n"
        "ssl_session_cache shared:soak:4m; ssl_session_tickets off;\n"
        "server { listen 127.0.0.1:%d ssl; access_log %s/access.log;\n"
        "ssl_certificate %s; ssl_certificate_key %s;\n"
        "ssl_protocols TLSv1.2;\n"
        "location / { proxy_pass http://b; proxy_http_version 1.1;\n"
        "proxy_set_header Connection \"\"; } }\n" % (
            bport, port, tmp, crt, key))), 0)


def start_haproxy_terminator(tmp, port, bport, crt, key):
    """haproxy terminating TLS 1.2 as bench.py runs it (one thread,
    backend connections reused), its session cache as large as tlsgate's,
    and a line logged a request."""
    pem, cfg = os.path.join(tmp, "haproxy.pem"), os.path.join(tmp, "h.cfg")
    with open(pem, "w") as f:
        for part in (crt, key):
            with open(part) as g:
                f.write(g.read())
    with open(cfg, "w") as f:
        f.write("global\n nbthread 1\n maxconn 2000\n"
                " tune.ssl.cachesize %d\n log stdout format raw local0\n"
                " ssl-default-bind-options ssl-min-ver TLSv1.2 ssl-max-ver"
                " TLSv1.2 no-tls-tickets\n"
                "defaults\n mode http\n log global\n option httplog\n"
                " option http-keep-alive\n timeout connect 5s\n"
                " timeout client 60s\n timeout server 60s\n"
                "frontend f\n bind 127.0.0.1:%d ssl crt %s\n"
                " default_backend b\n"
                "backend b\n http-reuse always\n server b 127.0.0.1:%d\n"
                % (CACHE, port, pem, bport))
    with open(os.path.join(tmp, "haproxy.log"), "w") as log:
        return spawn(["haproxy", "-db", "-f", cfg], 0, stdout=log)


PEERS = {"nginx": start_nginx_terminator,
         "haproxy": start_haproxy_terminator}


def kill(p):
    if p is not None and p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(10)


def read_hist(path):
    """tlsload --hist: [{upper_us: count} for each second]."""
    out = []
    with open(path) as f:
        f.readline()
        for line in f:
            sec, u, c = map(int, line.split(","))
            out += [{} for _ in range(sec + 1 - len(out))]
            out[sec][u] = c
    return out


def steal_ticks():
    """Ticks the hypervisor gave our CPUs to others, all CPUs, so far."""
    try:
        with open("/proc/stat") as f:
            col = f.readline().split()
        return int(col[8]) if len(col) > 8 else 0
    except OSError:
        return 0


def merge(hists):
    out = {}
    for h in hists:
        for u, c in h.items():
            out[u] = out.get(u, 0) + c
    return out


def pct(h, p):
    """As tlsload's: the first bucket holding the p-th connection, ms."""
    n = sum(h.values())
    want, cum = max(1, -(-int(p * 1000) * n // 1000)), 0
    for u in sorted(h):
        cum += h[u]
        if cum >= want:
            return u / 1000.0
    return 0.0


def load(a, port, out, tag, seconds, every_second=None):
    """tlsload at --rate for seconds against port; every_second() is
    called once a second meanwhile.  Returns (report's key=value pairs,
    its first line, [(histogram, steal ticks) for each second])."""
    cmd = [a.tlsload, "--url", "https://127.0.0.1:%d/" % port,
           "--rate", str(a.rate), "--duration", str(seconds),
           "--requests-per-conn", "1", "--tls-reuse", str(a.reuse),
           "--csv", os.path.join(out, tag + ".csv"),
           "--hist", os.path.join(out, tag + ".hist")]
    if seconds == a.duration:
        cmd += ["--svg", os.path.join(out, tag + ".svg")]
    p = spawn(cmd, 1, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    steal = [steal_ticks()]
    try:
        t0, sec = time.monotonic(), 0
        while p.poll() is None:
            sec += 1
            time.sleep(max(0, t0 + sec - time.monotonic()))
            steal.append(steal_ticks())
            if p.poll() is None and every_second is not None:
                every_second()
        report = p.stdout.read().decode()
    finally:
        kill(p)
    with open(os.path.join(out, tag + ".txt"), "w") as f:
        f.write(report)
    kv = dict(line.split("=", 1) for line in report.splitlines()
              if "=" in line and " " not in line)
    ticks = [y - x for x, y in zip(steal, steal[1:])]
    with open(os.path.join(out, tag + ".steal"), "w") as f:
        f.write("".join("%d\n" % t for t in ticks))
    hist = read_hist(os.path.join(out, tag + ".hist"))
    return (kv, report.splitlines()[0] if report else "",
            [(h, ticks[i] if i < len(ticks) else 0)
             for i, h in enumerate(hist[:seconds])])


def soak(a, tmp, out):
    crt, key = self_signed(tmp)
    bport, port = free_port(), free_port()
    conf = os.path.join(tmp, "tlsgate.conf")
    with open(conf, "w") as f:
        f.write("listen = 127.0.0.1:%d\nbackend = 127.0.0.1:%d\n"
                "cert = %s\nkey = %s\nmode = %s\nslots = 1024\n"
                "session_cache = %d\nlog_level = info\n"
                "log_rate = 100000\n" % (port, bport, crt, key, a.mode,
                                          CACHE))
    procs = {}
    try:
        procs["backend"], backend_name = start_backend(tmp, bport)
        wait_port(bport)
        procs["gate"] = g = spawn([a.bin, "-c", conf], 0,
                                  stderr=subprocess.PIPE)
        stats = Stats(g)
        wait_port(port)
        servers = [("tlsgate", port)]
        for name in a.peers:
            if not shutil.which(name):
                continue
            pport = free_port()
            procs[name] = PEERS[name](tmp, pport, bport, crt, key)
            wait_port(pport)
            servers.append((name, pport))
        seg = a.segment if len(servers) > 1 else a.duration
        segs = os.path.join(out, "segments")
        os.makedirs(segs, exist_ok=True)
        run = {name: {"kv": {}, "first": None, "windows": [
            [] for _ in range(a.duration // a.window)]}
            for name, _ in servers}
        samples, at10, wall = [], [], [0]
        with open(os.path.join(out, "samples.csv"), "w") as sf:
            sf.write("second,rss_kb,fds,fds_not_conns,anon_kb,file_kb\n")

            def sample():
                wall[0] += 1
                total, other = fds(g.pid)
                samples.append((wall[0], rss_kb(g.pid), total, other))
                sf.write("%d,%d,%d,%d,%d,%d\n" % (samples[-1] + (
                    rss_kb(g.pid, "RssAnon"), rss_kb(g.pid, "RssFile"))))
                if seg == a.duration and wall[0] == a.window:
                    at10.append(samples[-1] + (stats.ask(g),))
                if wall[0] % 60 == 0:
                    print("soak: %4d s  rss %d kB  fds %d" %
                          samples[-1][:3], flush=True)
            print("soak: tlsgate (%s mode, backend %s)%s; tlsload at "
                  "%d/s, %d%% resumed" % (
                      a.mode, backend_name, ", %s beside it, the load "
                      "alternating every %d s" % (
                          " and ".join(n for n, _ in servers[1:]), seg)
                      if len(servers) > 1 else "",
                      a.rate, a.reuse), flush=True)
            for k in range(a.duration // seg):
                for name, p in servers:
                    tag = "%s-%04d" % (name, k) if seg < a.duration else name
                    kv, line, h = load(a, p, segs if seg < a.duration
                                       else out, tag, seg, sample)
                    r = run[name]
                    for key in ("conns", "errors", "resumed"):
                        r["kv"][key] = r["kv"].get(key, 0) + int(
                            kv.get(key, 0))
                    r["first"] = r["first"] or line
                    for i, sec in enumerate(h):
                        if (k * seg + i) // a.window < len(r["windows"]):
                            r["windows"][(k * seg + i) // a.window].append(
                                sec)
                if (k + 1) * seg == a.window:
                    at10.append((a.window, rss_kb(g.pid)) + fds(g.pid) +
                                (stats.ask(g),))
        # Let tlsgate finish its last closes, and its idle backend
        # connections age out, before the final count.
        for _ in range(50):
            st = stats.ask(g)
            if st.get("live", 1) == 0:
                break
            time.sleep(0.1)
        time.sleep(POOL_IDLE_S + 0.5)
        st = stats.ask(g)
        total, other = fds(g.pid)
        end = (a.duration, rss_kb(g.pid), total, other, st)
        alive = g.poll() is None
        g.send_signal(signal.SIGTERM)
        g.wait(20)
    finally:
        for p in procs.values():
            kill(p)
    return (run, at10[0] if at10 else None, end, stats, alive,
            slot_bytes(a.bin, conf))


def allowance(s10, send, slot):
    """Bytes of static storage tlsgate may touch for the first time after
    the first window: slots beyond the high-water mark seen then (the
    free list is a stack, so only those are new) and session-cache
    entries not yet filled then (about 100 bytes each, in order)."""
    full10 = min(CACHE, s10["handshakes"] - s10["resumed"])
    full_end = min(CACHE, send["handshakes"] - send["resumed"])
    cache_new = (full_end - full10) * 100
    return (max(0, send["high_water"] - s10["high_water"]) * (slot + PAGE) +
            ((cache_new // PAGE + 2) * PAGE if cache_new > 0 else 0))


def verdict(kv, first, last, at10, end, alive, slot, floor=FLOOR_MS,
            worst=None, peer=None, name="nginx"):
    """The failed assertions, as text (empty: all passed).  at10 and end
    are (second, rss_kb, fds, fds_not_conns, stats); worst and peer the
    highest window p99 of tlsgate and of the peer called name (None: no
    peer ran)."""
    fails = []
    if kv.get("errors") != "0" or int(kv.get("conns", 0)) == 0:
        fails.append("tlsload errors=%s conns=%s" % (kv.get("errors"),
                                                     kv.get("conns")))
    if not alive:
        fails.append("tlsgate died")
    if not (last <= RATIO * first or last < floor):
        fails.append("p99 last window %.2f ms > %.2f x first %.2f ms" %
                     (last, RATIO, first))
    if peer is not None and not (worst <= PEER_RATIO * peer or
                                 worst < floor):
        fails.append("p99 worst window %.2f ms > %.2f x %s's %.2f ms" %
                     (worst, PEER_RATIO, name, peer))
    if end[3] != at10[3] or end[2] != end[3]:
        fails.append("descriptors: %d at %d s, %d at end (%d connections)"
                     % (at10[3], at10[0], end[3], end[2] - end[3]))
    if end[1] * 1024 > at10[1] * 1024 + allowance(at10[4], end[4], slot):
        fails.append("rss grew: %d kB at %d s, %d kB at end" %
                     (at10[1], at10[0], end[1]))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=int, default=1800, help="seconds")
    ap.add_argument("--rate", type=int, default=200, help="new conns/s")
    ap.add_argument("--window", type=int, default=60,
                    help="seconds of each window (a minute)")
    ap.add_argument("--floor-ms", type=float, default=FLOOR_MS,
                    help="p99s below this pass the latency tests")
    ap.add_argument("--segment", type=int, default=10,
                    help="seconds of load a server gets before the next "
                    "(with a --peer; a divisor of --window)")
    ap.add_argument("--reuse", type=int, default=50,
                    help="percent of connections that resume")
    ap.add_argument("--mode", choices=("http", "tcp"), default="http")
    ap.add_argument("--peer", default="nginx",
                    help="terminators to run too, at the same rate: "
                    "nginx, haproxy, both (nginx,haproxy) or none; each "
                    "is skipped if not installed, and the first is the "
                    "one the worst window is compared with")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "tlsgate"))
    ap.add_argument("--tlsload", default=os.path.join(ROOT, "build",
                                                      "tlsload"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "soak"))
    a = ap.parse_args()
    a.segment = min(a.segment, a.window)
    a.peers = [p for p in a.peer.split(",") if p != "none"]
    if any(p not in PEERS for p in a.peers):
        ap.error("--peer: nginx, haproxy or none")
    if a.window < 1 or a.duration < 2 * a.window or a.segment < 1 or \
            a.window % a.segment or a.duration % a.segment:
        ap.error("--duration must hold two windows of --window seconds, "
                 "and both be multiples of --segment")
    # tlsgate's 1,024 slots and its pending table (2,048) need 4,144.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    want = 8192 if hard == resource.RLIM_INFINITY else min(8192, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    # This script samples tlsgate every second and reads its log: on the
    # load's CPU, so that its work delays neither server it compares.
    if os.cpu_count() >= 2:
        os.sched_setaffinity(0, {1})
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="tlsgate-soak-")
    os.chmod(tmp, 0o755)    # nginx's worker runs as nobody
    try:
        run, at10, end, stats, alive, slot = soak(a, tmp, a.out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    gate, others = run["tlsgate"], [n for n in run if n != "tlsgate"]
    peer = others[0] if others else None
    kv = {k: str(v) for k, v in gate["kv"].items()}
    w = a.window

    def rows(r):
        """Each window: (its quiet seconds, p99 of all its seconds, p50,
        p99 and p99.9 of its quiet ones)."""
        out = []
        for secs in r["windows"]:
            q = [h for h, st in secs if st <= QUIET_TICKS]
            hq = merge(q)
            out.append((len(q), pct(merge(h for h, _ in secs), .99),
                        pct(hq, .50), pct(hq, .99), pct(hq, .999)))
        return out
    mine = rows(gate)
    theirs = {n: rows(run[n]) for n in others}
    # A window with enough quiet seconds, in each server, is judged on
    # them; with fewer than two such windows, every window on all its
    # seconds.
    judged = [i for i in range(len(mine)) if mine[i][0] >= MIN_QUIET and
              all(t[i][0] >= MIN_QUIET for t in theirs.values())]
    quiet = len(judged) >= 2
    col = 3 if quiet else 1
    judged = judged if quiet else list(range(len(mine)))
    first, last = mine[judged[0]][col], mine[judged[-1]][col]
    worst = max(mine[i][col] for i in judged)
    peer_worst = max(theirs[peer][i][col] for i in judged) if peer \
        else None
    conns = max(1, int(kv.get("conns", 1)))
    print(gate["first"] or "soak: no tlsload report")
    for name, r in run.items():
        print("soak: %s: %d conns, %d resumed, %d errors" % (
            name, r["kv"]["conns"], r["kv"]["resumed"], r["kv"]["errors"]))
    print("soak: tlsgate outcomes %s" % stats.outcomes)
    print("soak: backend connects %d, reused %d: %.3f connects a request"
          % (end[4].get("backend_connects", 0),
             end[4].get("backend_reused", 0),
             end[4].get("backend_connects", 0) / conns))
    print("soak: judged (*) on %s" % (
        "the quiet seconds (steal <= %d ticks) of the windows with %d or "
        "more" % (QUIET_TICKS, MIN_QUIET) if quiet else
        "all seconds (fewer than two windows had %d quiet ones)" %
        MIN_QUIET))
    print("soak: window   tlsgate: quiet s, p99 all, p50 p99 p99.9 quiet "
          "(ms)%s" % "".join("    %s: the same" % n for n in others))
    for i, r in enumerate(mine):
        print("soak: %4d s %s %5d %7.2f  %6.2f %6.2f %6.2f%s" % (
            (i * w, "*" if i in judged else " ") + r + ("".join(
                "    %5d %7.2f  %6.2f %6.2f %6.2f" % theirs[n][i]
                for n in others),)))
    for name, r in run.items():
        for q in (False, True):
            secs = [(h, st) for win in r["windows"] for h, st in win
                    if not q or st <= QUIET_TICKS]
            h = merge(h for h, _ in secs)
            print("soak: %s, %s seconds (%d, steal %.1f ticks/s): p50 "
                  "%.2f ms, p99 %.2f ms, p99.9 %.2f ms" % (
                      name, "quiet" if q else "all", len(secs),
                      sum(st for _, st in secs) / max(1, len(secs)),
                      pct(h, .50), pct(h, .99), pct(h, .999)))
    print("soak: p99 first %d s %.2f ms, last %d s %.2f ms (ratio %.2f, "
          "limit %.2f; floor %.0f ms; windows at %d s and %d s)" % (
              w, first, w, last, last / first, RATIO, a.floor_ms,
              judged[0] * w, judged[-1] * w))
    if peer:
        print("soak: p99 of the worst %d s: tlsgate %.2f ms, %s %.2f ms "
              "(ratio %.2f, limit %.2f)" % (w, worst, peer, peer_worst,
                                             worst / peer_worst, PEER_RATIO))
    print("soak: rss at %d s %d kB, at end %d kB (allowance %d kB; high "
          "water %d -> %d slots)" % (
              w, at10[1], end[1], allowance(at10[4], end[4], slot) // 1024,
              at10[4]["high_water"], end[4]["high_water"]))
    print("soak: fds at %d s %d (%d not connections), at end %d (%d)" %
          (w, at10[2], at10[3], end[2], end[3]))
    fails = verdict(kv, first, last, at10, end, alive, slot, a.floor_ms,
                    worst, peer_worst, peer)
    for f in fails:
        print("soak: FAIL " + f)
    print("soak: %s; wrote %s" % ("FAILED" if fails else "ok",
                                  os.path.relpath(a.out, os.getcwd())))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
