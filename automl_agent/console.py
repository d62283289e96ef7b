"""Progress on the terminal.

On a terminal: finished stages scroll by as one line each, and a live panel under them shows the stage under way
with its clock and, during the search, the trials, the best score so far and the time left of the budget. Anywhere
else (CI, a log file, the Prefect UI's logs): plain lines, one per stage and one per new best trial, never one per
trial. `--quiet` prints only the outcome."""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

from .config import current_settings


class Reporter:
    """`logger` (optional) also receives every line: a flow run started from the Prefect UI shows its progress in
    the run's logs there."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False, logger: Any = None, live: bool | None = None):
        self._stream = stream
        self.quiet = quiet
        self.logger = logger
        self.timings: dict[str, float] = {}
        self._live_wanted = live
        self._lock = threading.RLock()
        self._live = None
        self._stage: tuple[str, float] | None = None
        self._search: dict[str, Any] | None = None
        self._parts: dict[str, bool] = {}  # work running in parallel within a stage (the plans): name -> done

    @property
    def stream(self) -> TextIO:
        # looked up on each line: sys.stderr may be replaced while a run goes (see local_llm.NativeLogToFile)
        return self._stream or sys.stderr

    @property
    def live(self) -> bool:
        if self.quiet:
            return False
        if self._live_wanted is not None:
            return self._live_wanted
        if current_settings().plain_progress or os.environ.get("CI"):
            return False
        return bool(getattr(self.stream, "isatty", lambda: False)())

    def _log(self, text: str) -> None:
        if self.logger is not None and text.strip():
            self.logger.info(text.strip())

    def _print(self, text: str) -> None:
        with self._lock:
            if self._live is not None:
                self._live.console.print(text, markup=False, highlight=False, soft_wrap=True)
            else:
                print(text, file=self.stream, flush=True)

    def say(self, text: str) -> None:
        if not self.quiet:
            self._print(text)
        self._log(text)

    def always(self, text: str) -> None:
        """A line even --quiet prints: the outcome of a run and what to do about it."""
        self._print(text)
        self._log(text)

    def detail(self, text: str) -> None:
        self.say(f"    {text}")

    @contextmanager
    def stage(self, key: str, label: str) -> Iterator[None]:
        started = time.perf_counter()
        live = self.live
        if live:
            self._start_live(label, started)
        else:
            self.say(f"> {label} ...")
        try:
            yield
        finally:
            elapsed = time.perf_counter() - started
            self.timings[key] = round(self.timings.get(key, 0.0) + elapsed, 3)
            search, self._search = self._search, None
            self._parts = {}
            if search and search["trials"] and not live:
                self.detail(f"{search['trials']} trials, best {search['best']:.4f} ({search['best_model']})")
            if live:
                self._stop_live()
                self.say(f"✓ {label}  {elapsed:.1f} s")
            else:
                self.say(f"  {label}: {elapsed:.1f} s")

    def trial(self, progress: dict[str, Any], budget_s: float | None = None) -> None:
        """One finished HPO trial (the script's PROGRESS line): the live panel shows it; plain output only a new best."""
        with self._lock:
            search = self._search or {"trials": 0, "best": None, "best_model": "", "budget": budget_s}
            improved = search["best"] is None or progress["best"] != search["best"]
            search.update(trials=search["trials"] + 1, best=progress["best"], last=progress["value"],
                          elapsed=progress.get("elapsed_s", 0))
            if improved:
                search["best_model"] = progress["model"]
            self._search = search
        line = (f"trial {progress['trial']:>3}  {progress['model']:<24} {progress['value']:.4f}  "
                f"best {progress['best']:.4f}  ({progress.get('elapsed_s', 0):.0f} s)")
        self._log(line)
        if improved and not self.quiet and not self.live:
            self._print(f"    {line}")

    def parts(self, names: list[str]) -> None:
        """Work that runs in parallel within the stage under way; the live panel shows which is still running."""
        with self._lock:
            self._parts = {name: False for name in names}

    def part_done(self, name: str) -> None:
        with self._lock:
            self._parts[name] = True

    # ---------------------------------------------------------------- the live panel (terminals only)
    def _start_live(self, label: str, started: float) -> None:
        from rich.console import Console
        from rich.live import Live

        with self._lock:
            self._stage = (label, started)
            # no file given: rich writes to whatever sys.stderr is at each refresh, as say() does
            console = Console(file=self._stream, stderr=self._stream is None)
            self._live = Live(get_renderable=self._panel, console=console, transient=True,
                              refresh_per_second=8, redirect_stdout=False, redirect_stderr=False)
            self._live.start()

    def _stop_live(self) -> None:
        with self._lock:
            if self._live is not None:
                self._live.stop()
            self._live, self._stage = None, None

    def _panel(self):
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.spinner import Spinner
        from rich.table import Table
        from rich.text import Text

        label, started = self._stage or ("", time.perf_counter())
        rows: list = [Spinner("dots", text=Text(f" {label}  {time.perf_counter() - started:.0f} s", style="bold"))]
        if self._parts:
            rows.append(Text("   " + "   ".join(f"{'✓' if done else '…'} {name}" for name, done in self._parts.items())))
        search = self._search
        if search and search["trials"]:
            budget = search.get("budget") or 0
            grid = Table.grid(padding=(0, 2))
            grid.add_row(Text(f"   trials {search['trials']}"),
                         Text(f"best {search['best']:.4f} ({search['best_model']})", style="green"),
                         Text(f"last {search['last']:.4f}"))
            rows.append(grid)
            if budget:
                left = max(0.0, budget - search["elapsed"])
                bar = Table.grid(padding=(0, 1))
                bar.add_row(Text("   "), ProgressBar(total=budget, completed=min(budget, search["elapsed"]), width=40),
                            Text(f"{left:.0f} s of the {budget:.0f} s search budget left"))
                rows.append(bar)
        return Group(*rows)

    # ---------------------------------------------------------------- the closing summary
    def table(self, title: str, rows: list[tuple[str, str]], always: bool = False) -> None:
        """Key/value rows: a table on a terminal, aligned plain lines elsewhere (which logs and greps keep intact)."""
        if self.quiet and not always:
            return
        if self.live:
            from rich.console import Console
            from rich.table import Table

            table = Table(title=title, show_header=False, title_justify="left", title_style="bold")
            table.add_column(style="cyan", no_wrap=True)
            table.add_column(overflow="fold")
            for key, value in rows:
                table.add_row(key, value)
            Console(file=self.stream).print(table)
            for _, value in rows:
                self._log(value)
            return
        self._print(title)
        width = max((len(k) for k, _ in rows), default=0)
        for key, value in rows:
            self._print(f"  {key:<{width}}  {value}")
            self._log(f"{key}: {value}")
