"""WebKitGTK (Debian's webkit2gtk-driver: WebKitWebDriver and its MiniBrowser) on a private
Xvfb display, through classic WebDriver: the engine of Safari, which most phones that open
the pad run. Its driver turns touch pointers into its one mouse pointer, so it plays one
finger (the pad takes its Pointer Events path). Classic WebDriver has no log: the page's
`error` and `unhandledrejection` events, `console.error` calls and failed `fetch`es are
recorded by a hook put in once the page is live (an error while it loads shows as a page
that never goes live); failed loads before it are read from the resource timing entries
where the engine gives their status."""
import asyncio
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request

from page import PageBase, save_png, stop_process, w3c_keys
from touches import w3c_actions

MINIBROWSER_DIRS = ["/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1", "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1",
                    "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0", "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.0"]

HOOK = """(() => {
  if (window.__e2eProblems) return true;
  const problems = window.__e2eProblems = [];
  window.addEventListener('error', (e) => problems.push('exception: ' + e.message + ' (' + e.filename + ':' + e.lineno + ')'));
  window.addEventListener('unhandledrejection', (e) => problems.push('unhandled rejection: ' + e.reason));
  const error = console.error.bind(console);
  console.error = (...args) => { problems.push('console.error: ' + args.join(' ')); error(...args); };
  const fetch = window.fetch;
  window.fetch = (...args) => fetch(...args).then(
    (r) => { if (!r.ok) problems.push('failed request: ' + r.status + ' ' + r.url); return r; },
    (e) => { problems.push('failed request: ' + e + ' ' + args[0]); throw e; });
  return true;
})()"""

# Loads with an HTTP error status, from before the hook too (where the engine fills in
# `responseStatus`), in the hook's words: a fetch both saw is reported once.
EARLY_FAILED_LOADS = """return performance.getEntriesByType('resource')
  .filter((e) => e.responseStatus >= 400)
  .map((e) => 'failed request: ' + e.responseStatus + ' ' + e.name);"""


class WebKit:
    name = "webkit"
    max_fingers = 1

    async def start(self):
        self.xvfb, display = start_xvfb()
        self.port = free_port()
        env = dict(os.environ, DISPLAY=display)
        self.driver = subprocess.Popen([shutil.which("WebKitWebDriver") or "WebKitWebDriver", f"--port={self.port}"],
                                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                await self.call("GET", "/status")
                break
            except OSError:
                if time.monotonic() > deadline or self.driver.poll() is not None:
                    raise RuntimeError("WebKitWebDriver did not start")
                await asyncio.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "MiniBrowser", "webkitgtk:browserOptions": {
            "binary": minibrowser(), "args": ["--automation"]}}}}
        self.session = (await self.call("POST", "/session", caps))["sessionId"]
        # The session's window serves the first page; each later page opens one of its own.
        self.current = self.spare_window = await self.call("GET", self.path("/window"))

    def path(self, tail):
        return f"/session/{self.session}{tail}"

    async def call(self, method, path, body=None):
        """One WebDriver command, off the event loop (the observer reads on it meanwhile)."""
        return await asyncio.get_running_loop().run_in_executor(None, self._call, method, path, body)

    def _call(self, method, path, body):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method, data=data,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            v = json.loads(e.read()).get("value", {})
            raise RuntimeError(f"WebDriver {method} {path}: {v.get('error')}: {v.get('message')}") from None

    async def stop(self):
        """Also after a `start` that failed part-way."""
        try:
            if getattr(self, "session", None):
                await self.call("DELETE", self.path(""))
        except (RuntimeError, OSError):
            pass  # the driver is stopped below either way
        stop_process(getattr(self, "driver", None))
        stop_process(getattr(self, "xvfb", None))

    async def open_page(self, name, width, height, mobile):
        if self.spare_window:
            handle, self.spare_window = self.spare_window, None
        else:
            handle = (await self.call("POST", self.path("/window/new"), {"type": "window"}))["handle"]
        page = WebKitPage(self, name, handle)
        await page.focus()
        # The window's outer size; the page gets this less the window's decorations.
        await self.call("POST", self.path("/window/rect"), {"width": width, "height": height})
        return page


class WebKitPage(PageBase):
    def __init__(self, browser, name, handle):
        super().__init__(name)
        self.browser = browser
        self.handle = handle
        self.hooked = False

    async def focus(self):
        b = self.browser
        if b.current != self.handle:
            await b.call("POST", b.path("/window"), {"handle": self.handle})
            b.current = self.handle

    async def navigate(self, url):
        await self.focus()
        await self.browser.call("POST", self.browser.path("/url"), {"url": url})
        self.hooked = False

    async def eval(self, expression):
        await self.focus()
        b = self.browser
        value = await b.call("POST", b.path("/execute/sync"), {"script": f"return {expression};", "args": []})
        if not self.hooked and await b.call("POST", b.path("/execute/sync"), {"script": f"return {HOOK};", "args": []}):
            self.hooked = True
        return value

    async def touches(self, timeline, pointer_type="touch"):
        await self.perform(w3c_actions(timeline, pointer_type))

    async def mouse(self, timeline):
        await self.touches(timeline, "mouse")

    async def keys(self, keys):
        await self.perform(w3c_keys(keys))

    async def perform(self, actions):
        await self.focus()
        b = self.browser
        await b.call("POST", b.path("/actions"), {"actions": actions})
        await b.call("DELETE", b.path("/actions"))

    async def resize(self, width, height):
        """The window's outer size, as `open_page` sets it."""
        await self.focus()
        await self.browser.call("POST", self.browser.path("/window/rect"), {"width": width, "height": height})

    async def screenshot(self, path):
        await self.focus()
        save_png(path, await self.browser.call("GET", self.browser.path("/screenshot")))

    async def collect_problems(self):
        await self.focus()
        b = self.browser
        found = await b.call("POST", b.path("/execute/sync"), {"script": "return window.__e2eProblems || [];", "args": []})
        found += await b.call("POST", b.path("/execute/sync"), {"script": EARLY_FAILED_LOADS, "args": []})
        self.problems += list(dict.fromkeys(found))


def minibrowser():
    for d in MINIBROWSER_DIRS:
        path = os.path.join(d, "MiniBrowser")
        if os.path.exists(path):
            return path
    raise RuntimeError("WebKitGTK's MiniBrowser is not installed (Debian: webkit2gtk-driver)")


def start_xvfb():
    """An Xvfb server on a display number it picks itself (`-displayfd`)."""
    r, w = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "2560x1600x24", "-nolisten", "tcp"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    with os.fdopen(r) as f:
        number = f.readline().strip()
    if not number:
        stop_process(xvfb)
        raise RuntimeError("Xvfb did not start")
    return xvfb, f":{number}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
