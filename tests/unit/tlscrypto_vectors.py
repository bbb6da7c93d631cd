#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Record vectors for tests/unit/test_tlscrypto.c, made by an independent
implementation (Python's cryptography package): python3 tlscrypto_vectors.py

HKDF-Expand-Label and the TLS 1.3 record format (RFC 8446 5.2-5.4, 7.1,
7.3) are written out here from the RFC; the AEADs are cryptography's.
Each record line: suite, sequence number, type, padding, content,
record; then the next traffic secret of each (KeyUpdate, 7.2); then TLS
1.2 records of each AEAD (RFC 5246 6.2.3.3, RFC 5288, RFC 7905): "tls12",
AEAD, sequence number, type, content, record."""
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand


def expand_label(h, secret, label, length):
    full = b"tls13 " + label
    info = length.to_bytes(2, "big") + bytes([len(full)]) + full + b"\x00"
    return HKDFExpand(h, length, info).derive(secret)


def record(suite, secret, seq, ctype, pad, content):
    if suite == 0x1302:
        h, klen, aead = hashes.SHA384(), 32, AESGCM
    else:
        h, klen = hashes.SHA256(), 32
        aead = ChaCha20Poly1305
    key = expand_label(h, secret, b"key", klen)
    iv = expand_label(h, secret, b"iv", 12)
    nonce = bytes(a ^ b for a, b in zip(iv, seq.to_bytes(12, "big")))
    inner = content + bytes([ctype]) + bytes(pad)
    hdr = b"\x17\x03\x03" + (len(inner) + 16).to_bytes(2, "big")
    return hdr + aead(key).encrypt(nonce, inner, hdr)


S384 = bytes(range(48))
S256 = bytes(range(0x40, 0x60))
MSG = b"hello, TLS 1.3"
for suite, secret in ((0x1302, S384), (0x1303, S256)):
    for seq, ctype, pad in ((0, 23, 0), (1, 22, 5)):
        r = record(suite, secret, seq, ctype, pad, MSG)
        print(hex(suite), seq, ctype, pad, MSG.hex(), r.hex())
for h, secret in ((hashes.SHA384(), S384), (hashes.SHA256(), S256)):
    print("traffic upd", h.name, expand_label(h, secret, b"traffic upd",
                                              h.digest_size).hex())


def record12(aead_name, key, iv, seq, ctype, content):
    """A TLS 1.2 AEAD record (RFC 5246 6.2.3.3): RFC 5288's nonce (the
    4-byte salt, then the sequence number sent explicitly) for AES-GCM,
    RFC 7905's (the IV XOR the sequence number) for ChaCha20-Poly1305."""
    s = seq.to_bytes(8, "big")
    aad = s + bytes([ctype]) + b"\x03\x03" + len(content).to_bytes(2, "big")
    if aead_name == "chacha20":
        nonce = bytes(a ^ b for a, b in zip(iv, bytes(4) + s))
        body = ChaCha20Poly1305(key).encrypt(nonce, content, aad)
    else:
        body = s + AESGCM(key).encrypt(iv + s, content, aad)
    return bytes([ctype]) + b"\x03\x03" + len(body).to_bytes(2, "big") + body


MSG12 = b"hello, TLS 1.2"
for name, klen, ivlen in (("aes128gcm", 16, 4), ("aes256gcm", 32, 4),
                          ("chacha20", 32, 12)):
    key = bytes(range(0x80, 0x80 + klen))
    iv = bytes(range(0xe0, 0xe0 + ivlen))
    for seq, ctype in ((0, 22), (1, 23)):
        print("tls12", name, seq, ctype, MSG12.hex(),
              record12(name, key, iv, seq, ctype, MSG12).hex())
