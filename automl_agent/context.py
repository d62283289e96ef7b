"""Per-run context shared by the flow's tasks: brain, transcript, tracker, workspace, reporter.

Tasks receive only the run id (small and hashable, so cache keys stay stable) and look the rest up here."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from .agents.brains.base import RecordingBrain, Transcript
from .console import Reporter
from .settings import RunOptions
from .tracking import Tracker
from .workspace import Workspace

_CONTEXTS: dict[str, "RunContext"] = {}
_LOCK = threading.Lock()


@dataclass
class RunContext:
    run_id: str
    options: RunOptions
    workspace: Workspace
    brain: RecordingBrain
    transcript: Transcript
    tracker: Tracker
    reporter: Reporter
    mlflow_run_id: str
    plan_runs: dict[int, str] = field(default_factory=dict)

    @property
    def run_dir(self) -> Path:
        return self.workspace.run_dir(self.run_id)


def register(context: RunContext) -> None:
    with _LOCK:
        _CONTEXTS[context.run_id] = context


def get(run_id: str) -> RunContext:
    with _LOCK:
        return _CONTEXTS[run_id]


def release(run_id: str) -> None:
    with _LOCK:
        _CONTEXTS.pop(run_id, None)
