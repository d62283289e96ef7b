"""Data agent: plan decomposition and an analysis grounded on the measured profile."""

from __future__ import annotations

from .brains.base import AgentStep, RecordingBrain
from .contracts import DataAnalysis, DataProfile, DecomposedPlan, Plan, RequirementSpec
from .views import profile_view


def analyse(brain: RecordingBrain, spec: RequirementSpec, plan: Plan, profile: DataProfile) -> DataAnalysis:
    subtasks = brain.answer(AgentStep("data.decompose", DecomposedPlan, {"spec": spec, "plan": plan}))
    analysis = brain.answer(AgentStep("data.analyse", DataAnalysis, {
        "spec": spec, "plan": plan, "subtasks": subtasks, "profile": profile}, views={"profile": profile_view(profile)}))
    return ground(analysis, spec, profile)


def ground(analysis: DataAnalysis, spec: RequirementSpec, profile: DataProfile) -> DataAnalysis:
    """Features must be real columns, never the target (leakage), and typed as the profile measured them."""
    target = spec.dataset.target
    numeric_kinds = {"numeric"}
    usable = {c.name: c for c in profile.columns if c.kind not in {"identifier", "constant", "text", "datetime"} and c.name != target}
    chosen = [f for f in analysis.features if f in usable] or list(usable)
    dropped = dict(analysis.dropped)
    if spec.dataset.features:  # the instruction's limit wins over the brain's choice
        for name in usable:
            if name not in spec.dataset.features:
                dropped[name] = "not among the inputs the instruction allows"
        chosen = [f for f in spec.dataset.features if f in usable]
    for name in spec.dataset.excluded:
        if name in usable:
            dropped[name] = "the instruction says not to use it"
    for name, why in spec.dataset.left_out.items():
        if name in usable:
            dropped[name] = why
    chosen = [f for f in chosen if f not in spec.dataset.excluded and f not in spec.dataset.left_out]
    numeric = [f for f in chosen if usable[f].kind in numeric_kinds]
    categorical = [f for f in chosen if usable[f].kind not in numeric_kinds]
    for name in analysis.features:
        if name not in usable and name != target:
            dropped.setdefault(name, "not a usable column of the data")
    return analysis.model_copy(update={"features": numeric + categorical, "numeric": numeric,
                                       "categorical": categorical, "dropped": dropped})
