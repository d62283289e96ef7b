from __future__ import annotations

from prefect import task

from .. import context
from ..context import RunRef
from ..agents import manager
from ..agents.contracts import DataProfile, RequestVerdict
from .common import STAGE_CACHE, retry_unless_user_error


@task(name="verify_request",
      description="Manager: is this a machine-learning request on this data?",
      cache_policy=STAGE_CACHE, retries=2, retry_delay_seconds=2,
      retry_condition_fn=retry_unless_user_error)
def verify_request(run: RunRef, instruction: str, profile: DataProfile) -> RequestVerdict:
    ctx = context.get(run)
    summary = manager.data_summary(profile, ctx.options.target)
    verdict = manager.verify_request(ctx.brain, instruction, summary, profile, ctx.options.target)
    ctx.tracker.json(ctx.mlflow_run_id, verdict.model_dump(), "verdicts/request.json")
    return verdict
