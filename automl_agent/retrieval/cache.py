"""On-disk cache of retrieval answers, keyed by a stable hash (sha256) of the source, its endpoint and the query,
so a second run with the same question reads the disk instead of the network. Entries expire after a week."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

TTL_S = 7 * 24 * 3600
UNREACHABLE_TTL_S = 10 * 60


def cache_key(source: str, endpoint: str, query: str) -> str:
    return hashlib.sha256(json.dumps([source, endpoint, query], ensure_ascii=False).encode()).hexdigest()[:32]


class RetrievalCache:
    def __init__(self, root: Path):
        self.root = root

    def _path(self, source: str, key: str) -> Path:
        return self.root / source / f"{key}.json"

    def get(self, source: str, endpoint: str, query: str) -> list[dict[str, Any]] | None:
        path = self._path(source, cache_key(source, endpoint, query))
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        if time.time() - entry.get("stored_at", 0) > TTL_S:
            return None
        return entry.get("items")

    def put(self, source: str, endpoint: str, query: str, items: list[dict[str, Any]]) -> None:
        path = self._path(source, cache_key(source, endpoint, query))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{time.monotonic_ns()}.tmp")
        tmp.write_text(json.dumps({"stored_at": time.time(), "source": source, "endpoint": endpoint,
                                   "query": query, "items": items}, ensure_ascii=False))
        tmp.replace(path)

    # A source found unreachable is not tried again by default for a few minutes, so offline runs stay fast.
    def _unreachable_path(self, source: str, endpoint: str) -> Path:
        return self.root / "unreachable" / f"{cache_key(source, endpoint, '')}.json"

    def mark_unreachable(self, source: str, endpoint: str, error: str) -> None:
        path = self._unreachable_path(source, endpoint)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"at": time.time(), "error": error}))

    def recently_unreachable(self, source: str, endpoint: str) -> str | None:
        try:
            entry = json.loads(self._unreachable_path(source, endpoint).read_text())
        except (OSError, ValueError):
            return None
        age = time.time() - entry.get("at", 0)
        if age > UNREACHABLE_TTL_S:
            return None
        return (f"skipped: {entry.get('error', 'unreachable')} {age / 60:.0f} min ago (tried again "
                f"{UNREACHABLE_TTL_S // 60} min after; name it in --retrieval to try now)")

    def clear_unreachable(self, source: str, endpoint: str) -> None:
        self._unreachable_path(source, endpoint).unlink(missing_ok=True)
