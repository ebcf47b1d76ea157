#!/usr/bin/env python3
"""CI check of tools/bench/floor/floor-relay.c, the bench's libwebsockets floor (the suite
itself is too long for CI): it builds without warnings, prints touch-relay's first line, and
relays through a real client (Python websockets): a raw observer's welcome, a source's hello
and welcome, one frame as one `touches` in touch-relay's member order; a stalled observer's
queue stays bounded and every frame is either delivered or counted in a `dropped` notice; with
touch-load given, a short load through it reads latencies with no unmatched or misordered
message; SIGTERM stops it with exit status 0. Prints 'N passed, M failed'.

    tools/bench/check_floor.py [path/to/touch-load]
"""
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/relaytools.py
from relaytools import Reader, check, connect, encode, finish, relay_port, text  # noqa: E402

import websockets  # noqa: E402  (Debian's python3-websockets, installed by .ci/run)

here = os.path.dirname(os.path.abspath(__file__))
TOUCHES = [{"id": 1, "phase": "began", "x": 120.5, "y": 210}]


def build(work):
    exe = os.path.join(work, "floor-relay")
    # The Swift toolchain brings clang where no cc is installed.
    compiler = shutil.which("cc") or shutil.which("clang")
    if not compiler:
        check("a C compiler (cc or clang) on PATH", False)
        finish()
    p = subprocess.run([compiler, "-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe,
                        os.path.join(here, "floor", "floor-relay.c"), "-lwebsockets", "-lev"],
                       capture_output=True, text=True)
    check("floor-relay.c builds with -Wall -Wextra -Werror", p.returncode == 0, p.stderr[-2000:])
    if p.returncode != 0:
        finish()
    return exe


async def relay_one(port):
    base = f"ws://127.0.0.1:{port}"
    async with websockets.connect(f"{base}/v1/observe/demo?raw=1") as raw, \
            websockets.connect(f"{base}/v1/observe/demo") as plain, \
            websockets.connect(f"{base}/v1/observe/elsewhere?raw=1") as other:
        w = json.loads(await asyncio.wait_for(raw.recv(), 5))
        check("a raw observer gets a welcome at once", w.get("type") == "welcome" and w.get("role") == "observer"
              and w.get("session") == "demo", w)
        await asyncio.wait_for(plain.recv(), 5)
        await asyncio.wait_for(other.recv(), 5)
        async with websockets.connect(f"{base}/v1/source/demo", subprotocols=["touchrelay.v1"]) as src:
            check("the touchrelay.v1 subprotocol is answered", src.subprotocol == "touchrelay.v1", src.subprotocol)
            await src.send(json.dumps({"type": "hello", "device": {"name": "check", "width": 400, "height": 800}}))
            w = json.loads(await asyncio.wait_for(src.recv(), 5))
            check("hello -> a source welcome with its id", w.get("type") == "welcome" and w.get("role") == "source"
                  and w.get("source") == "s1" and w.get("resumed") is False, w)
            await src.send(json.dumps({"type": "frame", "seq": 7, "t": 18234.5, "touches": TOUCHES},
                                      separators=(",", ":")))
            got = await asyncio.wait_for(raw.recv(), 5)
            m = json.loads(got)
            # touch-load's scanner takes the first "source", "seq" and "t": touch-relay's order.
            check("a frame -> touches to the raw observer, in touch-relay's member order",
                  got.startswith('{"type":"touches","source":"s1","seq":7,"t":18234.5,"rt":')
                  and m["touches"] == TOUCHES and isinstance(m["rt"], (int, float)) and m["rt"] > 0, got)
            try:
                extra = await asyncio.wait_for(plain.recv(), 0.3)
            except asyncio.TimeoutError:
                extra = None
            check("an observer without raw=1 gets no touches", extra is None, extra)
            try:
                extra = await asyncio.wait_for(other.recv(), 0.1)
            except asyncio.TimeoutError:
                extra = None
            check("an observer of another session gets nothing", extra is None, extra)
            async with websockets.connect(f"{base}/v1/source/elsewhere") as src2:
                await src2.send(json.dumps({"type": "hello", "device": {"name": "two", "width": 1, "height": 1}}))
                w2 = json.loads(await asyncio.wait_for(src2.recv(), 5))
            # touch-load finds a source's schedule by its id alone, as touch-relay's are unique.
            check("source ids are unique across sessions", w2.get("source") == "s2", w2)
            await src.send('{"type":"frame","seq":8}')
            e = json.loads(await asyncio.wait_for(src.recv(), 5))
            check("a frame without t and touches gets an error", e.get("type") == "error", e)
    try:
        async with websockets.connect(f"{base}/v1/nothing/demo"):
            refused = False
    except Exception:  # websockets' exception for a refused upgrade differs between versions
        refused = True
    check("an unknown path is refused", refused)


def stalled_observer(port, frames=20000):
    """A raw observer that reads nothing while a source floods: the floor must queue at most
    256 messages for it, and every frame must come out as a touches or in a dropped count."""
    # Built before connecting, from one template: the floor hangs up on a peer silent for 60 s.
    touches = json.dumps([{"id": i, "phase": "moved", "x": 100.25 + i, "y": 200.5 + i} for i in range(20)],
                         separators=(",", ":"))
    flood = b"".join(encode(0x1, f'{{"type":"frame","seq":{k},"t":{k},"touches":{touches}}}'.encode(), zero_mask=True)
                     for k in range(1, frames + 1))
    obs, rest = connect("127.0.0.1", port, "/v1/observe/flood?raw=1", rcvbuf=4096)
    src, _ = connect("127.0.0.1", port, "/v1/source/flood")
    src.settimeout(30)
    src.sendall(text({"type": "hello", "device": {"name": "flood", "width": 1, "height": 1}}))
    src.sendall(flood)
    time.sleep(0.5)
    r = Reader(rest)
    got, dropped, seqs = 0, 0, []
    obs.settimeout(1.0)
    while True:
        try:
            data = obs.recv(1 << 16)
        except TimeoutError:
            break
        if not data:
            break
        r.feed(data)
        for _, payload in r.frames():
            m = json.loads(payload)
            if m["type"] == "touches":
                got += 1
                seqs.append(m["seq"])
            elif m["type"] == "dropped":
                dropped += m["count"]
    obs.close()
    src.close()
    check("a stalled observer: frames dropped and told, not queued without bound",
          dropped > 0 and got + dropped == frames and seqs == sorted(seqs), (got, dropped, frames))


def touch_load(load, port):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "load.json")
        cmd = [load, "--url", f"ws://127.0.0.1:{port}", "-c", "6", "-r", "60", "--sessions", "3",
               "--observers", "2", "--raw", "--send-idle", "-d", "3s", "--json", out, "-q"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        check("touch-load runs against the floor", p.returncode == 0, p.stderr[-500:])
        if p.returncode != 0:
            return
        with open(out) as f:
            rep = json.load(f)
    lat = rep["latency"]
    check("touch-load through the floor: every frame delivered and timed, none unmatched or misordered",
          rep["framesSent"] > 0 and rep["messagesReceived"] >= 2 * rep["framesSent"] and lat["count"] > 0
          and rep["unmatchedMessages"] == 0 and rep["outOfOrderMessages"] == 0 and rep["droppedMessages"] == 0
          and not rep["failures"] and not rep["serverErrors"],
          {k: rep[k] for k in ("framesSent", "messagesReceived", "unmatchedMessages", "outOfOrderMessages",
                               "droppedMessages", "failures", "serverErrors")})


def main():
    load = sys.argv[1] if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory() as work:
        exe = build(work)
        # touch-relay's bench flags, which the floor accepts and ignores.
        proc = subprocess.Popen([exe, "--host", "127.0.0.1", "--port", "0", "--log-level", "warning",
                                 "--max-connections", "100000", "--no-gestures"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            port = relay_port(proc)
            check("first line as touch-relay's ('... listening on ws://127.0.0.1:PORT ...')", port > 0)
            asyncio.run(relay_one(port))
            stalled_observer(port)
            if load:
                touch_load(load, port)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                code = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = None
        err = proc.stderr.read()
        check("SIGTERM stops it cleanly (exit 0, its counters on stderr)", code == 0 and "touches out" in err,
              (code, err[-500:]))
    finish()


if __name__ == "__main__":
    main()
