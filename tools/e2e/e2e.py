#!/usr/bin/python3
"""Drives the pad page in real browsers with real input and checks with a browser-free
observer that the gestures arrived; checks what the watch and landing pages show and saves
screenshots; then the watch page as a big screen (`wall.py`) and a recording played back
(`replay.py`, once per engine). Any JavaScript exception,
console error or failed request (an HTTP error status, or no answer) fails it.

  e2e.py --base http://127.0.0.1:PORT --out DIR [--plain-base http://127.0.0.1:PORT2]
         [--browser chromium,firefox,webkit]

--plain-base: a second server, one that does not record (no --record): its watch page must
show no recordings and ask for none it cannot have.

- chromium: headless, DevTools protocol, phone metrics with Touch Events (as Android's
  Chrome): tap, double tap, pinch, pan.
- firefox: headless, WebDriver BiDi, touch pointers (desktop Firefox has Pointer Events
  only): the same gestures through the pad's Pointer Events path.
- firefox-touch: the same with Firefox's Touch Events on (as in Firefox for Android): the
  pad's Touch Events path in Gecko.
- webkit: WebKitGTK under Xvfb, classic WebDriver, the engine of Safari: one finger (its
  driver has one pointer), so tap, double tap and pan; no pinch.
Each browser uses a session of its own (`e2e-<browser>`) on the same server.
In Chromium, pens, force and contact size (`pens.py`): what the pad sends of each; in every
browser, the watch page's label of a `shape` gesture.
In each browser, docs/examples/big-screen.html, served from another origin (a plain HTTP
server of this script), imports /sdk/touchrelay.js from the relay (CORS) and observes the
session: it must list the pad's gestures."""
import argparse
import asyncio
import functools
import http.server
import json
import os
import sys
import threading

import websockets

from pens import check_pens, check_shape_label
from touches import drag, pinch, tap
from replay import check_replay
from wall import check_wall

BROWSERS = ("chromium", "firefox", "firefox-touch", "webkit")


def browser_named(name):
    if name == "chromium":
        from chromium import Chromium
        return Chromium()
    if name.startswith("firefox"):
        from firefox import Firefox
        return Firefox(touch_events=name == "firefox-touch")
    from webkit import WebKit
    return WebKit()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--plain-base", help="a server without --record, for its watch page")
    ap.add_argument("--browser", default=",".join(BROWSERS),
                    help="comma-separated, of " + ", ".join(BROWSERS) + " (default: all)")
    args = ap.parse_args()
    base = args.base.rstrip("/")
    names = [n.strip() for n in args.browser.split(",") if n.strip()]
    unknown = [n for n in names if n not in BROWSERS]
    if unknown or not names:
        sys.exit(f"e2e: unknown browser {unknown}; choose from {', '.join(BROWSERS)}")
    site = other_origin_site()
    failures = []
    for name in names:
        print(f"== {name}")
        browser = browser_named(name)
        found = []
        try:
            await browser.start()
            await run(browser, base, site, args.out, found)
            # Pens, force and size need input only the DevTools protocol gives.
            if name == "chromium":
                await check_pens(browser, base, found)
            await check_shape_label(browser, base, found)
            await check_wall(browser, base, args.out, found)
            # Keys and the mouse are the same in firefox-touch as in firefox: played once per engine.
            if name != "firefox-touch":
                await check_replay(browser, base, args.out, found)
            if args.plain_base:
                await check_watch_without_recording(browser, args.plain_base.rstrip("/"), found)
        except Exception as e:  # a browser that fails to start or to answer fails the check
            found.append(f"{type(e).__name__}: {e}")
        finally:
            await browser.stop()
        failures += [f"{name}: {f}" for f in found]

    site.shutdown()
    if failures:
        print("e2e: FAILED")
        for f in failures:
            print("  -", f)
        sys.exit(1)
    print("e2e: passed (" + ", ".join(names) + ")")


def other_origin_site():
    """docs/examples on 127.0.0.1 at a port of its own: another origin than the relay's."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "examples")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=root))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


async def run(browser, base, site, out, failures):
    name = browser.name
    session = f"e2e-{name}"
    ws_base = "ws" + base[len("http"):]
    # The browser-free observer: what any program of the session would see.
    observer = await websockets.connect(f"{ws_base}/v1/observe/{session}", subprotocols=["touchrelay.v1"])
    welcome = json.loads(await observer.recv())
    assert welcome["type"] == "welcome", welcome
    received = []

    async def collect():
        async for raw in observer:
            received.append(json.loads(raw))

    collector = asyncio.ensure_future(collect())

    watch = await browser.open_page("watch", 1280, 860, False)
    await watch.navigate(f"{base}/watch/{session}")
    await watch.wait_for("document.getElementById('state').className.includes('live')")
    await watch.wait_for("document.getElementById('qr').complete && document.getElementById('qr').naturalWidth > 0")

    # A big-screen app of another origin, on the module the relay serves.
    relay = base[len("http://"):]
    big = await browser.open_page("big-screen", 1024, 768, False)
    await big.navigate(f"http://127.0.0.1:{site.server_address[1]}/big-screen.html?relay={relay}&session={session}")
    await big.wait_for("document.getElementById('state').textContent === 'live'")

    pad = await browser.open_page("pad", 390, 844, True)
    await pad.navigate(f"{base}/pad/{session}?scene=sketch")
    await pad.wait_for("document.getElementById('state').className.includes('live')")
    has_touch = await pad.eval("'ontouchstart' in window")
    if name in ("chromium", "firefox-touch") and not has_touch:
        failures.append("the pad page sees no Touch Events")
    r = await pad.eval("document.getElementById('surface').getBoundingClientRect().toJSON()")
    cx, cy = r["x"] + r["width"] / 2, r["y"] + r["height"] / 2
    print(f"   pad surface {r['width']:.0f}x{r['height']:.0f} at y={r['y']:.0f}; "
          f"input through {'Touch' if has_touch else 'Pointer'} Events")
    # The pan's end and length fit the smallest surface (WebKit's window less its decorations).
    dy = min(200, r["height"] / 2 - 40)

    # A tap, a double tap, a two-finger pinch (where the browser has two fingers), a pan.
    await pad.touches(tap(cx - 80, cy - dy))
    await asyncio.sleep(0.6)  # past the double-tap wait: reported as a single tap
    await pad.touches(tap(cx + 60, cy - dy * 0.6) + [(0.08, [(0, cx + 62, cy - dy * 0.6 + 2)]), (0.05, [])])
    await asyncio.sleep(0.6)
    pinched = browser.max_fingers >= 2
    if pinched:
        await pad.touches(pinch(cx, cy, 50, 130, 12, 0.03))
        await asyncio.sleep(0.5)
    await pad.touches(drag((cx - 110, cy + dy), (cx + 90, cy + dy + 30), 20, 0.03))
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
    if pinched:
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
    stats = await watch.eval("(document.querySelector('.source-stat .stats') || {}).textContent")
    print(f"   watch log: {log}")
    print(f"   watch stats: {stats}")
    for want in ("tap", "double tap", "pinch ×", "pan ") if pinched else ("tap", "double tap", "pan "):
        if not any(entry.startswith(want) for entry in log or []):
            failures.append(f"the watch page's log shows no {want!r}: {log}")
    # The same gestures as the browser-free observer saw, of the kinds the page asks for.
    wanted = [g["gesture"] for g in done if g["gesture"] in ("tap", "pan", "pinch")]
    listed = "[...document.querySelectorAll('#gestures li')].map(li => li.textContent)"
    try:
        await big.wait_for(f"{listed}.length >= {len(wanted)}", timeout=5)
    except AssertionError:
        pass
    shown = await big.eval(listed)
    print(f"   big screen (another origin) lists: {shown}")
    if shown != wanted or not wanted:
        failures.append(f"the big-screen page of another origin lists {shown}, expected {wanted}")
    await check_batched_samples(big, relay, session, failures)
    panels = await watch.eval("document.querySelectorAll('#sources [data-source-id]').length")
    if panels != 1:
        failures.append(f"the watch page shows {panels} source tiles, expected 1")

    shots = [os.path.join(out, f"{page.name}-{name}.png") for page in (watch, pad)]
    await watch.screenshot(shots[0])
    await pad.screenshot(shots[1])
    print(f"   screenshots: {', '.join(shots)}")

    # The landing page lists the live session and builds the URLs for a typed name.
    landing = await browser.open_page("landing", 1024, 768, False)
    await landing.navigate(f"{base}/")
    await landing.wait_for("document.readyState === 'complete' && !!document.getElementById('pad-url')")
    try:
        await landing.wait_for(f"!!document.querySelector('#sessions a[href=\"/watch/{session}\"]')", timeout=5)
    except AssertionError:
        failures.append("the landing page does not list the live session")
    await landing.eval("(() => { const i = document.getElementById('session'); i.value = 'stage-2';"
                       " i.dispatchEvent(new Event('input')); return true; })()")
    pad_url = await landing.eval("document.getElementById('pad-url').textContent")
    if pad_url != f"{base}/pad/stage-2":
        failures.append(f"the landing page's pad URL for 'stage-2' is {pad_url!r}")

    for page in (pad, watch, big, landing):
        if hasattr(page, "collect_problems"):
            await page.collect_problems()
        for p in page.problems:
            failures.append(f"{page.name} page: {p}")


async def check_watch_without_recording(browser, base, failures):
    """The watch page of a server that does not record, while a source joins (the page looks
    for recordings on its welcome and on every source notice): no download offered, and no
    failed request for a list the server cannot have."""
    session = f"e2e-{browser.name}-plain"
    watch = await browser.open_page("watch-plain", 1024, 768, False)
    await watch.navigate(f"{base}/watch/{session}")
    await watch.wait_for("document.getElementById('state').className.includes('live')")
    ws_base = "ws" + base[len("http"):]
    async with websockets.connect(f"{ws_base}/v1/source/{session}", subprotocols=["touchrelay.v1"]) as phone:
        await phone.send(json.dumps({"type": "hello", "device": {"name": "e2e", "width": 300, "height": 300}}))
        await phone.recv()
        await watch.wait_for("document.querySelectorAll('#sources [data-source-id]').length === 1")
        # What the page does about the source's notice (a request, if any) has time to finish.
        await asyncio.sleep(0.5)
    if await watch.eval("!document.getElementById('recordings').hidden"):
        failures.append("the watch page of a server that does not record offers recordings")
    if hasattr(watch, "collect_problems"):
        await watch.collect_problems()
    print(f"   watch page without --record: {len(watch.problems)} problem(s)")
    for p in watch.problems:
        failures.append(f"{watch.name} page: {p}")


# In the big-screen page (another origin): a source of touchrelay.js records three samples in one
# task; what it writes to its socket is counted, and an observer of the module gets them back.
BATCH_SCRIPT = """(() => {
  window.__batch = null;
  const sent = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) { sent.push(JSON.parse(data).type); return send.call(this, data); };
  import("http://RELAY/sdk/touchrelay.js").then(({ source, observe }) => {
    const got = [];
    const obs = observe("ws://RELAY/v1/observe/SESSION", { raw: true });
    obs.on("touches", (m) => got.push(m.touches.map((t) => t.phase).join(",")));
    obs.on("welcome", () => {
      const pad = source("ws://RELAY/v1/source/SESSION", { name: "batch", width: 300, height: 300 });
      pad.on("welcome", () => {
        pad.sample(10, [{ id: 1, phase: "began", x: 10, y: 10 }]);
        pad.sample(14, [{ id: 1, phase: "moved", x: 12, y: 10 }]);
        pad.sample(18, [{ id: 1, phase: "ended", x: 14, y: 10 }]);
        setTimeout(() => { window.__batch = { sent: sent.filter((t) => t.startsWith("frame")), got: got }; pad.close(); obs.close(); }, 700);
      });
    });
  });
  return true;
})()"""


async def check_batched_samples(page, relay, session, failures):
    await page.eval(BATCH_SCRIPT.replace("RELAY", relay).replace("SESSION", session + "-batch"))
    try:
        await page.wait_for("window.__batch !== null", timeout=10)
    except AssertionError:
        failures.append("touchrelay.js's source never sent its batch")
        return
    batch = await page.eval("window.__batch")
    print(f"   touchrelay.js source: sent {batch['sent']}, its observer got {batch['got']}")
    if batch["sent"] != ["frames"] or batch["got"] != ["began", "moved", "ended"]:
        failures.append(f"three samples of one task: expected one frames message and three touches, got {batch}")


if __name__ == "__main__":
    asyncio.run(main())
