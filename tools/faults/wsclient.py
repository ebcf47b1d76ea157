"""A minimal WebSocket client over plain sockets (standard library only), for the fault and
soak scripts: the handshake by hand, masked frames, a frame reader, clean closes and TCP drops
without a close frame, and plain HTTP GETs (/healthz, /metrics). Not a general client: text,
close, ping and pong frames only, no extensions.
"""

import base64
import json
import os
import socket
import struct

SUBPROTOCOL = "touchrelay.v1"


class HandshakeError(ConnectionError):
    pass


def parse_url(url):
    """ws://HOST:PORT -> (host, port)."""
    hostport = url.split("://", 1)[1].rstrip("/")
    host, port = hostport.rsplit(":", 1)
    return host, int(port)


def connect(host, port, path, timeout=5.0, rcvbuf=None):
    """Opens a WebSocket connection to `path`; returns (socket, bytes already read past the
    101 answer). `rcvbuf` shrinks the receive buffer before connecting (a stalled reader's
    window fills sooner)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    try:
        s.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        req = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n")
        s.sendall(req.encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                raise HandshakeError("closed during the handshake")
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        status = head.split(b"\r\n", 1)[0].decode("latin-1")
        if not status.startswith("HTTP/1.1 101"):
            raise HandshakeError(status or "no answer")
        return s, rest
    except BaseException:
        s.close()
        raise


def encode(opcode, payload, zero_mask=False):
    """One final client frame (masked, as RFC 6455 requires). `zero_mask` uses the key 0
    (valid; the payload is then sent as is, which is cheap for a flood)."""
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    if zero_mask or n == 0:
        return head + b"\0\0\0\0" + payload
    key = os.urandom(4)
    k = (key * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(k, "big")).to_bytes(n, "big")
    return head + key + masked


def text(obj, zero_mask=False):
    return encode(0x1, json.dumps(obj, separators=(",", ":")).encode(), zero_mask)


def close_frame(code=1000):
    return encode(0x8, struct.pack("!H", code))


class Reader:
    """Splits the server's byte stream into (opcode, payload) frames (the server does not mask)."""

    def __init__(self, initial=b""):
        self.buf = bytearray(initial)

    def feed(self, data):
        self.buf += data

    def frames(self):
        out = []
        while True:
            b = self.buf
            if len(b) < 2:
                return out
            n = b[1] & 0x7F
            i = 2
            if n == 126:
                if len(b) < 4:
                    return out
                n = struct.unpack_from("!H", b, 2)[0]
                i = 4
            elif n == 127:
                if len(b) < 10:
                    return out
                n = struct.unpack_from("!Q", b, 2)[0]
                i = 10
            if len(b) < i + n:
                return out
            out.append((b[0] & 0x0F, bytes(b[i:i + n])))
            del self.buf[:i + n]


def drop(sock, rst=False):
    """Goes away without a close frame: a FIN (rst=False) or a reset (SO_LINGER 0)."""
    try:
        if rst:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    except OSError:
        pass


def close_cleanly(sock, code=1000, wait=1.0):
    """Sends a close frame and waits (briefly) for the server's close or EOF."""
    try:
        sock.settimeout(wait)
        sock.sendall(close_frame(code))
        r = Reader()
        while True:
            data = sock.recv(65536)
            if not data:
                break
            r.feed(data)
            if any(op == 0x8 for op, _ in r.frames()):
                break
    except OSError:
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass


def http_get(host, port, path, timeout=5.0):
    """GET over a fresh connection; returns (status code, body text)."""
    import http.client
    c = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        c.close()


def parse_metrics(text_):
    """Prometheus text -> {'name{labels}': value} for the counters and gauges (histogram
    buckets left out)."""
    out = {}
    for line in text_.splitlines():
        if not line or line.startswith("#") or "_bucket{" in line:
            continue
        try:
            key, value = line.rsplit(" ", 1)
            out[key] = float(value)
        except ValueError:
            continue
    return out


def metrics_summary(text_):
    """The figures the reports quote: connections, sessions, frames in, messages out, dropped,
    errors by code, closes by code."""
    m = parse_metrics(text_)
    s = {"errors": {}, "closes": {}}
    for k, v in m.items():
        name = k.split("{", 1)[0]
        label = k.split('code="', 1)[1].split('"', 1)[0] if 'code="' in k else None
        if name == "touchrelay_errors_total" and label:
            s["errors"][label] = int(v)
        elif name == "touchrelay_closes_total" and label:
            s["closes"][label] = int(v)
        elif name in ("touchrelay_dropped_messages_total", "touchrelay_frames_in_total",
                      "touchrelay_messages_out_total", "touchrelay_sessions",
                      "touchrelay_observer_queued_messages", "touchrelay_observer_queue_deepest"):
            s[name.replace("touchrelay_", "")] = int(v)
        elif name == "touchrelay_connections":
            role = k.split('role="', 1)[1].split('"', 1)[0] if 'role="' in k else "all"
            s.setdefault("connections", {})[role] = int(v)
    return s
