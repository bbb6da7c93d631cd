"""A key and certificate of the device's own (`tlsgate -g`, `cert_generate
= on`), read by other people's tools: openssl shows and verifies what
tlsgate wrote, curl trusts it by name, and a certificate tlsgate did not
make is never touched."""
import datetime
import hashlib
import os
import re
import shutil
import signal
import socket
import ssl
import stat
import time

from harness import (BIN, LOOPBACK, WRAP, Gate, GateTest, certs, check, run,
                     recv_to_eof, tls_connect, write_conf)

NAME = "gate.test"


def openssl(*args, stdin=None):
    rc, out, err = run(["openssl"] + list(args), 60, stdin=stdin)
    if rc != 0:
        raise AssertionError("openssl %s: %s" % (args[0], err.decode()))
    return out


def fingerprint(path):
    out = openssl("x509", "-in", path, "-noout", "-fingerprint", "-sha256")
    return out.decode().strip().split("=", 1)[1]


def read(path):
    with open(path, "rb") as f:
        return f.read()


class CertGen(GateTest):

    def paths(self):
        return (os.path.join(self.tmp, "own.crt"),
                os.path.join(self.tmp, "own.key"))

    def conf(self, names=None, extra=()):
        crt, key = self.paths()
        lines = ["listen = %s:9" % LOOPBACK, "cert = " + crt, "key = " + key]
        if names is not None:
            lines.append("cert_names = " + names)
        return self.conf_file(lines + list(extra))

    def gen(self, conf_path, want_rc=0):
        rc, out, err = run(WRAP + [BIN, "-g", "-c", conf_path], 120)
        self.assertEqual(rc, want_rc, err.decode())
        return out.decode(), err.decode()

    def serve(self, names=None, backend=None, **conf):
        crt, key = self.paths()
        full = {"cert": crt, "key": key, "cert_generate": "on",
                **self.tls_conf()}
        if names is not None:
            full["cert_names"] = names
        if backend is not None:
            full["backend"] = backend.addr
        full.update(conf)
        g = Gate(self.tmp, full)
        self.gates.append(g)
        return g

    def text(self):
        return openssl("x509", "-in", self.paths()[0], "-text",
                       "-noout").decode()

    # --- tlsgate -g -------------------------------------------------

    def test_g_writes_key_0600_and_cert_one_line_each(self):
        crt, key = self.paths()
        out, _ = self.gen(self.conf(NAME))
        self.assertEqual(out.splitlines(), ["wrote %s reason=missing" % crt,
                                            "wrote %s reason=missing" % key])
        self.assertEqual(stat.S_IMODE(os.stat(key).st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(os.stat(crt).st_mode), 0o644)
        self.assertTrue(read(key).startswith(
            b"-----BEGIN EC PRIVATE KEY-----\n"))
        self.assertTrue(read(crt).startswith(b"-----BEGIN CERTIFICATE-----\n"))
        self.assertEqual(os.listdir(self.tmp).count("own.crt.tmp"), 0)
        # openssl reads the key; tlsgate loads the pair.
        openssl("ec", "-in", key, "-check", "-noout")
        rc, _, err = check(self.conf(NAME))
        self.assertEqual(rc, 0, err)

    def test_g_twice_writes_nothing_the_second_time(self):
        path = self.conf(NAME)
        self.gen(path)
        before = read(self.paths()[0])
        out, _ = self.gen(path)
        self.assertEqual(out, "")
        self.assertEqual(read(self.paths()[0]), before)

    def test_openssl_shows_names_and_every_extension(self):
        self.gen(self.conf(NAME + ", 127.0.0.1 ::1"))
        t = self.text()
        self.assertRegex(t, r"Subject: O = tlsgate, OU = made on this device "
                         r"by tlsgate, CN = gate\.test\n")
        self.assertRegex(t, r"Issuer: O = tlsgate, OU = made on this device "
                         r"by tlsgate, CN = gate\.test\n")
        self.assertIn("Signature Algorithm: ecdsa-with-SHA256", t)
        self.assertIn("NIST CURVE: P-256", t)
        self.assertRegex(t, r"X509v3 Subject Alternative Name: *\n *DNS:"
                         r"gate\.test, IP Address:127\.0\.0\.1, IP Address:"
                         r"0:0:0:0:0:0:0:1\n")
        self.assertRegex(t, r"X509v3 Basic Constraints: critical\n *CA:FALSE")
        self.assertRegex(t, r"X509v3 Key Usage: critical\n *Digital "
                         r"Signature\n")
        self.assertRegex(t, r"X509v3 Extended Key Usage: *\n *TLS Web Server "
                         r"Authentication\n")
        ski = re.search(r"Subject Key Identifier: *\n *([0-9A-F:]+)\n", t)
        aki = re.search(r"Authority Key Identifier: *\n *(?:keyid:)?"
                        r"([0-9A-F:]+)\n", t)
        self.assertTrue(ski and aki, t)
        self.assertEqual(ski.group(1), aki.group(1))
        # RFC 5280 4.2.1.2 (1): SHA-1 of the subjectPublicKey BIT STRING.
        pub = openssl("x509", "-in", self.paths()[0], "-pubkey", "-noout")
        spki = openssl("pkey", "-pubin", "-outform", "DER", stdin=pub)
        want = hashlib.sha1(spki[-65:]).hexdigest().upper()
        self.assertEqual(ski.group(1).replace(":", ""), want)

    def test_serial_positive_128_bits_and_397_days(self):
        self.gen(self.conf(NAME))
        crt = self.paths()[0]
        serial = openssl("x509", "-in", crt, "-noout", "-serial").decode()
        serial = serial.strip().split("=", 1)[1]
        # 16 random bytes; openssl drops the leading zero byte it may need.
        self.assertLessEqual(len(serial), 32)
        self.assertGreater(int(serial, 16), 0)
        end = openssl("x509", "-in", crt, "-noout", "-enddate").decode()
        end = datetime.datetime.strptime(end.strip().split("=", 1)[1],
                                         "%b %d %H:%M:%S %Y %Z")
        end = end.replace(tzinfo=datetime.timezone.utc).timestamp()
        self.assertLess(abs(end - (time.time() + 397 * 86400)), 300)

    def test_openssl_verifies_it_strictly_as_a_tls_server_certificate(self):
        self.gen(self.conf(NAME))
        crt = self.paths()[0]
        rc, out, err = run(["openssl", "verify", "-x509_strict", "-purpose",
                            "sslserver", "-CAfile", crt, crt], 30)
        self.assertEqual(rc, 0, (out + err).decode())
        self.assertEqual(out.decode().strip(), crt + ": OK")

    def test_curl_trusts_it_by_name(self):
        self.gen(self.conf(NAME))
        crt = self.paths()[0]
        g = self.serve(NAME, self.backend("http"))
        url = "https://%s:%d/bytes/10" % (NAME, g.port)
        resolve = "%s:%d:%s" % (NAME, g.port, LOOPBACK)
        rc, out, err = run(["curl", "-s", "--max-time", "20", "-o",
                            os.devnull, "-w", "%{http_code}", "--cacert",
                            crt, "--resolve", resolve, url], 30)
        self.assertEqual((rc, out), (0, b"200"), err)
        # The same request under another name is refused by curl.
        rc, _, _ = run(["curl", "-s", "--max-time", "20", "-o", os.devnull,
                        "--cacert", crt, "--resolve", "other.test:%d:%s" % (
                            g.port, LOOPBACK),
                        "https://other.test:%d/" % g.port], 30)
        self.assertNotEqual(rc, 0)

    def test_io_failure_exits_111_naming_the_path(self):
        crt = os.path.join(self.tmp, "no-such-dir", "own.crt")
        path = self.conf_file(["cert = " + crt, "key = " + crt + ".key"])
        _, err = self.gen(path, want_rc=111)
        self.assertIn("tlsgate: fatal: [default] certgen: %s: " % crt, err)

    def test_key_without_its_cert_is_left_alone(self):
        crt, key = self.paths()
        with open(key, "w") as f:
            f.write("someone's key\n")
        out, _ = self.gen(self.conf(NAME))
        self.assertEqual(out, "")
        self.assertFalse(os.path.exists(crt))
        self.assertEqual(read(key), b"someone's key\n")

    def test_own_cert_whose_key_is_gone_is_remade(self):
        # A crash between the two renames leaves this (the cert goes first).
        path = self.conf(NAME)
        self.gen(path)
        before = read(self.paths()[0])
        os.unlink(self.paths()[1])
        out, _ = self.gen(path)
        self.assertIn("reason=key-missing", out)
        self.assertNotEqual(read(self.paths()[0]), before)
        rc, _, err = check(path)
        self.assertEqual(rc, 0, err)

    # --- cert_generate = on at start-up ------------------------------

    def test_cert_generate_on_makes_and_serves_it(self):
        crt, key = self.paths()
        g = self.serve(NAME)
        g.wait_log(r"^tlsgate: info: certgen svc=default wrote=%s "
                   r"reason=missing$" % re.escape(key))
        s = tls_connect(g.port)
        try:
            served = s.getpeercert(binary_form=True)
        finally:
            s.close()
        self.assertEqual(served, ssl.PEM_cert_to_DER_cert(
            read(crt).decode()))
        self.assertEqual(stat.S_IMODE(os.stat(key).st_mode), 0o600)

    def test_restart_with_same_names_keeps_it(self):
        g = self.serve(NAME)
        before = read(self.paths()[0])
        self.assertEqual(g.stop(), 0)
        g = self.serve(NAME)
        self.assertEqual(read(self.paths()[0]), before)
        self.assertNotIn("certgen", g.log())

    def test_own_cert_remade_when_cert_names_change(self):
        g = self.serve(NAME)
        before = read(self.paths()[0])
        self.assertEqual(g.stop(), 0)
        g = self.serve("renamed.test 127.0.0.1")
        g.wait_log(r"^tlsgate: info: certgen svc=default wrote=.* "
                   r"reason=names-changed$", count=2)
        self.assertNotEqual(read(self.paths()[0]), before)
        self.assertIn("DNS:renamed.test, IP Address:127.0.0.1", self.text())

    def test_foreign_cert_untouched_though_expiring_and_other_names(self):
        # The suite's certificate: openssl's, 30 days (so within the
        # renewal window), for localhost: nothing of it is tlsgate's.
        c = certs()
        crt, key = self.paths()
        shutil.copy(c.path["ec.crt"], crt)
        shutil.copy(c.path["ec.key"], key)
        before = (read(crt), read(key))
        out, _ = self.gen(self.conf("elsewhere.test"))
        self.assertEqual(out, "")
        g = self.serve("elsewhere.test")
        self.assertNotIn("certgen", g.log())
        self.assertEqual((read(crt), read(key)), before)

    # --- what tlsgate says about its certificates ---------------------

    def test_t_prints_fingerprint_openssl_prints_and_days_left(self):
        path = self.conf(NAME)
        self.gen(path)
        crt = self.paths()[0]
        rc, out, err = check(path)
        self.assertEqual(rc, 0, err)
        m = re.search(r"^cert svc=default path=(\S+) sha256=(\S+) "
                      r"days_left=(\d+)$", out, re.M)
        self.assertTrue(m, out)
        self.assertEqual(m.group(1), crt)
        self.assertEqual(m.group(2), fingerprint(crt))
        self.assertIn(int(m.group(3)), (396, 397))
        self.assertIn("cert_names = gate.test\n", out)

    def test_start_up_logs_each_fingerprint_and_stats_the_soonest(self):
        c = certs()
        stats = "unix:" + os.path.join(self.tmp, "stats.sock")
        g = self.gate(stats=stats)
        m = g.wait_log(r"^tlsgate: info: cert svc=default path=(\S+) "
                       r"sha256=(\S+) days_left=(\d+)$")[0]
        self.assertEqual(m.group(2), fingerprint(c.path["ec.crt"]))
        self.assertIn(int(m.group(3)), (29, 30))
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(stats[5:])
        data = recv_to_eof(s)
        s.close()
        self.assertRegex(data.decode(), r"(?m)^cert_days (29|30)$")

    def test_reload_logs_the_new_certificate(self):
        c = certs()
        g = self.gate(backend="127.0.0.1:9")
        g.wait_log(r"^tlsgate: info: cert svc=default .*sha256=%s " %
                   fingerprint(c.path["ec.crt"]))
        write_conf(g.conf_path, {"listen": "%s:%d" % (LOOPBACK, g.port),
                                 "backend": "127.0.0.1:9",
                                 "cert": c.path["rsa.crt"],
                                 "key": c.path["rsa.key"],
                                 **self.tls_conf()})
        g.signal(signal.SIGHUP)
        g.wait_log(r"^tlsgate: info: cert svc=default path=%s sha256=%s "
                   r"days_left=(29|30)$" % (re.escape(c.path["rsa.crt"]),
                                            fingerprint(c.path["rsa.crt"])))

    def test_bad_cert_names_names_file_line_and_key(self):
        path = self.conf_file(["# names", "cert_names = ok.test bad_name"])
        rc, _, err = check(path)
        self.assertEqual(rc, 2)
        self.assertEqual(err.strip(), 'tlsgate: fatal: %s:2: cert_names: '
                         '"bad_name" is neither a host name nor an IP '
                         'address: "ok.test bad_name"' % path)

    def test_one_file_made_for_two_services_with_other_names_refused(self):
        # Else each start would remake it for one, then for the other.
        crt, key = self.paths()
        path = self.conf_file(["cert = " + crt, "key = " + key,
                               "[a]", "listen = 127.0.0.1:9",
                               "cert_names = a.test", "[b]",
                               "listen = 127.0.0.1:10", "cert_names = b.test"])
        _, err = self.gen(path, want_rc=2)
        self.assertEqual(err.strip(), "tlsgate: fatal: [b] cert %s: also [a]'s,"
                         " for other names: give each its own file, or both "
                         "the same cert_names" % crt)
        self.assertFalse(os.path.exists(key))
        # The same names: one certificate serves both.
        path = self.conf_file(["cert = " + crt, "key = " + key,
                               "cert_names = ab.test", "[a]",
                               "listen = 127.0.0.1:9", "[b]",
                               "listen = 127.0.0.1:10"], name="same.conf")
        out, _ = self.gen(path)
        self.assertEqual(len(out.splitlines()), 2)

    def test_more_than_eight_names_refused(self):
        path = self.conf_file(["cert_names = " + ",".join(
            "n%d.test" % i for i in range(9))])
        rc, _, err = check(path)
        self.assertEqual(rc, 2)
        self.assertIn("%s:1: cert_names: more than 8 names" % path, err)
