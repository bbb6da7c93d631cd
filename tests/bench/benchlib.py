"""The start-up every bench script shares.

Owns: waiting for a loopback listener, a throw-away certificate and
key, and tests/backend.py on a given port.  Port picking is the
integration harness's own (one free_port for all of tests/).  Never
measures anything and never keeps a process: what it starts, the
caller stops.
"""
import os
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
from harness import free_port  # noqa: E402,F401  (re-exported)


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
