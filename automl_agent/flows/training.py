"""The training flow: a generated script trained as its own flow run on a work pool (`cpu`, `gpu`, ...).

Deployed once per pool as `automl-agent-train/<pool>` (see `automl-agent deploy`); the automl flow's train stage
starts it when the run has a training pool, and waits for it. The pool's global concurrency limit
(`automl-agent-<pool>-slots`) bounds how many trainings hold its GPUs at once.
"""

from __future__ import annotations

import json
from contextlib import nullcontext

from prefect import flow, get_run_logger
from prefect.concurrency.sync import concurrency
from prefect.runtime import flow_run

from ..training import TRAIN_FLOW, TrainingJob, TrainingOutcome, run_job, slot_limit_name


@flow(name=TRAIN_FLOW, flow_run_name="train-{job.artifact_path}", log_prints=False, persist_result=False)
def train(job: TrainingJob) -> TrainingOutcome:
    """Fetch the script and the data from the MLflow artifact store, train in the sandbox, send the outputs back."""
    logger = get_run_logger()

    def on_line(line: str) -> None:
        if line.startswith("PROGRESS "):
            p = json.loads(line[9:])
            logger.info(f"trial {p['trial']}: {p['model']} {p['value']:.4f} (best {p['best']:.4f}, {p['elapsed_s']:.0f} s)")

    with concurrency(slot_limit_name(job.pool), occupy=1) if job.pool else nullcontext():
        outcome = run_job(job, on_line=on_line, flow_run_id=str(flow_run.id))
    logger.info(f"training ended with code {outcome.returncode} after {outcome.duration_s:.1f} s on {outcome.host}")
    return outcome
