from __future__ import annotations

from prefect import task

from .. import context
from ..context import RunRef
from ..agents import data_agent, manager, model_agent
from ..agents.contracts import DataProfile, ExecutionVerdict, Plan, PlanOutcome, RequirementSpec
from .common import STAGE_CACHE, retry_unless_user_error, worker_id


@task(name="execute_plan",
      description="Data agent and model agent on one plan; mapped over the plans, in parallel.",
      task_run_name="execute_plan_{plan.plan_id}", cache_policy=STAGE_CACHE, retries=2,
      retry_delay_seconds=2, retry_condition_fn=retry_unless_user_error)
def execute_plan(run: RunRef, plan: Plan, spec: RequirementSpec, profile: DataProfile, top_k: int, revision: int) -> PlanOutcome:
    """One plan, by the data agent then the model agent; a nested MLflow run records it."""
    ctx = context.get(run)
    child = ctx.tracker.start(f"r{revision}-plan-{plan.plan_id}", {"plan_title": plan.title, "automl_agent.worker": worker_id()},
                              parent_id=ctx.mlflow_run_id)
    analysis = data_agent.analyse(ctx.brain, spec, plan, profile)
    proposal = model_agent.propose(ctx.brain, spec, plan, analysis, top_k)
    outcome = PlanOutcome(plan=plan, data=analysis, model=proposal)
    ctx.tracker.json(child, outcome.model_dump(mode="json"), "outcome.json")
    ctx.tracker.params(child, {"models": [c.model for c in proposal.candidates], "n_features": len(analysis.features)})
    if proposal.candidates and proposal.candidates[0].expected_metric is not None:
        ctx.tracker.metrics(child, {"expected_" + spec.problem.metric: proposal.candidates[0].expected_metric})
    ctx.tracker.finish(child)
    return outcome


@task(name="verify_execution",
      description="Manager: the plan whose outcome fits the requirements best.",
      cache_policy=STAGE_CACHE, retries=2, retry_delay_seconds=2, retry_condition_fn=retry_unless_user_error)
def verify_execution(run: RunRef, spec: RequirementSpec, outcomes: list[PlanOutcome], revision: int) -> ExecutionVerdict:
    ctx = context.get(run)
    verdict = manager.verify_execution(ctx.brain, spec, outcomes)
    ctx.tracker.json(ctx.mlflow_run_id, verdict.model_dump(), f"verdicts/execution_r{revision}.json")
    return verdict
