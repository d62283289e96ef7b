"""What a stage needs to find its run's services, as a serializable value: any stage can run on another worker.

A task receives a `RunRef` (the run id, the run options, the MLflow tracking URI, experiment and parent run) and
opens a `StageContext` from it: the brain, the tracker, the workspace, the transcript (persisted in the run folder)
and a reporter. Nothing a stage reads lives only in the flow's process. Brains and trackers are cached per process
for speed (a local LLM server is started once per process, not once per stage); the cache holds no run state.
"""

from __future__ import annotations

import atexit
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .agents.brains.base import RecordingBrain, Transcript
from .console import Reporter
from .settings import RunOptions
from .platform.tracking import Tracker
from .workspace import Workspace

EXPERIMENT = "automl-agent"


class RunRef(BaseModel):
    """Everything that identifies a run to a stage, wherever the stage runs."""

    run_id: str
    options: RunOptions
    tracking_uri: str
    experiment_id: str
    mlflow_run_id: str

    @property
    def run_dir(self) -> Path:
        return Workspace(self.options.workdir_path).run_dir(self.run_id)


@dataclass
class StageContext:
    ref: RunRef
    workspace: Workspace
    brain: RecordingBrain
    transcript: Transcript
    tracker: Tracker
    reporter: Reporter

    @property
    def run_id(self) -> str:
        return self.ref.run_id

    @property
    def options(self) -> RunOptions:
        return self.ref.options

    @property
    def mlflow_run_id(self) -> str:
        return self.ref.mlflow_run_id

    @property
    def run_dir(self) -> Path:
        return self.workspace.run_dir(self.run_id)


_LOCK = threading.Lock()
_BRAINS: dict[tuple, Any] = {}
_TRACKERS: dict[tuple[str, str], Tracker] = {}
_REPORTERS: dict[str, Reporter] = {}


def transcript_store(ref: RunRef) -> Path:
    return ref.run_dir / "calls"


def _brain(options: RunOptions, log_dir: Path | None = None):
    from .agents.brains.factory import make_brain

    import os

    # the endpoint is part of what the brain is: another OPENAI_BASE_URL is another brain
    key = (options.llm, tuple(sorted(options.llm_by_agent.items())), options.llm_strict, options.reasoning_effort,
           *(os.environ.get(name) for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT",
                                               "AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION")))
    with _LOCK:
        if key not in _BRAINS:
            _BRAINS[key] = make_brain(options.llm, options.llm_by_agent, log_dir=log_dir, strict=options.llm_strict,
                                      reasoning_effort=options.reasoning_effort)
        return _BRAINS[key]


def tracker(tracking_uri: str, experiment_id: str) -> Tracker:
    with _LOCK:
        key = (tracking_uri, experiment_id)
        if key not in _TRACKERS:
            _TRACKERS[key] = Tracker(tracking_uri, EXPERIMENT, experiment_id=experiment_id)
        return _TRACKERS[key]


def attach_reporter(run_id: str, reporter: Reporter) -> None:
    """Progress of stages that run in this process goes to the user's terminal through this reporter."""
    with _LOCK:
        _REPORTERS[run_id] = reporter


def attached_reporter(run_id: str) -> Reporter | None:
    with _LOCK:
        return _REPORTERS.get(run_id)


def detach(run_id: str) -> None:
    with _LOCK:
        _REPORTERS.pop(run_id, None)


def close_brains() -> None:
    with _LOCK:
        brains = list(_BRAINS.values())
        _BRAINS.clear()
    for brain in brains:
        getattr(brain, "close", lambda: None)()


atexit.register(close_brains)


def _reporter(run_id: str) -> Reporter:
    with _LOCK:
        found = _REPORTERS.get(run_id)
    if found is not None:
        return found
    # a stage on another worker: its progress goes to that worker's log (the Prefect UI shows task logs)
    return Reporter(logger=logging.getLogger(f"automl_agent.run.{run_id}"), quiet=True)


def get(ref: RunRef) -> StageContext:
    transcript = Transcript(transcript_store(ref))
    brain = RecordingBrain(lambda: _brain(ref.options, log_dir=ref.run_dir), transcript,
                           max_tokens=ref.options.max_tokens_per_run, prompts_dir=ref.run_dir / "prompts")
    return StageContext(ref=ref, workspace=Workspace(ref.options.workdir_path), brain=brain, transcript=transcript,
                        tracker=tracker(ref.tracking_uri, ref.experiment_id), reporter=_reporter(ref.run_id))
