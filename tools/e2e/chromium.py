"""Headless Chromium through its DevTools protocol: pages with the device metrics of a phone,
touch input as real `Input.dispatchTouchEvent`s (the pad sees Touch Events, as on a phone),
and every exception, console error, log error and failed request (an HTTP error status, or
no answer) of a page recorded."""
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time

import websockets

from channel import Channel
from page import KEYS, PageBase, save_png, stop_process
from touches import kind


class Chromium:
    name = "chromium"
    max_fingers = 5

    async def start(self):
        self.profile = tempfile.mkdtemp(prefix="touchrelay-e2e-")
        flags = ["--headless=new", "--remote-debugging-port=0", f"--user-data-dir={self.profile}", "--no-first-run",
                 "--no-default-browser-check", "--disable-gpu", "--disable-extensions", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update", "--mute-audio",
                 "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
                 "--disable-backgrounding-occluded-windows", "--disable-dev-shm-usage"]
        if os.geteuid() == 0:
            flags.append("--no-sandbox")  # Chromium refuses to run its sandbox as root
        self.process = subprocess.Popen([binary(), *flags, "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file) or len(open(port_file).read().split()) < 2:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("chromium did not start")
            await asyncio.sleep(0.1)
        port, path = open(port_file).read().split()[:2]
        self.ws = await websockets.connect(f"ws://127.0.0.1:{port}{path}", max_size=None)
        self.channel = Channel(self.ws, lambda m: f"CDP error: {m['error']}" if "error" in m else None)

    async def stop(self):
        """Also after a `start` that failed part-way."""
        if getattr(self, "ws", None):
            await self.ws.close()
        stop_process(getattr(self, "process", None))
        shutil.rmtree(getattr(self, "profile", ""), ignore_errors=True)

    async def open_page(self, name, width, height, mobile):
        cdp = self.channel
        target = (await cdp.send("Target.createTarget", {"url": "about:blank", "newWindow": True}))["targetId"]
        session = (await cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
        page = ChromiumPage(self, name, session)
        cdp.listeners.append(page.on_event)
        for domain in ("Runtime", "Log", "Page", "Network"):
            await page.send(f"{domain}.enable")
        await page.send("Emulation.setDeviceMetricsOverride",
                        {"width": width, "height": height, "deviceScaleFactor": 2 if mobile else 1, "mobile": mobile})
        await page.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        if mobile:
            await page.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        return page


class ChromiumPage(PageBase):
    def __init__(self, browser, name, session):
        super().__init__(name)
        self.channel = browser.channel
        self.session = session

    def on_event(self, m):
        if m.get("sessionId") != self.session:
            return
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text")
            self.problems.append(f"exception: {text} ({d.get('url')}:{d.get('lineNumber')})")
        elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
            e = p["entry"]
            self.problems.append(f"log error: {e.get('text')} ({e.get('url', '')})")
        elif method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
            self.problems.append(f"console.{p['type']}: {args}")
        elif method == "Network.responseReceived" and p["response"]["status"] >= 400:
            self.problems.append(f"failed request: {p['response']['status']} {p['response']['url']}")
        elif method == "Network.loadingFailed" and not p.get("canceled"):
            self.problems.append(f"failed request: {p.get('errorText')} ({p.get('type')})")

    async def send(self, method, params=None):
        return await self.channel.send(method, params, sessionId=self.session)

    async def navigate(self, url):
        await self.send("Page.navigate", {"url": url})

    async def eval(self, expression):
        r = await self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{self.name}: {expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    async def touches(self, timeline):
        down = []
        for delay, points in timeline:
            await asyncio.sleep(delay)
            await self.send("Input.dispatchTouchEvent", {
                "type": kind(down, points),
                "touchPoints": [{"x": x, "y": y, "id": i, "radiusX": 8, "radiusY": 8, "force": 1} for i, x, y in points],
            })
            down = points

    async def mouse(self, timeline):
        down, last = False, (0, 0)
        for delay, points in timeline:
            await asyncio.sleep(delay)
            if points:
                _, x, y = points[0]
                await self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y,
                                                             "button": "left" if down else "none", "buttons": int(down)})
                if not down:
                    await self.send("Input.dispatchMouseEvent", {"type": "mousePressed", "x": x, "y": y,
                                                                 "button": "left", "buttons": 1, "clickCount": 1})
                down, last = True, (x, y)
            elif down:
                await self.send("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": last[0], "y": last[1],
                                                             "button": "left", "buttons": 0, "clickCount": 1})
                down = False

    async def keys(self, keys):
        for k in keys:
            _, code, vk, text = KEYS[k]
            key = {"key": k, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
            await self.send("Input.dispatchKeyEvent", {"type": "keyDown", **key, **({"text": text} if text else {})})
            await self.send("Input.dispatchKeyEvent", {"type": "keyUp", **key})

    async def resize(self, width, height):
        await self.send("Emulation.setDeviceMetricsOverride",
                        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    async def screenshot(self, path):
        save_png(path, (await self.send("Page.captureScreenshot", {"format": "png"}))["data"])


def binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("e2e: chromium is not installed")
