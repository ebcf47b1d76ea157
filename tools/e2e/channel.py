"""One WebSocket to a browser's remote protocol: commands with an `id`, answered by a message
with the same `id`; every other message is an event, handed to the listeners. Chromium's
DevTools protocol and WebDriver BiDi (Firefox) both have this shape; they differ only in how an
answer says it failed (`error_of`)."""
import asyncio
import json


class Channel:
    def __init__(self, ws, error_of):
        self.ws = ws
        self.error_of = error_of  # answer -> error text, or None when it succeeded
        self.next_id = 0
        self.pending = {}
        self.listeners = []
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self):
        async for raw in self.ws:
            m = json.loads(raw)
            if m.get("id") is not None:
                fut = self.pending.pop(m["id"], None)
                if fut and not fut.done():
                    error = self.error_of(m)
                    if error:
                        fut.set_exception(RuntimeError(error))
                    else:
                        fut.set_result(m.get("result", {}))
            else:
                for listener in self.listeners:
                    listener(m)

    async def send(self, method, params=None, timeout=20, **extra):
        """`extra`: members beside method and params (DevTools' `sessionId`)."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}, **extra}
        fut = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        await self.ws.send(json.dumps(msg))
        return await asyncio.wait_for(fut, timeout)
