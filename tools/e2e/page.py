"""What every browser driver's page offers the scenario (`e2e.py`): `navigate`, `eval` (a
JavaScript expression's JSON value), `touches` (a timeline of `touches.py`), `screenshot`,
and `problems`, the JavaScript errors the page reported."""
import asyncio
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
