#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The tail of new connections at a fixed rate (`make latency`): tlsgate
beside nginx, open loop, one full TLS 1.2 handshake (ECDSA P-256) and
one GET per connection, as docs/latency.md reports it.

tlsgate (tcp mode), tlsgate (http mode) and nginx terminating TLS 1.2
all run pinned to CPU 0, in front of one nginx backend; tlsload and this
script run on CPU 1.  Each round gives tlsgate (tcp) then nginx
--seconds of load at --rate new connections a second; after --rounds
rounds, one more at --fast-rate, then the http mode row at --rate.
Each server logs a line a connection to a file (tlsgate its stderr,
nginx its access log), as both are run in production.

For every tlsgate row the script asks tlsgate for its stats (SIGUSR1)
before and after the load and prints the loop's turns: p99, p99.9 and
the longest turn of the run, and what the longest one did.  Before each
row it samples the machine: load average and the share of both CPUs
that the row's own processes did not use (others' work, steal).

usage: latency.py [--rate 500] [--seconds 30] [--rounds 3]
                  [--fast-rate 1000] [--servers tlsgate,nginx,http]
                  [--bin build/tlsgate] [--tlsload build/tlsload]
                  [--out build/latency] [--before BIN] [--sched]
                  [--strace]
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
import time

import soak

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TURN_KEYS = ("turns", "turn_p99_us", "turn_p999_us", "turn_max_us",
             "slow_polled", "slow_io", "slow_costly", "slow_served",
             "slow_accepts", "slow_expired", "slow_handshakes",
             "slow_closed", "slow_cache", "slow_logs")


def cpu_ticks():
    """(busy, total) ticks of all CPUs so far (/proc/stat)."""
    with open("/proc/stat") as f:
        col = [int(x) for x in f.readline().split()[1:]]
    idle = col[3] + (col[4] if len(col) > 4 else 0)
    return sum(col) - idle, sum(col)


def proc_ticks(pids):
    """utime + stime of these processes (and their threads) so far."""
    n = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                col = f.read().rsplit(")", 1)[1].split()
            n += int(col[11]) + int(col[12]) + int(col[13]) + int(col[14])
        except (OSError, IndexError):
            pass
    return n


def children(pid):
    """pid and its descendants (nginx's master and worker)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            with open("/proc/%d/task/%d/children" % (p, p)) as f:
                todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


class Gate:
    """A tlsgate on CPU 0, its stderr to a file; stats by SIGUSR1."""

    def __init__(self, binary, tmp, name, mode, port, bport, crt, key):
        self.log = os.path.join(tmp, name + ".log")
        conf = os.path.join(tmp, name + ".conf")
        with open(conf, "w") as f:
            f.write("listen = 127.0.0.1:%d\nbackend = 127.0.0.1:%d\n"
                    "cert = %s\nkey = %s\nmode = %s\nslots = 1024\n"
                    "session_cache = 1024\nlog_level = info\n"
                    "log_rate = 100000\n" % (port, bport, crt, key, mode))
        with open(self.log, "ab") as f:
            self.p = soak.spawn([binary, "-c", conf], 0, stderr=f)

    def stats(self, timeout=5):
        with open(self.log, "rb") as f:
            seen = f.read().count(b" stats ")
        self.p.send_signal(signal.SIGUSR1)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with open(self.log, "rb") as f:
                lines = [ln for ln in f.read().decode(
                    "utf-8", "replace").splitlines() if " stats " in ln]
            if len(lines) > seen:
                return {k: int(v) for k, v in (
                    kv.split("=", 1) for kv in lines[-1].split()
                    if "=" in kv) if v.isdigit()}
            time.sleep(0.02)
        raise RuntimeError("no stats line from tlsgate")


def preempted(path, pids):
    """From perf's sched_switch records of CPUs 0 and 1: the times these
    pids (a server, or tlsload) were taken off their CPU while runnable,
    until they ran again, and what ran on that CPU meanwhile: (count >=
    1 ms, count >= 5 ms, longest ms, [(comm, ms)] of the tasks that ran
    in those >= 1 ms)."""
    out = subprocess.run(["perf", "script", "-i", path, "-F",
                          "cpu,time,trace"], capture_output=True,
                         text=True).stdout
    pat = re.compile(r"^\s*\[(\d+)\]\s+([\d.]+):\s+prev_comm=(.*?) "
                     r"prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> "
                     r"next_comm=(.*?) next_pid=(\d+)")
    away = {}       # pid -> (cpu, since, {comm: s} run there meanwhile)
    since = {}      # cpu -> when its current task began
    gaps, thieves = [], {}
    for line in out.splitlines():
        m = pat.match(line)
        if not m:
            continue
        cpu, ts, pcomm, ppid, state, ncomm, npid = m.groups()
        ts, ppid, npid = float(ts), int(ppid), int(npid)
        if cpu in since:
            for acpu, _, ran in away.values():
                if acpu == cpu and ppid not in pids:
                    ran[pcomm] = ran.get(pcomm, 0.0) + ts - since[cpu]
        since[cpu] = ts
        if ppid in pids and state.startswith("R"):
            away[ppid] = (cpu, ts, {})
        if npid in away:
            _, t0, ran = away.pop(npid)
            gap = (ts - t0) * 1000
            gaps.append(gap)
            if gap >= 1:
                for k, v in ran.items():
                    thieves[k] = thieves.get(k, 0.0) + v * 1000
    top = sorted(thieves.items(), key=lambda kv: -kv[1])[:4]
    return (sum(1 for g in gaps if g >= 1), sum(1 for g in gaps if g >= 5),
            max(gaps) if gaps else 0.0, top)


def row(a, name, port, rate, server, gate, out, tag):
    """One row: --seconds of load at rate against port."""
    pids = children(server.pid) + [os.getpid()]
    la = os.getloadavg()[0]
    perf = None
    if a.sched:
        perf = subprocess.Popen(
            ["perf", "record", "-q", "-e", "sched:sched_switch", "-C", "0,1",
             "-o", os.path.join(out, tag + ".sched")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=soak.pin(1))
        time.sleep(1)
    if gate is not None:
        gate.stats()    # a new period for the turn figures
    st = None
    if a.strace and gate is not None:
        st = subprocess.Popen(
            ["strace", "-f", "-T", "-tt", "-qq"] + (
                ["--seccomp-bpf", "-e", "trace=" + a.strace]
                if a.strace != "all" else []) + ["-o",
             os.path.join(out, tag + ".strace"), "-p", str(server.pid)],
            stderr=subprocess.DEVNULL, preexec_fn=soak.pin(1))
        time.sleep(1)
    b0, t0 = cpu_ticks()
    own0 = proc_ticks(pids)
    cmd = [a.tlsload, "--url", "https://127.0.0.1:%d/" % port,
           "--rate", str(rate), "--duration", str(a.seconds),
           "--requests-per-conn", "1", "--curve", "p256",
           "--hist", os.path.join(out, tag + ".hist")]
    p = soak.spawn(cmd, 1, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    report = p.communicate()[0].decode()
    b1, t1 = cpu_ticks()
    if st is not None:
        st.send_signal(signal.SIGINT)
        st.wait(30)
    if perf is not None:
        perf.send_signal(signal.SIGINT)
        perf.wait(30)
    with open(os.path.join(out, tag + ".txt"), "w") as f:
        f.write(report)
    kv = dict(ln.split("=", 1) for ln in report.splitlines()
              if "=" in ln and " " not in ln)
    # tlsload's own CPU time, from its report, stands in for its ticks.
    own = proc_ticks(pids) - own0 + float(kv.get("cpu_s", 0)) * \
        os.sysconf("SC_CLK_TCK")
    others = max(0.0, (b1 - b0 - own) / max(1, t1 - t0))
    r = {"name": name, "rate": rate, "conns": int(kv.get("conns", 0)),
         "errors": int(kv.get("errors", -1)), "load": la, "others": others}
    # Connection to last response byte, as the issue measured it.
    h = soak.merge(soak.read_hist(os.path.join(out, tag + ".hist")))
    r["p50"], r["p99"], r["p999"] = (soak.pct(h, q) for q in
                                     (.50, .99, .999))
    r["max"] = max(h) / 1000.0 if h else 0.0
    if gate is not None:
        s = gate.stats()
        if "turns" in s:    # not in a tree before the histogram
            r["turns"] = {k: s.get(k, 0) for k in TURN_KEYS}
    if perf is not None:
        path = os.path.join(out, tag + ".sched")
        r["sched"] = preempted(path, set(children(server.pid)))
        r["client"] = preempted(path, {p.pid})
    return r


def fmt(r):
    t = r.get("turns")
    return ("| %s | %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | "
            "%.0f %% | %s |" % (
                r["round"], r["name"], r["rate"], r["conns"], r["p50"],
                r["p99"], r["p999"], r["max"], r["load"],
                100 * r["others"], "%.2f / %.2f / %.2f" % (
                    t["turn_p99_us"] / 1000, t["turn_p999_us"] / 1000,
                    t["turn_max_us"] / 1000) if t else "-"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=int, default=500)
    ap.add_argument("--fast-rate", type=int, default=1000)
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--servers", default="tlsgate,nginx,http",
                    help="rows to run: tlsgate (tcp), nginx, http")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "tlsgate"))
    ap.add_argument("--tlsload", default=os.path.join(ROOT, "build",
                                                      "tlsload"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "latency"))
    ap.add_argument("--before", help="another tlsgate binary (the tree "
                    "before a change): a tcp mode row of its own each round")
    ap.add_argument("--sched", action="store_true",
                    help="record the context switches (perf): how often "
                    "and how long each server and its tlsload were "
                    "preempted, and by what")
    ap.add_argument("--strace", metavar="SYSCALLS",
                    help="strace -T -tt tlsgate during its rows: these "
                    "calls only (e.g. connect,write), or all (slows it)")
    a = ap.parse_args()
    want = a.servers.split(",")
    if not shutil.which("nginx"):
        sys.exit("latency: nginx is not installed")
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    n = 8192 if hard == resource.RLIM_INFINITY else min(8192, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
    if os.cpu_count() >= 2:
        os.sched_setaffinity(0, {1})
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="tlsgate-latency-")
    os.chmod(tmp, 0o755)    # nginx's worker runs as nobody
    crt, key = soak.self_signed(tmp)
    procs, rows = [], []
    try:
        bport = soak.free_port()
        be, _ = soak.start_backend(tmp, bport)
        procs.append(be)
        servers = {}
        if a.before:
            want.append("before")
        for name, mode, binary in (("tlsgate", "tcp", a.bin),
                                   ("before", "tcp", a.before),
                                   ("http", "http", a.bin)):
            if name in want:
                port = soak.free_port()
                g = Gate(binary, tmp, name, mode, port, bport, crt, key)
                procs.append(g.p)
                servers[name] = (port, g.p, g)
        if "nginx" in want:
            port = soak.free_port()
            p = soak.start_nginx_terminator(tmp, port, bport, crt, key)
            procs.append(p)
            servers["nginx"] = (port, p, None)
        for port, _, _ in servers.values():
            soak.wait_port(port)
            soak.wait_port(bport)
        order = ("tlsgate", "before", "nginx")
        plan = [(str(k + 1), n, a.rate) for k in range(a.rounds)
                for n in order if n in servers]
        if a.fast_rate:
            plan += [("%d/s" % a.fast_rate, n, a.fast_rate)
                     for n in order if n in servers]
        if "http" in servers:
            plan.append(("http", "http", a.rate))
        print("| round | server | rate/s | conns | p50 ms | p99 ms | "
              "p99.9 ms | max ms | load avg | others' CPU | tlsgate turns "
              "p99 / p99.9 / max ms |")
        print("|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
        for i, (rnd, name, rate) in enumerate(plan):
            port, p, g = servers[name]
            r = row(a, {"http": "tlsgate http", "before": "tlsgate before"}.get(
                name, name), port, rate,
                    p, g, a.out, "%02d-%s-%d" % (i, name, rate))
            r["round"] = rnd
            rows.append(r)
            print(fmt(r), flush=True)
            if r["errors"] != 0:
                print("latency: %s: %d errors" % (name, r["errors"]))
        for r in rows:
            if r.get("sched"):
                n1, n5, mx, top = r["sched"]
                print("latency: round %s %s: preempted %d times >= 1 ms, %d "
                      ">= 5 ms, longest %.2f ms; meanwhile ran: %s" % (
                          r["round"], r["name"], n1, n5, mx, ", ".join(
                              "%s %.0f ms" % kv for kv in top)))
                n1, n5, mx, top = r["client"]
                print("latency: round %s %s: its tlsload preempted %d times "
                      ">= 1 ms, %d >= 5 ms, longest %.2f ms; meanwhile ran: "
                      "%s" % (r["round"], r["name"], n1, n5, mx, ", ".join(
                          "%s %.0f ms" % kv for kv in top)))
        for r in rows:
            t = r.get("turns")
            if t:
                print("latency: round %s %s: %d turns, the longest %.2f ms "
                      "did: %s" % (r["round"], r["name"], t["turns"],
                                   t["turn_max_us"] / 1000, " ".join(
                                       "%s=%d" % (k[5:], t[k])
                                       for k in TURN_KEYS[4:])))
    finally:
        for p in procs:
            soak.kill(p)
        for name in ("tlsgate", "before", "http"):
            if os.path.exists(os.path.join(tmp, name + ".log")):
                shutil.copy(os.path.join(tmp, name + ".log"), a.out)
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if any(r["errors"] != 0 for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
