"""A light load generator for a served model: N concurrent clients, each sending one request after another over a
kept-alive connection, bounded in requests and in time. For 127.0.0.1 only: it refuses other hosts."""

from __future__ import annotations

import asyncio
import ipaddress
import statistics
import time
from collections import Counter
from urllib.parse import urlsplit

from pydantic import BaseModel


class LoadReport(BaseModel):
    clients: int
    requests: int
    errors: int
    status_counts: dict[str, int]
    seconds: float
    requests_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    first_error: str = ""


def _check_local(url: str) -> None:
    host = urlsplit(url).hostname or ""
    if host != "localhost" and not ipaddress.ip_address(host).is_loopback:
        raise ValueError(f"the load generator only targets this machine's loopback, not {host!r}")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


async def _hammer(url: str, bodies: list[bytes], clients: int, duration_s: float, max_requests: int,
                  headers: dict[str, str], expect_status: int, method: str) -> LoadReport:
    import aiohttp

    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    first_error = ""
    sent = 0
    deadline = time.perf_counter() + duration_s
    connector = aiohttp.TCPConnector(limit=clients)
    timeout = aiohttp.ClientTimeout(total=60)
    request_headers = {"content-type": "application/json", **headers}

    async def client(index: int, session: aiohttp.ClientSession) -> None:
        nonlocal sent, first_error
        while sent < max_requests and time.perf_counter() < deadline:
            body = bodies[(sent + index) % len(bodies)]
            sent += 1
            started = time.perf_counter()
            try:
                async with session.request(method, url, data=body or None, headers=request_headers) as response:
                    text = await response.read()
                    statuses[str(response.status)] += 1
                    if response.status != expect_status and not first_error:
                        first_error = f"{response.status}: {text[:300].decode(errors='replace')}"
            except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                statuses[type(exc).__name__] += 1
                first_error = first_error or repr(exc)
            latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(client(i, session) for i in range(clients)))
    seconds = time.perf_counter() - started
    done = sum(statuses.values())
    return LoadReport(clients=clients, requests=done, errors=done - statuses.get(str(expect_status), 0),
                      status_counts=dict(statuses), seconds=round(seconds, 3),
                      requests_per_s=round(done / seconds, 1) if seconds else 0.0,
                      p50_ms=round(_percentile(latencies, 50), 2), p90_ms=round(_percentile(latencies, 90), 2),
                      p99_ms=round(_percentile(latencies, 99), 2), max_ms=round(max(latencies, default=0.0), 2),
                      first_error=first_error)


def hammer(url: str, bodies: list[bytes], *, clients: int = 50, duration_s: float = 15.0, max_requests: int = 100_000,
           headers: dict[str, str] | None = None, expect_status: int = 200, method: str = "POST") -> LoadReport:
    """Send `bodies` (cycled) to `url` from `clients` concurrent clients until `duration_s` or `max_requests`."""
    _check_local(url)
    return asyncio.run(_hammer(url, bodies, clients, duration_s, max_requests, headers or {}, expect_status, method))
