#!/usr/bin/python3
"""Drives the pad page in headless Chromium with real touch input (DevTools protocol,
Input.dispatchTouchEvent) and checks with a browser-free observer that the gestures arrived;
saves a screenshot of the watch page. Any JavaScript exception or console error fails it."""
import argparse
import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import websockets

SESSION = "e2e"


class CDP:
    """One DevTools connection to the browser; pages are flattened sessions on it."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.pending = {}
        self.listeners = []
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self):
        async for raw in self.ws:
            m = json.loads(raw)
            if "id" in m:
                fut = self.pending.pop(m["id"], None)
                if fut and not fut.done():
                    if "error" in m:
                        fut.set_exception(RuntimeError(f"CDP error: {m['error']}"))
                    else:
                        fut.set_result(m.get("result", {}))
            else:
                for listener in self.listeners:
                    listener(m)

    async def send(self, method, params=None, session=None, timeout=20):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        fut = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        await self.ws.send(json.dumps(msg))
        return await asyncio.wait_for(fut, timeout)


class Page:
    def __init__(self, cdp, name, session):
        self.cdp = cdp
        self.name = name
        self.session = session
        self.problems = []

    async def send(self, method, params=None):
        return await self.cdp.send(method, params, self.session)

    async def eval(self, expression):
        r = await self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{self.name}: {expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    async def wait_for(self, expression, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if await self.eval(expression):
                    return
            except RuntimeError:
                pass  # the page is still loading
            await asyncio.sleep(0.05)
        raise AssertionError(f"{self.name}: timed out waiting for {expression}")


async def open_page(cdp, name, width, height, mobile):
    target = (await cdp.send("Target.createTarget", {"url": "about:blank", "newWindow": True}))["targetId"]
    session = (await cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    page = Page(cdp, name, session)

    def on_event(m):
        if m.get("sessionId") != session:
            return
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text")
            page.problems.append(f"exception: {text} ({d.get('url')}:{d.get('lineNumber')})")
        elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
            e = p["entry"]
            page.problems.append(f"log error: {e.get('text')} ({e.get('url', '')})")
        elif method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
            page.problems.append(f"console.{p['type']}: {args}")

    cdp.listeners.append(on_event)
    for domain in ("Runtime", "Log", "Page"):
        await page.send(f"{domain}.enable")
    await page.send("Emulation.setDeviceMetricsOverride",
                    {"width": width, "height": height, "deviceScaleFactor": 2 if mobile else 1, "mobile": mobile})
    await page.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
    if mobile:
        await page.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return page


async def touch(pad, kind, points):
    """One Input.dispatchTouchEvent; `points` are (id, x, y) of the touches down after it
    (touchEnd: the ones that stay down)."""
    await pad.send("Input.dispatchTouchEvent", {
        "type": kind,
        "touchPoints": [{"x": x, "y": y, "id": i, "radiusX": 8, "radiusY": 8, "force": 1} for i, x, y in points],
    })


async def tap(pad, x, y, hold=0.05):
    await touch(pad, "touchStart", [(0, x, y)])
    await asyncio.sleep(hold)
    await touch(pad, "touchEnd", [])


async def drag(pad, start, end, steps, dt, finger=0):
    (x0, y0), (x1, y1) = start, end
    await touch(pad, "touchStart", [(finger, x0, y0)])
    for k in range(1, steps + 1):
        await asyncio.sleep(dt)
        await touch(pad, "touchMove", [(finger, x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps)])
    await asyncio.sleep(dt)
    await touch(pad, "touchEnd", [])


async def pinch(pad, cx, cy, d0, d1, steps, dt):
    await touch(pad, "touchStart", [(0, cx - d0, cy)])
    await asyncio.sleep(0.02)
    await touch(pad, "touchStart", [(0, cx - d0, cy), (1, cx + d0, cy)])
    for k in range(1, steps + 1):
        await asyncio.sleep(dt)
        d = d0 + (d1 - d0) * k / steps
        await touch(pad, "touchMove", [(0, cx - d, cy), (1, cx + d, cy)])
    await asyncio.sleep(dt)
    await touch(pad, "touchEnd", [(1, cx + d1, cy)])
    await asyncio.sleep(0.03)
    await touch(pad, "touchEnd", [])


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("e2e: chromium is not installed")


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    base = args.base.rstrip("/")
    ws_base = "ws" + base[len("http"):]
    failures = []

    profile = tempfile.mkdtemp(prefix="touchrelay-e2e-")
    flags = ["--headless=new", "--remote-debugging-port=0", f"--user-data-dir={profile}", "--no-first-run",
             "--no-default-browser-check", "--disable-gpu", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update", "--mute-audio",
             "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
             "--disable-backgrounding-occluded-windows", "--disable-dev-shm-usage"]
    if os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to run its sandbox as root
    browser = subprocess.Popen([chromium_binary(), *flags, "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file) or len(open(port_file).read().split()) < 2:
            if time.monotonic() > deadline or browser.poll() is not None:
                sys.exit("e2e: chromium did not start")
            await asyncio.sleep(0.1)
        port, path = open(port_file).read().split()[:2]
        async with websockets.connect(f"ws://127.0.0.1:{port}{path}", max_size=None) as ws:
            cdp = CDP(ws)
            await run(cdp, base, ws_base, args.out, failures)
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        shutil.rmtree(profile, ignore_errors=True)

    if failures:
        print("e2e: FAILED")
        for f in failures:
            print("  -", f)
        sys.exit(1)
    print("e2e: passed")


async def run(cdp, base, ws_base, out, failures):
    # The browser-free observer: what any program of the session would see.
    observer = await websockets.connect(f"{ws_base}/v1/observe/{SESSION}", subprotocols=["touchrelay.v1"])
    welcome = json.loads(await observer.recv())
    assert welcome["type"] == "welcome", welcome
    received = []

    async def collect():
        async for raw in observer:
            received.append(json.loads(raw))

    collector = asyncio.ensure_future(collect())

    watch = await open_page(cdp, "watch", 1280, 860, False)
    await watch.send("Page.navigate", {"url": f"{base}/watch/{SESSION}"})
    await watch.wait_for("document.getElementById('state').className.includes('live')")
    await watch.wait_for("document.getElementById('qr').complete && document.getElementById('qr').naturalWidth > 0")

    pad = await open_page(cdp, "pad", 390, 844, True)
    await pad.send("Page.navigate", {"url": f"{base}/pad/{SESSION}?scene=sketch"})
    await pad.wait_for("document.getElementById('state').className.includes('live')")
    has_touch = await pad.eval("'ontouchstart' in window")
    if not has_touch:
        failures.append("touch emulation: the pad page sees no Touch Events")
    rect = await pad.eval("JSON.stringify(document.getElementById('surface').getBoundingClientRect())")
    r = json.loads(rect)
    cx, cy = r["x"] + r["width"] / 2, r["y"] + r["height"] / 2
    print(f"   pad surface {r['width']:.0f}x{r['height']:.0f} at y={r['y']:.0f}")

    # A tap, a double tap, a two-finger pinch, a pan: real touch input through Chromium.
    await tap(pad, cx - 80, cy - 200)
    await asyncio.sleep(0.6)  # past the double-tap wait: reported as a single tap
    await tap(pad, cx + 60, cy - 120)
    await asyncio.sleep(0.08)
    await tap(pad, cx + 62, cy - 118)
    await asyncio.sleep(0.6)
    await pinch(pad, cx, cy, 50, 130, 12, 0.03)
    await asyncio.sleep(0.5)
    await drag(pad, (cx - 110, cy + 200), (cx + 90, cy + 230), 20, 0.03)
    await asyncio.sleep(1.0)

    collector.cancel()
    await observer.close()
    gestures = [m for m in received if m.get("type") == "gesture"]
    done = [g for g in gestures if g["state"] in ("recognized", "ended")]
    summary = ", ".join(f"{g['gesture']}:{g['state']}" + (f"(taps {g['taps']})" if "taps" in g else "") for g in done)
    print(f"   observer got {len(received)} messages, {len(gestures)} gesture events: {summary}")

    taps = [g for g in done if g["gesture"] == "tap" and g["touches"] == 1]
    if [g.get("taps") for g in taps] != [1, 2]:
        failures.append(f"expected a single tap then a double tap, got taps {[g.get('taps') for g in taps]}")
    pinches = [g for g in done if g["gesture"] == "pinch"]
    if not pinches or not pinches[-1].get("scale", 0) > 2.0:
        failures.append(f"expected a pinch ending with scale > 2 (130/50 = 2.6), got {pinches}")
    elif any(g["gesture"] == "pinch" and g["state"] == "began" for g in gestures) is False:
        failures.append("pinch never began")
    pans = [g for g in done if g["gesture"] == "pan"]
    if not pans or abs(pans[-1]["translation"]["x"] - 200) > 15 or abs(pans[-1]["translation"]["y"] - 30) > 15:
        failures.append(f"expected a pan ending near translation (200, 30), got {pans}")
    sources = {m["source"] for m in received if m.get("type") == "source" and m.get("event") == "joined"}
    if len(sources) != 1:
        failures.append(f"expected one source to join, got {sources}")

    # What the pages show.
    last = await pad.eval("document.getElementById('gesture').textContent")
    print(f"   pad shows last gesture: {last!r}")
    if "pan" not in last and "swipe" not in last:
        failures.append(f"the pad's last gesture is {last!r}, expected the pan (or its swipe)")
    log = await watch.eval("[...document.querySelectorAll('.source .log li')].map(li => li.textContent)")
    stats = await watch.eval("(document.querySelector('.source .stats') || {}).textContent")
    print(f"   watch log: {log}")
    print(f"   watch stats: {stats}")
    for want in ("tap", "double tap", "pinch ×", "pan "):
        if not any(entry.startswith(want) for entry in log or []):
            failures.append(f"the watch page's log shows no {want!r}: {log}")
    lines = await watch.eval(
        "(() => { const s = [...document.querySelectorAll('.source')]; return s.length; })()")
    if lines != 1:
        failures.append(f"the watch page shows {lines} source panels, expected 1")

    shot = await watch.send("Page.captureScreenshot", {"format": "png"})
    with open(os.path.join(out, "watch.png"), "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    shot = await pad.send("Page.captureScreenshot", {"format": "png"})
    with open(os.path.join(out, "pad.png"), "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    print(f"   screenshots: {out}/watch.png, {out}/pad.png")

    # The landing page lists the live session and builds the URLs for a typed name.
    landing = await open_page(cdp, "landing", 1024, 768, False)
    await landing.send("Page.navigate", {"url": f"{base}/"})
    await landing.wait_for("document.readyState === 'complete'")
    listed = await landing.eval(f"!!document.querySelector('#sessions a[href=\"/watch/{SESSION}\"]')")
    if not listed:
        failures.append("the landing page does not list the live session")
    await landing.eval("(() => { const i = document.getElementById('session'); i.value = 'stage-2';"
                       " i.dispatchEvent(new Event('input')); })()")
    pad_url = await landing.eval("document.getElementById('pad-url').textContent")
    if pad_url != f"{base}/pad/stage-2":
        failures.append(f"the landing page's pad URL for 'stage-2' is {pad_url!r}")

    for page in (pad, watch, landing):
        for p in page.problems:
            failures.append(f"{page.name} page: {p}")


if __name__ == "__main__":
    asyncio.run(main())
