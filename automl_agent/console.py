"""Progress on the terminal: one line per stage as it goes, trial lines during HPO, a summary at the end."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator, TextIO


class Reporter:
    """`logger` (optional) also receives every line: a flow run started from the Prefect UI shows its progress in
    the run's logs there."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False, logger: Any = None):
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.logger = logger
        self.timings: dict[str, float] = {}

    def say(self, text: str) -> None:
        if not self.quiet:
            print(text, file=self.stream, flush=True)
        if self.logger is not None and text.strip():
            self.logger.info(text.strip())

    def always(self, text: str) -> None:
        """A line even --quiet prints: the outcome of a run and what to do about it."""
        print(text, file=self.stream, flush=True)
        if self.logger is not None and text.strip():
            self.logger.info(text.strip())

    @contextmanager
    def stage(self, key: str, label: str) -> Iterator[None]:
        self.say(f"> {label} ...")
        started = time.perf_counter()
        try:
            yield
        finally:
            elapsed = time.perf_counter() - started
            self.timings[key] = round(self.timings.get(key, 0.0) + elapsed, 3)
            self.say(f"  {label}: {elapsed:.1f} s")

    def detail(self, text: str) -> None:
        self.say(f"    {text}")
