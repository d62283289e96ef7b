"""The served model's traffic log: for a sample of the records it answers, the monitored view of the inputs and the
prediction, one JSON line each. Bounded: each server process writes its own file, rotated at a size cap, with a
fixed number of old files kept. Nothing else is logged (no headers, keys or raw text and images)."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from .view import PREDICTION, monitored_row, prediction_value

FILE_PREFIX = "served-"
DEFAULT_MAX_MB = 20.0
DEFAULT_FILES = 3


def log_folder(base: str | Path | None, service_name: str) -> Path:
    """Where a service's log lives: AUTOML_AGENT_MONITOR_DIR (set by `automl-agent serve` to the workspace's
    monitoring/ folder), else ./monitoring, then one folder per service."""
    return Path(base or "monitoring") / service_name


class _RotatingFile:
    """Appends whole lines; past `max_bytes` the file becomes NAME.1 (NAME.1 becomes NAME.2 ...), `backups` kept.
    One process writes it (each server process has its own file), so no lock is needed; a write per request."""

    def __init__(self, path: Path, max_bytes: int, backups: int):
        self.path, self.max_bytes, self.backups = path, max(max_bytes, 1024), backups
        self._file = path.open("ab")
        self._size = self._file.tell()

    def write(self, data: bytes) -> None:
        if self._size and self._size + len(data) > self.max_bytes:
            self._rotate()
        self._file.write(data)
        self._file.flush()
        self._size += len(data)

    def _rotate(self) -> None:
        self._file.close()
        for i in range(self.backups - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{i}")
            if older.exists():
                older.replace(self.path.with_name(f"{self.path.name}.{i + 1}"))
        if self.backups:
            self.path.replace(self.path.with_name(f"{self.path.name}.1"))
        else:
            self.path.unlink(missing_ok=True)
        self._file = self.path.open("ab")
        self._size = 0

    def close(self) -> None:
        self._file.close()


class ServedLog:
    def __init__(self, folder: Path, schema: dict[str, Any], *, model: str = "", sample: float = 1.0,
                 max_mb: float = DEFAULT_MAX_MB, files: int = DEFAULT_FILES):
        """`model`: the registered version answering ("NAME:VERSION"), kept on each line: one service name serves
        the versions one after another, and each is compared with its own training sample."""
        self.schema, self.task, self.sample = schema, schema["task"], max(0.0, min(1.0, sample))
        self.model = model
        self._random = random.Random()
        self._file: _RotatingFile | None = None
        if self.sample > 0:
            folder.mkdir(parents=True, exist_ok=True)
            self._file = _RotatingFile(folder / f"{FILE_PREFIX}{os.getpid()}.jsonl",
                                       max_bytes=int(max_mb * 1024 * 1024 / max(files, 1)), backups=max(files - 1, 0))

    @property
    def enabled(self) -> bool:
        return self._file is not None

    def write(self, records: Sequence[dict[str, Any]], predictions: Sequence[Any]) -> None:
        if self._file is None:
            return
        now = round(time.time(), 3)
        lines = []
        for record, prediction in zip(records, predictions):
            if self.sample < 1.0 and self._random.random() >= self.sample:
                continue
            lines.append(json.dumps({"t": now, "m": self.model, "x": monitored_row(record, self.schema),
                                     "y": prediction_value(prediction, self.task)}, separators=(",", ":"), default=str))
        if lines:
            self._file.write(("\n".join(lines) + "\n").encode("utf-8"))

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def read_served(folder: Path, *, since: float | None = None) -> pd.DataFrame:
    """Every logged record of a service (all processes, rotated files included), oldest first: the view's columns,
    `prediction`, `served_at` (seconds since the epoch) and `served_by` (NAME:VERSION). Lines that do not parse (a
    file cut mid-write) are skipped."""
    rows = []
    for path in sorted(folder.glob(f"{FILE_PREFIX}*.jsonl*")):
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(entry, dict) or (since is not None and entry.get("t", 0) < since):
                    continue
                rows.append({**entry.get("x", {}), PREDICTION: entry.get("y"), "served_at": entry.get("t"),
                             "served_by": entry.get("m", "")})
    frame = pd.DataFrame(rows)
    return frame.sort_values("served_at", kind="stable").reset_index(drop=True) if len(frame) else frame
