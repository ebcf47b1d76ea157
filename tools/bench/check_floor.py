#!/usr/bin/env python3
"""CI check of tools/bench/floor/floor-relay.c (the bench's libwebsockets floor; the bench
itself is too long for CI): it builds without warnings, starts the way the bench starts
touch-relay (port 0, the port on its first line, touch-relay's flags ignored), and relays a
source's frame to two observers of its session as `touches` stamped with the source's id,
seq, t and rt, and to no observer of another session; SIGTERM stops it.

    tools/bench/check_floor.py
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
sys.dont_write_bytecode = True
import relaytools as rt  # noqa: E402  (tools/relaytools.py)


def fail(msg):
    print(f"check_floor: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def next_text(sock, reader):
    while True:
        for opcode, payload in reader.frames():
            if opcode == 0x1:
                return json.loads(payload)
        data = sock.recv(65536)
        if not data:
            fail("connection closed")
        reader.feed(data)


def main():
    work = tempfile.mkdtemp(prefix="floor-check-")
    exe = os.path.join(work, "floor-relay")
    compiler = shutil.which("cc") or shutil.which("clang")
    if not compiler:
        fail("no C compiler (cc or clang) on PATH")
    subprocess.run([compiler, "-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe,
                    os.path.join(here, "floor", "floor-relay.c"), "-lwebsockets", "-lev"], check=True)
    proc = subprocess.Popen([exe, "--host", "127.0.0.1", "--port", "0", "--log-level", "warning", "--no-gestures",
                             "--max-connections", "100000"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if "ws://127.0.0.1:" not in line:
            fail(f"first line names no ws:// URL: {line!r}")
        port = int(re.search(r"ws://127\.0\.0\.1:(\d+) ", line).group(1))
        observers = []
        for session in ("stage", "stage", "elsewhere"):
            sock, rest = rt.connect("127.0.0.1", port, f"/v1/observe/{session}?raw=1")
            reader = rt.Reader(rest)
            welcome = next_text(sock, reader)
            if welcome.get("type") != "welcome" or welcome.get("role") != "observer":
                fail(f"observer welcome: {welcome}")
            observers.append((sock, reader))
        source, rest = rt.connect("127.0.0.1", port, "/v1/source/stage")
        source_reader = rt.Reader(rest)
        source.sendall(rt.text({"type": "hello", "device": {"name": "check", "width": 400, "height": 800}}))
        welcome = next_text(source, source_reader)
        if welcome.get("type") != "welcome" or welcome.get("source") != "s1":
            fail(f"source welcome: {welcome}")
        touches = [{"id": 1, "phase": "began", "x": 12.5, "y": 40}]
        source.sendall(rt.text({"type": "frame", "seq": 7, "t": 1234.5, "touches": touches}))
        for sock, reader in observers[:2]:
            m = next_text(sock, reader)
            if (m.get("type"), m.get("source"), m.get("seq"), m.get("t"), m.get("touches")) != (
                    "touches", "s1", 7, 1234.5, touches) or not isinstance(m.get("rt"), float):
                fail(f"observer got {m}")
        other, reader = observers[2]
        other.settimeout(0.3)
        try:
            reader.feed(other.recv(65536))
            if reader.frames():
                fail("an observer of another session got the frame")
        except TimeoutError:
            pass
        proc.send_signal(signal.SIGTERM)
        if proc.wait(timeout=10) != 0:
            fail(f"exit status {proc.returncode} after SIGTERM")
    finally:
        if proc.poll() is None:
            proc.kill()
        shutil.rmtree(work, ignore_errors=True)
    print("check_floor: floor-relay builds without warnings and relays a frame to its session's observers")


if __name__ == "__main__":
    main()
