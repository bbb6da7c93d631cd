# SPDX-License-Identifier: ISC
"""The init scripts from the source tree, as an integrator's first boot
runs them.  conf/tlsgate.init under BusyBox's start-stop-daemon, tlsgate
as the run user (nobody, when the test runs as root): cert_generate makes
the pair on the first start, for that user; a reload with a new
certificate reports tlsgate's own answer and a client then gets that
certificate; a reload tlsgate refuses is reported as refused; stop ends
it.  procd cannot run here: its script gets a syntax check and
shellcheck.  The systemd unit may write where the installed example
keeps its certificate."""
import os
import re
import shutil
import socket
import ssl
import stat
import subprocess
import tempfile
import time
import unittest

import harness
from harness import (BIN, LOOPBACK, ROOT, SLOW, GateTest, certs, close_tls,
                     echo_roundtrip, free_port, run, tls_connect, write_conf)

INIT = os.path.join(ROOT, "conf", "tlsgate.init")
PROCD = os.path.join(ROOT, "conf", "tlsgate.procd")
UNIT = os.path.join(ROOT, "conf", "tlsgate.service")
BUSYBOX = shutil.which("busybox")


def served_cert(port):
    s = tls_connect(port)
    try:
        return s.getpeercert(binary_form=True)
    finally:
        close_tls(s)


def pem_der(path):
    with open(path) as f:
        return ssl.PEM_cert_to_DER_cert(f.read())


@unittest.skipIf(harness.WRAP, "the init script runs the binary itself, "
                 "without the wrapper (qemu, valgrind)")
@unittest.skipIf(BUSYBOX is None, "BusyBox is not installed")
class SysvInit(GateTest):

    def setUp(self):
        super().setUp()
        # The run user reads the config again on reload.
        os.chmod(self.tmp, 0o755)
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        # BusyBox's start-stop-daemon before any other in PATH.
        os.symlink(BUSYBOX, os.path.join(self.bin, "start-stop-daemon"))
        self.log = os.path.join(self.tmp, "syslog")
        self.pidfile = os.path.join(self.tmp, "tlsgate.pid")
        self.conf = os.path.join(self.tmp, "tlsgate.conf")
        self.crt = os.path.join(self.tmp, "tlsgate.crt")
        self.key = os.path.join(self.tmp, "tlsgate.key")
        self.root = os.geteuid() == 0
        self.port = free_port()
        self.backend_addr = self.backend("echo").addr
        self.write(self.port)
        # The log sink and its reader stand in for logger and logread.
        self.env = dict(os.environ, TLSGATE_BIN=BIN, TLSGATE_CONF=self.conf,
                        TLSGATE_PIDFILE=self.pidfile,
                        TLSGATE_LOG="tee -a " + self.log,
                        TLSGATE_LOGREAD="cat " + self.log,
                        PATH=self.bin + os.pathsep + os.environ["PATH"])
        self.addCleanup(self.kill_left)

    def write(self, port):
        conf = {"listen": "%s:%d" % (LOOPBACK, port), "mode": "tcp",
                "backend": self.backend_addr, "cert": self.crt,
                "key": self.key, "cert_generate": "on",
                "cert_names": "localhost"}
        if self.root:
            conf.update(user="nobody", group="nogroup")
        write_conf(self.conf, conf)
        os.chmod(self.conf, 0o644)

    def init(self, action):
        try:
            rc, out, err = run(["sh", INIT, action], 60, env=self.env)
        finally:
            try:
                self.pid()
            except (OSError, ValueError):
                pass
        return rc, (out + err).decode()

    def pid(self):
        with open(self.pidfile) as f:
            self.started = int(f.read())
        return self.started

    def kill_left(self):
        """Cleanups run after tearDown took the pidfile: the last pid."""
        try:
            self.pid()
        except (OSError, ValueError):
            pass
        try:
            # Only if that pid is still tlsgate's, not a reused one.
            if os.readlink("/proc/%d/exe" % self.started) == BIN:
                os.kill(self.started, 9)
        except (AttributeError, OSError):
            pass

    def logged(self, pattern):
        try:
            with open(self.log) as f:
                return re.search(pattern, f.read(), re.M)
        except FileNotFoundError:
            return None

    def test_first_boot_reload_with_a_new_cert_and_stop(self):
        rc, out = self.init("start")
        self.assertEqual(rc, 0, out)
        pid = self.pid()
        self.assertEqual(os.readlink("/proc/%d/exe" % pid), BIN)
        end = time.monotonic() + 10 * SLOW
        while not self.logged(r"^tlsgate: info: ready ") and \
                time.monotonic() < end:
            time.sleep(0.05)
        # stderr reached the log sink, through start-stop-daemon's pipe.
        self.assertTrue(self.logged(r"^tlsgate: info: certgen svc=default "
                                    r"wrote=%s reason=missing$" %
                                    re.escape(self.key)))
        self.assertTrue(self.logged(r"^tlsgate: info: ready "))
        if self.root:
            for p in (self.crt, self.key):
                st = os.stat(p)
                self.assertEqual((st.st_uid, st.st_gid), (65534, 65534), p)
            with open("/proc/%d/status" % pid) as f:
                self.assertRegex(f.read(), r"(?m)^Uid:\s+65534\s")
        self.assertEqual(stat.S_IMODE(os.stat(self.key).st_mode), 0o600)
        self.assertEqual(served_cert(self.port), pem_der(self.crt))
        s = tls_connect(self.port)
        self.assertEqual(echo_roundtrip(s, b"first boot"), b"first boot")
        close_tls(s)

        # A new pair, the operator's, given to the run user.
        c = certs()
        shutil.copy(c.path["rsa.crt"], self.crt)
        shutil.copy(c.path["rsa.key"], self.key)
        os.chmod(self.key, 0o600)
        if self.root:
            os.chown(self.key, 65534, 65534)
        rc, out = self.init("reload")
        self.assertEqual((rc, out.strip()), (0, "tlsgate: reload: done"))
        self.assertEqual(served_cert(self.port), pem_der(c.path["rsa.crt"]))

        # A key others may read: -t refuses before any signal.
        os.chmod(self.key, 0o644)
        rc, out = self.init("reload")
        self.assertEqual(rc, 1, out)
        self.assertIn("key %s: mode 644" % self.key, out)
        os.chmod(self.key, 0o600)
        # What -t cannot know, tlsgate refuses, and the script says so.
        self.write(free_port())
        rc, out = self.init("reload")
        self.assertEqual((rc, out.strip()), (1, "tlsgate: reload: refused: "
                         "listen addresses changed: that needs a restart"))
        self.assertEqual(self.pid(), pid)
        self.assertEqual(served_cert(self.port), pem_der(c.path["rsa.crt"]))

        rc, out = self.init("stop")
        self.assertEqual(rc, 0, out)
        self.assertFalse(os.path.exists(self.pidfile))
        end = time.monotonic() + 5 * SLOW
        while os.path.exists("/proc/%d" % pid) and time.monotonic() < end:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    break
            time.sleep(0.05)
        self.assertTrue(self.logged(r"^tlsgate: info: exit$"))

    def test_start_that_fails_after_the_check_is_not_ok(self):
        # -t passes, but the address is taken: the start says so.
        with socket.socket() as s:
            s.bind((LOOPBACK, self.port))
            s.listen(1)
            rc, out = self.init("start")
        self.assertEqual(rc, 1, out)
        self.assertIn("tlsgate: did not start", out)
        self.assertTrue(self.logged(r"Address already in use"))


class OtherInits(unittest.TestCase):

    def test_procd_script_parses_and_passes_shellcheck(self):
        p = subprocess.run(["sh", "-n", PROCD], capture_output=True)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        with open(PROCD) as f:
            text = f.read()
        # stderr to logd, and a reload that waits for tlsgate's answer.
        for want in ("procd_set_param stderr 1", '"$PROG" -t -c "$CONF"',
                     "reload: done"):
            self.assertIn(want, text)
        tool = shutil.which("shellcheck")
        if tool is None:
            self.skipTest("shellcheck is not installed")
        for script in (PROCD, INIT):
            p = subprocess.run([tool, "-s", "sh", script],
                               capture_output=True)
            self.assertEqual(p.returncode, 0, p.stdout.decode())

    def test_systemd_unit_may_write_the_example_cert_dir(self):
        with open(UNIT) as f:
            unit = f.read()
        rw = re.search(r"^ReadWritePaths=(.*)$", unit, re.M)
        self.assertTrue(rw, "no ReadWritePaths: ProtectSystem=strict keeps "
                        "cert_generate from writing")
        # install.mk puts the example's cert beside the config.
        conf = re.search(r"-c (\S+)$", re.search(r"^ExecStart=(.*)$", unit,
                                                  re.M).group(1))
        self.assertEqual(rw.group(1).split(),
                         [os.path.dirname(conf.group(1))])
        self.assertIn("CAP_CHOWN", unit)
        tool = shutil.which("systemd-analyze")
        if tool is None:
            self.skipTest("systemd-analyze is not installed")
        with tempfile.TemporaryDirectory() as d:
            write_conf(os.path.join(d, "tlsgate.conf"), {"mode": "tcp"})
            path = os.path.join(d, "tlsgate.service")
            with open(path, "w") as f:
                f.write(unit.replace("/usr/sbin/tlsgate", BIN).replace(
                    "/etc/tlsgate", d))
            p = subprocess.run([tool, "verify", path], capture_output=True,
                               timeout=60 * SLOW, cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            self.assertEqual((p.stdout + p.stderr).decode().strip(), "")


if __name__ == "__main__":
    unittest.main()
