"""Pens and pressure through the pad page, in Chromium (its DevTools protocol can give a touch
a force and a radius, and drive a pen: `Input.dispatchMouseEvent` with `pointerType: "pen"`,
its `force` and tilt). A raw observer (`?raw=1`, Python websockets) checks what the relay
received of each: a plain finger sends x and y only, as before; a finger with a measured force
and radius sends `pressure` and `radius`; a pen above the glass sends `hover: true` entries
(kind `pen`, no pressure), then, touching, `kind`, `pressure` and its angles from the tilt;
and the sketch scene's finished pen line has one width per point that follows the pressure
(gestures.md, sketch). Then the watch page shows a `shape` gesture of a source that draws one
of its templates: its name and score, as the other gestures are shown."""
import asyncio
import json
import math

import websockets

SKETCH_WIDTH = 4.0  # gestures.md, sketch: the width of a line without pressure, in points


def sketch_width(pressure):
    """gestures.md, sketch: 4 × (0.25 + 1.5 × pressure) points."""
    return SKETCH_WIDTH * (0.25 + 1.5 * pressure)


async def raw_until(ws, done, timeout=8):
    """Raw `touches` entries (with their frame's seq) until `done(entries)` or the timeout."""
    entries, scenes = [], []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not done(entries, scenes) and loop.time() < deadline:
        try:
            m = json.loads(await asyncio.wait_for(ws.recv(), deadline - loop.time()))
        except asyncio.TimeoutError:
            break
        if m.get("type") == "touches":
            entries += m["touches"]
        elif m.get("type") == "scene":
            scenes.append(m["state"])
    return entries, scenes


async def touch(page, kind, points):
    await page.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


async def pen(page, kind, x, y, buttons, force=0.0, tilt_x=0, tilt_y=0):
    await page.send("Input.dispatchMouseEvent", {
        "type": kind, "x": x, "y": y, "pointerType": "pen", "button": "left" if kind != "mouseMoved" or buttons else "none",
        "buttons": buttons, "clickCount": 1 if kind != "mouseMoved" else 0, "force": force, "tiltX": tilt_x,
        "tiltY": tilt_y})


async def check_pens(browser, base, failures):
    session = f"e2e-{browser.name}-pens"
    ws_base = "ws" + base[len("http"):]
    obs = await websockets.connect(f"{ws_base}/v1/observe/{session}?raw=1", subprotocols=["touchrelay.v1"])
    await obs.recv()  # welcome
    page = await browser.open_page("pad-pens", 390, 844, True)
    await page.navigate(f"{base}/pad/{session}?scene=sketch")
    await page.wait_for("document.getElementById('state').className.includes('live')")
    r = await page.eval("document.getElementById('surface').getBoundingClientRect().toJSON()")
    left, top = r["x"], r["y"]
    x0, y0 = left + 60, top + 200

    # A plain finger: no force, no radius given: the frame has x and y only, as before.
    await touch(page, "touchStart", [{"x": x0, "y": y0, "id": 1}])
    await asyncio.sleep(0.05)
    await touch(page, "touchEnd", [])
    got, _ = await raw_until(obs, lambda e, s: any(t["phase"] == "ended" for t in e))
    began = next((t for t in got if t["phase"] == "began"), None)
    print(f"   plain finger: {began}")
    if began is None or set(began) != {"id", "phase", "x", "y"}:
        failures.append(f"a plain finger's entry should have id, phase, x, y only: {began}")

    # A finger whose screen measures force and size.
    await asyncio.sleep(0.6)  # past the double-tap wait
    await touch(page, "touchStart", [{"x": x0, "y": y0 + 100, "id": 1, "force": 0.4, "radiusX": 12, "radiusY": 9}])
    await asyncio.sleep(0.05)
    await touch(page, "touchEnd", [])
    got, _ = await raw_until(obs, lambda e, s: any(t["phase"] == "ended" for t in e))
    began = next((t for t in got if t["phase"] == "began"), None)
    print(f"   finger with force 0.4, radius 12x9: {began}")
    if began is None or began.get("pressure") != 0.4 or began.get("radius") != 12 or "kind" in began:
        failures.append(f"a finger with force 0.4 and radii 12, 9: expected pressure 0.4, radius 12: {began}")

    # A pen: above the glass, then down with a light touch drawing to a hard one, tilted 30°.
    await asyncio.sleep(0.6)
    px, py = left + 80, top + 420
    for i in range(3):
        await pen(page, "mouseMoved", px - 30 + 10 * i, py, 0)
        await asyncio.sleep(0.02)
    await pen(page, "mousePressed", px, py, 1, force=0.2, tilt_x=30)
    steps = 12
    for i in range(1, steps + 1):
        await pen(page, "mouseMoved", px + 15 * i, py + 4 * i, 1, force=0.2 + 0.6 * i / steps, tilt_x=30)
        await asyncio.sleep(0.02)
    await pen(page, "mouseReleased", px + 15 * steps, py + 4 * steps, 0, tilt_x=30)
    got, scenes = await raw_until(
        obs, lambda e, s: any(t["phase"] == "ended" and not t.get("hover") for t in e) and s and s[-1]["lines"]
        and len(s[-1]["lines"]) and not s[-1]["drawing"])
    hover = [t for t in got if t.get("hover")]
    contact = [t for t in got if not t.get("hover") and t.get("kind") == "pen"]
    print(f"   pen: {len(hover)} hover entries (first {hover[:1]}), {len(contact)} touching (first {contact[:1]})")
    if not hover or any(t.get("kind") != "pen" or "pressure" in t or "force" in t for t in hover):
        failures.append(f"a pen above the glass: expected hover entries of kind pen without pressure or force: {hover[:3]}")
    if hover and hover[0]["phase"] != "began":
        failures.append(f"the pen's hover should begin: {hover[0]}")
    if any(t["id"] >= 0 for t in hover + contact):
        failures.append("a pen's entries should have ids no touch identifier has (negative)")
    began = next((t for t in contact if t["phase"] == "began"), None)
    if began is None or abs(began.get("pressure", -1) - 0.2) > 0.01:
        failures.append(f"the pen touching: expected kind pen, pressure 0.2: {began}")
    # tiltX 30°, tiltY 0 (Pointer Events Level 3): altitude 60° (π/3), azimuth 0.
    if began is not None and (abs(began.get("altitude", -1) - math.pi / 3) > 0.01 or began.get("azimuth", -1) != 0):
        failures.append(f"the pen tilted 30° along x: expected altitude π/3 and azimuth 0: {began}")
    hover_ends = [i for i, t in enumerate(got) if t.get("hover") and t["phase"] == "ended"]
    contact_begins = [i for i, t in enumerate(got) if t in contact and t["phase"] == "began"]
    if not hover_ends or not contact_begins or hover_ends[0] > contact_begins[0]:
        failures.append("the pen's hover should end before its touch begins")
    line = scenes[-1]["lines"][-1] if scenes and scenes[-1]["lines"] else None
    widths = line.get("widths") if line else None
    print(f"   sketch: the pen's line has widths {widths}")
    if not widths or len(widths) != len(line["points"]):
        failures.append(f"the sketch's pen line should carry one width per point: {line}")
    elif abs(widths[0] - sketch_width(0.2)) > 0.05 or not widths[-1] > widths[0] + 2:
        failures.append(f"the sketch's pen line widths should grow with pressure from {sketch_width(0.2)}: {widths}")
    await obs.close()
    if hasattr(page, "collect_problems"):
        await page.collect_problems()
    for p in page.problems:
        failures.append(f"{page.name} page: {p}")


# A right-angled triangle, one stroke, as a source's template and as what it draws.
TRIANGLE = [[100, 300], [200, 100], [300, 300], [100, 300]]


def along(points, n):
    """`n` points evenly along the polyline."""
    cum = [0.0]
    for a, b in zip(points, points[1:]):
        cum.append(cum[-1] + math.dist(a, b))
    out, j = [], 0
    for k in range(n):
        d = cum[-1] * k / (n - 1)
        while j < len(points) - 2 and cum[j + 1] < d:
            j += 1
        f = (d - cum[j]) / (cum[j + 1] - cum[j])
        a, b = points[j], points[j + 1]
        out.append([round(a[0] + (b[0] - a[0]) * f, 2), round(a[1] + (b[1] - a[1]) * f, 2)])
    return out


async def check_shape_label(browser, base, failures):
    """The watch page shows a `shape` gesture with its name and score."""
    session = f"e2e-{browser.name}-shape"
    ws_base = "ws" + base[len("http"):]
    watch = await browser.open_page("watch-shape", 1280, 860, False)
    await watch.navigate(f"{base}/watch/{session}")
    await watch.wait_for("document.getElementById('state').className.includes('live')")
    async with websockets.connect(f"{ws_base}/v1/source/{session}", subprotocols=["touchrelay.v1"]) as src:
        await src.send(json.dumps({"type": "hello", "device": {"name": "shapes", "width": 400, "height": 400},
                                   "config": {"shapes": [{"name": "triangle", "strokes": [TRIANGLE]}]}}))
        await src.recv()
        points = along(TRIANGLE, 40)
        for i, (x, y) in enumerate(points):
            phase = "began" if i == 0 else "ended" if i == len(points) - 1 else "moved"
            await src.send(json.dumps({"type": "frame", "seq": i + 1, "t": 1000 + 16 * i,
                                       "touches": [{"id": 1, "phase": phase, "x": x, "y": y}]}))
            await asyncio.sleep(0.005)
        log = "[...document.querySelectorAll('.source .log li')].map(li => li.textContent)"
        try:
            await watch.wait_for(f"{log}.some(t => t.startsWith('shape triangle'))", timeout=5)
        except AssertionError:
            pass
        entries = await watch.eval(log)
    shown = [e for e in entries or [] if e.startswith("shape")]
    print(f"   watch log of a drawn triangle: {shown}")
    if not shown or not shown[0].startswith("shape triangle ") or not shown[0].endswith("%"):
        failures.append(f"the watch page should log the shape with its name and score: {entries}")
    if hasattr(watch, "collect_problems"):
        await watch.collect_problems()
    for p in watch.problems:
        failures.append(f"{watch.name} page: {p}")
