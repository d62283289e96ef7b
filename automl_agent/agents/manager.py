"""Agent manager: request verification, retrieval-augmented planning, execution and implementation verification."""

from __future__ import annotations

from typing import Any

from . import knowledge_base as kb
from . import metrics
from .brains.base import AgentStep, RecordingBrain
from .brains.offline import OfflineRules
from .views import outcome_summary
from .contracts import (
    ConstraintCheck, ExecutionVerdict, ImplementationVerdict, Knowledge, ManagerOpinion, Plan, PlanOutcome, PlanSet,
    PipelineResult, RequestVerdict, RequirementSpec,
)


def data_summary(profile, target_flag: str | None = None) -> dict[str, Any]:
    """What the request check shows of the data: the file, its size, its columns and the --target choice."""
    summary = {"file": profile.path.rsplit("/", 1)[-1], "rows": profile.n_rows, "columns": profile.names}
    if target_flag:
        summary["target_chosen_with_--target"] = target_flag
    return summary


def verify_request(brain: RecordingBrain, instruction: str, data_summary: dict[str, Any], profile=None,
                   target_flag: str | None = None) -> RequestVerdict:
    """The brain's verdict, cross-checked: a request the rules read as a learning task on this data is never turned
    away (weak models reject good requests), and one that asks for something else (a poem, a file sent somewhere,
    the agent's own instructions) is never let through; where the rules are unsure the brain decides."""
    from .understanding import read_as

    instruction = read_as(instruction, profile.names if profile is not None else data_summary.get("columns", []),
                          profile.path if profile is not None else None)
    verdict = brain.answer(AgentStep("manager.verify_request", RequestVerdict,
                                     {"instruction": instruction, "data_summary": data_summary, "profile": profile,
                                      "target_flag": target_flag}))
    from .understanding.request import asks_for_something_else, data_names

    rules = OfflineRules.verify_request(instruction, data_summary, profile, target_flag)
    if rules.relevant and rules.adequate and not (verdict.relevant and verdict.adequate):
        brain.note_corrections("manager.verify_request", [
            f"the instruction reads as a learning task on a table with {len(data_summary.get('columns', []))} "
            f"columns; the brain's rejection was overridden (it said: {verdict.feedback[:200]!r})"])
        return rules
    names = data_names(profile) if profile is not None else list(data_summary.get("columns", []))
    if not rules.relevant and verdict.relevant and asks_for_something_else(instruction, names):
        brain.note_corrections("manager.verify_request", [
            "the instruction asks for something other than learning from the data; the brain's acceptance was overridden"])
        return rules
    return verdict


def make_plans(brain: RecordingBrain, spec: RequirementSpec, knowledge: Knowledge, n_plans: int, feedback: str = "") -> list[Plan]:
    keys = kb.model_keys(spec.problem.downstream_task)
    answer = brain.answer(AgentStep("manager.make_plans", PlanSet, {
        "spec": spec, "knowledge": knowledge, "feedback": feedback, "n_plans": n_plans, "model_keys": keys},
        views={"knowledge": knowledge.brief or "(nothing retrieved)"}))
    plans = []
    for i, plan in enumerate(answer.plans[:n_plans]):
        families = [m for m in plan.model_families if m in keys] or keys[:3]
        plans.append(plan.model_copy(update={"plan_id": i + 1, "model_families": families}))
    if len(plans) < n_plans:  # a brain that wrote too few plans: top up from the knowledge base
        extra = OfflineRules.make_plans(spec, knowledge, feedback, n_plans, keys).plans[len(plans):]
        plans += extra
    return plans


def verify_execution(brain: RecordingBrain, spec: RequirementSpec, outcomes: list[PlanOutcome]) -> ExecutionVerdict:
    verdict = brain.answer(AgentStep("manager.verify_execution", ExecutionVerdict, {"spec": spec, "outcomes": outcomes},
                                     views={"outcomes": [outcome_summary(o) for o in outcomes]}))
    ids = [o.plan.plan_id for o in outcomes if o.model.candidates]
    if verdict.best_plan_id not in ids and ids:
        verdict = verdict.model_copy(update={"best_plan_id": ids[0],
                                             "reason": verdict.reason + f" (plan {verdict.best_plan_id} does not exist; taking plan {ids[0]})"})
    return verdict


def measured_value(name: str, results: dict[str, Any]) -> float | None:
    source = results.get("metrics", {}) if metrics.kind(name) == "performance" else results
    value = source.get(name)
    return None if value is None else float(value)


def check_constraints(spec: RequirementSpec, results: dict[str, Any]) -> list[ConstraintCheck]:
    checks = []
    for c in spec.problem.constraints:
        measured = measured_value(c.name, results) if c.name in metrics.MEASURES else None
        checks.append(ConstraintCheck(name=c.name, op=c.op, target=c.target, measured=measured, satisfied=c.is_met(measured)))
    return checks


def verify_implementation(brain: RecordingBrain, spec: RequirementSpec, result: PipelineResult) -> ImplementationVerdict:
    """Numbers decide: every constraint against its measured value. The manager's opinion is recorded and
    becomes the revision feedback; it cannot pass a model whose numbers fail."""
    if not result.ok:
        return ImplementationVerdict(passed=False, reason=f"the training script failed: {result.error[-500:]}")
    checks = check_constraints(spec, result.results)
    opinion = brain.answer(AgentStep("manager.verify_implementation", ManagerOpinion, {
        "spec": spec, "results": {k: v for k, v in result.results.items() if k != "trials"}, "checks": checks}))
    failed = [c for c in checks if not c.satisfied]
    if failed:
        reason = "unmet: " + "; ".join(f"{c.name} = {c.measured} (needs {c.op} {c.target:g})" for c in failed)
    else:
        reason = "every constraint is met on the held-out test split"
    return ImplementationVerdict(passed=not failed, checks=checks, reason=reason, manager_opinion=opinion.reason)
