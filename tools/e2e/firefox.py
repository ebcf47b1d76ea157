"""Headless Firefox (Debian's firefox-esr) through WebDriver BiDi, which Firefox serves itself
(no geckodriver): a window per page, touch input as WebDriver touch pointers (one per finger),
every JavaScript error and console error recorded (`log.entryAdded`), and every failed
request (an HTTP error status, or no answer: `network.responseCompleted`,
`network.fetchError`). As on a desktop,
Firefox has no Touch Events and the pad takes its Pointer Events path; `touch_events` turns
them on (as Firefox for Android has them), and the same input then arrives as Touch Events."""
import asyncio
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading

import websockets

from channel import Channel
from page import PageBase, save_png, stop_process, w3c_keys
from touches import w3c_actions


# Touch Events in a desktop Firefox: `legacy_apis` is what puts `ontouchstart` on the window.
TOUCH_EVENT_PREFS = 'user_pref("dom.w3c_touch_events.enabled", 1);\n' \
                    'user_pref("dom.w3c_touch_events.legacy_apis.enabled", true);\n'


class Firefox:
    max_fingers = 5

    def __init__(self, touch_events=False):
        self.touch_events = touch_events
        self.name = "firefox-touch" if touch_events else "firefox"

    async def start(self):
        self.profile = tempfile.mkdtemp(prefix="touchrelay-e2e-ff-")
        if self.touch_events:
            with open(os.path.join(self.profile, "user.js"), "w") as f:
                f.write(TOUCH_EVENT_PREFS)
        cmd = [firefox_binary(), "--headless", "--no-remote", "--profile", self.profile, "--remote-debugging-port", "0"]
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = await self._bidi_url()
        self.ws = await websockets.connect(f"{url}/session", max_size=None)
        self.channel = Channel(self.ws, lambda m: f"BiDi {m.get('error')}: {m.get('message')}" if m.get("type") == "error" else None)
        await self.channel.send("session.new", {"capabilities": {}})
        await self.channel.send("session.subscribe", {
            "events": ["log.entryAdded", "network.responseCompleted", "network.fetchError"]})
        self.pages = {}
        self.channel.listeners.append(self._on_event)

    async def _bidi_url(self):
        """Firefox prints where BiDi listens on stderr; the rest of stderr is drained."""
        found = []
        ready = threading.Event()

        def read():
            for line in self.process.stderr:
                m = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
                if m and not found:
                    found.append(m.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, ready.wait, 30)
        if not found:
            raise RuntimeError("firefox did not start its WebDriver BiDi server")
        return found[0]

    def _on_event(self, m):
        method, e = m.get("method"), m.get("params", {})
        if method in ("network.responseCompleted", "network.fetchError"):
            page = self.pages.get(e.get("context"))
            url = e.get("request", {}).get("url", "")
            if page and method == "network.fetchError" and "NS_BINDING_ABORTED" not in e.get("errorText", ""):
                page.problems.append(f"failed request: {e.get('errorText')} {url}")
            elif page and method == "network.responseCompleted" and e.get("response", {}).get("status", 0) >= 400:
                page.problems.append(f"failed request: {e['response']['status']} {url}")
            return
        if method != "log.entryAdded":
            return
        page = self.pages.get(e.get("source", {}).get("context"))
        if page and e.get("level") == "error":
            where = e.get("stackTrace", {}).get("callFrames", [{}])
            url = where[0].get("url", "") if where else ""
            page.problems.append(f"{e.get('type')} error: {e.get('text')} ({url})")

    async def stop(self):
        """Also after a `start` that failed part-way."""
        if getattr(self, "ws", None):
            try:
                await self.channel.send("session.end", {}, timeout=5)
            except Exception:
                pass  # the browser is stopped below either way
            await self.ws.close()
        stop_process(getattr(self, "process", None))
        shutil.rmtree(getattr(self, "profile", ""), ignore_errors=True)

    async def open_page(self, name, width, height, mobile):
        context = (await self.channel.send("browsingContext.create", {"type": "window"}))["context"]
        await self.channel.send("browsingContext.setViewport", {
            "context": context, "viewport": {"width": width, "height": height}, "devicePixelRatio": 2 if mobile else 1})
        page = FirefoxPage(self, name, context)
        self.pages[context] = page
        return page


class FirefoxPage(PageBase):
    def __init__(self, browser, name, context):
        super().__init__(name)
        self.channel = browser.channel
        self.context = context

    async def navigate(self, url):
        await self.channel.send("browsingContext.navigate", {"context": self.context, "url": url, "wait": "none"})

    async def eval(self, expression):
        r = await self.channel.send("script.evaluate", {
            "expression": f"JSON.stringify({expression})", "target": {"context": self.context}, "awaitPromise": False})
        if r.get("type") == "exception":
            raise RuntimeError(f"{self.name}: {expression}: {r['exceptionDetails'].get('text')}")
        value = r["result"].get("value")
        return None if value is None else json.loads(value)

    async def touches(self, timeline, pointer_type="touch"):
        await self.channel.send("input.performActions", {
            "context": self.context, "actions": w3c_actions(timeline, pointer_type)}, timeout=60)
        await self.channel.send("input.releaseActions", {"context": self.context})

    async def mouse(self, timeline):
        await self.touches(timeline, "mouse")

    async def keys(self, keys):
        await self.channel.send("input.performActions", {"context": self.context, "actions": w3c_keys(keys)})
        await self.channel.send("input.releaseActions", {"context": self.context})

    async def resize(self, width, height):
        await self.channel.send("browsingContext.setViewport", {
            "context": self.context, "viewport": {"width": width, "height": height}, "devicePixelRatio": 1})

    async def screenshot(self, path):
        save_png(path, (await self.channel.send("browsingContext.captureScreenshot", {"context": self.context}))["data"])


def firefox_binary():
    for name in ("firefox-esr", "firefox"):
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError("firefox is not installed")
