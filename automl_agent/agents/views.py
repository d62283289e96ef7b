"""Compact prompt renderings of large inputs: the same facts an agent decides on, in far fewer tokens than JSON.

A step's `views` put these in its prompt; the typed object itself stays the step's input (and what the offline
rules and the cross-checks read)."""

from __future__ import annotations

import json
from typing import Any

from .contracts import DataProfile, PlanOutcome

EXAMPLE_CHARS = 40


def _example(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= EXAMPLE_CHARS else value[:EXAMPLE_CHARS - 1] + "…"


def profile_view(profile: DataProfile, examples: int = 3) -> str:
    """A data profile as one line per column: name | kind | dtype | missing | distinct | examples | minority share."""
    name = profile.path.replace("\\", "/").rsplit("/", 1)[-1]
    lines = [f"{name}: {profile.n_rows} rows, {profile.n_columns} columns",
             "column | kind | dtype | missing | distinct | examples | minority share (two-valued columns)"]
    for c in profile.columns:
        shown = "; ".join(_example(e) for e in c.examples[:examples])
        share = "" if c.minority_share is None else f"{c.minority_share:g}"
        lines.append(f"{c.name} | {c.kind} | {c.dtype} | {c.missing} | {c.n_unique} | {shown} | {share}")
    if profile.class_balance:
        lines.append("target class shares: " + ", ".join(f"{k} {v:g}" for k, v in profile.class_balance.items()))
    if profile.graph is not None:
        lines.append("graph: " + json.dumps(profile.graph.model_dump(mode="json", exclude_none=True)))
    return "\n".join(lines)


def _range(spec: dict[str, Any]) -> str:
    if spec.get("type") == "categorical":
        return "one of " + json.dumps(spec.get("choices", []))
    text = f"{spec.get('type')} {spec.get('low')}..{spec.get('high')}"
    return text + " log" if spec.get("log") else text


def knowledge_view(models: dict[str, dict[str, Any]]) -> str:
    """Known models, one paragraph each: defaults, search ranges and typical cost, without JSON's braces."""
    blocks = []
    for key, info in models.items():
        expected = info.get("expected", {})
        ranges = "; ".join(f"{name} {_range(spec)}" for name, spec in info.get("space", {}).items())
        blocks.append(f"{key} ({info.get('family', '')}): {info.get('notes', '')}\n"
                      f"  defaults {json.dumps(info.get('defaults', {}), separators=(',', ':'))}\n"
                      f"  search {ranges}\n"
                      f"  typical: score {expected.get('score')}, {expected.get('latency_ms')} ms, "
                      f"{expected.get('size_mb')} MB")
    return "\n".join(blocks)


def outcome_summary(outcome: PlanOutcome) -> dict[str, Any]:
    """A plan's outcome as the manager needs it to choose: no search spaces or hyperparameters."""
    return {"plan_id": outcome.plan.plan_id, "title": outcome.plan.title, "data": outcome.data.summary,
            "candidates": [{"model": c.model, "expected_metric": c.expected_metric,
                            "expected_latency_ms": c.expected_latency_ms, "expected_size_mb": c.expected_size_mb,
                            "reason": c.reason} for c in outcome.model.candidates]}
