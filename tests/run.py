#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Run tlsgate's integration tests (tests/integration/test_*.py).

    python3 tests/run.py [-k SUBSTRING]... [--bin PATH]

The binary is --bin, else $TLSGATE_BIN, else build/tlsgate.
$TLSGATE_WRAP is a command prefix for every launch of it (for example
"valgrind -q --error-exitcode=99").  $TLSGATE_TEST_TLS_MAX (1.2 or 1.3)
is the tls_max of the services of every test class that does not pin
one (unset: tlsgate's default, 1.3).  Each test's result and time is
printed as it ends; the last line is exactly "N passed, N failed" (with
", N skipped" when any were), and the exit status is 1 if any failed.
"""
import argparse
import os
import resource
import sys
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def iter_tests(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from iter_tests(t)
        else:
            yield t


def gate_logs(test):
    """The end of each tlsgate log of a failed test, to see why."""
    out = ""
    for g in getattr(test, "gates", []):
        out += "--- %s log:\n%s\n" % (g.name, g.log_tail(15))
    return out


class Result(unittest.TestResult):
    """Counts and prints one line per test, with its wall time."""

    def __init__(self):
        super().__init__()
        self.passed = self.failed = self.skipped = 0
        self.t0 = 0.0
        self.times = []

    def startTest(self, test):
        super().startTest(test)
        self.t0 = time.monotonic()
        self.problem = None

    def _line(self, test, word, detail=None):
        dt = time.monotonic() - self.t0
        self.times.append((dt, test.id()))
        print("%-4s %6.2fs  %s" % (word, dt, test.id()), flush=True)
        if detail:
            print("    " + detail.rstrip().replace("\n", "\n    "),
                  flush=True)

    def addSuccess(self, test):
        self.passed += 1
        self._line(test, "ok")

    def addFailure(self, test, err):
        self.failed += 1
        self._line(test, "FAIL", self._exc_info_to_string(err, test) +
                   gate_logs(test))

    def addError(self, test, err):
        # Errors in setUp/tearDown or an unexpected exception: a failure.
        self.failed += 1
        if isinstance(test, unittest.case._SubTest) or not hasattr(
                test, "id"):
            print("FAIL %s\n    %s" % (test, "".join(
                traceback.format_exception(*err))), flush=True)
            return
        self._line(test, "FAIL", self._exc_info_to_string(err, test) +
                   gate_logs(test))

    def addSkip(self, test, reason):
        self.skipped += 1
        self._line(test, "skip", reason)

    def addExpectedFailure(self, test, err):
        self.passed += 1
        self._line(test, "xfail")

    def addUnexpectedSuccess(self, test):
        self.failed += 1
        self._line(test, "FAIL", "unexpected success")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("-k", action="append", default=[], metavar="SUBSTRING",
                   help="run only tests whose id contains it (repeatable)")
    p.add_argument("--bin", help="the tlsgate binary to test")
    args = p.parse_args()
    # tlsgate's default pending table alone is 2,048 descriptors; under
    # valgrind the soft limit at launch is also the hard one.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    binpath = args.bin or os.environ.get("TLSGATE_BIN") or \
        os.path.join(ROOT, "build", "tlsgate")
    binpath = os.path.abspath(binpath)
    os.environ["TLSGATE_BIN"] = binpath
    if not os.access(binpath, os.X_OK):
        print("run.py: %s: not an executable (run make first)" % binpath)
        print("0 passed, 1 failed")
        return 1

    idir = os.path.join(HERE, "integration")
    sys.path.insert(0, idir)
    import harness  # after TLSGATE_BIN is set

    loader = unittest.TestLoader()
    found = loader.discover(idir, pattern="test_*.py", top_level_dir=idir)
    tests = [t for t in iter_tests(found)
             if not args.k or any(k in t.id() for k in args.k)]
    result = Result()
    t0 = time.monotonic()
    print("tlsgate %s%s%s: %d tests" % (binpath, " (wrapped: %s)" % " ".join(
        harness.WRAP) if harness.WRAP else "", " (tls_max %s)" %
        harness.TEST_TLS_MAX if harness.TEST_TLS_MAX else "", len(tests)),
        flush=True)
    try:
        for t in tests:
            t(result)
    finally:
        harness.cleanup_certs()
    slow = sorted(result.times, reverse=True)[:5]
    print("total %.1fs; slowest: %s" % (time.monotonic() - t0, ", ".join(
        "%s %.1fs" % (name.rsplit(".", 1)[-1], dt) for dt, name in slow)))
    # Import failures of a test module show up as errors, counted above.
    line = "%d passed, %d failed" % (result.passed, result.failed)
    if result.skipped:
        line += ", %d skipped" % result.skipped
    print(line)
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
