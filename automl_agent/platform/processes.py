"""Small helpers for the background processes automl-agent starts (servers, workers)."""

from __future__ import annotations

import random
import socket
from pathlib import Path


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now, chosen below the kernel's ephemeral range: a port the
    kernel hands out (port 0) can be handed out again to another program (BentoML's own control sockets) before the
    server we start binds it."""
    low = _ephemeral_range()[0]
    for _ in range(50):
        port = random.randint(max(1024, low - 20000), low - 1)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def alive(pid: int) -> bool:
    """The process exists and has not exited (an exited child that nobody reaped yet counts as gone)."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
