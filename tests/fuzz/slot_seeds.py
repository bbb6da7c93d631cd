# SPDX-License-Identifier: ISC
"""slot_seeds.py - writes the seed corpus of fuzz_slot.c into tests/fuzz/slot/.

Each seed is a program in the input language of fuzz_slot.c (see the
comment at its top and run_op()); the names below follow its operations.
Run from the repository root: python3 tests/fuzz/slot_seeds.py
"""
import os
import sys

TCP, HTTP = 0, 1


def config(mode=TCP, proxy=0, xff=7, slots=1, suite=0, v6=0, per_source=0,
           pool=0, balancer=0):
    return bytes([mode | proxy << 1 | xff << 3 | balancer << 6,
                  (slots - 1) | suite << 2 | v6 << 4 | pool << 5 |
                  per_source << 6])


def op(code, conn=0, v=0):
    return bytes([code | conn << 4 | v << 6])


def accept(c=0, full=0):
    return op(0, c, 3 if full else 0)   # full handshake, or resume


def send(data, c=0):
    out = b''
    while data:
        part, data = data[:256], data[256:]
        out += op(1, c) + bytes([len(part) - 1]) + part
    return out


def send_fill(byte, times64, c=0):
    return op(1, c, 3) + bytes([times64 - 1, byte])     # byte * 64*times64


def deliver(c=0, n=0, flip=None):
    if flip is None:
        return op(2, c) + bytes([n])
    return op(2, c, 1) + bytes([n, flip[0], flip[1]])


def inject(data, c=0):
    return op(3, c) + bytes([len(data) - 1]) + data


def client_end(c=0, how=0):
    return op(4, c, how)        # 0 EOF, 1 close_notify, 2 reset, 3 both


def client_cap(n, c=0):
    return op(5, c) + bytes([n])


def backend_send(data, c=0):
    return op(6, c) + bytes([len(data) - 1]) + data


def backend_cap(n, c=0):
    return op(7, c) + bytes([n])


def backend_end(c=0, reset=0):
    return op(8, c, reset)


def connect_mode(m):
    return op(9, 0, m)          # 0 ok, 1 fail, 2 refused, 3 hang


def clock(arg):
    return op(10) + bytes([arg])    # arg * arg * 8 ms


def turn(sigterm=0):
    return op(11, 0, 3 if sigterm else 0)


def abort_all():
    return op(12, 0, 3)


def backend_canned(i, c=0):
    return op(13, c, i)         # 200, 101, 100, 204


def client_canned(i, c=0):
    return op(14, c, i)         # GET, POST length, POST chunked, upgrade


def settle():
    return op(15)


HS = accept() + settle()
GET = b'GET / HTTP/1.1\r\nHost: a\r\n\r\n'
OK = b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'
CLOSE = b'GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'

def raw_hello(name):
    """A real TLS 1.3 hello (captured for hello's seeds), injected."""
    path = os.path.join(os.path.dirname(__file__), 'hello', name)
    with open(path, 'rb') as f:
        data = f.read()
    return b''.join(inject(data[i:i + 256]) for i in range(0, len(data), 256))


SEEDS = {
    'tcp_echo': config() + HS + send(b'hello world') + settle() +
    backend_send(b'abcde') + settle(),
    'tcp_proxy_v1': config(proxy=1) + HS + send(b'ping') + settle() +
    backend_send(b'pong') + settle() + client_end() + settle(),
    'tcp_proxy_v2_v6': config(proxy=2, v6=1) + HS + send(b'ping') +
    settle() + backend_end() + settle(),
    'tcp_backpressure': config() + HS + backend_cap(1) + client_cap(2) +
    send(b'x' * 600) + settle() + backend_send(b'y' * 200) + settle() +
    backend_cap(255) + client_cap(255) + settle(),
    'tcp_refused': config() + connect_mode(2) + HS + send(b'a') + settle(),
    'tcp_connect_fail': config() + connect_mode(1) + HS + settle(),
    'tcp_connect_hang': config() + connect_mode(3) + HS + clock(30) +
    turn() + settle(),
    'tcp_backend_reset': config() + HS + send(b'abc') + settle() +
    backend_end(reset=1) + settle(),
    'tcp_client_reset': config() + HS + client_end(how=2) + settle(),
    'tcp_close_notify': config() + HS + send(b'bye') + client_end(how=3) +
    settle(),
    'tcp_corrupt': config() + HS + send(b'secret') +
    deliver(flip=(12, 0x40)) + settle(),
    'tcp_garbage': config() + accept() + inject(b'\x16\x03\x01\x00\x05hello')
    + settle(),
    'tcp_handshake_timeout': config() + accept() + deliver() + turn() +
    clock(40) + turn(),
    'tcp_idle_timeout': config() + HS + clock(200) + turn() + clock(20) +
    turn(),
    'tcp_evict': config(slots=1) + accept(0) + deliver(0) + turn() +
    clock(12) + accept(1) + settle() + send(b'hi', 1) + settle(),
    'tcp_full_handshakes': config(slots=2) + accept(0, full=1) + settle() +
    client_end() + settle() + accept(1, full=1) + settle() +
    send(b'again', 1) + settle(),
    'tcp_drain': config(slots=2) + HS + accept(1) + settle() +
    turn(sigterm=1) + abort_all(),
    'tcp_per_source': config(slots=4, per_source=1) + accept(0) +
    accept(2) + accept(1) + settle(),
    'http_get': config(HTTP) + HS + send(GET) + settle() +
    backend_send(OK) + settle(),
    'http_canned': config(HTTP, xff=1) + HS + client_canned(0) +
    client_canned(1) + client_canned(2) + settle() + backend_canned(0) +
    backend_canned(0) + settle() + client_end() + settle(),
    'http_upgrade': config(HTTP) + HS + client_canned(3) + settle() +
    backend_canned(1) + settle() + send(b'\x81\x02hi') + settle() +
    backend_send(b'\x81\x02yo') + settle(),
    'http_upgrade_refused': config(HTTP) + HS + client_canned(3) +
    settle() + backend_canned(0) + client_canned(0) + settle(),
    'http_close': config(HTTP, xff=0) + HS +
    send(b'GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n' + GET) +
    settle() + backend_send(OK) + backend_end() + settle(),
    'http_pipelined_error': config(HTTP) + HS + send(GET + b'BAD\r\n\r\n') +
    settle() + backend_send(OK) + backend_end() + settle(),
    'http_backend_down': config(HTTP) + connect_mode(2) + HS + send(GET) +
    settle(),
    'http_backend_gone': config(HTTP) + HS + send(GET) + settle() +
    backend_end() + settle(),
    'http_head_timeout': config(HTTP) + HS + send(b'GET / HT') + settle() +
    clock(40) + turn() + settle(),
    'http_chunked_slow': config(HTTP) + HS + backend_cap(3) +
    send(b'POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n'
         b'\r\n3\r\nabc\r\n0\r\n\r\n') + settle() + backend_cap(255) +
    settle(),
    'http_long_get': config(HTTP) + HS + send(b'GET /') + send_fill(0x61, 64) +
    send(b' HTTP/1.1\r\nHost: a\r\n\r\n') + settle() + backend_send(OK) +
    settle(),
    'http_draining': config(HTTP) + HS + turn(sigterm=1) + send(GET) +
    settle(),
    # The backend connection of client 0 serves client 1 (pool on): its
    # answer must reach client 1 only.
    'http_pool_reuse': config(HTTP, pool=1, slots=2) + HS + send(CLOSE) +
    settle() + backend_send(OK) + settle() + accept(1) + settle() +
    send(GET, 1) + settle() + backend_send(OK) + settle() +
    client_end(1, how=1) + settle(),
    # Closed by its backend while idle: not used.
    'http_pool_stale': config(HTTP, pool=1, slots=2) + HS + send(CLOSE) +
    settle() + backend_send(OK) + settle() + backend_end() + settle() +
    accept(1) + settle() + send(GET, 1) + settle() + backend_send(OK, 1) +
    settle(),
    # Gone before any answer: the GET goes again on a fresh connection.
    'http_pool_retry': config(HTTP, pool=1, slots=2) + HS + send(CLOSE) +
    settle() + backend_send(OK) + settle() + accept(1) + settle() +
    send(GET, 1) + settle() + backend_end() + settle() +
    backend_send(OK, 1) + settle(),
    # TLS 1.3 hellos: the engine answers with its flight, then waits.
    't13_openssl': config(HTTP) + accept(full=1) + raw_hello('openssl-tls13') +
    settle() + inject(b'\x14\x03\x03\x00\x01\x01') + settle() +
    inject(b'\x17\x03\x03\x00\x20' + b'\x00' * 32) + settle(),
    # Behind a balancer (proxy_from): a PROXY v1 or v2 header first.
    'tcp_balancer_v1_proxy_v2': config(proxy=2, balancer=1) + HS +
    send(b'ping') + settle() + backend_send(b'pong') + settle(),
    'http_balancer_v2_v6': config(HTTP, balancer=2, v6=1) + HS +
    send(b'GET / HTTP/1.1\r\nHost: a\r\n\r\n') + settle() +
    backend_send(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok') +
    settle(),
    'http_balancer_per_source': config(HTTP, balancer=1, slots=4,
                                       per_source=1) + HS + accept(2, 1) +
    accept(1, 1) + settle() + send(b'GET / HTTP/1.1\r\nHost: a\r\n\r\n',
                                    1) + settle(),
    'tcp_balancer_flipped': config(proxy=1, balancer=3, slots=4) + HS +
    accept(1, 1) + accept(2, 1) + accept(3, 1) + settle() + send(b'x', 1) +
    settle(),
    't13_curl': config(TCP) + accept(full=1) + raw_hello('curl') + settle() +
    clock(40) + turn() + settle(),
}


def main():
    out = os.path.join(os.path.dirname(sys.argv[0]) or '.', 'slot')
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
    print('%d seeds in %s' % (len(SEEDS), out))


if __name__ == '__main__':
    main()
