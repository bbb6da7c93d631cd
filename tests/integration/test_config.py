# SPDX-License-Identifier: ISC
"""Bad config files, one per kind of error: exit status 2, a message
naming file:line and the key (or the bad file), and nothing listening.
And `tlsgate -t`, which prints what it resolved and its footprint."""
import os
import re
import socket

from harness import (BIN, LOOPBACK, ROOT, WRAP, GateTest, certs, check,
                     free_port, is_listening, rsa_primes_mod4, run)


class BadConfig(GateTest):

    def start_bad(self, lines, pattern, cert="ec.crt", key="ec.key"):
        """Run tlsgate (to serve, not -t) on good lines then `lines`;
        assert it refuses with a fatal line starting with pattern after
        "tlsgate: fatal: " (FILE stands for the config's path)."""
        c = certs()
        port = free_port()
        good = ["# a comment, then good lines",
                "listen = %s:%d" % (LOOPBACK, port),
                "cert = %s" % c.path.get(cert, cert),
                "key = %s" % c.path.get(key, key),
                ""]
        path = self.conf_file(good + lines)
        g = self.gate_file(path)
        rc = g.wait_exit(10)
        log = g.log()
        self.assertEqual(rc, 2, log)
        last = log.splitlines()[-1] if log else ""
        self.assertTrue(last.startswith("tlsgate: fatal: " +
                                        pattern.replace("FILE", path)),
                        "%r does not start with %r" % (last, pattern))
        self.assertNotIn("listening", log)
        self.assertFalse(is_listening(port))
        return log

    def test_unknown_key(self):
        self.start_bad(["slotz = 4"], "FILE:6: slotz: unknown key")

    def test_bad_number(self):
        self.start_bad(["slots = abc"], "FILE:6: slots: expected a number")

    def test_number_above_compile_time_limit(self):
        log = self.start_bad(["slots = 100000"], "FILE:6: slots: ")
        self.assertIn("compile-time limit", log)

    def test_session_cache_above_compile_time_limit(self):
        log = self.start_bad(["session_cache = 999999"],
                             "FILE:6: session_cache: ")
        self.assertIn("compile-time limit", log)

    def test_duplicate_key(self):
        self.start_bad(["slots = 4", "slots = 5"],
                       "FILE:7: slots: already set at line 6")

    def test_missing_value(self):
        self.start_bad(["slots ="], "FILE:6: slots: missing value")

    def test_bad_address(self):
        self.start_bad(["backend = 127.0.0.1"], "FILE:6: backend: ")

    def test_bad_ip_in_address(self):
        self.start_bad(["backend = 300.0.0.1:80"], "FILE:6: backend: ")

    def test_missing_equals(self):
        self.start_bad(["slots 4"], "FILE:6: slots: expected")

    def test_bad_duration_unit(self):
        self.start_bad(["handshake_timeout = 5h"],
                       "FILE:6: handshake_timeout: ")

    def test_bad_tls_version(self):
        self.start_bad(["tls_min = 1.4"], "FILE:6: tls_min: ")

    def test_unknown_suite(self):
        log = self.start_bad(["suites = aes128-gcm rc4"],
                             'FILE:6: suites: unknown name "rc4", not one of ')
        self.assertIn("chacha20-poly1305", log)

    def test_unknown_group(self):
        self.start_bad(["groups = x448"], 'FILE:6: groups: unknown name "x448"')

    def test_empty_group_list(self):
        self.start_bad(["groups = , ,"], "FILE:6: groups: an empty list")

    def test_duplicate_suite(self):
        self.start_bad(["suites = aes256-gcm,aes128-gcm aes256-gcm"],
                       'FILE:6: suites: "aes256-gcm" named twice')

    def test_tls_min_1_0_is_refused_saying_why(self):
        self.start_bad(["tls_min = 1.0"], "FILE:6: tls_min: TLS 1.0 and 1.1 "
                       'are no longer supported (RFC 8996): "1.0"')

    def test_tls_min_1_1_is_refused_saying_why(self):
        self.start_bad(["slots = 4", "tls_min = 1.1"], "FILE:7: tls_min: "
                       "TLS 1.0 and 1.1 are no longer supported (RFC 8996): "
                       '"1.1"')

    def test_tls_max_1_1_is_refused_saying_why(self):
        self.start_bad(["tls_max = 1.1"], "FILE:6: tls_max: TLS 1.0 and 1.1 "
                       'are no longer supported (RFC 8996): "1.1"')

    def test_cbc_suite_is_refused_saying_why(self):
        self.start_bad(["suites = aes128-gcm aes256-cbc"],
                       'FILE:6: suites: "aes256-cbc": the CBC suites were '
                       "removed with TLS 1.0 and 1.1; the AEAD ones remain: "
                       "aes128-gcm aes256-gcm chacha20-poly1305: ")

    def test_unknown_ems_value(self):
        self.start_bad(["ems = bogus"],
                       'FILE:6: ems: expected optional or required: "bogus"')

    def test_bad_profile(self):
        self.start_bad(["tls_profile = strict"],
                       "FILE:6: tls_profile: expected default, bsi, modern or "
                       "cnsa2")

    def test_modern_profile_with_tls_max_12_is_refused(self):
        self.start_bad(["tls_profile = modern", "tls_max = 1.2"],
                       "FILE:7: [default]: tls_min: 1.3 is above tls_max")

    def test_missing_cert_names_the_line_and_the_fix(self):
        missing = os.path.join(self.tmp, "no-such.crt")
        self.start_bad([], "FILE:3: cert %s: no such file: make one with "
                       "tlsgate -g -c FILE, or set cert_generate = on" %
                       missing, cert=missing)

    def test_key_readable_by_others_is_refused(self):
        c = certs()
        loose = os.path.join(self.tmp, "loose.key")
        with open(c.path["ec.key"], "rb") as f, open(loose, "wb") as g:
            g.write(f.read())
        os.chmod(loose, 0o644)
        self.start_bad([], "key %s: mode 644: group or others may use it "
                       "(chmod 600)" % loose, key=loose)
        os.chmod(loose, 0o640)
        self.start_bad([], "key %s: mode 640: " % loose, key=loose)

    def test_key_of_another_user_is_refused(self):
        if os.geteuid() != 0:
            self.skipTest("giving a file away needs root")
        c = certs()
        theirs = os.path.join(self.tmp, "theirs.key")
        with open(c.path["ec.key"], "rb") as f, open(theirs, "wb") as g:
            g.write(f.read())
        os.chmod(theirs, 0o600)
        os.chown(theirs, 65534, 65534)
        self.start_bad([], "key %s: owned by uid 65534, neither root nor "
                       "this process's 0 nor the run user's" % theirs,
                       key=theirs)

    def test_durations_take_h_and_d_and_ranges_say_units(self):
        self.start_bad(["connect_timeout = 2h"], "FILE:6: connect_timeout: "
                       'must be between 100ms and 1h: "2h"')
        self.start_bad(["session_lifetime = 8d"], "FILE:6: session_lifetime: "
                       'must be between 1s and 7d: "8d"')
        self.start_bad(["idle_timeout = 5y"], "FILE:6: idle_timeout: "
                       "expected a number and a unit: ms, s, m, h or d")

    def test_cert_path_is_a_directory(self):
        self.start_bad([], "cert %s: " % self.tmp, cert=self.tmp)

    def test_unreadable_key_file(self):
        missing = os.path.join(self.tmp, "no-such.key")
        self.start_bad([], "key %s: " % missing, key=missing)

    def test_key_not_matching_cert(self):
        c = certs()
        log = self.start_bad([], "key %s: " % c.path["other.key"],
                             key="other.key")
        self.assertIn("does not match", log)

    def test_rsa_key_with_ec_cert(self):
        c = certs()
        log = self.start_bad([], "key %s: " % c.path["rsa.key"],
                             key="rsa.key")
        self.assertIn("type", log)

    def test_chain_of_more_than_8_certs(self):
        c = certs()
        log = self.start_bad([], "cert %s: " % c.path["nine.crt"],
                             cert="nine.crt")
        self.assertIn("too many", log)

    def test_chain_larger_than_compile_time_bound(self):
        c = certs()
        self.assertGreater(os.path.getsize(c.path["bigchain.crt"]), 16384)
        log = self.start_bad([], "cert %s: " % c.path["bigchain.crt"],
                             cert="bigchain.crt", key="big.key")
        self.assertIn("compile-time limit", log)

    def test_garbage_pem(self):
        c = certs()
        log = self.start_bad([], "cert %s: " % c.path["garbage.crt"],
                             cert="garbage.crt")
        self.assertIn("PEM", log)

    def test_rsa_1024_key_refused(self):
        c = certs()
        log = self.start_bad([], "key %s: " % c.path["rsa1024.key"],
                             cert="rsa1024.crt", key="rsa1024.key")
        self.assertIn("2048", log)


class GoodConfig(GateTest):

    def test_eight_cert_chain_is_accepted(self):
        # The other side of the count bound.
        c = certs()
        path = self.conf_file(["cert = " + c.path["eight.crt"],
                               "key = " + c.path["ec.key"]])
        rc, out, err = check(path)
        self.assertEqual(rc, 0, err)

    def test_any_rsa_2048_key_matching_its_cert_loads(self):
        # br_rsa_compute_pubexp() returns 0 for an RSA key unless both
        # primes are 3 mod 4; a key check built on it refused about 3 of
        # 4 good keys as "does not match".  Take a key it would refuse.
        c = certs()
        for i in range(20):
            name = "rsa-any%d" % i
            c.req(name, ["-newkey", "rsa:2048"])
            if rsa_primes_mod4(c.path[name + ".key"]) != (3, 3):
                break
        path = self.conf_file(["cert = " + c.path[name + ".crt"],
                               "key = " + c.path[name + ".key"]])
        rc, out, err = check(path)
        self.assertEqual(rc, 0, "primes mod 4 = %s: %s" % (
            rsa_primes_mod4(c.path[name + ".key"]), err))

    def test_check_mode_prints_values_and_footprint_without_listening(self):
        c = certs()
        port = free_port()
        path = self.conf_file([
            "listen = %s:%d" % (LOOPBACK, port), "backend = 127.0.0.1:9",
            "cert = " + c.path["ec.crt"], "key = " + c.path["ec.key"],
            "slots = 7", "session_cache = 3", "handshake_timeout = 1500ms",
            "idle_timeout = 2m", "tls_min = 1.3", "session_lifetime = 1h",
            "drain_timeout = 90", "ticket_key_rotate = 30m"])
        # Hold the port: a -t that tried to listen would fail here.
        with socket.socket() as s:
            s.bind((LOOPBACK, port))
            s.listen(1)
            rc, out, err = check(path)
        self.assertEqual(rc, 0, err)
        self.assertNotIn("ready", err)
        lines = out.splitlines()
        for want in ("listen = %s:%d" % (LOOPBACK, port),
                     "backend = 127.0.0.1:9", "slots = 7",
                     "session_cache = 3", "handshake_timeout = 1500ms",
                     "idle_timeout = 2m", "tls_min = 1.3",
                     "connect_timeout = 5s", "session_lifetime = 1h",
                     "drain_timeout = 90s", "ticket_key_rotate = 30m",
                     "stats = none", "redirect = none", "seccomp = auto"):
            self.assertIn(want, lines)
        vals = {}
        for line in lines:
            m = re.match(r"^(slot|slots|pending|session_cache|other static|"
                         r"total) = "
                         r"(?:(\d+) x (\d+) = )?(\d+)", line)
            if m:
                vals[m.group(1)] = m.groups()[1:]
        self.assertIn("slot", vals, out)
        self.assertIn("total", vals, out)
        slot = int(vals["slot"][2])
        self.assertEqual(vals["slots"], ("7", str(slot), str(7 * slot)))
        # cache.h's entry: id, secret, version, suite, flags, age, rank.
        self.assertEqual(vals["session_cache"][:2], ("3", "92"))
        # A client not yet in a slot: some tens of bytes (pend.h), its
        # connection head (conn.h) and its two list cells included.
        self.assertEqual(vals["pending"][0], "2048")
        self.assertLessEqual(int(vals["pending"][1]), 128)
        total = int(vals["total"][2])
        self.assertEqual(total, 7 * slot + 3 * 92 + int(vals["pending"][2]) +
                         int(vals["other static"][2]))
        # A slot holds at least the engine's two record buffers.
        self.assertGreater(slot, 16384 + 512)

    def test_check_mode_reports_a_bad_value(self):
        path = self.conf_file(["slots = 0"])
        rc, out, err = check(path)
        self.assertEqual(rc, 2)
        self.assertIn("%s:1: slots: must be between 1 and" % path, err)


class FirmwareDefaults(GateTest):
    """A firmware's defaults.h spells its defaults as the config file does
    and goes through the same parser: a bad value there stops start-up
    with the message a bad file line gets.  Builds a variant of tlsgate
    on a copy of conf/defaults.h (native, system BearSSL: nothing else
    is compiled)."""

    def build_with(self, old, new):
        if os.environ.get("TLSGATE_WRAP") or os.environ.get("TLSGATE_ASAN"):
            self.skipTest("a native build of its own; the default run has it")
        conf = os.path.join(self.tmp, "conf")
        os.mkdir(conf)
        with open(os.path.join(ROOT, "conf", "defaults.h")) as f:
            text = f.read()
        self.assertIn(old, text)
        with open(os.path.join(conf, "defaults.h"), "w") as f:
            f.write(text.replace(old, new))
        b = os.path.join(self.tmp, "b")
        rc, out, err = run(["make", "-s", "-C", ROOT, "-j2", "B=" + b,
                            "CONF=" + conf, "BEARSSL=system", "CFLAGS=-O0",
                            b + "/tlsgate"], 300)
        self.assertEqual(rc, 0, (out + err).decode())
        return b + "/tlsgate"

    def test_bad_default_stops_start_up_naming_defaults_h_and_key(self):
        bin_ = self.build_with('"mode = http\\n"', '"mode = htp\\n"')
        rc, out, err = run([bin_, "-t"], 10)
        self.assertEqual(rc, 2, err)
        self.assertRegex(err.decode(), r'^tlsgate: fatal: defaults\.h:\d+: mode: '
                         r'expected tcp or http: "htp"$')

    def test_default_left_out_stops_start_up(self):
        # Left out, slots would be 0, which no range check would see.
        bin_ = self.build_with('"slots = 256\\n" \\\n', "")
        rc, out, err = run([bin_, "-t"], 10)
        self.assertEqual(rc, 2, err)
        self.assertEqual(err.decode().strip(), "tlsgate: fatal: defaults.h: "
                         "slots: missing from TLSGATE_CONFIG")

    def test_tls_min_1_0_default_stops_start_up_saying_why(self):
        bin_ = self.build_with('"tls_min = 1.2\\n"', '"tls_min = 1.0\\n"')
        rc, out, err = run([bin_, "-t"], 10)
        self.assertEqual(rc, 2, err)
        self.assertRegex(err.decode(), r'^tlsgate: fatal: defaults\.h:\d+: '
                         r'tls_min: TLS 1\.0 and 1\.1 are no longer supported '
                         r'\(RFC 8996\): "1\.0"$')

    def test_good_default_is_what_tlsgate_resolves(self):
        bin_ = self.build_with('"idle_timeout = 5m\\n"',
                               '"idle_timeout = 90s\\n"')
        c = certs()
        path = self.conf_file(["cert = " + c.path["ec.crt"],
                               "key = " + c.path["ec.key"]])
        rc, out, err = run([bin_, "-t", "-c", path], 10)
        self.assertEqual(rc, 0, err)
        self.assertIn("idle_timeout = 90s\n", out.decode())


class ExampleConfig(GateTest):
    """conf/tlsgate.conf, installed as the example, names every key -t
    prints and passes -t on a fresh install: no key or certificate yet,
    cert_generate names the pair that the first start makes, and -t
    writes nothing."""

    EXAMPLE = os.path.join(ROOT, "conf", "tlsgate.conf")

    def installed(self):
        """The example as conf/install.mk installs it: cert and key
        beside it (here in the scratch directory)."""
        with open(self.EXAMPLE) as f:
            text = f.read()
        for name in ("cert = tlsgate.crt", "key = tlsgate.key"):
            self.assertIn("\n%s\n" % name, text)
            k, _, file = name.partition(" = ")
            text = text.replace("\n%s\n" % name, "\n%s = %s\n" % (
                k, os.path.join(self.tmp, file)))
        return self.conf_file(text.splitlines(), "tlsgate.conf")

    def test_every_key_t_prints_is_in_the_example(self):
        rc, out, err = check(self.installed())
        self.assertEqual(rc, 0, err)
        printed = set(re.findall(r"^([a-z0-9_]+) =", out.split(
            "# footprint")[0], re.M))
        self.assertIn("pending", printed)
        with open(self.EXAMPLE) as f:
            example = set(re.findall(r"^#?([a-z0-9_]+) =", f.read(), re.M))
        self.assertEqual(sorted(printed - example), [])

    def test_fresh_install_passes_t_which_writes_nothing(self):
        path = self.installed()
        rc, out, err = check(path)
        self.assertEqual((rc, err), (0, ""))
        crt = os.path.join(self.tmp, "tlsgate.crt")
        self.assertIn("# cert svc=default path=%s: missing: start-up makes "
                      "it (cert_generate = on)" % crt, out.splitlines())
        # It prints the config as it is, the pair to be made with it.
        self.assertIn("cert = %s" % crt, out.splitlines())
        self.assertEqual(sorted(os.listdir(self.tmp)), ["tlsgate.conf"])
        # What start-up makes, -t then loads.
        rc, _, err = run(WRAP + [BIN, "-g", "-c", path], 60)
        self.assertEqual(rc, 0, err)
        rc, out, err = check(path)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"(?m)^cert svc=default path=%s sha256=" %
                         re.escape(crt))
