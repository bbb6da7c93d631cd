#!/usr/bin/env python3
"""make and make install as Buildroot, OpenWrt and Yocto call them.

    python3 tests/install.py        (make check-install)

Each firmware system builds a fresh copy of the tree with a cross
compiler (here Debian's mips-linux-gnu, big-endian like ath79), its flags
where it passes them, and installs into a staging DESTDIR:

  OpenWrt   CC/AR/STRIP on the command line, CFLAGS (with its CPPFLAGS
            folded in) and LDFLAGS in the environment; BearSSL 0.6 from
            a plain upstream source tree (BEARSSL=/path), compiled by
            tlsgate's build; INIT=procd
  Buildroot TARGET_CONFIGURE_OPTS on the command line, CPPFLAGS
            included, for the build and the install; BearSSL from the
            staging sysroot (BEARSSL=system) through a compiler wrapper,
            as its toolchain wrapper does; INIT=none
  Yocto     CC (with its own flags), CFLAGS, CPPFLAGS, LDFLAGS, AR,
            STRIP in the environment, oe_runmake install DESTDIR=${D};
            BEARSSL=system from the recipe sysroot; the default init
            script and the systemd unit

Each must put a marker flag of the caller's on every compile line
(BearSSL's where it is compiled), install exactly the expected files
with the expected modes, and the installed binary, under qemu, must serve
a request from its installed config.  Yocto's tree is then installed over
an edited config (kept) and uninstalled (nothing left but directories).
"""
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "integration"))
from harness import Backend, free_port, is_listening  # noqa: E402

CROSS = "mips-linux-gnu"
QEMU = ["qemu-mips-static", "-L", "/usr/" + CROSS]
DEBIAN_BEARSSL = os.path.join(ROOT, "build", "bearssl", "bearssl-0.6+dfsg.1")
MARK_C = "-DTLSGATE_MARK_CFLAGS=1"
MARK_CPP = "-DTLSGATE_MARK_CPPFLAGS=1"
MARK_LD = "-Wl,--defsym=tlsgate_mark_ldflags=1"

MAN = {"usr/share/man/man8/tlsgate.8": 0o644,
       "usr/share/man/man5/tlsgate.conf.5": 0o644}
BASE = dict(MAN, **{"usr/sbin/tlsgate": 0o755,
                    "etc/tlsgate/tlsgate.conf": 0o644})


def copy_tree(dst):
    """The tree as a firmware system unpacks it: no build/, no .git."""
    shutil.copytree(ROOT, dst, ignore=lambda d, names: [
        n for n in names if d == ROOT and n in ("build", ".git")])


def make(tree, args, env, log):
    cmd = ["make", "-C", tree, "-j2"] + args
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        p = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT,
                           timeout=600)
    if p.returncode != 0:
        with open(log) as f:
            raise AssertionError("make failed:\n" + f.read()[-3000:])


def installed(destdir):
    """{relative path: mode} of every file under destdir."""
    found = {}
    for d, _, files in os.walk(destdir):
        for name in files:
            p = os.path.join(d, name)
            found[os.path.relpath(p, destdir)] = os.stat(p).st_mode & 0o7777
    return found


def elf_machine(path):
    with open(path, "rb") as f:
        h = f.read(20)
    assert h[:4] == b"\x7fELF", path
    order = "big" if h[5] == 2 else "little"
    return order, int.from_bytes(h[18:20], order)


class Install(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        for tool in (CROSS + "-gcc", QEMU[0]):
            if shutil.which(tool) is None:
                raise unittest.SkipTest("%s is not installed" % tool)
        if not os.path.isdir(DEBIAN_BEARSSL):
            raise AssertionError("no BearSSL source at %s: run make first"
                                 % DEBIAN_BEARSSL)
        cls.work = tempfile.mkdtemp(prefix="tlsgate-install-")
        cls.env = {k: v for k, v in os.environ.items() if k not in (
            "CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "AR", "STRIP", "MAKEFLAGS",
            "MFLAGS", "MAKELEVEL", "DESTDIR", "PREFIX")}
        cls.backend = Backend(mode="http")

    @classmethod
    def tearDownClass(cls):
        cls.backend.stop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def path(self, *p):
        return os.path.join(self.work, *p)

    def check_marks(self, log, bearssl_compiled):
        with open(log) as f:
            text = f.read()
        compiles = [ln for ln in text.splitlines()
                    if re.search(r"\s-c\s", ln) and "-gcc" in ln]
        self.assertGreater(len(compiles), 20)
        for ln in compiles:
            self.assertIn(MARK_C, ln)
            self.assertIn(MARK_CPP, ln)
            if " src/" in ln:
                self.assertIn("-Isrc -Iport -Iconf", ln, "project flags lost")
        links = [ln for ln in text.splitlines()
                 if " -o build/tlsgate " in ln]
        self.assertEqual(len(links), 1, "one link line")
        self.assertIn(MARK_LD, links[0])
        if bearssl_compiled:
            # bearssl.mk prints the command its objects compile with.
            flags = [ln for ln in text.splitlines()
                     if "-fPIC -W -Wall -I" in ln and "bearssl" in ln]
            self.assertEqual(len(flags), 1)
            self.assertIn(MARK_C, flags[0])
            self.assertIn(MARK_CPP, flags[0])

    def check_tree(self, destdir, want):
        self.assertEqual(installed(destdir), want)
        self.assertEqual(elf_machine(os.path.join(destdir, "usr/sbin/tlsgate")),
                         ("big", 8), "a big-endian MIPS binary")
        with open(os.path.join(destdir, "etc/tlsgate/tlsgate.conf")) as f:
            conf = f.read()
        self.assertIn("\ncert = /etc/tlsgate/tlsgate.crt\n", conf)

    def serve(self, destdir):
        """The installed binary, its installed config with only the
        staging prefix and the test's ports put in, serves a GET."""
        etc = os.path.join(destdir, "etc", "tlsgate")
        with open(os.path.join(etc, "tlsgate.conf")) as f:
            conf = f.read()
        port = free_port()
        conf = conf.replace("/etc/tlsgate/", etc + "/")
        conf = re.sub(r"(?m)^listen = .*$", "listen = 127.0.0.1:%d" % port,
                      conf, count=1)
        conf = re.sub(r"(?m)^backend = .*$", "backend = " + self.backend.addr,
                      conf, count=1)
        run_conf = os.path.join(destdir, "run.conf")
        with open(run_conf, "w") as f:
            f.write(conf)
        binary = os.path.join(destdir, "usr", "sbin", "tlsgate")
        subprocess.run(QEMU + [binary, "-g", "-c", run_conf], check=True,
                       capture_output=True, timeout=60)
        gate = subprocess.Popen(QEMU + [binary, "-c", run_conf],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        try:
            end = time.monotonic() + 30
            while not is_listening(port):
                self.assertIsNone(gate.poll(), "tlsgate exited")
                self.assertLess(time.monotonic(), end, "not listening")
                time.sleep(0.1)
            ctx = ssl.create_default_context(
                cafile=os.path.join(etc, "tlsgate.crt"))
            ctx.check_hostname = False
            with socket.create_connection(("127.0.0.1", port), 30) as raw:
                with ctx.wrap_socket(raw) as s:
                    s.sendall(b"GET / HTTP/1.1\r\nHost: gate\r\n"
                              b"Connection: close\r\n\r\n")
                    got = b""
                    while True:
                        b = s.recv(65536)
                        if not b:
                            break
                        got += b
            self.assertTrue(got.startswith(b"HTTP/1.1 200 "), got[:100])
        finally:
            gate.terminate()
            _, err = gate.communicate(timeout=30)
            os.remove(run_conf)
            for n in ("tlsgate.crt", "tlsgate.key"):
                os.remove(os.path.join(etc, n))
        self.assertEqual(gate.returncode, 0, err.decode(errors="replace"))

    def test_1_openwrt_bearssl_from_upstream_source_tree(self):
        # OpenWrt unpacks bearssl-0.6.tar.gz: Debian's tree but for debian/.
        bearssl = self.path("bearssl-0.6")
        shutil.copytree(DEBIAN_BEARSSL, bearssl,
                        ignore=shutil.ignore_patterns("debian", ".pc"))
        tree = self.path("openwrt-build")
        copy_tree(tree)
        env = dict(self.env,
                   CFLAGS="-Os -pipe -mips32r2 -mtune=24kc -fno-caller-saves "
                          "-fstack-protector -D_FORTIFY_SOURCE=1 " + MARK_C +
                          " " + MARK_CPP,
                   LDFLAGS="-Wl,-z,now -Wl,-z,relro " + MARK_LD)
        flags = ["CC=%s-gcc" % CROSS, "AR=%s-ar" % CROSS,
                 "STRIP=%s-strip" % CROSS, "CROSS=%s-" % CROSS, "ARCH=mips",
                 "BEARSSL=" + bearssl, "PREFIX=/usr", "INIT=procd",
                 "SYSTEMDUNITDIR="]
        log = self.path("openwrt.log")
        make(tree, flags, env, log)
        dest = self.path("openwrt-ipkg-install")
        make(tree, flags + ["DESTDIR=" + dest, "install"], env, log)
        self.check_marks(log, bearssl_compiled=True)
        self.check_tree(dest, dict(BASE, **{"etc/init.d/tlsgate": 0o755}))
        with open(os.path.join(dest, "etc/init.d/tlsgate")) as f:
            self.assertEqual(f.readline(), "#!/bin/sh /etc/rc.common\n")
        # Buildroot's and Yocto's sysroot: what a bearssl package stages.
        staging = self.path("staging")
        os.makedirs(os.path.join(staging, "usr", "lib"))
        shutil.copytree(os.path.join(bearssl, "inc"),
                        os.path.join(staging, "usr", "include"))
        shutil.copy(os.path.join(tree, "build", "bearssl", "libbearssl.a"),
                    os.path.join(staging, "usr", "lib"))
        self.serve(dest)

    def sysroot_cc(self, name):
        """A compiler that finds the staging sysroot on its own."""
        staging = self.path("staging")
        self.assertTrue(os.path.isdir(staging), "test_1 stages BearSSL")
        cc = self.path("host", "bin", name)
        os.makedirs(os.path.dirname(cc), exist_ok=True)
        with open(cc, "w") as f:
            f.write('#!/bin/sh\nexec %s-gcc -isystem %s/usr/include '
                    '-L%s/usr/lib "$@"\n' % (CROSS, staging, staging))
        os.chmod(cc, 0o755)
        return cc

    def test_2_buildroot_bearssl_from_staging(self):
        tree = self.path("buildroot-build")
        copy_tree(tree)
        cc = self.sysroot_cc("mips-buildroot-linux-gnu-gcc")
        lfs = "-D_LARGEFILE_SOURCE -D_LARGEFILE64_SOURCE -D_FILE_OFFSET_BITS=64"
        opts = ["CC=" + cc, "AR=%s-ar" % CROSS, "STRIP=%s-strip" % CROSS,
                "CPPFLAGS=%s %s" % (lfs, MARK_CPP),
                "CFLAGS=%s -Os -g0 -D_FORTIFY_SOURCE=1 %s" % (lfs, MARK_C),
                "LDFLAGS=" + MARK_LD,
                "BEARSSL=system", "PREFIX=/usr", "INIT=none",
                "SYSTEMDUNITDIR="]
        log = self.path("buildroot.log")
        make(tree, opts + ["all"], self.env, log)
        dest = self.path("buildroot-target")
        make(tree, opts + ["DESTDIR=" + dest, "install"], self.env, log)
        self.check_marks(log, bearssl_compiled=False)
        self.check_tree(dest, BASE)
        self.serve(dest)

    def test_3_yocto_environment_then_reinstall_and_uninstall(self):
        tree = self.path("yocto-build")
        copy_tree(tree)
        cc = self.sysroot_cc("mips-poky-linux-gcc")
        env = dict(self.env, CC=cc + " -meb -mabi=32 -mhard-float",
                   CFLAGS="-O2 -pipe -g -feliminate-unused-debug-types "
                          + MARK_C,
                   CPPFLAGS=MARK_CPP,
                   LDFLAGS="-Wl,-O1 -Wl,--hash-style=gnu -Wl,--as-needed "
                           "-fstack-protector-strong -Wl,-z,relro,-z,now "
                           + MARK_LD,
                   AR=CROSS + "-ar", STRIP=CROSS + "-strip")
        oemake = ["BEARSSL=system", "PREFIX=/usr"]
        log = self.path("yocto.log")
        make(tree, oemake, env, log)
        dest = self.path("yocto-image")
        make(tree, oemake + ["install", "DESTDIR=" + dest], env, log)
        self.check_marks(log, bearssl_compiled=False)
        self.check_tree(dest, dict(BASE, **{
            "etc/init.d/tlsgate": 0o755,
            "usr/lib/systemd/system/tlsgate.service": 0o644}))
        for script in ("etc/init.d/tlsgate",
                       "usr/lib/systemd/system/tlsgate.service"):
            with open(os.path.join(dest, script)) as f:
                text = f.read()
            self.assertIn("/usr/sbin/tlsgate", text)
            self.assertIn("/etc/tlsgate/tlsgate.conf", text)
        self.serve(dest)

        conf = os.path.join(dest, "etc/tlsgate/tlsgate.conf")
        with open(conf, "a") as f:
            f.write("slots = 8\n")
        make(tree, oemake + ["install", "DESTDIR=" + dest], env, log)
        with open(conf) as f:
            self.assertTrue(f.read().endswith("\nslots = 8\n"),
                            "install replaced an existing config")
        make(tree, oemake + ["uninstall", "DESTDIR=" + dest], env, log)
        self.assertEqual(installed(dest), {"etc/tlsgate/tlsgate.conf": 0o644},
                         "uninstall keeps only the edited config")
        os.remove(conf)
        make(tree, oemake + ["install", "DESTDIR=" + dest], env, log)
        make(tree, oemake + ["uninstall", "DESTDIR=" + dest], env, log)
        self.assertEqual(installed(dest), {})
        self.assertFalse(os.path.exists(os.path.join(dest, "etc/tlsgate")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
