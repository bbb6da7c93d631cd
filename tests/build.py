#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The build as an integrator meets it (make check-build).

    python3 tests/build.py [-k NAME]

Each test builds a fresh copy of the tree (no build/, no .git), with
BearSSL's source copied from this tree's build/bearssl where it needs one:

  no source       make without a BearSSL source stops in one line that
                  names the three ways to get one, and goes nowhere near
                  the network
  cross install   make CC=mips-linux-gnu-gcc, then make install without
                  the variables: nothing is recompiled and a big-endian
                  MIPS binary is installed
  flags           a changed CFLAGS recompiles tlsgate's objects; a make
                  without it keeps the recorded one and recompiles nothing
  reproducible    two copies in two directories, built with the same
                  SOURCE_DATE_EPOCH: byte-identical stripped binaries
                  (BearSSL compiled in each: the default build, whole)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BEARSSL_DIR = "bearssl-0.6+dfsg.1"
BEARSSL = os.path.join(ROOT, "build", "bearssl", BEARSSL_DIR)
CROSS = "mips-linux-gnu"
COMPILE = re.compile(r"\s-c -o (\S+\.o) ")


def copy_tree(dst, bearssl=False):
    """The tree as a release unpacks it; with bearssl, the source the
    default build compiles, as bearssl-fetch leaves it."""
    shutil.copytree(ROOT, dst, ignore=lambda d, names: [
        n for n in names if d == ROOT and n in ("build", ".git")])
    if bearssl:
        shutil.copytree(BEARSSL, os.path.join(dst, "build", "bearssl",
                                              BEARSSL_DIR), symlinks=True)


def clean_env(**more):
    """No toolchain, make or fetch variable of the caller's."""
    env = {k: v for k, v in os.environ.items() if k not in (
        "CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "AR", "STRIP", "MAKEFLAGS",
        "MFLAGS", "MAKELEVEL", "DESTDIR", "PREFIX", "BEARSSL", "CONF", "PQ",
        "BEARSSL_FETCH", "B")}
    env.update(more)
    return env


def make(tree, args, env=None, ok=True):
    p = subprocess.run(["make", "-C", tree, "--no-print-directory", "-j2"]
                       + args, env=env or clean_env(), capture_output=True,
                       text=True, timeout=900)
    if ok and p.returncode != 0:
        raise AssertionError("make %s failed:\n%s%s" % (
            " ".join(args), p.stdout[-2000:], p.stderr[-3000:]))
    return p


def compiled(out):
    return sorted(COMPILE.findall(out))


def elf_machine(path):
    with open(path, "rb") as f:
        h = f.read(20)
    assert h[:4] == b"\x7fELF", path
    order = "big" if h[5] == 2 else "little"
    return order, int.from_bytes(h[18:20], order)


class Build(unittest.TestCase):

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="tlsgate-build-")

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def need_bearssl(self):
        if not os.path.isfile(os.path.join(BEARSSL, ".unpacked")):
            raise AssertionError("no BearSSL source at %s: run make "
                                 "bearssl-fetch" % BEARSSL)

    def test_no_source_one_line(self):
        tree = os.path.join(self.work, "t")
        copy_tree(tree)
        # No network either: apt-get would fail at once without a proxy.
        p = make(tree, [], env=clean_env(http_proxy="http://127.0.0.1:9",
                                         https_proxy="http://127.0.0.1:9"),
                 ok=False)
        self.assertNotEqual(p.returncode, 0)
        lines = (p.stdout + p.stderr).strip().splitlines()
        self.assertEqual(len(lines), 1, lines)
        for way in ("make bearssl-fetch", "BEARSSL=system", "BEARSSL=/"):
            self.assertIn(way, lines[0])
        self.assertFalse(os.path.exists(os.path.join(
            tree, "build", "bearssl", BEARSSL_DIR)), "something was fetched")
        self.assertEqual(compiled(p.stdout), [], "nothing is compiled")

    def test_cross_then_install_without_the_variables(self):
        if shutil.which(CROSS + "-gcc") is None:
            self.skipTest(CROSS + "-gcc is not installed")
        self.need_bearssl()
        tree = os.path.join(self.work, "t")
        copy_tree(tree, bearssl=True)
        make(tree, ["CC=%s-gcc" % CROSS, "AR=%s-ar" % CROSS])
        self.assertEqual(elf_machine(os.path.join(tree, "build/tlsgate")),
                         ("big", 8))
        dest = os.path.join(self.work, "stage")
        p = make(tree, ["DESTDIR=" + dest, "PREFIX=/usr", "install"])
        self.assertEqual(compiled(p.stdout), [], "install recompiled")
        self.assertNotIn("libbearssl.a", p.stdout)
        self.assertEqual(elf_machine(os.path.join(dest, "usr/sbin/tlsgate")),
                         ("big", 8), "a big-endian MIPS binary installed")
        lic = os.path.join(dest, "usr/share/licenses/tlsgate")
        self.assertEqual(sorted(os.listdir(lic)),
                         ["LICENSE", "LICENSE.bearssl"])
        with open(os.path.join(lic, "LICENSE.bearssl")) as f:
            self.assertIn("Thomas Pornin", f.read())

    def test_changed_cflags_recompile(self):
        tree = os.path.join(self.work, "t")
        copy_tree(tree)
        obj = ["BEARSSL=system", "build/src/der.o", "build/port/posix/port.o"]
        want = ["build/port/posix/port.o", "build/src/der.o"]
        self.assertEqual(compiled(make(tree, obj).stdout), want)
        self.assertEqual(compiled(make(tree, obj).stdout), [],
                         "an unchanged build recompiles")
        p = make(tree, obj + ["CFLAGS=-O1 -DTLSGATE_TEST_FLAG=1"])
        self.assertEqual(compiled(p.stdout), want, "a new CFLAGS")
        for ln in p.stdout.splitlines():
            if COMPILE.search(ln):
                self.assertIn("-DTLSGATE_TEST_FLAG=1", ln)
        self.assertEqual(compiled(make(tree, obj).stdout), [],
                         "the recorded CFLAGS is the same")
        p = make(tree, obj + ["CC=gcc"])
        self.assertEqual(compiled(p.stdout), want, "a new CC")

    def test_reproducible(self):
        self.need_bearssl()
        env = clean_env(SOURCE_DATE_EPOCH="1780000000")
        bins = []
        for d in ("a", os.path.join("somewhere", "else", "tlsgate-x")):
            tree = os.path.join(self.work, d)
            copy_tree(tree, bearssl=True)
            make(tree, [], env=env)
            out = os.path.join(self.work, "%d.stripped" % len(bins))
            subprocess.run(["strip", "-o", out,
                            os.path.join(tree, "build", "tlsgate")],
                           check=True)
            with open(out, "rb") as f:
                bins.append(f.read())
            self.assertNotIn(tree.encode(), bins[-1])
        self.assertEqual(len(bins[0]), len(bins[1]))
        self.assertTrue(bins[0] == bins[1], "the stripped binaries differ")


if __name__ == "__main__":
    unittest.main(verbosity=2)
