"""What the tools' Python shares (standard library only): starting a touch-relay and
reading /proc for its CPU, memory, descriptors and threads; the smoke scripts' checks; and one
small WebSocket client over plain sockets. Scripts in tools/ import it directly; those in a
folder of tools/ put tools/ on sys.path first (one line, named where they do it).

The WebSocket client is not a general one: the handshake by hand, masked frames, a frame
reader, clean closes and TCP drops without a close frame, plain HTTP GETs (/healthz,
/metrics); text, close, ping and pong frames only, no compressed frames.
"""

import base64
import http.client
import json
import os
import re
import shlex
import signal
import socket
import struct
import subprocess
import sys
import threading

CLK_TCK = os.sysconf("SC_CLK_TCK")


# MARK: /proc


def proc_cpu(pid):
    """CPU seconds (utime + stime) of a process so far, from /proc/PID/stat."""
    return sum(proc_cpu_split(pid))


def proc_cpu_split(pid):
    """(user, system) CPU seconds (utime, stime) of a process so far, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def proc_rss_kb(pid):
    """Resident memory (VmRSS) of a process in kB, 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def proc_fds(pid):
    """Open descriptors of a process, 0 once it is gone."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def proc_threads(pid):
    """Threads of a process, 0 once it is gone."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def pinned_to(cpu):
    """The command prefix that runs a process on one CPU (none for None)."""
    return ["taskset", "-c", str(cpu)] if cpu is not None else []


# MARK: starting a server


class Lab:
    """What `Server` needs of the script that starts it: the binary, a work directory for the
    server's stderr, and `note`, which prints each command line and keeps it for the report
    (with the repository and work paths shortened)."""

    def __init__(self, relay, work, root, quiet=False):
        self.relay = relay
        self.work = work
        self.root = root
        self.quiet = quiet
        self.commands = []

    def rel(self, s):
        return s.replace(self.root + "/", "").replace(self.work + "/", "$TMP/")

    def note(self, cmd, env=None):
        line = " ".join(shlex.quote(c) for c in cmd)
        if env:
            line = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + line
        self.commands.append(line)
        if not self.quiet:
            print(f"  $ {self.rel(line)}", flush=True)


class Server:
    """A touch-relay on 127.0.0.1, port 0 (it prints the port on its first line), started for
    a `Lab` (or anything with its `work`, `note` and `relay`): the benchmarks' way, with the
    limits a load from one address would hit raised."""

    def __init__(self, lab, flags, tag, cpu=None, binary=None):
        # Every load comes from one address and goes far past a phone's defaults: raise the
        # limits that would refuse it (the defaults are for the open internet, not a bench).
        limits = ["--max-connections-per-address", "100000", "--max-connections", "100000",
                  "--max-observers-per-session", "100000", "--max-sessions", "100000"]
        cmd = [*pinned_to(cpu), binary or lab.relay, "--host", "127.0.0.1", "--port", "0", "--log-level", "warning", *limits, *flags]
        lab.note(cmd)
        self.err = open(os.path.join(lab.work, f"{tag}.server.err"), "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.proc.stdout.readline().strip()
        if "ws://" not in line:
            self.proc.kill()
            raise RuntimeError(f"server did not start: {line!r} (see {self.err.name})")
        self.url = "ws://" + line.split("ws://", 1)[1].split()[0]
        self.pid = self.proc.pid
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for _ in self.proc.stdout:
            pass

    def cpu(self):
        return proc_cpu(self.pid)

    def cpu_split(self):
        return proc_cpu_split(self.pid)

    def rss_kb(self):
        return proc_rss_kb(self.pid)

    def fds(self):
        return proc_fds(self.pid)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()


def start_relay(binary, *flags):
    """The smoke scripts' server: `binary` on a free loopback port with the default limits,
    errors only on stderr; returns the process (`relay_port` reads its port)."""
    return subprocess.Popen([binary, "--port", "0", "--log-level", "error", *flags], stdout=subprocess.PIPE, text=True)


def relay_port(proc):
    """The port from the server's first line ('... listening on ws://127.0.0.1:PORT ...')."""
    return int(re.search(r":(\d+) ", proc.stdout.readline()).group(1))


def free_udp_port():
    """A UDP port free on 127.0.0.1 now (for --tuio-udp and the receivers of --tuio-out)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def stop_relay(proc):
    proc.terminate()
    proc.wait(timeout=10)


# MARK: the smoke scripts' checks

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def finish():
    """Prints 'N passed, M failed' and exits 0 only if every check passed."""
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if passed == len(results) else 1)


# MARK: one WebSocket client

SUBPROTOCOL = "touchrelay.v1"


class HandshakeError(ConnectionError):
    pass


def parse_url(url):
    """ws://HOST:PORT -> (host, port)."""
    hostport = url.split("://", 1)[1].rstrip("/")
    host, port = hostport.rsplit(":", 1)
    return host, int(port)


def upgrade(host, port, path, timeout=5.0, rcvbuf=None, deflate=False):
    """Opens a WebSocket connection to `path`; returns (socket, bytes already read past the
    101 answer, whether the server accepted permessage-deflate). `rcvbuf` shrinks the receive
    buffer before connecting (a stalled reader's window fills sooner); `deflate` offers
    permessage-deflate (the frames here are never compressed: for connections that stay idle)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    try:
        s.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        req = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\n")
        if deflate:
            req += "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
        s.sendall((req + "\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                raise HandshakeError("closed during the handshake")
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        head = head.decode("latin-1")
        status = head.split("\r\n", 1)[0]
        if not status.startswith("HTTP/1.1 101"):
            raise HandshakeError(status or "no answer")
        return s, rest, "permessage-deflate" in head.lower()
    except BaseException:
        s.close()
        raise


def connect(host, port, path, timeout=5.0, rcvbuf=None):
    """`upgrade` without deflate: (socket, bytes already read past the 101 answer)."""
    s, rest, _ = upgrade(host, port, path, timeout, rcvbuf)
    return s, rest


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
        if name == "touchrelay_errors_total" and label and v:
            s["errors"][label] = int(v)
        elif name == "touchrelay_closes_total" and label and v:
            s["closes"][label] = int(v)
        elif name in ("touchrelay_dropped_messages_total", "touchrelay_frames_in_total",
                      "touchrelay_messages_out_total", "touchrelay_sessions",
                      "touchrelay_observer_queued_messages", "touchrelay_observer_queue_deepest"):
            s[name.replace("touchrelay_", "")] = int(v)
        elif name == "touchrelay_connections":
            role = k.split('role="', 1)[1].split('"', 1)[0] if 'role="' in k else "all"
            s.setdefault("connections", {})[role] = int(v)
    return s
