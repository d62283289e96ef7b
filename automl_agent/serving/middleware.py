"""ASGI middleware of the served model: a bounded request size, and an optional API key.

The key comes from AUTOML_AGENT_API_KEY in the server's environment; clients send it as `Authorization: Bearer KEY`
or `X-API-Key: KEY`. Health and readiness probes stay open so an orchestrator can watch the service."""

from __future__ import annotations

import hmac
import json
from typing import Any, Awaitable, Callable

from ..config import current_settings

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

OPEN_PATHS = ("/livez", "/readyz", "/healthz", "/metrics")


async def _reply(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


class RequestGuard:
    """401 without the key (when one is set), 413 past the size limit, before the body is read or parsed."""

    def __init__(self, app, max_request_mb: float | None = None, api_key: str | None = None):
        self.app = app
        settings = current_settings()
        self.max_mb = max_request_mb or settings.max_request_mb
        self.max_bytes = int(self.max_mb * 2**20)
        self.api_key = api_key if api_key is not None else settings.api_key.get_secret_value()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.api_key and not self._authorized(headers):
            await _reply(send, 401, "missing or wrong API key: send it as 'Authorization: Bearer <key>' or "
                                    "'X-API-Key: <key>' (the server's AUTOML_AGENT_API_KEY)")
            return
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await _reply(send, 413, self._too_large(int(declared)))
            return
        received = 0
        started = False

        async def counting_receive() -> dict[str, Any]:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _TooLarge()
            return message

        held: dict[str, Any] | None = None

        async def tracking_send(message: dict[str, Any]) -> None:
            nonlocal started, held
            started = started or message["type"] == "http.response.start"
            if message["type"] == "http.response.start" and message["status"] == 400:
                held = message  # perhaps the framework's schema error: said again in the user's terms below
                return
            if held is not None and message["type"] == "http.response.body":
                start, held = held, None
                await _send_plain(send, start, message)
                return
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _reply(send, 413, self._too_large(received))

    def _authorized(self, headers: dict[str, str]) -> bool:
        offered = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ").strip()
        return hmac.compare_digest(offered.encode(), self.api_key.encode())

    def _too_large(self, size: int) -> str:
        return (f"the request body is {_human(size)} or more; the limit is {self.max_mb:g} MB. "
                "Send fewer records per request (or raise AUTOML_AGENT_MAX_REQUEST_MB where the server runs)")


BODY_SHAPE = 'the body must be JSON like {"records": [{"column": value, ...}, ...]}'


async def _send_plain(send: Send, start: dict[str, Any], message: dict[str, Any]) -> None:
    """A 400 from the framework's own validation ('1 validation error for Input' and a list of details) becomes
    one message that says what was wrong and what shape is expected; our own 400s pass unchanged."""
    body = message.get("body", b"")
    try:
        answer = json.loads(body)
    except ValueError:
        answer = None
    if isinstance(answer, dict) and isinstance(answer.get("detail"), list) and "validation error" in str(
            answer.get("error", "")):
        first = answer["detail"][0] if answer["detail"] else {}
        where = ".".join(str(part) for part in first.get("loc", [])) or "body"
        body = json.dumps({"error": f"{where}: {first.get('msg', 'invalid')}; {BODY_SHAPE}"}).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        start = {**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        message = {**message, "body": body, "more_body": False}
    await send(start)
    await send(message)


def _human(size: int) -> str:
    return f"{size / 2**20:.1f} MB" if size >= 2**20 else f"{size / 1024:.1f} KB"
