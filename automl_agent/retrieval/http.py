"""HTTP for retrieval sources: a timeout on every request, retries for transient failures (connection errors,
429 and 5xx, honouring a short Retry-After), and one error type whose message a user can read in a run's output."""

from __future__ import annotations

import time
from typing import Any, Callable, TypeVar

import httpx

USER_AGENT = "automl-agent-retrieval/0.1 (+https://github.com/automl-agent)"
TRANSIENT_STATUS = {429, 500, 502, 503, 504}
MAX_RETRY_AFTER_S = 3.0
T = TypeVar("T")


class SourceError(Exception):
    """A source that did not answer usefully; the message is what the run prints and records ("unreachable ...")."""


def _retry_after(response: httpx.Response | None, attempt: int) -> float:
    header = response.headers.get("retry-after", "") if response is not None else ""
    try:
        return min(float(header), MAX_RETRY_AFTER_S)
    except ValueError:
        return min(0.25 * 2 ** attempt, MAX_RETRY_AFTER_S)


def with_retries(call: Callable[[], T], *, retries: int, transient: Callable[[Exception], bool],
                 describe: Callable[[Exception], str], deadline: float) -> T:
    """`call()` again after a transient failure, while retries and time (a `time.monotonic()` deadline) remain."""
    for attempt in range(retries + 1):
        try:
            return call()
        except Exception as exc:  # classified below: only transient ones are retried
            response = getattr(exc, "response", None)
            pause = _retry_after(response if isinstance(response, httpx.Response) else None, attempt)
            if attempt == retries or not transient(exc) or time.monotonic() + pause >= deadline:
                raise SourceError(describe(exc)) from exc
            time.sleep(pause)
    raise AssertionError("unreachable")


def _transient(exc: Exception) -> bool:
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code in TRANSIENT_STATUS
    return isinstance(exc, httpx.TransportError)


def describe_http_error(exc: Exception, url: str, timeout_s: float) -> str:
    host = httpx.URL(url).host or url
    if isinstance(exc, httpx.TimeoutException):
        return f"no answer from {host} within {timeout_s:g} s"
    if isinstance(exc, httpx.TransportError):
        return f"unreachable ({host}: {type(exc).__name__}{': ' + str(exc) if str(exc) else ''})"
    if isinstance(exc, httpx.HTTPStatusError):
        code = exc.response.status_code
        if code == 429:
            return f"rate limited by {host} (HTTP 429)"
        if code in (401, 403):
            return f"{host} refused the credentials (HTTP {code})"
        return f"{host} answered HTTP {code}"
    if isinstance(exc, ValueError):
        return f"malformed answer from {host} ({exc})"
    return f"{type(exc).__name__}: {exc}"


def request_json(method: str, url: str, *, timeout_s: float, deadline: float, retries: int = 2,
                 params: dict[str, Any] | None = None, json_body: Any = None, headers: dict[str, str] | None = None,
                 auth: Any = None, empty_on: tuple[int, ...] = ()) -> Any:
    """The decoded JSON answer of one API call (None for a status in `empty_on`: an API that says 'no results'
    with an error code), or a SourceError that says what went wrong."""

    def call() -> Any:
        remaining = max(0.5, min(timeout_s, deadline - time.monotonic()))
        response = httpx.request(method, url, params=params, json=json_body, auth=auth, timeout=remaining,
                                 headers={"User-Agent": USER_AGENT, "Accept": "application/json", **(headers or {})},
                                 follow_redirects=True)
        if response.status_code in empty_on:
            return None
        response.raise_for_status()
        try:
            return response.json()
        except ValueError as exc:
            raise ValueError(f"not JSON: {response.text[:60]!r}") from exc

    return with_retries(call, retries=retries, transient=_transient, deadline=deadline,
                        describe=lambda exc: describe_http_error(exc, url, timeout_s))


def records(payload: Any, *path: str, lone_dict_is_list: bool = False) -> list[dict]:
    """The objects listed at payload[path...] of an API answer; ValueError (a malformed answer) when there is no list
    there. OpenML answers a one-element list as the element itself: `lone_dict_is_list` accepts that."""
    node = payload
    for key in path:
        if not isinstance(node, dict) or key not in node:
            raise ValueError(f"missing {'/'.join(path)}")
        node = node[key]
    if lone_dict_is_list and isinstance(node, dict):
        node = [node]
    if not isinstance(node, list):
        raise ValueError(f"{'/'.join(path)} is not a list")
    return [r for r in node if isinstance(r, dict)]
