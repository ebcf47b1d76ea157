#!/usr/bin/env python3
"""The issue's "done when", with an independent client: a Python `websockets` source and
observer on one session through a real touch-relay binary. Prints 'N passed, M failed'.

usage: tools/python-smoke.py [path/to/touch-relay]   (Debian: apt-get install python3-websockets)
"""
import asyncio, json, sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/

import websockets

from relaytools import check, finish, proc_rss_kb, relay_port, start_relay, stop_relay

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/touch-relay"


async def scenario(port):
    base = f"ws://127.0.0.1:{port}"
    async with websockets.connect(f"{base}/v1/observe/py?raw=1", subprotocols=["touchrelay.v1"]) as obs:
        welcome = json.loads(await obs.recv())
        check("observer welcome", welcome.get("type") == "welcome" and welcome.get("role") == "observer", welcome)
        async with websockets.connect(f"{base}/v1/source/py") as src:
            await src.send(json.dumps({"type": "hello", "device": {"name": "python", "width": 400, "height": 800}}))
            sw = json.loads(await src.recv())
            check("source welcome with id", sw.get("type") == "welcome" and sw.get("source", "").startswith("s"), sw)
            joined = json.loads(await obs.recv())
            check("joined notice", joined.get("event") == "joined" and joined.get("source") == sw.get("source"), joined)
            await src.send(json.dumps({"type": "frame", "seq": 1, "t": 10.5,
                                       "touches": [{"id": 1, "phase": "began", "x": 120.5, "y": 210}]}))
            mirror = json.loads(await obs.recv())
            check("raw mirror", mirror.get("type") == "touches" and mirror.get("seq") == 1
                  and mirror["touches"][0]["x"] == 120.5 and "rt" in mirror, mirror)
            await src.send('{"type":"frame","seq":2,"t":11,"touches":[{"id":1,"phase":"moved","x":NaN,"y":1}]}')
            err = json.loads(await src.recv())
            check("NaN refused as non_finite", err.get("code") == "non_finite", err)
        left = json.loads(await obs.recv())
        check("left notice on clean close", left.get("event") == "left", left)
    # A burst reaches an observer whole and in order, batched into few sends (no deflate) or
    # one compressed message per send (deflate).
    for comp in (None, "deflate"):
        async with websockets.connect(f"{base}/v1/observe/burst-{comp}?raw=1", compression=comp) as obs:
            await obs.recv()
            async with websockets.connect(f"{base}/v1/source/burst-{comp}", compression=comp) as src:
                await src.send(json.dumps({"type": "hello", "device": {"name": "burst", "width": 400, "height": 800}}))
                await src.recv()
                for i in range(1, 101):
                    await src.send(json.dumps({"type": "frame", "seq": i, "t": i * 16, "touches": [
                        {"id": 1, "phase": "began" if i == 1 else "moved", "x": i + 0.5, "y": 2}]}))
                seqs = []
                while len(seqs) < 100:
                    m = json.loads(await asyncio.wait_for(obs.recv(), 5))
                    if m.get("type") == "touches" and m["touches"][0]["x"] == m["seq"] + 0.5:
                        seqs.append(m["seq"])
                check(f"burst of 100 in order ({comp or 'no compression'})", seqs == list(range(1, 101)), seqs[:10])
    # permessage-deflate is negotiated, and the size limit counts inflated bytes.
    async with websockets.connect(f"{base}/v1/source/zip") as src:
        ext = src.response_headers.get("Sec-WebSocket-Extensions", "")
        check("permessage-deflate negotiated", "permessage-deflate" in ext, ext)
        await src.send('{"type":"frame","pad":"' + "a" * 200_000 + '"}')
        try:
            await asyncio.wait_for(src.recv(), 5)
            check("inflated oversize closes 1009", False, "no close")
        except websockets.ConnectionClosed as c:
            check("inflated oversize closes 1009", c.rcvd is not None and c.rcvd.code == 1009, c)


async def idle_deflate_memory(port, pid, count=300):
    """An idle observer with permessage-deflate: the compressor lws makes for it at the first
    write (the welcome) is the bulk of its memory. At --deflate-mem-level 4 (the default) it
    costs the server about a third of what zlib's default 8 does (PERFORMANCE.md has the figures)."""
    before = proc_rss_kb(pid)
    conns = []
    try:
        for i in range(count):
            ws = await websockets.connect(f"ws://127.0.0.1:{port}/v1/observe/idle-{i % 10}")
            conns.append(ws)
            await ws.recv()
        deflated = sum("permessage-deflate" in ws.response_headers.get("Sec-WebSocket-Extensions", "") for ws in conns)
        check("permessage-deflate on every idle observer", deflated == count, deflated)
        per = (proc_rss_kb(pid) - before) * 1024 / count
        check(f"idle deflate observer under 64 KB of server memory ({per:,.0f} bytes each)", per < 64_000, per)
    finally:
        for ws in conns:
            await ws.close()


def main():
    proc = start_relay(binary)
    try:
        port = relay_port(proc)
        asyncio.run(asyncio.wait_for(scenario(port), 20))
        asyncio.run(asyncio.wait_for(idle_deflate_memory(port, proc.pid), 30))
    except Exception as e:  # a crash of the scenario is a failure, not a traceback
        check("scenario ran", False, repr(e))
    finally:
        stop_relay(proc)
    check("exit 0 on SIGTERM", proc.returncode == 0, proc.returncode)
    finish()


main()
