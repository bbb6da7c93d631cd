# SPDX-License-Identifier: ISC
"""The slot table bound: excess clients wait in the pending table, not
in a slot; a client that never speaks is closed at the handshake
timeout."""
import socket
import time

from harness import (LOOPBACK, SLOW, BioClient, GateTest, close_tls,
                     deadline, echo_roundtrip, tls_connect)


class Slots(GateTest):
    MODE = "tcp"


    def test_fifth_client_waits_until_a_slot_frees(self):
        g = self.gate(self.backend("echo"), slots=4)
        held = []
        try:
            for i in range(4):
                s = tls_connect(g.port)
                msg = b"client %d" % i
                self.assertEqual(echo_roundtrip(s, msg), msg)
                held.append(s)
            fifth = BioClient(g.port)  # the kernel accepts the TCP
            try:
                fifth.send_hello()
                self.assertFalse(fifth.readable(1.0),
                                 "a fifth client got an answer with 4 "
                                 "slots held")
                close_tls(held.pop(0))
                fifth.handshake(5)
                fifth.send(b"fifth")
                self.assertEqual(fifth.recv_exact(5), b"fifth")
            finally:
                fifth.close()
        finally:
            for s in held:
                s.close()
        conns = g.wait_conns(5)
        self.assertTrue(all(c["outcome"] == "ok" for c in conns), conns)

    def test_silent_client_dropped_at_handshake_timeout(self):
        g = self.gate(self.backend("echo"), slots=1, handshake_timeout="1s")
        t0 = time.monotonic()
        silent = socket.create_connection((LOOPBACK, g.port), timeout=5 *
                                          SLOW)
        try:
            try:
                data = silent.recv(100)
            except ConnectionResetError:
                data = b""
            waited = time.monotonic() - t0
        finally:
            silent.close()
        self.assertEqual(data, b"")
        self.assertGreater(waited, 0.8)
        self.assertLess(waited, 3.0 * SLOW)
        conns = g.wait_conns(1)
        self.assertEqual(conns[0]["outcome"], "handshake-timeout")
        # The only slot is free again.
        s = tls_connect(g.port)
        try:
            self.assertEqual(echo_roundtrip(s, b"served"), b"served")
        finally:
            close_tls(s)
        self.assertLess(time.monotonic(), deadline(30))

    def test_trickling_client_does_not_extend_handshake_deadline(self):
        # The deadline is absolute: a byte every 300 ms must not keep a
        # handshake alive past handshake_timeout.
        g = self.gate(self.backend("echo"), handshake_timeout="1s")
        hello = b"\x16\x03\x01\x02\x00" + b"\x01\x00\x01\xfc\x03\x03" + \
            b"\x00" * 64
        t0 = time.monotonic()
        s = socket.create_connection((LOOPBACK, g.port), timeout=5 * SLOW)
        closed_at = None
        try:
            for b in hello:
                try:
                    s.sendall(bytes([b]))
                except OSError:
                    closed_at = time.monotonic() - t0
                    break
                time.sleep(0.3)
                if time.monotonic() - t0 > 4 * SLOW:
                    break
        finally:
            s.close()
        conns = g.wait_conns(1, timeout=5)
        self.assertEqual(conns[0]["outcome"], "handshake-timeout", conns)
        self.assertLess(int(conns[0]["ms"]), 2000 * SLOW)
        self.assertIsNotNone(closed_at)
