# SPDX-License-Identifier: ISC
"""tcp mode with proxy_protocol = v1 or v2: the backend gets one PROXY
header, before the first byte, carrying the real client address and
port and the address and port it connected to; checked with the test
backend's strict parser and with real ones (nginx, haproxy; skipped
when not installed).

Runtime: about 4 s with nginx and haproxy installed."""
import json
import os
import shutil
import signal
import socket
import subprocess
import time

from harness import (LOOPBACK, LOOPBACK6, Backend, GateTest, close_tls,
                     deadline, echo_roundtrip, free_port, free_port6,
                     random_bytes, recv_to_eof, tls_connect, tls_connect6)


class ProxyBackend(Backend):
    """tests/backend.py --proxy-protocol on a free loopback port; its
    --log has the parsed header in each accept event."""

    def __init__(self, mode, log):
        super().__init__(mode, log=log, proxy_protocol=True)

    def events(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def wait_events(self, n, timeout=5):
        end = deadline(timeout)
        while len(self.events()) < n:
            if time.monotonic() > end:
                raise AssertionError("backend logged %r" % self.events())
            time.sleep(0.02)
        return self.events()


class Server:
    """A real PROXY protocol parser (nginx or haproxy) in its own
    process group, on a throw-away config."""

    def __init__(self, cmd, port, log):
        self.port = port
        with open(log, "wb") as f:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                         stdout=f, stderr=f,
                                         start_new_session=True)
        end = deadline(10)
        while time.monotonic() < end and self.proc.poll() is None:
            with socket.socket() as s:
                if s.connect_ex((LOOPBACK, port)) == 0:
                    return
            time.sleep(0.05)
        self.stop()
        with open(log, "rb") as f:
            raise RuntimeError("%s did not start: %s" % (
                cmd[0], f.read().decode("utf-8", "replace")))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
        # Workers too: the group is the one this test created.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)


def haproxy_exe(test):
    """haproxy's path; skips test when it is not installed."""
    exe = shutil.which("haproxy")
    if exe is None:
        test.skipTest("haproxy is not installed (apt-get install haproxy)")
    return exe


def haproxy(test, port, sections):
    """haproxy listening on port, started as a Server: mode tcp and
    timeouts by default, then sections (its frontend and backends)."""
    exe = haproxy_exe(test)
    conf = os.path.join(test.tmp, "haproxy.cfg")
    with open(conf, "w") as f:
        f.write("global\n    maxconn 256\ndefaults\n    mode tcp\n"
                "    timeout connect 2s\n    timeout client 30s\n"
                "    timeout server 30s\n" + sections)
    return Server([exe, "-db", "-f", conf], port,
                  os.path.join(test.tmp, "haproxy.out"))


def tcp_gate(test, backend, version, family):
    """tlsgate in tcp mode with proxy_protocol = version, listening on
    IPv4 or IPv6 (family 4 or 6) loopback."""
    if family == 4:
        return test.gate(backend, mode="tcp", proxy_protocol=version)
    for _ in range(3):
        port = free_port6()
        g = test.gate(backend, wait_ready=False, mode="tcp",
                      proxy_protocol=version,
                      listen="[%s]:%d" % (LOOPBACK6, port))
        g.port = port
        end = deadline(10)
        while time.monotonic() < end and g.alive() and \
                "info: ready " not in g.log():
            time.sleep(0.02)
        if "info: ready " in g.log():
            return g
        if "Address already in use" not in g.log():
            break
    raise AssertionError("tlsgate did not start:\n" + g.log_tail())


class Header(GateTest):
    """With the test backend's strict parser."""

    def through(self, version, family):
        log = os.path.join(self.tmp, "backend.log")
        b = ProxyBackend("echo", log)
        self.backends.append(b)
        g = tcp_gate(self, b.addr, version, family)
        s = (tls_connect6 if family == 6 else tls_connect)(g.port)
        data = random_bytes(100000, seed=3)
        try:
            got = echo_roundtrip(s, data)
            client = s.getsockname()[:2]
        finally:
            close_tls(s)
        # Once, before the first byte: a second header or one after
        # data would come back in the echo, or fail the backend's parse.
        self.assertEqual(got, data)
        events = b.wait_events(1)
        self.assertEqual(len(events), 1, events)
        self.assertEqual(events[0]["event"], "accept", events)
        ip = LOOPBACK6 if family == 6 else LOOPBACK
        self.assertEqual(events[0]["proxy"], {
            "version": int(version[1]), "family": "TCP%d" % family,
            "src": client[0], "sport": client[1],
            "dst": ip, "dport": g.port})
        self.assertEqual(g.wait_conns(1)[0]["outcome"], "ok")

    def test_v1_ipv4(self):
        self.through("v1", 4)

    def test_v1_ipv6(self):
        self.through("v1", 6)

    def test_v2_ipv4(self):
        self.through("v2", 4)

    def test_v2_ipv6(self):
        self.through("v2", 6)

    def test_header_sent_before_the_client_speaks(self):
        # Server-speaks-first protocols: the backend must know who it
        # talks to without waiting for a client byte.
        log = os.path.join(self.tmp, "backend.log")
        b = ProxyBackend("echo", log)
        self.backends.append(b)
        g = self.gate(b.addr, mode="tcp", proxy_protocol="v2")
        s = tls_connect(g.port)
        try:
            events = b.wait_events(1)
            client = s.getsockname()[:2]
        finally:
            close_tls(s)
        self.assertEqual(events[0]["event"], "accept", events)
        self.assertEqual((events[0]["proxy"]["src"],
                          events[0]["proxy"]["sport"]), client)

    def test_off_sends_no_header(self):
        # The same strict backend refuses a stream without a header.
        log = os.path.join(self.tmp, "backend.log")
        b = ProxyBackend("echo", log)
        self.backends.append(b)
        g = self.gate(b.addr, mode="tcp", proxy_protocol="off")
        s = tls_connect(g.port)
        try:
            s.sendall(b"PING" * 30)
            try:
                rest = recv_to_eof(s)
            except OSError:
                rest = b""
        finally:
            s.close()
        self.assertEqual(rest, b"")
        events = b.wait_events(1)
        self.assertEqual(events[0]["event"], "error", events)


class RealParsers(GateTest):
    """nginx's and haproxy's own PROXY protocol parsers agree."""

    def ask(self, server_port, version, family):
        """GET through tlsgate (tcp mode, proxy_protocol) to a server
        that answers with the addresses it read from the header;
        returns (answer, expected)."""
        g = tcp_gate(self, "%s:%d" % (LOOPBACK, server_port), version,
                     family)
        s = (tls_connect6 if family == 6 else tls_connect)(g.port)
        try:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close"
                      b"\r\n\r\n")
            resp = recv_to_eof(s)
            client = s.getsockname()[:2]
        finally:
            s.close()
        head, _, body = resp.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 200 "), resp)
        ip = LOOPBACK6 if family == 6 else LOOPBACK
        return body.decode().strip(), "%s:%d %s:%d" % (client[0], client[1],
                                                      ip, g.port)

    def nginx(self):
        exe = shutil.which("nginx")
        if exe is None:
            self.skipTest("nginx is not installed (apt-get install nginx)")
        port = free_port()
        d = os.path.join(self.tmp, "nginx")
        os.mkdir(d)
        conf = os.path.join(d, "nginx.conf")
        with open(conf, "w") as f:
            f.write("""worker_processes 1;
pid %(d)s/nginx.pid;
error_log %(d)s/error.log;
events { worker_connections 64; }
http {
    access_log off;
    server {
        listen %(ip)s:%(port)d proxy_protocol;
        location / {
            return 200 "%(answer)s\\n";
        }
    }
}
""" % {"d": d, "ip": LOOPBACK, "port": port, "answer":
                "$proxy_protocol_addr:$proxy_protocol_port "
                "$proxy_protocol_server_addr:$proxy_protocol_server_port"})
        srv = Server([exe, "-p", d, "-c", conf, "-e", d + "/error.log",
                      "-g", "daemon off;"], port, d + "/out.log")
        self.backends.append(srv)
        return port

    def haproxy(self):
        port = free_port()
        self.backends.append(haproxy(self, port, """frontend fe
    mode http
    bind %s:%d accept-proxy
    http-request return status 200 content-type text/plain lf-string "%s"
""" % (LOOPBACK, port, "%[src]:%[src_port] %[dst]:%[dst_port]")))
        return port

    def test_nginx_reads_v1(self):
        got, want = self.ask(self.nginx(), "v1", 4)
        self.assertEqual(got, want)

    def test_nginx_reads_v2(self):
        got, want = self.ask(self.nginx(), "v2", 4)
        self.assertEqual(got, want)

    def test_nginx_reads_v2_from_ipv6(self):
        got, want = self.ask(self.nginx(), "v2", 6)
        self.assertEqual(got, want)

    def test_haproxy_reads_v1(self):
        got, want = self.ask(self.haproxy(), "v1", 4)
        self.assertEqual(got, want)

    def test_haproxy_reads_v2(self):
        got, want = self.ask(self.haproxy(), "v2", 4)
        self.assertEqual(got, want)

    def test_haproxy_reads_v1_from_ipv6(self):
        got, want = self.ask(self.haproxy(), "v1", 6)
        self.assertEqual(got, want)


if __name__ == "__main__":
    import unittest
    unittest.main()
