"""What every browser driver's page offers the scenario (`e2e.py`): `navigate`, `eval` (a
JavaScript expression's JSON value), `touches` (a timeline of `touches.py`), `resize` (the
window, in CSS pixels), `screenshot`,
and `problems`, the JavaScript errors the page reported; and what the drivers share."""
import asyncio
import base64
import subprocess
import time


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
