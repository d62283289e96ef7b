"""ASGI middleware of the served model: a request whose client has hung up stops costing the others.

Once a request's body has arrived, the middleware listens for the client going away. If it goes before the answer
is sent, the request's handler is cancelled: a request still waiting in the adaptive batch leaves the queue and is
never predicted, and nothing is logged or counted as answered for it. A batch the model is already computing
finishes (a thread cannot be interrupted), but nobody waits on its answer."""

from __future__ import annotations

import asyncio
from typing import Any

from .middleware import Receive, Scope, Send


class StopWhenClientLeaves:
    def __init__(self, app, on_abandoned=None):
        self.app = app
        self.on_abandoned = on_abandoned or _count_abandoned

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body_complete = asyncio.Event()
        client_gone = asyncio.Event()
        answered = False

        async def app_receive() -> dict[str, Any]:
            if body_complete.is_set():  # the app asks again (a streaming answer, is_disconnected): the watcher knows
                await client_gone.wait()
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.disconnect":
                client_gone.set()
            elif not message.get("more_body", False):
                body_complete.set()
            return message

        async def app_send(message: dict[str, Any]) -> None:
            nonlocal answered
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered = True
            await send(message)

        handler = asyncio.ensure_future(self.app(scope, app_receive, app_send))

        async def watch() -> None:
            await body_complete.wait()
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    client_gone.set()
                    if not answered and not handler.done():
                        handler.cancel()
                        self.on_abandoned()
                    return

        watcher = asyncio.ensure_future(watch())
        try:
            await handler
        except asyncio.CancelledError:
            if not client_gone.is_set():
                raise  # the server itself is stopping us
        finally:
            watcher.cancel()
            if not handler.done():
                handler.cancel()


def _count_abandoned() -> None:
    from ..monitoring.service_metrics import count_abandoned_request

    count_abandoned_request()
