"""Choices a clustering search makes without the labels: the space to cluster in (a rule; see
benchmarks/results/clustering_criteria.md for why not a score) and the number of clusters under each model's own
parameter name. The tabular training script imports this."""

from __future__ import annotations

import numpy as np

def k_params(model: str, k: int) -> dict:
    """The number of clusters under the name the model's estimator takes."""
    return {"n_components": k} if model == "gaussian_mixture" else {"n_clusters": k}


SIZE_FACTOR_SHARE = 0.8  # the first component's share of variance above which one factor is said to dominate


def choose_representation(numeric: np.ndarray) -> dict:
    """The representation of the numeric columns to cluster in, decided from the unlabelled training rows: when the
    columns are non-negative measurements whose first principal component on the log scale carries most of the
    variance with every column loading the same way (an overall size factor, as in body measurements), that component
    is removed on the log scale ('log_drop1'), so that clusters follow shape rather than size; otherwise the columns
    are standardised ('scaled'). Comparing internal scores across representations does not work (each space has its
    own silhouette scale; see benchmarks/results/clustering_criteria.md), hence a rule here and the criteria within."""
    numeric = np.asarray(numeric, dtype=float)
    if numeric.ndim != 2 or numeric.shape[1] < 3 or len(numeric) < 10:
        return {"kind": "scaled", "reason": "fewer than three numeric columns: standardised"}
    if numeric.min() < 0:
        return {"kind": "scaled", "reason": "some measurements are negative: standardised"}
    logged = np.log1p(numeric)
    std = logged.std(axis=0)
    scaled = (logged - logged.mean(axis=0)) / np.where(std > 0, std, 1.0)
    _, singular, components = np.linalg.svd(scaled, full_matrices=False)
    share = float(singular[0] ** 2 / np.sum(singular ** 2))
    same_sign = bool(np.all(components[0] > 0) or np.all(components[0] < 0))
    detail = {"first_component_share": round(share, 4), "same_sign_loadings": same_sign}
    if share >= SIZE_FACTOR_SHARE and same_sign:
        return {"kind": "log_drop1", **detail,
                "reason": f"one factor carries {share:.0%} of the variance and every column grows with it (overall size): "
                          "clustered on the log scale with that factor removed"}
    return {"kind": "scaled", **detail, "reason": "no single factor dominates the measurements: standardised"}
