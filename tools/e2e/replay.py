"""A recording played back in the browser (`e2e.py` runs it in each browser, on the server
that records): a source played by this script (Python websockets) makes a tap, a pinch and a
pan while the watch page is open; the watch page then lists the recording with a link to
/replay/...; that page, driven with real key presses and mouse input:

- loads the server's replay of the file (`?as=observed`), with a timeline mark per gesture
  (as many as the server's gestures, by id);
- space plays and pauses: the position moves while playing and stands while paused;
- a click on the pan's mark seeks to it: the fingers and gestures on the surface are those
  of the recording at that moment (each finger's circle drawn where the recording has it,
  read back from the canvas), and so after the left arrow (a second back: rebuilt from the
  start), the right arrow and a drag on the timeline;
- at 2x (its button) the position moves about twice as fast as the clock, and plays to the
  end, where the source has left as it did live;
- `f` toggles full screen, on it and on the watch page; where the browser has the Screen
  Wake Lock API, both pages hold a lock once a key was pressed.
Any JavaScript error or failed request fails it, as for the other pages."""
import asyncio
import json
import os
import time
import urllib.request

from touches import drag
from wall import PORTRAIT, Phone

FADE_MS = 1600  # wall.js: how long a gesture stays drawn after it ended
BAR = "document.getElementById('replay').dataset"
# What the page's wall holds for each source, and the canvas pixel under each finger's centre.
STATE = """[...window.__replay.wall.sources.values()].map((s) => {
  const ctx = s.canvas.getContext('2d', {willReadFrequently: true});
  return {id: s.id, gestures: [...s.gestures.keys()],
    fingers: [...s.fingers].map(([id, p]) => [id, p.x, p.y,
      s.box ? Array.from(ctx.getImageData(Math.floor(p.x * s.box.k * s.box.dpr), Math.floor(p.y * s.box.k * s.box.dpr), 1, 1).data) : null])};
})"""
BACKGROUND = (0x0d, 0x13, 0x21)  # wall.js's surface colour


def observed(base, path):
    """The server's replay of a recording, as the page loads it: (ms since the first, message)."""
    with urllib.request.urlopen(f"{base}{path}?as=observed", timeout=10) as r:
        lines = [json.loads(line) for line in r.read().decode().splitlines() if line]
    return [(line["rt"] - lines[0]["rt"], line["message"]) for line in lines]


def expected_at(entries, p):
    """The recording at `p` ms: each source's fingers (the last `touches` up to then, less
    what ended) and its gestures still drawn (going on, or ended at most FADE_MS before)."""
    fingers, gestures, present = {}, {}, set()
    for at, m in entries:
        if at > p:
            break
        if m["type"] == "source":
            (present.discard if m["event"] == "left" else present.add)(m["source"])
        elif m["type"] == "touches":
            fingers[m["source"]] = {t["id"]: (t["x"], t["y"]) for t in m["touches"]
                                    if t["phase"] not in ("ended", "cancelled")}
        elif m["type"] == "gesture":
            ended = None if m["state"] in ("began", "changed") else at
            gestures.setdefault(m["source"], {})[m["id"]] = ended
    return {s: {"fingers": fingers.get(s, {}),
                "gestures": {g for g, ended in gestures.get(s, {}).items() if ended is None or p - ended <= FADE_MS}}
            for s in present}


async def check_state(page, entries, label, failures):
    """What the page holds and draws at its position against the recording at that time."""
    try:
        await page.wait_for(f"{BAR}.drawn === {BAR}.position", timeout=5)
    except AssertionError:
        failures.append(f"{label}: the surface was not drawn at the position sought")
    p = float(await page.eval(f"{BAR}.position"))
    want = expected_at(entries, p)
    got = {s["id"]: s for s in await page.eval(STATE)}
    print(f"   {label}: at {p:.0f} ms, fingers {[(f[0], round(f[1]), round(f[2])) for s in got.values() for f in s['fingers']]}, "
          f"gestures {[g for s in got.values() for g in s['gestures']]}")
    if set(got) != set(want):
        failures.append(f"{label}: sources {sorted(got)} at {p:.0f} ms, the recording has {sorted(want)}")
        return p
    for sid, w in want.items():
        fingers = {f[0]: f for f in got[sid]["fingers"]}
        if set(fingers) != set(w["fingers"]):
            failures.append(f"{label}: fingers {sorted(fingers)} at {p:.0f} ms, the recording has {sorted(w['fingers'])}")
        for fid, (x, y) in w["fingers"].items():
            f = fingers.get(fid)
            if f and (abs(f[1] - x) > 0.01 or abs(f[2] - y) > 0.01):
                failures.append(f"{label}: finger {fid} at ({f[1]}, {f[2]}), the recording has ({x}, {y})")
            if f and f[3] is not None and all(abs(a - b) <= 3 for a, b in zip(f[3][:3], BACKGROUND)):
                failures.append(f"{label}: nothing drawn under finger {fid} at ({x}, {y}): pixel {f[3]}")
        if set(got[sid]["gestures"]) != w["gestures"]:
            failures.append(f"{label}: gestures {sorted(got[sid]['gestures'])} drawn at {p:.0f} ms, "
                            f"the recording has {sorted(w['gestures'])}")
    return p


async def record(base, session):
    """A source's tap, pinch and pan, recorded by the server; returns the phone."""
    ws_base = "ws" + base[len("http"):]
    phone = await Phone(ws_base, session, PORTRAIT).join()
    w, h = PORTRAIT["width"], PORTRAIT["height"]
    await phone.tap(w * 0.3, h * 0.25)
    await asyncio.sleep(0.5)  # past the double-tap wait: a single tap
    await phone.pinch(w / 2, h / 2, 50, 120)
    await asyncio.sleep(0.3)
    await phone.frame([{"id": 3, "phase": "began", "x": 100, "y": 650}], dt=300)
    for k in range(1, 21):
        await phone.frame([{"id": 3, "phase": "moved", "x": 100 + 10 * k, "y": 650 - 4 * k}], dt=30)
        await asyncio.sleep(0.03)
    await asyncio.sleep(0.4)  # held still: the finger stays down a while in the recording
    await phone.frame([{"id": 3, "phase": "ended", "x": 300, "y": 570}], dt=400)
    await asyncio.sleep(0.2)
    await phone.leave()
    return phone


async def position(page):
    return float(await page.eval(f"{BAR}.position"))


async def check_replay(browser, base, out, failures):
    name = browser.name
    session = f"e2e-{name}-replay"
    started = time.monotonic()
    watch = await browser.open_page("replay-watch", 1280, 800, False)
    await watch.navigate(f"{base}/watch/{session}")
    await watch.wait_for("document.getElementById('state').className.includes('live')")
    await record(base, session)
    # Listed when the source's notices come (joined, left), with a link to play it.
    await watch.wait_for(f"!!document.querySelector('#recordings a.replay[href^=\"/replay/{session}/\"]')")
    link = await watch.eval("document.querySelector('#recordings a.replay').getAttribute('href')")
    file = link.split("/")[-1]
    entries = observed(base, f"/recordings/{session}/{file}")
    gestures = {(m["source"], m["id"]): m["gesture"] for _, m in entries if m["type"] == "gesture"}
    duration = entries[-1][0]
    print(f"   watch page links {link}; the server's replay: {len(entries)} messages over {duration:.0f} ms, "
          f"gestures {sorted(set(gestures.values()))}")

    # Full screen while this is the window in front (a browser gives it to that one only).
    await check_full_screen(watch, "window.__watch", failures)

    page = await browser.open_page("replay", 1280, 800, False)
    await page.navigate(f"{base}{link}")
    await page.wait_for(f"{BAR}.state === 'paused'")
    marks = await page.eval("[...document.querySelectorAll('#marks .mark')].map((m) => m.dataset.gesture)")
    if sorted(marks) != sorted(gestures.values()):
        failures.append(f"timeline marks {marks}, the server's gestures {sorted(gestures.values())}")
    for kind in ("tap", "pinch", "pan"):
        if kind not in gestures.values():
            failures.append(f"the recording has no {kind}: {sorted(gestures.values())}")

    # A window just opened may get its first animation frames late (WebKit): played once it has them.
    frames = await page.eval("window.__replay.frames")
    await page.wait_for(f"window.__replay.frames >= {frames} + 3")
    # Space: play, then pause.
    await page.keys([" "])
    try:
        await page.wait_for(f"{BAR}.state === 'playing'", timeout=3)
    except AssertionError:
        failures.append("the space bar did not start playing")
    await asyncio.sleep(0.6)
    await page.keys([" "])
    await page.wait_for(f"{BAR}.state === 'paused'", timeout=3)
    paused = await position(page)
    await asyncio.sleep(0.4)
    still = await position(page)
    print(f"   played to {paused:.0f} ms with the space bar, paused (then at {still:.0f} ms)")
    if not 100 < paused < duration:
        failures.append(f"after 0.6 s of playing the position is {paused:.0f} ms")
    if still != paused:
        failures.append(f"paused at {paused:.0f} ms, the position moved on to {still:.0f} ms")

    # The pan's mark, clicked: the recording as it was when the pan began.
    # The last pan's: the one-finger pan (the pinch may have begun and cancelled one before).
    mark = await page.eval("(() => { const m = [...document.querySelectorAll('#marks .mark[data-gesture=\"pan\"]')].pop();"
                           " return m && {at: Number(m.dataset.at), box: m.getBoundingClientRect().toJSON()}; })()")
    if not mark:
        failures.append("no mark for the pan on the timeline")
        return
    box = mark["box"]
    await page.mouse([(0, [(0, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)]), (0.05, [])])
    at = await check_state(page, entries, "the pan's mark clicked", failures)
    if abs(at - mark["at"]) > 0.5:
        failures.append(f"the pan's mark is at {mark['at']:.0f} ms, a click on it sought to {at:.0f} ms")
    labels = await page.eval("[...document.querySelectorAll('.gesture-label:not([hidden])')].map((l) => l.dataset.gesture)")
    if "pan" not in labels:
        failures.append(f"at the pan's mark its name is not drawn: labels {labels}")
    await page.screenshot(os.path.join(out, f"replay-{name}.png"))

    # Arrow keys: a second back (the state rebuilt from the start), a second on again.
    await page.keys(["ArrowLeft"])
    back = await check_state(page, entries, "left arrow", failures)
    if abs(back - max(0, at - 1000)) > 0.5:
        failures.append(f"the left arrow from {at:.0f} ms went to {back:.0f} ms")
    await page.keys(["ArrowRight"])
    on = await check_state(page, entries, "right arrow", failures)
    if abs(on - min(duration, back + 1000)) > 0.5:
        failures.append(f"the right arrow from {back:.0f} ms went to {on:.0f} ms")

    # A drag along the timeline, from a tenth to about the middle.
    bar = await page.eval("document.getElementById('timeline').getBoundingClientRect().toJSON()")
    y = bar["y"] + bar["height"] / 2
    await page.mouse(drag((bar["x"] + bar["width"] * 0.1, y), (bar["x"] + bar["width"] * 0.55, y), 10, 0.03))
    dragged = await check_state(page, entries, "timeline dragged", failures)
    if abs(dragged - 0.55 * duration) > 0.02 * duration:
        failures.append(f"dragged to 55 % of the timeline, the position is {dragged:.0f} of {duration:.0f} ms")

    # At 2x from the start, to the end.
    two = await page.eval("document.querySelector('.speeds button[data-speed=\"2\"]').getBoundingClientRect().toJSON()")
    await page.mouse([(0, [(0, two["x"] + two["width"] / 2, two["y"] + two["height"] / 2)]), (0.05, [])])
    await page.mouse([(0, [(0, bar["x"] + 0.5, y)]), (0.05, [])])
    if await page.eval(f"{BAR}.speed") != "2":
        failures.append(f"the 2x button set the speed to {await page.eval(f'{BAR}.speed')}")
    await page.keys([" "])
    await page.wait_for(f"{BAR}.state === 'playing'", timeout=3)
    # The recording's time played against the clock's, from playing to the end.
    p0, t0 = await position(page), time.monotonic()
    try:
        await page.wait_for(f"{BAR}.state === 'ended'", timeout=duration / 1000 + 5)
    except AssertionError:
        failures.append("played at 2x, the recording never reached its end")
    rate = (duration - p0) / ((time.monotonic() - t0) * 1000)
    ended = await page.eval(f"[{BAR}.delivered, {BAR}.position, document.querySelectorAll('#sources [data-source-id]').length]")
    print(f"   at 2x: {rate:.2f} ms of the recording a ms; ended at {float(ended[1]):.0f} ms with {ended[0]} of "
          f"{len(entries)} messages given, {ended[2]} tile(s) left")
    if not 1.4 <= rate <= 2.6:
        failures.append(f"at 2x the recording played at {rate:.2f}x")
    if int(ended[0]) != len(entries) or ended[2] != 0:
        failures.append(f"at the end {ended[0]} of {len(entries)} messages given and {ended[2]} tiles shown (the source left)")

    await check_full_screen(page, "window.__replay", failures)
    for p in (watch, page):
        if hasattr(p, "collect_problems"):
            await p.collect_problems()
    for p in (watch, page):
        for problem in p.problems:
            failures.append(f"{p.name} page: {problem}")
    print(f"   the replay checks took {time.monotonic() - started:.1f} s")


FULL = "!!(document.fullscreenElement || document.webkitFullscreenElement)"


async def check_full_screen(page, hook, failures):
    """`f` in, `f` out; the wake lock (`hook.awake()`) after a key press, where the browser
    has the API."""
    await page.keys(["f"])
    try:
        await page.wait_for(FULL, timeout=3)
        entered = True
    except AssertionError:
        entered = False
    if entered:
        await page.keys(["f"])
        try:
            await page.wait_for(f"!{FULL}", timeout=3)
        except AssertionError:
            failures.append(f"{page.name} page: `f` again did not leave full screen")
    has_lock = await page.eval("'wakeLock' in navigator")
    awake = False
    if has_lock:
        try:
            await page.wait_for(f"{hook}.awake()", timeout=3)  # asked again on the key presses
            awake = True
        except AssertionError:
            pass
    print(f"   {page.name} page: full screen with `f`: {'in and out' if entered else 'not entered'}; "
          f"wake lock: {'held' if awake else 'not held' if has_lock else 'no API'}")
    if not entered:
        failures.append(f"{page.name} page: `f` did not enter full screen")
    if has_lock and not awake:
        failures.append(f"{page.name} page: the browser has the Screen Wake Lock API and the page holds no lock")
