# SPDX-License-Identifier: ISC
"""hs12_seeds.py - writes the seed corpus of fuzz_hs12.c into tests/fuzz/hs12/.

Each seed is an input in the language of fuzz_hs12.c (see the comment at
its top and op()): four configuration bytes, then either the client's
records as they come (well-formed framing around bytes no server can
accept: the fuzz target plays nothing) or, with the play bit, operations
on the connection once the target has played the client's handshake
itself (the client Finished it needs is computed there, so none is here).

Standard library only.  Run from the repository root:
    python3 tests/fuzz/hs12_seeds.py
With --cert it prints instead the server certificate fuzz_hs12.c embeds
(needs Python's cryptography package).
"""
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hs12")

# byte 1's piece sizes, by index: 1, 2, 3, 7, 64, 300, 5000, whole
STEP_1, STEP_3, STEP_64, STEP_ALL = 0, 2, 4, 7
X25519, P256, P384, P521 = 0, 1, 2, 3
AES128, AES256, CHACHA = 0, 1, 2


def config(cert=0, store=0, suite=AES128, ems=0, play=0, resume=0, flip=0,
           group=X25519, sess_ems=0, step=STEP_ALL, small=0, flip_at=0,
           mfl=0):
    return bytes([cert | store << 1 | suite << 2 | ems << 4 | play << 5 |
                  resume << 6 | flip << 7,
                  group | sess_ems << 2 | step << 3 | small << 6 | mfl << 7,
                  flip_at >> 8, flip_at & 0xff])


def record(ctype, body, version=b"\x03\x03"):
    return bytes([ctype]) + version + len(body).to_bytes(2, "big") + body


def msg(kind, body):
    return bytes([kind]) + len(body).to_bytes(3, "big") + body


def cke(n=32):
    return msg(16, bytes([n]) + bytes(range(1, n + 1)))


CCS = record(20, b"\x01")
# A Finished record as it would come sealed (AES-GCM: explicit nonce,
# 16 bytes of Finished, tag): the right length, the wrong bytes.
FIN_SEALED = record(22, bytes(8) + bytes(range(16)) + bytes(16))


# Operations after a played handshake (see op() in fuzz_hs12.c).
def app(data):          # 0: application data, sealed
    return bytes([0, len(data) - 1]) + data


def raw(data):          # 1: raw bytes
    return bytes([1, len(data) - 1]) + data


def sealed(ctype, data):  # 2: a sealed record of any type
    return bytes([2, len(data)]) + bytes([ctype]) + data


CLOSE_NOTIFY = bytes([3])
SERVER_CLOSE = bytes([4])
RENEGOTIATE = bytes([5])


def server_app(data):   # 6: the server sends application data
    return bytes([6, len(data) - 1]) + data


def flipped(data, at=0):  # 7: a sealed record, one bit flipped
    return bytes([7 | at << 3, len(data) - 1]) + data


GET = b"GET / HTTP/1.1\r\nHost: tlsgate.test\r\n\r\n"
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

SEEDS = {
    # Not played: records a client might send, none of which can finish.
    "raw-cke-ccs-finished": config() + record(22, cke()) + CCS + FIN_SEALED,
    "raw-bytewise": config(step=STEP_1) + record(22, cke()) + CCS,
    "raw-p256-cke": config(group=P256, step=STEP_3) +
    record(22, cke(65)) + CCS + FIN_SEALED,
    "raw-cke-split": config(step=STEP_64) + record(22, cke()[:10]) +
    record(22, cke()[10:]) + CCS,
    "raw-certificate-first": config(cert=1) +
    record(22, msg(11, bytes([0, 0, 8, 0, 0, 5, 0x30, 3, 2, 1, 1]))) +
    record(22, cke()) + record(22, msg(15, b"\x04\x03\x00\x02\x30\x00")),
    "raw-empty-certificate": config(cert=1, small=1) +
    record(22, msg(11, bytes(3))),
    "raw-alert-warning": config() + record(21, b"\x01\x00") +
    record(22, cke()),
    "raw-alert-fatal": config() + record(21, b"\x02\x28"),
    "raw-ccs-early": config() + CCS,
    "raw-app-data-early": config() + record(23, b"hello"),
    "raw-overflow": config() + b"\x16\x03\x03\x40\x01",
    "raw-version": config() + record(22, cke(), b"\x03\x01"),
    "raw-hello-again": config() + record(22, msg(1, bytes(40))),
    "raw-resumed-ccs-finished": config(store=1, resume=1) + CCS +
    FIN_SEALED,
    "raw-ems-refused": config(store=1, resume=1, sess_ems=1),
    # Played: each suite and group, client certificates, resumption.
    "play-x25519-aes128": config(play=1) + app(GET) + server_app(OK),
    "play-p256-aes256-ems": config(play=1, suite=AES256, group=P256, ems=1) +
    app(GET),
    "play-p384-chacha-cert": config(play=1, suite=CHACHA, group=P384,
                                    cert=1) + app(GET),
    "play-p521-cert-small": config(play=1, group=P521, cert=1, small=1,
                                   step=STEP_3) + server_app(OK * 3),
    "play-store-saves": config(play=1, store=1, ems=1) + app(b"x"),
    "play-resumed": config(play=1, store=1, resume=1) + app(GET),
    "play-resumed-ems": config(play=1, store=1, resume=1, ems=1,
                               sess_ems=1, suite=AES256) + app(GET),
    "play-full-not-resumed": config(play=1, store=1, resume=1, ems=1),
    "play-bytewise": config(play=1, step=STEP_1, cert=1) + app(b"hi"),
    "play-max-fragment-512": config(play=1, mfl=1, cert=1) +
    server_app(OK * 5) + server_app(OK * 5) + app(GET * 5),
    "raw-max-fragment-512": config(mfl=1, step=STEP_64) +
    record(22, cke()) + CCS,
    "play-flip-finished": config(play=1, flip=1, flip_at=0x1ff),
    "play-flip-cke": config(play=1, flip=1, flip_at=50),
    "play-flip-cv": config(play=1, cert=1, flip=1, flip_at=300),
    # Played, then the established connection.
    "play-renegotiation": config(play=1) + RENEGOTIATE + app(GET),
    "play-close-both": config(play=1) + app(GET) + SERVER_CLOSE +
    CLOSE_NOTIFY,
    "play-client-closes-first": config(play=1) + CLOSE_NOTIFY +
    server_app(OK) + SERVER_CLOSE,
    "play-bad-mac": config(play=1) + app(GET) + flipped(GET, 5),
    "play-sealed-alert": config(play=1) + sealed(21, b"\x02\x0a"),
    "play-sealed-ccs": config(play=1) + sealed(20, b"\x01"),
    "play-sealed-handshake": config(play=1) + sealed(22, msg(20, bytes(12))),
    "play-raw-after": config(play=1) + raw(record(23, b"plain")),
}


def cert():
    """The server certificate fuzz_hs12.c embeds, as C bytes."""
    import datetime
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.derive_private_key(int.from_bytes(bytes(range(0x21, 0x41)),
                                               "big"), ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                         "tlsgate.test")])
    now = datetime.datetime(2026, 1, 1)
    der = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
           .public_key(key.public_key()).serial_number(12)
           .not_valid_before(now)
           .not_valid_after(now + datetime.timedelta(days=36500))
           .sign(key, hashes.SHA256())
           .public_bytes(serialization.Encoding.DER))
    for i in range(0, len(der), 12):
        print("\t" + " ".join("0x%02x," % b for b in der[i:i + 12]))


def main():
    if sys.argv[1:] == ["--cert"]:
        cert()
        return
    os.makedirs(OUT, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
