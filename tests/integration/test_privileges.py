# SPDX-License-Identifier: ISC
"""After start-up tlsgate gives up what it no longer needs: root (user,
group), the file system (chroot), every system call the loop does not
make (seccomp), and it refuses to start when the descriptor limit cannot
cover its slots.  The privilege tests need root (CI runs as root); the
seccomp tests cannot run under ASan or valgrind, whose own system calls
the filter would kill.  About 3 s in all."""
import grp
import os
import pwd
import re
import resource
import signal
import subprocess
import tempfile
import time

from harness import (BIN, ROOT, SLOW, WRAP, GateTest, certs, client_ctx,
                     close_tls, deadline, free_port, run, tls_connect)

SHIM_SRC = os.path.join(ROOT, "tests", "alloc", "forbidden.c")
SANITIZED = bool(WRAP) or bool(os.environ.get("TLSGATE_ASAN"))


def http_get(port, path="/", ctx=None, session=None):
    """One GET on a new TLS connection, closed in an orderly way:
    (status, body, (session, whether it was resumed))."""
    s = tls_connect(port, ctx or client_ctx(), session=session)
    try:
        s.sendall(b"GET %s HTTP/1.1\r\nHost: localhost\r\n"
                  b"Connection: close\r\n\r\n" % path.encode())
        data = b""
        while b"\r\n\r\n" not in data:
            b = s.recv(65536)
            if not b:
                raise AssertionError("EOF in the response head: %r" % data)
            data += b
        head, _, body = data.partition(b"\r\n\r\n")
        m = re.search(rb"(?im)^content-length:\s*(\d+)", head)
        n = int(m.group(1)) if m else 0
        while len(body) < n:
            b = s.recv(65536)
            if not b:
                break
            body += b
        status = int(head.split(b" ", 2)[1])
        tls = (s.session, s.session_reused)
    finally:
        close_tls(s)
    return status, body, tls


def proc_ids(pid):
    """(real, effective, saved, fs) uids and gids from /proc/PID/status."""
    ids = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("Uid", "Gid", "Groups"):
                ids[k] = [int(x) for x in v.split()]
    return ids


def build_shim(tmp):
    """Compile tests/alloc/forbidden.c into tmp; returns the .so path."""
    so = os.path.join(tmp, "forbidden.so")
    rc, _, err = run(["cc", "-std=c11", "-O2", "-shared", "-fPIC", "-o", so,
                      SHIM_SRC, "-ldl"], 60)
    if rc != 0:
        raise AssertionError("cc forbidden.c: " + err.decode())
    return so


def is_static(path):
    """No PT_INTERP program header: nothing is preloaded into it."""
    with open(path, "rb") as f:
        elf = f.read(1 << 16)
    wide, order = elf[4] == 2, "big" if elf[5] == 2 else "little"

    def u(off, n):
        return int.from_bytes(elf[off:off + n], order)
    phoff = u(0x20, 8) if wide else u(0x1C, 4)
    size, num = (u(0x36, 2), u(0x38, 2)) if wide else (u(0x2A, 2),
                                                       u(0x2C, 2))
    return all(u(phoff + i * size, 4) != 3 for i in range(num))


def shim_gate(test, env, backend, **conf):
    """test.gate(backend, **conf) with the fault shim preloaded and env
    (names to values) set for tlsgate alone.  seccomp off unless conf
    says: the shim's own calls (a slow poll's sleep) are not the loop's,
    and the filter of seccomp = auto would kill them."""
    conf.setdefault("seccomp", "off")
    return env_gate(test, dict(env, LD_PRELOAD=build_shim(test.tmp)),
                    backend, **conf)


def env_gate(test, env, backend, **conf):
    """test.gate(backend, **conf) with env set for tlsgate alone."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return test.gate(backend, **conf)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Privileges(GateTest):

    def setUp(self):
        # Before the scratch directory: a skip in setUp skips tearDown.
        if os.geteuid() != 0:
            self.skipTest("needs root (to chroot and change user)")
        super().setUp()

    def test_runs_as_nobody_nogroup_inside_the_chroot(self):
        pw, gr = pwd.getpwnam("nobody"), grp.getgrnam("nogroup")
        jail = tempfile.mkdtemp(prefix="jail-", dir=self.tmp)
        # LeakSanitizer's exit-time check needs /proc, not in the jail.
        env = {"ASAN_OPTIONS": "detect_leaks=0"} if SANITIZED else {}
        g = env_gate(self, env, self.backend("http"), mode="http",
                     user="nobody", group="nogroup", chroot=jail)
        ids = proc_ids(g.pid)
        self.assertEqual(ids["Uid"], [pw.pw_uid] * 4, ids)
        self.assertEqual(ids["Gid"], [gr.gr_gid] * 4, ids)
        self.assertEqual(ids["Groups"], [gr.gr_gid], ids)
        self.assertEqual(os.readlink("/proc/%d/root" % g.pid),
                         os.path.realpath(jail))
        status, body, _ = http_get(g.port, "/bytes/5000")
        self.assertEqual(status, 200)
        self.assertEqual(len(body), 5000)
        self.assertEqual(g.wait_conns(1)[0]["outcome"], "ok")

    def test_unknown_user_exits_111_naming_it(self):
        g = self.gate(self.backend("http"), wait_ready=False, mode="http",
                      user="tlsgate-no-such-user")
        rc = g.wait_exit(10)
        self.assertEqual(rc, 111, g.log_tail())
        self.assertRegex(g.log(), r"fatal: .*tlsgate-no-such-user.*no such "
                         r"user")

    def test_unknown_group_exits_111_naming_it(self):
        g = self.gate(self.backend("http"), wait_ready=False, mode="http",
                      user="nobody", group="tlsgate-no-such-group")
        rc = g.wait_exit(10)
        self.assertEqual(rc, 111, g.log_tail())
        self.assertRegex(g.log(), r"fatal: .*tlsgate-no-such-group.*no such "
                         r"group")

    def test_missing_chroot_dir_exits_111(self):
        jail = os.path.join(self.tmp, "does-not-exist")
        g = self.gate(self.backend("http"), wait_ready=False, mode="http",
                      chroot=jail)
        rc = g.wait_exit(10)
        self.assertEqual(rc, 111, g.log_tail())
        self.assertIn(jail, g.log())


class Seccomp(GateTest):
    # The TLS 1.3 engine's system calls too: only the plain build's run
    # has these tests, which make check runs at tls_max = 1.2.
    TLS_MAX = "1.3"

    def setUp(self):
        if SANITIZED:
            self.skipTest("seccomp kills the sanitizer's or valgrind's own "
                          "system calls")
        super().setUp()

    def shim_gate(self, seccomp, trigger):
        """A gate whose trigger-th poll() makes a forbidden call."""
        if is_static(BIN):
            self.skipTest("a static binary takes no preloaded shim")
        return shim_gate(self, {"TLSGATE_FORBIDDEN": str(trigger)},
                         self.backend("http"), mode="http", seccomp=seccomp)

    def test_serves_resumes_reloads_reports_and_exits_0(self):
        g = self.gate(self.backend("http"), mode="http", seccomp="on")
        ctx = client_ctx()
        status, body, first = http_get(g.port, "/bytes/20000", ctx)
        self.assertEqual((status, len(body)), (200, 20000))
        status, body, again = http_get(g.port, "/bytes/10", ctx,
                                       session=first[0])
        self.assertEqual((status, len(body)), (200, 10))
        self.assertTrue(again[1], "no resumption under seccomp")
        g.signal(signal.SIGUSR1)
        m = g.wait_log(r"^tlsgate: info: stats (.*)$")[0]
        stats = dict(kv.split("=") for kv in m.group(1).split())
        self.assertEqual(stats["resumed"], "1", stats)
        # A reload reads the config, certificate and key again.
        g.signal(signal.SIGHUP)
        g.wait_log(r"^tlsgate: info: reload: done")
        status, body, _ = http_get(g.port, "/bytes/300", ctx)
        self.assertEqual((status, len(body)), (200, 300))
        self.assertTrue(g.alive(), g.log_tail())
        self.assertEqual(g.stop(), 0, g.log_tail())

    def test_forbidden_syscall_kills_with_sigsys(self):
        # Each start-up log line polls stderr (primitives, cert,
        # listening, ready): the 5th poll() is the loop's, after "ready".
        g = self.shim_gate("on", 5)
        end = deadline(10)
        while g.alive() and time.monotonic() < end:
            try:
                http_get(g.port, "/")
            except (OSError, AssertionError):
                pass    # the connection dies with the process
            g.wait_exit(0.1)
        rc = g.wait_exit(1)
        self.assertIn("forbidden: calling getppid", g.log())
        self.assertNotIn("forbidden: getppid returned", g.log())
        self.assertEqual(rc, -signal.SIGSYS, g.log_tail())

    def test_same_syscall_without_seccomp_is_harmless(self):
        g = self.shim_gate("off", 5)
        for _ in range(4):
            status, _, _ = http_get(g.port, "/")
            self.assertEqual(status, 200)
        g.wait_log(r"^forbidden: getppid returned")
        self.assertTrue(g.alive(), g.log_tail())


class SeccompChoice(GateTest):
    """seccomp = auto (the default) is on where a filter exists for the
    CPU; on where none exists (MIPS, a sanitizer build) is refused by -t
    and by start-up alike, naming the CPU, never a -t that passes and a
    start that exits 111 (under procd, a respawn loop).  Runs under qemu
    and the sanitizers too: those are where no filter exists."""

    def conf(self, seccomp):
        c = certs()
        return self.conf_file(["listen = %s:%d" % ("127.0.0.1", free_port()),
                               "cert = " + c.path["ec.crt"],
                               "key = " + c.path["ec.key"],
                               "seccomp = " + seccomp])

    def auto_says(self):
        rc, out, err = run(WRAP + [BIN, "-t", "-c", self.conf("auto")], 60)
        self.assertEqual(rc, 0, err.decode())
        m = re.search(r"^# seccomp = auto: (.*)$", out.decode(), re.M)
        self.assertTrue(m, out.decode())
        return m.group(1)

    def test_auto_says_in_t_what_it_does_here(self):
        says = self.auto_says()
        if os.environ.get("TLSGATE_ASAN"):
            self.assertEqual(says, "no system-call filter in a sanitizer "
                             "build")
        elif os.uname().machine == "x86_64" and not WRAP:
            self.assertEqual(says, "on here (off if the kernel refuses the "
                             "filter)")
        else:
            self.assertRegex(says, r"^(on here|no system-call filter for )")

    def test_on_without_a_filter_is_refused_by_t_and_start_alike(self):
        says = self.auto_says()
        if says.startswith("on here"):
            self.skipTest("this build has a filter (qemu-mips or ASan have "
                          "none)")
        path = self.conf("on")
        want = "tlsgate: fatal: %s:4: seccomp: on, but %s: set auto or off" \
            % (path, says)
        rc, out, err = run(WRAP + [BIN, "-t", "-c", path], 60)
        self.assertEqual((rc, err.decode().strip()), (2, want))
        g = self.gate_file(path)
        self.assertEqual(g.wait_exit(30), 2, g.log_tail())
        self.assertEqual(g.log().strip(), want)


class FdLimit(GateTest):
    """Each slot may hold two descriptors, each pending client one:
    start-up checks that RLIMIT_NOFILE covers 2 x slots + pending +
    backend_pool + 32, raising the soft limit if the hard one allows."""

    SLOTS = 256

    def conf(self):
        return self.conf_file([
            "slots = %d" % self.SLOTS, "backend_pool = 16", "mode = http",
            "listen = 127.0.0.1:%d" % free_port(), "backend = 127.0.0.1:9",
            "cert = %s" % certs().path["ec.crt"],
            "key = %s" % certs().path["ec.key"]])

    def test_hard_limit_too_low_exits_111_with_the_numbers(self):
        def limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        p = subprocess.run(WRAP + [BIN, "-c", self.conf()], preexec_fn=limit,
                           stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=30 * SLOW)
        err = p.stderr.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 111, err)
        self.assertRegex(err, r"fatal: RLIMIT_NOFILE is \d+, need %d" %
                         (2 * self.SLOTS + 2048 + 16 + 32))
        self.assertNotIn("ready", err)

    def test_low_soft_limit_is_raised_to_start(self):
        if WRAP:
            self.skipTest("valgrind pins the hard limit to the soft one")
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        need = 2 * self.SLOTS + 2048 + 16 + 32
        if hard != resource.RLIM_INFINITY and hard < need:
            self.skipTest("hard RLIMIT_NOFILE %d < %d" % (hard, need))
        # tlsgate inherits a soft limit of 64 and must raise it itself.
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
        try:
            g = self.gate(self.backend("http"), mode="http", slots=self.SLOTS)
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        with open("/proc/%d/limits" % g.pid) as f:
            m = re.search(r"^Max open files\s+(\d+)", f.read(), re.M)
        self.assertGreaterEqual(int(m.group(1)), need)
        status, _, _ = http_get(g.port, "/")
        self.assertEqual(status, 200)
