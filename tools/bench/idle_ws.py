#!/usr/bin/env python3
"""Opens N idle WebSocket observer connections with the plain-socket client of
tools/relaytools.py, optionally offering permessage-deflate, which touch-load's client does not
negotiate.

    idle_ws.py --url ws://127.0.0.1:PORT --count 10000 --sessions 100 [--deflate]

Each connection sends the HTTP upgrade for /v1/observe/<prefix>-<n>, reads the 101 answer
(and checks whether permessage-deflate was accepted), then stays idle; the server's welcome
is read off the socket so that the server did its whole per-connection work. When all are
open it prints one JSON line ({"ready":..., "connected":..., "deflate":...}) on stdout and
holds the connections until stdin closes or SIGTERM/SIGINT arrives.
"""

import argparse
import json
import os
import selectors
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/relaytools.py
import relaytools as rt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="ws://HOST:PORT")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--prefix", default="idle")
    ap.add_argument("--deflate", action="store_true", help="offer permessage-deflate")
    ap.add_argument("--timeout", type=float, default=10)
    a = ap.parse_args()
    hostport = a.url.split("://", 1)[1].rstrip("/")
    host, port = hostport.rsplit(":", 1)
    port = int(port)

    stop = False

    def on_signal(*_):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    socks, accepted, failures = [], 0, {}
    began = time.monotonic()
    for i in range(a.count):
        if stop:
            break
        try:
            s, _, ok = rt.upgrade(host, port, f"/v1/observe/{a.prefix}-{i % a.sessions}", timeout=a.timeout,
                                  deflate=a.deflate)
            s.setblocking(False)
            socks.append(s)
            accepted += ok
        except Exception as e:  # noqa: BLE001 - counted and reported
            key = type(e).__name__ + ": " + str(e)[:60]
            failures[key] = failures.get(key, 0) + 1
    connect_s = time.monotonic() - began

    # Read what the server sent after the upgrade (the welcome), so its work is done.
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and not stop:
        for key, _ in sel.select(timeout=0.1):
            try:
                if not key.fileobj.recv(65536):
                    sel.unregister(key.fileobj)
            except BlockingIOError:
                pass
            except OSError:
                sel.unregister(key.fileobj)

    print(json.dumps({
        "ready": True, "connected": len(socks), "failed": sum(failures.values()),
        "failures": failures, "deflate_offered": a.deflate, "deflate_accepted": accepted,
        "connect_seconds": round(connect_s, 3),
    }), flush=True)

    # Hold until told to stop (stdin closed, or a signal).
    sel2 = selectors.DefaultSelector()
    try:
        sel2.register(sys.stdin, selectors.EVENT_READ)
        have_stdin = True
    except (ValueError, PermissionError, OSError):
        have_stdin = False
    while not stop:
        if have_stdin:
            if sel2.select(timeout=0.2) and not sys.stdin.buffer.read1(4096):
                break
        else:
            time.sleep(0.2)
    for s in socks:
        s.close()


if __name__ == "__main__":
    main()
