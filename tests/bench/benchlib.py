# SPDX-License-Identifier: ISC
"""The start-up and the callgrind run the bench scripts share.

Owns: waiting for a loopback listener, a throw-away certificate and
key, tests/backend.py on a given port, and one tlsgate run under
callgrind (its instruction count).  Port picking is the integration
harness's own (one free_port for all of tests/).  Never keeps a
process: what it starts, the caller (or callgrind()) stops.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
from harness import free_port  # noqa: E402,F401  (re-exported)
from harness import unsandboxed  # noqa: E402


def wait_port(port, timeout=30):
    """Return True once something accepts on port; raise after timeout
    seconds, so that a server that did not start stops the run."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on port %d" % port)


def self_signed(tmp, newkey=("-newkey", "ec", "-pkeyopt",
                             "ec_paramgen_curve:P-256")):
    """(certificate, key) paths in tmp, for CN=localhost; newkey: the
    openssl req key arguments (P-256 unless a bench wants RSA)."""
    crt, key = os.path.join(tmp, "crt.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509"] + list(newkey) +
                   ["-nodes", "-keyout", key, "-out", crt, "-days", "2",
                    "-subj", "/CN=localhost"],
                   check=True, capture_output=True)
    return crt, key


def py_backend(port, mode="http"):
    """tests/backend.py on port, listening when this returns."""
    p = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests",
                          "backend.py"), "--host", "127.0.0.1", "--port",
                          str(port), "--mode", mode],
                         stderr=subprocess.DEVNULL)
    wait_port(port)
    return p


def pinned_env(binary, conf):
    """The environment for a run under valgrind: the primitives pinned to
    what tlsgate chooses natively (`-t`), so that the counts neither
    depend on timings taken under valgrind nor count the timing."""
    out = subprocess.run([binary, "-t", "-c", conf], capture_output=True,
                         text=True).stdout
    m = re.search(r"^# primitives[^:]*: (.*)$", out, re.M)
    env = dict(os.environ)
    if m:
        env["TLSGATE_PRIMITIVES"] = m.group(1).strip()
    return env


def callgrind(binary, conf, port, work, env=None,
              stderr=subprocess.DEVNULL, timeout=120):
    """(instructions tlsgate ran from start to exit, what work returned):
    tlsgate on conf under callgrind, driven by work() once it listens on
    port, then stopped with SIGTERM.  env: its environment (default:
    pinned_env)."""
    out = conf + ".callgrind"
    # seccomp = auto would kill valgrind's own system calls.
    shutil.copy(conf, conf + ".valgrind")
    conf = conf + ".valgrind"
    unsandboxed(conf)
    p = subprocess.Popen(["valgrind", "--tool=callgrind",
                          "--callgrind-out-file=" + out, binary, "-c", conf],
                         stdout=subprocess.DEVNULL, stderr=stderr,
                         env=env or pinned_env(binary, conf))
    try:
        wait_port(port)
        got = work()
        time.sleep(0.2)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=timeout)
    with open(out) as f:
        m = re.search(r"^(?:summary|totals):\s+(\d+)", f.read(), re.M)
    return int(m.group(1)), got
