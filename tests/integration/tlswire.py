# SPDX-License-Identifier: ISC
"""TLS 1.2 bytes made by hand, over a raw socket, for the protocol tests.

Owns: building records, handshake messages and ClientHellos byte by
byte (so a test can get any field wrong on purpose), reading the
server's records back, taking its first flight apart, and telling how
the server ended the connection: an orderly FIN or a reset.  Python's
ssl module cannot send a malformed hello; this can.  Stdlib only.
"""
import os
import select
import socket
import struct
import time

from harness import LOOPBACK, deadline

# Record content types.
CCS, ALERT, HANDSHAKE, APPDATA = 20, 21, 22, 23

# Alert descriptions (RFC 5246 7.2, RFC 8446 6).
CLOSE_NOTIFY = 0
UNEXPECTED_MESSAGE = 10
BAD_RECORD_MAC = 20
RECORD_OVERFLOW = 22
HANDSHAKE_FAILURE = 40
ILLEGAL_PARAMETER = 47
DECODE_ERROR = 50
DECRYPT_ERROR = 51
PROTOCOL_VERSION = 70

# ECDHE with AEAD, EC and RSA keys: what tlsgate accepts.
SUITES = (0xc02b, 0xc02c, 0xcca9, 0xc02f, 0xc030, 0xcca8)
GROUPS = (29, 23, 24)                   # x25519, secp256r1, secp384r1
SIGALGS = (0x0403, 0x0503, 0x0603, 0x0804, 0x0805, 0x0806,
           0x0401, 0x0501, 0x0601)


def u16(n):
    return struct.pack(">H", n)


def vec8(b):
    return bytes([len(b)]) + b


def vec16(b):
    return u16(len(b)) + b


def record(ctype, body, version=b"\x03\x03"):
    return bytes([ctype]) + version + u16(len(body)) + body


def handshake(mtype, body):
    return bytes([mtype]) + struct.pack(">I", len(body))[1:] + body


def ext(etype, data):
    return u16(etype) + vec16(data)


def hello_extensions(sni=None, alpn=None, mfl=None, reneg=b""):
    """The extensions of an ordinary TLS 1.2 ECDHE hello; reneg None
    leaves renegotiation_info out, mfl is the max_fragment_length code
    (1-4: 512-4096 bytes)."""
    e = ext(10, vec16(b"".join(u16(g) for g in GROUPS)))
    e += ext(11, vec8(b"\x00"))
    e += ext(13, vec16(b"".join(u16(a) for a in SIGALGS)))
    if reneg is not None:
        e += ext(0xff01, vec8(reneg))
    if sni is not None:
        name = sni.encode()
        e += ext(0, vec16(b"\x00" + vec16(name)))
    if alpn is not None:
        e += ext(16, vec16(b"".join(vec8(p.encode()) for p in alpn)))
    if mfl is not None:
        e += ext(1, bytes([mfl]))
    return e


def client_hello(version=b"\x03\x03", suites=SUITES, compression=b"\x00",
                 session_id=b"", exts=None, **kw):
    """A ClientHello handshake message; exts replaces the extensions
    block (bytes, without its length), kw goes to hello_extensions()."""
    if exts is None:
        exts = hello_extensions(**kw)
    body = (version + os.urandom(32) + vec8(session_id) +
            vec16(b"".join(u16(s) for s in suites)) + vec8(compression) +
            vec16(exts))
    return handshake(1, body)


class Conn:
    """A raw TCP connection to tlsgate that reads whole records."""

    def __init__(self, port, timeout=5):
        self.sock = socket.create_connection((LOOPBACK, port),
                                             timeout=timeout)
        self.buf = b""
        self.reset = False
        self.eof = False

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self, end):
        """Read more; False at EOF or reset, TimeoutError at end."""
        if self.eof:
            return False
        left = end - time.monotonic()
        if left <= 0 or not select.select([self.sock], [], [], left)[0]:
            raise TimeoutError("the server sent nothing more")
        try:
            b = self.sock.recv(1 << 16)
        except ConnectionResetError:
            self.reset = self.eof = True
            return False
        if not b:
            self.eof = True
            return False
        self.buf += b
        return True

    def read_record(self, timeout=5):
        """(type, version, body) of the next record; None at EOF or
        reset (see .reset)."""
        end = deadline(timeout)
        while True:
            if len(self.buf) >= 5:
                n = struct.unpack(">H", self.buf[3:5])[0]
                if len(self.buf) >= 5 + n:
                    r = (self.buf[0], self.buf[1:3], self.buf[5:5 + n])
                    self.buf = self.buf[5 + n:]
                    return r
            if not self._fill(end):
                return None

    def first_flight(self, timeout=5):
        """The handshake messages up to ServerHelloDone, as a list of
        (type, body); stops early at an alert or the end."""
        msgs, data = [], b""
        while not msgs or msgs[-1][0] != 14:
            r = self.read_record(timeout)
            if r is None or r[0] != HANDSHAKE:
                break
            data += r[2]
            while len(data) >= 4:
                n = struct.unpack(">I", b"\x00" + data[1:4])[0]
                if len(data) < 4 + n:
                    break
                msgs.append((data[0], data[4:4 + n]))
                data = data[4 + n:]
        return msgs

    def ending(self, timeout=5):
        """Read to the end: (records seen, "fin" | "rst")."""
        recs = []
        while True:
            r = self.read_record(timeout)
            if r is None:
                return recs, "rst" if self.reset else "fin"
            recs.append(r)

    def close(self):
        self.sock.close()


def server_hello_extensions(body):
    """The (type, data) list of a ServerHello's extensions, in order."""
    p = 2 + 32
    p += 1 + body[p]            # session id
    p += 2 + 1                  # suite, compression
    out = []
    if p + 2 > len(body):
        return out
    end = p + 2 + struct.unpack(">H", body[p:p + 2])[0]
    p += 2
    while p < end:
        t, n = struct.unpack(">HH", body[p:p + 4])
        out.append((t, body[p + 4:p + 4 + n]))
        p += 4 + n
    return out


def plain_alert(rec):
    """(level, description) of a plaintext alert record, else None."""
    if rec is None or rec[0] != ALERT or len(rec[2]) != 2:
        return None
    return rec[2][0], rec[2][1]
