"""The paper's scores (appendix B.4): success rate grading, normalised performance, comprehensive score."""

from __future__ import annotations

from .agents import metrics


def success_score(*, runnable: bool, deployed: bool, n_constraints: int, n_satisfied: int) -> float:
    """Constraint-free scale (0, 0.5, 1) when there are no constraints; constraint-aware (0 ... 1) otherwise."""
    if not runnable:
        return 0.0
    if n_constraints == 0:
        return 1.0 if deployed else 0.5
    if not deployed:
        return 0.25
    if n_satisfied == n_constraints:
        return 1.0
    return 0.75 if n_satisfied > 0 else 0.5


def normalised_performance(metric: str, value: float | None) -> float:
    """Scores are taken as they are; losses become 1 / (1 + loss)."""
    if value is None:
        return 0.0
    if metrics.is_loss(metric):
        return 1.0 / (1.0 + max(value, 0.0))
    return float(value)


def comprehensive_score(sr: float, nps: float) -> float:
    return 0.5 * sr + 0.5 * nps
