# SPDX-License-Identifier: ISC
"""hs13cert_seeds.py - writes the seed corpus of fuzz_hs13cert.c into
tests/fuzz/hs13cert/: a client's Certificate, CertificateVerify and
Finished as the engine reads them, signed with the fixed key the fuzz
target trusts (scalar 01 02 .. 20 on P-256) and finished with the
all-zero handshake secret it starts with.

Needs Python's `cryptography`; only to remake the seeds.
Run from the repository root: python3 tests/fuzz/hs13cert_seeds.py
"""
import datetime
import hashlib
import hmac
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hs13cert")
KEY = ec.derive_private_key(int.from_bytes(bytes(range(1, 33)), "big"),
                            ec.SECP256R1())


def u(n, width):
    return n.to_bytes(width, "big")


def msg(kind, body):
    return bytes([kind]) + u(len(body), 3) + body


def cert_der(cn, key=KEY, days=36500):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    now = datetime.datetime(2026, 1, 1)
    return (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(7)
            .not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=days))
            .sign(key, hashes.SHA256())
            .public_bytes(serialization.Encoding.DER))


def certificate(ders, ext=b""):
    entries = b"".join(u(len(d), 3) + d + u(len(ext), 2) + ext
                       for d in ders)
    return msg(11, b"\0" + u(len(entries), 3) + entries)


def finished(transcript):
    label = b"tls13 finished"
    info = u(32, 2) + bytes([len(label)]) + label + b"\0"
    key = hmac.new(bytes(32), info + b"\1", hashlib.sha256).digest()
    th = hashlib.sha256(transcript).digest()
    return msg(20, hmac.new(key, th, hashlib.sha256).digest())


def flight(cert_msg, scheme=0x0403):
    th = hashlib.sha256(cert_msg).digest()
    content = b" " * 64 + b"TLS 1.3, client CertificateVerify\0" + th
    sig = KEY.sign(content, ec.ECDSA(hashes.SHA256()))
    cv = msg(15, u(scheme, 2) + u(len(sig), 2) + sig)
    return cert_msg + cv + finished(cert_msg + cv)


def main():
    os.makedirs(OUT, exist_ok=True)
    leaf = cert_der("fuzz client")
    other = cert_der("another", ec.generate_private_key(ec.SECP256R1()))
    seeds = {
        # byte 0: bit 0 = known key, the rest = piece size - 1
        "x509-whole": bytes([0xfe]) + flight(certificate([leaf])),
        "x509-bytewise": bytes([0x00]) + flight(certificate([leaf])),
        "x509-chain": bytes([0x20]) + flight(certificate([leaf, other])),
        "x509-entry-ext": bytes([0x10]) + flight(
            certificate([leaf], ext=u(5, 2) + u(2, 2) + b"\1\0")),
        "knownkey-odd-pieces": bytes([0x0d]) + flight(certificate([leaf])),
        "empty-certificate": bytes([0x40]) + certificate([]),
        "untrusted": bytes([0x40]) + flight(certificate([other])),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
