"""Training a generated script on a Prefect work pool: what travels, how it runs there, and how results come back.

Everything crosses through the MLflow artifact store of the run (a tracking server's artifact proxy for a team),
never through a local path: the caller uploads the script and a snapshot of the data under
`training/<attempt>/inputs`, the worker (maybe another machine) downloads them into a fresh folder, runs the
script in the same sandbox as a local run, and uploads what the script wrote (results.json, model/, the log,
split.json) with an `outcome.json` under `training/<attempt>/outputs`; the caller downloads those into the
attempt's folder, where the rest of the flow finds them as after a local run.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Callable

from pydantic import BaseModel, Field

from .errors import UserFacingError

DATA_DIR = "data"
OUTCOME_FILE = "outcome.json"
# the Run form's choice for training in the automl-agent/run flow run's own process, beside the deployed pools
IN_THIS_RUN = "this run"


def chosen_pool(value: str | None) -> str | None:
    """The work pool a run's training_pool parameter names; None: train in the run's own process."""
    return None if value in (None, "", IN_THIS_RUN) else value

TRAIN_FLOW = "automl-agent-train"


def slot_limit_name(pool: str) -> str:
    """The Prefect global concurrency limit that bounds how many trainings a pool runs at once (its GPU slots)."""
    return f"automl-agent-{pool}-slots"


class TrainingJob(BaseModel):
    """What a training worker needs: where the inputs are and the sandbox's limits. Plain values only."""

    tracking_uri: str = Field(description="MLflow tracking URI holding the inputs and receiving the outputs")
    mlflow_run_id: str = Field(description="the automl run's MLflow run")
    artifact_path: str = Field(description="e.g. training/v1-a1: inputs/ below it, outputs/ written there")
    script_name: str
    timeout_s: float = Field(gt=0)
    memory_mb: int = Field(default=8192, ge=512)
    threads: int | None = None
    pool: str | None = Field(default=None, description="the work pool it was sent to; its slot limit applies")


class TrainingOutcome(BaseModel):
    returncode: int
    duration_s: float
    timed_out: bool
    tail: str
    host: str = ""
    pid: int = 0
    flow_run_id: str | None = None
    isolation: str = Field(default="", description="the layer that held the script: bubblewrap or guard")
    stopped_because: str = ""
    peak_memory_mb: float | None = Field(default=None, description="the most resident memory the script held, in MB")


def data_snapshot(data_path: str, task: str) -> tuple[Path, str]:
    """(what to ship, the data path the script reads relative to its folder). A table ships alone, an image table
    with its folder (the image paths in it are relative to it), a graph as its folder."""
    source = Path(data_path)
    if source.is_dir():
        return source, f"{DATA_DIR}/{source.name}"
    if task == "image_classification":
        return source.parent, f"{DATA_DIR}/{source.parent.name}/{source.name}"
    return source, f"{DATA_DIR}/{source.name}"


def upload_inputs(tracker, mlflow_run_id: str, artifact_path: str, script: Path, data_path: str, task: str) -> None:
    with tempfile.TemporaryDirectory(prefix="automl-inputs-") as tmp:
        staging = Path(tmp)
        shutil.copy(script, staging / script.name)
        source, _ = data_snapshot(data_path, task)
        (staging / DATA_DIR).mkdir()
        if source.is_dir():
            shutil.copytree(source, staging / DATA_DIR / source.name)
        else:
            shutil.copy(source, staging / DATA_DIR / source.name)
        tracker.folder(mlflow_run_id, staging, f"{artifact_path}/inputs")


def run_job(job: TrainingJob, on_line: Callable[[str], None] | None = None,
            flow_run_id: str | None = None) -> TrainingOutcome:
    """On the worker: fetch the inputs, run the script in the sandbox, send back what it wrote."""
    from .sandbox import run_script
    from .platform.tracking import Tracker

    tracker = Tracker.for_artifacts(job.tracking_uri)
    with tempfile.TemporaryDirectory(prefix="automl-train-") as tmp:
        folder = Path(tmp) / "attempt"
        inputs = tracker.download(job.mlflow_run_id, f"{job.artifact_path}/inputs", Path(tmp) / "download")
        shutil.copytree(inputs, folder)
        result = run_script(folder / job.script_name, folder, timeout_s=job.timeout_s, memory_mb=job.memory_mb,
                            threads=job.threads, on_line=on_line)
        outcome = TrainingOutcome(returncode=result.returncode, duration_s=result.duration_s, timed_out=result.timed_out,
                                  tail=result.tail, host=socket.gethostname(), pid=os.getpid(), flow_run_id=flow_run_id,
                                  isolation=result.isolation, stopped_because=result.stopped_because,
                                  peak_memory_mb=result.peak_memory_mb)
        shutil.rmtree(folder / DATA_DIR, ignore_errors=True)
        (folder / job.script_name).unlink(missing_ok=True)
        (folder / OUTCOME_FILE).write_text(outcome.model_dump_json(indent=2))
        tracker.folder(job.mlflow_run_id, folder, f"{job.artifact_path}/outputs")
    return outcome


def fetch_outputs(tracker, mlflow_run_id: str, artifact_path: str, attempt_dir: Path) -> TrainingOutcome:
    """On the caller: the worker's outputs into the attempt's folder."""
    with tempfile.TemporaryDirectory(prefix="automl-outputs-") as tmp:
        try:
            outputs = tracker.download(mlflow_run_id, f"{artifact_path}/outputs", Path(tmp))
        except Exception as exc:  # nothing came back: the worker died before uploading
            raise FileNotFoundError(f"no outputs at {artifact_path}/outputs: {exc}") from exc
        for item in outputs.iterdir():
            target = attempt_dir / item.name
            if target.is_dir():
                shutil.rmtree(target)
            if item.is_dir():
                shutil.copytree(item, target)
            else:
                shutil.copy(item, target)
    return TrainingOutcome.model_validate_json((attempt_dir / OUTCOME_FILE).read_text())


def dispatch(job: TrainingJob, pool: str, wait_s: float) -> tuple[str, str]:
    """Start the training flow run on the pool's deployment and wait for it to end; (flow run id, final state)."""
    from prefect.deployments import run_deployment

    check_pool(pool)
    flow_run = run_deployment(f"{TRAIN_FLOW}/{pool}", parameters={"job": job.model_dump()}, timeout=wait_s,
                              poll_interval=1, tags=["automl-agent", f"pool:{pool}"])
    state = flow_run.state.type.value if flow_run.state else "UNKNOWN"
    return str(flow_run.id), state


def check_pool(pool: str) -> None:
    """A pool without the training deployment is a setup problem the user can fix; say how."""
    from prefect import get_client
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            client.read_deployment_by_name(f"{TRAIN_FLOW}/{pool}")
        except ObjectNotFound:
            raise UserFacingError(
                f"Work pool {pool!r} has no training deployment ({TRAIN_FLOW}/{pool}) on the Prefect server.",
                "Register the deployments with `automl-agent deploy` (with PREFECT_API_URL pointing at the server), "
                "or leave --training-pool out to train in a local subprocess.", status="failed") from None
