"""Model agent: plan decomposition and the top-k candidates with hyperparameters and search spaces."""

from __future__ import annotations

from . import knowledge_base as kb
from .brains.base import AgentStep, RecordingBrain
from .contracts import Candidate, DataAnalysis, DecomposedPlan, ModelProposal, Plan, RequirementSpec
from .views import knowledge_view


def propose(brain: RecordingBrain, spec: RequirementSpec, plan: Plan, analysis: DataAnalysis, top_k: int) -> ModelProposal:
    task = spec.problem.downstream_task
    known = kb.models(task)
    subtasks = brain.answer(AgentStep("model.decompose", DecomposedPlan, {"spec": spec, "plan": plan, "analysis": analysis}))
    knowledge = {k: known[k] for k in plan.model_families if k in known} or known
    proposal = brain.answer(AgentStep("model.propose", ModelProposal, {
        "spec": spec, "plan": plan, "subtasks": subtasks, "analysis": analysis, "knowledge": knowledge,
        "top_k": top_k, "metric": spec.problem.metric}, views={"knowledge": knowledge_view(knowledge)}))
    return ground(proposal, spec, plan, top_k)


def _valid_space(space: dict) -> bool:
    for spec in space.values():
        kind = spec.get("type")
        if kind in {"int", "float"}:
            if not isinstance(spec.get("low"), (int, float)) or not isinstance(spec.get("high"), (int, float)) or spec["low"] > spec["high"]:
                return False
            if spec.get("log") and spec["low"] <= 0:
                return False
        elif kind == "categorical":
            if not spec.get("choices"):
                return False
        else:
            return False
    return True


def ground(proposal: ModelProposal, spec: RequirementSpec, plan: Plan, top_k: int) -> ModelProposal:
    """Only models the pipeline can build, with search spaces it can sample. A candidate's hyperparameters and
    ranges override the knowledge base's, key by key; what it leaves out (or gives invalid) keeps the knowledge's."""
    known = kb.models(spec.problem.downstream_task)
    candidates: list[Candidate] = []
    for c in proposal.candidates:
        if c.model not in known or any(c.model == x.model for x in candidates):
            continue
        info = known[c.model]
        space = dict(info["space"])
        space.update({k: v for k, v in c.search_space.items() if k in info["space"] and _valid_space({k: v})})
        params = dict(info["defaults"])
        params.update({k: v for k, v in c.hyperparameters.items() if k in info["defaults"]})
        candidates.append(c.model_copy(update={"search_space": space, "hyperparameters": params}))
    if not candidates:
        for key in plan.model_families or list(known):
            if key in known:
                info = known[key]
                candidates.append(Candidate(model=key, hyperparameters=dict(info["defaults"]), search_space=info["space"],
                                            reason="from the knowledge base (the proposal named no usable model)"))
    return proposal.model_copy(update={"candidates": candidates[:top_k]})
