"""Who earns @champion: a new version takes the alias only when, on its own held-out rows, it answers better than
any constant would, is at least as good as the current champion on the same rows by the run's metric, and takes the
same inputs. Otherwise it is registered as @challenger (or @candidate when its run missed a constraint), and the
reason, with both scores, travels with the version.

This module decides; `aliases` moves the aliases and records why."""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel

from ..agents import metrics as measures
from ..agents.contracts import CLASSIFICATION_TASKS
from ..reporting.evidence import HeldOutEvidence
from ..workspace import Standing


class Rival(BaseModel):
    """The current champion as the gate sees it: its version, its input contract, and its score on the new
    version's held-out rows (None when it could not be measured, with the reason)."""

    version: str
    schema_contract: dict[str, Any]
    evidence: HeldOutEvidence | None = None
    unmeasured: str = ""


def input_contract(schema: dict[str, Any]) -> dict[str, Any]:
    """What a caller of the model depends on: the task, the target, the horizon, and each input column's name and
    kind (not its range or levels, which drift with the data)."""
    return {"task": schema.get("task"), "target": schema.get("target"), "horizon": schema.get("horizon"),
            "columns": [{k: c.get(k) for k in ("name", "type", "length") if c.get(k) is not None}
                        for c in schema.get("columns", [])]}


def contract_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """'' when a caller of `old` can call `new` unchanged; otherwise what changed, in words."""
    changes = []
    for key in ("task", "target", "horizon"):
        if old.get(key) != new.get(key):
            changes.append(f"{key} {old.get(key)!r} -> {new.get(key)!r}")
    before = {c["name"]: c for c in old.get("columns", [])}
    after = {c["name"]: c for c in new.get("columns", [])}
    if gone := [n for n in before if n not in after]:
        changes.append(f"{len(gone)} input(s) dropped ({_names(gone)})")
    if added := [n for n in after if n not in before]:
        changes.append(f"{len(added)} input(s) added ({_names(added)})")
    if retyped := [n for n in before if n in after and before[n] != after[n]]:
        changes.append(f"changed kind: {_names(retyped)}")
    return "; ".join(changes)


def _names(names: list[str], shown: int = 6) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


def no_better_than_constant(evidence: HeldOutEvidence) -> str:
    """Why the model's answers carry no information on its held-out rows ('' when they do): a classifier or
    clusterer that gives one answer for every row, a classifier at or below chance, a regressor no better than
    always answering the mean."""
    if not evidence.y_pred or not evidence.y_true:
        return ""
    task = evidence.task
    answers = set(map(str, evidence.y_pred))
    if task in CLASSIFICATION_TASKS or task == "tabular_clustering":
        if len(answers) == 1 and len(set(map(str, evidence.y_true))) > 1:
            return (f"it gives the same answer ({next(iter(answers))!r}) for all {len(evidence.y_pred)} held-out "
                    "rows: a constant, not a model")
        if task in CLASSIFICATION_TASKS:
            classes = sorted(set(map(str, evidence.y_true)))
            truth, said = np.asarray(evidence.y_true, dtype=str), np.asarray(evidence.y_pred, dtype=str)
            balanced = float(np.mean([np.mean(said[truth == c] == c) for c in classes]))
            if balanced <= 1 / len(classes):
                return (f"its balanced accuracy on the held-out rows is {balanced:.3f}, no better than chance "
                        f"for {len(classes)} classes")
    if task == "tabular_regression" and evidence.scores.get("r2") is not None and evidence.scores["r2"] <= 0:
        return (f"its R² on the held-out rows is {evidence.scores['r2']:.3f}: no better than always answering the "
                "mean")
    return ""


def decide(*, metric: str, evidence: HeldOutEvidence, run_passed: bool, run_reason: str = "",
           rival: Rival | None, contract: dict[str, Any], allow_schema_change: bool = False) -> Standing:
    """The new version's alias and the reason for it."""
    score = evidence.scores.get(metric)
    standing = Standing(alias="candidate", reason="", metric=metric, score=score, n_rows=evidence.n_rows,
                        champion_version=rival.version if rival else None)
    if not run_passed:
        standing.reason = f"its run missed a requirement ({run_reason})" if run_reason else "its run missed a requirement"
        return standing
    if constant := no_better_than_constant(evidence):
        standing.reason = constant
        return standing
    if rival is None:
        standing.alias = "champion"
        standing.reason = (f"the first version to meet the run's requirements ({metric} {_fmt(score)} on "
                           f"{evidence.n_rows} held-out rows)")
        return standing
    standing.alias = "challenger"
    if not rival.schema_contract:  # a champion registered some other way: nothing to compare with
        standing.reason = (f"champion v{rival.version} could not be measured ({rival.unmeasured or 'no schema'}); "
                           "promote by hand")
        return standing
    changed = contract_difference(rival.schema_contract, contract)
    if changed and not allow_schema_change:
        standing.reason = (f"its inputs differ from champion v{rival.version}'s ({changed}); callers of @champion would "
                           f"break. Promote it by hand (automl-agent models promote), or register it under another "
                           f"model name")
        return standing
    rival_score = rival.evidence.scores.get(metric) if rival.evidence and not rival.evidence.unavailable else None
    standing.champion_score = rival_score
    if score is None or rival_score is None:
        why = rival.unmeasured or (rival.evidence.unavailable if rival.evidence else "") or (
            f"champion v{rival.version} takes other inputs, so it cannot be scored on this version's rows" if changed
            else f"no {metric} to compare")
        if changed and allow_schema_change:
            standing.alias = "champion"
            standing.reason = f"takes the alias with changed inputs ({changed}), as asked; not compared: {why}"
        else:
            standing.reason = f"champion v{rival.version} could not be measured on the same rows ({why}); promote by hand"
        return standing
    better_or_equal = score <= rival_score if measures.is_loss(metric) else score >= rival_score
    verb = "at most" if measures.is_loss(metric) else "at least"
    compared = (f"{metric} {_fmt(score)} against champion v{rival.version}'s {_fmt(rival_score)} on the same "
                f"{evidence.n_rows} held-out rows")
    if better_or_equal:
        standing.alias = "champion"
        standing.reason = compared + (f"; inputs changed ({changed}), as allowed" if changed else "")
    else:
        standing.reason = f"{compared}: a new champion must score {verb} as well"
    return standing
