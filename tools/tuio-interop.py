#!/usr/bin/env python3
"""TUIO interop with an independent OSC implementation: liblo (a C OSC library, through
Debian's python3-liblo) sends TUIO 1.1 and TUIO 2.0 bundles to a real touch-relay
(--tuio-udp) and receives what it sends out (--tuio-out); a Python websockets observer gets
the gestures of a TUIO tap, pan and pinch, a raw observer a TUIO 2.0 pointer's pressure and
radius, and a ?format=tuio observer gets OSC bundles.
Prints 'N passed, M failed'.

usage: tools/tuio-interop.py [path/to/touch-relay]   (Debian: python3-liblo python3-websockets)
"""
import asyncio, json, sys, time

sys.dont_write_bytecode = True  # no __pycache__ in tools/

import liblo
import websockets

from relaytools import check, finish, free_udp_port, relay_port, start_relay, stop_relay

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/touch-relay"


def cur(*args):
    return liblo.Message("/tuio/2Dcur", *args)


def tuio11(fseq, fingers, source):
    """A TUIO 1.1 cursor bundle: source, alive, set per finger (s_id x y X Y m), fseq."""
    msgs = [cur("source", source), cur("alive", *[("i", f[0]) for f in fingers])]
    for sid, x, y in fingers:
        msgs.append(cur("set", ("i", sid), ("f", x), ("f", y), ("f", 0.0), ("f", 0.0), ("f", 0.0)))
    msgs.append(cur("fseq", ("i", fseq)))
    return liblo.Bundle(*msgs)


def tuio20(frame, fingers, source, dim=(1000, 500), radius=0.0, press=0.0):
    """A TUIO 2.0 pointer bundle: frm (f_id time dim source), ptr per finger
    (s_id tu_id c_id x y angle shear radius press), alv."""
    msgs = [liblo.Message("/tuio2/frm", ("i", frame), ("t", time.time()), ("i", dim[0] << 16 | dim[1]), ("s", source))]
    for sid, x, y in fingers:
        msgs.append(liblo.Message("/tuio2/ptr", ("i", sid), ("i", 0), ("i", 0), ("f", x), ("f", y),
                                  ("f", 0.0), ("f", 0.0), ("f", radius), ("f", press)))
    msgs.append(liblo.Message("/tuio2/alv", *[("i", f[0]) for f in fingers]))
    return liblo.Bundle(*msgs)


async def gestures_until(ws, wanted, timeout=10):
    """JSON messages from `ws` until every gesture kind in `wanted` was seen ended or recognized."""
    seen, sources = {}, []
    deadline = time.monotonic() + timeout
    while set(wanted) - set(seen) and time.monotonic() < deadline:
        try:
            m = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
        except asyncio.TimeoutError:
            break
        if m.get("type") == "source":
            sources.append(m)
        if m.get("type") == "gesture" and m.get("state") in ("ended", "recognized"):
            seen.setdefault(m["gesture"], m)
    return seen, sources


async def scenario(ws_port, tuio_port, out):
    target = liblo.Address("127.0.0.1", tuio_port, liblo.UDP)
    base = f"ws://127.0.0.1:{ws_port}"
    async with websockets.connect(f"{base}/v1/observe/tuio") as obs, \
            websockets.connect(f"{base}/v1/observe/tuio?format=tuio") as osc_obs, \
            websockets.connect(f"{base}/v1/observe/tuio?raw=1&gestures=") as raw_obs:
        check("observer welcome", json.loads(await obs.recv()).get("type") == "welcome")
        await raw_obs.recv()
        check("format=tuio observer welcome is JSON", json.loads(await osc_obs.recv()).get("type") == "welcome")

        # A tap (TUIO 1.1): down, held a frame, up.
        for i, fingers in enumerate([[(1, 0.2, 0.3)], [(1, 0.2, 0.3)], []], start=1):
            liblo.send(target, tuio11(i, fingers, "liblo-tap"))
            await asyncio.sleep(0.016)
        # A pan (TUIO 1.1, another sender): one finger across a third of the surface.
        for i in range(25):
            liblo.send(target, tuio11(i + 1, [(7, 0.3 + i * 0.015, 0.5)], "liblo-pan"))
            await asyncio.sleep(0.016)
        liblo.send(target, tuio11(26, [], "liblo-pan"))
        # A pinch (TUIO 2.0): two fingers apart.
        for i in range(25):
            d = 0.05 + i * 0.01
            liblo.send(target, tuio20(i + 1, [(1, 0.5 - d, 0.5), (2, 0.5 + d, 0.5)], "liblo-pinch:0@0x7F000001"))
            await asyncio.sleep(0.016)
        liblo.send(target, tuio20(26, [], "liblo-pinch:0@0x7F000001"))
        # A pen (TUIO 2.0): pressure 0.5, radius 1/16 of the 1000-point-wide sensor.
        for i in range(3):
            liblo.send(target, tuio20(i + 1, [(3, 0.2 + i * 0.01, 0.2)], "liblo-pen:0@0x7F000001",
                                      radius=0.0625, press=0.5))
            await asyncio.sleep(0.016)
        liblo.send(target, tuio20(4, [], "liblo-pen:0@0x7F000001"))

        seen, sources = await gestures_until(obs, ["tap", "pan", "pinch"])
        names = {s.get("device", {}).get("name") for s in sources if s.get("event") == "joined"}
        check("TUIO 1.1 and 2.0 senders joined as sources",
              {"liblo-tap", "liblo-pan", "liblo-pinch:0@0x7F000001"} <= names, names)
        check("the TUIO 2.0 sender's dim is its surface",
              any(s["device"]["width"] == 1000 and s["device"]["height"] == 500 for s in sources), sources)
        tap = seen.get("tap")
        check("a TUIO tap is a tap where it was", tap is not None and abs(tap["x"] - 0.2 * 1920) < 0.01
              and abs(tap["y"] - 0.3 * 1080) < 0.01, tap)
        pan = seen.get("pan")
        check("a TUIO drag is a pan", pan is not None and pan["translation"]["x"] > 300, pan)
        pinch = seen.get("pinch")
        check("TUIO 2.0 fingers apart are a pinch", pinch is not None and pinch["scale"] > 2, pinch)

        pen = None
        deadline = time.monotonic() + 5
        while pen is None and time.monotonic() < deadline:
            m = json.loads(await asyncio.wait_for(raw_obs.recv(), 5))
            if m.get("type") == "touches":
                pen = next((t for t in m["touches"] if "pressure" in t), None)
        check("a TUIO 2.0 pointer's press and radius are the touch's pressure and radius (points)",
              pen is not None and pen["pressure"] == 0.5 and pen["radius"] == 62.5, pen)

        first = await asyncio.wait_for(osc_obs.recv(), 5)
        while isinstance(first, str):
            first = await asyncio.wait_for(osc_obs.recv(), 5)
        check("format=tuio sends OSC bundles as binary frames", first.startswith(b"#bundle\0"), first[:16])

    # What --tuio-out sent, read by liblo's server.
    sets, gestures, fseqs = [], [], []

    def on_message(path, args, types, src):
        if path == "/tuio/2Dcur" and args[0] == "set":
            sets.append((args[2], args[3]))
        elif path == "/tuio/2Dcur" and args[0] == "fseq":
            fseqs.append(args[1])
        elif path == "/touchrelay/gesture":
            gestures.append(args)

    out.add_method(None, None, on_message)
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and out.recv(100):
        pass
    check("--tuio-out sent /tuio/2Dcur set messages", len(sets) > 20, len(sets))
    check("--tuio-out positions are the TUIO ones", any(abs(x - 0.2) < 1e-6 and abs(y - 0.3) < 1e-6 for x, y in sets),
          sets[:3])
    kinds = {g[1] for g in gestures}
    check("--tuio-out sent /touchrelay/gesture for tap, pan and pinch", {"tap", "pan", "pinch"} <= kinds, kinds)
    tap = next((g for g in gestures if g[1] == "tap"), None)
    check("gesture arguments: source, gesture, state, id, x, y (normalized), touches",
          tap is not None and tap[0].startswith("s") and tap[2] == "recognized" and abs(tap[4] - 0.2) < 1e-6
          and abs(tap[5] - 0.3) < 1e-6 and tap[6] == 1, tap)


def main():
    tuio_port = free_udp_port()
    out = liblo.Server(free_udp_port(), liblo.UDP)
    proc = start_relay(binary, "--tuio-udp", f"127.0.0.1:{tuio_port}", "--tuio-out", f"tuio=127.0.0.1:{out.port}")
    try:
        asyncio.run(scenario(relay_port(proc), tuio_port, out))
    finally:
        stop_relay(proc)
    finish()


main()
