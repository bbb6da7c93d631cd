#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""make and make install as Buildroot, OpenWrt and Yocto call them.

    python3 tests/install.py        (make check-install)

Each firmware system builds the tree as it gets it, with a MIPS cross
compiler (Debian's mips-linux-gnu, big-endian like ath79, and
mipsel-linux-gnu, little-endian like ramips) and its flags where it passes
them, and installs into a staging DESTDIR:

  OpenWrt   the release tarball of `make dist` (PKG_SOURCE) unpacked in
            its build directory, BearSSL 0.6's tree beside it
            (BEARSSL=/path, compiled into tlsgate); MAKE_VARS (CFLAGS with
            its CPPFLAGS folded in, LDFLAGS) in the environment,
            MAKE_FLAGS (CC, AR, STRIP, CROSS, ARCH and the recipe's) on
            the command line; INIT=procd
  Buildroot the tree rsynced as its local site method does, with its
            exclusions and the recipe's, from a tree that holds a native
            build/; TARGET_CONFIGURE_OPTS and the recipe's
            TLSGATE_MAKE_OPTS (read from tlsgate.mk) for the build and
            the install, then the recipe's own install lines; BearSSL
            from the staging sysroot, static, through a compiler wrapper
            as its toolchain wrapper does; S50tlsgate
  Yocto     mipsel; oe_runmake from B with EXTRA_OEMAKE's -C S B=B (the
            recipe's), S read-only; CC (with its own flags), CFLAGS,
            CPPFLAGS, LDFLAGS, AR, STRIP in the environment; BearSSL's
            tree compiled in; the sysv script and the systemd unit

Each must put a marker flag of the caller's on every compile line
(BearSSL's where it is compiled), install exactly the expected files
with the expected modes, a binary of the target's machine, and the
installed binary, under qemu, must serve a request from its installed
config.  The Buildroot and Yocto trees are then started by their
installed init scripts (S50tlsgate through BusyBox's start-stop-daemon),
run as an unprivileged user, reloaded with a new certificate that a
client then sees, and stopped.  procd cannot run here: OpenWrt's tree is
served by its binary alone.  Yocto's tree is then installed over an
edited config (kept) and uninstalled (nothing left but directories).
"""
import grp
import os
import pwd
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
from build import elf_machine  # noqa: E402  (its sibling, tests/build.py)

CROSS = "mips-linux-gnu"
CROSS_EL = "mipsel-linux-gnu"
MACHINE = {CROSS: ("big", 8), CROSS_EL: ("little", 8)}
DEBIAN_BEARSSL = os.path.join(ROOT, "build", "bearssl", "bearssl-0.6+dfsg.1")
MARK_C = "-DTLSGATE_MARK_CFLAGS=1"
MARK_CPP = "-DTLSGATE_MARK_CPPFLAGS=1"
MARK_LD = "-Wl,--defsym=tlsgate_mark_ldflags=1"
BR_MK = os.path.join(ROOT, "contrib", "buildroot", "package", "tlsgate",
                     "tlsgate.mk")
OWRT_MK = os.path.join(ROOT, "contrib", "openwrt", "tlsgate", "Makefile")
YOCTO_BB = os.path.join(ROOT, "contrib", "yocto", "recipes-connectivity",
                        "tlsgate", "tlsgate_0.1.bb")
# The host's unprivileged user stands for the recipes' tlsgate user.
RUN_USER, RUN_GROUP = "nobody", "nogroup"

MAN = {"usr/share/man/man8/tlsgate.8": 0o644,
       "usr/share/man/man5/tlsgate.conf.5": 0o644}
LICENSES = {"usr/share/licenses/tlsgate/LICENSE": 0o644}
BEARSSL_LICENSE = {"usr/share/licenses/tlsgate/LICENSE.bearssl": 0o644}
BASE = dict(MAN, **LICENSES, **{"usr/sbin/tlsgate": 0o755,
                                "etc/tlsgate/tlsgate.conf": 0o644})


def qemu(cross):
    return ["qemu-%s-static" % cross.split("-")[0], "-L", "/usr/" + cross]


def recipe_text(path):
    with open(path) as f:
        return f.read().replace("\\\n", " ")


def recipe_var(path, name):
    """A make variable of a recipe (=, :=, += or ?=), its words."""
    m = re.search(r"(?m)^%s\s*[:+?]?=(.*)$" % re.escape(name),
                  recipe_text(path))
    assert m, "%s: no %s" % (path, name)
    return m.group(1).split()


def recipe_define(path, name):
    """The commands of a make define block, continuation lines joined."""
    m = re.search(r"(?ms)^define %s\n(.*?)^endef" % re.escape(name),
                  recipe_text(path))
    assert m, "%s: no define %s" % (path, name)
    return [ln.strip() for ln in m.group(1).splitlines() if ln.strip()]


def expand(cmd, values):
    """$(NAME) of a recipe command replaced as the build system would."""
    for k, v in values.items():
        cmd = cmd.replace("$(%s)" % k, v)
    assert "$(" not in cmd, "unexpanded: " + cmd
    return cmd.replace("$$", "$")


def copy_tree(dst):
    """The tree as a firmware system unpacks it: no build/, no .git."""
    shutil.copytree(ROOT, dst, ignore=lambda d, names: [
        n for n in names if d == ROOT and n in ("build", ".git")])


def make(tree, args, env, log, cwd=None):
    cmd = ["make", "-C", tree, "-j2"] + args
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        p = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT,
                           timeout=900, cwd=cwd)
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


def served_cert(port):
    """The DER certificate tlsgate presents on port."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), 30) as raw:
        with ctx.wrap_socket(raw) as s:
            return s.getpeercert(binary_form=True)


def pem_der(path):
    with open(path) as f:
        return ssl.PEM_cert_to_DER_cert(f.read())


class Install(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        for tool in (CROSS + "-gcc", CROSS_EL + "-gcc", qemu(CROSS)[0],
                     qemu(CROSS_EL)[0], "busybox", "rsync"):
            if shutil.which(tool) is None:
                raise unittest.SkipTest("%s is not installed" % tool)
        if not os.path.isdir(DEBIAN_BEARSSL):
            raise AssertionError("no BearSSL source at %s: run make "
                                 "bearssl-fetch" % DEBIAN_BEARSSL)
        cls.work = tempfile.mkdtemp(prefix="tlsgate-install-")
        # The run user reads its key and certificate in there.
        os.chmod(cls.work, 0o755)
        cls.env = {k: v for k, v in os.environ.items() if k not in (
            "CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "AR", "STRIP", "MAKEFLAGS",
            "MFLAGS", "MAKELEVEL", "DESTDIR", "PREFIX", "BEARSSL", "CONF",
            "PQ", "B", "BEARSSL_FETCH")}
        cls.backend = Backend(mode="http")

    @classmethod
    def tearDownClass(cls):
        cls.backend.stop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def path(self, *p):
        return os.path.join(self.work, *p)

    def check_marks(self, log, bearssl_compiled, cross):
        """cross: the compiler every compile and link line starts with."""
        with open(log) as f:
            text = f.read()
        compiles = [ln for ln in text.splitlines()
                    if re.search(r"\s-c\s", ln) and "-gcc" in ln
                    and not ln.startswith("$ ")]
        self.assertGreater(len(compiles), 20)
        for ln in compiles:
            self.assertTrue(ln.startswith(cross), ln)
            self.assertIn(MARK_C, ln)
            self.assertIn(MARK_CPP, ln)
            if " src/" in ln:
                self.assertIn("-Isrc -Iport -Iconf", ln, "project flags lost")
        links = [ln for ln in text.splitlines()
                 if re.search(r" -o \S*build/tlsgate ", ln)]
        self.assertEqual(len(links), 1, "one link line")
        self.assertIn(MARK_LD, links[0])
        self.assertTrue(links[0].startswith(cross), links[0])
        if bearssl_compiled:
            # bearssl.mk prints the command its objects compile with.
            flags = [ln for ln in text.splitlines()
                     if "-fPIC -W -Wall" in ln and "bearssl" in ln]
            self.assertEqual(len(flags), 1)
            self.assertIn(MARK_C, flags[0])
            self.assertIn(MARK_CPP, flags[0])
            self.assertTrue(flags[0].split(": ", 1)[1].startswith(cross),
                            flags[0])

    def check_tree(self, destdir, want, cross):
        self.assertEqual(installed(destdir), want)
        self.assertEqual(elf_machine(os.path.join(destdir, "usr/sbin/tlsgate")),
                         MACHINE[cross], "a %s binary" % cross)
        with open(os.path.join(destdir, "etc/tlsgate/tlsgate.conf")) as f:
            conf = f.read()
        self.assertIn("\ncert = /etc/tlsgate/tlsgate.crt\n", conf)

    def site_conf(self, destdir, port):
        """The installed config as the site edits it: its port and
        backend; the host's unprivileged user for the recipe's."""
        conf_path = os.path.join(destdir, "etc", "tlsgate", "tlsgate.conf")
        with open(conf_path) as f:
            conf = f.read()
        conf = re.sub(r"(?m)^listen = .*$", "listen = 127.0.0.1:%d" % port,
                      conf, count=1)
        conf = re.sub(r"(?m)^backend = .*$", "backend = " + self.backend.addr,
                      conf, count=1)
        conf = re.sub(r"(?m)^user = tlsgate$", "user = " + RUN_USER, conf)
        conf = re.sub(r"(?m)^group = tlsgate$", "group = " + RUN_GROUP, conf)
        with open(conf_path, "w") as f:
            f.write(conf)
        return conf

    def serve(self, destdir, cross):
        """The installed binary, its installed config with only the
        staging prefix and the test's ports put in, serves a GET."""
        etc = os.path.join(destdir, "etc", "tlsgate")
        port = free_port()
        conf = self.site_conf(destdir, port).replace("/etc/tlsgate/",
                                                     etc + "/")
        run_conf = os.path.join(destdir, "run.conf")
        with open(run_conf, "w") as f:
            f.write(conf)
        binary = os.path.join(destdir, "usr", "sbin", "tlsgate")
        subprocess.run(qemu(cross) + [binary, "-g", "-c", run_conf],
                       check=True, capture_output=True, timeout=60)
        gate = subprocess.Popen(qemu(cross) + [binary, "-c", run_conf],
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

    def init_cycle(self, destdir, script, cross):
        """The installed init script starts the installed tree, which
        runs as the run user; reload serves a new certificate; stop.
        The script's absolute paths point into the staging tree, and
        /usr/sbin/tlsgate is a wrapper that runs it under qemu."""
        etc = os.path.join(destdir, "etc", "tlsgate")
        run = os.path.join(destdir, "var", "run")
        tools = os.path.join(destdir, "test-bin")
        os.makedirs(run, exist_ok=True)
        os.makedirs(tools, exist_ok=True)
        os.symlink(shutil.which("busybox"),
                   os.path.join(tools, "start-stop-daemon"))
        wrapper = os.path.join(tools, "tlsgate")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nexec %s %s "$@"\n' % (
                " ".join(qemu(cross)),
                os.path.join(destdir, "usr", "sbin", "tlsgate")))
        os.chmod(wrapper, 0o755)
        port = free_port()
        self.site_conf(destdir, port)
        for name in ("tlsgate.conf",):
            p = os.path.join(etc, name)
            with open(p) as f:
                text = f.read().replace("/etc/tlsgate/", etc + "/")
            with open(p, "w") as f:
                f.write(text)
        with open(os.path.join(destdir, script)) as f:
            text = f.read()
        text = (text.replace("/usr/sbin/", tools + "/")
                .replace("/etc/tlsgate", etc).replace("/var/run", run))
        staged = os.path.join(tools, "init")
        with open(staged, "w") as f:
            f.write(text)
        os.chmod(staged, 0o755)
        env = dict(self.env, PATH=tools + ":" + self.env["PATH"])

        def init(action):
            p = subprocess.run(["sh", staged, action], env=env, timeout=120,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, "%s %s: %s%s" % (
                script, action, p.stdout, p.stderr))
            return p.stdout

        init("start")
        pidfile = os.path.join(run, "tlsgate.pid")
        try:
            end = time.monotonic() + 60
            while not is_listening(port):
                self.assertLess(time.monotonic(), end, "not listening")
                time.sleep(0.2)
            self.assertEqual(served_cert(port),
                             pem_der(os.path.join(etc, "tlsgate.crt")))
            with open(pidfile) as f:
                pid = int(f.read())
            with open("/proc/%d/status" % pid) as f:
                uids = re.search(r"(?m)^Uid:\s+(.*)$", f.read()).group(1)
            self.assertEqual(set(uids.split()),
                             {str(pwd.getpwnam(RUN_USER).pw_uid)},
                             "runs as " + RUN_USER)
            # A renewed certificate, installed as an admin does: the key
            # readable by the run user alone.
            key, crt = (os.path.join(etc, n)
                        for n in ("tlsgate.key", "tlsgate.crt"))
            subprocess.run(
                ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                 "ec_paramgen_curve:P-256", "-nodes", "-keyout", key + ".new",
                 "-out", crt + ".new", "-days", "30", "-subj",
                 "/CN=renewed"], check=True, capture_output=True)
            os.chown(key + ".new", pwd.getpwnam(RUN_USER).pw_uid,
                     grp.getgrnam(RUN_GROUP).gr_gid)
            os.chmod(key + ".new", 0o600)
            os.rename(key + ".new", key)
            os.rename(crt + ".new", crt)
            new = pem_der(crt)
            init("reload")
            end = time.monotonic() + 30
            while served_cert(port) != new:
                self.assertLess(time.monotonic(), end,
                                "the reload did not serve the new cert")
                time.sleep(0.3)
        finally:
            init("stop")
        self.assertFalse(os.path.exists("/proc/%d" % pid), "still running")

    def test_1_openwrt_release_tarball(self):
        # PKG_SOURCE: make dist's tarball, unpacked in the build dir.
        dist = self.path("dist")
        p = subprocess.run(["make", "-C", ROOT, "-s", "B=" + dist, "dist"],
                           env=self.env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        tarball = os.path.join(dist, "tlsgate-0.1.tar.gz")
        build_dir = self.path("openwrt", "build_dir")
        os.makedirs(build_dir)
        subprocess.run(["tar", "-C", build_dir, "-xzf", tarball], check=True)
        tree = os.path.join(build_dir, "tlsgate-0.1")
        self.assertFalse(os.path.exists(os.path.join(tree, "build")))
        # bearssl-0.6.tar.gz: Debian's tree but for debian/.
        bearssl = os.path.join(tree, "bearssl-0.6")
        shutil.copytree(DEBIAN_BEARSSL, bearssl,
                        ignore=shutil.ignore_patterns("debian", ".pc"))
        cflags = ("-Os -pipe -mips32r2 -mtune=24kc -fno-caller-saves "
                  "-fstack-protector")
        cppflags = "-I/nonexistent/usr/include -D_FORTIFY_SOURCE=1 " + MARK_CPP
        # MAKE_VARS, in the environment.
        env = dict(self.env, CFLAGS="%s %s %s" % (cflags, MARK_C, cppflags),
                   CXXFLAGS=cflags,
                   LDFLAGS="-L/nonexistent/usr/lib -Wl,-z,now -Wl,-z,relro "
                           + MARK_LD)
        # MAKE_FLAGS: TARGET_CONFIGURE_OPTS, CROSS, ARCH, the recipe's.
        tc = CROSS + "-"
        flags = ["AR=%sgcc-ar" % tc, "AS=%sgcc -c %s" % (tc, cflags),
                 "LD=%sld" % tc, "NM=%sgcc-nm" % tc, "CC=%sgcc" % tc,
                 "GCC=%sgcc" % tc, "CXX=%sg++" % tc,
                 "RANLIB=%sgcc-ranlib" % tc, "STRIP=%sstrip" % tc,
                 "OBJCOPY=%sobjcopy" % tc, "OBJDUMP=%sobjdump" % tc,
                 "SIZE=%ssize" % tc, "CROSS=" + tc, "ARCH=mips"]
        values = {"PKG_BUILD_DIR": tree, "BEARSSL_VERSION": "0.6",
                  "PKG_INSTALL_DIR": self.path("openwrt", "ipkg-install")}
        flags += [expand(w, values) for w in recipe_var(OWRT_MK,
                                                        "MAKE_FLAGS")]
        log = self.path("openwrt.log")
        make(tree, flags, env, log)
        dest = values["PKG_INSTALL_DIR"]
        make(tree, flags + ["DESTDIR=" + dest, "install"], env, log)
        for cmd in recipe_define(OWRT_MK, "Build/Install")[1:]:
            subprocess.run(["sh", "-ec", expand(cmd, values)], check=True)
        self.check_marks(log, bearssl_compiled=True, cross=CROSS + "-gcc")
        self.check_tree(dest, dict(BASE, **BEARSSL_LICENSE, **{
            "etc/init.d/tlsgate": 0o755}), CROSS)
        with open(os.path.join(dest, "etc/init.d/tlsgate")) as f:
            self.assertEqual(f.readline(), "#!/bin/sh /etc/rc.common\n")
        with open(os.path.join(dest, "etc/tlsgate/tlsgate.conf")) as f:
            conf = f.read()
        self.assertIn("\nuser = tlsgate\n", conf)
        self.assertIn("\ncert_generate = on\n", conf)
        # Buildroot's sysroot: what its bearssl package stages.
        staging = self.path("staging")
        os.makedirs(os.path.join(staging, "usr", "lib"))
        shutil.copytree(os.path.join(bearssl, "inc"),
                        os.path.join(staging, "usr", "include"))
        shutil.copy(os.path.join(tree, "build", "bearssl", "libbearssl.a"),
                    os.path.join(staging, "usr", "lib"))
        self.serve(dest, CROSS)

    def sysroot_cc(self, name, cross):
        """A compiler that finds the staging sysroot on its own."""
        staging = self.path("staging")
        self.assertTrue(os.path.isdir(staging), "test_1 stages BearSSL")
        cc = self.path("host", "bin", name)
        os.makedirs(os.path.dirname(cc), exist_ok=True)
        with open(cc, "w") as f:
            f.write('#!/bin/sh\nexec %s-gcc -isystem %s/usr/include '
                    '-L%s/usr/lib "$@"\n' % (cross, staging, staging))
        os.chmod(cc, 0o755)
        return cc

    def test_2_buildroot_rsync_of_a_built_tree(self):
        self.assertTrue(os.path.isfile(os.path.join(ROOT, "build",
                                                    "tlsgate")),
                        "the source tree holds a native build (make)")
        # The local site method: rsync with Buildroot's exclusions and
        # the recipe's.
        tree = self.path("buildroot", "build", "tlsgate-local")
        os.makedirs(tree)
        excl = recipe_var(BR_MK, "TLSGATE_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS")
        subprocess.run(["rsync", "-au", "--chmod=u=rwX,go=rX",
                        "--exclude", ".svn", "--exclude", ".git",
                        "--exclude", ".hg", "--exclude", ".bzr",
                        "--exclude", "CVS"] + excl + [ROOT + "/", tree],
                       check=True)
        self.assertFalse(os.path.exists(os.path.join(tree, "build")),
                         "build/ copied")
        cc = self.sysroot_cc("mips-buildroot-linux-gnu-gcc", CROSS)
        lfs = "-D_LARGEFILE_SOURCE -D_LARGEFILE64_SOURCE -D_FILE_OFFSET_BITS=64"
        tc_opts = ["CC=" + cc, "AR=%s-ar" % CROSS, "STRIP=%s-strip" % CROSS,
                   "CPPFLAGS=%s %s" % (lfs, MARK_CPP),
                   "CFLAGS=%s -Os -g0 -D_FORTIFY_SOURCE=1 %s" % (lfs, MARK_C),
                   "LDFLAGS=" + MARK_LD]
        opts = []
        for w in recipe_var(BR_MK, "TLSGATE_MAKE_OPTS"):
            opts += tc_opts if w == "$(TARGET_CONFIGURE_OPTS)" else [w]
        log = self.path("buildroot.log")
        dest = self.path("buildroot", "target")
        values = {"TARGET_DIR": dest, "@D": tree, "SED": "sed -i -e",
                  "INSTALL": "install",
                  "TLSGATE_PKGDIR": os.path.dirname(BR_MK)}
        for cmd in recipe_define(BR_MK, "TLSGATE_BUILD_CMDS"):
            self.assertIn("$(MAKE) -C $(@D) $(TLSGATE_MAKE_OPTS)", cmd)
            make(tree, opts + cmd.split()[-1:], self.env, log)
        for cmds in ("TLSGATE_INSTALL_TARGET_CMDS",
                     "TLSGATE_INSTALL_INIT_SYSV"):
            for cmd in recipe_define(BR_MK, cmds):
                if "$(MAKE)" in cmd:
                    words = cmd.split("$(TLSGATE_MAKE_OPTS)")[1].split()
                    make(tree, opts + [expand(w, values) for w in words],
                         self.env, log)
                else:
                    subprocess.run(["sh", "-ec", expand(cmd, values)],
                                   check=True)
        self.check_marks(log, bearssl_compiled=False, cross=cc)
        self.check_tree(dest, dict(BASE, **{"etc/init.d/S50tlsgate": 0o755}),
                        CROSS)
        # BearSSL is in the binary, not beside it.
        p = subprocess.run([CROSS + "-readelf", "-d",
                            os.path.join(dest, "usr/sbin/tlsgate")],
                           capture_output=True, text=True, check=True)
        self.assertNotIn("bearssl", p.stdout)
        self.init_cycle(dest, "etc/init.d/S50tlsgate", CROSS)

    def test_3_yocto_out_of_tree_then_reinstall_and_uninstall(self):
        work = self.path("yocto")
        src = os.path.join(work, "tlsgate-0.1")
        copy_tree(src)
        bearssl = os.path.join(work, "bearssl-0.6")
        shutil.copytree(DEBIAN_BEARSSL, bearssl,
                        ignore=shutil.ignore_patterns("debian", ".pc"))
        # S is read-only: B != S writes nothing there.
        subprocess.run(["chmod", "-R", "a-w", src, bearssl], check=True)
        self.addCleanup(subprocess.run, ["chmod", "-R", "u+w", work])
        b = os.path.join(work, "build")
        os.makedirs(b)
        dest = os.path.join(work, "image")
        values = {"${S}": src, "${B}": b, "${WORKDIR}": work,
                  "${prefix}": "/usr", "${sysconfdir}": "/etc",
                  "${systemd_system_unitdir}": "/usr/lib/systemd/system"}
        extra = recipe_var(YOCTO_BB, "EXTRA_OEMAKE")
        extra = [w.strip('"') for w in extra]
        for k, v in values.items():
            extra = [w.replace(k, v) for w in extra]
        self.assertEqual(extra[:2], ["-C", src])
        env = dict(self.env, CC="%s-gcc -mel -mabi=32 -mhard-float" % CROSS_EL,
                   CFLAGS="-O2 -pipe -g -feliminate-unused-debug-types "
                          + MARK_C,
                   CPPFLAGS=MARK_CPP,
                   LDFLAGS="-Wl,-O1 -Wl,--hash-style=gnu -Wl,--as-needed "
                           "-fstack-protector-strong -Wl,-z,relro,-z,now "
                           + MARK_LD,
                   AR=CROSS_EL + "-ar", STRIP=CROSS_EL + "-strip")
        oemake = extra[2:]
        log = self.path("yocto.log")
        # oe_runmake runs in B.
        make(src, oemake, env, log, cwd=b)
        make(src, oemake + ["install", "DESTDIR=" + dest], env, log, cwd=b)
        text = recipe_text(YOCTO_BB)
        body = re.search(r"do_install\(\) \{\n(.*?)\n\}", text, re.S).group(1)
        seds = body.split("DESTDIR=${D}", 1)[1]
        subprocess.run(["sh", "-ec", seds], check=True,
                       env=dict(self.env, D=dest, sysconfdir="/etc"))
        self.check_marks(log, bearssl_compiled=True, cross=CROSS_EL + "-gcc")
        self.check_tree(dest, dict(BASE, **BEARSSL_LICENSE, **{
            "etc/init.d/tlsgate": 0o755,
            "usr/lib/systemd/system/tlsgate.service": 0o644}), CROSS_EL)
        for script in ("etc/init.d/tlsgate",
                       "usr/lib/systemd/system/tlsgate.service"):
            with open(os.path.join(dest, script)) as f:
                text = f.read()
            self.assertIn("/usr/sbin/tlsgate", text)
            self.assertIn("/etc/tlsgate/tlsgate.conf", text)
        self.init_cycle(dest, "etc/init.d/tlsgate", CROSS_EL)
        for n in ("tlsgate.crt", "tlsgate.key"):
            os.remove(os.path.join(dest, "etc/tlsgate", n))
        shutil.rmtree(os.path.join(dest, "test-bin"))
        shutil.rmtree(os.path.join(dest, "var"))

        conf = os.path.join(dest, "etc/tlsgate/tlsgate.conf")
        with open(conf, "a") as f:
            f.write("slots = 8\n")
        make(src, oemake + ["install", "DESTDIR=" + dest], env, log, cwd=b)
        with open(conf) as f:
            self.assertTrue(f.read().endswith("\nslots = 8\n"),
                            "install replaced an existing config")
        make(src, oemake + ["uninstall", "DESTDIR=" + dest], env, log, cwd=b)
        self.assertEqual(installed(dest), {"etc/tlsgate/tlsgate.conf": 0o644},
                         "uninstall keeps only the edited config")
        os.remove(conf)
        make(src, oemake + ["install", "DESTDIR=" + dest], env, log, cwd=b)
        make(src, oemake + ["uninstall", "DESTDIR=" + dest], env, log, cwd=b)
        self.assertEqual(installed(dest), {})
        self.assertFalse(os.path.exists(os.path.join(dest, "etc/tlsgate")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
