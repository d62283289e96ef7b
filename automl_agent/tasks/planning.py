from __future__ import annotations

from prefect import task

from .. import context
from ..context import RunRef
from ..agents import manager
from ..agents.contracts import Knowledge, Plan, RequirementSpec
from .common import STAGE_CACHE, retry_unless_user_error


@task(name="make_plans",
      description="Manager: P plans, revised with the last verification's feedback.",
      cache_policy=STAGE_CACHE, retries=2, retry_delay_seconds=2, retry_condition_fn=retry_unless_user_error)
def make_plans(run: RunRef, spec: RequirementSpec, knowledge: Knowledge, n_plans: int, feedback: str,
               revision: int) -> list[Plan]:
    ctx = context.get(run)
    plans = manager.make_plans(ctx.brain, spec, knowledge, n_plans, feedback)
    for plan in plans:
        ctx.tracker.json(ctx.mlflow_run_id, plan.model_dump(), f"plans/revision_{revision}/plan_{plan.plan_id}.json")
    return plans
