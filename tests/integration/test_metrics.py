# SPDX-License-Identifier: ISC
"""The stats address speaks HTTP: GET /metrics is Prometheus's text
exposition format (promtool accepts it, a real Prometheus server scrapes
it and answers a query for a counter a client just moved), GET /stats
the old "name value" lines, anything else a 400.  tlsgate(8) lists every
metric, and no answer is larger than what -t says."""
import json
import os
import re
import shutil
import socket
import subprocess
import time
import unittest
import urllib.request

from harness import (BIN, LOOPBACK, ROOT, SLOW, WRAP, GateTest, certs, close_tls,
                     deadline, echo_roundtrip, free_port, run, tls_connect)
from test_stats_syslog import read_stats, stats_get

PROMTOOL = shutil.which("promtool")
PROMETHEUS = shutil.which("prometheus")


def families(text):
    """{name: type} from the # TYPE lines, after checking that each
    sample belongs to a family announced by # HELP and # TYPE."""
    types, helps = {}, set()
    for line in text.splitlines():
        m = re.match(r"^# (HELP|TYPE) (\S+) (.+)$", line)
        if m:
            if m.group(1) == "HELP":
                helps.add(m.group(2))
            else:
                types[m.group(2)] = m.group(3)
            continue
        name = re.match(r"^([a-z_]+)[{ ]", line).group(1)
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        fam = name if name in types else base
        assert fam in types and fam in helps, line
        assert fam.startswith("tlsgate_"), line
    return types


def sample(text, name, **labels):
    """The value of the one sample name{labels}."""
    want = ",".join('%s="%s"' % kv for kv in labels.items())
    pat = re.escape(name) + (r"\{" + re.escape(want) + r"\}" if labels
                             else "") + r" (\S+)$"
    found = re.findall("^" + pat, text, re.M)
    assert len(found) == 1, (name, labels, found)
    return float(found[0])


class Metrics(GateTest):

    def scrape(self, addr, path="/metrics"):
        status, body = stats_get(addr, path)
        self.assertEqual(status, "HTTP/1.1 200 OK")
        return body

    def raw(self, port, data):
        """data to the stats port as it is; the whole answer."""
        s = socket.create_connection((LOOPBACK, port), timeout=5 * SLOW)
        try:
            s.sendall(data)
            out = b""
            while True:
                b = s.recv(4096)
                if not b:
                    return out
                out += b
        finally:
            s.close()

    def test_exposition_passes_promtool_and_counts_the_handshakes(self):
        addr = "%s:%d" % (LOOPBACK, free_port())
        g = self.gate(self.backend("echo"), mode="tcp", stats=addr)
        before = self.scrape(addr)
        for i in range(3):
            s = tls_connect(g.port)
            self.assertEqual(echo_roundtrip(s, b"%d" % i), b"%d" % i)
            close_tls(s)
        g.wait_conns(3)
        text = self.scrape(addr)
        if PROMTOOL:
            r = subprocess.run([PROMTOOL, "check", "metrics"], input=text,
                               capture_output=True, text=True, timeout=30)
            self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))
        types = families(text)
        self.assertEqual(types["tlsgate_handshake_seconds"], "histogram")
        self.assertEqual(types["tlsgate_loop_turn_seconds"], "histogram")
        self.assertEqual(types["tlsgate_connections"], "gauge")
        for name, t in types.items():
            self.assertEqual(t == "counter", name.endswith("_total"), name)
        ver = "1.3" if self.tls13 else "1.2"
        self.assertEqual(sample(before, "tlsgate_handshakes_total",
                                service="default", version=ver,
                                kind="full"), 0)
        self.assertEqual(sample(text, "tlsgate_handshakes_total",
                                service="default", version=ver,
                                kind="full"), 3)
        self.assertEqual(sample(text, "tlsgate_connections_accepted_total"),
                         3)
        self.assertEqual(sample(text, "tlsgate_handshake_seconds_count",
                                version=ver), 3)
        self.assertEqual(sample(text, "tlsgate_handshake_seconds_bucket",
                                version=ver, le="+Inf"), 3)
        self.assertEqual(sample(text, "tlsgate_connections", kind="tls"), 0)
        self.assertGreater(sample(text, "tlsgate_loop_turn_seconds_count"),
                           sample(before, "tlsgate_loop_turn_seconds_count"))
        # The test certificates are made for 30 days.
        left = sample(text, "tlsgate_certificate_expiry_seconds",
                      service="default", path=certs().path["ec.crt"])
        self.assertGreater(left, 29 * 86400)
        self.assertLessEqual(left, 30 * 86400)
        # The old lines, one request away, agree.
        self.assertEqual(read_stats(addr)["accepted"], 3)

    def test_anything_else_gets_a_400(self):
        port = free_port()
        g = self.gate(self.backend("echo"), mode="tcp",
                      stats="%s:%d" % (LOOPBACK, port))
        for req in (b"POST /metrics HTTP/1.0\r\nContent-Length: 1\r\n\r\nx",
                    b"HEAD /metrics HTTP/1.0\r\n\r\n",
                    b"GET /metrics/ HTTP/1.0\r\n\r\n",
                    b"GET / HTTP/1.0\r\n\r\n",
                    b"GET /metrics HTTP/1.1\r\n\r\n",   # no Host
                    b"GET /metrics HTTP/1.0\n\n",
                    b"metrics\r\n\r\n",
                    b"GET /metrics HTTP/1.0\r\nX: " + b"a" * 2000 +
                    b"\r\n\r\n"):
            out = self.raw(port, req)
            self.assertTrue(out.startswith(b"HTTP/1.1 400 "), (req, out))
        ok = self.raw(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertTrue(ok.startswith(b"HTTP/1.1 200 OK\r\n"), ok)
        head, _, body = ok.partition(b"\r\n\r\n")
        self.assertIn(b"\r\nContent-Type: text/plain; version=0.0.4", head)
        self.assertIn(b"\r\nContent-Length: %d\r\n" % len(body), head)
        # A client that sends nothing gets its 400 in the end; the next
        # one is served.
        idle = socket.create_connection((LOOPBACK, port), timeout=10)
        try:
            t0 = time.monotonic()
            self.assertTrue(idle.recv(100).startswith(b"HTTP/1.1 400 "))
            self.assertLess(time.monotonic() - t0, 5 * SLOW)
        finally:
            idle.close()
        self.assertEqual(read_stats("%s:%d" % (LOOPBACK, port))["accepted"],
                         0)
        self.assertTrue(g.alive())

    def test_dash_t_states_the_buffer_and_a_largest_config_fits(self):
        # Every service and certificate the build allows, long names
        # with the characters a label value escapes.
        c = certs()
        d = os.path.join(self.tmp, "d" * 200)
        os.makedirs(d)
        lines = ["stats = %s:%d" % (LOOPBACK, free_port())]
        for i in range(8):
            lines += ["[%s%d]" % ("s" * 30, i),
                      "listen = %s:%d" % (LOOPBACK, free_port()),
                      "backend = 127.0.0.1:9"]
            # 16 certificates in all, the most a build takes.
            for j in range(2):
                p = os.path.join(d, "c%d%d\"\\.pem" % (i, j))
                shutil.copy(c.path["ec.crt"], p)
                lines += ["cert = " + p, "key = " + c.path["ec.key"]]
        conf = self.conf_file(lines)
        rc, out, err = run(WRAP + [BIN, "-t", "-c", conf], 30)
        self.assertEqual(rc, 0, err)
        m = re.search(r"^metrics = (\d+) \(the GET /metrics answer: at most "
                      r"(\d+) for this config", out.decode(), re.M)
        self.assertIsNotNone(m, out)
        cap, worst = int(m.group(1)), int(m.group(2))
        self.assertLessEqual(worst, cap)
        # Started, the answer is within that worst case.
        g = self.gate_file(conf)
        g._wait_ready()
        addr = lines[0].split(" = ")[1]
        body = self.scrape(addr)
        self.assertLess(len(body), worst)
        self.assertEqual(body.count("tlsgate_certificate_expiry_seconds{"),
                         16)
        if PROMTOOL:
            r = subprocess.run([PROMTOOL, "check", "metrics"], input=body,
                               capture_output=True, text=True, timeout=30)
            self.assertEqual((r.returncode, r.stderr), (0, ""))

    def test_the_manual_lists_every_metric(self):
        addr = "%s:%d" % (LOOPBACK, free_port())
        self.gate(self.backend("echo"), stats=addr)
        with open(os.path.join(ROOT, "man", "tlsgate.8")) as f:
            page = f.read().split("\n.Sh METRICS\n")[1].split("\n.Sh ")[0]
        listed = set()
        for line in re.findall(r"^\.It Sy (.*)$", page, re.M):
            listed |= set(re.findall(r"\b(tlsgate_[a-z_]+)\b", line))
        self.assertEqual(listed, set(families(self.scrape(addr))))

    @unittest.skipUnless(PROMETHEUS, "no prometheus")
    def test_prometheus_scrapes_a_counter_a_client_moved(self):
        sport, pport = free_port(), free_port()
        g = self.gate(self.backend("echo"), mode="tcp",
                      stats="%s:%d" % (LOOPBACK, sport))
        conf = os.path.join(self.tmp, "prometheus.yml")
        with open(conf, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n"
                    "scrape_configs:\n  - job_name: tlsgate\n"
                    "    static_configs:\n"
                    "      - targets: ['%s:%d']\n" % (LOOPBACK, sport))
        data = os.path.join(self.tmp, "prometheus-data")
        log = open(os.path.join(self.tmp, "prometheus.log"), "wb")
        p = subprocess.Popen([PROMETHEUS, "--config.file=" + conf,
                              "--storage.tsdb.path=" + data,
                              "--web.listen-address=%s:%d" % (LOOPBACK,
                                                              pport)],
                             stdout=log, stderr=subprocess.STDOUT)

        def query(q):
            url = "http://%s:%d/api/v1/query?query=%s" % (LOOPBACK, pport, q)
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    res = json.load(r)["data"]["result"]
            except OSError:
                return None
            return float(res[0]["value"][1]) if res else None

        try:
            end = deadline(60)
            while query("tlsgate_connections_accepted_total") != 0:
                self.assertLess(time.monotonic(), end, "no scrape of 0")
                time.sleep(0.2)
            for i in range(2):
                s = tls_connect(g.port)
                self.assertEqual(echo_roundtrip(s, b"p"), b"p")
                close_tls(s)
            while query("tlsgate_connections_accepted_total") != 2:
                self.assertLess(time.monotonic(), end, "no scrape of 2")
                time.sleep(0.2)
            self.assertEqual(query("up"), 1)
        finally:
            p.terminate()
            p.wait(30)
            log.close()


if __name__ == "__main__":
    unittest.main()
