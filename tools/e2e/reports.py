#!/usr/bin/python3
"""The pictures of issue 27 in a real browser (headless Chromium): touch-load's --html report
and `compare` page, a recording drawn by `touch-relay --replay FILE --svg`, and the watch
page's "download recording" link. Each page is checked for what a reader looks for, any
JavaScript exception or console error fails it, and screenshots are saved.

  reports.py --base http://127.0.0.1:PORT --relay BIN --load BIN --recordings DIR --out DIR

The server at --base must record into --recordings (`--record`); the browser check
(`e2e.py`) has usually left a recording of a real pad there (session e2e-chromium)."""
import argparse
import asyncio
import glob
import json
import os
import subprocess
import sys

from chromium import Chromium


def load_run(load, ws, sources, out, name, html=True):
    """A short touch-load run; returns its JSON report's path."""
    report = os.path.join(out, f"{name}.json")
    cmd = [load, "--url", ws, "-c", str(sources), "-r", "60", "-d", "3s", "--warmup", "0.5s", "--observers", "2",
           "--raw", "--session-prefix", "e2e-load", "--json", report, "-q"]
    if html:
        cmd += ["--html", os.path.join(out, f"{name}.html")]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return report


async def main():
    ap = argparse.ArgumentParser()
    for flag in ("--base", "--relay", "--load", "--recordings", "--out"):
        ap.add_argument(flag, required=True)
    args = ap.parse_args()
    base, out = args.base.rstrip("/"), os.path.abspath(args.out)
    ws = "ws" + base[len("http"):]
    failures = []

    print("== reports: touch-load --html, compare --html, --replay --svg")
    a = load_run(args.load, ws, 2, out, "report-a")
    b = load_run(args.load, ws, 4, out, "report-b", html=False)
    subprocess.run([args.load, "compare", a, b, "--html", os.path.join(out, "report-compare.html")], check=True,
                   stdout=subprocess.DEVNULL)
    # The pad's own recording if the browser check made one, else one of touch-load's sources.
    recordings = sorted(glob.glob(os.path.join(args.recordings, "e2e-chromium-*.jsonl")), key=os.path.getsize)
    recordings = recordings or sorted(glob.glob(os.path.join(args.recordings, "e2e-load-0-*.jsonl")), key=os.path.getsize)
    if not recordings:
        sys.exit(f"reports: no recording in {args.recordings}")
    drawing = os.path.join(out, "recording.svg")
    subprocess.run([args.relay, "--replay", recordings[-1], "--svg", drawing], check=True)
    print(f"   drew {os.path.basename(recordings[-1])}")
    with open(a) as f:
        ja = json.load(f)

    browser = Chromium()
    pages = []
    try:
        await browser.start()
        report = await open_file(browser, pages, "report", os.path.join(out, "report-a.html"))
        verdict = await report.eval("document.getElementById('verdict').textContent")
        p99 = await report.eval("document.querySelector('[data-field=\"all.p99\"]').textContent")
        charts = await report.eval("document.querySelectorAll('svg.chart').length")
        print(f"   report: {verdict!r}; all p99 {p99} ms (JSON {ja['latency']['p99']}); {charts} charts")
        if charts != 6:
            failures.append(f"the report has {charts} charts, expected 2 distributions and 4 timelines")
        if abs(float(p99) - ja["latency"]["p99"]) > max(0.001, ja["latency"]["p99"] * 0.005):
            failures.append(f"the report's p99 {p99} is not the JSON's {ja['latency']['p99']}")
        if not await report.eval("document.querySelector('#distribution-touches path.series').getTotalLength() > 50"):
            failures.append("the touches distribution has no visible curve")

        compare = await open_file(browser, pages, "compare", os.path.join(out, "report-compare.html"))
        ratio = await compare.eval("document.querySelector('[data-field=\"ratio.steadyFramesPerSecond\"]').textContent")
        lines = await compare.eval("document.querySelectorAll('#distribution-touches path.series').length")
        print(f"   compare: frames/s B/A {ratio}; {lines} curves on the touches chart")
        if lines != 2:
            failures.append(f"the compare page's touches chart has {lines} curves, expected A and B")

        svg = await open_file(browser, pages, "recording", drawing)
        trails = await svg.eval("document.querySelectorAll('polyline.trail').length")
        bars = await svg.eval("document.querySelectorAll('rect.gesture').length")
        print(f"   drawing: {trails} trails, {bars} gestures on the timeline")
        if trails == 0:
            failures.append("the drawing shows no trail")

        # The watch page of a recorded session offers its recording, and the link downloads it.
        session = os.path.basename(recordings[-1]).rsplit("-", 1)[0]
        watch = await browser.open_page("watch-recording", 1280, 860, False)
        pages.append(watch)
        await watch.navigate(f"{base}/watch/{session}")
        try:
            await watch.wait_for("!!document.querySelector('#recordings a.recording')")
            r = await watch.send("Runtime.evaluate", {
                "expression": "fetch(document.querySelector('#recordings a.recording').href)"
                              ".then(r => r.text()).then(t => t.slice(0, 40))",
                "awaitPromise": True, "returnByValue": True})
            head = r["result"].get("value") or ""
            print(f"   watch page: download link gives {head!r}")
            if not head.startswith('{"type":"recording"'):
                failures.append(f"the watch page's recording link gives {head!r}")
        except AssertionError:
            failures.append(f"the watch page of {session} offers no recording")
        await watch.screenshot(os.path.join(out, "watch-recording-chromium.png"))

        for page in pages:
            if page.name != "watch-recording":
                await page.screenshot(os.path.join(out, f"{page.name}.png"))
            failures += [f"{page.name} page: {p}" for p in page.problems]
        shots = [f"{p.name}.png" for p in pages if p.name != "watch-recording"] + ["watch-recording-chromium.png"]
        print("   screenshots: " + ", ".join(os.path.join(out, s) for s in shots))
    except Exception as e:  # a browser that fails to start or to answer fails the check
        failures.append(f"{type(e).__name__}: {e}")
    finally:
        await browser.stop()

    if failures:
        print("reports: FAILED")
        for f in failures:
            print("  -", f)
        sys.exit(1)
    print("reports: passed")


async def open_file(browser, pages, name, path):
    """A local file in a page as tall as its content, so the screenshot has all of it."""
    page = await browser.open_page(name, 1240, 900, False)
    pages.append(page)
    await page.navigate("file://" + path)
    await page.wait_for("document.readyState === 'complete'")
    height = await page.eval("Math.ceil(document.documentElement.getBoundingClientRect().height)")
    await page.send("Emulation.setDeviceMetricsOverride",
                    {"width": 1240, "height": min(max(int(height) + 40, 300), 4000), "deviceScaleFactor": 1,
                     "mobile": False})
    return page


if __name__ == "__main__":
    asyncio.run(main())
