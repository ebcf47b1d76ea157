"""What every browser driver's page offers the scenario (`e2e.py`): `navigate`, `eval` (a
JavaScript expression's JSON value), `touches` (a timeline of `touches.py`), `mouse` (the
same timeline, one finger, as the mouse: pressed while its point is down), `keys` (key
presses, by the names of `KEYS`), `resize` (the window, in CSS pixels), `screenshot`,
and `problems`, the JavaScript errors the page reported; and what the drivers share."""
import asyncio
import base64
import subprocess
import time


# The keys a scenario presses: (WebDriver's key value, DOM `code`, Windows virtual key code,
# the text it types or None).
KEYS = {
    " ": (" ", "Space", 32, " "),
    "ArrowLeft": ("\ue012", "ArrowLeft", 37, None),
    "ArrowRight": ("\ue014", "ArrowRight", 39, None),
    "f": ("f", "KeyF", 70, "f"),
}


def w3c_keys(keys):
    """Key presses as a WebDriver key input source (each key down, then up)."""
    actions = []
    for k in keys:
        value = KEYS[k][0]
        actions += [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
    return [{"type": "key", "id": "keyboard", "actions": actions}]


class PageBase:
    def __init__(self, name):
        self.name = name
        self.problems = []

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


def save_png(path, data):
    """A screenshot as the drivers get it (base64) into a file."""
    with open(path, "wb") as f:
        f.write(base64.b64decode(data))


def stop_process(process):
    """Terminates a process the driver started (None: none was), killing it after 10 s."""
    if process is None:
        return
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
