#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The demo and test backend that tlsgate forwards to (Python stdlib only).

Modes:
  http  a small HTTP/1.1 server: GET / says hello and shows what it got;
        GET /bytes/N answers N bytes; POST /echo answers the body;
        anything else 404.  Keep-alive, Content-Length framing.
  echo  raw TCP: every byte read is written back; half-close honoured
        (EOF from the client is answered with EOF after the echo).
  sink  raw TCP: reads and counts bytes, answers "<count>\\n" at EOF.

In http mode, GET /ws with "Upgrade: websocket" is answered 101 and
then every client frame is echoed back unmasked (a close frame ends it).

With --proxy-protocol every connection must start with a PROXY protocol
v1 or v2 header; it is parsed and logged with the accept event.

Each accepted connection and each request is appended as one JSON line
to --log when given, so tests can see exactly what the backend received.
"""
import argparse
import base64
import hashlib
import json
import socket
import socketserver
import struct
import sys
import threading

LOCK = threading.Lock()
ARGS = None


def record(event):
    if ARGS.log:
        with LOCK, open(ARGS.log, "a") as f:
            f.write(json.dumps(event) + "\n")


V2SIG = b"\r\n\r\n\x00\r\nQUIT\n"


def read_exact(sock, n):
    data = b""
    while len(data) < n:
        d = sock.recv(n - len(data))
        if not d:
            raise ConnectionError("eof in PROXY header")
        data += d
    return data


def tlv_list(b):
    """PROXY v2 TLVs (type, 16-bit length, value), strictly."""
    out = []
    while b:
        if len(b) < 3:
            raise ValueError("truncated TLV")
        t, n = b[0], struct.unpack("!H", b[1:3])[0]
        if len(b) < 3 + n:
            raise ValueError("TLV past the header")
        out.append((t, b[3:3 + n]))
        b = b[3 + n:]
    return out


def read_proxy_header(sock):
    """Parse a PROXY protocol v1 or v2 header (haproxy's spec), strictly."""
    head = read_exact(sock, 12)
    if head == V2SIG:
        ver_cmd, fam, length = struct.unpack("!BBH", read_exact(sock, 4))
        body = read_exact(sock, length)
        if ver_cmd != 0x21 or fam not in (0x11, 0x21):
            raise ValueError("bad v2 header")
        alen = 4 if fam == 0x11 else 16
        af = socket.AF_INET if alen == 4 else socket.AF_INET6
        src = socket.inet_ntop(af, body[:alen])
        dst = socket.inet_ntop(af, body[alen:2 * alen])
        sport, dport = struct.unpack("!HH", body[2 * alen:2 * alen + 4])
        out = {"version": 2, "family": "TCP4" if alen == 4 else "TCP6",
               "src": src, "dst": dst, "sport": sport, "dport": dport}
        tlvs = tlv_list(body[2 * alen + 4:])
        for t, v in tlvs:
            if t != 0x20:
                continue
            # PP2_TYPE_SSL: client flags, verify, then sub-TLVs.
            if len(v) < 5:
                raise ValueError("short SSL TLV")
            ssl = {"client": v[0], "verify": struct.unpack("!I", v[1:5])[0]}
            for st, sv in tlv_list(v[5:]):
                name = {0x21: "ssl_version", 0x22: "cn"}.get(st, str(st))
                ssl[name] = sv.decode("ascii")
            out["ssl"] = ssl
        return out
    line = head
    while not line.endswith(b"\r\n"):
        line += read_exact(sock, 1)
        if len(line) > 107:
            raise ValueError("v1 header too long")
    parts = line[:-2].decode("ascii").split(" ")
    if parts[0] != "PROXY" or len(parts) != 6 or parts[1] not in ("TCP4", "TCP6"):
        raise ValueError("bad v1 header")
    return {"version": 1, "family": parts[1], "src": parts[2], "dst": parts[3],
            "sport": int(parts[4]), "dport": int(parts[5])}


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            proxy = read_proxy_header(sock) if ARGS.proxy_protocol else None
            record({"event": "accept", "mode": ARGS.mode, "proxy": proxy})
            getattr(self, "mode_" + ARGS.mode)(sock)
        except (ConnectionError, OSError):
            pass
        except ValueError as e:
            record({"event": "error", "error": str(e)})

    def mode_echo(self, sock):
        while True:
            data = sock.recv(65536)
            if not data:
                sock.shutdown(socket.SHUT_WR)
                return
            sock.sendall(data)

    def mode_sink(self, sock):
        n = 0
        while True:
            data = sock.recv(65536)
            if not data:
                break
            n += len(data)
        sock.sendall(b"%d\n" % n)

    def mode_http(self, sock):
        f = sock.makefile("rb")
        while True:
            line = f.readline(65536)
            if not line:
                return
            method, target, version = line.decode("latin-1").split()
            headers = []
            while True:
                h = f.readline(65536)
                if h in (b"\r\n", b"\n", b""):
                    break
                k, _, v = h.decode("latin-1").partition(":")
                headers.append([k.strip(), v.strip()])
            hmap = {k.lower(): v for k, v in headers}
            body = b""
            if "content-length" in hmap:
                body = f.read(int(hmap["content-length"]))
            elif hmap.get("transfer-encoding", "").lower() == "chunked":
                parts = []
                while True:
                    size = int(f.readline(1024).split(b";")[0], 16)
                    if size == 0:
                        while f.readline(65536) not in (b"\r\n", b""):
                            pass
                        break
                    parts.append(f.read(size))
                    f.read(2)
                body = b"".join(parts)
            record({"event": "request", "method": method, "target": target,
                    "version": version, "headers": headers,
                    "body_len": len(body)})
            if hmap.get("upgrade", "").lower() == "websocket":
                if target != "/ws":
                    sock.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                    continue
                accept = base64.b64encode(hashlib.sha1(
                    hmap["sec-websocket-key"].encode() +
                    b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
                sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\n"
                             b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                             b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
                self.websocket(f, sock)
                return
            if target.startswith("/bytes/"):
                n = int(target[7:])
                out = b"0123456789abcdef" * 4096
                status, payload = "200 OK", None
            elif method == "POST" and target == "/echo":
                status, payload = "200 OK", body
            elif target == "/":
                status = "200 OK"
                payload = ("hello from the backend behind tlsgate\n"
                           "you sent: %s %s %s\n" % (method, target, version)
                           ).encode() + b"".join(
                    ("%s: %s\n" % (k, v)).encode() for k, v in headers)
            else:
                status, payload = "404 Not Found", b"not found\n"
            close = hmap.get("connection", "").lower() == "close" or \
                version == "HTTP/1.0"
            if payload is None:
                sock.sendall(("HTTP/1.1 %s\r\nContent-Length: %d\r\n%s\r\n" % (
                    status, n, "Connection: close\r\n" if close else "")).encode())
                left = n
                while left > 0:
                    chunk = out[:min(left, len(out))]
                    sock.sendall(chunk)
                    left -= len(chunk)
            else:
                sock.sendall(("HTTP/1.1 %s\r\nContent-Type: text/plain\r\n"
                              "Content-Length: %d\r\n%s\r\n" % (
                                  status, len(payload),
                                  "Connection: close\r\n" if close else "")
                              ).encode() + payload)
            if close:
                return


    def websocket(self, f, sock):
        # Echo each client frame back unmasked, until a close frame.
        while True:
            hdr = f.read(2)
            if len(hdr) < 2:
                return
            op, n = hdr[0] & 0x0F, hdr[1] & 0x7F
            if n == 126:
                n = struct.unpack("!H", f.read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", f.read(8))[0]
            mask = f.read(4) if hdr[1] & 0x80 else b"\0\0\0\0"
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(f.read(n)))
            out = bytes([0x80 | op])
            if n < 126:
                out += bytes([n])
            elif n < 65536:
                out += bytes([126]) + struct.pack("!H", n)
            else:
                out += bytes([127]) + struct.pack("!Q", n)
            sock.sendall(out + data)
            if op == 8:
                return


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--mode", choices=["http", "echo", "sink"], default="http")
    p.add_argument("--log")
    p.add_argument("--proxy-protocol", action="store_true",
                   help="expect a PROXY v1 or v2 header on each connection")
    ARGS = p.parse_args()
    if ":" in ARGS.host:
        Server.address_family = socket.AF_INET6
    srv = Server((ARGS.host, ARGS.port), Handler)
    print("backend: %s mode on %s:%d" % (ARGS.mode, ARGS.host,
          srv.server_address[1]), file=sys.stderr, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
