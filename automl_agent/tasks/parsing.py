from __future__ import annotations

from prefect import task

from .. import context
from ..context import RunRef
from ..agents import prompt_agent
from ..agents.contracts import DataProfile, RequirementSpec
from .common import STAGE_CACHE, retry_unless_user_error


@task(name="parse_instruction",
      description="Prompt agent: the instruction as a RequirementSpec, cross-checked against the data.",
      cache_policy=STAGE_CACHE, retries=2, retry_delay_seconds=2,
      retry_condition_fn=retry_unless_user_error)
def parse_instruction(run: RunRef, instruction: str, profile: DataProfile,
                      target: str | None) -> tuple[RequirementSpec, list[str]]:
    ctx = context.get(run)
    spec, corrections = prompt_agent.parse_instruction(ctx.brain, instruction, profile, target)
    ctx.tracker.json(ctx.mlflow_run_id, spec.model_dump(mode="json"), "requirement_spec.json")
    ctx.tracker.json(ctx.mlflow_run_id, corrections, "cross_checks/parse_corrections.json")
    return spec, corrections
